"""The torch functions that op backwards call, as recorded minitorch_rx ops for ``create_graph``.

Each op has one backward, written on torch data for first-order speed (``torch.where``, torch's
own ``aten.*_backward`` kernels). Under ``create_graph=True`` the engine runs that same backward
on ``mt.Tensor``s; the torch functions it calls then reach ``Tensor.__torch_function__``, which
runs the equivalent below: the same formula, built from recorded ops, so the gradient can be
differentiated again, to any order. A torch function missing here raises there, never a silent
constant.
"""

from __future__ import annotations

import math

import torch

from ..autograd.function import Function, LinearMap, call
from ..autograd.tensor import Tensor, is_torch_data
from ..autograd.torch_function import recorded_equivalent
from ..autograd.torch_function import unwrap as _data
from . import activation, elementwise, linalg, pool, shape
from . import pad as padding

aten = torch.ops.aten


def _wrap(t):
    return t if isinstance(t, Tensor) or not is_torch_data(t) else Tensor._make(t, None)


@recorded_equivalent(torch.where)
def _where(condition, input, other):
    return elementwise.where(_data(condition), input, other)


@recorded_equivalent(torch.zeros_like)
def _zeros_like(input, **kwargs):
    return Tensor._make(torch.zeros_like(_data(input), **kwargs), None)


@recorded_equivalent(torch.ones_like)
def _ones_like(input, **kwargs):
    return Tensor._make(torch.ones_like(_data(input), **kwargs), None)


@recorded_equivalent(torch.as_tensor)
def _as_tensor(data, dtype=None, device=None):
    if isinstance(data, Tensor):
        return data.to(dtype=dtype or data.dtype, device=device or data.device)
    return Tensor._make(torch.as_tensor(data, dtype=dtype, device=device), None)


@recorded_equivalent(torch.exp)
def _exp(input):
    return elementwise.exp(input)


@recorded_equivalent(torch.log)
def _log(input):
    return elementwise.log(input)


@recorded_equivalent(torch.sigmoid)
def _sigmoid(input):
    return activation.sigmoid(_wrap(input))


@recorded_equivalent(torch.mm, torch.matmul)
def _mm(input, other):
    return linalg.matmul(_wrap(input), _wrap(other))


@recorded_equivalent(torch.cat)
def _cat(tensors, dim=0):
    return shape.cat([_wrap(t) for t in tensors], dim)


@recorded_equivalent(torch.nn.functional.pad)
def _pad(input, pad, mode="constant", value=None):
    return padding.pad(_wrap(input), pad, mode, 0.0 if value is None else value)


@recorded_equivalent(torch.broadcast_tensors)
def _broadcast_tensors(*tensors):
    size = torch.broadcast_shapes(*(t.shape for t in tensors))
    return tuple(_wrap(t).expand(size) for t in tensors)


@recorded_equivalent(torch.nn.functional.logsigmoid)
def _logsigmoid(input):
    return -activation.softplus(-_wrap(input))


@recorded_equivalent(torch.log_softmax)
def _log_softmax(input, dim, dtype=None):
    return activation.log_softmax(_wrap(input), dim)


# ----------------------------------------------------------- torch's own backward kernels
@recorded_equivalent(aten.threshold_backward)
def _threshold_backward(grad, input, threshold):
    return grad * (_data(input) > threshold)


@recorded_equivalent(aten.leaky_relu_backward)
def _leaky_relu_backward(grad, input, negative_slope, self_is_result):
    return elementwise.where(_data(input) > 0, grad, grad * negative_slope)


@recorded_equivalent(aten.elu_backward)
def _elu_backward(grad, alpha, scale, input_scale, is_result, input):
    x = _wrap(input)
    negative = grad * (input_scale * alpha * scale) * (x * input_scale).exp()
    return elementwise.where(x._data > 0, grad * scale, negative)


@recorded_equivalent(aten.sigmoid_backward)
def _sigmoid_backward(grad, output):
    y = _wrap(output)
    return grad * y * (1 - y)


@recorded_equivalent(aten.tanh_backward)
def _tanh_backward(grad, output):
    y = _wrap(output)
    return grad * (1 - y * y)


@recorded_equivalent(aten.silu_backward)
def _silu_backward(grad, input):
    x = _wrap(input)
    s = activation.sigmoid(x)
    return grad * s * (1 + x * (1 - s))


@recorded_equivalent(aten.softplus_backward)
def _softplus_backward(grad, input, beta, threshold):
    x = _wrap(input)
    return elementwise.where((x._data * beta) > threshold, grad, grad * activation.sigmoid(x * beta))


@recorded_equivalent(aten.gelu_backward)
def _gelu_backward(grad, input, approximate="none"):
    x = _wrap(input)
    if approximate == "tanh":
        k = math.sqrt(2 / math.pi)
        inner = (x + 0.044715 * x * x * x) * k
        t = activation.tanh(inner)
        return grad * (0.5 * (1 + t) + 0.5 * x * (1 - t * t) * k * (1 + 3 * 0.044715 * x * x))
    cdf = 0.5 * (1 + _Erf.apply(x * (1 / math.sqrt(2))))
    pdf = (x * x * -0.5).exp() * (1 / math.sqrt(2 * math.pi))
    return grad * (cdf + x * pdf)


