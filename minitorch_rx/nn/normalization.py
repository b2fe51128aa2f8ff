"""``LayerNorm``, ``RMSNorm``, ``GroupNorm`` and ``LocalResponseNorm``, as PyTorch's."""

from __future__ import annotations

import numbers

import torch

from .. import init
from ..autograd.tensor import Tensor
from ..ops.dims import int_tuple
from . import functional as F
from .module import Module
from .parameter import Parameter


class LayerNorm(Module):
    """Normalize over the trailing ``normalized_shape`` dims of each sample.

    With ``elementwise_affine``, parameters ``weight`` (ones) and ``bias`` (zeros, unless
    ``bias=False``) of shape ``normalized_shape``.
    """

    def __init__(
        self,
        normalized_shape: int | tuple[int, ...] | torch.Size,
        eps: float = 1e-5,
        elementwise_affine: bool = True,
        bias: bool = True,
        device: torch.device | str | None = None,
        dtype: torch.dtype | None = None,
    ) -> None:
        super().__init__()
        if isinstance(normalized_shape, numbers.Integral):
            normalized_shape = (normalized_shape,)
        self.normalized_shape = int_tuple(normalized_shape, "LayerNorm", "normalized_shape", 1)
        self.eps = eps
        self.elementwise_affine = elementwise_affine
        _affine_parameters(self, elementwise_affine, bias, self.normalized_shape, device, dtype)

    def reset_parameters(self) -> None:
        """Weight to ones, bias to zeros."""
        _reset_affine(self)

    def forward(self, input: Tensor) -> Tensor:
        return F.layer_norm(input, self.normalized_shape, self.weight, self.bias, self.eps)

    def extra_repr(self) -> str:
        return (
            f"{self.normalized_shape}, eps={self.eps}, elementwise_affine={self.elementwise_affine}, "
            f"bias={self.bias is not None}"
        )


class RMSNorm(Module):
    """Root-mean-square normalization over the trailing ``normalized_shape`` dims, with a
    ``weight`` (ones) when ``elementwise_affine``; ``eps=None`` is the dtype's epsilon."""

    def __init__(
        self,
        normalized_shape: int | tuple[int, ...] | torch.Size,
        eps: float | None = None,
        elementwise_affine: bool = True,
        device: torch.device | str | None = None,
        dtype: torch.dtype | None = None,
    ) -> None:
        super().__init__()
        if isinstance(normalized_shape, numbers.Integral):
            normalized_shape = (normalized_shape,)
        self.normalized_shape = int_tuple(normalized_shape, "RMSNorm", "normalized_shape", 1)
        self.eps = eps
        self.elementwise_affine = elementwise_affine
        _affine_parameters(self, elementwise_affine, False, self.normalized_shape, device, dtype)

    def reset_parameters(self) -> None:
        """Weight to ones."""
        _reset_affine(self)

    def forward(self, x: Tensor) -> Tensor:
        return F.rms_norm(x, self.normalized_shape, self.weight, self.eps)

    def extra_repr(self) -> str:
        return "{normalized_shape}, eps={eps}, elementwise_affine={elementwise_affine}".format(**self.__dict__)


def _affine_parameters(module: Module, affine: bool, bias: bool, shape: tuple, device, dtype) -> None:
    """Register ``weight`` and ``bias`` of ``shape`` (None where not learned) and initialise them."""
    make = lambda: Parameter(torch.empty(shape, device=device, dtype=dtype))  # noqa: E731
    module.register_parameter("weight", make() if affine else None)
    module.register_parameter("bias", make() if affine and bias else None)
    _reset_affine(module)


def _reset_affine(module: Module) -> None:
    if module.weight is not None:
        init.ones_(module.weight)
    if module.bias is not None:
        init.zeros_(module.bias)


class GroupNorm(Module):
    """Normalize each sample over groups of ``num_channels // num_groups`` channels.

    With ``affine``, parameters ``weight`` (ones) and ``bias`` (zeros, unless ``bias=False``) of
    shape ``(num_channels,)``.
    """

    def __init__(
        self,
        num_groups: int,
        num_channels: int,
        eps: float = 1e-5,
        affine: bool = True,
        device: torch.device | str | None = None,
        dtype: torch.dtype | None = None,
        *,
        bias: bool = True,
    ) -> None:
        super().__init__()
        if num_channels % num_groups != 0:
            raise ValueError(f"num_channels ({num_channels}) must be divisible by num_groups ({num_groups})")
        self.num_groups = num_groups
        self.num_channels = num_channels
        self.eps = eps
        self.affine = affine
        _affine_parameters(self, affine, bias, (num_channels,), device, dtype)

    def reset_parameters(self) -> None:
        """Weight to ones, bias to zeros."""
        _reset_affine(self)

    def forward(self, input: Tensor) -> Tensor:
        return F.group_norm(input, self.num_groups, self.weight, self.bias, self.eps)

    def extra_repr(self) -> str:
        return (
            f"{self.num_groups}, {self.num_channels}, eps={self.eps}, affine={self.affine}, "
            f"bias={self.bias is not None}"
        )


class LocalResponseNorm(Module):
    """Normalize each channel by the mean of squares over ``size`` neighbouring channels."""

    def __init__(self, size: int, alpha: float = 1e-4, beta: float = 0.75, k: float = 1.0) -> None:
        super().__init__()
        self.size = size
        self.alpha = alpha
        self.beta = beta
        self.k = k

    def forward(self, input: Tensor) -> Tensor:
        return F.local_response_norm(input, self.size, self.alpha, self.beta, self.k)

    def extra_repr(self) -> str:
        return f"{self.size}, alpha={self.alpha}, beta={self.beta}, k={self.k}"
