"""``BatchNorm1d/2d/3d``: PyTorch's buffers, momentum rules and state-dict layout."""

from __future__ import annotations

import torch

from .. import init
from ..autograd.tensor import Tensor
from . import functional as F
from .module import Module
from .parameter import Parameter


class _BatchNorm(Module):
    """Normalize over the batch (and spatial) dims per channel, as ``torch.nn.BatchNorm*``.

    Parameters ``weight`` (ones) and ``bias`` (zeros) when ``affine``; buffers ``running_mean``,
    ``running_var`` and ``num_batches_tracked`` when ``track_running_stats``. In training mode
    batch statistics normalize and update the running ones with ``momentum``
    (``momentum=None``: a cumulative average over ``num_batches_tracked`` batches); in eval
    mode the running statistics normalize (batch statistics if none are tracked).
    """

    _version = 2
    _input_dims: tuple[int, ...]

    def __init__(
        self,
        num_features: int,
        eps: float = 1e-5,
        momentum: float | None = 0.1,
        affine: bool = True,
        track_running_stats: bool = True,
        device: torch.device | str | None = None,
        dtype: torch.dtype | None = None,
        *,
        bias: bool = True,
    ) -> None:
        super().__init__()
        self.num_features = num_features
        self.eps = eps
        self.momentum = momentum
        self.affine = affine
        self.track_running_stats = track_running_stats
        if affine:
            self.weight = Parameter(torch.empty(num_features, device=device, dtype=dtype))
            if bias:
                self.bias = Parameter(torch.empty(num_features, device=device, dtype=dtype))
            else:
                self.register_parameter("bias", None)
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)
        if track_running_stats:
            self.register_buffer("running_mean", torch.zeros(num_features, device=device, dtype=dtype))
            self.register_buffer("running_var", torch.ones(num_features, device=device, dtype=dtype))
            self.register_buffer("num_batches_tracked", torch.tensor(0, dtype=torch.long, device=device))
        else:
            self.register_buffer("running_mean", None)
            self.register_buffer("running_var", None)
            self.register_buffer("num_batches_tracked", None)
        self.reset_parameters()

    def reset_running_stats(self) -> None:
        """Running mean 0, running variance 1, no batches seen."""
        if self.track_running_stats:
            self.running_mean._data.zero_()
            self.running_var._data.fill_(1)
            self.num_batches_tracked._data.zero_()

    def reset_parameters(self) -> None:
        """Reset the running statistics, weight to ones and bias to zeros."""
        self.reset_running_stats()
        if self.affine:
            init.ones_(self.weight)
            if self.bias is not None:
                init.zeros_(self.bias)

    def forward(self, input: Tensor) -> Tensor:
        if input.dim() not in self._input_dims:
            expected = " or ".join(f"{d}D" for d in self._input_dims)
            raise ValueError(f"expected {expected} input (got {input.dim()}D input)")
        factor = 0.0 if self.momentum is None else self.momentum
        if self.training and self.track_running_stats and self.num_batches_tracked is not None:
            self.num_batches_tracked._data.add_(1)
            if self.momentum is None:
                factor = 1.0 / float(self.num_batches_tracked._data)
        use_batch_stats = self.training or (self.running_mean is None and self.running_var is None)
        # Running statistics are passed only when they are to be used or updated.
        pass_stats = not self.training or self.track_running_stats
        return F.batch_norm(
            input,
            self.running_mean if pass_stats else None,
            self.running_var if pass_stats else None,
            self.weight,
            self.bias,
            use_batch_stats,
            factor,
            self.eps,
        )

    def extra_repr(self) -> str:
        return (
            f"{self.num_features}, eps={self.eps}, momentum={self.momentum}, affine={self.affine}, "
            f"bias={self.bias is not None}, track_running_stats={self.track_running_stats}"
        )

    def _load_from_state_dict(
        self,
        state_dict: dict,
        prefix: str,
        local_metadata: dict,
        strict: bool,
        missing_keys: list[str],
        unexpected_keys: list[str],
        error_msgs: list[str],
    ) -> None:
        # State dicts from before num_batches_tracked existed (version < 2) load as PyTorch's do.
        version = local_metadata.get("version", None)
        key = prefix + "num_batches_tracked"
        if (version is None or version < 2) and self.track_running_stats and key not in state_dict:
            tracked = self.num_batches_tracked
            state_dict[key] = tracked if tracked is not None else torch.tensor(0, dtype=torch.long)
        super()._load_from_state_dict(
            state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys, error_msgs
        )


class BatchNorm1d(_BatchNorm):
    """Batch norm over ``(N, C)`` or ``(N, C, L)`` inputs."""

    _input_dims = (2, 3)


class BatchNorm2d(_BatchNorm):
    """Batch norm over ``(N, C, H, W)`` inputs."""

    _input_dims = (4,)


class BatchNorm3d(_BatchNorm):
    """Batch norm over ``(N, C, D, H, W)`` inputs."""

    _input_dims = (5,)
