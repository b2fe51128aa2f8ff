"""Diagonals and triangles: diagonal (a view), diag, diag_embed, trace, tril, triu.

A diagonal's gradient is written into the diagonal of zeros; diag_embed's is the diagonal of
its gradient; a triangle's gradient is the same triangle of its gradient."""

from __future__ import annotations

import torch

from ..autograd.function import Function
from ..autograd.tensor import Tensor
from .constants import tensor_arg
from .index import _in_place
from .shape import _viewing
from .split import _written_into_zeros


class Diagonal(Function):
    @staticmethod
    def forward(ctx, x, offset, dim1, dim2):
        ctx.meta = (x.shape, offset, dim1, dim2)
        return x.diagonal(offset, dim1, dim2)

    @staticmethod
    def backward(ctx, grad):
        shape, offset, dim1, dim2 = ctx.meta
        return _written_into_zeros(grad, shape, lambda t: t.diagonal(offset, dim1, dim2)), None, None, None


class Diag(Function):
    """``torch.diag``: a vector's square matrix, or a matrix's diagonal (a copy)."""

    @staticmethod
    def forward(ctx, x, diagonal):
        ctx.meta = (x.shape, diagonal)
        return torch.diag(x, diagonal)

    @staticmethod
    def backward(ctx, grad):
        shape, diagonal = ctx.meta
        if len(shape) == 1:
            return grad.diagonal(diagonal), None
        return _written_into_zeros(grad, shape, lambda t: t.diagonal(diagonal)), None


class DiagEmbed(Function):
    @staticmethod
    def forward(ctx, x, offset, dim1, dim2):
        ctx.meta = (offset, dim1, dim2)
        return torch.diag_embed(x, offset, dim1, dim2)

    @staticmethod
    def backward(ctx, grad):
        return grad.diagonal(*ctx.meta), None, None, None


class Tril(Function):
    @staticmethod
    def forward(ctx, x, diagonal):
        ctx.diagonal = diagonal
        return x.tril(diagonal)

    @staticmethod
    def backward(ctx, grad):
        return grad.tril(ctx.diagonal), None


class Triu(Function):
    @staticmethod
    def forward(ctx, x, diagonal):
        ctx.diagonal = diagonal
        return x.triu(diagonal)

    @staticmethod
    def backward(ctx, grad):
        return grad.triu(ctx.diagonal), None


class Trace(Function):
    @staticmethod
    def forward(ctx, x):
        ctx.shape = x.shape
        return torch.trace(x)

    @staticmethod
    def backward(ctx, grad):
        rows, cols = ctx.shape
        return grad * torch.eye(rows, cols, dtype=grad.dtype, device=grad.device)


def diagonal(input: Tensor, offset: int = 0, dim1: int = 0, dim2: int = 1) -> Tensor:
    """The view of ``input``'s diagonal in the plane of ``dim1`` and ``dim2`` (above it for a
    positive ``offset``), as a new last dim."""
    input = tensor_arg(input, "diagonal")
    return _viewing(Diagonal.apply(input, offset, dim1, dim2), input)


def diag(input: Tensor, diagonal: int = 0) -> Tensor:
    """A 1-D ``input`` as the ``diagonal``-th diagonal of a square matrix; a 2-D one's diagonal, copied."""
    input = tensor_arg(input, "diag")
    return Diag.apply(input, diagonal)


def diag_embed(input: Tensor, offset: int = 0, dim1: int = -2, dim2: int = -1) -> Tensor:
    """Matrices in the plane of ``dim1`` and ``dim2`` whose diagonal is ``input``'s last dim."""
    input = tensor_arg(input, "diag_embed")
    return DiagEmbed.apply(input, offset, dim1, dim2)


def trace(input: Tensor) -> Tensor:
    """The sum of a matrix's diagonal."""
    input = tensor_arg(input, "trace")
    if input._data.dim() != 2:
        raise RuntimeError(f"trace: expected a matrix, but got tensor with dim {input._data.dim()}")
    return Trace.apply1(input)


def tril(input: Tensor, diagonal: int = 0) -> Tensor:
    """``input`` with the elements above the ``diagonal``-th diagonal zeroed (the last two dims)."""
    input = tensor_arg(input, "tril")
    return Tril.apply(input, diagonal)


def triu(input: Tensor, diagonal: int = 0) -> Tensor:
    """``input`` with the elements below the ``diagonal``-th diagonal zeroed (the last two dims)."""
    input = tensor_arg(input, "triu")
    return Triu.apply(input, diagonal)


def tril_(input: Tensor, diagonal: int = 0) -> Tensor:
    input = tensor_arg(input, "tril_")
    return _in_place(input, "tril_", tril, diagonal)


def triu_(input: Tensor, diagonal: int = 0) -> Tensor:
    input = tensor_arg(input, "triu_")
    return _in_place(input, "triu_", triu, diagonal)
