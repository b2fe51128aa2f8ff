"""Elementwise ops beyond ``math.py``: sign and floating-point manipulation (``copysign``,
``ldexp``, ``frexp``, ``nextafter``), NaN-aware extrema (``fmax``, ``fmin``), ``nan_to_num``,
``addcmul``/``addcdiv``, and the complex-number views that are identities on real tensors
(``real``, ``conj``, ``resolve_neg``, ...).

Derivatives are PyTorch's (``derivatives.yaml``), or the op is an exact composition of recorded ops.
"""

from __future__ import annotations

import math
import numbers

import torch

from ..autograd.function import Function
from ..autograd.tensor import Tensor
from .constants import TENSOR_TYPES, not_a_tensor, tensor_arg
from .elementwise import add, binary, clone, div, mul, where
from .elementwise import pow as _pow
from .special import NoDerivative


def _data(t):
    return t._data if isinstance(t, Tensor) else t


def _not_differentiable(out: torch.Tensor) -> Tensor:
    return Tensor._make(out, None)


class Copysign(Function):
    broadcasting = True

    @staticmethod
    def forward(ctx, a, b):
        out = torch.copysign(a, b)
        ctx.save_for_backward(a, out)
        return out

    @staticmethod
    def backward(ctx, grad):
        a, out = ctx.saved_tensors
        ratio = torch.where(_data(a) == 0, 0.0, out / torch.where(_data(a) == 0, 1.0, a))
        return grad * ratio, (grad * 0 if ctx.needs_input_grad[1] else None)


class LogAddExp2(Function):
    broadcasting = True

    @staticmethod
    def forward(ctx, a, b):
        out = torch.logaddexp2(a, b)
        ctx.save_for_backward(a, b, out)
        return out

    @staticmethod
    def backward(ctx, grad):
        a, b, out = ctx.saved_tensors
        need_a, need_b = ctx.needs_input_grad
        return (grad * (a - out).exp2() if need_a else None), (grad * (b - out).exp2() if need_b else None)


class FMaxMin(Function):
    """``fmax`` (``largest``) or ``fmin``: the gradient goes to ``a`` where it wins or ``b`` is NaN."""

    broadcasting = True

    @staticmethod
    def forward(ctx, a, b, largest):
        wins = (a >= b) if largest else (a <= b)
        ctx.save_for_backward(wins | b.isnan())
        return torch.fmax(a, b) if largest else torch.fmin(a, b)

    @staticmethod
    def backward(ctx, grad):
        (to_a,) = ctx.saved_tensors
        need_a, need_b = ctx.needs_input_grad[:2]
        return (
            torch.where(to_a, grad, 0.0) if need_a else None,
            torch.where(to_a, 0.0, grad) if need_b else None,
            None,
        )


class Frexp(Function):
    @staticmethod
    def forward(ctx, x):
        mantissa, exponent = torch.frexp(x)
        ctx.save_for_backward(exponent)
        ctx.mark_non_differentiable(exponent)
        return mantissa, exponent

    @staticmethod
    def backward(ctx, grad, _):
        (exponent,) = ctx.saved_tensors
        return grad / exponent.to(_data(grad).dtype).exp2()


class NextAfter(Function):
    broadcasting = True

    @staticmethod
    def forward(ctx, a, b):
        return torch.nextafter(a, b)

    @staticmethod
    def backward(ctx, grad):
        return grad, (grad * 0 if ctx.needs_input_grad[1] else None)


class NanToNum(Function):
    @staticmethod
    def forward(ctx, x, nan, posinf, neginf):
        ctx.save_for_backward(x.isfinite())
        return torch.nan_to_num(x, nan, posinf, neginf)

    @staticmethod
    def backward(ctx, grad):
        (finite,) = ctx.saved_tensors
        return torch.where(finite, grad, 0.0), None, None, None


class Angle(Function):
    """The angle of a real number: 0 or pi (NaN stays NaN); a zero gradient, as PyTorch's."""

    @staticmethod
    def forward(ctx, x):
        return torch.angle(x)

    @staticmethod
    def backward(ctx, grad):
        return grad * 0


# ------------------------------------------------------------------ public functions
def _pair(input, other, name: str) -> tuple:
    if not isinstance(input, TENSOR_TYPES):
        raise not_a_tensor(name, input)
    input = tensor_arg(input, name)
    if not isinstance(other, (*TENSOR_TYPES, numbers.Number)):
        raise not_a_tensor(name, other, "other", 2)
    return input, (tensor_arg(other, name, "other", 2) if isinstance(other, TENSOR_TYPES) else other)


