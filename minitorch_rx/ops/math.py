"""Elementwise math beyond arithmetic: logs and exponentials, trigonometric and hyperbolic
functions, rounding, remainders, interpolation. One Function per op; backward is written with
operators and tensor methods, so it runs on torch data and on recorded mt.Tensors alike.

Rounding ops (floor, ceil, round, trunc, sign) have a zero gradient, as PyTorch's; floor_divide
has none (PyTorch's raises at backward).
"""

from __future__ import annotations

import math

import torch

from ..autograd.function import Function
from ..autograd.tensor import Tensor, is_torch_data
from .autocast import state as autocast_state
from .autocast import to_float32_on_gpu
from .constants import TENSOR_TYPES, not_a_tensor, operand, tensor_arg
from .elementwise import binary, clamp
from .elementwise import pow as _pow

_LN2 = math.log(2.0)
_LN10 = math.log(10.0)
_TWO_OVER_SQRT_PI = 2.0 / math.sqrt(math.pi)
_SQRT_PI_OVER_TWO = math.sqrt(math.pi) / 2.0


class Log1p(Function):
    _node_name = "Log1PBackward0"  # PyTorch's name for this node

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return torch.log1p(x)

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad / (x + 1)


class Expm1(Function):
    @staticmethod
    def forward(ctx, x):
        y = torch.expm1(x)
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx, grad):
        (y,) = ctx.saved_tensors
        return grad * (y + 1)


class Rsqrt(Function):
    @staticmethod
    def forward(ctx, x):
        y = torch.rsqrt(x)
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx, grad):
        (y,) = ctx.saved_tensors
        return grad * y * y * y * -0.5


class Reciprocal(Function):
    @staticmethod
    def forward(ctx, x):
        y = torch.reciprocal(x)
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx, grad):
        (y,) = ctx.saved_tensors
        return -grad * y * y


class Log2(Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return torch.log2(x)

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad / (x * _LN2)


class Log10(Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return torch.log10(x)

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad / (x * _LN10)


class Exp2(Function):
    @staticmethod
    def forward(ctx, x):
        y = torch.exp2(x)
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx, grad):
        (y,) = ctx.saved_tensors
        return grad * y * _LN2


class Tan(Function):
    @staticmethod
    def forward(ctx, x):
        y = torch.tan(x)
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx, grad):
        (y,) = ctx.saved_tensors
        return grad * (y * y + 1)


