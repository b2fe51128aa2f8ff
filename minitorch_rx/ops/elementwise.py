"""Elementwise arithmetic: one Function per op. Broadcasting is undone by the engine."""

from __future__ import annotations

import torch

from ..autograd.function import ConstantOp, Function
from ..autograd.tensor import Tensor, detach_torch, is_torch_data
from .autocast import state as autocast_state
from .autocast import to_float32_on_gpu
from .constants import _cache as _constants
from .constants import dtype_name, not_a_tensor, operand, tensor_arg


def binary(fn: type[Function], a: object, b: object) -> Tensor:
    """Apply a two-operand op where either operand may be a Python scalar."""
    if isinstance(a, Tensor):
        kind = type(b)
        if kind is float or kind is int:
            # The hot path, a Python number already cached as a constant: one frame fewer than operand().
            table = _constants.get(a._data.dtype)
            constant = None if table is None else table.get(b)
            if constant is not None:
                with_constant = _WITH_CONSTANT.get(fn)
                return fn.apply1(a, constant) if with_constant is None else with_constant.apply(a, constant)
        b = operand(b, a._data)
        # a complex scalar takes apply's path, whose check refuses a complex result in the graph
        return fn.apply(a, b) if isinstance(b, Tensor) or type(b) is complex else fn.apply1(a, b)
    if isinstance(b, Tensor):
        return fn.apply(operand(a, b._data), b)
    raise not_a_tensor(fn.__name__.lower(), a)


class Add(Function):
    broadcasting = True
    _wrapped_scalars = True

    @staticmethod
    def forward(ctx, a, b):
        return a + b

    @staticmethod
    def backward(ctx, grad):
        return grad, grad


class Sub(Function):
    broadcasting = True
    _wrapped_scalars = True

    @staticmethod
    def forward(ctx, a, b):
        return a - b

    @staticmethod
    def backward(ctx, grad):
        return grad, -grad if ctx.needs_input_grad[1] else None


class Mul(Function):
    broadcasting = True
    _wrapped_scalars = True

    @staticmethod
    def forward(ctx, a, b):
        need_a, need_b = ctx.needs_input_grad
        ctx.save_for_backward(b if need_a else None, a if need_b else None)
        return a * b

    @staticmethod
    def backward(ctx, grad):
        b, a = ctx.saved_tensors
        return (grad * b if b is not None else None), (grad * a if a is not None else None)


class Div(Function):
    broadcasting = True
    _wrapped_scalars = True

    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(a if ctx.needs_input_grad[1] else None, b)
        return a / b

    @staticmethod
    def backward(ctx, grad):
        a, b = ctx.saved_tensors
        grad_a = grad / b if ctx.needs_input_grad[0] else None
        # PyTorch's order: b * b overflows float16 from |b| = 256 where a / b / b does not
        grad_b = -grad * (a / b / b) if a is not None else None
        return grad_a, grad_b


class DivRounding(Function):
    """``div(a, b, rounding_mode="floor" | "trunc")``: a step function, whose gradient PyTorch
    gives as zeros."""

    @staticmethod
    def forward(ctx, a, b, rounding_mode):
        ctx.shapes = a.shape, b.shape if is_torch_data(b) else None
        return torch.div(a, b, rounding_mode=rounding_mode)

    @staticmethod
    def backward(ctx, grad):
        a_shape, b_shape = ctx.shapes
        return grad.new_zeros(a_shape), None if b_shape is None else grad.new_zeros(b_shape), None


class AddConstant(ConstantOp):
    _recorded_as = "Add"
    _passes_gradient = True
    kernel = torch.Tensor.add

    @staticmethod
    def backward(ctx, grad):
        return grad, None


class SubConstant(ConstantOp):
    _recorded_as = "Sub"
    _passes_gradient = True
    kernel = torch.Tensor.sub

    @staticmethod
    def backward(ctx, grad):
        return grad, None


class MulConstant(ConstantOp):
    _recorded_as = "Mul"
    kernel = torch.Tensor.mul
    grad_kernel = torch.Tensor.mul

    @staticmethod
    def backward(ctx, grad):
        return grad.mul(ctx.constant), None


class DivConstant(ConstantOp):
    _recorded_as = "Div"
    kernel = torch.Tensor.div
    grad_kernel = torch.Tensor.div

    @staticmethod
    def backward(ctx, grad):
        return grad.div(ctx.constant), None


#: ``x op c`` for a cached constant ``c`` runs as the op's ``ConstantOp``.
_WITH_CONSTANT = {Add: AddConstant, Sub: SubConstant, Mul: MulConstant, Div: DivConstant}


def operator_method(fn: type[Function], name: str):
    """The Tensor method ``name`` (``__add__``, ...) of ``fn``: ``binary``, with its hot path (a
    cached constant operand) recorded inline by the op's ``ConstantOp`` (``ConstantOp.operator``)."""

    def fallback(self: Tensor, other) -> Tensor:
        return binary(fn, self, other)

    return _WITH_CONSTANT[fn].operator(_constants, fallback, name)


