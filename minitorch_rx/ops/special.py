"""Special functions (``torch.special`` and the ``torch`` names for them): gamma-family, error
functions, Bessel functions, normal distribution functions, ``xlogy`` and friends.

Derivatives are PyTorch's (``tools/autograd/derivatives.yaml``), written with operators and
with ``call`` of the Functions here, so that they run on torch data for first-order gradients and
are recorded under ``create_graph``. The orthogonal polynomials, most Bessel functions, Airy's
and Hurwitz's zeta (in its first argument) have no derivative in PyTorch; here their backward
raises as PyTorch's does.
"""

from __future__ import annotations

import math
import numbers

import torch

from ..autograd.function import Function, call
from ..autograd.tensor import Tensor
from .constants import TENSOR_TYPES, check_number, not_a_tensor, tensor_arg
from .elementwise import binary

_TWO_OVER_SQRT_PI = 2.0 / math.sqrt(math.pi)
_INV_SQRT_2PI = 1.0 / math.sqrt(2.0 * math.pi)
_SQRT_2PI = math.sqrt(2.0 * math.pi)


def _where(condition, value, otherwise):
    """``torch.where`` that also takes recorded mt.Tensors (under ``create_graph``)."""
    return torch.where(condition, value, otherwise)


def _data(t):
    return t._data if isinstance(t, Tensor) else t


