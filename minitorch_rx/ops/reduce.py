"""Reductions over all dims, one dim or a tuple of dims, with ``keepdim``."""

from __future__ import annotations

import math
from collections import namedtuple

import torch

from ..autograd.function import Function, LinearMap
from ..autograd.tensor import Tensor
from .autocast import state as autocast_state
from .autocast import to_float32, to_float32_on_gpu
from .constants import dtype_name, tensor_arg
from .dims import normalize_dim, normalize_dims
from .elementwise import maximum, minimum
from .shape import _IndexGather, _IndexScatter

#: ``max(dim)`` / ``min(dim)`` results, as ``torch.return_types.max``.
ValuesIndices = namedtuple("ValuesIndices", ["values", "indices"])


def _expand_back(grad: torch.Tensor, shape: torch.Size, dims: tuple | None, keepdim: bool) -> torch.Tensor:
    """Undo a reduction's shape change: put reduced dims back as size 1, then broadcast."""
    if not shape:
        return grad.reshape(shape)  # a 0-dim input: its "dim 0" is no dim at all
    if not keepdim and dims is not None:
        for d in dims:
            grad = grad.unsqueeze(d)
    return grad.expand(shape)


def _count(shape: torch.Size, dims: tuple | None) -> int:
    count = 1
    for d in range(len(shape)) if dims is None or not shape else dims:
        count *= shape[d]
    return count


class Sum(Function):
    @staticmethod
    def forward(ctx, x, dims, keepdim, dtype=None):
        ctx.meta = (x.shape, dims, keepdim)
        if dtype is not None:
            ctx.input_dtype = x.dtype
        return (
            x.sum(dtype=dtype)
            if dims is None and not keepdim
            else x.sum(dims if dims is not None else tuple(range(x.dim())), keepdim, dtype=dtype)
        )

    @staticmethod
    def backward(ctx, grad):
        shape, dims, keepdim = ctx.meta
        grad = _expand_back(grad, shape, dims, keepdim)
        if len(ctx.needs_input_grad) == 4 and grad.dtype != ctx.input_dtype:
            grad = grad.to(ctx.input_dtype)
        return (grad, *_NONES[len(ctx.needs_input_grad) - 1])


_NONES = [(None,) * n for n in range(8)]


class Mean(Function):
    @staticmethod
    def forward(ctx, x, dims, keepdim):
        ctx.meta = (x.shape, dims, keepdim)
        return (
            x.mean()
            if dims is None and not keepdim
            else x.mean(dims if dims is not None else tuple(range(x.dim())), keepdim)
        )

    @staticmethod
    def backward(ctx, grad):
        shape, dims, keepdim = ctx.meta
        return _expand_back(grad / _count(shape, dims), shape, dims, keepdim), None, None


def _inverse_dof(shape: torch.Size, dims: tuple | None, correction: float) -> float:
    """1 / (N - correction); infinite at zero degrees of freedom, where PyTorch's gradient is NaN."""
    dof = _count(shape, dims) - correction
    return 1.0 / dof if dof else math.inf


class Var(Function):
    @staticmethod
    def forward(ctx, x, dims, correction, keepdim):
        ctx.save_for_backward(x)
        ctx.meta = (dims, correction, keepdim)
        return torch.var(x, dims, correction=correction, keepdim=keepdim)

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        dims, correction, keepdim = ctx.meta
        centered = x - x.mean(dims, keepdim=True)
        scale = _inverse_dof(x.shape, dims, correction) * 2
        # scaled before multiplying by ``centered``, as PyTorch: grad * centered can overflow float16
        return _expand_back(grad * scale, x.shape, dims, keepdim) * centered, None, None, None


class Std(Function):
    @staticmethod
    def forward(ctx, x, dims, correction, keepdim):
        y = torch.std(x, dims, correction=correction, keepdim=keepdim)
        ctx.save_for_backward(x, y)
        ctx.meta = (dims, correction, keepdim)
        return y

    @staticmethod
    def backward(ctx, grad):
        x, y = ctx.saved_tensors
        dims, correction, keepdim = ctx.meta
        centered = x - x.mean(dims, keepdim=True)
        scale = _inverse_dof(x.shape, dims, correction)
        per_std = torch.where(y == 0, 0.0, grad / y)  # PyTorch: no gradient where std is 0
        return _expand_back(per_std * scale, x.shape, dims, keepdim) * centered, None, None, None


