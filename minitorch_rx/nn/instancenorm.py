"""``InstanceNorm1d/2d/3d``: PyTorch's defaults (no affine parameters, no running statistics),
buffers and state-dict layout, shared with ``BatchNorm``."""

from __future__ import annotations

import warnings

import torch

from ..autograd.tensor import Tensor
from . import functional as F
from .batchnorm import _BatchNorm


class _InstanceNorm(_BatchNorm):
    """Normalize each sample's channels over their spatial dims, as ``torch.nn.InstanceNorm*``.

    ``weight``/``bias`` (C,) when ``affine``; ``running_mean``/``running_var`` when
    ``track_running_stats``, updated in training and used in evaluation (``momentum=None`` counts
    as 0, and ``num_batches_tracked`` stays 0, as in PyTorch). Unbatched inputs are accepted.
    """

    _spatial_dims: int

    def __init__(
        self,
        num_features: int,
        eps: float = 1e-5,
        momentum: float | None = 0.1,
        affine: bool = False,
        track_running_stats: bool = False,
        device: torch.device | str | None = None,
        dtype: torch.dtype | None = None,
        *,
        bias: bool = True,
    ) -> None:
        super().__init__(num_features, eps, momentum, affine, track_running_stats, device, dtype, bias=bias)

    def forward(self, input: Tensor) -> Tensor:
        unbatched = self._spatial_dims + 1
        if input.dim() not in (unbatched, unbatched + 1):
            raise ValueError(f"expected {unbatched}D or {unbatched + 1}D input (got {input.dim()}D input)")
        feature_dim = input.dim() - unbatched
        if input.shape[feature_dim] != self.num_features:
            if self.affine:
                raise ValueError(
                    f"expected input's size at dim={feature_dim} to match num_features ({self.num_features}), "
                    f"but got: {input.shape[feature_dim]}."
                )
            warnings.warn(
                f"input's size at dim={feature_dim} does not match num_features. You can silence this warning "
                "by not passing in num_features, which is not used because affine=False",
                stacklevel=2,
            )
        batched = input if feature_dim == 1 else input.unsqueeze(0)
        out = F.instance_norm(
            batched,
            self.running_mean,
            self.running_var,
            self.weight,
            self.bias,
            self.training or not self.track_running_stats,
            0.0 if self.momentum is None else self.momentum,
            self.eps,
        )
        return out if feature_dim == 1 else out.squeeze(0)


class InstanceNorm1d(_InstanceNorm):
    """Instance norm over ``(N, C, L)`` or unbatched ``(C, L)`` inputs."""

    _spatial_dims = 1


class InstanceNorm2d(_InstanceNorm):
    """Instance norm over ``(N, C, H, W)`` or unbatched ``(C, H, W)`` inputs."""

    _spatial_dims = 2


class InstanceNorm3d(_InstanceNorm):
    """Instance norm over ``(N, C, D, H, W)`` or unbatched ``(C, D, H, W)`` inputs."""

    _spatial_dims = 3
