"""Pooling layers: max, average, adaptive average and max, max unpooling and power-average (LP), as
PyTorch's."""

from __future__ import annotations

from collections.abc import Callable

from ..autograd.tensor import Tensor
from ..ops.constants import check_number
from . import functional as F
from ._tuples import _ntuple, _single
from .module import Module


class _MaxPoolNd(Module):
    _pool: Callable[..., Tensor | tuple[Tensor, Tensor]]

    def __init__(
        self,
        kernel_size: int | tuple[int, ...],
        stride: int | tuple[int, ...] | None = None,
        padding: int | tuple[int, ...] = 0,
        dilation: int | tuple[int, ...] = 1,
        return_indices: bool = False,
        ceil_mode: bool = False,
    ) -> None:
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if stride is not None else kernel_size
        self.padding = padding
        self.dilation = dilation
        self.return_indices = return_indices
        self.ceil_mode = ceil_mode

    def forward(self, input: Tensor) -> Tensor | tuple[Tensor, Tensor]:
        return self._pool(
            input,
            self.kernel_size,
            self.stride,
            self.padding,
            self.dilation,
            ceil_mode=self.ceil_mode,
            return_indices=self.return_indices,
        )

    def extra_repr(self) -> str:
        return (
            "kernel_size={kernel_size}, stride={stride}, padding={padding}, dilation={dilation}, "
            "ceil_mode={ceil_mode}".format(**self.__dict__)
        )


class MaxPool1d(_MaxPoolNd):
    """Max over sliding windows of ``(N, C, L)`` inputs."""

    _pool = staticmethod(F.max_pool1d)


class MaxPool2d(_MaxPoolNd):
    """Max over sliding windows of ``(N, C, H, W)`` inputs."""

    _pool = staticmethod(F.max_pool2d)


class MaxPool3d(_MaxPoolNd):
    """Max over sliding windows of ``(N, C, D, H, W)`` inputs."""

    _pool = staticmethod(F.max_pool3d)


class _AvgPoolNd(Module):
    _pool: Callable[..., Tensor]

    def __init__(
        self,
        kernel_size: int | tuple[int, ...],
        stride: int | tuple[int, ...] | None = None,
        padding: int | tuple[int, ...] = 0,
        ceil_mode: bool = False,
        count_include_pad: bool = True,
        divisor_override: int | None = None,
    ) -> None:
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if stride is not None else kernel_size
        self.padding = padding
        self.ceil_mode = ceil_mode
        self.count_include_pad = count_include_pad
        self.divisor_override = divisor_override

    def forward(self, input: Tensor) -> Tensor:
        args = (self.kernel_size, self.stride, self.padding, self.ceil_mode, self.count_include_pad)
        if self.divisor_override is None:
            return self._pool(input, *args)
        return self._pool(input, *args, self.divisor_override)

    def extra_repr(self) -> str:
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class AvgPool1d(_AvgPoolNd):
    """Mean over sliding windows of ``(N, C, L)`` inputs (sizes kept as 1-tuples, as PyTorch's;
    no ``divisor_override``, as PyTorch's)."""

    _pool = staticmethod(F.avg_pool1d)

    def __init__(
        self,
        kernel_size: int | tuple[int],
        stride: int | tuple[int] | None = None,
        padding: int | tuple[int] = 0,
        ceil_mode: bool = False,
        count_include_pad: bool = True,
    ) -> None:
        super().__init__(
            _single(kernel_size),
            _single(stride if stride is not None else kernel_size),
            _single(padding),
            ceil_mode,
            count_include_pad,
        )


class AvgPool2d(_AvgPoolNd):
    """Mean over sliding windows of ``(N, C, H, W)`` inputs (``divisor_override``: a fixed divisor)."""

    _pool = staticmethod(F.avg_pool2d)


class AvgPool3d(_AvgPoolNd):
    """Mean over sliding windows of ``(N, C, D, H, W)`` inputs (``divisor_override``: a fixed divisor)."""

    _pool = staticmethod(F.avg_pool3d)


class _AdaptiveAvgPoolNd(Module):
    _pool: Callable[..., Tensor]

    def __init__(self, output_size: int | tuple[int | None, ...] | None) -> None:
        super().__init__()
        self.output_size = output_size

    def forward(self, input: Tensor) -> Tensor:
        return self._pool(input, self.output_size)

    def extra_repr(self) -> str:
        return f"output_size={self.output_size}"


class AdaptiveAvgPool1d(_AdaptiveAvgPoolNd):
    """Mean pooling to a fixed output length."""

    _pool = staticmethod(F.adaptive_avg_pool1d)


class AdaptiveAvgPool2d(_AdaptiveAvgPoolNd):
    """Mean pooling to a fixed output height and width (``None`` keeps the input's)."""

    _pool = staticmethod(F.adaptive_avg_pool2d)


class AdaptiveAvgPool3d(_AdaptiveAvgPoolNd):
    """Mean pooling to a fixed output depth, height and width."""

    _pool = staticmethod(F.adaptive_avg_pool3d)


class _AdaptiveMaxPoolNd(Module):
    _pool: Callable[..., Tensor | tuple[Tensor, Tensor]]

    def __init__(self, output_size: int | tuple[int | None, ...] | None, return_indices: bool = False) -> None:
        super().__init__()
        self.output_size = output_size
        self.return_indices = return_indices

    def forward(self, input: Tensor) -> Tensor | tuple[Tensor, Tensor]:
        return self._pool(input, self.output_size, self.return_indices)

    def extra_repr(self) -> str:
        return f"output_size={self.output_size}"


