"""``Conv1d``, ``Conv2d``, ``Conv3d``: PyTorch's layers on the engine's im2col convolutions."""

from __future__ import annotations

from collections.abc import Callable

import torch

from ..autograd.tensor import Tensor
from ..ops.constants import check_number
from . import functional as F
from ._tuples import _ntuple, _reverse_repeat_tuple
from .linear import reset_weight_and_bias
from .module import Module
from .parameter import Parameter

_PADDING_MODES = {"zeros", "reflect", "replicate", "circular"}
_PADDING_STRINGS = {"same", "valid"}


class _ConvNd(Module):
    """Shared by the N-d convolutions: arguments, checks, parameters, padding modes and repr.

    ``weight`` is ``[out_channels, in_channels // groups, *kernel_size]`` (transposed:
    ``[in_channels, out_channels // groups, *kernel_size]``) and ``bias`` ``[out_channels]``, both
    initialized as PyTorch's (see ``Linear``).
    """

    _n: int
    _conv: Callable[..., Tensor]
    _transposed = False

    def __init__(
        self,
        in_channels: int,
        out_channels: int,
        kernel_size: int | tuple[int, ...],
        stride: int | tuple[int, ...] = 1,
        padding: str | int | tuple[int, ...] = 0,
        dilation: int | tuple[int, ...] = 1,
        groups: int = 1,
        bias: bool = True,
        padding_mode: str = "zeros",
        device: torch.device | str | None = None,
        dtype: torch.dtype | None = None,
    ) -> None:
        super().__init__()
        as_tuple = _ntuple(self._n)
        kernel_size, stride, dilation = as_tuple(kernel_size), as_tuple(stride), as_tuple(dilation)
        check_number(groups, type(self).__name__, "groups", integer=True)
        if not isinstance(padding_mode, str):
            raise TypeError(
                f"{type(self).__name__}(): argument 'padding_mode' must be str, not {type(padding_mode).__name__}"
            )
        if groups <= 0:
            raise ValueError("groups must be a positive integer")
        if in_channels % groups != 0:
            raise ValueError("in_channels must be divisible by groups")
        if out_channels % groups != 0:
            raise ValueError("out_channels must be divisible by groups")
        if isinstance(padding, str):
            if padding not in _PADDING_STRINGS:
                raise ValueError(f"Invalid padding string {padding!r}, should be one of {_PADDING_STRINGS}")
            if padding == "same" and any(s != 1 for s in stride):
                raise ValueError("padding='same' is not supported for strided convolutions")
        else:
            padding = as_tuple(padding)
        if padding_mode not in _PADDING_MODES:
            raise ValueError(f"padding_mode must be one of {_PADDING_MODES}, but got padding_mode='{padding_mode}'")
        self.in_channels = in_channels
        self.out_channels = out_channels
        self.kernel_size = kernel_size
        self.stride = stride
        self.padding = padding
        self.dilation = dilation
        self.transposed = self._transposed
        self.output_padding = as_tuple(0)
        self.groups = groups
        self.padding_mode = padding_mode
        self._reversed_padding_repeated_twice = _explicit_padding(padding, kernel_size, dilation)
        channels = (in_channels, out_channels // groups) if self.transposed else (out_channels, in_channels // groups)
        self.weight = Parameter(torch.empty((*channels, *kernel_size), device=device, dtype=dtype))
        if bias:
            self.bias = Parameter(torch.empty(out_channels, device=device, dtype=dtype))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """Redraw the weight and bias from PyTorch's default distributions."""
        reset_weight_and_bias(self.weight, self.bias)

    def _conv_forward(self, input: Tensor, weight: Tensor, bias: Tensor | None) -> Tensor:
        pads = self._reversed_padding_repeated_twice
        if self.padding_mode != "zeros":
            input = F.pad(input, pads, mode=self.padding_mode)
        elif not isinstance(self.padding, str):
            return self._conv(input, weight, bias, self.stride, self.padding, self.dilation, self.groups)
        elif pads[0::2] == pads[1::2]:
            padding = tuple(reversed(pads[0::2]))
            return self._conv(input, weight, bias, self.stride, padding, self.dilation, self.groups)
        else:  # 'same' with an even kernel extent: the extra zero goes on the right, as in PyTorch
            input = F.pad(input, pads)
        return self._conv(input, weight, bias, self.stride, (0,) * self._n, self.dilation, self.groups)

    def forward(self, input: Tensor) -> Tensor:
        return self._conv_forward(input, self.weight, self.bias)

    def extra_repr(self) -> str:
        s = "{in_channels}, {out_channels}, kernel_size={kernel_size}, stride={stride}"
        if self.padding != (0,) * len(self.padding):
            s += ", padding={padding}"
        if self.dilation != (1,) * len(self.dilation):
            s += ", dilation={dilation}"
        if self.output_padding != (0,) * len(self.output_padding):
            s += ", output_padding={output_padding}"
        if self.groups != 1:
            s += ", groups={groups}"
        if self.bias is None:
            s += ", bias=False"
        if self.padding_mode != "zeros":
            s += ", padding_mode={padding_mode}"
        return s.format(**self.__dict__)


def _explicit_padding(padding: str | tuple[int, ...], kernel_size: tuple, dilation: tuple) -> tuple[int, ...]:
    """Per-side padding, last dim first (``F.pad``'s order); 'same' puts an odd extra right."""
    if not isinstance(padding, str):
        return _reverse_repeat_tuple(padding, 2)
    pads = [0, 0] * len(kernel_size)
    if padding == "same":
        for i, (d, k) in enumerate(zip(reversed(dilation), reversed(kernel_size), strict=True)):
            total = d * (k - 1)
            pads[2 * i] = total // 2
            pads[2 * i + 1] = total - total // 2
    return tuple(pads)


class Conv1d(_ConvNd):
    """1-D convolution over ``(N, C_in, L)`` (or unbatched ``(C_in, L)``) inputs."""

    _n = 1
    _conv = staticmethod(F.conv1d)


class Conv2d(_ConvNd):
    """2-D convolution over ``(N, C_in, H, W)`` (or unbatched ``(C_in, H, W)``) inputs."""

    _n = 2
    _conv = staticmethod(F.conv2d)


class Conv3d(_ConvNd):
    """3-D convolution over ``(N, C_in, D, H, W)`` (or unbatched ``(C_in, D, H, W)``) inputs."""

    _n = 3
    _conv = staticmethod(F.conv3d)
