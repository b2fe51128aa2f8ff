"""``torch.nn.modules.distance`` under our name: minitorch_rx's classes at the path PyTorch's programs import."""

from ..distance import CosineSimilarity, PairwiseDistance

__all__ = ["PairwiseDistance", "CosineSimilarity"]
