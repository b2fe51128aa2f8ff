"""``minitorch_rx.nn.utils``: gradient clipping, parameters as one vector, and ``rnn``'s padding
and packing of sequences, with ``torch.nn.utils``'s names and semantics.

torch's reparametrisations work on our modules as on its own (our modules are
``torch.nn.Module``s, their parameters ``torch.nn.Parameter``s to torch, and the ops they call
record on our engine): ``spectral_norm``/``weight_norm`` (the hook forms), ``parametrize`` and
``prune`` are torch's, so that ``nn.utils.spectral_norm(nn.Conv2d(...))`` runs renamed.
``parametrizations`` is not: torch's ``weight_norm`` there remakes the weight with
``torch.nn.Parameter(weight)``, which needs ``detach()`` to keep our Parameter's type.
"""

import sys

import torch.nn.utils.parametrize as parametrize
import torch.nn.utils.prune as prune
from torch.nn.utils import remove_spectral_norm, remove_weight_norm, spectral_norm, weight_norm

from . import rnn
from .clip_grad import clip_grad_norm_, clip_grad_value_
from .convert_parameters import parameters_to_vector, vector_to_parameters

# ``import minitorch_rx.nn.utils.prune as prune`` (PyTorch's spelling) finds torch's modules.
sys.modules[f"{__name__}.parametrize"] = parametrize
sys.modules[f"{__name__}.prune"] = prune

__all__ = [
    "clip_grad_norm_",
    "clip_grad_value_",
    "parameters_to_vector",
    "parametrize",
    "prune",
    "remove_spectral_norm",
    "remove_weight_norm",
    "rnn",
    "spectral_norm",
    "vector_to_parameters",
    "weight_norm",
]
