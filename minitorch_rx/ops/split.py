"""Views that pick part of a tensor: split, chunk, unbind, narrow, select, and ``Tensor.unfold``
(the sliding windows along one dim).

Each result views its input's memory, as PyTorch's does, so an in-place op on it rewrites the
base's history (``ops/shape.py``'s ``_viewing``). The gradient of a part is the part's gradient
written into zeros of the input's shape (the pieces' gradients concatenated, for split);
unfold's windows may overlap, so its gradient adds up through the flat positions each window read."""

from __future__ import annotations

import torch

from ..autograd.function import Function
from ..autograd.tensor import Tensor
from .constants import tensor_arg
from .dims import normalize_dim
from .index import _numel, _zeros
from .shape import _viewing, cat, stack


def _written_into_zeros(grad, shape: torch.Size, view):
    """Zeros of ``shape`` whose region ``view(zeros)`` holds ``grad``."""
    full = _zeros(grad, shape)
    view(full).copy_(grad)
    return full


class Split(Function):
    """The pieces of ``x`` along ``dim`` that ``torch.split`` (``how='split'``) or ``torch.chunk``
    (``how='chunk'``) gives; their gradients are concatenated back."""

    @staticmethod
    def forward(ctx, x, how, arg, dim):
        pieces = torch.split(x, arg, dim) if how == "split" else torch.chunk(x, arg, dim)
        ctx.dim = dim
        return tuple(pieces)

    @staticmethod
    def backward(ctx, *grads):
        parts = (cat if isinstance(grads[0], Tensor) else torch.cat)(list(grads), ctx.dim)
        return parts, None, None, None


class Unbind(Function):
    @staticmethod
    def forward(ctx, x, dim):
        ctx.dim = dim
        return tuple(torch.unbind(x, dim))

    @staticmethod
    def backward(ctx, *grads):
        return (stack if isinstance(grads[0], Tensor) else torch.stack)(list(grads), ctx.dim), None


class Narrow(Function):
    _recorded_as = "Slice"  # PyTorch's name for the node of a narrow

    @staticmethod
    def forward(ctx, x, dim, start, length):
        ctx.meta = (x.shape, dim, start, length)
        return x.narrow(dim, start, length)

    @staticmethod
    def backward(ctx, grad):
        shape, dim, start, length = ctx.meta
        return _written_into_zeros(grad, shape, lambda t: t.narrow(dim, start, length)), None, None, None


class Select(Function):
    @staticmethod
    def forward(ctx, x, dim, index):
        ctx.meta = (x.shape, dim, index)
        return x.select(dim, index)

    @staticmethod
    def backward(ctx, grad):
        shape, dim, index = ctx.meta
        return _written_into_zeros(grad, shape, lambda t: t.select(dim, index)), None, None


class Unfold(Function):
    @staticmethod
    def forward(ctx, x, dimension, size, step):
        out = x.unfold(dimension, size, step)
        ctx.shape = x.shape
        positions = torch.arange(x.numel(), device=x.device).view(x.shape).unfold(dimension, size, step)
        ctx.save_for_backward(positions)
        return out

    @staticmethod
    def backward(ctx, grad):
        (positions,) = ctx.saved_tensors
        flat = _zeros(grad, (_numel(ctx.shape),)).index_add(0, positions.reshape(-1), grad.reshape(-1))
        return flat.reshape(ctx.shape), None, None, None


def _views(pieces: tuple, input: Tensor) -> tuple:
    return tuple(_viewing(piece, input) for piece in pieces)


def _pieces(input: Tensor, how: str, arg, dim: int) -> tuple[Tensor, ...]:
    """The pieces, as views. torch cuts the data first (views, cheap): that checks the arguments
    in torch's words, and a single piece is a plain narrow (the engine takes a Function's tuple
    of one output as a single output)."""
    data = input._data
    pieces = torch.split(data, arg, dim) if how == "split" else torch.chunk(data, arg, dim)
    if len(pieces) == 1:
        return (_viewing(Narrow.apply(input, dim, 0, data.shape[dim]), input),)
    return _views(Split.apply(input, how, arg, dim), input)


def split(tensor: Tensor, split_size_or_sections, dim: int = 0) -> tuple[Tensor, ...]:
    """``tensor`` cut along ``dim`` into pieces of ``split_size_or_sections`` (an int: equal
    pieces, the last one smaller; a list: those sizes). The pieces are views."""
    tensor = tensor_arg(tensor, "split")
    if isinstance(split_size_or_sections, Tensor):
        split_size_or_sections = split_size_or_sections.tolist()
    elif isinstance(split_size_or_sections, tuple):
        split_size_or_sections = list(split_size_or_sections)
    return _pieces(tensor, "split", split_size_or_sections, dim)


def chunk(input: Tensor, chunks: int, dim: int = 0) -> tuple[Tensor, ...]:
    """``input`` cut along ``dim`` into at most ``chunks`` pieces of equal size (the last smaller)."""
    input = tensor_arg(input, "chunk")
    return _pieces(input, "chunk", chunks, dim)


def unbind(input: Tensor, dim: int = 0) -> tuple[Tensor, ...]:
    """The slices of ``input`` along ``dim``, that dim removed."""
    input = tensor_arg(input, "unbind")
    size = input._data.shape[normalize_dim(dim, input._data.dim())] if input._data.dim() else 0
    if size <= 1:
        input._data.unbind(dim)  # torch's errors (a 0-dim input)
        return tuple(select(input, dim, 0) for _ in range(size))
    return _views(Unbind.apply(input, dim), input)


def narrow(input: Tensor, dim: int, start, length: int) -> Tensor:
    """The view ``input[..., start:start + length, ...]`` along ``dim`` (``start`` may be negative
    or a 0-dim tensor)."""
    input = tensor_arg(input, "narrow")
    if isinstance(start, (Tensor, torch.Tensor)):
        if start.dim() != 0 or start.dtype.is_floating_point or start.dtype.is_complex or start.dtype == torch.bool:
            raise RuntimeError("start must be an 0-dim integral Tensor.")
        start = int(start.item())
    return _viewing(Narrow.apply(input, dim, start, length), input)


def select(input: Tensor, dim: int, index: int) -> Tensor:
    """The view ``input[..., index, ...]`` along ``dim``, that dim removed."""
    input = tensor_arg(input, "select")
    if isinstance(index, (Tensor, torch.Tensor)):
        index = int(index.item())
    return _viewing(Select.apply(input, dim, index), input)


def unfold(input: Tensor, dimension: int, size: int, step: int) -> Tensor:
    """``Tensor.unfold``: the windows of ``size`` along ``dimension``, ``step`` apart, as a new
    last dim (a view; windows may overlap)."""
    input = tensor_arg(input, "unfold")
    return _viewing(Unfold.apply(input, dimension, size, step), input)
