"""``minitorch_rx.cuda``: ``torch.cuda``'s device queries, seeding and memory statistics (our tensors
live on torch's devices, so these are torch's own), and ``amp``."""

from torch.cuda import (
    current_device,
    device,
    device_count,
    empty_cache,
    get_device_capability,
    get_device_name,
    get_device_properties,
    get_rng_state,
    is_available,
    is_bf16_supported,
    manual_seed,
    manual_seed_all,
    max_memory_allocated,
    max_memory_reserved,
    mem_get_info,
    memory_allocated,
    memory_reserved,
    reset_peak_memory_stats,
    seed,
    seed_all,
    set_device,
    set_rng_state,
    synchronize,
)

from ..legacy import cuda_types
from . import amp

# torch.cuda.FloatTensor and the others: isinstance checks of CUDA tensors, constructors on the GPU.
globals().update(cuda_types())

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
    "amp",
    "current_device",
    "device",
    "device_count",
    "empty_cache",
    "get_device_capability",
    "get_device_name",
    "get_device_properties",
    "get_rng_state",
    "is_available",
    "is_bf16_supported",
    "manual_seed",
    "manual_seed_all",
    "max_memory_allocated",
    "max_memory_reserved",
    "mem_get_info",
    "memory_allocated",
    "memory_reserved",
    "reset_peak_memory_stats",
    "seed",
    "seed_all",
    "set_device",
    "set_rng_state",
    "synchronize",
]
