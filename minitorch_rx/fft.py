"""``mt.fft``: discrete Fourier transforms, as ``torch.fft`` (the ops live in ``ops/fft.py``).

Real-to-real transforms (``irfft*``, ``hfft*`` of real inputs) and ``fftshift``/``ifftshift`` are
differentiable; the transforms with complex outputs compute forward only (complex autograd is not
implemented, see ``ops/fft.py``)."""

from __future__ import annotations

import torch

from .autograd.tensor import Tensor
from .creation import _create
from .ops.fft import (
    fft,
    fft2,
    fftn,
    fftshift,
    hfft,
    hfft2,
    hfftn,
    ifft,
    ifft2,
    ifftn,
    ifftshift,
    ihfft,
    ihfft2,
    ihfftn,
    irfft,
    irfft2,
    irfftn,
    rfft,
    rfft2,
    rfftn,
)

__all__ = [
    "fft",
    "fft2",
    "fftfreq",
    "fftn",
    "fftshift",
    "hfft",
    "hfft2",
    "hfftn",
    "ifft",
    "ifft2",
    "ifftn",
    "ifftshift",
    "ihfft",
    "ihfft2",
    "ihfftn",
    "irfft",
    "irfft2",
    "irfftn",
    "rfft",
    "rfft2",
    "rfftfreq",
    "rfftn",
]


def fftfreq(*args, **kwargs) -> Tensor:
    """As ``torch.fft.fftfreq``: the sample frequencies of an ``n``-point FFT with spacing ``d``."""
    return _create(torch.fft.fftfreq, args, kwargs)


def rfftfreq(*args, **kwargs) -> Tensor:
    """As ``torch.fft.rfftfreq``: the non-negative sample frequencies of an ``n``-point ``rfft``."""
    return _create(torch.fft.rfftfreq, args, kwargs)
