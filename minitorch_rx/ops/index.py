"""Index ops: gather/scatter, index_select/index_add/index_copy/index_fill, the masked ops,
take, and nonzero. Their gradients are the same family run the other way (gather's is a
scatter_add, index_select's an index_add, masked_select's a masked_scatter); the index tensors
are saved for backward, so changing one in place before backward is caught.

Backward formulas use tensor methods that ``torch.Tensor`` and ``mt.Tensor`` share, with
``_zeros`` making the empty gradient of the matching kind. The ``_`` forms go through the
in-place mechanism of ``ops/inplace.py`` (version counters, views, CopySlices)."""

from __future__ import annotations

import torch

from ..autograd.function import Function
from ..autograd.tensor import Tensor, is_torch_data
from .constants import TENSOR_TYPES, dtype_name, not_a_tensor, tensor_arg
from .dims import normalize_dim
from .inplace import _recording, rebase


def _raw(value):
    return value._data if isinstance(value, Tensor) else value


def _zeros(like, shape) -> torch.Tensor | Tensor:
    """Zeros of ``shape`` with ``like``'s dtype and device, of ``like``'s kind (torch or mt)."""
    zeros = torch.zeros(shape, dtype=like.dtype, device=like.device)
    return Tensor._make(zeros, None) if isinstance(like, Tensor) else zeros


def _reduce_to(grad, shape: torch.Size):
    """``grad`` summed over the dims that broadcasting added to a tensor of ``shape``."""
    if tuple(grad.shape) == tuple(shape):
        return grad
    lead = grad.dim() - len(shape)
    dims = tuple(range(lead)) + tuple(
        lead + i for i, size in enumerate(shape) if size == 1 and grad.shape[lead + i] != 1
    )
    return (grad.sum(dims, keepdim=True) if dims else grad).reshape(shape)


def _into(grad, shape: torch.Size):
    """``grad`` (the shape of an index) as the gradient of a source of ``shape``, which may be
    larger along any dim: the rest of it was never read, and gets zeros."""
    if tuple(grad.shape) == tuple(shape):
        return grad
    full = _zeros(grad, shape)
    full[tuple(slice(0, size) for size in grad.shape)] = grad
    return full


def _check(name: str, input, index=None) -> Tensor:
    """``input`` as an mt.Tensor, once it and ``index`` are checked to be tensors."""
    if index is not None and not isinstance(index, TENSOR_TYPES):
        raise not_a_tensor(name, index, "index", 3)
    return tensor_arg(input, name)


def _in_place(target: Tensor, torch_method: str, out_of_place, *args) -> Tensor:
    """``target`` overwritten by ``out_of_place(target, *args)``: recorded as an in-place op
    while recording, torch's own in-place kernel otherwise."""
    if _recording(target, args):
        return rebase(target, out_of_place(target, *args))
    getattr(target._data, torch_method)(*(_raw(a) for a in args))
    return target


# ------------------------------------------------------------------ gather / scatter
class Gather(Function):
    @staticmethod
    def forward(ctx, x, dim, index):
        out = torch.gather(x, dim, index)
        ctx.meta = (x.shape, dim)
        ctx.save_for_backward(index)
        return out

    @staticmethod
    def backward(ctx, grad):
        shape, dim = ctx.meta
        (index,) = ctx.saved_tensors
        return _zeros(grad, shape).scatter_add(dim, index, grad), None, None


class Scatter(Function):
    """``x.scatter(dim, index, src)``: x's gradient is zero where src was written; src's is the
    gradient at the places it was written to."""

    @staticmethod
    def forward(ctx, x, dim, index, src):
        ctx.meta = (dim, src.shape, src.dtype)
        ctx.save_for_backward(index)
        return x.scatter(dim, index, src)

    @staticmethod
    def backward(ctx, grad):
        dim, src_shape, src_dtype = ctx.meta
        (index,) = ctx.saved_tensors
        grad_x = grad.scatter(dim, index, 0.0) if ctx.needs_input_grad[0] else None
        grad_src = _into(grad.gather(dim, index), src_shape).to(src_dtype) if ctx.needs_input_grad[3] else None
        return grad_x, None, None, grad_src


