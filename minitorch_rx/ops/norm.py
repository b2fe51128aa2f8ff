"""Batch, layer and group normalization on torch's fused kernels and their backward kernels
(instance normalization is group normalization with one group per channel); local response
normalization composed of recorded ops.

``torch.native_batch_norm`` updates the running statistics in place exactly as PyTorch's
``batch_norm`` does (``new = (1 - momentum) * old + momentum * batch``, the batch variance
unbiased), so the buffers' data change at the call, as PyTorch's do.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import torch

from ..autograd.engine import recorded_vjp
from ..autograd.function import Function
from ..autograd.tensor import Tensor
from .autocast import state as autocast_state
from .autocast import to_float32_on_gpu
from .constants import operand, tensor_arg
from .dims import int_tuple
from .pad import pad
from .pool import avg_pool2d, avg_pool3d

aten = torch.ops.aten


class BatchNorm(Function):
    _node_name = "NativeBatchNormBackward0"  # PyTorch's name for this node
    listed_inputs = (0, 1, 2)  # input, weight, bias; not the running statistics

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
        if isinstance(grad, Tensor):
            bias = Tensor._make(torch.zeros_like(weight._data), None) if need_bias and weight is not None else None
            composite = _batch_norm_composite(running_mean, running_var, ctx.training, ctx.eps)
            grads = recorded_vjp(composite, (x, weight, bias), (need_x, need_weight, need_bias), grad)
            return *grads, None, None, None, None, None
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
    _node_name = "NativeLayerNormBackward0"  # PyTorch's name for this node

    @staticmethod
    def forward(ctx, x, normalized_shape, weight, bias, eps):
        out, mean, rstd = torch.native_layer_norm(x, normalized_shape, weight, bias, eps)
        ctx.save_for_backward(x, mean, rstd, weight, bias)
        ctx.normalized_shape = normalized_shape
        ctx.eps = eps
        return out

    @staticmethod
    def backward(ctx, grad):
        x, mean, rstd, weight, bias = ctx.saved_tensors
        need = ctx.needs_input_grad
        if isinstance(grad, Tensor):
            composite = _layer_norm_composite(ctx.normalized_shape, ctx.eps)
            grad_x, grad_weight, grad_bias = recorded_vjp(
                composite, (x, weight, bias), (need[0], need[2], need[3]), grad
            )
            return grad_x, None, grad_weight, grad_bias, None
        grad_x, grad_weight, grad_bias = aten.native_layer_norm_backward(
            grad, x, ctx.normalized_shape, mean, rstd, weight, bias, [need[0], need[2], need[3]]
        )
        return grad_x, None, grad_weight, grad_bias, None


def _layer_norm_composite(normalized_shape, eps: float):
    """layer_norm from recorded ops (for its backward under ``create_graph``)."""
    dims = tuple(range(-len(normalized_shape), 0))

    def layer_norm(x, weight, bias):
        centered = x - x.mean(dims, keepdim=True)
        y = centered / ((centered * centered).mean(dims, keepdim=True) + eps).sqrt()
        if weight is not None:
            y = y * weight
        return y if bias is None else y + bias

    return layer_norm


def _batch_norm_composite(running_mean, running_var, training: bool, eps: float):
    """batch_norm from recorded ops (for its backward under ``create_graph``): the batch's
    statistics in training, the running ones (constants) in evaluation."""

    def batch_norm(x, weight, bias):
        per_channel = (1, -1) + (1,) * (x.dim() - 2)
        if training:
            dims = (0, *range(2, x.dim()))
            centered = x - x.mean(dims, keepdim=True)
            y = centered / ((centered * centered).mean(dims, keepdim=True) + eps).sqrt()
        else:
            y = (x - running_mean.reshape(per_channel)) / (running_var.reshape(per_channel) + eps).sqrt()
        if weight is not None:
            y = y * weight.reshape(per_channel)
        return y if bias is None else y + bias.reshape(per_channel)

    return batch_norm


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
    if input._data.numel() == 0:  # torch's fast path for an empty input (of any rank): no statistics
        out = input.clone()
        out = out if weight is None else out * tensor_arg(weight, "batch_norm", "weight", 4)[0]
        return out if bias is None else out + tensor_arg(bias, "batch_norm", "bias", 5)[0]
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
    if autocast_state.active:
        input, weight, bias = to_float32_on_gpu(input, weight, bias)
    shape = (
        [normalized_shape]
        if isinstance(normalized_shape, int) and not isinstance(normalized_shape, bool)
        else list(int_tuple(normalized_shape, "layer_norm", "normalized_shape", 2))
    )
    return LayerNorm.apply(input, shape, weight, bias, eps)


def rms_norm(
    input: Tensor,
    normalized_shape: int | Sequence[int],
    weight: Tensor | None = None,
    eps: float | None = None,
) -> Tensor:
    """``input / sqrt(mean(input**2) + eps)`` over the trailing ``normalized_shape`` dims, times
    ``weight``; ``eps`` defaults to the dtype's machine epsilon, as PyTorch's. Composed from
    recorded ops, as PyTorch's own composite.

    >>> import minitorch_rx as mt
    >>> [round(v, 4) for v in rms_norm(mt.tensor([[3.0, 4.0]]), [2]).tolist()[0]]
    [0.8485, 1.1314]
    """
    input = tensor_arg(input, "rms_norm")
    shape = (
        [normalized_shape]
        if isinstance(normalized_shape, int) and not isinstance(normalized_shape, bool)
        else list(int_tuple(normalized_shape, "rms_norm", "normalized_shape", 2))
    )
    if not shape:
        raise RuntimeError(
            "Expected normalized_shape to be at least 1-dimensional, i.e., containing at least one element, "
            f"but got normalized_shape = {shape}"
        )
    if weight is not None and list(weight.shape) != shape:
        raise RuntimeError(
            f"Expected weight to be of same shape as normalized_shape, but got weight of shape {list(weight.shape)} "
            f"and normalized_shape = {shape}"
        )
    if list(input.shape[input.dim() - len(shape) :]) != shape or len(shape) > input.dim():
        raise RuntimeError(
            f"Given normalized_shape={shape}, expected input with shape [*{', '.join(map(str, shape))}], "
            f"but got input of size{list(input.shape)}"
        )
    if eps is None:
        eps = torch.finfo(input.dtype).eps
    dims = tuple(range(-len(shape), 0))
    out = input / ((input * input).mean(dims, keepdim=True) + eps).sqrt()
    return out if weight is None else out * weight


class GroupNorm(Function):
    """Group normalization (instance normalization is its case ``groups == C``) on torch's fused
    kernels; under ``create_graph`` the gradients are composed of recorded ops instead
    (``_group_norm_gradients``), so they are differentiable again."""

    _node_name = "NativeGroupNormBackward0"  # PyTorch's name for this node

    @staticmethod
    def forward(ctx, x, weight, bias, groups, eps):
        n, channels = x.shape[:2]
        positions = math.prod(x.shape[2:])
        out, mean, rstd = torch.native_group_norm(x, weight, bias, n, channels, positions, groups, eps)
        ctx.save_for_backward(x, weight, mean, rstd)
        ctx.args = (groups, eps)
        return out

    @staticmethod
    def backward(ctx, grad):
        x, weight, mean, rstd = ctx.saved_tensors
        groups, eps = ctx.args
        need_x, need_weight, need_bias = ctx.needs_input_grad[:3]
        if isinstance(grad, Tensor):  # create_graph: mean and rstd are recomputed from x, recorded
            return (*_group_norm_gradients(grad, x, weight, groups, eps), None, None)
        n, channels = x.shape[:2]
        grad_x, grad_weight, grad_bias = aten.native_group_norm_backward(
            grad.contiguous(),
            x.contiguous(),
            mean,
            rstd,
            weight,
            n,
            channels,
            math.prod(x.shape[2:]),
            groups,
            [need_x, need_weight, need_bias],
        )
        return grad_x, grad_weight, grad_bias, None, None


def _group_norm_gradients(
    grad: Tensor, x: Tensor, weight: Tensor | None, groups: int, eps: float
) -> tuple[Tensor, Tensor | None, Tensor]:
    """Group norm's input, weight and bias gradients composed of recorded ops:
    ``dx = rstd * (g - mean(g) - x_hat * mean(g * x_hat))`` per group, ``g`` the gradient of ``x_hat``."""
    shape = x.shape
    n, channels = shape[:2]
    per_channel = (channels,) + (1,) * (len(shape) - 2)
    per_group = channels // groups * math.prod(shape[2:])  # explicit: -1 is ambiguous for an empty batch
    grouped = x.reshape(n, groups, per_group)
    centered = grouped - grouped.mean(-1, keepdim=True)
    rstd = 1 / ((centered * centered).mean(-1, keepdim=True) + eps).sqrt()
    x_hat = centered * rstd
    g = (grad if weight is None else grad * weight.view(per_channel)).reshape(n, groups, per_group)
    grad_x = rstd * (g - g.mean(-1, keepdim=True) - x_hat * (g * x_hat).mean(-1, keepdim=True))
    reduce_dims = (0, *range(2, len(shape)))
    grad_weight = None if weight is None else (grad * x_hat.reshape(shape)).sum(reduce_dims)
    return grad_x.reshape(shape), grad_weight, grad.sum(reduce_dims)


def group_norm(
    input: Tensor, num_groups: int, weight: Tensor | None = None, bias: Tensor | None = None, eps: float = 1e-5
) -> Tensor:
    """Normalize ``input`` (N, C, *) over each of ``num_groups`` groups of C / num_groups channels
    (and every other dim) per sample, then scale by ``weight`` and shift by ``bias`` (each (C,)).
    On torch's fused kernels, differentiable to any order. Raises RuntimeError in PyTorch's
    words for fewer than 2 dims, channels ``num_groups`` does not divide, or parameters of another
    size.

    >>> import minitorch_rx as mt
    >>> [round(v, 4) for v in group_norm(mt.tensor([[1.0, 3.0, 0.0, 4.0]]), 2).tolist()[0]]
    [-1.0, 1.0, -1.0, 1.0]
    """
    input = tensor_arg(input, "group_norm")
    if autocast_state.active:
        input, weight, bias = to_float32_on_gpu(input, weight, bias)
    input = operand(input, None)
    shape = input.shape
    if len(shape) < 2:
        raise RuntimeError(f"Expected at least 2 dimensions for input tensor but received {len(shape)}")
    channels = shape[1]
    if channels % num_groups:
        raise RuntimeError(
            "Expected number of channels in input to be divisible by num_groups, but got input of shape "
            f"{list(shape)} and num_groups={num_groups}"
        )
    for name, tensor in (("weight", weight), ("bias", bias)):
        if tensor is not None and (tensor.dim() != 1 or tensor.shape[0] != channels):
            raise RuntimeError(
                f"Expected {name} to be a vector of size equal to the number of channels in input, but got "
                f"{name} of shape {list(tensor.shape)} and input of shape {list(shape)}"
            )
    return GroupNorm.apply(input, weight, bias, num_groups, eps)


def instance_norm(
    input: Tensor,
    running_mean: Tensor | None = None,
    running_var: Tensor | None = None,
    weight: Tensor | None = None,
    bias: Tensor | None = None,
    use_input_stats: bool = True,
    momentum: float = 0.1,
    eps: float = 1e-5,
) -> Tensor:
    """Normalize ``input`` (N, C, *spatial) per sample and channel over its spatial dims, then scale
    by ``weight`` and shift by ``bias`` (each (C,)).

    With ``use_input_stats`` the statistics are each instance's, and the running buffers (C,), if
    given, move towards their mean over the batch by ``momentum`` (the variance unbiased), in place;
    otherwise the running statistics normalize. Raises ValueError for one spatial element when
    using input statistics, RuntimeError for buffers or parameters of another size (PyTorch's words,
    which count N * C elements).
    """
    input = tensor_arg(input, "instance_norm")
    input = operand(input, None)
    shape = input.shape
    if use_input_stats and math.prod(shape[2:]) == 1:
        raise ValueError(f"Expected more than 1 spatial element when training, got input size {shape}")
    n, channels = shape[:2]
    for name, tensor in (
        ("running_mean", running_mean),
        ("running_var", running_var),
        ("weight", weight),
        ("bias", bias),
    ):
        if tensor is not None and tensor.numel() != channels:
            raise RuntimeError(f"{name} should contain {n * channels} elements not {tensor.numel() * n}")
    if not use_input_stats:
        return batch_norm(input, running_mean, running_var, weight, bias, False, momentum, eps)
    dims = tuple(range(2, len(shape)))
    for buffer, statistic in ((running_mean, torch.Tensor.mean), (running_var, torch.Tensor.var)):
        if buffer is not None:
            batch = statistic(input._data.detach(), dims).mean(0)
            buffer._data.mul_(1 - momentum).add_(batch.to(buffer.dtype), alpha=momentum)
    return GroupNorm.apply(input, weight, bias, channels, eps)


def local_response_norm(input: Tensor, size: int, alpha: float = 1e-4, beta: float = 0.75, k: float = 1.0) -> Tensor:
    """``input / (k + alpha * mean of squares over size neighbouring channels) ** beta`` for
    ``input`` (N, C, *), as PyTorch's (the window is centred, zero beyond the channels). Composed
    of recorded ops. Raises ValueError for fewer than 3 dims."""
    input = tensor_arg(input, "local_response_norm")
    input = operand(input, None)
    dim = input.dim()
    if dim < 3:
        raise ValueError(f"Expected 3D or higher dimensionality input (got {dim} dimensions)")
    if input.numel() == 0:
        return input
    squares = input * input
    if dim == 3:
        squares = pad(squares.unsqueeze(1), (0, 0, size // 2, (size - 1) // 2))
        div = avg_pool2d(squares, (size, 1), stride=1).squeeze(1)
    else:
        sizes = input.shape
        squares = pad(squares.view(sizes[0], 1, sizes[1], sizes[2], -1), (0, 0, 0, 0, size // 2, (size - 1) // 2))
        div = avg_pool3d(squares, (size, 1, 1), stride=1).squeeze(1).view(sizes)
    return input / (div * alpha + k) ** beta


# ------------------------------------------------------------------ torch.native_*: the output and its statistics
def native_layer_norm(input: Tensor, normalized_shape, weight: Tensor | None, bias: Tensor | None, eps: float):
    """``(layer_norm(...), mean, rstd)``, the statistics over the normalized dims (kept as size 1);
    as torch's, the statistics carry no gradient."""
    input = tensor_arg(input, "native_layer_norm")
    out = layer_norm(input, normalized_shape, weight, bias, eps)
    _, mean, rstd = torch.native_layer_norm(input._data, list(normalized_shape), None, None, eps)
    return out, Tensor._make(mean, None), Tensor._make(rstd, None)


