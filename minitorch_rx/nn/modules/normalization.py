"""``torch.nn.modules.normalization`` under our name: minitorch_rx's classes at the path PyTorch's programs import."""

from ..normalization import GroupNorm, LayerNorm, LocalResponseNorm, RMSNorm

__all__ = ["LocalResponseNorm", "LayerNorm", "GroupNorm", "RMSNorm"]
