"""Creating tensors (from Python data, NumPy, torch, and filled ones), and asking what a tensor is."""

from __future__ import annotations

import warnings

import torch

from .autograd.grad_mode import is_grad_enabled
from .autograd.tensor import Tensor, detach_torch, is_torch_data
from .autograd.torch_function import unwrap


def _leaf(data: torch.Tensor, requires_grad: bool) -> Tensor:
    t = Tensor._make(data, None)
    if requires_grad:
        t.requires_grad_(True)
    return t


def tensor(data, requires_grad: bool = False, dtype: torch.dtype | None = None, device=None) -> Tensor:
    """A new leaf holding a copy of ``data`` (nested lists, numbers, numpy arrays or tensors)."""
    if isinstance(data, Tensor):
        data = data._data
    if is_torch_data(data):
        copied = detach_torch(data).to(device=device, dtype=dtype, copy=True)
    else:
        copied = torch.tensor(data, dtype=dtype, device=device)
    return _leaf(copied, requires_grad)


def from_torch(t: torch.Tensor, requires_grad: bool = False) -> Tensor:
    """Wrap ``t`` without copying (the two share memory); torch's own autograd state is dropped."""
    if not is_torch_data(t):
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
    if is_torch_data(input):
        return input
    raise TypeError(f"{name}(): argument 'input' (position 1) must be Tensor, not {type(input).__name__}")


def _create(make, args: tuple, kwargs: dict) -> Tensor:
    """A new leaf made by torch's ``make`` from PyTorch's own arguments: every overload and keyword
    torch parses (``zeros(2, 3)``, ``zeros((2, 3))``, ``zeros(size=(2, 3))``, ``randint(high, size)``,
    ``dtype``, ``device``, ``layout``, ``generator``, ``pin_memory``, ``memory_format``), with
    ``requires_grad`` and ``out`` (an mt tensor, filled and returned) taken here."""
    requires_grad = kwargs.pop("requires_grad", False)
    out = kwargs.pop("out", None)
    args, kwargs = unwrap(args), unwrap(kwargs)
    if out is None:
        return _leaf(make(*args, **kwargs), requires_grad)
    if isinstance(out, Tensor):
        if out._requires_grad and is_grad_enabled():
            raise RuntimeError(
                f"{make.__name__}(): functions with out=... arguments don't support automatic differentiation, "
                "but one of the arguments requires grad."
            )
        make(*args, out=out._data, **kwargs)
        return out
    return make(*args, out=out, **kwargs)


def zeros(*args, **kwargs) -> Tensor:
    """As ``torch.zeros``."""
    return _create(torch.zeros, args, kwargs)


def ones(*args, **kwargs) -> Tensor:
    """As ``torch.ones``."""
    return _create(torch.ones, args, kwargs)


def empty(*args, **kwargs) -> Tensor:
    """As ``torch.empty``: uninitialized memory."""
    return _create(torch.empty, args, kwargs)


def full(*args, **kwargs) -> Tensor:
    """As ``torch.full``: ``full(size, fill_value)``."""
    return _create(torch.full, args, kwargs)


def rand(*args, **kwargs) -> Tensor:
    """As ``torch.rand``: uniform on [0, 1)."""
    return _create(torch.rand, args, kwargs)


def randn(*args, **kwargs) -> Tensor:
    """As ``torch.randn``: standard normal."""
    return _create(torch.randn, args, kwargs)


def randint(*args, **kwargs) -> Tensor:
    """As ``torch.randint``: ``randint(high, size)`` or ``randint(low, high, size)``, integers in [low, high)."""
    return _create(torch.randint, args, kwargs)


def arange(*args, **kwargs) -> Tensor:
    """As ``torch.arange``: ``arange(end)``, ``arange(start, end, step=1)``."""
    return _create(torch.arange, args, kwargs)


def linspace(*args, **kwargs) -> Tensor:
    """As ``torch.linspace``: ``steps`` evenly spaced points from ``start`` to ``end``."""
    return _create(torch.linspace, args, kwargs)