class EvenlyDistributedExtremum(Function):
    """amax/amin and full max/min: the gradient is split evenly among tied extreme values.

    As in PyTorch, full ``max()``/``min()`` (``whole``) count a NaN result's NaNs as its ties and
    put zeros elsewhere whatever the gradient (an infinite one too); amax/amin scale by the tie
    count, so a slice whose result is NaN gets NaN gradients."""

    @staticmethod
    def forward(ctx, x, dims, keepdim, largest, whole):
        all_dims = tuple(range(x.dim())) if dims is None else dims
        y = (torch.amax if largest else torch.amin)(x, all_dims, keepdim)
        ctx.save_for_backward(x, y)
        ctx.meta = (dims, keepdim, whole)
        return y

    @staticmethod
    def backward(ctx, grad):
        x, y = ctx.saved_tensors
        dims, keepdim, whole = ctx.meta
        if whole:
            mask = (x != x) if bool(y != y) else (x == y)
            return (grad / mask.sum()).expand(x.shape).where(mask, 0.0), None, None, None, None
        mask = x == _expand_back(y, x.shape, dims, keepdim)
        count = mask.sum(dims if dims is not None else tuple(range(x.dim())), keepdim=True)
        return _expand_back(grad, x.shape, dims, keepdim) * mask / count, None, None, None, None


class ExtremumWithIndices(Function):
    """max(dim)/min(dim): values and indices; the gradient goes to the index, as in PyTorch."""

    @staticmethod
    def forward(ctx, x, dim, keepdim, largest):
        values, indices = (torch.max if largest else torch.min)(x, dim, keepdim)
        ctx.mark_non_differentiable(indices)
        ctx.save_for_backward(indices)
        ctx.meta = (x.shape, dim, keepdim)
        return values, indices

    @staticmethod
    def backward(ctx, grad_values, grad_indices):
        (indices,) = ctx.saved_tensors
        shape, dim, keepdim = ctx.meta
        if len(shape) == 0:
            return grad_values, None, None, None
        if not keepdim:
            grad_values = grad_values.unsqueeze(dim)
            indices = indices.unsqueeze(dim)
        if isinstance(grad_values, Tensor):  # create_graph: a scatter whose backward gathers again
            indices = indices._data
            positions = torch.arange(math.prod(shape), device=indices.device).view(shape).gather(dim, indices)
            scatter = _IndexScatter(shape, grad_values.dtype, grad_values.device, positions)
            return LinearMap.apply(grad_values, scatter, _IndexGather(positions)), None, None, None
        grad = torch.zeros(shape, dtype=grad_values.dtype, device=grad_values.device)
        return grad.scatter_(dim, indices, grad_values), None, None, None


class LogSumExp(Function):
    _node_name = "LogsumexpBackward0"  # PyTorch's name for this node

    @staticmethod
    def forward(ctx, x, dims, keepdim):
        all_dims = tuple(range(x.dim())) if dims is None else dims
        y = torch.logsumexp(x, all_dims, keepdim)
        ctx.save_for_backward(x, y)
        ctx.meta = (dims, keepdim)
        return y

    @staticmethod
    def backward(ctx, grad):
        x, y = ctx.saved_tensors
        dims, keepdim = ctx.meta
        weights = torch.exp(x - _expand_back(y, x.shape, dims, keepdim))
        return _expand_back(grad, x.shape, dims, keepdim) * weights, None, None


class Prod(Function):
    """The product over all dims or one; with zeros, each element's gradient is the product of
    the others (nonzero only at a slice's single zero), as PyTorch's."""

    @staticmethod
    def forward(ctx, x, dim, keepdim, dtype):
        y = x.prod(dtype=dtype) if dim is None else x.prod(dim, keepdim, dtype=dtype)
        ctx.save_for_backward(x, y)
        ctx.meta = (dim, keepdim)
        ctx.input_dtype = x.dtype
        return y

    @staticmethod
    def backward(ctx, grad):
        x, y = ctx.saved_tensors
        dim, keepdim = ctx.meta
        dims = None if dim is None else (dim,)
        grad = _expand_back(grad, x.shape, dims, keepdim)
        y = _expand_back(y, x.shape, dims, keepdim)
        if x.dtype != y.dtype:
            x = x.to(y.dtype)
        zero = x == 0
        if not bool(zero.any()):
            return (grad * y / x).to(ctx.input_dtype), None, None, None
        # Zeros: the product of the other elements, without dividing by a zero.
        if dim is None:
            others = _products_of_others(x.reshape(-1), 0).reshape(x.shape)
        else:
            others = _products_of_others(x, dim)
        return (grad * others).to(ctx.input_dtype), None, None, None


def _products_of_others(x, dim: int):
    """For each element, the product of the others along ``dim``: an exclusive product from
    the left times one from the right (no division, so zeros are fine; differentiable too)."""
    if x.dim() == 0:
        return x.new_ones(())
    x = x.transpose(dim, -1)
    positions = torch.arange(x.shape[-1], device=x.device)
    previous = (positions - 1).clamp(min=0)
    not_first = positions != 0
    reverse = positions.flip(0)
    left = x[..., previous].where(not_first, 1.0).cumprod(-1)
    right = x[..., reverse][..., previous].where(not_first, 1.0).cumprod(-1)[..., reverse]
    return (left * right).transpose(dim, -1)


