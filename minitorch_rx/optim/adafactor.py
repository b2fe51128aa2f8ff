"""``Adafactor``, as ``torch.optim.Adafactor``: factored second moments for matrices."""

from __future__ import annotations

from typing import Any

import torch

from ..autograd.tensor import Tensor
from ._state import PerParameterOptimizer, check_numbers, check_pair
from .optimizer import ParamsT, data_of, scalar_lr


class Adafactor(PerParameterOptimizer):
    """Adafactor, as ``torch.optim.Adafactor`` (same formulas, same order of operations).

    A parameter of 2 or more dims keeps the mean squared gradient of each row (``row_var``) and
    each column (``col_var``) of its last two dims, whose outer product over the rows' mean
    estimates the second moment; a vector keeps ``variance``. Both decay with
    ``1 - beta2 = t ** beta2_decay``. The update ``g / sqrt(v)`` is clipped to RMS ``d`` and
    scaled by ``max(eps2, RMS(p)) * min(lr, 1 / sqrt(t))``; ``weight_decay`` is decoupled.

    >>> import minitorch_rx as mt
    >>> w = mt.tensor([1.0], requires_grad=True)
    >>> opt = Adafactor([w], lr=0.1)
    >>> w.grad = mt.tensor([2.0])
    >>> opt.step()
    >>> round(w.item(), 4)
    0.9
    """

    def __init__(
        self,
        params: ParamsT,
        lr: float | torch.Tensor = 1e-2,
        beta2_decay: float = -0.8,
        eps: tuple[float | None, float] = (None, 1e-3),
        d: float = 1.0,
        weight_decay: float = 0.0,
        *,
        foreach: bool | None = None,
        maximize: bool = False,
    ) -> None:
        if isinstance(lr, (torch.Tensor, Tensor)) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if isinstance(lr, (int, float, torch.Tensor, Tensor)) and not isinstance(lr, bool) and not 0.0 <= lr:
            raise ValueError(f"Learning rate should be >= 0 but is: {lr}")
        check_numbers("Adafactor", lr, beta2_decay=beta2_decay, d=d, weight_decay=weight_decay)
        check_pair("Adafactor", "eps", eps, first_optional=True)
        if not 0.0 >= beta2_decay:
            raise ValueError(f"beta2_decay should be <= 0 but is: {beta2_decay}")
        if eps[0] is not None and not 0.0 <= eps[0]:
            raise ValueError(f"epsilon1 should be >= 0 but is: {eps[0]}")
        if not 0.0 <= eps[1]:
            raise ValueError(f"epsilon2 should be >= 0 but is: {eps[1]}")
        if not 1.0 <= d:
            raise ValueError(f"Clipping threshold d should be >= 1 but is: {d}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"weight_decay should be >= 0 but is: {weight_decay}")
        defaults = {
            "lr": lr,
            "beta2_decay": beta2_decay,
            "eps": eps,
            "d": d,
            "weight_decay": weight_decay,
            "foreach": foreach,
            "maximize": maximize,
        }
        super().__init__(params, defaults)

    def _state_for(self, param: Tensor, group: dict[str, Any]) -> dict[str, torch.Tensor]:
        grad = data_of(param.grad)
        if torch.is_complex(data_of(param)):
            raise RuntimeError("Adafactor does not support complex parameters")
        if grad.is_sparse:
            raise RuntimeError("Adafactor does not support sparse gradients")
        state = super()._state_for(param, group)
        if "row_var" not in state and "variance" not in state:
            if grad.dim() > 1:
                state["row_var"] = grad.new_zeros((*grad.shape[:-1], 1))
                state["col_var"] = grad.new_zeros((*grad.shape[:-2], 1, grad.shape[-1]))
            else:
                state["variance"] = torch.zeros_like(grad, memory_format=torch.preserve_format)
        return state

    @staticmethod
    def update(param: torch.Tensor, grad: torch.Tensor, state: dict, group: dict) -> None:
        """torch's single-tensor Adafactor update of one parameter."""
        lr, d, weight_decay = scalar_lr(group), group["d"], group["weight_decay"]
        eps1, eps2 = group["eps"]
        if eps1 is None:
            eps1 = torch.finfo(param.dtype).eps
        grad = -grad if group["maximize"] else grad
        state["step"] += 1
        step = state["step"].item()
        one_minus_beta2 = step ** group["beta2_decay"]
        rho = min(lr, 1 / (step**0.5))
        alpha = max(eps2, param.norm(2).item() / (param.numel() ** 0.5)) * rho
        if weight_decay != 0:
            param.mul_(1 - lr * weight_decay)
        if grad.dim() > 1:
            row_var, col_var = state["row_var"], state["col_var"]
            row_var.lerp_(
                torch.linalg.vector_norm(grad, dim=-1, keepdim=True).square_().div_(grad.size(-1)), one_minus_beta2
            )
            col_var.lerp_(
                torch.linalg.vector_norm(grad, dim=-2, keepdim=True).square_().div_(grad.size(-2)), one_minus_beta2
            )
            estimate = row_var @ col_var
            estimate.div_(row_var.mean(dim=-2, keepdim=True).clamp_(min=eps1))
        else:
            variance = state["variance"]
            variance.lerp_(grad * grad, one_minus_beta2)
            estimate = variance.clone()
        update = estimate.clamp_(min=eps1 * eps1).rsqrt_().mul_(grad)
        denominator = max(1.0, update.norm(2).item() / ((update.numel() ** 0.5) * d))
        param.add_(update, alpha=-alpha / denominator)
