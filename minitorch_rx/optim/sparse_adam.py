"""``SparseAdam``, as ``torch.optim.SparseAdam``: Adam on the entries a sparse gradient holds."""

from __future__ import annotations

import math
from typing import Any

import torch

from ..ops.constants import check_number
from ._state import check_pair
from .optimizer import Optimizer, ParamsT, check_lr, data_of, params_with_grad, scalar_lr


class SparseAdam(Optimizer):
    """SparseAdam, as ``torch.optim.SparseAdam`` (same formulas, same order of operations): the
    moments and the parameter change only at the entries the (sparse layout) gradient holds, by
    Adam's bias-corrected update there. Dense gradients are refused, as PyTorch's. State:
    ``step`` (an int), ``exp_avg``, ``exp_avg_sq``.
    """

    def __init__(
        self,
        params: ParamsT,
        lr: float | torch.Tensor = 1e-3,
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8,
        maximize: bool = False,
    ) -> None:
        check_lr(lr)
        check_number(eps, "SparseAdam", "eps")
        check_pair("SparseAdam", "betas", betas)
        if not 0.0 < lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 < eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not 0.0 <= betas[0] < 1.0:
            raise ValueError(f"Invalid beta parameter at index 0: {betas[0]}")
        if not 0.0 <= betas[1] < 1.0:
            raise ValueError(f"Invalid beta parameter at index 1: {betas[1]}")
        super().__init__(params, {"lr": lr, "betas": betas, "eps": eps, "maximize": maximize})
        sparse, complex_ = [], []
        for index, group in enumerate(self.param_groups):
            for d_index, param in enumerate(group["params"]):
                if data_of(param).is_sparse:
                    sparse.append([index, d_index])
                if data_of(param).is_complex():
                    complex_.append([index, d_index])
        if sparse:
            raise ValueError(f"Sparse params at indices {sparse}: SparseAdam requires dense parameter tensors")
        if complex_:
            raise ValueError(f"Complex params at indices {complex_}: SparseAdam does not support complex parameters")

    def step(self, closure=None) -> Any:
        """Update every parameter that has a ``.grad``; return ``closure()``'s loss if given."""
        loss = self._closure_loss(closure)
        for group in self.param_groups:
            params, grads = params_with_grad(group)
            for param, grad in zip(params, grads, strict=True):
                if not grad.is_sparse:
                    raise RuntimeError("SparseAdam does not support dense gradients, please consider Adam instead")
                state = self.state[param]
                if len(state) == 0:
                    state["step"] = 0
                    state["exp_avg"] = torch.zeros_like(data_of(param), memory_format=torch.preserve_format)
                    state["exp_avg_sq"] = torch.zeros_like(data_of(param), memory_format=torch.preserve_format)
                state["step"] += 1
                _sparse_adam(data_of(param), grad, state, group)
        return loss


def _sparse_adam(param: torch.Tensor, grad: torch.Tensor, state: dict, group: dict) -> None:
    """torch's SparseAdam update of one parameter."""
    beta1, beta2 = group["betas"]
    grad = (-grad if group["maximize"] else grad).coalesce()  # the update is not linear: unique indices
    indices, values = grad._indices(), grad._values()
    if values.numel() == 0:
        return

    def sparse(entries: torch.Tensor) -> torch.Tensor:
        if indices.dim() == 0 or entries.dim() == 0:
            return grad.new().resize_as_(grad)
        return grad.new(indices, entries, grad.size())

    exp_avg, exp_avg_sq = state["exp_avg"], state["exp_avg_sq"]
    old_exp_avg = exp_avg.sparse_mask(grad)._values()
    exp_avg_update = values.sub(old_exp_avg).mul_(1 - beta1)
    exp_avg.add_(sparse(exp_avg_update))
    old_exp_avg_sq = exp_avg_sq.sparse_mask(grad)._values()
    exp_avg_sq_update = values.pow(2).sub_(old_exp_avg_sq).mul_(1 - beta2)
    exp_avg_sq.add_(sparse(exp_avg_sq_update))
    numerator = exp_avg_update.add_(old_exp_avg)
    denominator = exp_avg_sq_update.add_(old_exp_avg_sq).sqrt_().add_(group["eps"])
    step = state["step"]
    step_size = scalar_lr(group) * math.sqrt(1 - beta2**step) / (1 - beta1**step)
    param.add_(sparse(-step_size * numerator.div_(denominator)))