class ScatterValue(Function):
    _node_name = "ScatterBackward1"  # PyTorch's name for scatter's overload with a value

    @staticmethod
    def forward(ctx, x, dim, index, value):
        ctx.dim = dim
        ctx.save_for_backward(index)
        return x.scatter(dim, index, value)

    @staticmethod
    def backward(ctx, grad):
        (index,) = ctx.saved_tensors
        return grad.scatter(ctx.dim, index, 0.0), None, None, None


class ScatterAdd(Function):
    @staticmethod
    def forward(ctx, x, dim, index, src):
        ctx.meta = (dim, src.shape, src.dtype)
        ctx.save_for_backward(index)
        return x.scatter_add(dim, index, src)

    @staticmethod
    def backward(ctx, grad):
        dim, src_shape, src_dtype = ctx.meta
        (index,) = ctx.saved_tensors
        grad_src = _into(grad.gather(dim, index), src_shape).to(src_dtype) if ctx.needs_input_grad[3] else None
        return grad, None, None, grad_src


class ScatterReduce(Function):
    """``x.scatter_reduce(dim, index, src, reduce, include_self)``, with PyTorch's gradients:
    amax/amin share the gradient evenly among the elements equal to the result, prod divides the
    result by each factor (computing the exclusive product where a factor is zero)."""

    @staticmethod
    def forward(ctx, x, dim, index, src, reduce, include_self):
        out = x.scatter_reduce(dim, index, src, reduce, include_self=include_self)
        ctx.meta = (dim, reduce, include_self)
        ctx.save_for_backward(x, index, src, out)
        return out

    @staticmethod
    def backward(ctx, grad):
        dim, reduce, include_self = ctx.meta
        x, index, src, out = ctx.saved_tensors
        if reduce == "sum":
            grad_x, grad_src = grad, grad.gather(dim, index)
        elif reduce == "mean":
            counts = (x * 0 + (1 if include_self else 0)).scatter_add(dim, index, src * 0 + 1)
            counts = counts.masked_fill(counts == 0, 1)
            grad_x, grad_src = grad / counts, (grad / counts).gather(dim, index)
        elif reduce in ("amax", "amin"):
            value = out.gather(dim, index)
            x_is_result, src_is_result = x == out, src == value
            shares = x_is_result.to(x.dtype).scatter_add(dim, index, src_is_result.to(x.dtype))
            grad_x = (grad / shares) * x_is_result
            grad_src = (grad / shares).gather(dim, index) * src_is_result
        else:  # prod
            x_ones = x.masked_fill(x == 0, 1)
            grad_x = grad * x_ones.scatter_reduce(dim, index, src, "prod", include_self=include_self) / x_ones
            src_zero = src == 0
            zeros_at = (x * 0).scatter_add(dim, index, src_zero.to(x.dtype)).gather(dim, index)
            single_zero = src_zero & (zeros_at == 1)
            without_zero = x.scatter_reduce(
                dim, index, src.masked_fill(single_zero, 1), "prod", include_self=include_self
            )
            grad_src = (
                (grad * without_zero)
                .gather(dim, index)
                .where(single_zero, (grad * out).gather(dim, index) / src.masked_fill(src_zero, 1))
            )
        if not include_self:
            grad_x = grad_x.scatter(dim, index, 0.0)
        return grad_x, None, None, grad_src, None, None


def gather(input: Tensor, dim: int, index: Tensor, *, sparse_grad: bool = False) -> Tensor:
    """``out[i][j] = input[index[i][j]][j]`` (for ``dim=0``); differentiable in ``input``."""
    input = _check("gather", input, index)
    return Gather.apply(input, dim, _raw(index))


def scatter(input: Tensor, dim: int, index: Tensor, src=None, *, value=None) -> Tensor:
    """``input`` with ``src`` (a tensor, or a number as ``value``) written at ``index`` along ``dim``."""
    input = _check("scatter", input, index)
    if src is None:
        src = value
    if src is None:
        raise TypeError("scatter() missing 1 required positional argument: 'src' (or the keyword 'value')")
    if isinstance(src, TENSOR_TYPES):
        return Scatter.apply(input, dim, _raw(index), src)
    return ScatterValue.apply(input, dim, _raw(index), src)


