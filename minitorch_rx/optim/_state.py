"""State helpers shared by the optimizers that keep torch's per-parameter ``step`` tensor."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import torch

from ..autograd.tensor import Tensor
from ..ops.constants import check_number
from .adam import _step_tensor
from .optimizer import Optimizer, check_lr, data_of, params_with_grad

__all__ = [
    "PerParameterOptimizer",
    "check_adam_arguments",
    "check_numbers",
    "check_pair",
    "scalar_tensor",
    "steps_as_tensors",
]


class PerParameterOptimizer(Optimizer):
    """An optimizer that updates each parameter by torch's single-tensor formula, ``update(param,
    grad, state, group)`` on torch data, with a state of scalar tensors (``SCALARS``: name -> first
    value; ``step`` at least; on the CPU, or on the parameter's device for those named in
    ``ON_PARAM_DEVICE`` or in a ``capturable`` group, as torch places them) and zero buffers the
    parameter's shape
    (``buffers(group)``)."""

    SCALARS: dict[str, float] = {"step": 0.0}
    ON_PARAM_DEVICE: tuple[str, ...] = ()
    BUFFERS: tuple[str, ...] = ()
    update: Callable[[torch.Tensor, torch.Tensor, dict, dict], None]

    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        """Update every parameter that has a ``.grad``; return ``closure()``'s loss if given."""
        loss = self._closure_loss(closure)
        update = type(self).update
        for group in self.param_groups:
            params, grads = params_with_grad(group)
            for param, grad in zip(params, grads, strict=True):
                update(data_of(param), grad, self._state_for(param, group), group)
        return loss

    def buffers(self, group: dict[str, Any]) -> tuple[str, ...]:
        """The names of the zero buffers a parameter of ``group`` keeps."""
        return self.BUFFERS

    def _state_for(self, param: Tensor, group: dict[str, Any]) -> dict[str, torch.Tensor]:
        state = self.state[param]
        if len(state) == 0:
            for name, value in self.SCALARS.items():
                on_device = name in self.ON_PARAM_DEVICE or group.get("capturable", False)
                state[name] = scalar_tensor(value, data_of(param).device if on_device else None)
            for name in self.buffers(group):
                state[name] = torch.zeros_like(data_of(param), memory_format=torch.preserve_format)
        return state

    def _after_load(self) -> None:
        super()._after_load()
        steps_as_tensors(self.state, tuple(self.SCALARS))


def scalar_tensor(value: float, device: torch.device | None = None) -> torch.Tensor:
    """torch's non-capturable scalar state (``step``, ``mu_product``): float32 unless the default
    dtype is float64, on the CPU unless ``device``."""
    return _step_tensor(value, device)


def steps_as_tensors(state: dict[Any, dict[str, Any]], names: tuple[str, ...] = ("step",)) -> None:
    """Turn scalar entries a loaded (older or foreign) state dict holds as numbers into tensors."""
    for entry in state.values():
        for name in names:
            value = entry.get(name)
            if value is not None and not torch.is_tensor(value):
                entry[name] = scalar_tensor(float(value))


def check_numbers(owner: str, lr: object, **values: object) -> None:
    """The types of an optimizer's hyper-parameters, before torch's range checks compare them: ``lr``
    a number or a one-element tensor, the others numbers (``RMSprop(): argument 'alpha' must be
    float, not NoneType``); then torch's check of ``lr`` (``Invalid learning rate: -0.1``)."""
    check_lr(lr)
    for name, value in values.items():
        check_number(value, owner, name)


def check_adam_arguments(owner: str, lr: float, eps: float, betas: tuple[float, float], weight_decay: float) -> None:
    """torch's checks (and wording) of the arguments every Adam variant takes."""
    check_numbers(owner, lr, eps=eps, weight_decay=weight_decay)
    if not isinstance(betas, (tuple, list)) or len(betas) != 2:
        raise TypeError(f"{owner}(): argument 'betas' must be a pair of floats, not {betas!r}")
    for i, beta in enumerate(betas):
        check_number(beta, owner, f"betas[{i}]")
    if not 0.0 <= eps:
        raise ValueError(f"Invalid epsilon value: {eps}")
    if not 0.0 <= betas[0] < 1.0:
        raise ValueError(f"Invalid beta parameter at index 0: {betas[0]}")
    if not 0.0 <= betas[1] < 1.0:
        raise ValueError(f"Invalid beta parameter at index 1: {betas[1]}")
    if not 0.0 <= weight_decay:
        raise ValueError(f"Invalid weight_decay value: {weight_decay}")


def check_pair(owner: str, name: str, value: object, first_optional: bool = False) -> None:
    """A pair of numbers (``betas``, ``etas``, ``step_sizes``; Adafactor's ``eps`` may start with
    None), or a TypeError naming it, before any range check compares them."""
    if not isinstance(value, (tuple, list)) or len(value) != 2:
        raise TypeError(f"{owner}(): argument '{name}' must be a pair of floats, not {value!r}")
    for i, item in enumerate(value):
        if not (first_optional and i == 0 and item is None):
            check_number(item, owner, f"{name}[{i}]")
