"""``RAdam`` (rectified Adam), as ``torch.optim.RAdam``."""

from __future__ import annotations

import torch

from ._state import PerParameterOptimizer, check_adam_arguments
from .optimizer import ParamsT


class RAdam(PerParameterOptimizer):
    """RAdam, as ``torch.optim.RAdam`` (same formulas, same order of operations).

    Adam whose adaptive term is switched on, and rectified, only once the variance of its
    estimate is tractable: with ``rho_inf = 2 / (1 - beta2) - 1`` and
    ``rho_t = rho_inf - 2 t beta2**t / (1 - beta2**t)``, the update is
    ``lr * m_hat * r_t * sqrt(1 - beta2**t) / (sqrt(v) + eps)`` when ``rho_t > 5`` and
    ``lr * m_hat`` otherwise (``m_hat = m / (1 - beta1**t)``).

    >>> import minitorch_rx as mt
    >>> w = mt.tensor([1.0], requires_grad=True)
    >>> opt = RAdam([w], lr=0.1)
    >>> w.grad = mt.tensor([2.0])
    >>> opt.step()
    >>> round(w.item(), 4)
    0.8
    """

    BUFFERS = ("exp_avg", "exp_avg_sq")

    def __init__(
        self,
        params: ParamsT,
        lr: float = 1e-3,
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8,
        weight_decay: float = 0,
        decoupled_weight_decay: bool = False,
        *,
        maximize: bool = False,
    ) -> None:
        check_adam_arguments("RAdam", lr, eps, betas, weight_decay)
        defaults = {
            "lr": lr,
            "betas": tuple(betas),
            "eps": eps,
            "weight_decay": weight_decay,
            "maximize": maximize,
            "decoupled_weight_decay": decoupled_weight_decay,
        }
        super().__init__(params, defaults)

    @staticmethod
    def update(param: torch.Tensor, grad: torch.Tensor, state: dict, group: dict) -> None:
        _radam(param, grad, state, group)


def _radam(param: torch.Tensor, grad: torch.Tensor, state: dict, group: dict) -> None:
    """torch's single-tensor RAdam update of one parameter."""
    beta1, beta2 = group["betas"]
    lr, weight_decay = group["lr"], group["weight_decay"]
    grad = -grad if group["maximize"] else grad
    exp_avg, exp_avg_sq = state["exp_avg"], state["exp_avg_sq"]
    state["step"] += 1
    step = state["step"].item()
    if weight_decay != 0:
        if group["decoupled_weight_decay"]:
            param.mul_(1 - lr * weight_decay)
        else:
            grad = grad.add(param, alpha=weight_decay)
    exp_avg.lerp_(grad, 1 - beta1)
    exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
    bias_correction1 = 1 - beta1**step
    bias_correction2 = 1 - beta2**step
    bias_corrected_exp_avg = exp_avg / bias_correction1
    rho_inf = 2 / (1 - beta2) - 1
    rho_t = rho_inf - 2 * step * (beta2**step) / bias_correction2
    if rho_t > 5.0:
        rect = ((rho_t - 4) * (rho_t - 2) * rho_inf / ((rho_inf - 4) * (rho_inf - 2) * rho_t)) ** 0.5
        adaptive_lr = (bias_correction2**0.5) / exp_avg_sq.sqrt().add_(group["eps"])
        param.add_(bias_corrected_exp_avg * lr * adaptive_lr * rect, alpha=-1.0)
    else:
        param.add_(bias_corrected_exp_avg * lr, alpha=-1.0)
