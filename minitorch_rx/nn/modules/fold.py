"""``torch.nn.modules.fold`` under our name: minitorch_rx's classes at the path PyTorch's programs import."""

from ..fold import Fold, Unfold

__all__ = ["Fold", "Unfold"]
