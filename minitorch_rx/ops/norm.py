"""Batch and layer normalization on torch's fused kernels and their backward kernels.

``torch.native_batch_norm`` updates the running statistics in place exactly as PyTorch's
``batch_norm`` does (``new = (1 - momentum) * old + momentum * batch``, the batch variance
unbiased), so the buffers' data change at the call, as PyTorch's do.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import torch

from ..autograd.function import Function
from ..autograd.tensor import Tensor
from .constants import tensor_arg
from .dims import int_tuple

aten = torch.ops.aten


class BatchNorm(Function):
    @staticmethod
    def forward(ctx, x, weight, bias, running_mean, running_var, training, momentum, eps):
        ctx.empty = x.numel() == 0
        if ctx.empty:  # as PyTorch: nothing to normalize, running statistics untouched
            ctx.save_for_backward(weight, bias)
            return x.clone()
        out, save_mean, save_invstd = torch.native_batch_norm(
            x, weight, bias, running_mean, running_var, training, momentum, eps
        )
        # Only evaluation reads the running statistics in backward: training uses the batch's.
        if training:
            running_mean = running_var = None
        ctx.save_for_backward(x, weight, running_mean, running_var, save_mean, save_invstd)
        ctx.training = training
        ctx.eps = eps
        return out

    @staticmethod
    def backward(ctx, grad):
        need_x, need_weight, need_bias = ctx.needs_input_grad[:3]
        if ctx.empty:
            weight, bias = ctx.saved_tensors
            grad_weight = torch.zeros_like(weight) if need_weight else None
            grad_bias = torch.zeros_like(bias) if need_bias else None
            return grad, grad_weight, grad_bias, None, None, None, None, None
        x, weight, running_mean, running_var, save_mean, save_invstd = ctx.saved_tensors
        grad_x, grad_weight, grad_bias = aten.native_batch_norm_backward(
            grad,
            x,
            weight,
            running_mean,
            running_var,
            save_mean,
            save_invstd,
            ctx.training,
            ctx.eps,
            [need_x, need_weight, need_bias],
        )
        return grad_x, grad_weight, grad_bias, None, None, None, None, None


class LayerNorm(Function):
    @staticmethod
    def forward(ctx, x, normalized_shape, weight, bias, eps):
        out, mean, rstd = torch.native_layer_norm(x, normalized_shape, weight, bias, eps)
        ctx.save_for_backward(x, mean, rstd, weight, bias)
        ctx.normalized_shape = normalized_shape
        return out

    @staticmethod
    def backward(ctx, grad):
        x, mean, rstd, weight, bias = ctx.saved_tensors
        need = ctx.needs_input_grad
        grad_x, grad_weight, grad_bias = aten.native_layer_norm_backward(
            grad, x, ctx.normalized_shape, mean, rstd, weight, bias, [need[0], need[2], need[3]]
        )
        return grad_x, None, grad_weight, grad_bias, None


def batch_norm(
    input: Tensor,
    running_mean: Tensor | None,
    running_var: Tensor | None,
    weight: Tensor | None = None,
    bias: Tensor | None = None,
    training: bool = False,
    momentum: float = 0.1,
    eps: float = 1e-5,
) -> Tensor:
    """Normalize ``input`` of shape ``(N, C)``, ``(N, C, L)``, ``(N, C, H, W)`` or
    ``(N, C, D, H, W)`` per channel ``C``, then scale by ``weight`` and shift by ``bias`` (each
    ``(C,)``).

    In training the statistics are the batch's (over every dim but ``C``) and the running
    buffers (``(C,)``, may be ``None``) are updated in place; in evaluation the running
    statistics are used. Differentiable in ``input``, ``weight`` and ``bias``. Raises
    ``ValueError`` for an input of fewer than 2 dims or when training on one value per
    channel, ``RuntimeError`` for buffers or parameters of the wrong size, or missing running
    statistics in evaluation (PyTorch's wording).

    >>> import minitorch_rx as mt
    >>> mean, var = mt.zeros(2), mt.ones(2)
    >>> y = batch_norm(mt.tensor([[0.0, 1.0], [2.0, 3.0]]), mean, var, training=True)
    >>> [round(v, 4) for v in y.torch()[:, 0].tolist()]
    [-1.0, 1.0]
    >>> [round(m, 4) for m in mean.tolist()], [round(v, 4) for v in var.tolist()]
    ([0.1, 0.2], [1.1, 1.1])
    """
    input = tensor_arg(input, "batch_norm")
    size = input._data.shape
    if len(size) < 2:
        raise ValueError(f"expected at least 2D input (got {len(size)}D input)")
    if training and size[0] * math.prod(size[2:]) == 1:
        raise ValueError(f"Expected more than 1 value per channel when training, got input size {size}")
    running_mean, running_var, weight, bias = (
        tensor_arg(t, "batch_norm", name, i, optional=True)
        for i, (name, t) in enumerate(
            (("running_mean", running_mean), ("running_var", running_var), ("weight", weight), ("bias", bias)), 2
        )
    )
    # torch.batch_norm's checks: its native kernel trusts its caller with them.
    for name, tensor in (
        ("running_mean", running_mean),
        ("running_var", running_var),
        ("weight", weight),
        ("bias", bias),
    ):
        if tensor is None:
            if not training and name.startswith("running"):
                raise RuntimeError(f"{name} must be defined in evaluation mode")
        elif tensor._data.numel() != size[1]:
            raise RuntimeError(f"{name} should contain {size[1]} elements not {tensor._data.numel()}")
    return BatchNorm.apply(input, weight, bias, running_mean, running_var, training, momentum, eps)


def layer_norm(
    input: Tensor,
    normalized_shape: int | Sequence[int],
    weight: Tensor | None = None,
    bias: Tensor | None = None,
    eps: float = 1e-5,
) -> Tensor:
    """Normalize ``input`` of shape ``(*, *normalized_shape)`` over its last
    ``len(normalized_shape)`` dims, then scale by ``weight`` and shift by ``bias`` (each of
    shape ``normalized_shape``). Differentiable in ``input``, ``weight`` and ``bias``. Raises
    torch's ``RuntimeError`` when the trailing dims or the parameters' shapes do not match.

    >>> import minitorch_rx as mt
    >>> [round(v, 4) for v in layer_norm(mt.tensor([[1.0, 3.0]]), 2).tolist()[0]]
    [-1.0, 1.0]
    """
    input = tensor_arg(input, "layer_norm")
    shape = (
        [normalized_shape]
        if isinstance(normalized_shape, int) and not isinstance(normalized_shape, bool)
        else list(int_tuple(normalized_shape, "layer_norm", "normalized_shape", 2))
    )
    return LayerNorm.apply(input, shape, weight, bias, eps)