def scatter_(input: Tensor, dim: int, index: Tensor, src=None, *, value=None) -> Tensor:
    input = _check("scatter_", input, index)
    return _in_place(input, "scatter_", lambda t, *a: scatter(t, *a), dim, index, value if src is None else src)


def scatter_add(input: Tensor, dim: int, index: Tensor, src: Tensor) -> Tensor:
    """``input`` with ``src`` added at ``index`` along ``dim`` (repeated indices add up)."""
    input = _check("scatter_add", input, index)
    return ScatterAdd.apply(input, dim, _raw(index), src)


def scatter_add_(input: Tensor, dim: int, index: Tensor, src: Tensor) -> Tensor:
    input = _check("scatter_add_", input, index)
    return _in_place(input, "scatter_add_", scatter_add, dim, index, src)


_REDUCTIONS = ("sum", "prod", "mean", "amax", "amin")


def scatter_reduce(
    input: Tensor, dim: int, index: Tensor, src: Tensor, reduce: str, *, include_self: bool = True
) -> Tensor:
    """``input`` with ``src`` reduced into it at ``index`` (``reduce``: sum, prod, mean, amax, amin)."""
    input = _check("scatter_reduce", input, index)
    if reduce not in _REDUCTIONS:
        raise RuntimeError(f"reduce argument must be either sum, prod, mean, amax or amin, got {reduce}")
    return ScatterReduce.apply(input, dim, _raw(index), src, reduce, include_self)


def scatter_reduce_(
    input: Tensor, dim: int, index: Tensor, src: Tensor, reduce: str, *, include_self: bool = True
) -> Tensor:
    input = _check("scatter_reduce_", input, index)
    if reduce not in _REDUCTIONS:
        raise RuntimeError(f"reduce argument must be either sum, prod, mean, amax or amin, got {reduce}")
    if _recording(input, (src,)):
        return rebase(input, scatter_reduce(input, dim, index, src, reduce, include_self=include_self))
    input._data.scatter_reduce_(dim, _raw(index), _raw(src), reduce, include_self=include_self)
    return input


def index_reduce(
    input: Tensor, dim: int, index: Tensor, source: Tensor, reduce: str, *, include_self: bool = True
) -> Tensor:
    """``input`` with the slices of ``source`` along ``dim`` reduced into slices ``index`` (``reduce``:
    prod, mean, amax, amin): ``scatter_reduce`` with ``index`` spread over ``source``'s shape."""
    input = _check("index_reduce", input, index)
    source = tensor_arg(source, "index_reduce", "source", 4)
    if reduce not in ("prod", "mean", "amax", "amin"):
        raise RuntimeError(f"index_reduce(): Expected reduce to be one of prod, mean, amax or amin but got {reduce}.")
    _check_index_reduce(input, dim, index, source)
    positions = _raw(index)
    if source.dim():
        dim = dim % source.dim()
        shape = [1] * source.dim()
        shape[dim] = positions.numel()
        positions = positions.reshape(shape).expand(source.shape)
    else:
        positions = positions.reshape(())
    return ScatterReduce.apply(input, dim, positions, source, reduce, include_self)


def _check_index_reduce(input: Tensor, dim: int, index, source: Tensor) -> None:
    """PyTorch's checks of ``index_reduce``'s arguments, in its words."""
    dim = normalize_dim(dim, input.dim())
    if index.dim() > 1:
        raise IndexError(
            f"index_reduce_(): Index is supposed to be a vector, but got dim: {index.dim()} with type: "
            f"{dtype_name(index.dtype)} and size: {list(index.shape)}"
        )
    if index.dtype not in (torch.int32, torch.int64):
        raise RuntimeError(f"index_reduce_(): Expected dtype int32/int64 for index but got: {dtype_name(index.dtype)}")
    if input.dtype != source.dtype:
        raise RuntimeError(
            f"index_reduce_(): self ({dtype_name(input.dtype)}) and source ({dtype_name(source.dtype)}) "
            "must have the same scalar type"
        )
    if index.numel() != (source.shape[dim] if source.dim() else 1):
        raise RuntimeError(
            f"index_reduce_(): Number of indices ({index.numel()}) should be equal to source.size(dim): "
            f"({source.shape[dim] if source.dim() else 1}), for dim: {dim}"
        )
    if source.dim() != input.dim() or any(
        a != b for i, (a, b) in enumerate(zip(input.shape, source.shape)) if i != dim
    ):
        raise RuntimeError(
            "source tensor shape must match self tensor shape, excluding the specified dimension. "
            f"Got self.shape = {list(input.shape)} source.shape = {list(source.shape)}"
        )
    positions, size = _raw(index), input.shape[dim] if input.dim() else 1
    if positions.numel() and bool(((positions < 0) | (positions >= size)).any()):
        raise IndexError("index out of range in self")


