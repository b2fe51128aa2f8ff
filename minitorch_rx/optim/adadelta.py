"""``Adadelta``, as ``torch.optim.Adadelta``."""

from __future__ import annotations

import torch

from ._state import PerParameterOptimizer, check_numbers
from .optimizer import ParamsT


class Adadelta(PerParameterOptimizer):
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

    BUFFERS = ("square_avg", "acc_delta")

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

    @staticmethod
    def update(param: torch.Tensor, grad: torch.Tensor, state: dict, group: dict) -> None:
        _adadelta(param, grad, state, group)


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
