"""Padding layers, as PyTorch's: zeros, a constant, reflection, replication and circular padding
of the last 1, 2 or 3 dims (``F.pad``'s modes)."""

from __future__ import annotations

from collections.abc import Sequence

from ..autograd.tensor import Tensor
from ..ops.dims import int_tuple
from . import functional as F
from .module import Module


class _PadNd(Module):
    """``padding`` is an int (every side) or ``2 * n`` ints, last dim first:
    ``(left, right, top, bottom, front, back)``."""

    _n: int
    _mode: str

    def __init__(self, padding: int | Sequence[int]) -> None:
        super().__init__()
        if isinstance(padding, int):
            self.padding = (padding,) * (2 * self._n)
        else:
            self.padding = int_tuple(padding, type(self).__name__, "padding", 1)

    def forward(self, input: Tensor) -> Tensor:
        return F.pad(input, self.padding, self._mode)

    def extra_repr(self) -> str:
        return f"{self.padding}"


class _CircularPadNd(_PadNd):
    _mode = "circular"

    def forward(self, input: Tensor) -> Tensor:
        if input.dim() not in (self._n + 1, self._n + 2):
            raise ValueError(f"expected {self._n + 1}D or {self._n + 2}D input (got {input.dim()}D input)")
        return super().forward(input)


class _ConstantPadNd(_PadNd):
    def __init__(self, padding: int | Sequence[int], value: float) -> None:
        super().__init__(padding)
        self.value = value

    def forward(self, input: Tensor) -> Tensor:
        return F.pad(input, self.padding, "constant", self.value)

    def extra_repr(self) -> str:
        return f"padding={self.padding}, value={self.value}"


class ConstantPad1d(_ConstantPadNd):
    """Pad the last dim with ``value``."""

    _n = 1


class ConstantPad2d(_ConstantPadNd):
    """Pad the last 2 dims with ``value``."""

    _n = 2


class ConstantPad3d(_ConstantPadNd):
    """Pad the last 3 dims with ``value``."""

    _n = 3


class ZeroPad1d(ConstantPad1d):
    """Pad the last dim with zeros."""

    def __init__(self, padding: int | Sequence[int]) -> None:
        super().__init__(padding, 0.0)

    def extra_repr(self) -> str:
        return f"{self.padding}"


class ZeroPad2d(ConstantPad2d):
    """Pad the last 2 dims with zeros."""

    def __init__(self, padding: int | Sequence[int]) -> None:
        super().__init__(padding, 0.0)

    def extra_repr(self) -> str:
        return f"{self.padding}"


class ZeroPad3d(ConstantPad3d):
    """Pad the last 3 dims with zeros."""

    def __init__(self, padding: int | Sequence[int]) -> None:
        super().__init__(padding, 0.0)

    def extra_repr(self) -> str:
        return f"{self.padding}"


class ReflectionPad1d(_PadNd):
    """Pad the last dim with its reflection (the edge not repeated)."""

    _n, _mode = 1, "reflect"


class ReflectionPad2d(_PadNd):
    """Pad the last 2 dims with their reflection (the edge not repeated)."""

    _n, _mode = 2, "reflect"


class ReflectionPad3d(_PadNd):
    """Pad the last 3 dims with their reflection (the edge not repeated)."""

    _n, _mode = 3, "reflect"


class ReplicationPad1d(_PadNd):
    """Pad the last dim by repeating its edge."""

    _n, _mode = 1, "replicate"


class ReplicationPad2d(_PadNd):
    """Pad the last 2 dims by repeating their edges."""

    _n, _mode = 2, "replicate"


class ReplicationPad3d(_PadNd):
    """Pad the last 3 dims by repeating their edges."""

    _n, _mode = 3, "replicate"


class CircularPad1d(_CircularPadNd):
    """Pad the last dim by wrapping around."""

    _n = 1


class CircularPad2d(_CircularPadNd):
    """Pad the last 2 dims by wrapping around."""

    _n = 2


class CircularPad3d(_CircularPadNd):
    """Pad the last 3 dims by wrapping around."""

    _n = 3
