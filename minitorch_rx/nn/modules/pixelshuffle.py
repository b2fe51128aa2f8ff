"""``torch.nn.modules.pixelshuffle`` under our name: minitorch_rx's classes at the path PyTorch's programs import."""

from ..pixelshuffle import PixelShuffle, PixelUnshuffle

__all__ = ["PixelShuffle", "PixelUnshuffle"]