def native_group_norm(input: Tensor, weight, bias, N: int, C: int, HxW: int, group: int, eps: float):
    """``(group_norm(...), mean, rstd)``, the statistics per sample and group (``(N, group)``), all
    differentiable (composed of recorded ops)."""
    input = tensor_arg(input, "native_group_norm")
    if C % group:
        raise RuntimeError(
            "Expected number of channels in input to be divisible by num_groups, but got input of shape "
            f"{list(input.shape)} and num_groups={group}"
        )
    if input.numel() != N * C * HxW:
        raise RuntimeError(
            f"Expected X.numel() == N * C * HxW to be true, but got false: input of shape {list(input.shape)} "
            f"has {input.numel()} elements, N * C * HxW = {N} * {C} * {HxW}"
        )
    grouped = input.reshape(N, group, C // group * HxW)
    mean = grouped.mean(-1)
    centered = grouped - mean.unsqueeze(-1)
    rstd = 1 / ((centered * centered).mean(-1) + eps).sqrt()
    return group_norm(input, group, weight, bias, eps), mean, rstd


def native_batch_norm(input: Tensor, weight, bias, running_mean, running_var, training: bool, momentum, eps):
    """``(batch_norm(...), save_mean, save_invstd)``: the batch's statistics in training (empty in
    evaluation); as torch's, the statistics carry no gradient."""
    input = tensor_arg(input, "native_batch_norm")
    data = input._data
    if training:
        dims = [d for d in range(data.dim()) if d != 1]
        mean = data.mean(dims)
        invstd = 1 / (data.var(dims, unbiased=False) + eps).sqrt()
    else:
        mean = invstd = data.new_empty(0)
    out = batch_norm(input, running_mean, running_var, weight, bias, training, momentum, eps)
    return out, Tensor._make(mean, None), Tensor._make(invstd, None)
