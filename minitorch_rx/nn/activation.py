"""Activation modules, thin wrappers over the engine's activation ops.

``inplace=True`` overwrites the input with the result, as in PyTorch (recorded as an in-place
op: it costs a copy here, so it saves no memory).
"""

from __future__ import annotations

import warnings

from ..autograd.tensor import Tensor
from . import functional as F
from .module import Module


class _InplaceFlag(Module):
    def __init__(self, inplace: bool = False) -> None:
        super().__init__()
        self.inplace = inplace

    def extra_repr(self) -> str:
        return "inplace=True" if self.inplace else ""


class ReLU(_InplaceFlag):
    """max(x, 0)."""

    def forward(self, input: Tensor) -> Tensor:
        return F.relu(input, self.inplace)


class SiLU(_InplaceFlag):
    """x * sigmoid(x)."""

    def forward(self, input: Tensor) -> Tensor:
        return F.silu(input, self.inplace)


class LeakyReLU(Module):
    """x for x >= 0, negative_slope * x otherwise."""

    def __init__(self, negative_slope: float = 0.01, inplace: bool = False) -> None:
        super().__init__()
        self.negative_slope = negative_slope
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:
        return F.leaky_relu(input, self.negative_slope, self.inplace)

    def extra_repr(self) -> str:
        return f"negative_slope={self.negative_slope}" + (", inplace=True" if self.inplace else "")


class ELU(Module):
    """x for x > 0, alpha * (exp(x) - 1) otherwise."""

    def __init__(self, alpha: float = 1.0, inplace: bool = False) -> None:
        super().__init__()
        self.alpha = alpha
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:
        return F.elu(input, self.alpha, self.inplace)

    def extra_repr(self) -> str:
        return f"alpha={self.alpha}" + (", inplace=True" if self.inplace else "")


class GELU(Module):
    """x * Phi(x); ``approximate='tanh'`` uses the tanh approximation."""

    def __init__(self, approximate: str = "none") -> None:
        super().__init__()
        self.approximate = approximate

    def forward(self, input: Tensor) -> Tensor:
        return F.gelu(input, approximate=self.approximate)

    def extra_repr(self) -> str:
        return f"approximate={self.approximate!r}"


class Swish(Module):
    """x * sigmoid(beta * x) (``beta=1`` is ``SiLU``)."""

    def __init__(self, beta: float = 1.0) -> None:
        super().__init__()
        self.beta = beta

    def forward(self, input: Tensor) -> Tensor:
        return F.swish(input, self.beta)

    def extra_repr(self) -> str:
        return f"beta={self.beta}"


class Sigmoid(Module):
    """1 / (1 + exp(-x))."""

    def forward(self, input: Tensor) -> Tensor:
        return F.sigmoid(input)


class Tanh(Module):
    """tanh(x)."""

    def forward(self, input: Tensor) -> Tensor:
        return F.tanh(input)


class Softplus(Module):
    """log(1 + exp(beta * x)) / beta, linear above ``threshold``."""

    def __init__(self, beta: float = 1.0, threshold: float = 20.0) -> None:
        super().__init__()
        self.beta = beta
        self.threshold = threshold

    def forward(self, input: Tensor) -> Tensor:
        return F.softplus(input, self.beta, self.threshold)

    def extra_repr(self) -> str:
        return f"beta={self.beta}, threshold={self.threshold}"


def _implicit_dim(name: str, ndim: int) -> int:
    """PyTorch's legacy choice when no ``dim`` is given (with its deprecation warning)."""
    warnings.warn(
        f"Implicit dimension choice for {name} has been deprecated. Change the call to include dim=X as an argument.",
        stacklevel=4,
    )
    return 0 if ndim in (0, 1, 3) else 1


class _SoftmaxNd(Module):
    def __init__(self, dim: int | None = None) -> None:
        if dim is not None and (not isinstance(dim, int) or isinstance(dim, bool)):
            raise TypeError(f"dim must be an int or None, got {type(dim)}")
        super().__init__()
        self.dim = dim

    def _dim(self, input: Tensor, name: str) -> int:
        return _implicit_dim(name, input.dim()) if self.dim is None else self.dim

    def extra_repr(self) -> str:
        return f"dim={self.dim}"


class Softmax(_SoftmaxNd):
    """exp(x) / sum(exp(x)) along ``dim``."""

    def forward(self, input: Tensor) -> Tensor:
        return F.softmax(input, self._dim(input, "softmax"))


class LogSoftmax(_SoftmaxNd):
    """log(softmax(x)) along ``dim``, computed stably."""

    def forward(self, input: Tensor) -> Tensor:
        return F.log_softmax(input, self._dim(input, "log_softmax"))