class AdaptiveMaxPool1d(_AdaptiveMaxPoolNd):
    """Max pooling to a fixed output length."""

    _pool = staticmethod(F.adaptive_max_pool1d)


class AdaptiveMaxPool2d(_AdaptiveMaxPoolNd):
    """Max pooling to a fixed output height and width (``None`` keeps the input's)."""

    _pool = staticmethod(F.adaptive_max_pool2d)


class AdaptiveMaxPool3d(_AdaptiveMaxPoolNd):
    """Max pooling to a fixed output depth, height and width (``None`` keeps the input's)."""

    _pool = staticmethod(F.adaptive_max_pool3d)


class _MaxUnpoolNd(Module):
    _n: int
    _unpool: Callable[..., Tensor]

    def __init__(
        self, kernel_size: int | tuple[int, ...], stride: int | tuple[int, ...] | None = None, padding=0
    ) -> None:
        super().__init__()
        as_tuple = _ntuple(self._n)
        self.kernel_size = as_tuple(kernel_size)
        self.stride = as_tuple(stride if stride is not None else kernel_size)
        self.padding = as_tuple(padding)

    def forward(self, input: Tensor, indices: Tensor, output_size: list[int] | None = None) -> Tensor:
        return self._unpool(input, indices, self.kernel_size, self.stride, self.padding, output_size)

    def extra_repr(self) -> str:
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class MaxUnpool1d(_MaxUnpoolNd):
    """Put pooled values back at their ``MaxPool1d`` arg-max positions (zeros elsewhere)."""

    _n = 1
    _unpool = staticmethod(F.max_unpool1d)


class MaxUnpool2d(_MaxUnpoolNd):
    """Put pooled values back at their ``MaxPool2d`` arg-max positions (zeros elsewhere)."""

    _n = 2
    _unpool = staticmethod(F.max_unpool2d)


class MaxUnpool3d(_MaxUnpoolNd):
    """Put pooled values back at their ``MaxPool3d`` arg-max positions (zeros elsewhere)."""

    _n = 3
    _unpool = staticmethod(F.max_unpool3d)


class _LPPoolNd(Module):
    _pool: Callable[..., Tensor]

    def __init__(
        self,
        norm_type: float,
        kernel_size: int | tuple[int, ...],
        stride: int | tuple[int, ...] | None = None,
        ceil_mode: bool = False,
    ) -> None:
        super().__init__()
        self.norm_type = norm_type
        self.kernel_size = kernel_size
        self.stride = stride
        self.ceil_mode = ceil_mode

    def forward(self, input: Tensor) -> Tensor:
        return self._pool(input, float(self.norm_type), self.kernel_size, self.stride, self.ceil_mode)

    def extra_repr(self) -> str:
        return (
            f"norm_type={self.norm_type}, kernel_size={self.kernel_size}, stride={self.stride}, "
            f"ceil_mode={self.ceil_mode}"
        )


class LPPool1d(_LPPoolNd):
    """Power-average pooling over windows of a length."""

    _pool = staticmethod(F.lp_pool1d)


class LPPool2d(_LPPoolNd):
    """Power-average pooling over 2-D windows."""

    _pool = staticmethod(F.lp_pool2d)


class LPPool3d(_LPPoolNd):
    """Power-average pooling over 3-D windows."""

    _pool = staticmethod(F.lp_pool3d)


class _FractionalMaxPoolNd(Module):
    _n: int
    _pool: Callable[..., Tensor | tuple[Tensor, Tensor]]

    def __init__(
        self,
        kernel_size: int | tuple[int, ...],
        output_size: int | tuple[int, ...] | None = None,
        output_ratio: float | tuple[float, ...] | None = None,
        return_indices: bool = False,
        _random_samples: Tensor | None = None,
    ) -> None:
        super().__init__()
        name = type(self).__name__
        self.kernel_size = _ntuple(self._n)(kernel_size)
        self.return_indices = return_indices
        self.register_buffer("_random_samples", _random_samples)
        self.output_size = _ntuple(self._n)(output_size) if output_size is not None else None
        self.output_ratio = _ntuple(self._n)(output_ratio) if output_ratio is not None else None
        for ratio in self.output_ratio or ():
            check_number(ratio, name, "output_ratio")
        if output_size is None and output_ratio is None:
            raise ValueError(f"{name} requires specifying either an output size, or a pooling ratio")
        if output_size is not None and output_ratio is not None:
            raise ValueError("only one of output_size and output_ratio may be specified")
        if self.output_ratio is not None and not all(0 < r < 1 for r in self.output_ratio):
            raise ValueError(f"output_ratio must be between 0 and 1 (got {output_ratio})")

    def forward(self, input: Tensor) -> Tensor | tuple[Tensor, Tensor]:
        return self._pool(
            input,
            self.kernel_size,
            self.output_size,
            self.output_ratio,
            self.return_indices,
            _random_samples=self._random_samples,
        )


class FractionalMaxPool2d(_FractionalMaxPoolNd):
    """Max pooling over pseudo-random 2-D windows that shrink H, W to ``output_size`` (or by ``output_ratio``)."""

    _n = 2
    _pool = staticmethod(F.fractional_max_pool2d)


class FractionalMaxPool3d(_FractionalMaxPoolNd):
    """Max pooling over pseudo-random 3-D windows (see ``FractionalMaxPool2d``)."""

    _n = 3
    _pool = staticmethod(F.fractional_max_pool3d)
