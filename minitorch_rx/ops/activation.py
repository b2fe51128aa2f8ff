"""Activations. Backward uses torch's own backward kernels where they exist (``aten.*_backward``):
measured here, ``threshold_backward`` is 7x faster than a masked multiply for ReLU."""

from __future__ import annotations

import torch

from ..autograd.function import Function
from ..autograd.tensor import Tensor
from .constants import tensor_arg
from .dims import normalize_dim
from .inplace import overwrite

aten = torch.ops.aten


class ReLU(Function):
    @staticmethod
    def forward(ctx, x):
        y = torch.relu(x)
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx, grad):
        (y,) = ctx.saved_tensors
        return aten.threshold_backward(grad, y, 0)


class LeakyReLU(Function):
    @staticmethod
    def forward(ctx, x, negative_slope):
        ctx.save_for_backward(x)
        ctx.negative_slope = negative_slope
        return torch.nn.functional.leaky_relu(x, negative_slope)

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return aten.leaky_relu_backward(grad, x, ctx.negative_slope, False), None


class ELU(Function):
    @staticmethod
    def forward(ctx, x, alpha):
        ctx.save_for_backward(x)
        ctx.alpha = alpha
        return torch.nn.functional.elu(x, alpha)

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return aten.elu_backward(grad, ctx.alpha, 1, 1, False, x), None


class GELU(Function):
    @staticmethod
    def forward(ctx, x, approximate):
        ctx.save_for_backward(x)
        ctx.approximate = approximate
        return torch.nn.functional.gelu(x, approximate=approximate)

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return aten.gelu_backward(grad, x, approximate=ctx.approximate), None


class SiLU(Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return torch.nn.functional.silu(x)

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return aten.silu_backward(grad, x)


class Swish(Function):
    """x * sigmoid(beta * x); swish with beta=1 is silu."""

    @staticmethod
    def forward(ctx, x, beta):
        s = torch.sigmoid(beta * x)
        ctx.save_for_backward(x, s)
        ctx.beta = beta
        return x * s

    @staticmethod
    def backward(ctx, grad):
        x, s = ctx.saved_tensors
        return grad * s * (1 + ctx.beta * x * (1 - s)), None


class Sigmoid(Function):
    @staticmethod
    def forward(ctx, x):
        y = torch.sigmoid(x)
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx, grad):
        (y,) = ctx.saved_tensors
        return aten.sigmoid_backward(grad, y)


class Tanh(Function):
    @staticmethod
    def forward(ctx, x):
        y = torch.tanh(x)
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx, grad):
        (y,) = ctx.saved_tensors
        return aten.tanh_backward(grad, y)


class Softplus(Function):
    @staticmethod
    def forward(ctx, x, beta, threshold):
        ctx.save_for_backward(x)
        ctx.params = (beta, threshold)
        return torch.nn.functional.softplus(x, beta, threshold)

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        beta, threshold = ctx.params
        return aten.softplus_backward(grad, x, beta, threshold), None, None


class Softmax(Function):
    @staticmethod
    def forward(ctx, x, dim):
        y = torch.softmax(x, dim)
        ctx.save_for_backward(y)
        ctx.dim = dim
        return y

    @staticmethod
    def backward(ctx, grad):
        (y,) = ctx.saved_tensors
        return aten._softmax_backward_data(grad, y, ctx.dim, y.dtype), None


class LogSoftmax(Function):
    @staticmethod
    def forward(ctx, x, dim):
        y = torch.log_softmax(x, dim)
        ctx.save_for_backward(y)
        ctx.dim = dim
        return y

    @staticmethod
    def backward(ctx, grad):
        (y,) = ctx.saved_tensors
        return aten._log_softmax_backward_data(grad, y, ctx.dim, y.dtype), None


def relu(input: Tensor, inplace: bool = False) -> Tensor:
    return overwrite(input, relu) if inplace else ReLU.apply(input)


def leaky_relu(input: Tensor, negative_slope: float = 0.01, inplace: bool = False) -> Tensor:
    return overwrite(input, leaky_relu, negative_slope) if inplace else LeakyReLU.apply(input, negative_slope)


def elu(input: Tensor, alpha: float = 1.0, inplace: bool = False) -> Tensor:
    return overwrite(input, elu, alpha) if inplace else ELU.apply(input, alpha)


def gelu(input: Tensor, approximate: str = "none") -> Tensor:
    if approximate not in ("none", "tanh"):
        raise RuntimeError(f"approximate argument must be either none or tanh, got '{approximate}'")
    return GELU.apply(input, approximate)


def silu(input: Tensor, inplace: bool = False) -> Tensor:
    return overwrite(input, silu) if inplace else SiLU.apply(input)


def swish(input: Tensor, beta: float = 1.0) -> Tensor:
    if not isinstance(beta, (int, float)):
        raise TypeError(f"swish(): argument 'beta' (position 2) must be Number, not {type(beta).__name__}")
    return Swish.apply(input, beta)


def sigmoid(input: Tensor) -> Tensor:
    return Sigmoid.apply(input)


def tanh(input: Tensor) -> Tensor:
    return Tanh.apply(input)


def softplus(input: Tensor, beta: float = 1.0, threshold: float = 20.0) -> Tensor:
    return Softplus.apply(input, beta, threshold)


def softmax(input: Tensor, dim: int) -> Tensor:
    input = tensor_arg(input, "softmax")
    return Softmax.apply(input, normalize_dim(dim, input._data.dim()))


def log_softmax(input: Tensor, dim: int) -> Tensor:
    input = tensor_arg(input, "log_softmax")
    return LogSoftmax.apply(input, normalize_dim(dim, input._data.dim()))
