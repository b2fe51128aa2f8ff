"""``Adagrad``, as ``torch.optim.Adagrad``."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import torch

from ._state import check_numbers, scalar_tensor, steps_as_tensors
from .optimizer import Optimizer, ParamsT, data_of, params_with_grad


class Adagrad(Optimizer):
    """Adagrad, as ``torch.optim.Adagrad`` (same formulas, same order of operations).

    Per step ``t``: ``g = g + weight_decay * p``, ``s += g * g``,
    ``p -= lr / (1 + (t - 1) * lr_decay) * g / (sqrt(s) + eps)``. The state (``step`` and
    ``sum``, which starts at ``initial_accumulator_value``) is created for every parameter at
    construction, as torch does.

    >>> import minitorch_rx as mt
    >>> w = mt.tensor([1.0], requires_grad=True)
    >>> opt = Adagrad([w], lr=0.1)
    >>> w.grad = mt.tensor([2.0])
    >>> opt.step()
    >>> round(w.item(), 4)
    0.9
    """

    def __init__(
        self,
        params: ParamsT,
        lr: float = 1e-2,
        lr_decay: float = 0,
        weight_decay: float = 0,
        initial_accumulator_value: float = 0,
        eps: float = 1e-10,
        *,
        maximize: bool = False,
    ) -> None:
        check_numbers(
            "Adagrad",
            lr,
            lr_decay=lr_decay,
            weight_decay=weight_decay,
            initial_accumulator_value=initial_accumulator_value,
            eps=eps,
        )
        if not 0.0 <= lr_decay:
            raise ValueError(f"Invalid lr_decay value: {lr_decay}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if not 0.0 <= initial_accumulator_value:
            raise ValueError(f"Invalid initial_accumulator_value value: {initial_accumulator_value}")
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        defaults = {
            "lr": lr,
            "lr_decay": lr_decay,
            "eps": eps,
            "weight_decay": weight_decay,
            "initial_accumulator_value": initial_accumulator_value,
            "maximize": maximize,
        }
        super().__init__(params, defaults)
        for group in self.param_groups:
            for param in group["params"]:
                state = self.state[param]
                state["step"] = scalar_tensor(0.0)
                state["sum"] = torch.full_like(
                    data_of(param), group["initial_accumulator_value"], memory_format=torch.preserve_format
                )

    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        """Update every parameter that has a ``.grad``; return ``closure()``'s loss if given."""
        loss = self._closure_loss(closure)
        for group in self.param_groups:
            params, grads = params_with_grad(group)
            for param, grad in zip(params, grads, strict=True):
                _adagrad(data_of(param), grad, self.state[param], group)
        return loss

    def _after_load(self) -> None:
        super()._after_load()
        steps_as_tensors(self.state)


def _adagrad(param: torch.Tensor, grad: torch.Tensor, state: dict, group: dict) -> None:
    """torch's single-tensor Adagrad update of one (dense) parameter."""
    state["step"] += 1
    step = state["step"].item()
    grad = -grad if group["maximize"] else grad
    if group["weight_decay"] != 0:
        grad = grad.add(param, alpha=group["weight_decay"])
    clr = group["lr"] / (1 + (step - 1) * group["lr_decay"])
    state_sum = state["sum"]
    state_sum.addcmul_(grad, grad, value=1)
    std = state_sum.sqrt().add_(group["eps"])
    param.addcdiv_(grad, std, value=-clr)
