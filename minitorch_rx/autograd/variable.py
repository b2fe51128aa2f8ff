"""``Variable``: PyTorch's pre-0.4 wrapper, kept for old code. Since PyTorch 0.4 it returns a tensor."""

from __future__ import annotations

from .tensor import Tensor


def Variable(data: Tensor, requires_grad: bool = False, volatile: bool = False) -> Tensor:  # noqa: N802
    """``data`` itself, or a leaf sharing its data that requires grad (``requires_grad=True``), as
    ``torch.autograd.Variable`` does today; ``volatile`` is ignored, as there."""
    if not isinstance(data, Tensor):
        raise TypeError(f"Variable data has to be a tensor, but got {type(data).__name__}")
    if not requires_grad:
        return data
    return Tensor._make(data._data, None).requires_grad_(True)
