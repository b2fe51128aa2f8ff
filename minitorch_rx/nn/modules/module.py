"""``torch.nn.modules.module`` under our name: minitorch_rx's classes at the path PyTorch's programs import."""

from ..module import Module

__all__ = ["Module"]
