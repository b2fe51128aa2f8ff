"""PyTorch's ``torch.distributions`` under minitorch_rx's name (``import minitorch_rx as torch;
torch.distributions.Normal``).

Every name is torch's own: a distribution's parameters may be mt tensors, and then its
``log_prob``, ``rsample``, ``entropy`` and ``kl_divergence`` record on our engine, since each is
built of torch functions that run as ours (``Tensor.__torch_function__``); its
``torch.autograd.Function``s (``Dirichlet``'s, ``Beta``'s) run on our engine too
(``autograd/torch_custom_function.py``), and ``_standard_gamma`` (``Gamma.rsample``) is ours.
"""

from __future__ import annotations

import torch.distributions as _torch_distributions

__all__ = list(_torch_distributions.__all__)


def __getattr__(name: str):
    return getattr(_torch_distributions, name)


def __dir__() -> list[str]:
    return sorted(set(__all__) | set(globals()))
