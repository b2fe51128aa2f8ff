"""``Identity`` and ``Linear`` (alias ``Dense``)."""

from __future__ import annotations

import math
from typing import Any

import torch

from .. import init
from ..autograd.tensor import Tensor
from ..init import _calculate_fan_in_and_fan_out
from . import functional as F
from .module import Module
from .parameter import Parameter


class Identity(Module):
    """Returns its input; takes and ignores any arguments, as PyTorch's."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__()

    def forward(self, input: Tensor) -> Tensor:
        return input


class Linear(Module):
    """``y = x @ weight.T + bias`` over the last dim of ``x``.

    ``weight`` is ``[out_features, in_features]`` from ``kaiming_uniform_(a=sqrt(5))`` (that is
    U(-1/sqrt(in_features), 1/sqrt(in_features))); ``bias`` is ``[out_features]`` from the same
    range, drawn after the weight, as PyTorch does, so one seed gives the same layer in both.
    """

    def __init__(
        self,
        in_features: int,
        out_features: int,
        bias: bool = True,
        device: torch.device | str | None = None,
        dtype: torch.dtype | None = None,
    ) -> None:
        super().__init__()
        self.in_features = in_features
        self.out_features = out_features
        self.weight = Parameter(torch.empty((out_features, in_features), device=device, dtype=dtype))
        if bias:
            self.bias = Parameter(torch.empty(out_features, device=device, dtype=dtype))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """Redraw the weight and bias from PyTorch's default distributions."""
        reset_weight_and_bias(self.weight, self.bias)

    def forward(self, input: Tensor) -> Tensor:
        return F.linear(input, self.weight, self.bias)

    def extra_repr(self) -> str:
        bias = self.bias is not None
        return f"in_features={self.in_features}, out_features={self.out_features}, bias={bias}"


Dense = Linear


def reset_weight_and_bias(weight: Parameter, bias: Parameter | None) -> None:
    """PyTorch's default for Linear and Conv weights and biases.

    ``kaiming_uniform_(a=sqrt(5))`` for the weight, then U(-1/sqrt(fan_in), 1/sqrt(fan_in)) for
    the bias: the same draws, in the same order, as PyTorch.
    """
    init.kaiming_uniform_(weight, a=math.sqrt(5))
    if bias is not None:
        fan_in, _ = _calculate_fan_in_and_fan_out(weight)
        bound = 1 / math.sqrt(fan_in) if fan_in > 0 else 0
        init.uniform_(bias, -bound, bound)


class Bilinear(Module):
    """``y = x1^T A x2 + b`` with ``weight`` ``[out_features, in1_features, in2_features]`` and
    ``bias`` ``[out_features]``, both from ``U(-1/sqrt(in1_features), 1/sqrt(in1_features))``
    (weight first, as PyTorch draws them)."""

    def __init__(
        self,
        in1_features: int,
        in2_features: int,
        out_features: int,
        bias: bool = True,
        device: Any = None,
        dtype: Any = None,
    ) -> None:
        super().__init__()
        self.in1_features = in1_features
        self.in2_features = in2_features
        self.out_features = out_features
        self.weight = Parameter(torch.empty(out_features, in1_features, in2_features, device=device, dtype=dtype))
        if bias:
            self.bias = Parameter(torch.empty(out_features, device=device, dtype=dtype))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        bound = 1 / math.sqrt(self.weight.shape[1])
        init.uniform_(self.weight, -bound, bound)
        if self.bias is not None:
            init.uniform_(self.bias, -bound, bound)

    def forward(self, input1: Tensor, input2: Tensor) -> Tensor:
        return F.bilinear(input1, input2, self.weight, self.bias)

    def extra_repr(self) -> str:
        return (
            f"in1_features={self.in1_features}, in2_features={self.in2_features}, "
            f"out_features={self.out_features}, bias={self.bias is not None}"
        )
