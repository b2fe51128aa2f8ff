"""``mt.masked``: reductions and normalizations over the elements a boolean ``mask`` keeps, as
``torch.masked``'s (dense, strided tensors; ``MaskedTensor`` and sparse layouts are not supported).

As in PyTorch, each op replaces the masked-out elements by the identity of its reduction
(0 for sums, 1 for products, ``-inf`` for maxima, ...) with ``where`` and runs the ordinary op,
so values and gradients are those of PyTorch's composites; ``mean``, ``var`` and ``std`` divide
by the number of kept elements (NaN where a slice keeps none).
"""

from __future__ import annotations

import math

import torch

from .autograd.tensor import Tensor
from .ops import activation, linalg, reduce, scan, sort
from .ops.constants import tensor_arg
from .ops.elementwise import maximum, sqrt
from .ops.math import logaddexp as _logaddexp

__all__ = [
    "amax",
    "amin",
    "argmax",
    "argmin",
    "cumprod",
    "cumsum",
    "log_softmax",
    "logaddexp",
    "logsumexp",
    "mean",
    "median",
    "norm",
    "normalize",
    "prod",
    "softmax",
    "softmin",
    "std",
    "sum",
    "var",
]

_SMALL_INTS = {torch.uint8, torch.bool, torch.int8, torch.int16, torch.int32}


def _input_mask(input: Tensor, mask) -> torch.Tensor:
    """``mask`` broadcast to ``input``'s shape, as bool (PyTorch's canonical input mask)."""
    mask = mask._data if isinstance(mask, Tensor) else mask
    if tuple(mask.shape) != tuple(input.shape):
        if mask.dim() > input.dim():
            raise IndexError(
                "_input_mask expected broadcastable mask (got mask dimensionality higher than of the input)"
            )
        mask = torch.broadcast_to(mask.clone(), input.shape)
    return mask.to(dtype=torch.bool)


def _combine(input: Tensor, mask, identity: float) -> Tensor:
    """``input`` with its masked-out elements replaced by ``identity``."""
    if mask is None:
        return input
    return input.where(_input_mask(input, mask), identity)


def _dims(dim, ndim: int) -> tuple[int, ...]:
    """``dim`` as a sorted tuple (all dims for ``None`` or ``()``), PyTorch's checks and wording."""
    if dim is None or dim == ():
        return tuple(range(ndim))
    ndim = max(ndim, 1)
    dims: list[int] = []
    for d in (dim,) if isinstance(dim, int) else dim:
        if d in dims:
            raise RuntimeError(f"dim={d} appears multiple times in the list of dims")
        if d >= ndim or d < -ndim:
            raise IndexError(f"Dimension out of range (expected to be in range of [{-ndim}, {ndim - 1}], but got {d})")
        dims.append(d % ndim)
    return tuple(sorted(dims))


def _sum_dtype(input: Tensor, dtype):
    if dtype is not None:
        return dtype
    return torch.int64 if input.dtype in _SMALL_INTS else input.dtype


def sum(input: Tensor, dim=None, *, keepdim: bool = False, dtype=None, mask=None) -> Tensor:
    """The sum of the kept elements over ``dim`` (all dims by default)."""
    input = tensor_arg(input, "masked.sum")
    dims = _dims(dim, input.dim())
    return reduce.sum(_combine(input, mask, 0), dims, bool(keepdim), dtype=_sum_dtype(input, dtype))


def prod(input: Tensor, dim=None, *, keepdim: bool = False, dtype=None, mask=None) -> Tensor:
    """The product of the kept elements over ``dim`` (one dim at a time, as PyTorch's)."""
    input = tensor_arg(input, "masked.prod")
    result = _combine(input, mask, 1).to(_sum_dtype(input, dtype))
    for d in reversed(_dims(dim, input.dim())):
        result = reduce.prod(result, d, bool(keepdim))
    return result


def cumsum(input: Tensor, dim: int, *, dtype=None, mask=None) -> Tensor:
    """The cumulative sum along ``dim``, masked-out elements counting as 0."""
    input = tensor_arg(input, "masked.cumsum")
    dtype = input.dtype if dtype is None else dtype
    return scan.cumsum(_combine(input, mask, 0), _dims(dim, input.dim())[0], dtype=dtype).to(dtype)


def cumprod(input: Tensor, dim: int, *, dtype=None, mask=None) -> Tensor:
    """The cumulative product along ``dim``, masked-out elements counting as 1."""
    input = tensor_arg(input, "masked.cumprod")
    dtype = input.dtype if dtype is None else dtype
    return scan.cumprod(_combine(input, mask, 1), _dims(dim, input.dim())[0], dtype=dtype).to(dtype)


