"""``minitorch_rx.utils``: PyTorch's ``torch.utils`` names that training code reaches through ``torch``."""

from . import checkpoint, data

__all__ = ["checkpoint", "data"]
