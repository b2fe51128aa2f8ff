"""Piecewise activations: ``hardtanh`` (``relu6``), ``hardsigmoid``, ``hardswish``, ``threshold``,
``softshrink``, ``hardshrink``, ``prelu`` and ``rrelu``.

Forward runs torch's kernel; backward multiplies by the piece's slope, picked with comparisons
of the saved input (constants), so the same formula runs on raw data and, under
``create_graph=True``, on recorded tensors. Gradients at the breakpoints are PyTorch's.
"""

from __future__ import annotations

import numbers

import torch
import torch.nn.functional as torch_functional

from ..autograd.function import Function
from ..autograd.tensor import Tensor
from .activation import leaky_relu
from .constants import tensor_arg
from .inplace import overwrite


def _check(function: str, input: object) -> Tensor:
    return tensor_arg(input, function)


def _check_number(function: str, value: object, argument: str, position: int) -> None:
    if not isinstance(value, numbers.Number) or isinstance(value, bool):
        raise TypeError(
            f"{function}(): argument '{argument}' (position {position}) must be Number, not {type(value).__name__}"
        )


class Hardtanh(Function):
    @staticmethod
    def forward(ctx, x, min_val, max_val):
        ctx.save_for_backward(x)
        ctx.bounds = (min_val, max_val)
        return torch_functional.hardtanh(x, min_val, max_val)

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        min_val, max_val = ctx.bounds
        return grad * ((x > min_val) * (x < max_val)), None, None


class Hardsigmoid(Function):
    """``relu6(x + 3) / 6``."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return torch_functional.hardsigmoid(x)

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad * ((x > -3.0) * (x < 3.0)) / 6.0


class Hardswish(Function):
    """``x * relu6(x + 3) / 6``."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return torch_functional.hardswish(x)

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        slope = (x / 3.0 + 0.5).where(x <= 3.0, 1.0).where(x >= -3.0, 0.0)
        return grad * slope


class Threshold(Function):
    @staticmethod
    def forward(ctx, x, threshold, value):
        ctx.save_for_backward(x)
        ctx.threshold = threshold
        return torch_functional.threshold(x, threshold, value)

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad * (x > ctx.threshold), None, None


class Shrink(Function):
    """``softshrink`` and ``hardshrink``: both pass the gradient where ``|x| > lambd``."""

    @staticmethod
    def forward(ctx, x, lambd, soft):
        ctx.save_for_backward(x)
        ctx.lambd = lambd
        return torch_functional.softshrink(x, lambd) if soft else torch_functional.hardshrink(x, lambd)

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad * ((x < -ctx.lambd) + (x > ctx.lambd)), None, None


class PReLU(Function):
    """``x`` where ``x > 0``, ``weight * x`` elsewhere; ``weight`` comes shaped to broadcast along
    the channel dim, and the engine sums its gradient back to that shape."""

    broadcasting = True

    @staticmethod
    def forward(ctx, x, weight):
        ctx.save_for_backward(x, weight)
        return torch.where(x > 0, x, weight * x)

    @staticmethod
    def backward(ctx, grad):
        x, weight = ctx.saved_tensors
        need_x, need_weight = ctx.needs_input_grad
        negative = x <= 0
        grad_x = grad * weight.where(negative, 1.0) if need_x else None
        grad_weight = (grad * x).where(negative, 0.0) if need_weight else None
        return grad_x, grad_weight


class RReLUTrain(Function):
    """Randomized leaky ReLU in training: each negative element gets its own slope drawn from
    ``U(lower, upper)`` by torch's ``rrelu_with_noise`` (so the draws are PyTorch's)."""

    @staticmethod
    def forward(ctx, x, lower, upper):
        noise = torch.empty_like(x)
        y = torch.ops.aten.rrelu_with_noise(x, noise, lower, upper, True)
        ctx.save_for_backward(noise)
        return y

    @staticmethod
    def backward(ctx, grad):
        (noise,) = ctx.saved_tensors
        return grad * noise, None, None


def hardtanh(input: Tensor, min_val: float = -1.0, max_val: float = 1.0, inplace: bool = False) -> Tensor:
    """``input`` clamped to ``[min_val, max_val]``; gradient 1 strictly inside, 0 elsewhere.

    >>> import minitorch_rx as mt
    >>> hardtanh(mt.tensor([-2.0, 0.5, 3.0])).tolist()
    [-1.0, 0.5, 1.0]
    """
    input = _check("hardtanh", input)
    if min_val > max_val:
        raise ValueError("min_val cannot be greater than max_val")
    if inplace:
        return overwrite(input, hardtanh, min_val, max_val)
    return Hardtanh.apply(input, min_val, max_val)


def relu6(input: Tensor, inplace: bool = False) -> Tensor:
    """``min(max(x, 0), 6)`` (``hardtanh(x, 0, 6)``).

    >>> import minitorch_rx as mt
    >>> relu6(mt.tensor([-1.0, 3.0, 7.0])).tolist()
    [0.0, 3.0, 6.0]
    """
    input = _check("relu6", input)
    return hardtanh(input, 0.0, 6.0, inplace)


