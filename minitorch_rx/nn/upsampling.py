"""``Upsample``, ``UpsamplingNearest2d`` and ``UpsamplingBilinear2d``, as PyTorch's (``F.interpolate``)."""

from __future__ import annotations

from ..autograd.tensor import Tensor
from . import functional as F
from .module import Module


class Upsample(Module):
    """Resize (N, C, *spatial) inputs to ``size`` or by ``scale_factor`` with ``F.interpolate``'s
    ``mode`` ('nearest', 'linear', 'bilinear', 'bicubic', 'trilinear', 'area', 'nearest-exact')."""

    def __init__(
        self,
        size: int | tuple[int, ...] | None = None,
        scale_factor: float | tuple[float, ...] | None = None,
        mode: str = "nearest",
        align_corners: bool | None = None,
        recompute_scale_factor: bool | None = None,
    ) -> None:
        super().__init__()
        self.name = type(self).__name__
        self.size = size
        if isinstance(scale_factor, tuple):
            self.scale_factor = tuple(float(factor) for factor in scale_factor)
        else:
            self.scale_factor = float(scale_factor) if scale_factor else None
        self.mode = mode
        self.align_corners = align_corners
        self.recompute_scale_factor = recompute_scale_factor

    def forward(self, input: Tensor) -> Tensor:
        return F.interpolate(
            input,
            self.size,
            self.scale_factor,
            self.mode,
            self.align_corners,
            recompute_scale_factor=self.recompute_scale_factor,
        )

    def extra_repr(self) -> str:
        info = f"scale_factor={self.scale_factor!r}" if self.scale_factor is not None else f"size={self.size!r}"
        return f"{info}, mode={self.mode!r}"


class UpsamplingNearest2d(Upsample):
    """Nearest-neighbour upsampling of (N, C, H, W) inputs."""

    def __init__(self, size: int | tuple[int, int] | None = None, scale_factor: float | None = None) -> None:
        super().__init__(size, scale_factor, mode="nearest")


class UpsamplingBilinear2d(Upsample):
    """Bilinear upsampling of (N, C, H, W) inputs with ``align_corners=True``."""

    def __init__(self, size: int | tuple[int, int] | None = None, scale_factor: float | None = None) -> None:
        super().__init__(size, scale_factor, mode="bilinear", align_corners=True)