# ------------------------------------------------------------------ index_*
class IndexSelect(Function):
    @staticmethod
    def forward(ctx, x, dim, index):
        ctx.meta = (x.shape, dim)
        ctx.save_for_backward(index)
        return x.index_select(dim, index)

    @staticmethod
    def backward(ctx, grad):
        shape, dim = ctx.meta
        (index,) = ctx.saved_tensors
        return _zeros(grad, shape).index_add(dim, index, grad.reshape(_selected_shape(shape, dim, index))), None, None


def _selected_shape(shape: torch.Size, dim: int, index: torch.Tensor) -> tuple:
    """The shape ``index_select(dim, index)`` gives a tensor of ``shape`` (a 0-dim one stays 0-dim)."""
    if not shape:
        return ()
    sizes = list(shape)
    sizes[dim] = index.numel()
    return tuple(sizes)


class IndexAdd(Function):
    @staticmethod
    def forward(ctx, x, dim, index, source, alpha):
        ctx.meta = (dim, source.shape, source.dtype, alpha)
        ctx.save_for_backward(index)
        return x.index_add(dim, index, source, alpha=alpha)

    @staticmethod
    def backward(ctx, grad):
        dim, shape, dtype, alpha = ctx.meta
        (index,) = ctx.saved_tensors
        grad_source = None
        if ctx.needs_input_grad[3]:
            grad_source = grad.index_select(dim, index).reshape(shape).to(dtype)
            if alpha != 1:
                grad_source = grad_source * alpha
        return grad, None, None, grad_source, None


class IndexCopy(Function):
    @staticmethod
    def forward(ctx, x, dim, index, source):
        ctx.meta = (dim, source.shape, source.dtype)
        ctx.save_for_backward(index)
        return x.index_copy(dim, index, source)

    @staticmethod
    def backward(ctx, grad):
        dim, shape, dtype = ctx.meta
        (index,) = ctx.saved_tensors
        grad_x = grad.index_fill(dim, index, 0.0) if ctx.needs_input_grad[0] else None
        grad_source = grad.index_select(dim, index).reshape(shape).to(dtype) if ctx.needs_input_grad[3] else None
        return grad_x, None, None, grad_source


class IndexFill(Function):
    @staticmethod
    def forward(ctx, x, dim, index, value):
        ctx.meta = (dim, value.dtype if is_torch_data(value) else None)
        ctx.save_for_backward(index)
        return x.index_fill(dim, index, value)

    @staticmethod
    def backward(ctx, grad):
        dim, value_dtype = ctx.meta
        (index,) = ctx.saved_tensors
        grad_x = grad.index_fill(dim, index, 0.0) if ctx.needs_input_grad[0] else None
        grad_value = None
        if ctx.needs_input_grad[3]:
            grad_value = (grad - grad.index_fill(dim, index, 0.0)).sum().to(value_dtype)
        return grad_x, None, None, grad_value


def index_select(input: Tensor, dim: int, index: Tensor) -> Tensor:
    """The entries of ``input`` at ``index`` (1-D) along ``dim``."""
    input = _check("index_select", input, index)
    return IndexSelect.apply(input, dim, _raw(index))


def index_add(input: Tensor, dim: int, index: Tensor, source: Tensor, *, alpha=1) -> Tensor:
    """``input`` with ``alpha * source`` added at ``index`` along ``dim``."""
    input = _check("index_add", input, index)
    return IndexAdd.apply(input, dim, _raw(index), source, alpha)


