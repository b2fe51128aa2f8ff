"""``minitorch_rx.cuda.amp``: the older spelling of ``mt.amp`` with the device fixed to CUDA."""

from __future__ import annotations

import torch

from .. import amp as _amp

__all__ = ["GradScaler", "autocast"]


class autocast(_amp.autocast):
    """``mt.amp.autocast("cuda", ...)``."""

    def __init__(self, enabled: bool = True, dtype: torch.dtype = torch.float16, cache_enabled: bool = True) -> None:
        super().__init__("cuda", dtype=dtype, enabled=enabled, cache_enabled=cache_enabled)


class GradScaler(_amp.GradScaler):
    """``mt.amp.GradScaler("cuda", ...)``."""

    def __init__(
        self,
        init_scale: float = 2.0**16,
        growth_factor: float = 2.0,
        backoff_factor: float = 0.5,
        growth_interval: int = 2000,
        enabled: bool = True,
    ) -> None:
        super().__init__("cuda", init_scale, growth_factor, backoff_factor, growth_interval, enabled)
