"""Shape ops, indexing, concatenation and device/dtype moves. Their backward only moves gradients."""

from __future__ import annotations

import torch

from ..autograd.function import Function
from ..autograd.tensor import Tensor, detach_torch
from .constants import TENSOR_TYPES, tensor_arg
from .dims import normalize_dim
from .inplace import register_view, split_index


class _ShapeOnly(Function):
    """Ops that only reinterpret the shape: the gradient is reshaped back."""

    @staticmethod
    def backward(ctx, grad):
        return grad.reshape(ctx.input_shape), None


class View(_ShapeOnly):
    @staticmethod
    def forward(ctx, x, shape):
        ctx.input_shape = x.shape
        return x.view(shape)


class Reshape(_ShapeOnly):
    @staticmethod
    def forward(ctx, x, shape):
        ctx.input_shape = x.shape
        return x.reshape(shape)


class Squeeze(_ShapeOnly):
    @staticmethod
    def forward(ctx, x, dim):
        ctx.input_shape = x.shape
        return x.squeeze() if dim is None else x.squeeze(dim)


class Unsqueeze(_ShapeOnly):
    @staticmethod
    def forward(ctx, x, dim):
        ctx.input_shape = x.shape
        return x.unsqueeze(dim)


class Transpose(Function):
    @staticmethod
    def forward(ctx, x, dim0, dim1):
        ctx.dims = (dim0, dim1)
        return x.transpose(dim0, dim1)

    @staticmethod
    def backward(ctx, grad):
        return grad.transpose(*ctx.dims), None, None


class Permute(Function):
    @staticmethod
    def forward(ctx, x, dims):
        ctx.inverse = tuple(sorted(range(len(dims)), key=dims.__getitem__))
        return x.permute(dims)

    @staticmethod
    def backward(ctx, grad):
        return grad.permute(ctx.inverse), None


class Expand(Function):
    @staticmethod
    def forward(ctx, x, sizes):
        ctx.input_shape = x.shape
        return x.expand(sizes)

    @staticmethod
    def backward(ctx, grad):
        return grad.sum_to_size(ctx.input_shape), None


class Contiguous(Function):
    @staticmethod
    def forward(ctx, x):
        return x.contiguous()

    @staticmethod
    def backward(ctx, grad):
        return grad


class Index(Function):
    """``x[index]`` for any index torch accepts. Basic indexing (ints, slices, None, Ellipsis)
    scatters the gradient into a view; advanced indexing (tensors, lists, masks) may repeat
    elements, so its gradient is summed through the flat positions the index selected."""

    @staticmethod
    def forward(ctx, x, index):
        out = x[index]
        if ctx.needs_input_grad[0]:
            ctx.input_meta = (x.shape, x.dtype, x.device)
            if _is_advanced(index):
                positions = torch.arange(x.numel(), device=x.device).view(x.shape)[index]
                # the index's tensors too, unused but version-checked: PyTorch's error if one changes
                ctx.save_for_backward(positions, *split_index(index)[1])
            else:
                ctx.basic_index = index
        return out

    @staticmethod
    def backward(ctx, grad):
        shape, dtype, device = ctx.input_meta
        full = torch.zeros(shape, dtype=dtype, device=device)
        if "basic_index" in ctx.__dict__:
            full[ctx.basic_index] = grad
            return full, None
        positions = ctx.saved_tensors[0]
        full.view(-1).index_add_(0, positions.reshape(-1), grad.reshape(-1).to(dtype))
        return full, None


def _is_advanced(index) -> bool:
    items = index if isinstance(index, tuple) else (index,)
    return not all(i is None or i is Ellipsis or isinstance(i, (int, slice)) and not isinstance(i, bool) for i in items)


class Cat(Function):
    @staticmethod
    def forward(ctx, dim, *tensors):
        out = torch.cat(tensors, dim)  # first, so that torch words the errors
        ctx.dim = dim
        ctx.parts = [(0 if _is_legacy_empty(t) else t.shape[dim], t.shape, t.dtype) for t in tensors]
        return out

    @staticmethod
    def backward(ctx, grad):
        pieces = grad.split([size for size, _, _ in ctx.parts], ctx.dim)
        return (None, *(p.reshape(shape).to(dtype) for p, (_, shape, dtype) in zip(pieces, ctx.parts, strict=True)))