def eye(*args, **kwargs) -> Tensor:
    """As ``torch.eye``: ``eye(n)``, ``eye(n, m)``."""
    return _create(torch.eye, args, kwargs)


def logspace(*args, **kwargs) -> Tensor:
    """As ``torch.logspace``: ``steps`` points from ``base ** start`` to ``base ** end``, evenly spaced
    in the exponent."""
    return _create(torch.logspace, args, kwargs)


def zeros_like(*args, **kwargs) -> Tensor:
    """As ``torch.zeros_like``."""
    return _create(torch.zeros_like, args, kwargs)


def ones_like(*args, **kwargs) -> Tensor:
    """As ``torch.ones_like``."""
    return _create(torch.ones_like, args, kwargs)


def empty_like(*args, **kwargs) -> Tensor:
    """As ``torch.empty_like``."""
    return _create(torch.empty_like, args, kwargs)


def rand_like(*args, **kwargs) -> Tensor:
    """As ``torch.rand_like``."""
    return _create(torch.rand_like, args, kwargs)


def randn_like(*args, **kwargs) -> Tensor:
    """As ``torch.randn_like``."""
    return _create(torch.randn_like, args, kwargs)


def empty_strided(*args, **kwargs) -> Tensor:
    """As ``torch.empty_strided``: ``empty_strided(size, stride)``, uninitialized."""
    return _create(torch.empty_strided, args, kwargs)


def empty_permuted(*args, **kwargs) -> Tensor:
    """As ``torch.empty_permuted``: ``empty_permuted(size, physical_layout)``, uninitialized."""
    return _create(torch.empty_permuted, args, kwargs)


def scalar_tensor(*args, **kwargs) -> Tensor:
    """As ``torch.scalar_tensor``: a 0-dim tensor of a number."""
    return _create(torch.scalar_tensor, args, kwargs)


def full_like(*args, **kwargs) -> Tensor:
    """As ``torch.full_like``: ``full_like(input, fill_value)``."""
    return _create(torch.full_like, args, kwargs)


def new(self: Tensor, *args, **kwargs) -> Tensor:
    """As PyTorch's legacy ``Tensor.new``: ``new(2, 3)`` (uninitialized), ``new([1, 2])``, ``new()``,
    with this tensor's dtype and device; a new leaf (``torch.distributions`` fills one by ``uniform_``)."""
    return _create(self._data.new, args, kwargs)


def new_zeros(self: Tensor, *args, **kwargs) -> Tensor:
    """Zeros of a size, with this tensor's dtype and device unless given."""
    return _create(self._data.new_zeros, args, kwargs)


def new_ones(self: Tensor, *args, **kwargs) -> Tensor:
    """Ones of a size, with this tensor's dtype and device unless given."""
    return _create(self._data.new_ones, args, kwargs)


def new_empty(self: Tensor, *args, **kwargs) -> Tensor:
    """An uninitialized tensor of a size, with this tensor's dtype and device unless given."""
    return _create(self._data.new_empty, args, kwargs)


def new_empty_strided(self: Tensor, *args, **kwargs) -> Tensor:
    """``new_empty_strided(size, stride)``, with this tensor's dtype and device unless given."""
    return _create(self._data.new_empty_strided, args, kwargs)


def new_full(self: Tensor, *args, **kwargs) -> Tensor:
    """``new_full(size, fill_value)``, with this tensor's dtype and device unless given."""
    return _create(self._data.new_full, args, kwargs)


def new_tensor(self: Tensor, data, *, dtype=None, device=None, requires_grad: bool = False) -> Tensor:
    """A new leaf holding a copy of ``data``, with this tensor's dtype and device unless given."""
    if isinstance(data, Tensor):
        data = data._data
    options = {
        "dtype": self._data.dtype if dtype is None else dtype,
        "device": self._data.device if device is None else device,
    }
    if is_torch_data(data):
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
