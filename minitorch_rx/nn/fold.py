"""``Fold`` (col2im) and ``Unfold`` (im2col), as PyTorch's: each one's gradient is the other."""

from __future__ import annotations

from ..autograd.tensor import Tensor
from . import functional as F
from .module import Module

IntOrTuple = int | tuple[int, ...]


class Fold(Module):
    """Sum sliding blocks (N, C * prod(kernel_size), L) into (N, C, *output_size); see ``F.fold``."""

    def __init__(
        self,
        output_size: IntOrTuple,
        kernel_size: IntOrTuple,
        dilation: IntOrTuple = 1,
        padding: IntOrTuple = 0,
        stride: IntOrTuple = 1,
    ) -> None:
        super().__init__()
        self.output_size = output_size
        self.kernel_size = kernel_size
        self.dilation = dilation
        self.padding = padding
        self.stride = stride

    def forward(self, input: Tensor) -> Tensor:
        return F.fold(input, self.output_size, self.kernel_size, self.dilation, self.padding, self.stride)

    def extra_repr(self) -> str:
        return (
            f"output_size={self.output_size}, kernel_size={self.kernel_size}, dilation={self.dilation}, "
            f"padding={self.padding}, stride={self.stride}"
        )


class Unfold(Module):
    """Extract sliding blocks (N, C * prod(kernel_size), L) from (N, C, *spatial); see ``F.unfold``."""

    def __init__(
        self, kernel_size: IntOrTuple, dilation: IntOrTuple = 1, padding: IntOrTuple = 0, stride: IntOrTuple = 1
    ) -> None:
        super().__init__()
        self.kernel_size = kernel_size
        self.dilation = dilation
        self.padding = padding
        self.stride = stride

    def forward(self, input: Tensor) -> Tensor:
        return F.unfold(input, self.kernel_size, self.dilation, self.padding, self.stride)

    def extra_repr(self) -> str:
        return f"kernel_size={self.kernel_size}, dilation={self.dilation}, padding={self.padding}, stride={self.stride}"