def index_add_(input: Tensor, dim: int, index: Tensor, source: Tensor, *, alpha=1) -> Tensor:
    input = _check("index_add_", input, index)
    if _recording(input, (source,)):
        return rebase(input, index_add(input, dim, index, source, alpha=alpha))
    input._data.index_add_(dim, _raw(index), _raw(source), alpha=alpha)
    return input


def index_copy(input: Tensor, dim: int, index: Tensor, source: Tensor) -> Tensor:
    """``input`` with the slices at ``index`` along ``dim`` replaced by ``source``'s."""
    input = _check("index_copy", input, index)
    return IndexCopy.apply(input, dim, _raw(index), source)


def index_copy_(input: Tensor, dim: int, index: Tensor, source: Tensor) -> Tensor:
    input = _check("index_copy_", input, index)
    return _in_place(input, "index_copy_", index_copy, dim, index, source)


def index_fill(input: Tensor, dim: int, index: Tensor, value) -> Tensor:
    """``input`` with the slices at ``index`` along ``dim`` set to ``value`` (a number or 0-dim tensor)."""
    input = _check("index_fill", input, index)
    return IndexFill.apply(input, dim, _raw(index), value)


def index_fill_(input: Tensor, dim: int, index: Tensor, value) -> Tensor:
    input = _check("index_fill_", input, index)
    return _in_place(input, "index_fill_", index_fill, dim, index, value)


# ------------------------------------------------------------------ masked ops
class MaskedFill(Function):
    """``x.masked_fill(mask, value)``; ``x`` and ``mask`` broadcast, and a 0-dim tensor ``value``
    gets the sum of the gradient where the mask is set."""

    broadcasting = True

    @staticmethod
    def forward(ctx, x, mask, value):
        ctx.save_for_backward(mask)
        return x.masked_fill(mask, value)

    @staticmethod
    def backward(ctx, grad):
        (mask,) = ctx.saved_tensors
        kept = grad.masked_fill(mask, 0.0)
        return (
            (kept if ctx.needs_input_grad[0] else None),
            None,
            ((grad - kept).sum() if ctx.needs_input_grad[2] else None),
        )


class MaskedScatter(Function):
    """``x.masked_scatter(mask, source)``: source's first elements, in order, where the mask is set."""

    @staticmethod
    def forward(ctx, x, mask, source):
        out = x.masked_scatter(mask, source)
        ctx.meta = (x.shape, source.shape, source.dtype)
        ctx.save_for_backward(mask)
        return out

    @staticmethod
    def backward(ctx, grad):
        x_shape, source_shape, source_dtype = ctx.meta
        (mask,) = ctx.saved_tensors
        grad_x = grad_source = None
        if ctx.needs_input_grad[0]:
            grad_x = _reduce_to(grad.masked_fill(mask, 0.0), x_shape)
        if ctx.needs_input_grad[2]:
            selected = grad.masked_select(mask)
            flat = _zeros(grad, (_numel(source_shape),))
            flat[: selected.numel()] = selected
            grad_source = flat.reshape(source_shape).to(source_dtype)
        return grad_x, None, grad_source


def _numel(shape) -> int:
    count = 1
    for size in shape:
        count *= size
    return count


class MaskedSelect(Function):
    @staticmethod
    def forward(ctx, x, mask):
        out = torch.masked_select(x, mask)
        ctx.meta = (x.shape, torch.broadcast_shapes(x.shape, mask.shape))
        ctx.save_for_backward(mask)
        return out

    @staticmethod
    def backward(ctx, grad):
        x_shape, shape = ctx.meta
        (mask,) = ctx.saved_tensors
        return _reduce_to(_zeros(grad, shape).masked_scatter(mask, grad), x_shape), None


def masked_fill(input: Tensor, mask: Tensor, value) -> Tensor:
    """``input`` with ``value`` (a number or a 0-dim tensor) where the boolean ``mask`` is set."""
    input = _check("masked_fill", input)
    mask = tensor_arg(mask, "masked_fill", "mask", 2)
    return MaskedFill.apply(input, _raw(mask), value)


def masked_fill_(input: Tensor, mask: Tensor, value) -> Tensor:
    input = _check("masked_fill_", input)
    mask = tensor_arg(mask, "masked_fill_", "mask", 2)
    return _in_place(input, "masked_fill_", masked_fill, mask, value)


