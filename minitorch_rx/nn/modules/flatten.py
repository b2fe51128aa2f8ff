"""``torch.nn.modules.flatten`` under our name: minitorch_rx's classes at the path PyTorch's programs import."""

from ..flatten import Flatten, Unflatten

__all__ = ["Flatten", "Unflatten"]