class _Erf(Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return torch.erf(x)

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad * (x * x * -1).exp() * (2 / math.sqrt(math.pi))


@recorded_equivalent(torch._softmax_backward_data, aten._softmax_backward_data)
def _softmax_backward(grad, output, dim, input_dtype):
    y = _wrap(output)
    return y * (grad - (grad * y).sum(dim, keepdim=True))


@recorded_equivalent(torch._log_softmax_backward_data, aten._log_softmax_backward_data)
def _log_softmax_backward(grad, output, dim, input_dtype):
    y = _wrap(output)
    return grad - y.exp() * grad.sum(dim, keepdim=True)


@recorded_equivalent(aten.mse_loss_backward)
def _mse_loss_backward(grad, input, target, reduction):
    scale = 2 / input.numel() if reduction == 1 else 2  # 1: mean
    return grad * (_wrap(input) - _wrap(target)) * scale


@recorded_equivalent(aten.nll_loss_backward, aten.nll_loss2d_backward)
def _nll_loss_backward(grad, input, target, weight, reduction, ignore_index, total_weight):
    # Linear in grad, independent of the input's values: grad times the pattern for grad = 1.
    kernel = aten.nll_loss_backward if _data(input).dim() <= 2 else aten.nll_loss2d_backward
    ones = torch.ones_like(_data(grad))
    pattern = kernel(ones, _data(input), _data(target), _data(weight), reduction, ignore_index, _data(total_weight))
    per_sample = grad.unsqueeze(1) if reduction == 0 and grad.dim() > 0 else grad  # 0: no reduction
    return pattern * per_sample


# Pooling gradients are linear in the output's gradient: recorded as LinearMaps whose adjoint is
# the pooling itself (average) or a gather at the arg-max positions (max).
def _pooling_grad(grad, kernel, adjoint):
    return LinearMap.apply(grad, kernel, adjoint)


def _avg_pool_backward(nd: int, torch_kernel):
    def recorded(grad, input, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override):
        like = _data(input)
        params = (kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override)
        return _pooling_grad(
            grad, lambda g: torch_kernel(g, like, *params), lambda g: call(pool.AvgPoolNd, g, nd, *params)
        )

    return recorded


def _adaptive_avg_pool_backward(nd: int, torch_kernel):
    def recorded(grad, input):
        like = _data(input)
        output_size = tuple(grad.shape[-nd:])
        adjoint = lambda g: call(pool.AdaptiveAvgPoolNd, g, nd, output_size)  # noqa: E731
        return _pooling_grad(grad, lambda g: torch_kernel(g, like), adjoint)

    return recorded


for _nd, _avg, _adaptive in (
    (2, aten.avg_pool2d_backward, aten._adaptive_avg_pool2d_backward),
    (3, aten.avg_pool3d_backward, aten._adaptive_avg_pool3d_backward),
):
    recorded_equivalent(_avg)(_avg_pool_backward(_nd, _avg))
    recorded_equivalent(_adaptive)(_adaptive_avg_pool_backward(_nd, _adaptive))


def _max_pool_backward(nd: int):
    def recorded(grad, input, *args):
        like, indices = _data(input), _data(args[-1])
        prefix = like.shape[:-nd]
        offsets = torch.arange(math.prod(prefix), device=indices.device) * math.prod(like.shape[-nd:])
        positions = indices + offsets.view(*prefix, *(1,) * nd)
        scatter = shape._IndexScatter(like.shape, like.dtype, like.device, positions)
        return _pooling_grad(grad, scatter, shape._IndexGather(positions))

    return recorded


recorded_equivalent(aten.max_pool2d_with_indices_backward, aten.adaptive_max_pool2d_backward)(_max_pool_backward(2))
recorded_equivalent(aten.max_pool3d_with_indices_backward, aten.adaptive_max_pool3d_backward)(_max_pool_backward(3))


def _padding_backward(mode: str, torch_kernel):
    # Linear in the gradient; the adjoint of a padding's backward is the padding itself.
    def recorded(grad, input, pad):
        like = _data(input)
        return LinearMap.apply(
            grad, lambda g: torch_kernel(g, like, pad), lambda g: call(padding.Pad, g, list(pad), mode, None)
        )

    return recorded


for _mode, _kernels in padding._BACKWARD_KERNELS.items():
    for _kernel in _kernels:
        recorded_equivalent(_kernel)(_padding_backward(_mode, _kernel))


@recorded_equivalent(aten.native_dropout_backward)
def _dropout_backward(grad, mask, scale):
    return grad * (_data(mask) * scale)


@recorded_equivalent(torch.Tensor.sum_to_size)
def _sum_to_size(input, *size):
    return _wrap(input).sum_to_size(*size)
