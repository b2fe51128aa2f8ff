"""Clipping gradients in place: by their total norm, or elementwise by value. Nothing is recorded."""

from __future__ import annotations

from collections.abc import Iterable

import torch

from ...autograd.tensor import Tensor

__all__ = ["clip_grad_norm_", "clip_grad_value_"]


def _grads(parameters: Tensor | Iterable[Tensor]) -> list[torch.Tensor]:
    if isinstance(parameters, (Tensor, torch.Tensor)):
        parameters = [parameters]
    grads = []
    for p in parameters:
        grad = p.grad
        if grad is not None:
            grads.append(grad._data if isinstance(grad, Tensor) else grad)
    return grads


def clip_grad_norm_(
    parameters: Tensor | Iterable[Tensor],
    max_norm: float,
    norm_type: float = 2.0,
    error_if_nonfinite: bool = False,
    foreach: bool | None = None,
) -> Tensor:
    """Scale the gradients of ``parameters`` in place so that their norm, taken together as one
    vector, is at most ``max_norm``; returns that total norm (before clipping), as PyTorch's.

    >>> import minitorch_rx as mt
    >>> w = mt.zeros(2, requires_grad=True); w.grad = mt.tensor([3.0, 4.0])
    >>> mt.nn.utils.clip_grad_norm_([w], max_norm=1.0).item(), [round(g, 4) for g in w.grad.tolist()]
    (5.0, [0.6, 0.8])
    """
    grads = _grads(parameters)
    max_norm, norm_type = float(max_norm), float(norm_type)
    if not grads:
        return Tensor._make(torch.tensor(0.0), None)
    norms = [torch.linalg.vector_norm(g, norm_type) for g in grads]
    device = norms[0].device
    total_norm = torch.linalg.vector_norm(torch.stack([n.to(device) for n in norms]), norm_type)
    if error_if_nonfinite and (total_norm.isnan() or total_norm.isinf()):
        raise RuntimeError(
            f"The total norm of order {norm_type} for gradients from `parameters` is non-finite, so it cannot "
            "be clipped. To disable this error and scale the gradients by the non-finite norm anyway, set "
            "`error_if_nonfinite=False`"
        )
    clip_coef = torch.clamp(max_norm / (total_norm + 1e-6), max=1.0)
    for g in grads:
        g.mul_(clip_coef.to(g.device))
    return Tensor._make(total_norm, None)


def clip_grad_value_(parameters: Tensor | Iterable[Tensor], clip_value: float, foreach: bool | None = None) -> None:
    """Clamp every gradient of ``parameters`` into ``[-clip_value, clip_value]``, in place."""
    clip_value = float(clip_value)
    for g in _grads(parameters):
        g.clamp_(min=-clip_value, max=clip_value)
