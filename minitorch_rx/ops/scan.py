"""Cumulative sums and products along a dim (PyTorch's scans)."""

from __future__ import annotations

import torch

from ..autograd.function import Function
from ..autograd.tensor import Tensor, is_torch_data
from .autocast import state as autocast_state
from .autocast import to_float32_on_gpu
from .constants import tensor_arg
from .dims import normalize_dim


def _reverse_cumsum(t, dim: int):
    """``out[i] = sum of t[j] for j >= i`` along ``dim``."""
    if is_torch_data(t):
        return t.flip(dim).cumsum(dim).flip(dim)
    # Recorded (second order): the same sums from ops that mt.Tensor has.
    return t.sum(dim, keepdim=True) - t.cumsum(dim) + t


class CumSum(Function):
    _node_name = "CumsumBackward0"  # PyTorch's name for this node

    @staticmethod
    def forward(ctx, x, dim, dtype):
        ctx.meta = (dim, x.dtype)
        return torch.cumsum(x, dim, dtype=dtype)

    @staticmethod
    def backward(ctx, grad):
        dim, dtype = ctx.meta
        if grad.dim() == 0:
            return grad.to(dtype), None, None
        return _reverse_cumsum(grad, dim).to(dtype), None, None


class CumProd(Function):
    """``out[i] = x[0] * ... * x[i]``. Without zeros, ``grad_x[i] = sum_{j>=i} grad[j] out[j] / x[i]``;
    with zeros, PyTorch's rule: elements before a slice's first zero take that sum (out is 0 from
    the zero on), the first zero takes the sum of ``grad[j]`` times the product of the others,
    and elements after it take 0."""

    _node_name = "CumprodBackward0"  # PyTorch's name for this node

    @staticmethod
    def forward(ctx, x, dim, dtype):
        out = torch.cumprod(x, dim, dtype=dtype)
        ctx.save_for_backward(x, out)
        ctx.dim = dim
        return out

    @staticmethod
    def backward(ctx, grad):
        x, out = ctx.saved_tensors
        dim = ctx.dim
        input_dtype = x.dtype
        if x.dtype != out.dtype:
            x = x.to(out.dtype)
        if x.dim() == 0:
            return grad.to(input_dtype), None, None
        zero = x == 0
        if not bool(zero.any()):
            return (_reverse_cumsum(grad * out, dim) / x).to(input_dtype), None, None
        if not is_torch_data(grad):
            return _cumprod_backward_recorded(grad, x, dim).to(input_dtype), None, None
        zeros_so_far = zero.long().cumsum(dim)
        first_zero = zero & (zeros_so_far == 1)
        before = zeros_so_far == 0
        safe_x = x.where(before, 1.0)
        # With the first zero taken as 1, the cumulative product is the product of the others.
        others = x.where(~first_zero, 1.0).cumprod(dim)
        at_first_zero = _reverse_cumsum(grad * others, dim)
        grad_x = (_reverse_cumsum(grad * out, dim) / safe_x).where(before, at_first_zero.where(first_zero, 0.0))
        return grad_x.to(input_dtype), None, None


def _cumprod_backward_recorded(grad, x, dim: int):
    """cumprod's gradient with zeros, under ``create_graph``: ``grad_x[i] = sum_{j>=i} grad[j] *
    prod_{k<=j, k!=i} x[k]`` from an ``n x n`` table (row i: the cumulative product with x[i] taken
    as 1), so that it is differentiable everywhere; the first-order path above is O(n)."""
    x = x.transpose(dim, -1)
    grad = grad.transpose(dim, -1)
    n = x.shape[-1]
    eye = torch.eye(n, dtype=torch.bool, device=x.device)
    upper = torch.ones(n, n, dtype=torch.bool, device=x.device).triu()
    table = x.unsqueeze(-2).expand(*x.shape[:-1], n, n).where(~eye, 1.0).cumprod(-1)
    grad_x = (table * grad.unsqueeze(-2)).where(upper, 0.0).sum(-1)
    return grad_x.transpose(dim, -1)


def _scan(cls: type[Function], name: str, input: Tensor, dim: int, dtype) -> Tensor:
    input = tensor_arg(input, name)
    if autocast_state.active and dtype is None:
        (input,) = to_float32_on_gpu(input)
    return cls.apply(input, normalize_dim(dim, input._data.dim()), dtype)


def cumsum(input: Tensor, dim: int, *, dtype: torch.dtype | None = None) -> Tensor:
    """Cumulative sums along ``dim``."""
    return _scan(CumSum, "cumsum", input, dim, dtype)


def cumprod(input: Tensor, dim: int, *, dtype: torch.dtype | None = None) -> Tensor:
    """Cumulative products along ``dim``; differentiable with zeros in the input."""
    return _scan(CumProd, "cumprod", input, dim, dtype)