def _is_legacy_empty(t: torch.Tensor) -> bool:
    """A 1-D empty tensor, which ``torch.cat`` skips whatever the other tensors' shapes."""
    return t.dim() == 1 and t.shape[0] == 0


class Stack(Function):
    @staticmethod
    def forward(ctx, dim, *tensors):
        ctx.dim = dim
        ctx.dtypes = [t.dtype for t in tensors]
        return torch.stack(tensors, dim)

    @staticmethod
    def backward(ctx, grad):
        pieces = grad.unbind(ctx.dim)
        return (None, *(p if p.dtype == dtype else p.to(dtype) for p, dtype in zip(pieces, ctx.dtypes)))


class ToCopy(Function):
    @staticmethod
    def forward(ctx, x, args, kwargs):
        ctx.source = (x.dtype, x.device)
        return x.to(*args, **kwargs)

    @staticmethod
    def backward(ctx, grad):
        dtype, device = ctx.source
        return grad.to(device=device, dtype=dtype), None, None


# ------------------------------------------------------------------ public functions
def _viewing(out: Tensor, input: Tensor) -> Tensor:
    """Note, when ``out``'s data is a view of ``input``'s, the tensor whose memory it views (the
    base of ``input`` if that is a view itself): an in-place op on ``out`` then rewrites that
    base's history too (``ops/inplace.py``), as PyTorch's CopySlices does."""
    base = out._data._base
    if base is not None:
        root = getattr(input, "_view_base", None)
        if root is None:
            root = input
        if base is root._data or base is root._data._base:
            out._view_base = root
            register_view(root, out)
    return out


def _shape_arg(shape: tuple) -> tuple:
    return tuple(shape[0]) if len(shape) == 1 and isinstance(shape[0], (tuple, list, torch.Size)) else shape


def view(input: Tensor, *shape) -> Tensor:
    input = tensor_arg(input, "view")
    return _viewing(View.apply(input, _shape_arg(shape)), input)


def reshape(input: Tensor, *shape) -> Tensor:
    input = tensor_arg(input, "reshape")
    return _viewing(Reshape.apply(input, _shape_arg(shape)), input)


def flatten(input: Tensor, start_dim: int = 0, end_dim: int = -1) -> Tensor:
    input = tensor_arg(input, "flatten")
    shape = input._data.shape
    if not shape:
        return _viewing(Reshape.apply(input, (1,)), input)
    start, end = normalize_dim(start_dim, len(shape)), normalize_dim(end_dim, len(shape))
    if start > end:
        raise RuntimeError("flatten() has invalid args: start_dim cannot come after end_dim")
    if start == end:
        return input
    flat = 1
    for size in shape[start : end + 1]:
        flat *= size
    return _viewing(Reshape.apply(input, (*shape[:start], flat, *shape[end + 1 :])), input)


def squeeze(input: Tensor, dim: int | tuple | None = None) -> Tensor:
    input = tensor_arg(input, "squeeze")
    return _viewing(Squeeze.apply(input, dim), input)


def unsqueeze(input: Tensor, dim: int) -> Tensor:
    input = tensor_arg(input, "unsqueeze")
    return _viewing(Unsqueeze.apply(input, normalize_dim(dim, input._data.dim() + 1)), input)


def transpose(input: Tensor, dim0: int, dim1: int) -> Tensor:
    input = tensor_arg(input, "transpose")
    ndim = input._data.dim()
    return _viewing(Transpose.apply(input, normalize_dim(dim0, ndim), normalize_dim(dim1, ndim)), input)


def t(input: Tensor) -> Tensor:
    input = tensor_arg(input, "t")
    if input._data.dim() > 2:
        raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is {input._data.dim()}D")
    return input if input._data.dim() < 2 else _viewing(Transpose.apply(input, 0, 1), input)


def permute(input: Tensor, *dims) -> Tensor:
    input = tensor_arg(input, "permute")
    dims = _shape_arg(dims)
    ndim = input._data.dim()
    if len(dims) != ndim:
        raise RuntimeError(
            "permute(sparse_coo): number of dimensions in the tensor input does not match the length "
            f"of the desired ordering of dimensions i.e. input.dim() = {ndim} is not equal to len(dims) = {len(dims)}"
        )
    return _viewing(Permute.apply(input, tuple(normalize_dim(d, ndim) for d in dims)), input)


