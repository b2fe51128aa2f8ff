"""Reductions over all dims, one dim or a tuple of dims, with ``keepdim``."""

from __future__ import annotations

import math
from collections import namedtuple

import torch

from ..autograd.function import Function
from ..autograd.tensor import Tensor
from .constants import dtype_name, tensor_arg
from .dims import normalize_dim, normalize_dims
from .elementwise import maximum, minimum

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
    def forward(ctx, x, dims, keepdim):
        ctx.meta = (x.shape, dims, keepdim)
        return (
            x.sum()
            if dims is None and not keepdim
            else x.sum(dims if dims is not None else tuple(range(x.dim())), keepdim)
        )

    @staticmethod
    def backward(ctx, grad):
        shape, dims, keepdim = ctx.meta
        return _expand_back(grad, shape, dims, keepdim), None, None


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
        grad = torch.zeros(shape, dtype=grad_values.dtype, device=grad_values.device)
        return grad.scatter_(dim, indices, grad_values), None, None, None


class LogSumExp(Function):
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


# ------------------------------------------------------------------ public functions
def sum(input: Tensor, dim=None, keepdim: bool = False) -> Tensor:
    input = tensor_arg(input, "sum")
    return Sum.apply(input, normalize_dims(dim, input._data.dim()), keepdim)


def mean(input: Tensor, dim=None, keepdim: bool = False) -> Tensor:
    input = tensor_arg(input, "mean")
    if not (input._data.is_floating_point() or input._data.is_complex()):
        raise RuntimeError(
            "mean(): could not infer output dtype. Input dtype must be either a floating point or "
            f"complex dtype. Got: {dtype_name(input._data.dtype)}"
        )
    return Mean.apply(input, normalize_dims(dim, input._data.dim()), keepdim)


def _correction(unbiased: bool | None, correction: float | None) -> float:
    if correction is not None:
        return correction
    return 0 if unbiased is False else 1


def var(input: Tensor, dim=None, unbiased: bool | None = None, keepdim: bool = False, *, correction=None) -> Tensor:
    input = tensor_arg(input, "var")
    return Var.apply(input, normalize_dims(dim, input._data.dim()), _correction(unbiased, correction), keepdim)


def std(input: Tensor, dim=None, unbiased: bool | None = None, keepdim: bool = False, *, correction=None) -> Tensor:
    input = tensor_arg(input, "std")
    return Std.apply(input, normalize_dims(dim, input._data.dim()), _correction(unbiased, correction), keepdim)


def amax(input: Tensor, dim=(), keepdim: bool = False) -> Tensor:
    input = tensor_arg(input, "amax")
    dims = normalize_dims(dim, input._data.dim())
    if dims is None and input._data.numel() == 0:
        raise RuntimeError(
            "amax(): Expected reduction dim to be specified for input.numel() == 0. "
            "Specify the reduction dim with the 'dim' argument."
        )
    return EvenlyDistributedExtremum.apply(input, dims, keepdim, True, False)


def amin(input: Tensor, dim=(), keepdim: bool = False) -> Tensor:
    input = tensor_arg(input, "amin")
    dims = normalize_dims(dim, input._data.dim())
    if dims is None and input._data.numel() == 0:
        raise RuntimeError(
            "amin(): Expected reduction dim to be specified for input.numel() == 0. "
            "Specify the reduction dim with the 'dim' argument."
        )
    return EvenlyDistributedExtremum.apply(input, dims, keepdim, False, False)


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
        return EvenlyDistributedExtremum.apply(input, None, False, largest, True)
    values, indices = ExtremumWithIndices.apply(input, normalize_dim(dim, input._data.dim()), keepdim, largest)
    return ValuesIndices(values, indices)


def max(input: Tensor, dim: int | Tensor | None = None, keepdim: bool = False):
    """The largest value; with ``dim``, ``(values, indices)`` along it; with a tensor, ``maximum``."""
    return _extremum(input, dim, keepdim, True)


def min(input: Tensor, dim: int | Tensor | None = None, keepdim: bool = False):
    """The smallest value; with ``dim``, ``(values, indices)`` along it; with a tensor, ``minimum``."""
    return _extremum(input, dim, keepdim, False)


def logsumexp(input: Tensor, dim, keepdim: bool = False) -> Tensor:
    input = tensor_arg(input, "logsumexp")
    return LogSumExp.apply(input, normalize_dims(dim, input._data.dim()), keepdim)


def argmax(input: Tensor, dim: int | None = None, keepdim: bool = False) -> Tensor:
    input = tensor_arg(input, "argmax")
    return Tensor._make(torch.argmax(input._data, dim, keepdim), None)


def argmin(input: Tensor, dim: int | None = None, keepdim: bool = False) -> Tensor:
    input = tensor_arg(input, "argmin")
    return Tensor._make(torch.argmin(input._data, dim, keepdim), None)
