"""``Adadelta``, as ``torch.optim.Adadelta``."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import torch

from ..autograd.tensor import Tensor
from ._state import check_numbers, scalar_tensor, steps_as_tensors
from .optimizer import Optimizer, ParamsT, params_with_grad


class Adadelta(Optimizer):
    """Adadelta, as ``torch.optim.Adadelta`` (same formulas, same order of operations).

    Per step: ``v = rho * v + (1 - rho) * g * g``,
    ``delta = sqrt(u + eps) / sqrt(v + eps) * g``, ``u = rho * u + (1 - rho) * delta * delta``,
    ``p -= lr * delta``. State: ``step``, ``square_avg`` (v), ``acc_delta`` (u).

    >>> import minitorch_rx as mt
    >>> w = mt.tensor([1.0], requires_grad=True)
    >>> opt = Adadelta([w], lr=1.0)
    >>> w.grad = mt.tensor([2.0])
    >>> opt.step()
    >>> round(w.item(), 4)
    0.9968
    """

    def __init__(
        self,
        params: ParamsT,
        lr: float = 1.0,
        rho: float = 0.9,
        eps: float = 1e-6,
        weight_decay: float = 0,
        *,
        maximize: bool = False,
    ) -> None:
        check_numbers("Adadelta", lr, rho=rho, eps=eps, weight_decay=weight_decay)
        if not 0.0 <= rho <= 1.0:
            raise ValueError(f"Invalid rho value: {rho}")
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        defaults = {"lr": lr, "rho": rho, "eps": eps, "weight_decay": weight_decay, "maximize": maximize}
        super().__init__(params, defaults)

    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        """Update every parameter that has a ``.grad``; return ``closure()``'s loss if given."""
        loss = self._closure_loss(closure)
        for group in self.param_groups:
            params, grads = params_with_grad(group)
            for param, grad in zip(params, grads, strict=True):
                _adadelta(param._data, grad, self._state_for(param), group)
        return loss

    def _state_for(self, param: Tensor) -> dict[str, torch.Tensor]:
        state = self.state[param]
        if len(state) == 0:
            state["step"] = scalar_tensor(0.0)
            state["square_avg"] = torch.zeros_like(param._data, memory_format=torch.preserve_format)
            state["acc_delta"] = torch.zeros_like(param._data, memory_format=torch.preserve_format)
        return state

    def _after_load(self) -> None:
        super()._after_load()
        steps_as_tensors(self.state)


def _adadelta(param: torch.Tensor, grad: torch.Tensor, state: dict, group: dict) -> None:
    """torch's single-tensor Adadelta update of one parameter."""
    rho, eps = group["rho"], group["eps"]
    state["step"] += 1
    grad = -grad if group["maximize"] else grad
    if group["weight_decay"] != 0:
        grad = grad.add(param, alpha=group["weight_decay"])
    square_avg, acc_delta = state["square_avg"], state["acc_delta"]
    square_avg.mul_(rho).addcmul_(grad, grad, value=1 - rho)
    std = square_avg.add(eps).sqrt_()
    delta = acc_delta.add(eps).sqrt_()
    delta.div_(std).mul_(grad)
    acc_delta.mul_(rho).addcmul_(delta, delta, value=1 - rho)
    param.add_(delta, alpha=-group["lr"])
