"""``autocast``: a context manager and decorator that switches the casts of ``ops/autocast.py`` on."""

from __future__ import annotations

import functools
from collections.abc import Callable

import torch

from ..ops.autocast import state

__all__ = ["autocast", "is_autocast_available"]


def is_autocast_available(device_type: str) -> bool:
    """Whether autocast exists for ``device_type`` (torch's answer: our ops run its kernels)."""
    return torch.amp.is_autocast_available(device_type)


class autocast:
    """Inside the block, ``linear``/``matmul``/convolutions run in ``dtype`` (default float16 on
    CUDA, bfloat16 on the CPU) and losses in float32, for tensors on ``device_type``. Arguments,
    defaults, warnings and errors are ``torch.autocast``'s (torch checks them). Also a decorator.

    >>> import minitorch_rx as mt
    >>> w = mt.randn(3, 2, requires_grad=True)
    >>> with mt.autocast("cpu"):
    ...     y = mt.randn(4, 2) @ w.T
    >>> y.dtype
    torch.bfloat16
    >>> y.float().sum().backward(); w.grad.dtype
    torch.float32
    """

    def __init__(
        self,
        device_type: str,
        dtype: torch.dtype | None = None,
        enabled: bool = True,
        cache_enabled: bool | None = None,
    ) -> None:
        checked = torch.autocast(device_type, dtype=dtype, enabled=enabled, cache_enabled=cache_enabled)
        self.device = device_type
        self.fast_dtype = checked.fast_dtype
        self._enabled = checked._enabled
        self._outer: list[dict[str, torch.dtype]] = []

    def __enter__(self) -> autocast:
        self._outer.append(state.active)
        active = {k: v for k, v in state.active.items() if k != self.device}
        if self._enabled:
            active[self.device] = self.fast_dtype
        state.active = active
        return self

    def __exit__(self, *exc_info: object) -> None:
        state.active = self._outer.pop()

    def __call__(self, func: Callable) -> Callable:
        @functools.wraps(func)
        def autocast_wrapper(*args, **kwargs):
            with self:
                return func(*args, **kwargs)

        return autocast_wrapper
