"""``Adamax`` (Adam with the infinity norm), as ``torch.optim.Adamax``."""

from __future__ import annotations

import torch

from ._state import PerParameterOptimizer, check_adam_arguments
from .optimizer import ParamsT


class Adamax(PerParameterOptimizer):
    """Adamax, as ``torch.optim.Adamax`` (same formulas, same order of operations).

    Per step ``t``: ``m = lerp(m, g, 1 - beta1)``, ``u = max(beta2 * u, |g| + eps)``,
    ``p -= lr / (1 - beta1**t) * m / u``. State: ``step``, ``exp_avg`` (m), ``exp_inf`` (u).

    >>> import minitorch_rx as mt
    >>> w = mt.tensor([1.0], requires_grad=True)
    >>> opt = Adamax([w], lr=0.1)
    >>> w.grad = mt.tensor([2.0])
    >>> opt.step()
    >>> round(w.item(), 4)
    0.9
    """

    BUFFERS = ("exp_avg", "exp_inf")

    def __init__(
        self,
        params: ParamsT,
        lr: float = 2e-3,
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8,
        weight_decay: float = 0,
        *,
        maximize: bool = False,
    ) -> None:
        check_adam_arguments("Adamax", lr, eps, betas, weight_decay)
        defaults = {"lr": lr, "betas": tuple(betas), "eps": eps, "weight_decay": weight_decay, "maximize": maximize}
        super().__init__(params, defaults)

    @staticmethod
    def update(param: torch.Tensor, grad: torch.Tensor, state: dict, group: dict) -> None:
        _adamax(param, grad, state, group)


def _adamax(param: torch.Tensor, grad: torch.Tensor, state: dict, group: dict) -> None:
    """torch's single-tensor Adamax update of one parameter."""
    beta1, beta2 = group["betas"]
    grad = -grad if group["maximize"] else grad
    exp_avg, exp_inf = state["exp_avg"], state["exp_inf"]
    state["step"] += 1
    if group["weight_decay"] != 0:
        grad = grad.add(param, alpha=group["weight_decay"])
    exp_avg.lerp_(grad, 1 - beta1)
    torch.maximum(exp_inf.mul_(beta2), grad.abs().add_(group["eps"]), out=exp_inf)
    clr = group["lr"] / (1 - beta1 ** state["step"].item())
    param.addcdiv_(exp_avg, exp_inf, value=-clr)
