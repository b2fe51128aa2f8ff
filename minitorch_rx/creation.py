"""Creating tensors (from Python data, NumPy, torch, and filled ones), and asking what a tensor is."""

from __future__ import annotations

import torch

from .autograd.tensor import Tensor


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
        copied = data.detach().to(device=device, dtype=dtype, copy=True)
    else:
        copied = torch.tensor(data, dtype=dtype, device=device)
    return _leaf(copied, requires_grad)


def from_torch(t: torch.Tensor, requires_grad: bool = False) -> Tensor:
    """Wrap ``t`` without copying (the two share memory); torch's own autograd state is dropped."""
    if not isinstance(t, torch.Tensor):
        raise TypeError(f"from_torch expects a torch.Tensor, got {type(t).__name__}")
    return _leaf(t.detach(), requires_grad)


def from_numpy(array) -> Tensor:
    """A tensor sharing ``array``'s memory (a ``numpy.ndarray``), as ``torch.from_numpy``."""
    return _leaf(torch.from_numpy(array), False)


def as_tensor(data, dtype: torch.dtype | None = None, device=None) -> Tensor:
    """``data`` as a tensor, copying only when it must: an ``mt.Tensor`` of that dtype and device
    comes back itself (another dtype or device: a recorded ``to``), a torch tensor or a NumPy array
    is shared where it can be, as ``torch.as_tensor``."""
    if isinstance(data, Tensor):
        if (dtype is None or data.dtype == dtype) and (device is None or data.device == torch.device(device)):
            return data
        return data.to(device=device, dtype=dtype)
    return _leaf(torch.as_tensor(data, dtype=dtype, device=device).detach(), False)


def is_tensor(obj: object) -> bool:
    """Whether ``obj`` is a tensor: an ``mt.Tensor``, or a torch tensor (which every ``mt`` module takes)."""
    return isinstance(obj, (Tensor, torch.Tensor))


def is_floating_point(input: Tensor) -> bool:
    """Whether ``input``'s dtype is a floating point one."""
    return _data_of(input, "is_floating_point").is_floating_point()


def numel(input: Tensor) -> int:
    """The number of elements of ``input``."""
    return _data_of(input, "numel").numel()


def _data_of(input: Tensor, name: str) -> torch.Tensor:
    if isinstance(input, Tensor):
        return input._data
    if isinstance(input, torch.Tensor):
        return input
    raise TypeError(f"{name}(): argument 'input' (position 1) must be Tensor, not {type(input).__name__}")


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
