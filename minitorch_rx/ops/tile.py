"""Ops that copy a tensor's elements into a new arrangement: repeat, repeat_interleave, tile,
flip (fliplr, flipud), roll, rot90, and the numpy-style stacks (hstack, vstack, dstack,
column_stack). Each gradient undoes the arrangement: the copies of an element are summed
(repeat, repeat_interleave), or the move is reversed (flip, roll, rot90)."""

from __future__ import annotations

import torch

from ..autograd.function import Function
from ..autograd.tensor import Tensor
from .constants import tensor_arg
from .dims import int_tuple
from .index import _zeros
from .shape import _shape_arg, _tensor_list, atleast_1d, atleast_2d, atleast_3d, cat, reshape


class Repeat(Function):
    @staticmethod
    def forward(ctx, x, sizes):
        ctx.meta = (x.shape, sizes)
        return x.repeat(sizes)

    @staticmethod
    def backward(ctx, grad):
        shape, sizes = ctx.meta
        padded = (1,) * (len(sizes) - len(shape)) + tuple(shape)
        interleaved = [size for pair in zip(sizes, padded) for size in pair]
        copies = tuple(range(0, 2 * len(sizes), 2))
        if copies:  # a 0-dim tensor repeated () times has none; sum(()) would sum everything
            grad = grad.reshape(interleaved).sum(copies)
        return grad.reshape(shape), None


class RepeatInterleave(Function):
    """Each slice along ``dim`` repeated in place; the copies' gradients are added back through
    the source index of each output slice."""

    @staticmethod
    def forward(ctx, x, repeats, dim, output_size):
        out = x.repeat_interleave(repeats, dim, output_size=output_size)
        ctx.meta = (x.shape, dim)
        source = torch.arange(x.shape[dim], device=x.device).repeat_interleave(repeats, output_size=output_size)
        ctx.save_for_backward(source)
        return out

    @staticmethod
    def backward(ctx, grad):
        shape, dim = ctx.meta
        (source,) = ctx.saved_tensors
        return _zeros(grad, shape).index_add(dim, source, grad), None, None, None


class Flip(Function):
    @staticmethod
    def forward(ctx, x, dims):
        ctx.dims = dims
        return x.flip(dims)

    @staticmethod
    def backward(ctx, grad):
        return grad.flip(ctx.dims), None


class Roll(Function):
    @staticmethod
    def forward(ctx, x, shifts, dims):
        ctx.meta = (shifts, dims)
        return x.roll(shifts, dims)

    @staticmethod
    def backward(ctx, grad):
        shifts, dims = ctx.meta
        back = -shifts if isinstance(shifts, int) else tuple(-s for s in shifts)
        return grad.roll(back, dims), None, None


class Rot90(Function):
    @staticmethod
    def forward(ctx, x, k, dims):
        ctx.meta = (k, dims)
        return x.rot90(k, dims)

    @staticmethod
    def backward(ctx, grad):
        k, dims = ctx.meta
        return grad.rot90(-k, dims), None, None


def _sizes(sizes: tuple) -> tuple:
    return tuple(_shape_arg(sizes))


def repeat(input: Tensor, *sizes) -> Tensor:
    """``Tensor.repeat``: ``input`` tiled ``sizes[i]`` times along each dim (extra sizes add leading dims)."""
    input = tensor_arg(input, "repeat")
    return Repeat.apply(input, _sizes(sizes))


def tile(input: Tensor, dims) -> Tensor:
    """``repeat``, with ``dims`` shorter than the rank filled with leading 1s (numpy's tile)."""
    input = tensor_arg(input, "tile")
    dims = tuple(dims) if isinstance(dims, (tuple, list, torch.Size)) else (dims,)
    return Repeat.apply(input, (1,) * (input._data.dim() - len(dims)) + dims)


def repeat_interleave(input: Tensor, repeats=None, dim: int | None = None, *, output_size: int | None = None) -> Tensor:
    """Each element (or slice along ``dim``) repeated ``repeats`` times (an int, or a tensor of
    counts, one per slice); without ``dim``, of ``input`` flattened. ``repeat_interleave(counts)``
    alone gives ``arange`` repeated by ``counts``."""
    input = tensor_arg(input, "repeat_interleave")
    if repeats is None:
        return Tensor._make(torch.repeat_interleave(input._data, output_size=output_size), None)
    if isinstance(repeats, Tensor):
        repeats = repeats._data
    if dim is None:
        input, dim = reshape(input, -1), 0
    return RepeatInterleave.apply(input, repeats, dim, output_size)


def flip(input: Tensor, *args, dims=None) -> Tensor:
    """``input`` with the order of its elements reversed along ``dims`` (``flip(0, 1)``, ``flip((0, 1))``,
    ``flip(dims=(0, 1))``)."""
    input = tensor_arg(input, "flip")
    if not args and dims is None:
        raise TypeError('flip() missing 1 required positional arguments: "dims"')
    return Flip.apply(input, _sizes(args if dims is None else (dims,)))


def fliplr(input: Tensor) -> Tensor:
    input = tensor_arg(input, "fliplr")
    if input._data.dim() < 2:
        raise RuntimeError("Input must be >= 2-d.")
    return Flip.apply(input, (1,))


def flipud(input: Tensor) -> Tensor:
    input = tensor_arg(input, "flipud")
    if input._data.dim() < 1:
        raise RuntimeError("Input must be >= 1-d.")
    return Flip.apply(input, (0,))


def roll(input: Tensor, shifts, dims=None) -> Tensor:
    """``input`` rolled by ``shifts`` along ``dims`` (without dims: flattened, then restored)."""
    input = tensor_arg(input, "roll")
    shifts = tuple(shifts) if isinstance(shifts, (list, torch.Size)) else shifts
    dims = tuple(dims) if isinstance(dims, (list, torch.Size)) else dims
    return Roll.apply(input, shifts, () if dims is None else dims)


def rot90(input: Tensor, k: int = 1, dims=(0, 1)) -> Tensor:
    """``input`` rotated by 90 degrees ``k`` times in the plane of ``dims``, from the first towards the second."""
    input = tensor_arg(input, "rot90")
    return Rot90.apply(input, k, int_tuple(dims, "rot90", "dims", 2))


def _stack_list(tensors, name: str) -> list:
    if isinstance(tensors, (Tensor, torch.Tensor)) or not isinstance(tensors, (list, tuple)):
        raise TypeError(
            f"{name}(): argument 'tensors' (position 1) must be tuple of Tensors, not {type(tensors).__name__}"
        )
    return _tensor_list(tensors, name)


def hstack(tensors) -> Tensor:
    """The tensors side by side: along dim 1, or dim 0 for 1-D ones (0-D ones count as 1-D)."""
    tensors = atleast_1d(_stack_list(tensors, "hstack"))
    return cat(list(tensors), 0 if tensors[0]._data.dim() == 1 else 1)


def vstack(tensors) -> Tensor:
    """The tensors one above the other (dim 0), 0-D and 1-D ones as rows."""
    return cat(list(atleast_2d(_stack_list(tensors, "vstack"))), 0)


def dstack(tensors) -> Tensor:
    """The tensors stacked depthwise (dim 2), each made at least 3-D first."""
    return cat(list(atleast_3d(_stack_list(tensors, "dstack"))), 2)


def column_stack(tensors) -> Tensor:
    """The tensors as columns side by side: 0-D and 1-D ones become columns, others stack along dim 1."""
    tensors = _stack_list(tensors, "column_stack")
    columns = [reshape(t, (t._data.numel(), 1)) if t._data.dim() <= 1 else t for t in tensors]
    return cat(columns, 1)
