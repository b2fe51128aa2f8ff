"""The lazy convolutions (``LazyConv1d`` ... ``LazyConvTranspose3d``): ``in_channels`` is read from
the first input, as PyTorch's.

Until that first forward the weight is an empty placeholder (``[out_channels, 0, *kernel_size]``)
that follows ``.to()``/``.double()``; the first forward gives it its shape, in the placeholder's
dtype and device, draws it as the eager layer would, and turns the module into that eager layer
(``LazyConv2d`` becomes a ``Conv2d``), as PyTorch's ``cls_to_become``.
"""

from __future__ import annotations

import torch

from ..autograd.tensor import Tensor
from .conv import Conv1d, Conv2d, Conv3d
from .conv_transpose import ConvTranspose1d, ConvTranspose2d, ConvTranspose3d
from .parameter import Parameter


class _LazyConvMixin:
    cls_to_become: type

    def reset_parameters(self) -> None:
        if not self.has_uninitialized_params():
            super().reset_parameters()

    def has_uninitialized_params(self) -> bool:
        return self.in_channels == 0

    def _materialize(self, input: Tensor) -> None:
        n = self._n
        if input.dim() not in (n + 1, n + 2):
            raise RuntimeError(
                f"Expected {n + 1}D (unbatched) or {n + 2}D (batched) input to {type(self).__name__}, "
                f"but got input of size: {list(input.shape)}"
            )
        self.in_channels = input.shape[0 if input.dim() == n + 1 else 1]
        if self.in_channels % self.groups != 0:
            raise ValueError("in_channels must be divisible by groups")
        like = self.weight._data
        channels = (
            (self.in_channels, self.out_channels // self.groups)
            if self.transposed
            else (self.out_channels, self.in_channels // self.groups)
        )
        self.weight = Parameter(torch.empty((*channels, *self.kernel_size), dtype=like.dtype, device=like.device))
        self.reset_parameters()
        self.__class__ = self.cls_to_become

    def __call__(self, input: Tensor, *args, **kwargs):
        self._materialize(input)  # and from here on the module is its eager class
        return self(input, *args, **kwargs)


def _lazy_conv(eager: type) -> type:
    def __init__(self, out_channels: int, kernel_size, *args, **kwargs) -> None:
        eager.__init__(self, 0, out_channels, kernel_size, *args, **kwargs)

    __init__.__doc__ = f"As ``{eager.__name__}`` without ``in_channels``, which the first input gives."
    return type(f"Lazy{eager.__name__}", (_LazyConvMixin, eager), {"__init__": __init__, "cls_to_become": eager})


LazyConv1d = _lazy_conv(Conv1d)
LazyConv2d = _lazy_conv(Conv2d)
LazyConv3d = _lazy_conv(Conv3d)
LazyConvTranspose1d = _lazy_conv(ConvTranspose1d)
LazyConvTranspose2d = _lazy_conv(ConvTranspose2d)
LazyConvTranspose3d = _lazy_conv(ConvTranspose3d)
