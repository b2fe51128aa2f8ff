"""``LayerNorm``, as PyTorch's."""

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
        if elementwise_affine:
            self.weight = Parameter(torch.empty(self.normalized_shape, device=device, dtype=dtype))
            if bias:
                self.bias = Parameter(torch.empty(self.normalized_shape, device=device, dtype=dtype))
            else:
                self.register_parameter("bias", None)
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """Weight to ones, bias to zeros."""
        if self.elementwise_affine:
            init.ones_(self.weight)
            if self.bias is not None:
                init.zeros_(self.bias)

    def forward(self, input: Tensor) -> Tensor:
        return F.layer_norm(input, self.normalized_shape, self.weight, self.bias, self.eps)

    def extra_repr(self) -> str:
        return (
            f"{self.normalized_shape}, eps={self.eps}, elementwise_affine={self.elementwise_affine}, "
            f"bias={self.bias is not None}"
        )
