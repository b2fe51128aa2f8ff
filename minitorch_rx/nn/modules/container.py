"""``torch.nn.modules.container`` under our name: minitorch_rx's classes at the path PyTorch's programs import."""

from ..containers import ModuleDict, ModuleList, ParameterDict, ParameterList, Sequential

__all__ = ["Sequential", "ModuleList", "ModuleDict", "ParameterList", "ParameterDict"]
