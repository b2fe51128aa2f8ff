"""Views and their relatives: ``tensor_split`` and the ``h/v/dsplit`` family, the ``*_copy``
variants (a view, then a copy), the ``*_scatter`` ops (``input`` with a view of it replaced by
``src``), ``as_strided``, ``index_put``/``put``, ``ravel``, ``diagflat``.

The scatters are one composition: the view's positions in ``input`` (the same view taken of
``arange(numel)``), then ``scatter`` along the flattened input, whose gradients are exact.
"""

from __future__ import annotations

from collections.abc import Callable

import torch

from ..autograd.function import Function, call
from ..autograd.tensor import Tensor
from .constants import TENSOR_TYPES, dtype_name, tensor_arg
from .diagonal import diag, diagonal
from .dims import normalize_dim
from .elementwise import clone, where
from .index import scatter, take
from .shape import expand, permute, reshape, squeeze, t, transpose, unsqueeze, view
from .split import narrow, select, split, unbind, unfold


def _constant(t: torch.Tensor) -> Tensor:
    return Tensor._make(t, None)


def ravel(input: Tensor) -> Tensor:
    """``input`` flattened to 1-D (a view where possible)."""
    return reshape(tensor_arg(input, "ravel"), (-1,))


def diagflat(input: Tensor, offset: int = 0) -> Tensor:
    """``input`` flattened, as the ``offset``-th diagonal of a square matrix."""
    if not isinstance(offset, int):
        raise TypeError(f"diagflat(): argument 'offset' (position 2) must be int, not {type(offset).__name__}")
    return diag(reshape(tensor_arg(input, "diagflat"), (-1,)), offset)


# ------------------------------------------------------------------ splitting
#: The most sections ``tensor_split`` makes (2^24 tensor objects take a few GB).
MAX_SECTIONS = 2**24


def tensor_split(input: Tensor, indices_or_sections, dim: int = 0) -> tuple[Tensor, ...]:
    """Views of ``input`` along ``dim``: ``sections`` nearly equal parts (the first ``size % sections``
    one longer), or the parts between the given indices."""
    input = tensor_arg(input, "tensor_split")
    if input.dim() == 0:
        raise RuntimeError("tensor_split expected at least a 1-dimensional tensor, but got a tensor with 0 dims")
    dim = normalize_dim(dim, input.dim())
    size = input.shape[dim]
    if isinstance(indices_or_sections, TENSOR_TYPES):
        data = indices_or_sections._data if isinstance(indices_or_sections, Tensor) else indices_or_sections
        if data.dtype != torch.long or data.dim() > 1:
            raise RuntimeError(
                "tensor_split expected tensor_indices_or_sections to have dtype of long and be a 0D or 1D tensor"
            )
        indices_or_sections = data.item() if data.dim() == 0 else data.tolist()
    if not _int_or_ints(indices_or_sections):
        raise TypeError(
            "tensor_split(): argument 'indices_or_sections' must be int, tuple of ints or Tensor, "
            f"not {type(indices_or_sections).__name__}"
        )
    if isinstance(indices_or_sections, int):
        sections = indices_or_sections
        if sections <= 0:
            raise RuntimeError(f"number of sections must be larger than 0, got {sections}")
        if sections > MAX_SECTIONS:  # each section is a tensor object: torch's loop would exhaust memory
            raise RuntimeError(
                f"number of sections {sections} is more than the {MAX_SECTIONS} tensors a split may make"
            )
        base, extra = divmod(size, sections)
        bounds, start = [], 0
        for i in range(sections):
            start += base + (1 if i < extra else 0)
            bounds.append(start)
        bounds = bounds[:-1]
    else:
        bounds = list(indices_or_sections)
    pieces, start = [], 0
    for stop in [*bounds, size]:
        stop = min(max(stop if stop >= 0 else stop + size, 0), size)
        begin = min(start, size)
        pieces.append(narrow(input, dim, begin, max(stop - begin, 0)))
        start = max(stop, begin)
    return tuple(pieces)


def _split_along(input: Tensor, indices_or_sections, dim: int, name: str, min_dims: int) -> tuple[Tensor, ...]:
    input = tensor_arg(input, name)
    if input.dim() < min_dims:
        raise RuntimeError(
            f"torch.{name} requires a tensor with at least {min_dims} dimension, but got a tensor with "
            f"{input.dim()} dimensions!"
        )
    if isinstance(indices_or_sections, int) and (indices_or_sections == 0 or input.shape[dim] % indices_or_sections):
        raise RuntimeError(
            f"torch.{name} attempted to split along dimension {dim}, but the size of the dimension "
            f"{input.shape[dim]} is not divisible by the split_size {indices_or_sections}!"
        )
    return tensor_split(input, indices_or_sections, dim)


def hsplit(input: Tensor, indices_or_sections) -> tuple[Tensor, ...]:
    """``tensor_split`` along the columns (dim 1; dim 0 of a 1-D tensor); sections must divide evenly."""
    return _split_along(input, indices_or_sections, 1 if tensor_arg(input, "hsplit").dim() > 1 else 0, "hsplit", 1)


