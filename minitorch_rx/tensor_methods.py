"""The ops of ``mt.Tensor`` as methods and operators, in one table.

``Tensor`` (in ``autograd/``) knows nothing of ops; this module attaches exactly the ops that
``ops/`` defines, so a torch method the engine has no gradient for does not exist on the tensor.
"""

from __future__ import annotations

import torch

from .autograd.tensor import Tensor
from .ops import activation, elementwise, inplace, linalg, piecewise, reduce, shape


def _compare(torch_op):
    def compare(self: Tensor, other) -> Tensor:
        return Tensor._make(torch_op(self._data, other._data if isinstance(other, Tensor) else other), None)

    compare.__name__ = torch_op.__name__
    return compare


def _swapped(fn):
    def swapped(self: Tensor, other) -> Tensor:
        return fn(other, self)

    swapped.__name__ = f"r{fn.__name__}"
    return swapped


def _inplace(out_of_place, torch_method: str):
    def method(self: Tensor, other, **kwargs) -> Tensor:
        return inplace.inplace_binary(self, other, out_of_place, torch_method, **kwargs)

    method.__name__ = torch_method
    return method


def _where(self: Tensor, condition, other) -> Tensor:
    return elementwise.where(condition, self, other)


def _transposed(self: Tensor) -> Tensor:
    if self._data.dim() <= 2:
        return shape.t(self)
    return shape.permute(self, tuple(reversed(range(self._data.dim()))))


METHODS = {
    # arithmetic
    "add": elementwise.add,
    "sub": elementwise.sub,
    "mul": elementwise.mul,
    "div": elementwise.div,
    "neg": elementwise.neg,
    "pow": elementwise.pow,
    "abs": elementwise.abs,
    "exp": elementwise.exp,
    "log": elementwise.log,
    "sqrt": elementwise.sqrt,
    "sin": elementwise.sin,
    "cos": elementwise.cos,
    "clamp": elementwise.clamp,
    "clip": elementwise.clamp,
    "maximum": elementwise.maximum,
    "minimum": elementwise.minimum,
    "where": _where,
    # reductions
    "sum": reduce.sum,
    "mean": reduce.mean,
    "var": reduce.var,
    "std": reduce.std,
    "max": reduce.max,
    "min": reduce.min,
    "amax": reduce.amax,
    "amin": reduce.amin,
    "logsumexp": reduce.logsumexp,
    "argmax": reduce.argmax,
    "argmin": reduce.argmin,
    # shape
    "reshape": shape.reshape,
    "view": shape.view,
    "flatten": shape.flatten,
    "squeeze": shape.squeeze,
    "unsqueeze": shape.unsqueeze,
    "transpose": shape.transpose,
    "t": shape.t,
    "permute": shape.permute,
    "expand": shape.expand,
    "expand_as": shape.expand_as,
    "contiguous": shape.contiguous,
    # linear algebra
    "matmul": linalg.matmul,
    "dot": linalg.dot,
    # activations that torch also has as Tensor methods
    "relu": activation.relu,
    "sigmoid": activation.sigmoid,
    "tanh": activation.tanh,
    "softmax": activation.softmax,
    "log_softmax": activation.log_softmax,
    "hardshrink": piecewise.hardshrink,
    "prelu": piecewise.prelu,
    # in place
    "add_": _inplace(elementwise.add, "add_"),
    "sub_": _inplace(elementwise.sub, "sub_"),
    "mul_": _inplace(elementwise.mul, "mul_"),
    "div_": _inplace(elementwise.div, "div_"),
    "pow_": _inplace(elementwise.pow, "pow_"),
    "clamp_": inplace.clamp_,
    "fill_": inplace.fill_,
    "zero_": inplace.zero_,
    "copy_": inplace.copy_,
    # operators
    "__add__": elementwise.operator_method(elementwise.Add, "__add__"),
    "__radd__": _swapped(elementwise.add),
    "__sub__": elementwise.operator_method(elementwise.Sub, "__sub__"),
    "__rsub__": _swapped(elementwise.sub),
    "__mul__": elementwise.operator_method(elementwise.Mul, "__mul__"),
    "__rmul__": _swapped(elementwise.mul),
    "__truediv__": elementwise.operator_method(elementwise.Div, "__truediv__"),
    "__rtruediv__": _swapped(elementwise.div),
    "__pow__": elementwise.pow,
    "__rpow__": _swapped(elementwise.pow),
    "__matmul__": linalg.matmul,
    "__rmatmul__": _swapped(linalg.matmul),
    "__neg__": elementwise.neg,
    "__abs__": elementwise.abs,
    "__iadd__": _inplace(elementwise.add, "add_"),
    "__isub__": _inplace(elementwise.sub, "sub_"),
    "__imul__": _inplace(elementwise.mul, "mul_"),
    "__itruediv__": _inplace(elementwise.div, "div_"),
    "__getitem__": shape.getitem,
    "__setitem__": inplace.setitem,
    "__lt__": _compare(torch.lt),
    "__le__": _compare(torch.le),
    "__gt__": _compare(torch.gt),
    "__ge__": _compare(torch.ge),
    "__eq__": _compare(torch.eq),
    "__ne__": _compare(torch.ne),
}

for _name, _method in METHODS.items():
    setattr(Tensor, _name, _method)
Tensor.T = property(_transposed)
