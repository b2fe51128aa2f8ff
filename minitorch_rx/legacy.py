"""PyTorch's legacy tensor types: ``mt.FloatTensor([1, 2])`` and ``mt.LongTensor(2, 3)`` construct
(from a sequence, or uninitialized from sizes), and ``isinstance(t, mt.FloatTensor)`` checks the
dtype of a CPU tensor, as in PyTorch. ``mt.tensor(data, dtype=...)`` is the constructor to prefer."""

from __future__ import annotations

import torch

from .autograd.tensor import Tensor, legacy_data


class _LegacyTensorType(type):
    dtype: torch.dtype
    device_type: str

    def __instancecheck__(cls, obj: object) -> bool:
        return isinstance(obj, Tensor) and obj.dtype == cls.dtype and obj.device.type == cls.device_type

    def __call__(cls, *args: object, device=None) -> Tensor:
        if cls.device_type == "cuda":
            device = device or "cuda"  # torch.cuda.FloatTensor(...): torch says so where there is no GPU
        return Tensor._make(legacy_data(args, cls.dtype, device), None)


def _legacy(name: str, dtype: torch.dtype, device_type: str = "cpu") -> type:
    namespace = {"dtype": dtype, "device_type": device_type, "__module__": __name__, "__doc__": f"{dtype} tensors."}
    return _LegacyTensorType(name, (), namespace)


def cuda_types() -> dict[str, type]:
    """``mt.cuda.FloatTensor`` and the others: the same types on CUDA devices."""
    return {name: _legacy(name, globals()[name].dtype, "cuda") for name in __all__}


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
