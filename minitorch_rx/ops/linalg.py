"""Matrix products. ``matmul`` covers 1-D, 2-D, batched and broadcast batch dims."""

from __future__ import annotations

import torch

from ..autograd.function import Function
from ..autograd.tensor import Tensor
from .constants import tensor_arg


class MatMul(Function):
    @staticmethod
    def forward(ctx, a, b):
        need_a, need_b = ctx.needs_input_grad
        ctx.save_for_backward(a if need_b else None, b if need_a else None)
        ctx.shapes = (a.shape, b.shape)
        return torch.matmul(a, b)

    @staticmethod
    def backward(ctx, grad):
        a, b = ctx.saved_tensors
        shape_a, shape_b = ctx.shapes
        # A 1-D operand acts as a row (left) or a column (right) vector, as in the forward.
        matrix_a = (1, shape_a[0]) if len(shape_a) == 1 else shape_a
        matrix_b = (shape_b[0], 1) if len(shape_b) == 1 else shape_b
        if len(shape_b) == 1:  # first: 1-D @ 1-D has a 0-dim grad, which becomes [1] here
            grad = grad.unsqueeze(-1)
        if len(shape_a) == 1:
            grad = grad.unsqueeze(-2)
        grad_a = grad_b = None
        if b is not None:
            grad_a = (grad @ b.reshape(matrix_b).mT).sum_to_size(matrix_a).reshape(shape_a)
        if a is not None:
            a = a.reshape(matrix_a)
            if len(matrix_b) == 2 and a.dim() > 2:
                # Fold the batch into one 2-D product instead of a batched one and a sum.
                grad_b = a.flatten(0, -2).mT @ grad.flatten(0, -2)  # flatten: no -1, which size 0 makes ambiguous
            else:
                grad_b = (a.mT @ grad).sum_to_size(matrix_b)
            grad_b = grad_b.reshape(shape_b)
        return grad_a, grad_b


class Dot(Function):
    @staticmethod
    def forward(ctx, a, b):
        need_a, need_b = ctx.needs_input_grad
        ctx.save_for_backward(b if need_a else None, a if need_b else None)
        return torch.dot(a, b)

    @staticmethod
    def backward(ctx, grad):
        b, a = ctx.saved_tensors
        return (None if b is None else grad * b), (None if a is None else grad * a)


def matmul(input: Tensor, other: Tensor) -> Tensor:
    input = tensor_arg(input, "matmul")
    other = tensor_arg(other, "matmul", "other", 2)
    a_dim, b_dim = input._data.dim(), other._data.dim()
    if a_dim == 0 or b_dim == 0:
        raise RuntimeError(f"both arguments to matmul need to be at least 1D, but they are {a_dim}D and {b_dim}D")
    return MatMul.apply(input, other)


def dot(input: Tensor, other: Tensor) -> Tensor:
    return Dot.apply(input, other)
