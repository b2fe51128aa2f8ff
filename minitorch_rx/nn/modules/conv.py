"""``torch.nn.modules.conv`` under our name: minitorch_rx's classes at the path PyTorch's programs import."""

from ..conv import Conv1d, Conv2d, Conv3d, _ConvNd
from ..conv_transpose import ConvTranspose1d, ConvTranspose2d, ConvTranspose3d, _ConvTransposeNd
from ..lazy import LazyConv1d, LazyConv2d, LazyConv3d, LazyConvTranspose1d, LazyConvTranspose2d, LazyConvTranspose3d

__all__ = [
    "_ConvNd",
    "Conv1d",
    "Conv2d",
    "Conv3d",
    "_ConvTransposeNd",
    "ConvTranspose1d",
    "ConvTranspose2d",
    "ConvTranspose3d",
    "LazyConv1d",
    "LazyConv2d",
    "LazyConv3d",
    "LazyConvTranspose1d",
    "LazyConvTranspose2d",
    "LazyConvTranspose3d",
]
