"""``ConvTranspose1d``, ``ConvTranspose2d``, ``ConvTranspose3d``: PyTorch's layers on the engine's
col2im transposed convolutions (``ops/conv_transpose.py``)."""

from __future__ import annotations

from collections.abc import Sequence

import torch

from ..autograd.tensor import Tensor
from . import functional as F
from ._tuples import _ntuple
from .conv import _ConvNd


class _ConvTransposeNd(_ConvNd):
    """Shared by the transposed convolutions: ``weight`` is ``[in_channels, out_channels // groups,
    *kernel_size]`` and ``bias`` ``[out_channels]``, initialized as PyTorch's. ``forward`` takes an
    optional ``output_size`` (the spatial sizes, or with the batch and channel dims) that picks the
    output padding among the sizes the stride allows."""

    _transposed = True

    def __init__(
        self,
        in_channels: int,
        out_channels: int,
        kernel_size: int | tuple[int, ...],
        stride: int | tuple[int, ...] = 1,
        padding: int | tuple[int, ...] = 0,
        output_padding: int | tuple[int, ...] = 0,
        groups: int = 1,
        bias: bool = True,
        dilation: int | tuple[int, ...] = 1,
        padding_mode: str = "zeros",
        device: torch.device | str | None = None,
        dtype: torch.dtype | None = None,
    ) -> None:
        if padding_mode != "zeros":
            raise ValueError(f'Only "zeros" padding mode is supported for {type(self).__name__}')
        if isinstance(padding, str):
            raise ValueError(f"padding='{padding}' is not supported for {type(self).__name__}")
        super().__init__(
            in_channels, out_channels, kernel_size, stride, padding, dilation, groups, bias, padding_mode, device, dtype
        )
        self.output_padding = _ntuple(self._n)(output_padding)

    def _output_padding(self, input: Tensor, output_size: Sequence[int] | None) -> tuple[int, ...]:
        """``output_padding``, or the one that gives ``output_size`` (PyTorch's check and wording)."""
        if output_size is None:
            return self.output_padding
        nd = self._n
        non_spatial = 2 if input.dim() == nd + 2 else 1
        output_size = tuple(output_size)
        if len(output_size) == non_spatial + nd:
            output_size = output_size[non_spatial:]
        if len(output_size) != nd:
            raise ValueError(
                f"ConvTranspose{nd}D: for {input.dim()}D input, output_size must have {nd} or "
                f"{non_spatial + nd} elements (got {len(output_size)})"
            )
        spatial = input.shape[non_spatial:]
        min_sizes = [
            (spatial[d] - 1) * self.stride[d] - 2 * self.padding[d] + self.dilation[d] * (self.kernel_size[d] - 1) + 1
            for d in range(nd)
        ]
        max_sizes = [size + self.stride[d] - 1 for d, size in enumerate(min_sizes)]
        for size, low, high in zip(output_size, min_sizes, max_sizes, strict=True):
            if not low <= size <= high:
                raise ValueError(
                    f"requested an output size of {output_size}, but valid sizes range from {min_sizes} to "
                    f"{max_sizes} (for an input of {spatial})"
                )
        return tuple(size - low for size, low in zip(output_size, min_sizes, strict=True))

    def forward(self, input: Tensor, output_size: Sequence[int] | None = None) -> Tensor:
        output_padding = self._output_padding(input, output_size)
        return self._conv(
            input, self.weight, self.bias, self.stride, self.padding, output_padding, self.groups, self.dilation
        )


class ConvTranspose1d(_ConvTransposeNd):
    """1-D transposed convolution over ``(N, C_in, L)`` (or unbatched ``(C_in, L)``) inputs."""

    _n = 1
    _conv = staticmethod(F.conv_transpose1d)


class ConvTranspose2d(_ConvTransposeNd):
    """2-D transposed convolution over ``(N, C_in, H, W)`` (or unbatched ``(C_in, H, W)``) inputs."""

    _n = 2
    _conv = staticmethod(F.conv_transpose2d)


class ConvTranspose3d(_ConvTransposeNd):
    """3-D transposed convolution over ``(N, C_in, D, H, W)`` (or unbatched ``(C_in, D, H, W)``) inputs."""

    _n = 3
    _conv = staticmethod(F.conv_transpose3d)
