"""``GradScaler``: loss scaling for float16 training, step for step as ``torch.amp.GradScaler``
(same defaults, the same torch kernels for the finite check and the scale update)."""

from __future__ import annotations

import warnings
from collections.abc import Iterable
from enum import Enum

import torch

from ..autograd.tensor import Tensor

__all__ = ["GradScaler"]


_NOT_SCALED = "This may indicate your script did not use scaler.scale(loss or outputs) earlier in the iteration."


class _Stage(Enum):
    READY = 0
    UNSCALED = 1
    STEPPED = 2


def _fresh_state() -> dict:
    return {"stage": _Stage.READY, "found_inf_per_device": {}}


class GradScaler:
    """``scaler.scale(loss).backward(); scaler.step(optimizer); scaler.update()``.

    Disabled (``enabled=False``, or a CUDA scaler without CUDA, which warns as PyTorch's does) it is
    a no-op: ``scale`` returns its argument, ``step`` calls ``optimizer.step()``, ``update`` does nothing.
    """

    def __init__(
        self,
        device: str = "cuda",
        init_scale: float = 2.0**16,
        growth_factor: float = 2.0,
        backoff_factor: float = 0.5,
        growth_interval: int = 2000,
        enabled: bool = True,
    ) -> None:
        self._device = device
        self._enabled = enabled
        if device == "cuda" and enabled and not torch.cuda.is_available():
            warnings.warn("torch.cuda.amp.GradScaler is enabled, but CUDA is not available.  Disabling.", stacklevel=2)
            self._enabled = False
        if self._enabled:
            if growth_factor <= 1.0:
                raise ValueError("The growth factor must be > 1.0.")
            if backoff_factor >= 1.0:
                raise ValueError("The backoff factor must be < 1.0.")
        self._init_scale = init_scale
        self._growth_factor = growth_factor
        self._backoff_factor = backoff_factor
        self._growth_interval = growth_interval
        self._init_growth_tracker = 0
        self._scale: torch.Tensor | None = None
        self._growth_tracker: torch.Tensor | None = None
        self._per_optimizer_states: dict[int, dict] = {}

    def is_enabled(self) -> bool:
        return self._enabled

    def _lazy_init(self, device: torch.device) -> None:
        self._scale = torch.full((), self._init_scale, dtype=torch.float32, device=device)
        self._growth_tracker = torch.full((), self._init_growth_tracker, dtype=torch.int32, device=device)

    def scale(self, outputs: Tensor | Iterable) -> Tensor | Iterable:
        """``outputs`` (a tensor, or an iterable of tensors) times the scale, recorded."""
        if not self._enabled:
            return outputs
        if isinstance(outputs, Tensor):
            if self._scale is None:
                self._lazy_init(outputs.device)
            return outputs * self._scale.to(outputs.device)
        if isinstance(outputs, (list, tuple)):
            return type(outputs)(self.scale(o) for o in outputs)
        raise ValueError("outputs must be a Tensor or an iterable of Tensors")

    def _state(self, optimizer) -> dict:
        return self._per_optimizer_states.setdefault(id(optimizer), _fresh_state())

    def unscale_(self, optimizer) -> None:
        """Divide ``optimizer``'s gradients by the scale in place, noting whether any is inf/NaN."""
        if not self._enabled:
            return
        if self._scale is None:
            raise RuntimeError(f"Attempted unscale_ but _scale is None.  {_NOT_SCALED}")
        state = self._state(optimizer)
        if state["stage"] is _Stage.UNSCALED:
            raise RuntimeError("unscale_() has already been called on this optimizer since the last update().")
        if state["stage"] is _Stage.STEPPED:
            raise RuntimeError("unscale_() is being called after step().")
        inv_scale = self._scale.double().reciprocal().float()
        found_inf = torch.full((), 0.0, dtype=torch.float32, device=self._scale.device)
        grouped: dict[tuple, list[torch.Tensor]] = {}
        for group in optimizer.param_groups:
            for param in group["params"]:
                if param.grad is None:
                    continue
                grad = param.grad._data if isinstance(param.grad, Tensor) else param.grad
                if grad.dtype == torch.float16:
                    raise ValueError("Attempting to unscale FP16 gradients.")
                grouped.setdefault((grad.device, grad.dtype), []).append(grad)
        per_device: dict[torch.device, torch.Tensor] = {}
        for (device, _), grads in grouped.items():
            if device not in per_device:
                per_device[device] = found_inf.to(device, copy=True)
            torch._amp_foreach_non_finite_check_and_unscale_(grads, per_device[device], inv_scale.to(device))
        state["found_inf_per_device"] = per_device or {found_inf.device: found_inf}
        state["stage"] = _Stage.UNSCALED

    def step(self, optimizer, *args, **kwargs):
        """``optimizer.step()`` on unscaled gradients, skipped when any was inf/NaN."""
        if not self._enabled:
            return optimizer.step(*args, **kwargs)
        if "closure" in kwargs:
            raise RuntimeError("Closure use is not currently supported if GradScaler is enabled.")
        state = self._state(optimizer)
        if state["stage"] is _Stage.STEPPED:
            raise RuntimeError("step() has already been called since the last update().")
        if state["stage"] is _Stage.READY:
            self.unscale_(optimizer)
        result = None
        if not sum(v.item() for v in state["found_inf_per_device"].values()):
            result = optimizer.step(*args, **kwargs)
        state["stage"] = _Stage.STEPPED
        return result

    def update(self, new_scale: float | torch.Tensor | None = None) -> None:
        """Back the scale off after a skipped step, grow it after ``growth_interval`` good ones."""
        if not self._enabled:
            return
        if self._scale is None:
            raise RuntimeError(f"Attempted update but _scale is None.  {_NOT_SCALED}")
        if new_scale is not None:
            if isinstance(new_scale, float):
                self._scale.fill_(new_scale)
            else:
                self._scale.copy_(new_scale._data if isinstance(new_scale, Tensor) else new_scale)
        else:
            found_infs = [
                found.to(self._scale.device)
                for state in self._per_optimizer_states.values()
                for found in state["found_inf_per_device"].values()
            ]
            if not found_infs:
                raise AssertionError("No inf checks were recorded prior to update.")
            found_inf = found_infs[0]
            for other in found_infs[1:]:
                found_inf = found_inf + other
            torch._amp_update_scale_(
                self._scale,
                self._growth_tracker,
                found_inf,
                self._growth_factor,
                self._backoff_factor,
                self._growth_interval,
            )
        self._per_optimizer_states = {}

    def get_scale(self) -> float:
        if not self._enabled:
            return 1.0
        return self._init_scale if self._scale is None else self._scale.item()

    def get_growth_factor(self) -> float:
        return self._growth_factor

    def get_backoff_factor(self) -> float:
        return self._backoff_factor

    def get_growth_interval(self) -> int:
        return self._growth_interval

    def state_dict(self) -> dict:
        """torch's keys, so a scaler's state moves between the two."""
        if not self._enabled:
            return {}
        return {
            "scale": self.get_scale(),
            "growth_factor": self._growth_factor,
            "backoff_factor": self._backoff_factor,
            "growth_interval": self._growth_interval,
            "_growth_tracker": self._init_growth_tracker
            if self._growth_tracker is None
            else self._growth_tracker.item(),
        }

    def load_state_dict(self, state_dict: dict) -> None:
        if not self._enabled:
            return
        if len(state_dict) == 0:
            raise RuntimeError(
                "The source state dict is empty, possibly because it was saved from a disabled instance of GradScaler."
            )
        self._init_scale = state_dict["scale"]
        if self._scale is not None:
            self._scale.fill_(state_dict["scale"])
        self._growth_factor = state_dict["growth_factor"]
        self._backoff_factor = state_dict["backoff_factor"]
        self._growth_interval = state_dict["growth_interval"]
        self._init_growth_tracker = state_dict["_growth_tracker"]
        if self._growth_tracker is not None:
            self._growth_tracker.fill_(state_dict["_growth_tracker"])