def _as_float_tensor(value, like: Tensor) -> Tensor:
    """``value`` (a number) as a 0-dim tensor of ``like``'s float dtype (or the default one)."""
    if isinstance(value, Tensor):
        return value
    dtype = like.dtype if like.dtype.is_floating_point else torch.get_default_dtype()
    return Tensor._make(torch.tensor(value, dtype=dtype, device=like.device), None)


def copysign(input, other) -> Tensor:
    """``|input|`` with the sign of ``other``; ``other`` gets a zero gradient, as in PyTorch."""
    input, other = _pair(input, other, "copysign")
    if not input.dtype.is_floating_point:
        input = input.to(torch.get_default_dtype())
    return Copysign.apply(input, _as_float_tensor(other, input))


def float_power(input, exponent) -> Tensor:
    """``pow`` computed in double precision (the result is float64, complex128 for a complex operand)."""
    if not isinstance(input, TENSOR_TYPES):
        exponent = tensor_arg(exponent, "float_power", "exponent", 2)
        if isinstance(input, complex) or exponent.dtype.is_complex:
            return _pow(complex(input), exponent.to(torch.complex128))
        return _pow(float(input), exponent.to(torch.float64))
    input = tensor_arg(input, "float_power")
    if isinstance(exponent, TENSOR_TYPES):
        exponent = tensor_arg(exponent, "float_power", "exponent", 2)
        double = torch.complex128 if input.dtype.is_complex or exponent.dtype.is_complex else torch.float64
        return _pow(input.to(double), exponent.to(double))
    if input.dtype.is_complex or isinstance(exponent, complex):
        return _pow(input.to(torch.complex128), complex(exponent))
    return _pow(input.to(torch.float64), float(exponent))


def ldexp(input, other) -> Tensor:
    """``input * 2 ** other``."""
    input, other = _pair(input, other, "ldexp")
    if isinstance(other, Tensor) and other._data.dtype == torch.bool:  # torch's kernel has no bool exponent
        torch.ldexp(input._data, other._data)  # raises torch's NotImplementedError
    return mul(input, _pow(2.0, other))


def logaddexp2(input, other) -> Tensor:
    input, other = _pair(input, other, "logaddexp2")
    return binary(LogAddExp2, input, other)


def fmax(input, other) -> Tensor:
    """The elementwise maximum, ignoring NaN (NaN only where both are)."""
    input, other = _pair(input, other, "fmax")
    if not isinstance(other, TENSOR_TYPES):
        raise not_a_tensor("fmax", other, "other", 2)
    return FMaxMin.apply(input, other, True)


def fmin(input, other) -> Tensor:
    """The elementwise minimum, ignoring NaN (NaN only where both are)."""
    input, other = _pair(input, other, "fmin")
    if not isinstance(other, TENSOR_TYPES):
        raise not_a_tensor("fmin", other, "other", 2)
    return FMaxMin.apply(input, other, False)


def heaviside(input, values) -> Tensor:
    """The Heaviside step; its backward raises (PyTorch has no derivative)."""
    input, values = _pair(input, values, "heaviside")
    return NoDerivative.apply(torch.heaviside, input, values)


def nextafter(input, other) -> Tensor:
    """The next float after ``input`` towards ``other``; the gradient is ``input``'s, as PyTorch's."""
    input, other = _pair(input, other, "nextafter")
    return NextAfter.apply(input, other)


def frexp(input: Tensor):
    """``(mantissa, exponent)`` with ``input = mantissa * 2 ** exponent``."""
    out = Frexp.apply(tensor_arg(input, "frexp"))
    return torch.return_types.frexp(out)


def nan_to_num(input: Tensor, nan: float = 0.0, posinf: float | None = None, neginf: float | None = None) -> Tensor:
    """NaN, +inf and -inf replaced by ``nan``, ``posinf`` and ``neginf`` (the dtype's extremes by default)."""
    return NanToNum.apply1(tensor_arg(input, "nan_to_num"), nan, posinf, neginf)


def angle(input: Tensor) -> Tensor:
    input = tensor_arg(input, "angle")
    if input.dtype.is_complex:
        return _complex("angle", input)
    if not input.dtype.is_floating_point:
        input = input.to(torch.get_default_dtype())
    return Angle.apply1(input)


def sgn(input: Tensor) -> Tensor:
    """The sign (real tensors: ``sign``)."""
    from .math import sign

    input = tensor_arg(input, "sgn")
    return _complex("sgn", input) if input.dtype.is_complex else sign(input)


def _complex(name: str, input: Tensor) -> Tensor:
    """torch's ``name`` of a complex tensor, unrecorded: complex tensors never require grad here."""
    return Tensor._make(getattr(torch, name)(input._data), None)