class Neg(Function):
    @staticmethod
    def forward(ctx, x):
        return torch.neg(x)

    @staticmethod
    def backward(ctx, grad):
        return -grad


class Pow(Function):
    broadcasting = True

    @staticmethod
    def forward(ctx, base, exponent):
        out = base**exponent
        ctx.save_for_backward(base, exponent, out)
        return out

    @staticmethod
    def backward(ctx, grad):
        base, exponent, out = ctx.saved_tensors
        need_base, need_exponent = ctx.needs_input_grad
        grad_base = grad_exponent = None
        if need_base:
            if isinstance(exponent, (torch.Tensor, Tensor)):
                grad_base = torch.where(_data(exponent) == 0, 0.0, grad * (exponent * base ** (exponent - 1)))
            elif exponent == 0:
                grad_base = torch.zeros_like(grad)
            else:
                grad_base = grad * (exponent * base ** (exponent - 1))  # PyTorch's order: no grad * exponent overflow
        if need_exponent:
            if not isinstance(base, (torch.Tensor, Tensor)):  # a Python number: 2 ** x
                base = torch.as_tensor(base, dtype=out.dtype, device=out.device)
            zero_base = (_data(base) == 0) & (_data(exponent) >= 0)
            grad_exponent = grad * torch.where(zero_base, 0.0, out * torch.log(base))
        return grad_base, grad_exponent


class Abs(Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return torch.abs(x)

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad * x.sgn()


class Exp(Function):
    @staticmethod
    def forward(ctx, x):
        y = torch.exp(x)
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx, grad):
        (y,) = ctx.saved_tensors
        return grad * y


class Log(Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return torch.log(x)

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad / x


class Sqrt(Function):
    @staticmethod
    def forward(ctx, x):
        y = torch.sqrt(x)
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx, grad):
        (y,) = ctx.saved_tensors
        return grad / (2 * y)


