"""``minitorch_rx.accelerator``: ``torch.accelerator``'s queries (our tensors live on torch's devices)."""

from torch.accelerator import (
    current_accelerator,
    current_device_index,
    device_count,
    empty_cache,
    is_available,
    set_device_index,
    synchronize,
)

__all__ = [
    "current_accelerator",
    "current_device_index",
    "device_count",
    "empty_cache",
    "is_available",
    "set_device_index",
    "synchronize",
]