def expand(input: Tensor, *sizes) -> Tensor:
    input = tensor_arg(input, "expand")
    return _viewing(Expand.apply(input, _shape_arg(sizes)), input)


def expand_as(input: Tensor, other: Tensor) -> Tensor:
    other = tensor_arg(other, "expand_as", "other", 1)
    return _viewing(Expand.apply(input, other._data.shape), input)


def contiguous(input: Tensor) -> Tensor:
    input = tensor_arg(input, "contiguous")
    return input if input._data.is_contiguous() else Contiguous.apply(input)


def getitem(input: Tensor, index) -> Tensor:
    return _viewing(Index.apply(input, _torch_index(index)), input)


def _torch_index(index):
    if isinstance(index, tuple):
        return tuple(i._data if isinstance(i, Tensor) else i for i in index)
    return index._data if isinstance(index, Tensor) else index


def _tensor_list(tensors, name: str) -> list:
    if isinstance(tensors, Tensor) or not isinstance(tensors, (list, tuple)):
        raise TypeError(
            f"{name}(): argument 'tensors' must be a tuple or list of Tensors, not {type(tensors).__name__}"
        )
    if not tensors:
        raise RuntimeError(f"{name}(): expected a non-empty list of Tensors")
    for i, t in enumerate(tensors):
        if not isinstance(t, TENSOR_TYPES):
            raise TypeError(f"expected Tensor as element {i} in argument 0, but got {type(t).__name__}")
    return [t if isinstance(t, Tensor) else Tensor._make(detach_torch(t), None) for t in tensors]


def cat(tensors, dim: int = 0) -> Tensor:
    tensors = _tensor_list(tensors, "cat")
    ranked = next((t for t in tensors if not _is_legacy_empty(t._data)), tensors[0])
    return Cat.apply(normalize_dim(dim, ranked._data.dim()), *tensors)


def stack(tensors, dim: int = 0) -> Tensor:
    tensors = _tensor_list(tensors, "stack")
    return Stack.apply(normalize_dim(dim, tensors[0]._data.dim() + 1), *tensors)


def to(input: Tensor, *args, **kwargs) -> Tensor:
    """Move or cast, as ``torch.Tensor.to``; a cast to a non-float dtype leaves the graph."""
    args = tuple(a._data if isinstance(a, Tensor) else a for a in args)
    out_dtype, out_device = _target(input._data, args, kwargs)
    if out_dtype == input._data.dtype and out_device == input._data.device and not kwargs.get("copy", False):
        return input
    if not (out_dtype.is_floating_point or out_dtype.is_complex):
        return Tensor._make(input._data.to(*args, **kwargs), None)
    return ToCopy.apply(input, args, kwargs)


_TO_KEYWORDS = frozenset({"device", "dtype", "non_blocking", "copy", "memory_format"})


def _target(data: torch.Tensor, args: tuple, kwargs: dict) -> tuple[torch.dtype, torch.device]:
    if kwargs and not _TO_KEYWORDS.issuperset(kwargs):
        raise TypeError(f"to() got an unexpected keyword argument '{min(set(kwargs) - _TO_KEYWORDS)}'")
    dtype, device = kwargs.get("dtype"), kwargs.get("device")
    for a in args:
        if isinstance(a, torch.dtype):
            dtype = a
        elif isinstance(a, bool):  # non_blocking or copy, given by position
            continue
        elif isinstance(a, (str, torch.device, int)):
            device = a
        elif isinstance(a, torch.Tensor):
            dtype, device = a.dtype, a.device
        else:
            raise TypeError(f"to() expects a device, a dtype or a Tensor, but got {type(a).__name__}")
    if dtype is not None and not isinstance(dtype, torch.dtype):
        raise TypeError(f"to(): argument 'dtype' must be torch.dtype, not {type(dtype).__name__} ({dtype!r})")
    device = data.device if device is None else torch.device(device)
    if device.type == "cuda" and device.index is None and data.is_cuda:
        device = data.device
    return (data.dtype if dtype is None else dtype), device
