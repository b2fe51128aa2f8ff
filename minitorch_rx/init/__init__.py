"""In-place initializers with ``torch.nn.init``'s formulas and fan conventions.

Each function fills the tensor's data in place (an ``mt.Tensor``, a ``Parameter`` or a plain
``torch.Tensor``), records no graph whether or not the tensor requires grad, and returns the
tensor it was given. Weights are laid out ``[out, in, *kernel]``, so
``fan_in = in * prod(kernel)`` and ``fan_out = out * prod(kernel)``.

>>> import math, minitorch_rx as mt, minitorch_rx.init as init
>>> w = mt.empty(64, 32, 3, 3)
>>> _ = init.kaiming_uniform_(w, a=math.sqrt(5))
>>> bool(w.torch().abs().max() <= 1 / math.sqrt(32 * 9))
True
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable
from typing import TypeVar

import torch

from ..autograd.tensor import Tensor, is_torch_data
from ..ops.constants import check_number

__all__ = [
    "calculate_gain",
    "constant_",
    "eye_",
    "kaiming_normal_",
    "kaiming_uniform_",
    "normal_",
    "ones_",
    "orthogonal_",
    "trunc_normal_",
    "uniform_",
    "xavier_normal_",
    "xavier_uniform_",
    "zeros_",
]

T = TypeVar("T", Tensor, torch.Tensor)

_LINEAR_FNS = (
    "linear",
    "conv1d",
    "conv2d",
    "conv3d",
    "conv_transpose1d",
    "conv_transpose2d",
    "conv_transpose3d",
)


def _data(tensor: Tensor | torch.Tensor) -> torch.Tensor:
    if isinstance(tensor, Tensor):
        return tensor._data
    if is_torch_data(tensor):
        return tensor.detach()
    raise TypeError(f"expected an mt.Tensor or a torch.Tensor, got {type(tensor).__name__}")


def calculate_gain(nonlinearity: str, param: float | None = None) -> float:
    """The recommended gain for ``nonlinearity`` (an ``nn.functional`` name).

    linear, conv1d/2d/3d, conv_transpose*, sigmoid: 1; tanh: 5/3; relu: sqrt(2);
    leaky_relu: sqrt(2 / (1 + negative_slope**2)) with ``param`` the slope (default 0.01);
    selu: 3/4. Anything else raises ``ValueError``.
    """
    if nonlinearity in _LINEAR_FNS or nonlinearity == "sigmoid":
        return 1
    if nonlinearity == "tanh":
        return 5.0 / 3
    if nonlinearity == "relu":
        return math.sqrt(2.0)
    if nonlinearity == "leaky_relu":
        if param is None:
            negative_slope = 0.01
        elif isinstance(param, (int, float)) and not isinstance(param, bool):
            negative_slope = param
        else:
            raise ValueError(f"negative_slope {param} not a valid number")
        return math.sqrt(2.0 / (1 + negative_slope**2))
    if nonlinearity == "selu":
        return 3.0 / 4
    raise ValueError(f"Unsupported nonlinearity {nonlinearity}")


def _calculate_fan_in_and_fan_out(tensor: Tensor | torch.Tensor) -> tuple[int, int]:
    """``(in * prod(kernel), out * prod(kernel))`` of a weight shaped ``[out, in, *kernel]``."""
    shape = _data(tensor).shape
    if len(shape) < 2:
        raise ValueError("Fan in and fan out can not be computed for tensor with fewer than 2 dimensions")
    receptive_field_size = math.prod(shape[2:])
    return shape[1] * receptive_field_size, shape[0] * receptive_field_size


def _calculate_correct_fan(tensor: Tensor | torch.Tensor, mode: str) -> int:
    if not isinstance(mode, str):
        raise TypeError(f"mode must be 'fan_in' or 'fan_out', not {type(mode).__name__}")
    mode = mode.lower()
    valid_modes = ["fan_in", "fan_out"]
    if mode not in valid_modes:
        raise ValueError(f"Mode {mode} not supported, please use one of {valid_modes}")
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    return fan_in if mode == "fan_in" else fan_out


def uniform_(tensor: T, a: float = 0.0, b: float = 1.0, generator: torch.Generator | None = None) -> T:
    """Fill with values drawn from U(a, b)."""
    _data(tensor).uniform_(a, b, generator=generator)
    return tensor


def normal_(tensor: T, mean: float = 0.0, std: float = 1.0, generator: torch.Generator | None = None) -> T:
    """Fill with values drawn from N(mean, std**2)."""
    _data(tensor).normal_(mean, std, generator=generator)
    return tensor


def trunc_normal_(
    tensor: T,
    mean: float = 0.0,
    std: float = 1.0,
    a: float = -2.0,
    b: float = 2.0,
    generator: torch.Generator | None = None,
) -> T:
    """Fill with values drawn from N(mean, std**2) truncated to [a, b].

    Runs ``torch.nn.init.trunc_normal_`` on the data: the sampler is torch's own, so one seed
    gives the same draws as in PyTorch (its warning for a mean far outside [a, b] included).
    """
    for name, value in (("mean", mean), ("std", std), ("a", a), ("b", b)):
        check_number(value, "trunc_normal_", name)
    torch.nn.init.trunc_normal_(_data(tensor), mean, std, a, b, generator=generator)
    return tensor


def constant_(tensor: T, val: float) -> T:
    """Fill with ``val``."""
    _data(tensor).fill_(val)
    return tensor


def ones_(tensor: T) -> T:
    """Fill with ones."""
    _data(tensor).fill_(1.0)
    return tensor


def zeros_(tensor: T) -> T:
    """Fill with zeros."""
    _data(tensor).zero_()
    return tensor


def eye_(tensor: T) -> T:
    """Fill a 2-D tensor with the identity matrix (ones on the main diagonal)."""
    data = _data(tensor)
    if data.dim() != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    data.copy_(torch.eye(*data.shape, dtype=data.dtype, device=data.device))
    return tensor


def xavier_uniform_(tensor: T, gain: float = 1.0, generator: torch.Generator | None = None) -> T:
    """Glorot uniform: U(-a, a) with a = gain * sqrt(6 / (fan_in + fan_out))."""
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    std = gain * math.sqrt(2.0 / float(fan_in + fan_out))
    bound = math.sqrt(3.0) * std
    return uniform_(tensor, -bound, bound, generator)


def xavier_normal_(tensor: T, gain: float = 1.0, generator: torch.Generator | None = None) -> T:
    """Glorot normal: N(0, std**2) with std = gain * sqrt(2 / (fan_in + fan_out))."""
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    std = gain * math.sqrt(2.0 / float(fan_in + fan_out))
    return normal_(tensor, 0.0, std, generator)


def _kaiming_std(tensor: Tensor | torch.Tensor, a: float, mode: str, nonlinearity: str) -> float | None:
    if 0 in _data(tensor).shape:
        warnings.warn("Initializing zero-element tensors is a no-op", stacklevel=3)
        return None
    fan = _calculate_correct_fan(tensor, mode)
    return calculate_gain(nonlinearity, a) / math.sqrt(fan)


def kaiming_uniform_(
    tensor: T,
    a: float = 0,
    mode: str = "fan_in",
    nonlinearity: str = "leaky_relu",
    generator: torch.Generator | None = None,
) -> T:
    """He uniform: U(-bound, bound) with bound = gain * sqrt(3 / fan_mode).

    ``a`` is the negative slope used by ``leaky_relu``'s gain; ``mode`` is ``'fan_in'`` or
    ``'fan_out'``. Linear and Conv layers use ``a=sqrt(5)``: bound = 1 / sqrt(fan_in).
    """
    std = _kaiming_std(tensor, a, mode, nonlinearity)
    if std is None:
        return tensor
    bound = math.sqrt(3.0) * std
    return uniform_(tensor, -bound, bound, generator)


def kaiming_normal_(
    tensor: T,
    a: float = 0,
    mode: str = "fan_in",
    nonlinearity: str = "leaky_relu",
    generator: torch.Generator | None = None,
) -> T:
    """He normal: N(0, std**2) with std = gain / sqrt(fan_mode)."""
    std = _kaiming_std(tensor, a, mode, nonlinearity)
    if std is None:
        return tensor
    return normal_(tensor, 0.0, std, generator)


def orthogonal_(tensor: T, gain: float = 1, generator: torch.Generator | None = None) -> T:
    """Fill with a (semi-)orthogonal matrix times ``gain``; trailing dims are flattened.

    Rows are orthonormal when rows <= cols, columns otherwise (QR of a normal matrix, with
    the signs fixed by R's diagonal so the result is uniformly distributed).
    """
    data = _data(tensor)
    if data.dim() < 2:
        raise ValueError("Only tensors with 2 or more dimensions are supported")
    if data.numel() == 0:
        return tensor
    rows = data.size(0)
    cols = data.numel() // rows
    flattened = data.new_empty((rows, cols)).normal_(0, 1, generator=generator)
    if rows < cols:
        flattened.t_()
    q, r = torch.linalg.qr(flattened)
    q *= torch.diag(r, 0).sign()
    if rows < cols:
        q.t_()
    data.view_as(q).copy_(q)
    data.mul_(gain)
    return tensor


def _deprecated(method: Callable[..., T]) -> Callable[..., T]:
    """PyTorch's old name without the trailing underscore: warns, then calls ``method``."""
    new_name = method.__name__
    old_name = new_name[:-1]

    def deprecated_init(*args, **kwargs):
        warnings.warn(
            f"`nn.init.{old_name}` is now deprecated in favor of `nn.init.{new_name}`.", FutureWarning, stacklevel=2
        )
        return method(*args, **kwargs)

    deprecated_init.__name__ = deprecated_init.__qualname__ = old_name
    deprecated_init.__doc__ = f"Deprecated: use ``{new_name}``."
    return deprecated_init


uniform = _deprecated(uniform_)
normal = _deprecated(normal_)
constant = _deprecated(constant_)
eye = _deprecated(eye_)
xavier_uniform = _deprecated(xavier_uniform_)
xavier_normal = _deprecated(xavier_normal_)
kaiming_uniform = _deprecated(kaiming_uniform_)
kaiming_normal = _deprecated(kaiming_normal_)
orthogonal = _deprecated(orthogonal_)
