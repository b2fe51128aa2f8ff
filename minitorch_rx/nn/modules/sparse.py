"""``torch.nn.modules.sparse`` under our name: minitorch_rx's classes at the path PyTorch's programs import."""

from ..sparse import Embedding

__all__ = ["Embedding"]
