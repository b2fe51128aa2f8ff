"""``torch.nn.modules.upsampling`` under our name: minitorch_rx's classes at the path PyTorch's programs import."""

from ..upsampling import Upsample, UpsamplingBilinear2d, UpsamplingNearest2d

__all__ = ["Upsample", "UpsamplingNearest2d", "UpsamplingBilinear2d"]
