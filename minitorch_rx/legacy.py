"""PyTorch's legacy tensor types: ``mt.FloatTensor([1, 2])`` and ``mt.LongTensor(2, 3)`` construct
(from a sequence, or uninitialized from sizes), and ``isinstance(t, mt.FloatTensor)`` checks the
dtype of a CPU tensor, as in PyTorch. ``mt.tensor(data, dtype=...)`` is the constructor to prefer."""

from __future__ import annotations

import torch

from .autograd.tensor import Tensor, legacy_data


class _LegacyTensorType(type):
    dtype: torch.dtype

    def __instancecheck__(cls, obj: object) -> bool:
        return isinstance(obj, Tensor) and obj.dtype == cls.dtype and obj.device.type == "cpu"

    def __call__(cls, *args: object, device=None) -> Tensor:
        return Tensor._make(legacy_data(args, cls.dtype, device), None)


def _legacy(name: str, dtype: torch.dtype) -> type:
    return _LegacyTensorType(name, (), {"dtype": dtype, "__module__": __name__, "__doc__": f"{dtype} tensors."})


FloatTensor = _legacy("FloatTensor", torch.float32)
DoubleTensor = _legacy("DoubleTensor", torch.float64)
HalfTensor = _legacy("HalfTensor", torch.float16)
BFloat16Tensor = _legacy("BFloat16Tensor", torch.bfloat16)
ByteTensor = _legacy("ByteTensor", torch.uint8)
CharTensor = _legacy("CharTensor", torch.int8)
ShortTensor = _legacy("ShortTensor", torch.int16)
IntTensor = _legacy("IntTensor", torch.int32)
LongTensor = _legacy("LongTensor", torch.int64)
BoolTensor = _legacy("BoolTensor", torch.bool)

__all__ = [
    "BFloat16Tensor",
    "BoolTensor",
    "ByteTensor",
    "CharTensor",
    "DoubleTensor",
    "FloatTensor",
    "HalfTensor",
    "IntTensor",
    "LongTensor",
    "ShortTensor",
]
