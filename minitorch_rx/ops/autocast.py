"""Autocast's casts, recorded: inside ``mt.autocast`` the matrix products (``linear``, ``matmul``,
convolutions) run in the autocast dtype and the losses in float32, as PyTorch's autocast lists say.

PyTorch casts inside its dispatcher and records each cast in the graph; here an op casts its
inputs with ``Tensor.to`` (a recorded op whose backward casts the gradient back) before it runs,
so backward sees the dtypes forward used and every leaf's gradient comes back in the leaf's own
dtype. As in PyTorch, only floating tensors on the autocast's device type are cast, and never
float64. ``state.active`` maps each device type under autocast to its dtype (empty outside).
"""

from __future__ import annotations

import torch

from ..autograd.tensor import Tensor, is_torch_data


class _AutocastState:
    __slots__ = ("active",)

    def __init__(self) -> None:
        self.active: dict[str, torch.dtype] = {}


state = _AutocastState()


def _cast(t: object, dtype_of_device: dict[str, torch.dtype], fixed: torch.dtype | None) -> object:
    data = t._data if isinstance(t, Tensor) else t
    if not is_torch_data(data) or not data.is_floating_point() or data.dtype == torch.float64:
        return t
    dtype = dtype_of_device.get(data.device.type)
    if dtype is None:
        return t
    dtype = fixed or dtype
    if data.dtype == dtype:
        return t
    return t.to(dtype)


def to_autocast_dtype(*tensors: object) -> tuple:
    """``tensors`` (mt or torch tensors, or anything else) in the autocast dtype, where autocast applies."""
    active = state.active
    return tuple(_cast(t, active, None) for t in tensors)


def to_float32(*tensors: object) -> tuple:
    """``tensors`` in float32, where autocast applies (the ops PyTorch's autocast runs in float32)."""
    active = state.active
    return tuple(_cast(t, active, torch.float32) for t in tensors)


#: The device types whose autocast runs torch's CUDA float32 lists (``AT_FORALL_FP32``,
#: ``AT_FORALL_FP32_SET_OPT_DTYPE``: exp, log, pow, softmax, sums and products, norms, layer and
#: group norm, upsampling); the CPU's autocast leaves those ops in the lower precision (its own
#: float32 list, mostly losses, is ``to_float32``'s).
FLOAT32_LIST_DEVICES = ("cuda",)


def to_float32_on_gpu(*tensors: object) -> tuple:
    """``tensors`` in float32 where they are on a device of ``FLOAT32_LIST_DEVICES`` under its
    autocast (the ops of torch's CUDA float32 lists); unchanged elsewhere."""
    active = {kind: state.active[kind] for kind in FLOAT32_LIST_DEVICES if kind in state.active}
    if not active:
        return tensors
    return tuple(_cast(t, active, torch.float32) for t in tensors)
