"""Creating tensors: from Python data, from torch, and filled ones."""

from __future__ import annotations

import torch

from .autograd.tensor import Tensor, detach_torch


def _leaf(data: torch.Tensor, requires_grad: bool) -> Tensor:
    t = Tensor._make(data, None)
    if requires_grad:
        t.requires_grad_(True)
    return t


def tensor(data, requires_grad: bool = False, dtype: torch.dtype | None = None, device=None) -> Tensor:
    """A new leaf holding a copy of ``data`` (nested lists, numbers, numpy arrays or tensors)."""
    if isinstance(data, Tensor):
        data = data._data
    if isinstance(data, torch.Tensor):
        copied = detach_torch(data).to(device=device, dtype=dtype, copy=True)
    else:
        copied = torch.tensor(data, dtype=dtype, device=device)
    return _leaf(copied, requires_grad)


def from_torch(t: torch.Tensor, requires_grad: bool = False) -> Tensor:
    """Wrap ``t`` without copying (the two share memory); torch's own autograd state is dropped."""
    if not isinstance(t, torch.Tensor):
        raise TypeError(f"from_torch expects a torch.Tensor, got {type(t).__name__}")
    return _leaf(detach_torch(t), requires_grad)


def _size(size: tuple) -> tuple:
    if len(size) == 1 and isinstance(size[0], (tuple, list, torch.Size)):
        return tuple(size[0])
    return size


def zeros(*size, dtype=None, device=None, requires_grad: bool = False) -> Tensor:
    return _leaf(torch.zeros(_size(size), dtype=dtype, device=device), requires_grad)


def ones(*size, dtype=None, device=None, requires_grad: bool = False) -> Tensor:
    return _leaf(torch.ones(_size(size), dtype=dtype, device=device), requires_grad)


def empty(*size, dtype=None, device=None, requires_grad: bool = False) -> Tensor:
    return _leaf(torch.empty(_size(size), dtype=dtype, device=device), requires_grad)


def full(size, fill_value, dtype=None, device=None, requires_grad: bool = False) -> Tensor:
    return _leaf(torch.full(size, fill_value, dtype=dtype, device=device), requires_grad)


def rand(*size, dtype=None, device=None, generator=None, requires_grad: bool = False) -> Tensor:
    return _leaf(torch.rand(_size(size), dtype=dtype, device=device, generator=generator), requires_grad)


def randn(*size, dtype=None, device=None, generator=None, requires_grad: bool = False) -> Tensor:
    return _leaf(torch.randn(_size(size), dtype=dtype, device=device, generator=generator), requires_grad)


def randint(low, high=None, size=(), dtype=None, device=None, generator=None) -> Tensor:
    if high is None:
        low, high = 0, low
    return _leaf(torch.randint(low, high, size, dtype=dtype, device=device, generator=generator), False)


def arange(start, end=None, step=1, dtype=None, device=None, requires_grad: bool = False) -> Tensor:
    data = (
        torch.arange(start, dtype=dtype, device=device)
        if end is None
        else torch.arange(start, end, step, dtype=dtype, device=device)
    )
    return _leaf(data, requires_grad)


def linspace(start, end, steps: int, dtype=None, device=None, requires_grad: bool = False) -> Tensor:
    return _leaf(torch.linspace(start, end, steps, dtype=dtype, device=device), requires_grad)


def eye(n: int, m: int | None = None, dtype=None, device=None, requires_grad: bool = False) -> Tensor:
    return _leaf(torch.eye(n, n if m is None else m, dtype=dtype, device=device), requires_grad)


def _like(fill, t: Tensor, dtype, device, requires_grad: bool) -> Tensor:
    data = t._data if isinstance(t, Tensor) else t
    return _leaf(fill(data, dtype=dtype, device=device), requires_grad)


def zeros_like(t: Tensor, dtype=None, device=None, requires_grad: bool = False) -> Tensor:
    return _like(torch.zeros_like, t, dtype, device, requires_grad)


def ones_like(t: Tensor, dtype=None, device=None, requires_grad: bool = False) -> Tensor:
    return _like(torch.ones_like, t, dtype, device, requires_grad)


def empty_like(t: Tensor, dtype=None, device=None, requires_grad: bool = False) -> Tensor:
    return _like(torch.empty_like, t, dtype, device, requires_grad)


def rand_like(t: Tensor, dtype=None, device=None, requires_grad: bool = False) -> Tensor:
    return _like(torch.rand_like, t, dtype, device, requires_grad)


def randn_like(t: Tensor, dtype=None, device=None, requires_grad: bool = False) -> Tensor:
    return _like(torch.randn_like, t, dtype, device, requires_grad)


def full_like(t: Tensor, fill_value, dtype=None, device=None, requires_grad: bool = False) -> Tensor:
    data = t._data if isinstance(t, Tensor) else t
    return _leaf(torch.full_like(data, fill_value, dtype=dtype, device=device), requires_grad)
