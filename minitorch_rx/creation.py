"""Creating tensors (from Python data, NumPy, torch, and filled ones), and asking what a tensor is."""

from __future__ import annotations

import warnings

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


def logspace(start, end, steps: int, base: float = 10.0, dtype=None, device=None, requires_grad: bool = False):
    """``steps`` points from ``base ** start`` to ``base ** end``, evenly spaced in the exponent."""
    return _leaf(torch.logspace(start, end, steps, base, dtype=dtype, device=device), requires_grad)


def new_zeros(self: Tensor, *size, dtype=None, device=None, requires_grad: bool = False) -> Tensor:
    """Zeros of ``size`` with this tensor's dtype and device unless given."""
    return _leaf(self._data.new_zeros(_size(size), dtype=dtype, device=device), requires_grad)


def new_ones(self: Tensor, *size, dtype=None, device=None, requires_grad: bool = False) -> Tensor:
    """Ones of ``size`` with this tensor's dtype and device unless given."""
    return _leaf(self._data.new_ones(_size(size), dtype=dtype, device=device), requires_grad)


def new_empty(self: Tensor, *size, dtype=None, device=None, requires_grad: bool = False) -> Tensor:
    """An uninitialized tensor of ``size`` with this tensor's dtype and device unless given."""
    return _leaf(self._data.new_empty(_size(size), dtype=dtype, device=device), requires_grad)


def new_full(self: Tensor, size, fill_value, *, dtype=None, device=None, requires_grad: bool = False) -> Tensor:
    """``fill_value`` everywhere in ``size``, with this tensor's dtype and device unless given."""
    return _leaf(self._data.new_full(size, fill_value, dtype=dtype, device=device), requires_grad)


def new_tensor(self: Tensor, data, *, dtype=None, device=None, requires_grad: bool = False) -> Tensor:
    """A new leaf holding a copy of ``data``, with this tensor's dtype and device unless given."""
    if isinstance(data, Tensor):
        data = data._data
    options = {
        "dtype": self._data.dtype if dtype is None else dtype,
        "device": self._data.device if device is None else device,
    }
    if isinstance(data, torch.Tensor):
        warnings.warn(
            "To copy construct from a tensor, it is recommended to use sourceTensor.detach().clone() or "
            "sourceTensor.detach().clone().requires_grad_(True), rather than tensor.new_tensor(sourceTensor).",
            UserWarning,
            stacklevel=2,
        )
        copied = data.detach().to(copy=True, **options)
    else:
        copied = torch.tensor(data, **options)
    return _leaf(copied, requires_grad)


def meshgrid(*tensors, indexing: str = "ij") -> tuple[Tensor, ...]:
    """Coordinate grids from 1-D tensors, as ``torch.meshgrid``: each output is its input
    reshaped and expanded (a view), so gradients flow back to the inputs."""
    from .ops.shape import expand, reshape

    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
    if indexing not in ("ij", "xy"):
        raise ValueError(f'torch.meshgrid: indexing must be one of "xy" or "ij", but received: {indexing}')
    for i, t in enumerate(tensors):
        if not isinstance(t, (Tensor, torch.Tensor)):
            raise TypeError(f"meshgrid expects a list of tensors, got {type(t).__name__} at position {i}")
        if t.dim() > 1:
            raise RuntimeError(f"torch.meshgrid: Expected 0D or 1D tensor in the tensor list but got: {t._data}")
    swap = indexing == "xy" and len(tensors) >= 2
    if swap:
        tensors = (tensors[1], tensors[0], *tensors[2:])
    shape = tuple(t.numel() for t in tensors)
    grids = []
    for i, t in enumerate(tensors):
        view = [1] * len(tensors)
        view[i] = -1
        grids.append(expand(reshape(t, view), shape))
    if swap:
        grids[0], grids[1] = grids[1], grids[0]
    return tuple(grids)
