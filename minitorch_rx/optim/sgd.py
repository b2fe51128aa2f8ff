"""``SGD``: gradient descent with momentum, dampening, Nesterov, weight decay and maximize."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import torch

from ..ops.constants import check_number
from .optimizer import Optimizer, ParamsT, buckets, check_lr, datas, grads_of, kernels_on_ours, scalar_lr


class SGD(Optimizer):
    """Stochastic gradient descent, as ``torch.optim.SGD`` (same formulas, same order of ops).

    Per step, with ``g`` the gradient (negated when ``maximize``)::

        g = g + weight_decay * p
        b = g (first step) or momentum * b + (1 - dampening) * g      # when momentum != 0
        g = g + momentum * b (nesterov) or b
        p = p - lr * g

    >>> import minitorch_rx as mt
    >>> w = mt.tensor([1.0, 2.0], requires_grad=True)
    >>> opt = SGD([w], lr=0.1, momentum=0.9)
    >>> (w * w).sum().backward()
    >>> opt.step()
    >>> w
    tensor([0.8000, 1.6000], requires_grad=True)
    """

    def __init__(
        self,
        params: ParamsT,
        lr: float = 1e-3,
        momentum: float = 0,
        dampening: float = 0,
        weight_decay: float = 0,
        nesterov: bool = False,
        *,
        maximize: bool = False,
    ) -> None:
        check_lr(lr)
        for name, value in (("momentum", momentum), ("dampening", dampening), ("weight_decay", weight_decay)):
            check_number(value, "SGD", name)
        if momentum < 0.0:
            raise ValueError(f"Invalid momentum value: {momentum}")
        if weight_decay < 0.0:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        defaults = {
            "lr": lr,
            "momentum": momentum,
            "dampening": dampening,
            "weight_decay": weight_decay,
            "nesterov": nesterov,
            "maximize": maximize,
        }
        super().__init__(params, defaults)

    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        """Update every parameter that has a ``.grad``; return ``closure()``'s loss if given."""
        loss = self._closure_loss(closure)
        for group in self.param_groups:
            params = [p for p in group["params"] if p.grad is not None]
            if not params:
                continue
            data, grads = datas(params), grads_of(params)
            momentum = group["momentum"]
            states = [self.state[p] for p in params] if momentum != 0 else None
            with kernels_on_ours():
                for indices in buckets(data):
                    _sgd(
                        [data[i] for i in indices],
                        [grads[i] for i in indices],
                        None if states is None else [states[i] for i in indices],
                        group,
                    )
        return loss


def _sgd(params: list[torch.Tensor], grads: list[torch.Tensor], states: list[dict] | None, group: dict) -> None:
    """Torch's multi-tensor SGD on one bucket; ``states`` is None without momentum."""
    momentum, weight_decay = group["momentum"], group["weight_decay"]
    if group["maximize"]:
        grads = torch._foreach_neg(grads)
        if weight_decay != 0:
            torch._foreach_add_(grads, params, alpha=weight_decay)
    elif weight_decay != 0:
        grads = torch._foreach_add(grads, params, alpha=weight_decay)

    if states is not None:
        bufs = [state.get("momentum_buffer") for state in states]
        if all(buf is not None for buf in bufs):
            torch._foreach_mul_(bufs, momentum)
            torch._foreach_add_(bufs, grads, alpha=1 - group["dampening"])
        else:
            for i, (state, grad) in enumerate(zip(states, grads, strict=True)):
                if bufs[i] is None:
                    # torch.clone, not grad.clone(): grad may be an mt tensor (grads_of), whose method is ours
                    bufs[i] = state["momentum_buffer"] = torch.clone(grad)
                else:
                    bufs[i].mul_(momentum).add_(grad, alpha=1 - group["dampening"])
        # Out of place: ``grads`` may still be the parameters' own .grad tensors.
        grads = torch._foreach_add(grads, bufs, alpha=momentum) if group["nesterov"] else bufs

    torch._foreach_add_(params, grads, alpha=-scalar_lr(group))
