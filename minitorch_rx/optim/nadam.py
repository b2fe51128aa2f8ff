"""``NAdam`` (Adam with Nesterov momentum), as ``torch.optim.NAdam``."""

from __future__ import annotations

import torch

from ..ops.constants import check_number
from ._state import PerParameterOptimizer, check_adam_arguments
from .optimizer import ParamsT


class NAdam(PerParameterOptimizer):
    """NAdam, as ``torch.optim.NAdam`` (same formulas, same order of operations).

    Per step ``t``, with ``mu_t = beta1 * (1 - 0.5 * 0.96 ** (t * momentum_decay))`` and
    ``P_t = mu_1 * ... * mu_t`` (the ``mu_product`` state, a float32 scalar as torch's)::

        m = lerp(m, g, 1 - beta1);  v = beta2 * v + (1 - beta2) * g * g
        d = sqrt(v / (1 - beta2**t)) + eps
        p -= lr * (1 - mu_t) / (1 - P_t) * g / d + lr * mu_{t+1} / (1 - P_t * mu_{t+1}) * m / d

    ``decoupled_weight_decay`` multiplies ``p`` by ``1 - lr * weight_decay`` instead of adding
    ``weight_decay * p`` to the gradient.

    >>> import minitorch_rx as mt
    >>> w = mt.tensor([1.0], requires_grad=True)
    >>> opt = NAdam([w], lr=0.1)
    >>> w.grad = mt.tensor([2.0])
    >>> opt.step()
    >>> round(w.item(), 4)
    0.8944
    """

    BUFFERS = ("exp_avg", "exp_avg_sq")
    SCALARS = {"step": 0.0, "mu_product": 1.0}

    def __init__(
        self,
        params: ParamsT,
        lr: float = 2e-3,
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8,
        weight_decay: float = 0,
        momentum_decay: float = 4e-3,
        decoupled_weight_decay: bool = False,
        *,
        maximize: bool = False,
    ) -> None:
        check_adam_arguments("NAdam", lr, eps, betas, weight_decay)
        check_number(momentum_decay, "NAdam", "momentum_decay")
        if not 0.0 <= momentum_decay:
            raise ValueError(f"Invalid momentum_decay value: {momentum_decay}")
        defaults = {
            "lr": lr,
            "betas": tuple(betas),
            "eps": eps,
            "weight_decay": weight_decay,
            "momentum_decay": momentum_decay,
            "decoupled_weight_decay": decoupled_weight_decay,
            "maximize": maximize,
        }
        super().__init__(params, defaults)

    @staticmethod
    def update(param: torch.Tensor, grad: torch.Tensor, state: dict, group: dict) -> None:
        _nadam(param, grad, state, group)


def _nadam(param: torch.Tensor, grad: torch.Tensor, state: dict, group: dict) -> None:
    """torch's single-tensor NAdam update of one parameter."""
    beta1, beta2 = group["betas"]
    lr, weight_decay, momentum_decay = group["lr"], group["weight_decay"], group["momentum_decay"]
    grad = -grad if group["maximize"] else grad
    exp_avg, exp_avg_sq, mu_product = state["exp_avg"], state["exp_avg_sq"], state["mu_product"]
    state["step"] += 1
    step = state["step"].item()
    bias_correction2 = 1 - beta2**step
    if weight_decay != 0:
        if group["decoupled_weight_decay"]:
            param.mul_(1 - lr * weight_decay)
        else:
            grad = grad.add(param, alpha=weight_decay)
    mu = beta1 * (1.0 - 0.5 * (0.96 ** (step * momentum_decay)))
    mu_next = beta1 * (1.0 - 0.5 * (0.96 ** ((step + 1) * momentum_decay)))
    mu_product *= mu
    exp_avg.lerp_(grad, 1 - beta1)
    exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
    denom = exp_avg_sq.div(bias_correction2).sqrt()
    mu_product_next = mu_product.item() * mu_next
    denom.add_(group["eps"])
    param.addcdiv_(grad, denom, value=-lr * (1.0 - mu) / (1.0 - mu_product.item()))
    param.addcdiv_(exp_avg, denom, value=(-lr * mu_next) / (1.0 - mu_product_next))
