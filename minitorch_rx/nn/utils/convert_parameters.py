"""Parameters as one flat vector and back, as ``torch.nn.utils``'s."""

from __future__ import annotations

from collections.abc import Iterable

import torch

from ...autograd.tensor import Tensor
from ...ops.shape import cat, reshape

__all__ = ["parameters_to_vector", "vector_to_parameters"]


def _check_same_device(param: Tensor, device: torch.device | None) -> torch.device:
    if device is not None and param.device != device:
        raise TypeError("Found two parameters on different devices, this is currently not supported.")
    return param.device


def parameters_to_vector(parameters: Iterable[Tensor]) -> Tensor:
    """The parameters flattened and concatenated into one vector (recorded: it is differentiable).

    >>> import minitorch_rx as mt
    >>> mt.nn.utils.parameters_to_vector(mt.nn.Linear(3, 2).parameters()).shape
    torch.Size([8])
    """
    device = None
    flat = []
    for param in parameters:
        device = _check_same_device(param, device)
        flat.append(reshape(param, (-1,)))
    return cat(flat)


def vector_to_parameters(vec: Tensor, parameters: Iterable[Tensor]) -> None:
    """Copy consecutive slices of ``vec`` into the parameters' ``.data`` (nothing is recorded)."""
    if not isinstance(vec, (Tensor, torch.Tensor)):
        raise TypeError(f"expected torch.Tensor, but got: {type(vec).__name__}")
    data = vec._data if isinstance(vec, Tensor) else vec
    device = None
    pointer = 0
    for param in parameters:
        device = _check_same_device(param, device)
        count = param.numel()
        param.data = data[pointer : pointer + count].view_as(param._data).detach()
        pointer += count
