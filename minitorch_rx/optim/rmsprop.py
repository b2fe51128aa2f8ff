"""``RMSprop``, as ``torch.optim.RMSprop``."""

from __future__ import annotations

from typing import Any

import torch

from ._state import PerParameterOptimizer, check_numbers
from .optimizer import ParamsT


class RMSprop(PerParameterOptimizer):
    """RMSprop, as ``torch.optim.RMSprop`` (same formulas, same order of operations).

    Per step, with ``g`` the gradient (negated when ``maximize``)::

        g = g + weight_decay * p
        v = alpha * v + (1 - alpha) * g * g
        avg = sqrt(v - m * m) if centered (m = lerp(m, g, 1 - alpha)) else sqrt(v);  avg += eps
        b = momentum * b + g / avg;  p -= lr * b     (p -= lr * g / avg without momentum)

    State per parameter: ``step``, ``square_avg``, and ``momentum_buffer`` / ``grad_avg`` when
    ``momentum > 0`` / ``centered``, named as torch's so state dicts interchange.

    >>> import minitorch_rx as mt
    >>> w = mt.tensor([1.0], requires_grad=True)
    >>> opt = RMSprop([w], lr=0.01)
    >>> w.grad = mt.tensor([2.0])
    >>> opt.step()
    >>> round(w.item(), 4)
    0.9
    """

    def buffers(self, group: dict[str, Any]) -> tuple[str, ...]:
        return (
            "square_avg",
            *(("momentum_buffer",) if group["momentum"] > 0 else ()),
            *(("grad_avg",) if group["centered"] else ()),
        )

    def __init__(
        self,
        params: ParamsT,
        lr: float = 1e-2,
        alpha: float = 0.99,
        eps: float = 1e-8,
        weight_decay: float = 0,
        momentum: float = 0,
        centered: bool = False,
        *,
        maximize: bool = False,
    ) -> None:
        check_numbers("RMSprop", lr, alpha=alpha, eps=eps, weight_decay=weight_decay, momentum=momentum)
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not 0.0 <= momentum:
            raise ValueError(f"Invalid momentum value: {momentum}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if not 0.0 <= alpha:
            raise ValueError(f"Invalid alpha value: {alpha}")
        defaults = {
            "lr": lr,
            "momentum": momentum,
            "alpha": alpha,
            "eps": eps,
            "centered": centered,
            "weight_decay": weight_decay,
            "maximize": maximize,
        }
        super().__init__(params, defaults)

    @staticmethod
    def update(param: torch.Tensor, grad: torch.Tensor, state: dict, group: dict) -> None:
        _rmsprop(param, grad, state, group)


def _rmsprop(param: torch.Tensor, grad: torch.Tensor, state: dict, group: dict) -> None:
    """torch's single-tensor RMSprop update of one parameter."""
    alpha, lr, momentum = group["alpha"], group["lr"], group["momentum"]
    grad = -grad if group["maximize"] else grad
    square_avg = state["square_avg"]
    state["step"] += 1
    if group["weight_decay"] != 0:
        grad = grad.add(param, alpha=group["weight_decay"])
    square_avg.mul_(alpha).addcmul_(grad, grad, value=1 - alpha)
    if group["centered"]:
        grad_avg = state["grad_avg"]
        grad_avg.lerp_(grad, 1 - alpha)
        avg = square_avg.addcmul(grad_avg, grad_avg, value=-1).sqrt_()
    else:
        avg = square_avg.sqrt()
    avg = avg.add_(group["eps"])
    if momentum > 0:
        buf = state["momentum_buffer"]
        buf.mul_(momentum).addcdiv_(grad, avg)
        param.add_(buf, alpha=-lr)
    else:
        param.addcdiv_(grad, avg, value=-lr)
