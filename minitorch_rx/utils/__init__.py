"""``minitorch_rx.utils``: PyTorch's ``torch.utils`` names that training code reaches through ``torch``."""

from . import data

__all__ = ["data"]
