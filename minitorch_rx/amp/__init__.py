"""``minitorch_rx.amp``: mixed precision with ``torch.amp``'s names and semantics.

``autocast(device_type, dtype=None, enabled=True)`` runs the matrix products in a lower precision
and the losses in float32 (``ops/autocast.py`` records the casts, so backward sees them);
``GradScaler`` scales the loss and unscales, checks and skips steps, as ``torch.amp.GradScaler``.
Without CUDA, ``autocast("cuda")`` and ``GradScaler()`` (whose device is CUDA) warn and disable
themselves, as PyTorch's do; ``autocast("cpu")`` is bfloat16 autocast, as PyTorch's.
"""

from .autocast_mode import autocast, is_autocast_available
from .grad_scaler import GradScaler

__all__ = ["GradScaler", "autocast", "is_autocast_available"]