def vsplit(input: Tensor, indices_or_sections) -> tuple[Tensor, ...]:
    return _split_along(input, indices_or_sections, 0, "vsplit", 2)


def dsplit(input: Tensor, indices_or_sections) -> tuple[Tensor, ...]:
    return _split_along(input, indices_or_sections, 2, "dsplit", 3)


def split_with_sizes(input: Tensor, split_sizes, dim: int = 0) -> tuple[Tensor, ...]:
    if isinstance(split_sizes, int) or not _int_or_ints(split_sizes):
        raise TypeError(
            f"split_with_sizes(): argument 'split_sizes' must be tuple of ints, not {type(split_sizes).__name__}"
        )
    return split(input, list(split_sizes), dim)


def _int_or_ints(value: object) -> bool:
    """An int (not a bool), or a list or tuple of them."""
    if isinstance(value, (list, tuple)):
        return all(isinstance(v, int) and not isinstance(v, bool) for v in value)
    return isinstance(value, int) and not isinstance(value, bool)


def unsafe_split(input: Tensor, split_size, dim: int = 0) -> tuple[Tensor, ...]:
    return split(input, split_size, dim)


def unsafe_chunk(input: Tensor, chunks: int, dim: int = 0) -> tuple[Tensor, ...]:
    from .split import chunk

    return chunk(input, chunks, dim)


# ------------------------------------------------------------------ *_copy: the view, copied
def _copied(view_fn: Callable, name: str) -> Callable:
    def function(input: Tensor, *args, **kwargs):
        out = view_fn(tensor_arg(input, name), *args, **kwargs)
        if isinstance(out, (tuple, list)):
            return tuple(clone(o) for o in out)
        return clone(out)

    function.__name__ = function.__qualname__ = name
    function.__doc__ = f"As ``torch.{name}``: ``{name[:-5]}``'s result as a new tensor."
    return function


def _alias(input: Tensor) -> Tensor:
    return view(input, input.shape)


def _view_to(input: Tensor, *shape) -> Tensor:
    if len(shape) == 1 and isinstance(shape[0], torch.dtype):
        raise RuntimeError("view_copy(dtype) is not supported")
    return view(input, *shape)


expand_copy = _copied(expand, "expand_copy")
diagonal_copy = _copied(diagonal, "diagonal_copy")
alias_copy = _copied(_alias, "alias_copy")
view_copy = _copied(_view_to, "view_copy")
permute_copy = _copied(permute, "permute_copy")
squeeze_copy = _copied(squeeze, "squeeze_copy")
unsqueeze_copy = _copied(unsqueeze, "unsqueeze_copy")
transpose_copy = _copied(transpose, "transpose_copy")
t_copy = _copied(t, "t_copy")
unbind_copy = _copied(unbind, "unbind_copy")
unfold_copy = _copied(unfold, "unfold_copy")
split_with_sizes_copy = _copied(split_with_sizes, "split_with_sizes_copy")


# ------------------------------------------------------------------ *_scatter
def _view_scatter(input: Tensor, src: Tensor, view_fn: Callable, name: str) -> Tensor:
    """``input`` with ``view_fn(input)`` replaced by ``src``, by positions: exact gradients for both."""
    input, src = tensor_arg(input, name), tensor_arg(src, name, "src", 2)
    positions = view_fn(torch.arange(input.numel(), device=input.device).reshape(input.shape))
    if tuple(positions.shape) != tuple(src.shape):
        raise RuntimeError(
            f"expected src to have a size equal to the slice of self. src size = {list(src.shape)}, "
            f"slice size = {list(positions.shape)}"
        )
    flat = reshape(input, (-1,))
    out = scatter(flat, 0, _constant(positions.reshape(-1)), reshape(src.to(input.dtype), (-1,)))
    return reshape(out, input.shape)


def select_scatter(input: Tensor, src: Tensor, dim: int, index: int) -> Tensor:
    return _view_scatter(input, src, lambda p: p.select(dim, index), "select_scatter")


def slice_scatter(input: Tensor, src: Tensor, dim: int = 0, start=None, end=None, step: int = 1) -> Tensor:
    dim = normalize_dim(dim, tensor_arg(input, "slice_scatter").dim())

    def take_slice(p):
        index = [slice(None)] * p.dim()
        index[dim] = slice(start, end, step)
        return p[tuple(index)]

    return _view_scatter(input, src, take_slice, "slice_scatter")


def diagonal_scatter(input: Tensor, src: Tensor, offset: int = 0, dim1: int = 0, dim2: int = 1) -> Tensor:
    return _view_scatter(input, src, lambda p: p.diagonal(offset, dim1, dim2), "diagonal_scatter")


def as_strided_scatter(input: Tensor, src: Tensor, size, stride, storage_offset: int | None = None) -> Tensor:
    return _view_scatter(input, src, lambda p: p.as_strided(size, stride, storage_offset), "as_strided_scatter")