def masked_scatter(input: Tensor, mask: Tensor, source: Tensor) -> Tensor:
    input = _check("masked_scatter", input)
    mask = tensor_arg(mask, "masked_scatter", "mask", 2)
    return MaskedScatter.apply(input, _raw(mask), source)


def masked_scatter_(input: Tensor, mask: Tensor, source: Tensor) -> Tensor:
    input = _check("masked_scatter_", input)
    return _in_place(input, "masked_scatter_", masked_scatter, mask, source)


def masked_select(input: Tensor, mask: Tensor) -> Tensor:
    """The elements of ``input`` where ``mask`` is set, as a 1-D tensor (the two broadcast)."""
    input = _check("masked_select", input)
    mask = tensor_arg(mask, "masked_select", "mask", 2)
    return MaskedSelect.apply(input, _raw(mask))


# ------------------------------------------------------------------ take, nonzero
class Take(Function):
    @staticmethod
    def forward(ctx, x, index):
        out = torch.take(x, index)
        ctx.shape = x.shape
        ctx.save_for_backward(torch.where(index < 0, index + x.numel(), index))
        return out

    @staticmethod
    def backward(ctx, grad):
        (index,) = ctx.saved_tensors
        flat = _zeros(grad, (_numel(ctx.shape),)).index_add(0, index.reshape(-1), grad.reshape(-1))
        return flat.reshape(ctx.shape), None


def take(input: Tensor, index: Tensor) -> Tensor:
    """``input`` read as 1-D at ``index``; the result has ``index``'s shape."""
    input = _check("take", input)
    index = tensor_arg(index, "take", "index", 2)
    return Take.apply(input, _raw(index))


def take_along_dim(input: Tensor, indices: Tensor, dim: int | None = None) -> Tensor:
    """``gather`` with ``input`` and ``indices`` broadcast against each other except along ``dim``
    (without ``dim``, both read as 1-D)."""
    from .shape import expand, reshape

    input = _check("take_along_dim", input)
    indices = tensor_arg(indices, "take_along_dim", "indices", 2)
    index = _raw(indices)
    if index.dtype != torch.long:
        raise RuntimeError(f"torch.take_along_dim(): dtype of indices should be Long but got {_type_name(index)}")
    if dim is None:  # a negative index is out of bounds, as torch's (with ``dim`` it counts from the end)
        return gather(reshape(input, -1), 0, index.reshape(-1))
    ndim = input._data.dim()
    if ndim != index.dim():
        raise RuntimeError(
            "torch.take_along_dim(): input and indices should have the same number of dimensions, "
            f"but got {ndim} dimensions for input, and {index.dim()} dimensions for indices"
        )
    sizes = list(input._data.shape)
    sizes[dim] = index.shape[dim]
    shape = list(torch.broadcast_shapes(torch.Size(sizes), index.shape))
    index = index.expand(shape)
    shape[dim] = input._data.shape[dim]
    index = torch.where(index < 0, index + shape[dim], index)
    return gather(expand(input, shape), dim, index)


def _type_name(t: torch.Tensor) -> str:
    return t.type().split(".")[-1].replace("Tensor", "")


def nonzero(input: Tensor, *, as_tuple: bool = False) -> Tensor | tuple[Tensor, ...]:
    """The indices of the non-zero elements: an ``(n, ndim)`` tensor, or one 1-D tensor per dim."""
    input = _check("nonzero", input)
    if as_tuple:
        return tuple(Tensor._make(t, None) for t in torch.nonzero(_raw(input), as_tuple=True))
    return Tensor._make(torch.nonzero(_raw(input)), None)


def nonzero_static(input: Tensor, *, size: int, fill_value: int = -1) -> Tensor:
    """``nonzero`` padded with ``fill_value`` (or cut) to ``size`` rows."""
    input = _check("nonzero_static", input)
    return Tensor._make(torch.nonzero_static(_raw(input), size=size, fill_value=fill_value), None)


def argwhere(input: Tensor) -> Tensor:
    input = _check("argwhere", input)
    return Tensor._make(torch.argwhere(_raw(input)), None)
