"""``ASGD`` (averaged SGD) and ``Rprop`` (resilient backpropagation), as ``torch.optim``'s."""

from __future__ import annotations

from typing import Any

import torch

from ..autograd.tensor import Tensor
from ._state import PerParameterOptimizer, check_numbers, check_pair, scalar_tensor
from .optimizer import ParamsT, data_of, scalar_lr


def _no_sparse(grad: torch.Tensor, owner: str) -> None:
    if grad.is_sparse:
        raise RuntimeError(f"{owner} does not support sparse gradients")


class ASGD(PerParameterOptimizer):
    """Averaged SGD, as ``torch.optim.ASGD`` (same formulas, same order of operations).

    Per step ``t``: ``p = p * (1 - lambd * eta) - eta * g``; the average ``ax`` follows ``p``
    with weight ``mu``; then ``eta = lr / (1 + lambd * lr * t) ** alpha`` and
    ``mu = 1 / max(1, t - t0)``. State: ``step``, ``eta``, ``mu`` (scalar tensors) and ``ax``.

    >>> import minitorch_rx as mt
    >>> w = mt.tensor([1.0], requires_grad=True)
    >>> opt = ASGD([w], lr=0.1)
    >>> w.grad = mt.tensor([2.0])
    >>> opt.step()
    >>> round(w.item(), 4)
    0.8
    """

    SCALARS = {"step": 0.0, "mu": 1.0}
    ON_PARAM_DEVICE = ("step", "mu")  # and eta: torch's ASGD keeps its scalars on the parameter's device
    BUFFERS = ("ax",)

    def __init__(
        self,
        params: ParamsT,
        lr: float | torch.Tensor = 1e-2,
        lambd: float = 1e-4,
        alpha: float = 0.75,
        t0: float = 1e6,
        weight_decay: float = 0,
        foreach: bool | None = None,
        maximize: bool = False,
        differentiable: bool = False,
        capturable: bool = False,
    ) -> None:
        check_numbers("ASGD", lr, lambd=lambd, alpha=alpha, t0=t0, weight_decay=weight_decay)
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        defaults = {
            "lr": lr,
            "lambd": lambd,
            "alpha": alpha,
            "t0": t0,
            "weight_decay": weight_decay,
            "foreach": foreach,
            "maximize": maximize,
            "differentiable": differentiable,
            "capturable": capturable,
        }
        super().__init__(params, defaults)

    def _state_for(self, param: Tensor, group: dict[str, Any]) -> dict[str, torch.Tensor]:
        state = super()._state_for(param, group)
        if "eta" not in state:
            state["eta"] = scalar_tensor(scalar_lr(group), data_of(param).device)
        return state

    @staticmethod
    def update(param: torch.Tensor, grad: torch.Tensor, state: dict, group: dict) -> None:
        """torch's single-tensor ASGD update of one parameter."""
        _no_sparse(grad, "ASGD")
        lambd, lr = group["lambd"], scalar_lr(group)
        grad = -grad if group["maximize"] else grad
        state["step"] += 1
        if group["weight_decay"] != 0:
            grad = grad.add(param, alpha=group["weight_decay"])
        eta = state["eta"].item()
        param.mul_(1 - lambd * eta)
        param.add_(grad, alpha=-eta)
        ax, mu = state["ax"], state["mu"]
        if mu.item() != 1:
            ax.add_(param.sub(ax).mul_(mu))
        else:
            ax.copy_(param)
        step = state["step"].item()
        state["eta"].copy_(torch.as_tensor(lr / ((1 + lambd * lr * step) ** group["alpha"])))
        state["mu"].copy_(torch.as_tensor(1 / max(1, step - group["t0"])))


class Rprop(PerParameterOptimizer):
    """Resilient backpropagation, as ``torch.optim.Rprop``: each element's step size grows by
    ``etas[1]`` while its gradient keeps its sign and shrinks by ``etas[0]`` when it flips (that
    step then skips the element), clamped to ``step_sizes``; ``p -= sign(g) * step_size``.
    State: ``step``, ``prev`` (the last gradient used) and ``step_size`` (starting at ``lr``).

    >>> import minitorch_rx as mt
    >>> w = mt.tensor([1.0], requires_grad=True)
    >>> opt = Rprop([w], lr=0.1)
    >>> w.grad = mt.tensor([2.0])
    >>> opt.step()
    >>> round(w.item(), 4)
    0.9
    """

    BUFFERS = ("prev",)  # its step on the CPU (the parameter's device when capturable), as torch's

    def __init__(
        self,
        params: ParamsT,
        lr: float | torch.Tensor = 1e-2,
        etas: tuple[float, float] = (0.5, 1.2),
        step_sizes: tuple[float, float] = (1e-6, 50),
        *,
        capturable: bool = False,
        foreach: bool | None = None,
        maximize: bool = False,
        differentiable: bool = False,
    ) -> None:
        check_numbers("Rprop", lr)
        check_pair("Rprop", "etas", etas)
        check_pair("Rprop", "step_sizes", step_sizes)
        if not 0.0 < etas[0] < 1.0 < etas[1]:
            raise ValueError(f"Invalid eta values: {etas[0]}, {etas[1]}")
        defaults = {
            "lr": lr,
            "etas": etas,
            "step_sizes": step_sizes,
            "foreach": foreach,
            "maximize": maximize,
            "differentiable": differentiable,
            "capturable": capturable,
        }
        super().__init__(params, defaults)

    def _state_for(self, param: Tensor, group: dict[str, Any]) -> dict[str, torch.Tensor]:
        state = super()._state_for(param, group)
        if "step_size" not in state:
            state["step_size"] = torch.full_like(data_of(param), scalar_lr(group))
        return state

    @staticmethod
    def update(param: torch.Tensor, grad: torch.Tensor, state: dict, group: dict) -> None:
        """torch's single-tensor Rprop update of one parameter."""
        _no_sparse(grad, "Rprop")
        etaminus, etaplus = group["etas"]
        step_size_min, step_size_max = group["step_sizes"]
        grad = -grad if group["maximize"] else grad
        prev, step_size = state["prev"], state["step_size"]
        state["step"] += 1
        sign = grad.mul(prev).sign()
        sign[sign.gt(0)] = etaplus
        sign[sign.lt(0)] = etaminus
        sign[sign.eq(0)] = 1
        step_size.mul_(sign).clamp_(step_size_min, step_size_max)
        grad = grad.clone(memory_format=torch.preserve_format)
        grad[sign.eq(etaminus)] = 0
        param.addcmul_(grad.sign(), step_size, value=-1)
        prev.copy_(grad)