def _identity(name: str, doc: str):
    def function(input: Tensor) -> Tensor:
        input = tensor_arg(input, name)
        return _complex(name, input) if input.dtype.is_complex else input

    function.__name__ = function.__qualname__ = name
    function.__doc__ = doc
    return function


real = _identity("real", "The real part: the tensor itself for a real tensor.")
conj = _identity("conj", "The conjugate: the tensor itself for a real tensor.")
resolve_conj = _identity("resolve_conj", "The tensor itself (real tensors have no lazy conjugation).")
resolve_neg = _identity("resolve_neg", "The tensor itself (real tensors have no lazy negation).")


def positive(input: Tensor) -> Tensor:
    """``+input``: the tensor itself."""
    input = tensor_arg(input, "positive")
    if input.dtype == torch.bool:
        raise NotImplementedError("The `+` operator, on a bool tensor is not supported.")
    return input


def conj_physical(input: Tensor) -> Tensor:
    """The conjugate as a new tensor (a copy, for a real tensor)."""
    input = tensor_arg(input, "conj_physical")
    return _complex("conj_physical", input) if input.dtype.is_complex else clone(input)


def deg2rad(input: Tensor) -> Tensor:
    return mul(_floating(tensor_arg(input, "deg2rad")), math.pi / 180)


def rad2deg(input: Tensor) -> Tensor:
    return mul(_floating(tensor_arg(input, "rad2deg")), 180 / math.pi)


def _floating(t: Tensor) -> Tensor:
    return t if t.dtype.is_floating_point else t.to(torch.get_default_dtype())


def true_divide(input, other) -> Tensor:
    return div(input, other)


def addcmul(input: Tensor, tensor1: Tensor, tensor2: Tensor, *, value=1) -> Tensor:
    """``input + value * tensor1 * tensor2``."""
    input = tensor_arg(input, "addcmul")
    product = mul(tensor_arg(tensor1, "addcmul", "tensor1", 2), tensor_arg(tensor2, "addcmul", "tensor2", 3))
    return add(input, product if value == 1 else mul(product, value))


def addcdiv(input: Tensor, tensor1: Tensor, tensor2: Tensor, *, value=1) -> Tensor:
    """``input + value * tensor1 / tensor2``."""
    input = tensor_arg(input, "addcdiv")
    tensor1, tensor2 = tensor_arg(tensor1, "addcdiv", "tensor1", 2), tensor_arg(tensor2, "addcdiv", "tensor2", 3)
    if not (tensor1.dtype.is_floating_point or tensor2.dtype.is_floating_point):
        raise RuntimeError(
            "Integer division with addcdiv is no longer supported, and in a future release addcdiv will perform "
            "a true division of tensor1 and tensor2. The historic addcdiv behavior can be implemented as "
            "(input + value * torch.trunc(tensor1 / tensor2)).to(input.dtype) for integer inputs and as "
            "(input + value * tensor1 / tensor2) for float inputs. The future addcdiv behavior is just the "
            "latter implementation: (input + value * tensor1 / tensor2), for all dtypes."
        )
    quotient = div(tensor1, tensor2)
    return add(input, quotient if value == 1 else mul(quotient, value))


def _test(kernel, name: str):
    def function(input: Tensor) -> Tensor:
        return _not_differentiable(kernel(tensor_arg(input, name)._data))

    function.__name__ = function.__qualname__ = name
    function.__doc__ = f"As ``torch.{name}``: a boolean tensor, no gradient."
    return function


signbit = _test(torch.signbit, "signbit")
isposinf = _test(torch.isposinf, "isposinf")
isneginf = _test(torch.isneginf, "isneginf")
isreal = _test(torch.isreal, "isreal")


def fill(input: Tensor, value) -> Tensor:
    """A tensor of ``input``'s shape filled with ``value`` (a number or a 0-dim tensor, which gets
    the summed gradient; ``input`` gets none)."""
    input = tensor_arg(input, "fill")
    if isinstance(value, TENSOR_TYPES):
        value = tensor_arg(value, "fill", "value", 2)
        if value.dim() != 0:
            raise RuntimeError(
                f"fill_ only supports 0-dimension value tensor but got tensor with {value.dim()} dimensions."
            )
        value = value.to(input.dtype)
    elif not isinstance(value, numbers.Number):
        raise TypeError(
            f"fill() received an invalid combination of arguments - got (Tensor, {type(value).__name__}), but "
            "expected one of: (Tensor input, Tensor value), (Tensor input, Number value)"
        )
    everywhere = Tensor._make(torch.ones(input.shape, dtype=torch.bool, device=input.device), None)
    return where(everywhere, value, input)
