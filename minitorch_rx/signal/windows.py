"""``mt.signal.windows``: window functions, as ``torch.signal.windows``.

Each makes a new leaf (``M`` points; ``sym=False`` for the periodic window of spectral analysis)
from torch's own function, with its arguments, checks and error messages; ``requires_grad``,
``dtype`` and ``device`` as for any creation function. A window has no inputs to differentiate.
"""

from __future__ import annotations

import torch

from ..autograd.tensor import Tensor
from ..creation import _create

__all__ = [
    "bartlett",
    "blackman",
    "cosine",
    "exponential",
    "gaussian",
    "general_cosine",
    "general_hamming",
    "hamming",
    "hann",
    "kaiser",
    "nuttall",
]


def bartlett(*args, **kwargs) -> Tensor:
    """As ``torch.signal.windows.bartlett``: the triangular (Bartlett) window."""
    return _create(torch.signal.windows.bartlett, args, kwargs)


def blackman(*args, **kwargs) -> Tensor:
    """As ``torch.signal.windows.blackman``: the Blackman window."""
    return _create(torch.signal.windows.blackman, args, kwargs)


def cosine(*args, **kwargs) -> Tensor:
    """As ``torch.signal.windows.cosine``: the cosine (sine) window."""
    return _create(torch.signal.windows.cosine, args, kwargs)


def exponential(*args, **kwargs) -> Tensor:
    """As ``torch.signal.windows.exponential``: the exponential (Poisson) window, decaying by ``tau``."""
    return _create(torch.signal.windows.exponential, args, kwargs)


def gaussian(*args, **kwargs) -> Tensor:
    """As ``torch.signal.windows.gaussian``: the Gaussian window of standard deviation ``std``."""
    return _create(torch.signal.windows.gaussian, args, kwargs)


def general_cosine(*args, **kwargs) -> Tensor:
    """As ``torch.signal.windows.general_cosine``: the sum of cosines with coefficients ``a``."""
    return _create(torch.signal.windows.general_cosine, args, kwargs)


def general_hamming(*args, **kwargs) -> Tensor:
    """As ``torch.signal.windows.general_hamming``: the generalized Hamming window ``alpha - (1 - alpha) cos(...)``."""
    return _create(torch.signal.windows.general_hamming, args, kwargs)


def hamming(*args, **kwargs) -> Tensor:
    """As ``torch.signal.windows.hamming``: the Hamming window."""
    return _create(torch.signal.windows.hamming, args, kwargs)


def hann(*args, **kwargs) -> Tensor:
    """As ``torch.signal.windows.hann``: the Hann window."""
    return _create(torch.signal.windows.hann, args, kwargs)


def kaiser(*args, **kwargs) -> Tensor:
    """As ``torch.signal.windows.kaiser``: the Kaiser window of shape parameter ``beta``."""
    return _create(torch.signal.windows.kaiser, args, kwargs)


def nuttall(*args, **kwargs) -> Tensor:
    """As ``torch.signal.windows.nuttall``: the minimum 4-term Blackman-Harris (Nuttall) window."""
    return _create(torch.signal.windows.nuttall, args, kwargs)