class Asin(Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return torch.asin(x)

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad * (1 - x * x).rsqrt()


class Acos(Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return torch.acos(x)

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return -grad * (1 - x * x).rsqrt()


class Atan(Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return torch.atan(x)

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad / (x * x + 1)


class Sinh(Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return torch.sinh(x)

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad * x.cosh()


class Cosh(Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return torch.cosh(x)

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad * x.sinh()


class Asinh(Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return torch.asinh(x)

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad * (x * x + 1).rsqrt()


class Acosh(Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return torch.acosh(x)

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad * (x * x - 1).rsqrt()


class Atanh(Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return torch.atanh(x)

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad / (1 - x * x)


class Erf(Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return torch.erf(x)

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad * (-(x * x)).exp() * _TWO_OVER_SQRT_PI


class Erfinv(Function):
    @staticmethod
    def forward(ctx, x):
        y = torch.erfinv(x)
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx, grad):
        (y,) = ctx.saved_tensors
        return grad * (y * y).exp() * _SQRT_PI_OVER_TWO


class Frac(Function):
    _passes_gradient = True

    @staticmethod
    def forward(ctx, x):
        return torch.frac(x)

    @staticmethod
    def backward(ctx, grad):
        return grad


class Rounding(Function):
    """Piecewise constant ops (``kernel``): a zero gradient, as PyTorch's."""

    kernel = torch.floor

    @classmethod
    def forward(cls, ctx, x):
        return cls.kernel(x)

    @staticmethod
    def backward(ctx, grad):
        return grad.new_zeros(grad.shape)


class Floor(Rounding):
    kernel = torch.floor


class Ceil(Rounding):
    kernel = torch.ceil


class Trunc(Rounding):
    kernel = torch.trunc


class Sign(Rounding):
    kernel = torch.sign


class Round(Rounding):
    @staticmethod
    def forward(ctx, x, decimals):
        return torch.round(x, decimals=decimals) if decimals else torch.round(x)

    @staticmethod
    def backward(ctx, grad):
        return grad.new_zeros(grad.shape), None


class Fmod(Function):
    broadcasting = True

    @staticmethod
    def forward(ctx, a, b):
        if ctx.needs_input_grad[1]:
            ctx.save_for_backward(a, b)
        return torch.fmod(a, b)

    @staticmethod
    def backward(ctx, grad):
        grad_b = None
        if ctx.needs_input_grad[1]:
            a, b = ctx.saved_tensors
            grad_b = -grad * (a / b).trunc()
        return grad, grad_b


class Remainder(Function):
    broadcasting = True

    @staticmethod
    def forward(ctx, a, b):
        if ctx.needs_input_grad[1]:
            ctx.save_for_backward(a, b)
        return torch.remainder(a, b)

    @staticmethod
    def backward(ctx, grad):
        grad_b = None
        if ctx.needs_input_grad[1]:
            a, b = ctx.saved_tensors
            grad_b = -grad * (a / b).floor()
        return grad, grad_b


class Atan2(Function):
    broadcasting = True

    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(a, b)
        return torch.atan2(a, b)

    @staticmethod
    def backward(ctx, grad):
        a, b = ctx.saved_tensors
        scaled = grad / (a * a + b * b)
        need_a, need_b = ctx.needs_input_grad
        return (scaled * b if need_a else None), (-scaled * a if need_b else None)


class Hypot(Function):
    broadcasting = True

    @staticmethod
    def forward(ctx, a, b):
        out = torch.hypot(a, b)
        ctx.save_for_backward(a, b, out)
        return out

    @staticmethod
    def backward(ctx, grad):
        a, b, out = ctx.saved_tensors
        scaled = grad / out
        need_a, need_b = ctx.needs_input_grad
        return (scaled * a if need_a else None), (scaled * b if need_b else None)


class LogAddExp(Function):
    _node_name = "LogaddexpBackward0"  # PyTorch's name for this node
    broadcasting = True

    @staticmethod
    def forward(ctx, a, b):
        out = torch.logaddexp(a, b)
        ctx.save_for_backward(a, b, out)
        return out

    @staticmethod
    def backward(ctx, grad):
        a, b, out = ctx.saved_tensors
        need_a, need_b = ctx.needs_input_grad
        return (grad * (a - out).exp() if need_a else None), (grad * (b - out).exp() if need_b else None)


class Lerp(Function):
    """``start + weight * (end - start)``; ``weight`` a tensor or a Python number."""

    broadcasting = True

    @staticmethod
    def forward(ctx, start, end, weight):
        ctx.save_for_backward(start, end, weight)
        return torch.lerp(start, end, weight)

    @staticmethod
    def backward(ctx, grad):
        start, end, weight = ctx.saved_tensors
        need_start, need_end, need_weight = ctx.needs_input_grad
        return (
            grad * (1 - weight) if need_start else None,
            grad * weight if need_end else None,
            grad * (end - start) if need_weight else None,
        )


# ------------------------------------------------------------------ public functions
def _unary(cls: type[Function], name: str, float32_on_gpu: bool = False):
    """The mt function ``name``: ``cls`` on one tensor, by ``apply1`` (the unary hot path);
    ``float32_on_gpu``: an op of torch's CUDA autocast float32 list."""

    def function(input: Tensor) -> Tensor:
        if type(input) is not Tensor:
            input = _as_tensor(input, name)
        if float32_on_gpu and autocast_state.active:
            (input,) = to_float32_on_gpu(input)
        return cls.apply1(input)

    function.__name__ = function.__qualname__ = name
    function.__doc__ = f"As ``torch.{name}``, differentiable."
    return function


def _as_tensor(value, name: str) -> Tensor:
    if isinstance(value, Tensor):
        return value
    if is_torch_data(value):
        return Tensor._make(value, None)
    raise not_a_tensor(name, value)


log1p = _unary(Log1p, "log1p", float32_on_gpu=True)
expm1 = _unary(Expm1, "expm1", float32_on_gpu=True)
rsqrt = _unary(Rsqrt, "rsqrt", float32_on_gpu=True)
reciprocal = _unary(Reciprocal, "reciprocal", float32_on_gpu=True)
log2 = _unary(Log2, "log2", float32_on_gpu=True)
log10 = _unary(Log10, "log10", float32_on_gpu=True)
exp2 = _unary(Exp2, "exp2")
tan = _unary(Tan, "tan", float32_on_gpu=True)
asin = _unary(Asin, "asin", float32_on_gpu=True)
acos = _unary(Acos, "acos", float32_on_gpu=True)
atan = _unary(Atan, "atan")
sinh = _unary(Sinh, "sinh", float32_on_gpu=True)
cosh = _unary(Cosh, "cosh", float32_on_gpu=True)
asinh = _unary(Asinh, "asinh")
acosh = _unary(Acosh, "acosh")
atanh = _unary(Atanh, "atanh")
erf = _unary(Erf, "erf")
erfinv = _unary(Erfinv, "erfinv", float32_on_gpu=True)
frac = _unary(Frac, "frac")


floor = _unary(Floor, "floor")
ceil = _unary(Ceil, "ceil")
trunc = _unary(Trunc, "trunc")
sign = _unary(Sign, "sign")


def round(input: Tensor, *, decimals: int = 0) -> Tensor:
    """As ``torch.round``: to ``decimals`` places, halves to even; a zero gradient."""
    if type(input) is not Tensor:
        input = _as_tensor(input, "round")
    return Round.apply1(input, decimals)


def square(input: Tensor) -> Tensor:
    input = tensor_arg(input, "square")
    return _pow(input, 2)


def _binary(cls: type[Function], name: str, other_may_be_a_number: bool = True):
    def function(input, other) -> Tensor:
        if not isinstance(input, TENSOR_TYPES):
            raise not_a_tensor(name, input)
        if not (other_may_be_a_number or isinstance(other, TENSOR_TYPES)):
            raise not_a_tensor(name, other, "other", 2)
        return binary(cls, input, other)

    function.__name__ = function.__qualname__ = name
    function.__doc__ = f"As ``torch.{name}``: broadcasts, differentiable in both operands."
    return function


fmod = _binary(Fmod, "fmod")
remainder = _binary(Remainder, "remainder")
atan2 = _binary(Atan2, "atan2", other_may_be_a_number=False)
hypot = _binary(Hypot, "hypot", other_may_be_a_number=False)
logaddexp = _binary(LogAddExp, "logaddexp", other_may_be_a_number=False)
arctan2 = atan2
arcsin, arccos, arctan, arcsinh, arccosh, arctanh, fix = asin, acos, atan, asinh, acosh, atanh, trunc


def floor_divide(input, other) -> Tensor:
    """As ``torch.floor_divide``; not differentiable (PyTorch has no derivative for it)."""
    input = tensor_arg(input, "floor_divide")
    other = other._data if isinstance(other, Tensor) else other
    return Tensor._make(torch.floor_divide(input._data if isinstance(input, Tensor) else input, other), None)


def lerp(input: Tensor, end: Tensor, weight) -> Tensor:
    """``input + weight * (end - input)``; ``weight`` a tensor or a number."""
    input = tensor_arg(input, "lerp")
    end = tensor_arg(end, "lerp", "end", 2)
    like = input._data if isinstance(input, Tensor) else input
    return Lerp.apply(input, end, operand(weight, like))


def clamp_min(input: Tensor, min) -> Tensor:
    input = tensor_arg(input, "clamp_min")
    return clamp(input, min=min)


def clamp_max(input: Tensor, max) -> Tensor:
    input = tensor_arg(input, "clamp_max")
    return clamp(input, max=max)


def remainder_reflected(self: Tensor, other) -> Tensor:
    """``other % self`` for a number ``other``."""
    return binary(Remainder, other, self)


def floor_divide_reflected(self: Tensor, other) -> Tensor:
    """``other // self`` for a number ``other``."""
    if not isinstance(other, (int, float, bool, torch.Tensor)):
        return NotImplemented
    return Tensor._make(torch.floor_divide(torch.as_tensor(other, device=self._data.device), self._data), None)
