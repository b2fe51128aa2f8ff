"""``Muon``, as ``torch.optim.Muon``: momentum orthogonalized by Newton-Schulz, for 2-D parameters."""

from __future__ import annotations

import math
from typing import Any

import torch

from ..autograd.tensor import Tensor, is_torch_data
from ..ops.constants import check_number
from ._state import check_numbers
from .optimizer import Optimizer, ParamsT, check_lr, data_of, params_with_grad

EPS = 1e-7
DEFAULT_A, DEFAULT_B, DEFAULT_C = 3.4445, -4.7750, 2.0315
DEFAULT_NS_STEPS = 5


class Muon(Optimizer):
    """Muon, as ``torch.optim.Muon`` (same formulas, same order of operations, the
    orthogonalization in bfloat16 as PyTorch's).

    Per step: ``B = lerp(B, g, 1 - momentum)``; the update ``lerp(g, B, momentum)`` (Nesterov) or
    ``B`` is orthogonalized by ``ns_steps`` quintic Newton-Schulz iterations with coefficients
    ``ns_coefficients``; ``p *= 1 - lr * weight_decay``; ``p -= adjusted_lr * O``, with ``lr``
    scaled by the shape as ``adjust_lr_fn`` says (``'original'``: ``sqrt(max(1, A / B))``,
    ``'match_rms_adamw'``: ``0.2 * sqrt(max(A, B))``, ``'spectral_unclamped'``: ``sqrt(A / B)``).
    State: ``momentum_buffer``. Every parameter must be 2-D.
    """

    def __init__(
        self,
        params: ParamsT,
        lr: float | torch.Tensor = 1e-3,
        weight_decay: float = 0.1,
        momentum: float = 0.95,
        nesterov: bool = True,
        ns_coefficients: tuple[float, float, float] = (DEFAULT_A, DEFAULT_B, DEFAULT_C),
        eps: float = EPS,
        ns_steps: int = DEFAULT_NS_STEPS,
        adjust_lr_fn: str | None = None,
    ) -> None:
        if isinstance(lr, (torch.Tensor, Tensor)) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if isinstance(lr, (int, float, torch.Tensor, Tensor)) and not isinstance(lr, bool) and not 0.0 <= lr:
            raise ValueError(f"Learning rate should be >= 0 but is: {lr}")
        check_lr(lr)
        check_numbers("Muon", lr, weight_decay=weight_decay, momentum=momentum, eps=eps)
        check_number(ns_steps, "Muon", "ns_steps", integer=True)
        if not 0.0 <= momentum:
            raise ValueError(f"momentum should be >= 0 but is: {momentum}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"weight decay should be >= 0 but is: {weight_decay}")
        if adjust_lr_fn is not None and adjust_lr_fn not in ("original", "match_rms_adamw", "spectral_unclamped"):
            raise ValueError(f"Adjust learning rate function {adjust_lr_fn} is not supported")
        defaults = {
            "lr": lr,
            "weight_decay": weight_decay,
            "momentum": momentum,
            "nesterov": nesterov,
            "ns_coefficients": ns_coefficients,
            "eps": eps,
            "ns_steps": ns_steps,
            "adjust_lr_fn": adjust_lr_fn,
        }
        super().__init__(params, defaults)
        for group in self.param_groups:
            for p in group["params"]:
                if p.dim() != 2:
                    raise ValueError(
                        f"Muon only supports 2D parameters whereas we found a parameter with size: {p.size()}"
                    )

    def step(self, closure=None) -> Any:
        """Update every parameter that has a ``.grad``; return ``closure()``'s loss if given."""
        loss = self._closure_loss(closure)
        for group in self.param_groups:
            lr, momentum = _torch_lr(group["lr"]), group["momentum"]
            params, grads = params_with_grad(group)
            for param, grad in zip(params, grads, strict=True):
                if torch.is_complex(data_of(param)):
                    raise RuntimeError("Muon does not support complex parameters")
                if grad.is_sparse:
                    raise RuntimeError("Muon does not support sparse gradients")
                state = self.state[param]
                if "momentum_buffer" not in state:
                    state["momentum_buffer"] = torch.zeros_like(grad, memory_format=torch.preserve_format)
                if grad.dim() != 2:
                    raise ValueError("Param gradient must be a 2D matrix")
                buf = state["momentum_buffer"]
                buf.lerp_(grad, 1 - momentum)
                update = grad.lerp(buf, momentum) if group["nesterov"] else buf
                update = _newton_schulz(update, group["ns_coefficients"], group["ns_steps"], group["eps"])
                data = data_of(param)
                data.mul_(1 - lr * group["weight_decay"])
                data.add_(update, alpha=-_adjusted_lr(lr, group["adjust_lr_fn"], data.shape))
        return loss


def _torch_lr(lr):
    """A tensor ``lr`` stays a (0-dim) tensor, as in torch's Muon: its products are float32 then."""
    if isinstance(lr, Tensor):
        lr = lr._data
    return lr.squeeze() if is_torch_data(lr) and lr.dim() != 0 else lr


def _newton_schulz(grad: torch.Tensor, coefficients: tuple, steps: int, eps: float) -> torch.Tensor:
    """An approximately orthogonal matrix with ``grad``'s singular vectors (bfloat16, as torch's)."""
    if steps >= 100:
        raise ValueError("Number of steps must be less than 100 for computational efficiency")
    if len(coefficients) != 3:
        raise ValueError("Coefficients must be a tuple of exactly 3 values")
    a, b, c = coefficients
    tall = grad.size(0) > grad.size(1)
    ortho = grad.bfloat16()
    if tall:
        ortho = ortho.T
    ortho.div_(ortho.norm().clamp(min=eps))
    for _ in range(steps):
        gram = ortho @ ortho.T
        ortho = torch.addmm(ortho, torch.addmm(gram, gram, gram, beta=b, alpha=c), ortho, beta=a)
    return ortho.T if tall else ortho


def _adjusted_lr(lr: float, adjust_lr_fn: str | None, shape: torch.Size) -> float:
    rows, cols = shape[:2]
    if adjust_lr_fn is None or adjust_lr_fn == "original":
        return lr * math.sqrt(max(1, rows / cols))
    if adjust_lr_fn == "match_rms_adamw":
        return lr * 0.2 * math.sqrt(max(rows, cols))
    return lr * math.sqrt(rows / cols)