def hardsigmoid(input: Tensor, inplace: bool = False) -> Tensor:
    """``relu6(x + 3) / 6``: 0 below -3, 1 above 3, linear between.

    >>> import minitorch_rx as mt
    >>> hardsigmoid(mt.tensor([-4.0, 0.0, 4.0])).tolist()
    [0.0, 0.5, 1.0]
    """
    input = _check("hardsigmoid", input)
    return overwrite(input, hardsigmoid) if inplace else Hardsigmoid.apply(input)


def hardswish(input: Tensor, inplace: bool = False) -> Tensor:
    """``x * relu6(x + 3) / 6`` (MobileNetV3's).

    >>> import minitorch_rx as mt
    >>> hardswish(mt.tensor([-4.0, 0.0, 4.0])).tolist()
    [-0.0, 0.0, 4.0]
    """
    input = _check("hardswish", input)
    return overwrite(input, hardswish) if inplace else Hardswish.apply(input)


def threshold(input: Tensor, threshold: float, value: float, inplace: bool = False) -> Tensor:
    """``x`` where ``x > threshold``, ``value`` elsewhere.

    >>> import minitorch_rx as mt
    >>> threshold(mt.tensor([0.5, 2.0]), 1.0, -1.0).tolist()
    [-1.0, 2.0]
    """
    input = _check("threshold", input)
    _check_number("threshold", threshold, "threshold", 2)
    _check_number("threshold", value, "value", 3)
    if inplace:
        return overwrite(input, _threshold, threshold, value)
    return Threshold.apply(input, threshold, value)


def _threshold(input: Tensor, threshold_: float, value: float) -> Tensor:
    return Threshold.apply(input, threshold_, value)


def _check_lambd(lambd: float, input: Tensor) -> None:
    if lambd < 0:
        name = torch.empty((), dtype=input._data.dtype).type().split(".")[-1].replace("Tensor", "")
        limit = torch.finfo(input._data.dtype).max if input._data.is_floating_point() else 0
        raise RuntimeError(f"lambda must be in range [0, {limit:g}] for input dtype {name}, but found {lambd:g}")


def softshrink(input: Tensor, lambd: float = 0.5) -> Tensor:
    """``x - lambd`` above ``lambd``, ``x + lambd`` below ``-lambd``, 0 between.

    >>> import minitorch_rx as mt
    >>> softshrink(mt.tensor([-1.0, 0.2, 1.0])).tolist()
    [-0.5, 0.0, 0.5]
    """
    input = _check("softshrink", input)
    _check_number("softshrink", lambd, "lambd", 2)
    _check_lambd(lambd, input)
    return Shrink.apply(input, lambd, True)


def hardshrink(input: Tensor, lambd: float = 0.5) -> Tensor:
    """``x`` where ``|x| > lambd``, 0 elsewhere.

    >>> import minitorch_rx as mt
    >>> hardshrink(mt.tensor([-1.0, 0.2, 1.0])).tolist()
    [-1.0, 0.0, 1.0]
    """
    input = _check("hardshrink", input)
    return Shrink.apply(input, lambd, False)


def prelu(input: Tensor, weight: Tensor) -> Tensor:
    """``x`` where ``x > 0``, ``weight * x`` elsewhere, with one learned slope per channel (dim 1;
    a 1-D input has one channel) or one shared slope (``weight`` of one element).

    >>> import minitorch_rx as mt
    >>> prelu(mt.tensor([[-2.0, 1.0]]), mt.tensor([0.25])).tolist()
    [[-0.5, 1.0]]
    """
    input = _check("prelu", input)
    weight = tensor_arg(weight, "prelu", "weight", 2)
    dims = input._data.dim()
    count = weight._data.numel()
    if dims == 0 and count != 1:
        raise RuntimeError("Not allow zero-dim input tensor.")
    if weight._data.dim() > 1:
        raise RuntimeError(
            f"prelu: Expected `weight` to be a scalar or 1D tensor, but got: ndim = {weight._data.dim()}"
        )
    channels = input._data.shape[1] if dims >= 2 else 1
    if count != 1 and count != channels:
        raise RuntimeError(
            "Mismatch of parameter numbers and input channel size. "
            f"Found parameter numbers = {count} and channel size = {channels}."
        )
    if count != 1 and dims >= 2:
        weight = weight.reshape(count, *([1] * (dims - 2)))
    elif dims == 0:  # one shared slope; a 0-dim input keeps its 0-dim output
        weight = weight.reshape(())
    return PReLU.apply(input, weight)


def rrelu(
    input: Tensor, lower: float = 1.0 / 8, upper: float = 1.0 / 3, training: bool = False, inplace: bool = False
) -> Tensor:
    """Randomized leaky ReLU: in training each negative element is scaled by a slope drawn from
    ``U(lower, upper)`` (torch's generator, so the same draws as PyTorch after the same seed); in
    evaluation the slope is ``(lower + upper) / 2``.

    >>> import minitorch_rx as mt
    >>> rrelu(mt.tensor([-3.0, 1.0]), 0.25, 0.75).tolist()
    [-1.5, 1.0]
    """
    input = _check("rrelu", input)
    _check_number("rrelu", lower, "lower", 2)
    _check_number("rrelu", upper, "upper", 3)
    if lower > upper:
        raise RuntimeError("Lower bound should be less than or equal to the upper bound")
    if inplace:
        return overwrite(input, rrelu, lower, upper, training)
    if not training:
        return leaky_relu(input, (lower + upper) / 2)
    return RReLUTrain.apply(input, lower, upper)
