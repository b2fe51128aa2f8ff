"""Seeding every generator the package uses; random sampling and in-place random fills."""

from __future__ import annotations

import random

import numpy as np
import torch

from .autograd.function import Function
from .autograd.tensor import Tensor
from .ops import inplace
from .ops.constants import TENSOR_TYPES, tensor_arg


def manual_seed(seed: int) -> torch.Generator:
    """Seed Python's, NumPy's and torch's generators (CPU and CUDA), as one call."""
    generator = torch.manual_seed(seed)  # first: torch validates ``seed`` with its own message
    seed = int(seed)
    random.seed(seed)
    np.random.seed(seed % 2**32)
    return generator


class Sample(Function):
    """A random sample drawn by ``sampler(*inputs)``: PyTorch gives its tensor inputs (a mean, a
    probability, the tensor an in-place fill overwrites) a zero gradient, and so does this."""

    broadcasting = True

    @staticmethod
    def forward(ctx, sampler, *inputs):
        return sampler(*inputs)

    @staticmethod
    def backward(ctx, grad):
        zeros = grad.new_zeros(grad.shape)
        return (None, *(zeros if needed else None for needed in ctx.needs_input_grad[1:]))


def _data(value):
    return value._data if isinstance(value, Tensor) else value


def _fill(method: str):
    """The in-place random fill ``method`` (``normal_``, ...): torch's kernel on the data; while
    recording (a non-leaf that requires grad), a ``Sample`` node with a zero gradient, as PyTorch's."""

    def fill(self: Tensor, *args, **kwargs) -> Tensor:
        args = tuple(_data(a) for a in args)
        if inplace._recording(self, ()):

            def sampler(x: torch.Tensor) -> torch.Tensor:
                return getattr(torch.empty_like(x), method)(*args, **kwargs)

            sampler.__name__ = method
            return inplace.rebase(self, Sample.apply(sampler, self))
        getattr(self._data, method)(*args, **kwargs)
        return self

    fill.__name__ = method
    fill.__doc__ = f"Fill in place as ``torch.Tensor.{method}``; no gradient reaches the old values."
    return fill


normal_ = _fill("normal_")
uniform_ = _fill("uniform_")
bernoulli_ = _fill("bernoulli_")
exponential_ = _fill("exponential_")
random_ = _fill("random_")
geometric_ = _fill("geometric_")
cauchy_ = _fill("cauchy_")
log_normal_ = _fill("log_normal_")


def randperm(n: int, *, generator=None, dtype=torch.int64, device=None, requires_grad: bool = False) -> Tensor:
    """A random permutation of ``0 .. n-1``."""
    out = Tensor._make(torch.randperm(n, generator=generator, dtype=dtype, device=device), None)
    return out.requires_grad_(True) if requires_grad else out


def randint_like(input: Tensor, low: int = 0, high: int | None = None, *, dtype=None, device=None) -> Tensor:
    """Random integers in ``[low, high)`` (``[0, low)`` with one bound) shaped as ``input``."""
    input = tensor_arg(input, "randint_like")
    if high is None:
        low, high = 0, low
    return Tensor._make(torch.randint_like(_data(input), low, high, dtype=dtype, device=device), None)


def multinomial(input: Tensor, num_samples: int, replacement: bool = False, *, generator=None) -> Tensor:
    """Indices drawn from the rows of ``input`` (non-negative weights); no gradient."""
    input = tensor_arg(input, "multinomial")
    return Tensor._make(torch.multinomial(_data(input), num_samples, replacement, generator=generator), None)


def bernoulli(input: Tensor, p: float | None = None, *, generator=None) -> Tensor:
    """0/1 draws with probability ``input`` (or ``p``) per element; ``input`` gets a zero gradient."""
    input = tensor_arg(input, "bernoulli")

    def sampler(x: torch.Tensor) -> torch.Tensor:
        return torch.bernoulli(x, generator=generator) if p is None else torch.bernoulli(x, p, generator=generator)

    sampler.__name__ = "bernoulli"
    return Sample.apply(sampler, input)


def normal(
    mean, std=1.0, size=None, *, generator=None, dtype=None, layout=torch.strided, device=None, pin_memory=False
) -> Tensor:
    """Normal draws: ``mean`` and ``std`` tensors or numbers (with numbers, ``size`` is needed).
    Tensor arguments get a zero gradient, as PyTorch's (this is no reparameterization)."""
    if not isinstance(mean, TENSOR_TYPES) and not isinstance(std, TENSOR_TYPES):
        if size is None:
            raise TypeError("normal(): with a number mean and std, pass size")
        data = torch.normal(
            mean, std, size, generator=generator, dtype=dtype, layout=layout, device=device, pin_memory=pin_memory
        )
        return Tensor._make(data, None)

    def sampler(m, s) -> torch.Tensor:
        return torch.normal(m, s, generator=generator)

    sampler.__name__ = "normal"
    return Sample.apply(sampler, mean, std)


class StandardGamma(Function):
    """Gamma(alpha, 1) draws, reparameterized as PyTorch's ``_standard_gamma``: the gradient in
    ``alpha`` is ``_standard_gamma_grad(alpha, sample)``, the derivative of the sample at fixed
    quantile (``torch.distributions.Gamma``, ``Beta`` and ``Dirichlet`` ``rsample`` by it)."""

    @staticmethod
    def forward(ctx, alpha, generator):
        sample = torch._standard_gamma(alpha, generator=generator)
        ctx.save_for_backward(alpha, sample)
        return sample

    @staticmethod
    def backward(ctx, grad):
        alpha, sample = ctx.saved_tensors
        return grad * torch._standard_gamma_grad(alpha, sample), None


def _standard_gamma(input: Tensor, generator=None) -> Tensor:
    """As ``torch._standard_gamma``: Gamma(``input``, 1) draws, with their reparameterized gradient."""
    return StandardGamma.apply(tensor_arg(input, "_standard_gamma"), generator)