def as_strided(input: Tensor, size, stride, storage_offset: int | None = None) -> Tensor:
    """A view of ``input``'s storage with the given ``size``, ``stride`` and offset, read through
    ``input``'s elements (so its gradient is exact; elements read twice get both gradients)."""
    input = tensor_arg(input, "as_strided")
    data = input._data
    data.as_strided(size, stride, storage_offset)  # torch's checks, in its words (of input's element size)
    storage = torch.arange(data.untyped_storage().nbytes() // data.element_size(), device=data.device)
    element_at = torch.full_like(storage, -1)
    element_at[storage.as_strided(data.shape, data.stride(), data.storage_offset()).reshape(-1)] = torch.arange(
        data.numel(), device=data.device
    )
    offset = data.storage_offset() if storage_offset is None else storage_offset
    read = storage.as_strided(size, stride, offset)
    positions = element_at[read]
    out = take(input, _constant(positions.clamp(min=0)))
    outside = positions < 0
    if bool(outside.any()):  # storage beyond input's elements: constants, as they are to torch's autograd
        whole = torch.empty(0, dtype=data.dtype, device=data.device).set_(data.untyped_storage())
        out = where(_constant(outside), _constant(whole[read]), out)
    return out


# ------------------------------------------------------------------ index_put, put
class IndexPut(Function):
    """``input`` with ``values`` written (or, with ``accumulate``, added) at ``input[indices]``."""

    @staticmethod
    def forward(ctx, x, indices, values, accumulate):
        ctx.indices, ctx.accumulate = indices, accumulate
        ctx.values_shape = values.shape
        return torch.index_put(x, indices, values, accumulate)

    @staticmethod
    def backward(ctx, grad):
        indices = ctx.indices
        grad_x = grad_values = None
        if ctx.needs_input_grad[0]:
            grad_x = grad if ctx.accumulate else call(IndexPut, grad, indices, grad.new_zeros(()), False)
        if ctx.needs_input_grad[2]:
            grad_values = grad[indices].sum_to_size(ctx.values_shape)
        return grad_x, None, grad_values, None


def _index_tuple(indices) -> tuple:
    if not isinstance(indices, (tuple, list)):
        raise TypeError(
            f"index_put(): argument 'indices' (position 2) must be tuple of Tensors, not {type(indices).__name__}"
        )
    return tuple(None if i is None else (i._data if isinstance(i, Tensor) else i) for i in indices)


def index_put(input: Tensor, indices, values: Tensor, accumulate: bool = False) -> Tensor:
    """``input`` with ``values`` put (or added) at ``input[indices]``; a new tensor."""
    input, values = tensor_arg(input, "index_put"), tensor_arg(values, "index_put", "values", 3)
    return IndexPut.apply(input, _index_tuple(indices), values.to(input.dtype), accumulate)


def put(input: Tensor, index: Tensor, source: Tensor, accumulate: bool = False) -> Tensor:
    """``input`` with ``source`` put (or added) at the flat positions ``index``; a new tensor."""
    input, source = tensor_arg(input, "put"), tensor_arg(source, "put", "source", 3)
    index = tensor_arg(index, "put", "index", 2)
    if index.dtype != torch.int64:
        raise RuntimeError(f"put_(): Expected a long tensor for index, but got {dtype_name(index.dtype)}")
    if input.dtype != source.dtype:
        raise RuntimeError(
            "put_(): self and source expected to have the same dtype, but got "
            f"self.dtype = {dtype_name(input.dtype)} and source.dtype = {dtype_name(source.dtype)}"
        )
    if index.numel() != source.numel():
        raise IndexError(
            "put_(): Expected source and index to have the same number of elements, but got "
            f"source.numel() = {source.numel()}, index.numel() = {index.numel()}"
        )
    outside = (index._data < -input.numel()) | (index._data >= input.numel())
    if bool(outside.any()):
        bad = int(index._data[outside][0])
        raise IndexError(f"out of range: tried to access index {bad} on a tensor of {input.numel()} elements.")
    flat = index_put(reshape(input, (-1,)), (index._data.reshape(-1),), reshape(source, (-1,)), accumulate)
    return reshape(flat, input.shape)


def narrow_copy(input: Tensor, dim: int, start: int, length: int) -> Tensor:
    """``narrow``'s result as a new tensor."""
    input = tensor_arg(input, "narrow_copy")
    torch.narrow_copy(input._data, dim, start, length)  # torch's checks (and its error kinds)
    return clone(narrow(input, dim, start, length))


def select_copy(input: Tensor, dim: int, index: int) -> Tensor:
    return clone(select(tensor_arg(input, "select_copy"), dim, index))


as_strided_copy = _copied(as_strided, "as_strided_copy")


def constant_pad_nd(input: Tensor, pad, value=0) -> Tensor:
    """``F.pad(input, pad, value=value)`` under its aten name."""
    from .pad import pad as _pad

    input = tensor_arg(input, "constant_pad_nd")
    if isinstance(pad, (tuple, list)):  # anything else: F.pad's TypeError
        if len(pad) % 2:
            raise RuntimeError(f"Length of pad must be even but instead it equals {len(pad)}")
        if len(pad) > 2 * input.dim():
            raise RuntimeError(
                "Length of pad should be no more than twice the number of dimensions of the input. "
                f"Pad length is {len(pad)} while the input has {input.dim()} dimensions."
            )
    return _pad(input, pad, "constant", value)
