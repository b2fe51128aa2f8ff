"""``torch.nn.modules.linear`` under our name: minitorch_rx's classes at the path PyTorch's programs import."""

from ..linear import Bilinear, Identity, Linear

__all__ = ["Identity", "Linear", "Bilinear"]