class MedianAll(Function):
    """The median of all elements: its gradient is split evenly among the elements equal to it."""

    _recorded_as = "Median"

    @staticmethod
    def forward(ctx, x):
        y = torch.median(x)
        ctx.save_for_backward(x, y)
        return y

    @staticmethod
    def backward(ctx, grad):
        x, y = ctx.saved_tensors
        mask = x == y
        return grad * mask / mask.sum()


class SelectedAlongDim(Function):
    """median(dim)/mode(dim): values and indices; the gradient goes to each selected index."""

    @staticmethod
    def forward(ctx, x, kernel, dim, keepdim):
        values, indices = kernel(x, dim, keepdim)
        ctx.mark_non_differentiable(indices)
        ctx.save_for_backward(indices)
        ctx.meta = (x.shape, dim, keepdim)
        return values, indices

    backward = staticmethod(ExtremumWithIndices.backward)


# PyTorch names a reduction's node after the overload that ran: sum() SumBackward0, sum(dim)
# SumBackward1; max() MaxBackward1, max(dim) MaxBackward0.
_SumDim = Sum.overload("SumBackward1")
_MeanDim = Mean.overload("MeanBackward1")
_ProdDim = Prod.overload("ProdBackward1")
_MaxAll = EvenlyDistributedExtremum.overload("MaxBackward1")
_MinAll = EvenlyDistributedExtremum.overload("MinBackward1")
_Amax = EvenlyDistributedExtremum.overload("AmaxBackward0")
_Amin = EvenlyDistributedExtremum.overload("AminBackward0")
_MaxDim = ExtremumWithIndices.overload("MaxBackward0")
_MinDim = ExtremumWithIndices.overload("MinBackward0")


# ------------------------------------------------------------------ public functions
def sum(input: Tensor, dim=None, keepdim: bool = False, *, dtype: torch.dtype | None = None) -> Tensor:
    input = tensor_arg(input, "sum")
    if autocast_state.active and dtype is None:
        (input,) = to_float32_on_gpu(input)
    op = Sum if dim is None else _SumDim
    if dtype is not None:
        return op.apply(input, normalize_dims(dim, input._data.dim()), keepdim, dtype)
    return op.apply(input, normalize_dims(dim, input._data.dim()), keepdim)


def sum_to_size(input: Tensor, *size) -> Tensor:
    """Sum ``input`` down to ``size`` (the reverse of broadcasting ``size`` to its shape)."""
    if len(size) == 1 and isinstance(size[0], (tuple, list, torch.Size)):
        size = size[0]
    elif len(size) == 1 and isinstance(size[0], (Tensor, torch.Tensor)):
        raise TypeError("sum_to_size(): argument 'size' (position 1) must be tuple of ints, not Tensor")
    size = tuple(size)
    shape = tuple(input._data.shape)
    if shape == size:
        return input
    lead = len(shape) - len(size)
    if lead < 0 or any(s != 1 and s != n for s, n in zip(size, shape[lead:])):
        raise RuntimeError(f"size {list(size)} is not expandable to size {list(shape)}.")
    dims = tuple(range(lead)) + tuple(lead + i for i, s in enumerate(size) if s == 1 and shape[lead + i] != 1)
    summed = Sum.apply(input, dims, True) if dims else input
    return summed.reshape(size)


def mean(input: Tensor, dim=None, keepdim: bool = False) -> Tensor:
    input = tensor_arg(input, "mean")
    if not (input._data.is_floating_point() or input._data.is_complex()):
        raise RuntimeError(
            "mean(): could not infer output dtype. Input dtype must be either a floating point or "
            f"complex dtype. Got: {dtype_name(input._data.dtype)}"
        )
    return (Mean if dim is None else _MeanDim).apply(input, normalize_dims(dim, input._data.dim()), keepdim)


def _correction(unbiased: bool | None, correction: float | None) -> float:
    if correction is not None:
        return correction
    return 0 if unbiased is False else 1


def _unbiased_first(dim, unbiased):
    """PyTorch's ``var(input, unbiased)`` overload: a bool where ``dim`` goes is ``unbiased``."""
    return (None, dim) if isinstance(dim, bool) else (dim, unbiased)


def var(input: Tensor, dim=None, unbiased: bool | None = None, keepdim: bool = False, *, correction=None) -> Tensor:
    input = tensor_arg(input, "var")
    dim, unbiased = _unbiased_first(dim, unbiased)
    return Var.apply(input, normalize_dims(dim, input._data.dim()), _correction(unbiased, correction), keepdim)


