"""Comparisons, value tests and logical/bitwise ops. None is differentiable (their results are
bool or integer tensors, as PyTorch's), so each runs torch's kernel on the data and records nothing."""

from __future__ import annotations

import torch

from ..autograd.function import Function
from ..autograd.tensor import Tensor
from .constants import TENSOR_TYPES, not_a_tensor, not_applicable, tensor_arg


def _data(value):
    return value._data if isinstance(value, Tensor) else value


def _untracked(torch_op, name: str, arity: int):
    """The mt function ``name`` running ``torch_op`` on the data of its ``arity`` tensor arguments."""
    if arity == 1:

        def function(input: Tensor) -> Tensor:
            if not isinstance(input, TENSOR_TYPES):
                raise not_a_tensor(name, input)
            return Tensor._make(torch_op(input._data if isinstance(input, Tensor) else input), None)

    else:

        def function(input: Tensor, other) -> Tensor:
            if not isinstance(input, TENSOR_TYPES):
                raise not_a_tensor(name, input)
            return Tensor._make(torch_op(_data(input), _data(other)), None)

    function.__name__ = function.__qualname__ = name
    function.__doc__ = f"As ``torch.{name}``: no gradient flows through the result."
    return function


eq = _untracked(torch.eq, "eq", 2)
ne = _untracked(torch.ne, "ne", 2)
lt = _untracked(torch.lt, "lt", 2)
le = _untracked(torch.le, "le", 2)
gt = _untracked(torch.gt, "gt", 2)
ge = _untracked(torch.ge, "ge", 2)
isnan = _untracked(torch.isnan, "isnan", 1)
isinf = _untracked(torch.isinf, "isinf", 1)
isfinite = _untracked(torch.isfinite, "isfinite", 1)
logical_not = _untracked(torch.logical_not, "logical_not", 1)
logical_and = _untracked(torch.logical_and, "logical_and", 2)
logical_or = _untracked(torch.logical_or, "logical_or", 2)
logical_xor = _untracked(torch.logical_xor, "logical_xor", 2)
bitwise_not = _untracked(torch.bitwise_not, "bitwise_not", 1)
bitwise_and = _untracked(torch.bitwise_and, "bitwise_and", 2)
bitwise_or = _untracked(torch.bitwise_or, "bitwise_or", 2)
bitwise_xor = _untracked(torch.bitwise_xor, "bitwise_xor", 2)
bitwise_left_shift = _untracked(torch.bitwise_left_shift, "bitwise_left_shift", 2)
bitwise_right_shift = _untracked(torch.bitwise_right_shift, "bitwise_right_shift", 2)
# PyTorch's aliases
greater, greater_equal, less, less_equal, not_equal = gt, ge, lt, le, ne


class Indicator(Function):
    """``t.eq_(other)`` and the other in-place comparisons while recording: the 0/1 result in
    ``t``'s dtype, with a zero gradient for ``t``'s old values, as PyTorch's."""

    broadcasting = True

    @staticmethod
    def forward(ctx, x, other, torch_op):
        return torch_op(x, other).to(x.dtype)

    @staticmethod
    def backward(ctx, grad):
        zeros = grad.new_zeros(grad.shape)
        return zeros, (zeros if ctx.needs_input_grad[1] else None), None


def indicator(torch_op):
    """The out-of-place form an in-place comparison records (see ``Indicator``)."""

    def out_of_place(input: Tensor, other) -> Tensor:
        return Indicator.apply(input, other, torch_op)

    return out_of_place


def comparison_operator(torch_op, name: str):
    """The Tensor operator ``name`` (``__lt__``, ``__and__``, ...): ``torch_op`` on the data.
    A non-tensor it cannot take gives ``NotImplemented``, so Python tries the other side."""

    def method(self: Tensor, other) -> Tensor:
        try:
            return Tensor._make(torch_op(self._data, _data(other)), None)
        except TypeError:
            return NotImplemented

    method.__name__ = name
    return method


def reflected_operator(torch_op, name: str):
    """``other OP self`` for a non-tensor ``other`` (``__rand__``, ...)."""

    def method(self: Tensor, other) -> Tensor:
        if not isinstance(self, Tensor):  # torch's is a C method
            raise not_applicable(name, self)
        return Tensor._make(torch_op(torch.as_tensor(other, device=self._data.device), self._data), None)

    method.__name__ = name
    return method


def invert(self: Tensor) -> Tensor:
    """``~t``: logical not of a bool tensor, bitwise not of an integer one."""
    data = self._data
    if data.is_floating_point() or data.is_complex():
        raise TypeError("~ (operator.invert) is only implemented on integer and Boolean-type tensors")
    return Tensor._make(torch.bitwise_not(data), None)


def all(input: Tensor, dim=None, keepdim: bool = False) -> Tensor:
    input = tensor_arg(input, "all")
    data = _data(input)
    return Tensor._make(data.all() if dim is None else data.all(dim, keepdim), None)


def any(input: Tensor, dim=None, keepdim: bool = False) -> Tensor:
    input = tensor_arg(input, "any")
    data = _data(input)
    return Tensor._make(data.any() if dim is None else data.any(dim, keepdim), None)


def isclose(input: Tensor, other, rtol: float = 1e-05, atol: float = 1e-08, equal_nan: bool = False) -> Tensor:
    input = tensor_arg(input, "isclose")
    other = tensor_arg(other, "isclose", "other", 2)
    return Tensor._make(torch.isclose(_data(input), _data(other), rtol, atol, equal_nan), None)


def allclose(input: Tensor, other, rtol: float = 1e-05, atol: float = 1e-08, equal_nan: bool = False) -> bool:
    """Whether every element of ``input`` is close to ``other``'s (a Python bool, as PyTorch's)."""
    input = tensor_arg(input, "allclose")
    other = tensor_arg(other, "allclose", "other", 2)
    return torch.allclose(_data(input), _data(other), rtol, atol, equal_nan)


def equal(input: Tensor, other: Tensor) -> bool:
    """Whether the two have the same shape and elements (a Python bool, as PyTorch's)."""
    input = tensor_arg(input, "equal")
    other = tensor_arg(other, "equal", "other", 2)
    return torch.equal(_data(input), _data(other))


def count_nonzero(input: Tensor, dim=None) -> Tensor:
    input = tensor_arg(input, "count_nonzero")
    return Tensor._make(torch.count_nonzero(_data(input), dim), None)


def isin(elements, test_elements, *, assume_unique: bool = False, invert: bool = False) -> Tensor:
    """Whether each of ``elements`` is among ``test_elements`` (either may be a number); no gradient."""
    if not isinstance(elements, TENSOR_TYPES) and not isinstance(test_elements, TENSOR_TYPES):
        raise not_a_tensor("isin", elements, "elements")
    out = torch.isin(_data(elements), _data(test_elements), assume_unique=assume_unique, invert=invert)
    return Tensor._make(out, None)