class Sin(Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return torch.sin(x)

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad * x.cos()


class Cos(Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return torch.cos(x)

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return -grad * x.sin()


class Clamp(Function):
    _node_name = "ClampBackward1"  # PyTorch's name for this node

    @staticmethod
    def forward(ctx, x, min, max):
        ctx.save_for_backward(x)
        ctx.bounds = (min, max)
        return torch.clamp(x, min, max)

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        x = _data(x)  # the mask is a constant under create_graph too
        low, high = ctx.bounds
        # Strict, as PyTorch: a value on a bound gets no gradient.
        if low is not None and high is not None:
            mask = (x > low) & (x < high)
        elif low is not None:
            mask = x > low
        else:
            mask = x < high
        return torch.where(mask, grad, 0.0), None, None


class Maximum(Function):
    broadcasting = True

    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(a, b)
        return torch.maximum(a, b)

    @staticmethod
    def backward(ctx, grad):
        a, b = ctx.saved_tensors
        return _select_grads(ctx, grad, a, b, a < b, a > b)


class Minimum(Function):
    broadcasting = True

    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(a, b)
        return torch.minimum(a, b)

    @staticmethod
    def backward(ctx, grad):
        a, b = ctx.saved_tensors
        return _select_grads(ctx, grad, a, b, a > b, a < b)


def _data(t):
    """The torch data of ``t`` (an mt.Tensor under ``create_graph``), for masks and tests."""
    return t._data if isinstance(t, Tensor) else t


def _select_grads(ctx, grad, a, b, a_loses, b_loses):
    """maximum/minimum, as PyTorch: ties split the gradient evenly, and the loser's is zeroed (so a
    NaN, which neither wins nor ties, passes the whole gradient to both inputs)."""
    shared = (grad / 2).where(a == b, grad)
    grad_a = _zero_where(a_loses, shared) if ctx.needs_input_grad[0] else None
    grad_b = _zero_where(b_loses, shared) if ctx.needs_input_grad[1] else None
    return grad_a, grad_b


def _zero_where(mask, x):
    """``x.masked_fill(mask, 0)`` for raw gradients and recorded ones alike (zeros even where ``x`` is infinite)."""
    return where(mask, 0.0, x) if isinstance(x, Tensor) else torch.where(mask, 0.0, x)


class Clone(Function):
    _passes_gradient = True

    @staticmethod
    def forward(ctx, x, memory_format):
        return x.clone(memory_format=memory_format)

    @staticmethod
    def backward(ctx, grad):
        return grad, None


class Where(Function):
    broadcasting = True

    @staticmethod
    def forward(ctx, condition, a, b):
        ctx.save_for_backward(condition)
        return torch.where(condition, a, b)

    @staticmethod
    def backward(ctx, grad):
        (condition,) = ctx.saved_tensors
        grad_a = torch.where(condition, grad, 0.0) if ctx.needs_input_grad[1] else None
        grad_b = torch.where(condition, 0.0, grad) if ctx.needs_input_grad[2] else None
        return None, grad_a, grad_b


# PyTorch's nodes for the other overloads: x ** y, 2 ** x and 2 - x list only their tensors.
_PowTensors = Pow.overload("PowBackward1")
_PowOfNumber = Pow.overload("PowBackward2", listed_inputs=(1,))
_Rsub = Sub.overload("RsubBackward1", listed_inputs=(1,))


# ------------------------------------------------------------------ public functions
def add(input, other, *, alpha=1) -> Tensor:
    return binary(Add, input, other if alpha == 1 else other * alpha)


def sub(input, other, *, alpha=1) -> Tensor:
    op = Sub if isinstance(input, Tensor) else _Rsub  # 2 - x
    return binary(op, input, other if alpha == 1 else other * alpha)


def rsub(input, other, *, alpha=1) -> Tensor:
    """``other - alpha * input``."""
    if not isinstance(input, (Tensor, torch.Tensor)):
        raise not_a_tensor("rsub", input)
    return binary(Sub if isinstance(other, Tensor) else _Rsub, other, input if alpha == 1 else input * alpha)


def mul(input, other) -> Tensor:
    return binary(Mul, input, other)


def div(input, other, *, rounding_mode: str | None = None) -> Tensor:
    if rounding_mode is None:
        return binary(Div, input, other)
    input = input if isinstance(input, Tensor) else tensor_arg(input, "div")
    return DivRounding.apply(input, operand(other, input._data), rounding_mode)


def neg(input: Tensor) -> Tensor:
    return Neg.apply(input)


def pow(input, exponent) -> Tensor:
    if autocast_state.active:
        input, exponent = to_float32_on_gpu(input, exponent)
    if isinstance(input, Tensor):
        if not isinstance(exponent, (Tensor, torch.Tensor)):
            return Pow.apply(input, exponent)  # a Python exponent stays a scalar: x ** 2 is exact
        return binary(_PowTensors, input, exponent)
    return binary(_PowOfNumber, input, exponent)


def abs(input: Tensor) -> Tensor:
    return Abs.apply(input)


def exp(input: Tensor) -> Tensor:
    if autocast_state.active:
        (input,) = to_float32_on_gpu(input)
    return Exp.apply(input)


def log(input: Tensor) -> Tensor:
    if autocast_state.active:
        (input,) = to_float32_on_gpu(input)
    return Log.apply(input)


def sqrt(input: Tensor) -> Tensor:
    return Sqrt.apply(input)


def sin(input: Tensor) -> Tensor:
    return Sin.apply(input)


def cos(input: Tensor) -> Tensor:
    return Cos.apply(input)


def clamp(input: Tensor, min=None, max=None) -> Tensor:
    if min is None and max is None:
        raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
    if isinstance(min, Tensor) or isinstance(max, Tensor):
        # PyTorch's clamp with tensor bounds is minimum(maximum(x, min), max): ties split the gradient.
        out = input if min is None else maximum(input, _tensor_operand(min, input, "clamp"))
        return out if max is None else minimum(out, _tensor_operand(max, input, "clamp"))
    return Clamp.apply(input, min, max)


def maximum(input: Tensor, other: Tensor) -> Tensor:
    input = tensor_arg(input, "maximum")
    return binary(Maximum, input, tensor_arg(other, "maximum", "other", 2))


def minimum(input: Tensor, other: Tensor) -> Tensor:
    input = tensor_arg(input, "minimum")
    return binary(Minimum, input, tensor_arg(other, "minimum", "other", 2))


def _tensor_operand(value, like, function: str):
    """A clamp bound as a tensor: a number becomes one of ``like``'s dtype and device."""
    if isinstance(value, (Tensor, torch.Tensor)):
        return value
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise not_a_tensor(function, value, "other", 2)
    return torch.tensor(value, dtype=like._data.dtype, device=like._data.device)


def clone(input: Tensor, *, memory_format: torch.memory_format = torch.preserve_format) -> Tensor:
    """A copy of ``input`` (new memory), recorded: its gradient flows back unchanged."""
    if not isinstance(input, Tensor):
        if not is_torch_data(input):
            raise not_a_tensor("clone", input)
        input = Tensor._make(input, None)
    return Clone.apply1(input, memory_format)


def where(condition, input=None, other=None) -> Tensor:
    """``input`` where ``condition`` holds, else ``other``; ``where(condition)`` alone is
    ``nonzero(condition, as_tuple=True)``, as torch's."""
    if input is None and other is None:
        from .index import nonzero

        return nonzero(tensor_arg(condition, "where", "condition"), as_tuple=True)
    condition = condition._data if isinstance(condition, Tensor) else condition
    if not is_torch_data(condition):
        raise not_a_tensor("where", condition, "condition")
    if condition.dtype != torch.bool:
        raise RuntimeError(
            "where expected condition to be a boolean tensor, but got a tensor with dtype "
            + dtype_name(condition.dtype)
        )
    like = input if isinstance(input, Tensor) else other
    if not isinstance(like, Tensor):  # torch tensors and numbers only: used detached
        input, other = (detach_torch(v) if is_torch_data(v) else v for v in (input, other))
        return Tensor._make(torch.where(condition, input, other), None)
    return Where.apply(condition, operand(input, like._data), operand(other, like._data))