def _extreme_identity(input: Tensor, largest: bool) -> float:
    if input.dtype.is_floating_point:
        return -math.inf if largest else math.inf
    info = torch.iinfo(input.dtype)
    return info.min if largest else info.max


def amax(input: Tensor, dim=None, *, keepdim: bool = False, dtype=None, mask=None) -> Tensor:
    """The largest kept element over ``dim`` (``-inf`` where none is kept)."""
    input = tensor_arg(input, "masked.amax")
    dtype = input.dtype if dtype is None else dtype
    combined = _combine(input, mask, _extreme_identity(input, True))
    return reduce.amax(combined, _dims(dim, combined.dim()), bool(keepdim)).to(dtype)


def amin(input: Tensor, dim=None, *, keepdim: bool = False, dtype=None, mask=None) -> Tensor:
    """The smallest kept element over ``dim`` (``inf`` where none is kept)."""
    input = tensor_arg(input, "masked.amin")
    dtype = input.dtype if dtype is None else dtype
    combined = _combine(input, mask, _extreme_identity(input, False))
    return reduce.amin(combined, _dims(dim, combined.dim()), bool(keepdim)).to(dtype)


def argmax(input: Tensor, dim: int | None = None, *, keepdim: bool = False, dtype=None, mask=None) -> Tensor:
    """The index of the largest kept element along ``dim``."""
    input = tensor_arg(input, "masked.argmax")
    dtype = input.dtype if dtype is None else dtype
    return reduce.argmax(_combine(input, mask, _extreme_identity(input, True)), dim, bool(keepdim)).to(dtype)


def argmin(input: Tensor, dim: int | None = None, *, keepdim: bool = False, dtype=None, mask=None) -> Tensor:
    """The index of the smallest kept element along ``dim``."""
    input = tensor_arg(input, "masked.argmin")
    dtype = input.dtype if dtype is None else dtype
    return reduce.argmin(_combine(input, mask, _extreme_identity(input, False)), dim, bool(keepdim)).to(dtype)


def _count(input: Tensor, dim, keepdim: bool, mask) -> torch.Tensor:
    if mask is None:
        return torch.ones(input.shape, dtype=torch.int64, device=input.device).sum(
            _dims(dim, input.dim()), keepdim=keepdim
        )
    return _input_mask(input, mask).sum(dim=dim, keepdim=keepdim)


def mean(input: Tensor, dim=None, *, keepdim: bool = False, dtype=None, mask=None) -> Tensor:
    """The mean of the kept elements over ``dim`` (NaN where none is kept)."""
    input = tensor_arg(input, "masked.mean")
    source = "Optional"
    if dtype is None:
        dtype, source = input.dtype, "Input"
    if not (dtype.is_floating_point or dtype.is_complex):
        raise ValueError(
            f"mean(): Could not infer output dtype. {source} dtype must be either "
            f"a floating point or complex dtype. Got: {dtype}"
        )
    total = sum(input, dim, keepdim=keepdim, dtype=dtype, mask=mask)
    return total / _count(input, dim, bool(keepdim), mask)


def median(input: Tensor, dim: int = -1, *, keepdim: bool = False, dtype=None, mask=None) -> Tensor:
    """The lower median of the kept elements along ``dim`` (NaN where none is kept): the kept
    elements sorted (masked-out ones, NaN, last), the middle one picked, as ``nanmedian``."""
    input = tensor_arg(input, "masked.median")
    dtype = input.dtype if dtype is None else dtype
    d = _dims(dim, input.dim())[0]
    is_float = input.dtype.is_floating_point
    if not is_float:
        input = input.to(torch.float)
    combined = _combine(input, mask, math.nan)
    if combined.dim() == 0:
        return combined
    values, _ = sort.sort(combined, d)
    kept = (~torch.isnan(combined._data)).sum(d, keepdim=True)
    middle = (kept - 1).clamp(min=0) // 2
    output = values.gather(d, middle)
    if not keepdim:
        output = output.squeeze(d)
    if is_float:
        return output
    if bool(torch.isnan(output._data).any()):
        raise ValueError("masked median expects no fully masked out rows if dtype is not floating point")
    return output.to(dtype)


def logsumexp(input: Tensor, dim=None, *, keepdim: bool = False, dtype=None, mask=None) -> Tensor:
    """``log(sum(exp(x)))`` of the kept elements over ``dim`` (``-inf`` where none is kept)."""
    input = tensor_arg(input, "masked.logsumexp")
    dtype = input.dtype if dtype is None else dtype
    combined = _combine(input, mask, _extreme_identity(input, True))
    return reduce.logsumexp(combined, _dims(dim, input.dim()), keepdim=keepdim).to(dtype)


