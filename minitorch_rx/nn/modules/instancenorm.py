"""``torch.nn.modules.instancenorm`` under our name: minitorch_rx's classes at the path PyTorch's programs import."""

from ..instancenorm import InstanceNorm1d, InstanceNorm2d, InstanceNorm3d, _InstanceNorm

__all__ = ["_InstanceNorm", "InstanceNorm1d", "InstanceNorm2d", "InstanceNorm3d"]
