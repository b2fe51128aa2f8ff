"""``torch.nn.modules.batchnorm`` under our name: minitorch_rx's classes at the path PyTorch's programs import."""

from ..batchnorm import BatchNorm1d, BatchNorm2d, BatchNorm3d, _BatchNorm

__all__ = ["_BatchNorm", "BatchNorm1d", "BatchNorm2d", "BatchNorm3d"]
