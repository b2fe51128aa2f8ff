"""PyTorch's other names for ops minitorch_rx has (``torch.divide`` is ``torch.div``), and the
integer and index functions that have no gradient (``bincount``, ``gcd``, ``tril_indices``).

Each alias is the op itself, so it records and differentiates as the op does; ``torch.divide``
called on mt tensors finds it here by name (``autograd/torch_function.py``) instead of running
torch's kernel on the data.
"""

from __future__ import annotations

import torch

from ..autograd.tensor import Tensor, is_torch_data
from ..creation import as_tensor
from . import elementwise, linalg, shape, tile
from .constants import tensor_arg
from .pointwise import conj

absolute = elementwise.abs
clip = elementwise.clamp
divide = elementwise.div
multiply = elementwise.mul
subtract = elementwise.sub
negative = elementwise.neg
concat = concatenate = shape.cat
row_stack = tile.vstack
ger = linalg.outer
# dtype rules: plain torch functions of dtypes and scalars
promote_types = torch.promote_types
can_cast = torch.can_cast


def clip_(input: Tensor, min=None, max=None) -> Tensor:
    """``input.clamp_(min, max)``."""
    return tensor_arg(input, "clip_").clamp_(min, max)


def adjoint(input: Tensor) -> Tensor:
    """The conjugate transpose of the last two dims, as a view (``torch.adjoint``)."""
    input = tensor_arg(input, "adjoint")
    if input.dim() < 2:
        raise RuntimeError(
            f"tensor.adjoint() is only supported on matrices or batches of matrices. Got {input.dim()}-D tensor."
        )
    transposed = input.transpose(-2, -1)
    return conj(transposed) if input.is_complex() else transposed


def _data(x):
    return x._data if isinstance(x, Tensor) else x


def _constant(data: torch.Tensor) -> Tensor:
    return Tensor._make(data, None)


def result_type(tensor1, tensor2) -> torch.dtype:
    """The dtype an op of ``tensor1`` and ``tensor2`` (tensors or numbers) computes in."""
    return torch.result_type(_data(tensor1), _data(tensor2))


def is_complex(input: Tensor) -> bool:
    return torch.is_complex(_data(input))


def is_nonzero(input: Tensor) -> bool:
    """Whether the single value of ``input`` is not zero (torch's errors for none or several)."""
    return torch.is_nonzero(_data(input))


def bincount(input: Tensor, weights: Tensor | None = None, minlength: int = 0) -> Tensor:
    """Counts (or summed ``weights``) of each value of a 1-D non-negative integer tensor; no gradient."""
    return _constant(torch.bincount(_data(input), _data(weights), minlength))


def gcd(input: Tensor, other: Tensor) -> Tensor:
    """Elementwise greatest common divisor of integer tensors."""
    return _constant(torch.gcd(_data(input), _data(other)))


def lcm(input: Tensor, other: Tensor) -> Tensor:
    """Elementwise least common multiple of integer tensors."""
    return _constant(torch.lcm(_data(input), _data(other)))


def tril_indices(row: int, col: int, offset: int = 0, **kwargs) -> Tensor:
    """The (2, N) indices of the lower triangle of a ``row`` x ``col`` matrix."""
    return _constant(torch.tril_indices(row, col, offset, **kwargs))


def triu_indices(row: int, col: int, offset: int = 0, **kwargs) -> Tensor:
    """The (2, N) indices of the upper triangle of a ``row`` x ``col`` matrix."""
    return _constant(torch.triu_indices(row, col, offset, **kwargs))


def asarray(obj, *, dtype=None, device=None, copy: bool | None = None, requires_grad: bool = False) -> Tensor:
    """``obj`` as a tensor, sharing its memory where it can (``copy=True``: never; ``copy=False``:
    always, or torch's error), as ``torch.asarray``; an mt tensor given as it is comes back itself."""
    if isinstance(obj, Tensor):
        data = torch.asarray(obj._data, dtype=dtype, device=device, copy=copy)
        if data is obj._data and not requires_grad:
            return obj
        result = _constant(data)
    elif copy is False or is_torch_data(obj):
        result = _constant(torch.asarray(obj, dtype=dtype, device=device, copy=copy))
    else:
        result = as_tensor(obj, dtype=dtype, device=device)
        if copy and isinstance(result, Tensor):
            result = _constant(result._data.clone())
    if requires_grad:
        result.requires_grad_(True)
    return result


#: Tensor methods under PyTorch's other names (``x.divide_(2)`` is ``x.div_(2)``).
METHOD_ALIASES = {
    "absolute": "abs",
    "absolute_": "abs_",
    "clip_": "clamp_",
    "divide": "div",
    "divide_": "div_",
    "multiply": "mul",
    "multiply_": "mul_",
    "subtract": "sub",
    "subtract_": "sub_",
    "negative": "neg",
    "negative_": "neg_",
    "ger": "outer",
    "ndimension": "dim",
    "nelement": "numel",
}

#: Functions that are also Tensor methods (``x.bincount()``).
METHOD_FUNCTIONS = ("adjoint", "bincount", "gcd", "lcm", "is_complex", "is_nonzero")

#: torch.Tensor methods that read the data's memory layout (no tensor in, none out).
DATA_METHODS = ("data_ptr", "storage_offset", "is_shared", "is_pinned", "dim_order", "untyped_storage")


def data_method(name: str):
    """Tensor method ``name`` as the data's own."""

    def method(self: Tensor, *args, **kwargs):
        return getattr(self._data, name)(*args, **kwargs)

    method.__name__ = method.__qualname__ = name
    method.__doc__ = f"``torch.Tensor.{name}`` of the data."
    return method


def is_same_size(self: Tensor, other: Tensor) -> bool:
    """Whether ``self`` and ``other`` have the same shape."""
    return self.shape == tensor_arg(other, "is_same_size", "other").shape