def logaddexp(input: Tensor, other: Tensor, *, dtype=None, input_mask=None, other_mask=None) -> Tensor:
    """``log(exp(input) + exp(other))``, each operand's masked-out elements taken as ``-inf``."""
    input = tensor_arg(input, "masked.logaddexp")
    other = tensor_arg(other, "masked.logaddexp", "other", 2)
    dtype = input.dtype if dtype is None else dtype
    combined_input = _combine(input, input_mask, _extreme_identity(input, True))
    combined_other = _combine(other, other_mask, _extreme_identity(other, True))
    return _logaddexp(combined_input, combined_other).to(dtype)


def norm(input: Tensor, ord: float | None = 2.0, dim=None, *, keepdim: bool = False, dtype=None, mask=None):
    """The ``ord``-norm of the kept elements over ``dim`` (masked-out elements count as 0, or as
    ``inf`` for ``ord=-inf``)."""
    input = tensor_arg(input, "masked.norm")
    dtype = input.dtype if dtype is None else dtype
    identity = math.inf if ord == -math.inf else 0
    combined = _combine(input, mask, identity)
    return linalg.vector_norm(combined, ord, _dims(dim, input.dim()), bool(keepdim), dtype=dtype)


def _std_var(input, dim, unbiased, correction, keepdim, dtype, mask, take_sqrt: bool) -> Tensor:
    if unbiased is not None and correction is not None:
        raise AssertionError("Only one of unbiased and correction may be given")
    value = 1.0
    if unbiased is not None:
        value = 1.0 if unbiased else 0.0
    if correction is not None:
        value = float(correction)
    if dtype is None:
        dtype = input.dtype if input.dtype.is_floating_point else torch.float32
    count = _count(input, dim, True, mask)
    sample_mean = sum(input, dim, keepdim=True, dtype=dtype, mask=mask) / count
    x = input - sample_mean
    total = sum(x * x, dim, keepdim=keepdim, dtype=dtype, mask=mask)
    if not keepdim:
        count = count.reshape(total.shape)
    if value != 0:
        count = (count.to(dtype) - value).clamp(min=0)
    output = (total / count).to(dtype)
    return sqrt(output) if take_sqrt else output


def var(input: Tensor, dim=None, unbiased=None, *, correction=None, keepdim: bool = False, dtype=None, mask=None):
    """The variance of the kept elements over ``dim`` (``correction`` 1 by default)."""
    input = tensor_arg(input, "masked.var")
    return _std_var(input, dim, unbiased, correction, keepdim, dtype, mask, False)


def std(input: Tensor, dim=None, unbiased=None, *, correction=None, keepdim: bool = False, dtype=None, mask=None):
    """The standard deviation of the kept elements over ``dim`` (``correction`` 1 by default)."""
    input = tensor_arg(input, "masked.std")
    return _std_var(input, dim, unbiased, correction, keepdim, dtype, mask, True)


def softmax(input: Tensor, dim: int, *, dtype=None, mask=None) -> Tensor:
    """Softmax along ``dim`` over the kept elements (the others get 0; NaN where none is kept)."""
    input = tensor_arg(input, "masked.softmax")
    dtype = input.dtype if dtype is None else dtype
    combined = _combine(input, mask, _extreme_identity(input, True))
    return activation.softmax(combined, _dims(dim, input.dim())[0], dtype=dtype)


def log_softmax(input: Tensor, dim: int, *, dtype=None, mask=None) -> Tensor:
    """Log-softmax along ``dim`` over the kept elements (``-inf`` for the others)."""
    input = tensor_arg(input, "masked.log_softmax")
    dtype = input.dtype if dtype is None else dtype
    combined = _combine(input, mask, _extreme_identity(input, True))
    return activation.log_softmax(combined, _dims(dim, input.dim())[0], dtype=dtype)


def softmin(input: Tensor, dim: int, *, dtype=None, mask=None) -> Tensor:
    """Softmin along ``dim`` over the kept elements (the others get 0)."""
    input = tensor_arg(input, "masked.softmin")
    dtype = input.dtype if dtype is None else dtype
    combined = _combine(input, mask, _extreme_identity(input, False))
    return activation.softmin(combined, _dims(dim, input.dim())[0], dtype=dtype)


def normalize(input: Tensor, ord: float, dim: int, *, eps: float = 1e-12, dtype=None, mask=None) -> Tensor:
    """The kept elements divided by their ``ord``-norm along ``dim`` (at least ``eps``); the
    masked-out ones become 0."""
    input = tensor_arg(input, "masked.normalize")
    dtype = input.dtype if dtype is None else dtype
    norms = norm(input, ord, dim, keepdim=True, dtype=dtype, mask=mask)
    denominator = maximum(norms, torch.tensor(eps, dtype=norms.dtype, device=norms.device))
    return _combine(input, mask, 0) / denominator
