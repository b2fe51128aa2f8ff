"""Sorting and searching: sort, argsort, topk, kthvalue, unique, unique_consecutive,
searchsorted, bucketize.

sort, topk and kthvalue return ``(values, indices)``; the values' gradient goes back to the
places the indices name (a scatter into zeros), the indices carry none. The rest return
integer tensors, or values that PyTorch gives no gradient either (unique)."""

from __future__ import annotations

import torch

from ..autograd.function import Function
from ..autograd.tensor import Tensor
from .constants import tensor_arg
from .dims import normalize_dim
from .index import _raw, _zeros
from .reduce import ValuesIndices


class _ValuesAndIndices(Function):
    """``(values, indices)`` picked along ``dim``: the values' gradient is scattered back to the
    indices' places (kept dims: ``keepdim=False`` removed one, put back first)."""

    @staticmethod
    def backward(ctx, grad, _grad_indices):
        shape, dim, squeezed = ctx.meta
        (indices,) = ctx.saved_tensors
        if squeezed:
            grad, indices = grad.unsqueeze(dim), indices.unsqueeze(dim)
        return (_zeros(grad, shape).scatter(dim, indices, grad),) + (None,) * ctx.n_params


def _save(ctx, x: torch.Tensor, dim: int, squeezed: bool, n_params: int, out: tuple) -> tuple:
    values, indices = out
    ctx.meta = (x.shape, dim, squeezed and x.dim() > 0)
    ctx.n_params = n_params
    ctx.save_for_backward(indices)
    ctx.mark_non_differentiable(indices)
    return values, indices


class Sort(_ValuesAndIndices):
    @staticmethod
    def forward(ctx, x, dim, descending, stable):
        return _save(ctx, x, dim, False, 3, torch.sort(x, dim=dim, descending=descending, stable=stable))


class Topk(_ValuesAndIndices):
    @staticmethod
    def forward(ctx, x, k, dim, largest, sorted):
        return _save(ctx, x, dim, False, 4, torch.topk(x, k, dim, largest, sorted))


class Kthvalue(_ValuesAndIndices):
    @staticmethod
    def forward(ctx, x, k, dim, keepdim):
        return _save(ctx, x, dim, not keepdim, 3, torch.kthvalue(x, k, dim, keepdim))


def sort(input: Tensor, dim: int = -1, descending: bool = False, *, stable: bool = False) -> ValuesIndices:
    """``(values, indices)`` of ``input`` sorted along ``dim``."""
    input = tensor_arg(input, "sort")
    values, indices = Sort.apply(input, normalize_dim(dim, input.dim()), descending, stable)
    return ValuesIndices(values, indices)


def argsort(input: Tensor, dim: int = -1, descending: bool = False, *, stable: bool = False) -> Tensor:
    input = tensor_arg(input, "argsort")
    return Tensor._make(torch.argsort(_raw(input), dim=dim, descending=descending, stable=stable), None)


def topk(input: Tensor, k: int, dim: int = -1, largest: bool = True, sorted: bool = True) -> ValuesIndices:
    """The ``k`` largest (or smallest) entries along ``dim`` and their indices."""
    input = tensor_arg(input, "topk")
    values, indices = Topk.apply(input, k, normalize_dim(dim, input.dim()), largest, sorted)
    return ValuesIndices(values, indices)


def kthvalue(input: Tensor, k: int, dim: int = -1, keepdim: bool = False) -> ValuesIndices:
    """The ``k``-th smallest entry along ``dim`` and its index."""
    input = tensor_arg(input, "kthvalue")
    values, indices = Kthvalue.apply(input, k, normalize_dim(dim, input.dim()), keepdim)
    return ValuesIndices(values, indices)


def _constants(out):
    if isinstance(out, tuple):
        return tuple(Tensor._make(t, None) for t in out)
    return Tensor._make(out, None)


def unique(
    input: Tensor,
    sorted: bool = True,
    return_inverse: bool = False,
    return_counts: bool = False,
    dim: int | None = None,
):
    """The distinct values of ``input`` (or slices along ``dim``), optionally with the inverse
    indices and the counts. No gradient flows through (PyTorch implements none)."""
    input = tensor_arg(input, "unique")
    return _constants(
        torch.unique(_raw(input), sorted=sorted, return_inverse=return_inverse, return_counts=return_counts, dim=dim)
    )


def unique_consecutive(
    input: Tensor, return_inverse: bool = False, return_counts: bool = False, dim: int | None = None
):
    """``input`` with each run of equal consecutive values (or slices) kept once."""
    input = tensor_arg(input, "unique_consecutive")
    return _constants(
        torch.unique_consecutive(_raw(input), return_inverse=return_inverse, return_counts=return_counts, dim=dim)
    )


def searchsorted(
    sorted_sequence: Tensor,
    input,
    *,
    out_int32: bool = False,
    right: bool = False,
    side: str | None = None,
    sorter: Tensor | None = None,
) -> Tensor:
    """Where each value of ``input`` would go in ``sorted_sequence`` (along its last dim) to keep it sorted."""
    sorted_sequence = tensor_arg(sorted_sequence, "searchsorted", "sorted_sequence")
    return Tensor._make(
        torch.searchsorted(
            _raw(sorted_sequence), _raw(input), out_int32=out_int32, right=right, side=side, sorter=_raw(sorter)
        ),
        None,
    )


def bucketize(input, boundaries: Tensor, *, out_int32: bool = False, right: bool = False) -> Tensor:
    """The bucket (index into the 1-D ``boundaries``) of each value of ``input``."""
    boundaries = tensor_arg(boundaries, "bucketize", "boundaries", 2)
    return Tensor._make(torch.bucketize(_raw(input), _raw(boundaries), out_int32=out_int32, right=right), None)
