"""Python scalars as cached 0-dim tensors.

torch's path for a Python float operand costs about 1 µs per call, paid in forward and again
in backward; a 0-dim tensor of the same dtype computes the same values without it. Only
float32/float64 are cached: half precision would round the constant itself, and integer
tensors promote differently with a float tensor than with a Python float. Zeros and NaNs are
not cached: a dict key compares by value, and ``-0.0 == 0.0``.

The constants are CPU tensors, made for operands on the CPU. An op on another device takes the
Python number itself (what torch does with it there): a CUDA kernel takes at most one CPU
scalar, and only where torch allows it (``torch.lerp`` does not), while a constant on the GPU
would cost a host-to-device copy per new value. Only the arithmetic operators' hot path
(``x * c``, ``x + c``, ...: binary kernels, which take a CPU scalar) uses a constant already
cached whatever the device.

Also the check every public op makes of its tensor arguments, worded as PyTorch's.
"""

from __future__ import annotations

import numbers

import torch

from ..autograd.tensor import OURS, Tensor, is_torch_data
from ..autograd.torch_leaves import torch_operand


class _NotGiven:
    def __repr__(self) -> str:
        return "<not given>"


#: The default of an optional argument whose absence PyTorch tells apart from ``None`` (an
#: overload chosen by whether it is passed: ``linalg.pinv(A, rcond)``).
NOT_GIVEN = _NotGiven()
#: What an op accepts as a tensor argument: ``isinstance(x, TENSOR_TYPES)`` is the cheap check.
TENSOR_TYPES = (Tensor, torch.Tensor)
_CACHED_DTYPES = (torch.float32, torch.float64)
_MAX_CACHED = 4096
#: Per cached dtype, the constants by value: two dict lookups with cheap keys (the dtype by identity,
#: the number often by identity too, a literal of the caller's code) cost less than one by a
#: ``(value, dtype)`` tuple built and hashed per op.
_cache: dict[torch.dtype, dict[float | int, torch.Tensor]] = {dtype: {} for dtype in _CACHED_DTYPES}


def operand(value: object, like: torch.Tensor) -> object:
    """``value`` as an operand for an op on ``like``: mt.Tensor and torch.Tensor pass, scalars may
    become 0-dim tensors."""
    if isinstance(value, Tensor):
        return value
    if is_torch_data(value):
        return torch_operand(value)
    kind = type(value)
    if kind is float or kind is int:
        dtype = like.dtype
        # Keys compare by value, so -0.0 would find 0.0's tensor (and int 0's), and NaNs would
        # never be found again: zeros and NaNs pass as Python numbers, which torch takes exactly.
        table = _cache.get(dtype)
        if table is not None and value == value and value != 0 and like.is_cpu:
            constant = table.get(value)
            if constant is None:
                if len(table) >= _MAX_CACHED:
                    table.clear()
                constant = table[value] = torch.tensor(value, dtype=dtype)
            return constant
        return value
    if kind is bool or isinstance(value, (int, float, complex)):
        return value
    raise TypeError(f"unsupported operand type for a Tensor op: '{kind.__name__}'")


def tensor_arg(
    value: object, function: str, argument: str = "input", position: int = 1, optional: bool = False
) -> Tensor | None:
    """A tensor argument as an ``mt.Tensor``: a torch.Tensor is wrapped (detached from torch's
    autograd), ``None`` passes where ``optional``, anything else is PyTorch's TypeError."""
    if type(value) in OURS or (value is None and optional):  # isinstance(value, Tensor), see OURS
        return value
    if is_torch_data(value):
        return torch_operand(value)
    raise not_a_tensor(function, value, argument, position)


def check_number(value: object, owner: str, name: str, integer: bool = False) -> None:
    """A hyperparameter that must be a Python number (an int where ``integer``), or a TypeError
    naming it: ``SGD(): argument 'momentum' must be float, not NoneType``."""
    if isinstance(value, (Tensor, torch.Tensor)) and value.numel() == 1 and not integer:
        return  # torch takes one-element tensors for its float hyperparameters
    if isinstance(value, bool) or not isinstance(value, numbers.Integral if integer else numbers.Real):
        raise TypeError(
            f"{owner}(): argument '{name}' must be {'int' if integer else 'float'}, not {type(value).__name__}"
        )


def not_a_tensor(function: str, value: object, argument: str = "input", position: int = 1) -> TypeError:
    """PyTorch's error for a non-tensor argument, for the caller to raise: ``sum(): argument
    'input' (position 1) must be Tensor, not list``."""
    return TypeError(
        f"{function}(): argument '{argument}' (position {position}) must be Tensor, not {type(value).__name__}"
    )


def not_applicable(method: str, value: object) -> TypeError:
    """PyTorch's error for one of its C methods called unbound on something other than a tensor
    (``torch.Tensor.__radd__(2, t)``), for the caller to raise."""
    return TypeError(f"descriptor '{method}' for 'Tensor' objects doesn't apply to a '{type(value).__name__}' object")


def dtype_name(dtype: torch.dtype) -> str:
    """``torch.float32`` as PyTorch's messages name it: ``Float``."""
    return torch.empty((), dtype=dtype).type().split(".")[-1].replace("Tensor", "")
