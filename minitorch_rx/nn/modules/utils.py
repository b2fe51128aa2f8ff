"""``torch.nn.modules.utils`` under our name: minitorch_rx's classes at the path PyTorch's programs import."""

from .._tuples import _ntuple, _pair, _reverse_repeat_tuple, _single, _triple

__all__ = ["_ntuple", "_single", "_pair", "_triple", "_reverse_repeat_tuple"]