def std(input: Tensor, dim=None, unbiased: bool | None = None, keepdim: bool = False, *, correction=None) -> Tensor:
    input = tensor_arg(input, "std")
    dim, unbiased = _unbiased_first(dim, unbiased)
    return Std.apply(input, normalize_dims(dim, input._data.dim()), _correction(unbiased, correction), keepdim)


def amax(input: Tensor, dim=(), keepdim: bool = False) -> Tensor:
    input = tensor_arg(input, "amax")
    dims = normalize_dims(dim, input._data.dim())
    if dims is None and input._data.numel() == 0:
        raise RuntimeError(
            "amax(): Expected reduction dim to be specified for input.numel() == 0. "
            "Specify the reduction dim with the 'dim' argument."
        )
    return _Amax.apply(input, dims, keepdim, True, False)


def amin(input: Tensor, dim=(), keepdim: bool = False) -> Tensor:
    input = tensor_arg(input, "amin")
    dims = normalize_dims(dim, input._data.dim())
    if dims is None and input._data.numel() == 0:
        raise RuntimeError(
            "amin(): Expected reduction dim to be specified for input.numel() == 0. "
            "Specify the reduction dim with the 'dim' argument."
        )
    return _Amin.apply(input, dims, keepdim, False, False)


def _extremum(input: Tensor, dim, keepdim: bool, largest: bool):
    input = tensor_arg(input, "max" if largest else "min")
    if isinstance(dim, (Tensor, torch.Tensor)):  # torch.max(input, other) is maximum
        return (maximum if largest else minimum)(input, dim)
    if dim is None:
        if input._data.numel() == 0:
            name = "max" if largest else "min"
            raise RuntimeError(
                f"{name}(): Expected reduction dim to be specified for input.numel() == 0. "
                "Specify the reduction dim with the 'dim' argument."
            )
        return (_MaxAll if largest else _MinAll).apply(input, None, False, largest, True)
    op = _MaxDim if largest else _MinDim
    values, indices = op.apply(input, normalize_dim(dim, input._data.dim()), keepdim, largest)
    return ValuesIndices(values, indices)


def max(input: Tensor, dim: int | Tensor | None = None, keepdim: bool = False):
    """The largest value; with ``dim``, ``(values, indices)`` along it; with a tensor, ``maximum``."""
    return _extremum(input, dim, keepdim, True)


def min(input: Tensor, dim: int | Tensor | None = None, keepdim: bool = False):
    """The smallest value; with ``dim``, ``(values, indices)`` along it; with a tensor, ``minimum``."""
    return _extremum(input, dim, keepdim, False)


def logsumexp(input: Tensor, dim, keepdim: bool = False) -> Tensor:
    input = tensor_arg(input, "logsumexp")
    if autocast_state.active:
        (input,) = to_float32_on_gpu(input)
    return LogSumExp.apply(input, normalize_dims(dim, input._data.dim()), keepdim)


def argmax(input: Tensor, dim: int | None = None, keepdim: bool = False) -> Tensor:
    input = tensor_arg(input, "argmax")
    return Tensor._make(torch.argmax(input._data, dim, keepdim), None)


def argmin(input: Tensor, dim: int | None = None, keepdim: bool = False) -> Tensor:
    input = tensor_arg(input, "argmin")
    return Tensor._make(torch.argmin(input._data, dim, keepdim), None)


def prod(input: Tensor, dim: int | None = None, keepdim: bool = False, *, dtype: torch.dtype | None = None) -> Tensor:
    """The product of all elements, or along ``dim``; differentiable with zeros in the input."""
    input = tensor_arg(input, "prod")
    if autocast_state.active and dtype is None:  # on the CPU's float32 list too
        (input,) = to_float32(input)
    if dim is not None:
        dim = normalize_dim(dim, input._data.dim())
    return (Prod if dim is None else _ProdDim).apply(input, dim, keepdim, dtype)


def median(input: Tensor, dim: int | None = None, keepdim: bool = False):
    """The lower median of all elements; with ``dim``, ``(values, indices)`` along it."""
    input = tensor_arg(input, "median")
    if dim is None:
        return MedianAll.apply(input)
    values, indices = SelectedAlongDim.apply(input, torch.median, normalize_dim(dim, input._data.dim()), keepdim)
    return ValuesIndices(values, indices)


def mode(input: Tensor, dim: int = -1, keepdim: bool = False):
    """The most frequent value along ``dim`` (the smallest of ties) and an index of it."""
    input = tensor_arg(input, "mode")
    values, indices = SelectedAlongDim.apply(input, torch.mode, normalize_dim(dim, input._data.dim()), keepdim)
    return ValuesIndices(values, indices)