class Lgamma(Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return torch.lgamma(x)

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad * call(Digamma, x)


class Digamma(Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return torch.digamma(x)

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad * call(Polygamma, x, 1)


class Polygamma(Function):
    """``polygamma(n, x)``, with ``x`` first (the tensor) as Functions take it."""

    @staticmethod
    def forward(ctx, x, n):
        ctx.save_for_backward(x)
        ctx.n = n
        return torch.polygamma(n, x)

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad * call(Polygamma, x, ctx.n + 1), None


class Mvlgamma(Function):
    @staticmethod
    def forward(ctx, x, p):
        ctx.save_for_backward(x)
        ctx.p = p
        return torch.mvlgamma(x, p)

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        offsets = torch.arange(ctx.p, dtype=_data(x).dtype, device=_data(x).device) / 2
        return grad * call(Digamma, x.unsqueeze(-1) - offsets).sum(-1), None


class Erfc(Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return torch.erfc(x)

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad * (-(x * x)).exp() * -_TWO_OVER_SQRT_PI


class Erfcx(Function):
    @staticmethod
    def forward(ctx, x):
        y = torch.special.erfcx(x)
        ctx.save_for_backward(x, y)
        return y

    @staticmethod
    def backward(ctx, grad):
        x, y = ctx.saved_tensors
        return grad * (x * y * 2 - _TWO_OVER_SQRT_PI)


class I0(Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return torch.i0(x)

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad * call(I1, x)


class I0e(Function):
    @staticmethod
    def forward(ctx, x):
        y = torch.special.i0e(x)
        ctx.save_for_backward(x, y)
        return y

    @staticmethod
    def backward(ctx, grad):
        x, y = ctx.saved_tensors
        return grad * (call(I1e, x) - x.sign() * y)


class I1(Function):
    @staticmethod
    def forward(ctx, x):
        y = torch.special.i1(x)
        ctx.save_for_backward(x, y)
        return y

    @staticmethod
    def backward(ctx, grad):
        x, y = ctx.saved_tensors
        zero = _data(x) == 0
        safe_x = _where(zero, 1.0, x)
        return grad * _where(zero, 0.5, call(I0, x) - y / safe_x)


class I1e(Function):
    @staticmethod
    def forward(ctx, x):
        y = torch.special.i1e(x)
        ctx.save_for_backward(x, y)
        return y

    @staticmethod
    def backward(ctx, grad):
        x, y = ctx.saved_tensors
        zero = _data(x) == 0
        safe_x = _where(zero, 1.0, x)
        return grad * _where(zero, 0.5, call(I0e, x) - y * (x.sign() + 1 / safe_x))


class Ndtr(Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return torch.special.ndtr(x)

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad * (x * x * -0.5).exp() * _INV_SQRT_2PI


class Ndtri(Function):
    @staticmethod
    def forward(ctx, x):
        y = torch.special.ndtri(x)
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx, grad):
        (y,) = ctx.saved_tensors
        return grad * (y * y * 0.5).exp() * _SQRT_2PI


class LogNdtr(Function):
    @staticmethod
    def forward(ctx, x):
        y = torch.special.log_ndtr(x)
        ctx.save_for_backward(x, y)
        return y

    @staticmethod
    def backward(ctx, grad):
        x, y = ctx.saved_tensors
        return grad * (x * x * -0.5 - y).exp() * _INV_SQRT_2PI


class Entr(Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return torch.special.entr(x)

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad * -(x.log() + 1)


class Sinc(Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return torch.sinc(x)

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        zero = _data(x) == 0
        pix = _where(zero, 1.0, x) * math.pi
        return grad * _where(zero, 0.0, (pix * pix.cos() - pix.sin()) / (pix * _where(zero, 1.0, x)))


class Logit(Function):
    @staticmethod
    def forward(ctx, x, eps):
        ctx.save_for_backward(x)
        ctx.eps = eps
        return torch.logit(x, eps)

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        data, eps = _data(x), ctx.eps
        if eps is None:
            outside, fill = (data < 0) | (data > 1), math.nan
        else:
            outside, fill = (data < eps) | (data > 1 - eps), 0.0
        return _where(outside, fill, grad / (x * (1 - x))), None


class XLogY(Function):
    broadcasting = True

    @staticmethod
    def forward(ctx, x, y):
        ctx.save_for_backward(x, y)
        return torch.xlogy(x, y)

    @staticmethod
    def backward(ctx, grad):
        x, y = ctx.saved_tensors
        need_x, need_y = ctx.needs_input_grad
        grad_x = grad_y = None
        if need_x:
            grad_x = _where((_data(x) == 0) & (_data(y) <= 0), 0.0, call(XLogY, grad, y))
        if need_y:
            grad_y = grad * x / y
        return grad_x, grad_y


class XLog1pY(Function):
    broadcasting = True

    @staticmethod
    def forward(ctx, x, y):
        ctx.save_for_backward(x, y)
        return torch.special.xlog1py(x, y)

    @staticmethod
    def backward(ctx, grad):
        x, y = ctx.saved_tensors
        need_x, need_y = ctx.needs_input_grad
        grad_x = grad_y = None
        if need_x:
            grad_x = _where((_data(x) == 0) & (_data(y) <= -1), 0.0, call(XLog1pY, grad, y))
        if need_y:
            grad_y = grad * x / (y + 1)
        return grad_x, grad_y


class Zeta(Function):
    """Hurwitz's zeta ``zeta(x, q)``: differentiable in ``q`` only, as PyTorch's."""

    broadcasting = True

    @staticmethod
    def forward(ctx, x, q):
        ctx.save_for_backward(x, q)
        return torch.special.zeta(x, q)

    @staticmethod
    def backward(ctx, grad):
        x, q = ctx.saved_tensors
        if ctx.needs_input_grad[0]:
            raise RuntimeError("the derivative for 'self' is not implemented.")
        return None, grad * -x * call(Zeta, x + 1, q)


class Igamma(Function):
    """The regularized lower incomplete gamma ``P(a, x)``; ``upper`` gives ``Q = 1 - P``.
    Differentiable in ``x`` only, as PyTorch's."""

    broadcasting = True

    @staticmethod
    def forward(ctx, a, x, upper):
        ctx.save_for_backward(a, x)
        ctx.upper = upper
        return torch.igammac(a, x) if upper else torch.igamma(a, x)

    @staticmethod
    def backward(ctx, grad):
        a, x = ctx.saved_tensors
        if ctx.needs_input_grad[0]:
            raise RuntimeError(
                f"the derivative for '{'igammac' if ctx.upper else 'igamma'}: input' is not implemented."
            )
        density = ((a - 1) * x.log() - x - call(Lgamma, a)).exp()
        return None, (-grad if ctx.upper else grad) * density, None


class NoDerivative(Function):
    """A special function that PyTorch does not differentiate: forward only."""

    broadcasting = True

    @staticmethod
    def forward(ctx, kernel, *args):
        ctx.name = kernel.__name__
        return kernel(*args)

    @staticmethod
    def backward(ctx, grad):
        raise RuntimeError(f"the derivative for '{ctx.name}' is not implemented.")


# ------------------------------------------------------------------ public functions
def _unary(cls: type[Function], name: str):
    def function(input: Tensor) -> Tensor:
        return cls.apply1(tensor_arg(input, name))

    function.__name__ = function.__qualname__ = name
    function.__doc__ = f"As ``torch.{name}``, differentiable."
    return function


lgamma = _unary(Lgamma, "lgamma")
digamma = _unary(Digamma, "digamma")
erfc = _unary(Erfc, "erfc")
erfcx = _unary(Erfcx, "erfcx")
i0 = _unary(I0, "i0")
i0e = _unary(I0e, "i0e")
i1 = _unary(I1, "i1")
i1e = _unary(I1e, "i1e")
ndtr = _unary(Ndtr, "ndtr")
ndtri = _unary(Ndtri, "ndtri")
log_ndtr = _unary(LogNdtr, "log_ndtr")
entr = _unary(Entr, "entr")
sinc = _unary(Sinc, "sinc")


def polygamma(n: int, input: Tensor) -> Tensor:
    """The ``n``-th derivative of the digamma function."""
    return Polygamma.apply1(tensor_arg(input, "polygamma", "input", 2), n)


def mvlgamma(input: Tensor, p: int) -> Tensor:
    """The multivariate log-gamma function of dimension ``p``."""
    input = tensor_arg(input, "mvlgamma")
    check_number(p, "mvlgamma", "p", integer=True)
    if p < 1:
        raise RuntimeError("p has to be greater than or equal to 1")
    if bool((input._data <= (p - 1) / 2).any()):
        raise RuntimeError(f"All elements must be greater than (p-1)/2 = {(p - 1) / 2}")
    return Mvlgamma.apply1(input, p)


def logit(input: Tensor, eps: float | None = None) -> Tensor:
    """``log(x / (1 - x))``, ``x`` clamped to ``[eps, 1 - eps]`` when ``eps`` is given."""
    return Logit.apply1(tensor_arg(input, "logit"), eps)


def _binary_args(input, other, name: str) -> tuple:
    if not isinstance(input, TENSOR_TYPES) and not isinstance(other, TENSOR_TYPES):
        raise not_a_tensor(name, input)
    for value, argument, position in ((input, "input", 1), (other, "other", 2)):
        if not isinstance(value, (*TENSOR_TYPES, numbers.Number)):
            raise not_a_tensor(name, value, argument, position)
    return (tensor_arg(input, name) if isinstance(input, TENSOR_TYPES) else input), (
        tensor_arg(other, name, "other", 2) if isinstance(other, TENSOR_TYPES) else other
    )


def _float_operand(value, other):
    """A Python number beside an integer tensor becomes a float tensor (torch's promotion for these ops)."""
    if isinstance(value, Tensor):
        return value
    like = other._data
    dtype = like.dtype if like.is_floating_point() else torch.get_default_dtype()
    return Tensor._make(torch.tensor(value, dtype=dtype, device=like.device), None)


def xlogy(input, other) -> Tensor:
    """``input * log(other)``, 0 where ``input`` is 0 (unless ``other`` is NaN)."""
    input, other = _binary_args(input, other, "xlogy")
    return binary(XLogY, _float_operand(input, other), other)


def xlog1py(input, other) -> Tensor:
    """``input * log1p(other)``, 0 where ``input`` is 0 (unless ``other`` is NaN)."""
    input, other = _binary_args(input, other, "xlog1py")
    return binary(XLog1pY, _float_operand(input, other), other)


def zeta(input, other) -> Tensor:
    """Hurwitz's zeta function."""
    input, other = _binary_args(input, other, "zeta")
    return binary(Zeta, _float_operand(input, other), other)


def igamma(input: Tensor, other: Tensor) -> Tensor:
    input, other = tensor_arg(input, "igamma"), tensor_arg(other, "igamma", "other", 2)
    return Igamma.apply(input, other, False)


def igammac(input: Tensor, other: Tensor) -> Tensor:
    input, other = tensor_arg(input, "igammac"), tensor_arg(other, "igammac", "other", 2)
    return Igamma.apply(input, other, True)


def _no_derivative(kernel, name: str, arity: int = 1):
    def function(*args) -> Tensor:
        if len(args) != arity:
            raise TypeError(f"{name}() takes {arity} arguments ({len(args)} given)")
        tensors = [a for a in args if isinstance(a, TENSOR_TYPES)]
        if not tensors:
            raise not_a_tensor(name, args[0])
        args = [tensor_arg(a, name) if isinstance(a, TENSOR_TYPES) else a for a in args]
        return NoDerivative.apply(kernel, *args)

    function.__name__ = function.__qualname__ = name
    function.__doc__ = f"As ``torch.special.{name}``; not differentiable (PyTorch has no derivative)."
    return function


airy_ai = _no_derivative(torch.special.airy_ai, "airy_ai")
bessel_j0 = _no_derivative(torch.special.bessel_j0, "bessel_j0")
bessel_j1 = _no_derivative(torch.special.bessel_j1, "bessel_j1")
bessel_y0 = _no_derivative(torch.special.bessel_y0, "bessel_y0")
bessel_y1 = _no_derivative(torch.special.bessel_y1, "bessel_y1")
modified_bessel_i0 = _no_derivative(torch.special.modified_bessel_i0, "modified_bessel_i0")
modified_bessel_i1 = _no_derivative(torch.special.modified_bessel_i1, "modified_bessel_i1")
modified_bessel_k0 = _no_derivative(torch.special.modified_bessel_k0, "modified_bessel_k0")
modified_bessel_k1 = _no_derivative(torch.special.modified_bessel_k1, "modified_bessel_k1")
scaled_modified_bessel_k0 = _no_derivative(torch.special.scaled_modified_bessel_k0, "scaled_modified_bessel_k0")
scaled_modified_bessel_k1 = _no_derivative(torch.special.scaled_modified_bessel_k1, "scaled_modified_bessel_k1")
spherical_bessel_j0 = _no_derivative(torch.special.spherical_bessel_j0, "spherical_bessel_j0")
chebyshev_polynomial_t = _no_derivative(torch.special.chebyshev_polynomial_t, "chebyshev_polynomial_t", 2)
chebyshev_polynomial_u = _no_derivative(torch.special.chebyshev_polynomial_u, "chebyshev_polynomial_u", 2)
chebyshev_polynomial_v = _no_derivative(torch.special.chebyshev_polynomial_v, "chebyshev_polynomial_v", 2)
chebyshev_polynomial_w = _no_derivative(torch.special.chebyshev_polynomial_w, "chebyshev_polynomial_w", 2)
hermite_polynomial_h = _no_derivative(torch.special.hermite_polynomial_h, "hermite_polynomial_h", 2)
hermite_polynomial_he = _no_derivative(torch.special.hermite_polynomial_he, "hermite_polynomial_he", 2)
laguerre_polynomial_l = _no_derivative(torch.special.laguerre_polynomial_l, "laguerre_polynomial_l", 2)
legendre_polynomial_p = _no_derivative(torch.special.legendre_polynomial_p, "legendre_polynomial_p", 2)
shifted_chebyshev_polynomial_t = _no_derivative(
    torch.special.shifted_chebyshev_polynomial_t, "shifted_chebyshev_polynomial_t", 2
)
shifted_chebyshev_polynomial_u = _no_derivative(
    torch.special.shifted_chebyshev_polynomial_u, "shifted_chebyshev_polynomial_u", 2
)
shifted_chebyshev_polynomial_v = _no_derivative(
    torch.special.shifted_chebyshev_polynomial_v, "shifted_chebyshev_polynomial_v", 2
)
shifted_chebyshev_polynomial_w = _no_derivative(
    torch.special.shifted_chebyshev_polynomial_w, "shifted_chebyshev_polynomial_w", 2
)
