"""Reductions and scans beyond ``reduce.py``/``scan.py``: NaN-ignoring reductions, quantiles,
``var_mean``/``std_mean``, ``aminmax``, covariance and correlation, differences and trapezoid
integration, ``renorm``, ``logcumsumexp``, ``cummax``/``cummin``, histograms (no gradient).

Most are exact compositions of recorded ops; ``logcumsumexp`` and ``cummax``/``cummin`` are
Functions with PyTorch's backward formulas.
"""

from __future__ import annotations

import numbers
import warnings
from collections import namedtuple

import torch

from ..autograd.function import Function, call
from ..autograd.tensor import Tensor
from .constants import TENSOR_TYPES, check_number, dtype_name, tensor_arg
from .dims import normalize_dim, normalize_dims
from .elementwise import clamp, mul, sqrt, sub, where
from .index import gather
from .linalg import mm, vector_norm
from .math import lerp
from .reduce import SelectedAlongDim, _unbiased_first, amax, amin, mean, std, var
from .reduce import sum as _sum
from .shape import cat, movedim, reshape, squeeze, unsqueeze
from .sort import sort
from .split import narrow

aminmax_result = namedtuple("aminmax", ["min", "max"])
values_indices = namedtuple("values_indices", ["values", "indices"])


def _constant(t: torch.Tensor) -> Tensor:
    return Tensor._make(t, None)


# ------------------------------------------------------------------ NaN-ignoring reductions
def nansum(input: Tensor, dim=None, keepdim: bool = False, *, dtype: torch.dtype | None = None) -> Tensor:
    """The sum, NaNs counted as zero."""
    input = tensor_arg(input, "nansum")
    if input.dtype.is_floating_point:
        input = where(_constant(input._data.isnan()), 0.0, input)
    return _sum(input, dim, keepdim, dtype=dtype)


def nanmean(input: Tensor, dim=None, keepdim: bool = False, *, dtype: torch.dtype | None = None) -> Tensor:
    """The mean of the non-NaN elements."""
    input = tensor_arg(input, "nanmean")
    if not input.dtype.is_floating_point:
        raise RuntimeError(
            f"nanmean(): expected input to have floating point or complex dtype but got {dtype_name(input.dtype)}"
        )
    count = _constant((~input._data.isnan()).sum(dim=normalize_dims(dim, input.dim()), keepdim=keepdim))
    return nansum(input, dim, keepdim, dtype=dtype) / count


def nanmedian(input: Tensor, dim: int | None = None, keepdim: bool = False):
    """The lower median of the non-NaN elements; with ``dim``, ``(values, indices)`` along it."""
    input = tensor_arg(input, "nanmedian")
    if dim is None and not input.dtype.is_floating_point:  # no NaNs, no gradient: torch's, in input's dtype
        return Tensor._make(torch.nanmedian(input._data), None)
    if dim is None:
        value = torch.nanmedian(input._data)
        mask = _constant(input._data == value)
        return _sum(where(mask, input, 0.0)) / _constant(mask._data.sum())  # split among ties, as median's
    values, indices = SelectedAlongDim.apply(input, torch.nanmedian, normalize_dim(dim, input.dim()), keepdim)
    return values_indices(values, indices)


# ------------------------------------------------------------------ moments
def _check_moment_dtype(input: Tensor, name: str) -> None:
    if not (input.dtype.is_floating_point or input.dtype.is_complex):
        raise RuntimeError(f"{name} only support floating point and complex dtypes")


def var_mean(input: Tensor, dim=None, unbiased: bool | None = None, keepdim: bool = False, *, correction=None):
    """``(var, mean)`` over ``dim``."""
    input = tensor_arg(input, "var_mean")
    _check_moment_dtype(input, "var_mean")
    dim, unbiased = _unbiased_first(dim, unbiased)
    return var(input, dim, unbiased, keepdim, correction=correction), mean(input, dim, keepdim)


def std_mean(input: Tensor, dim=None, unbiased: bool | None = None, keepdim: bool = False, *, correction=None):
    """``(std, mean)`` over ``dim``."""
    input = tensor_arg(input, "std_mean")
    _check_moment_dtype(input, "std_mean")
    dim, unbiased = _unbiased_first(dim, unbiased)
    return std(input, dim, unbiased, keepdim, correction=correction), mean(input, dim, keepdim)


def aminmax(input: Tensor, *, dim: int | None = None, keepdim: bool = False):
    """``(min, max)`` over ``dim`` (all elements by default)."""
    input = tensor_arg(input, "aminmax")
    if dim is None:
        low, high = amin(input), amax(input)
        if keepdim:
            low, high = reshape(low, [1] * input.dim()), reshape(high, [1] * input.dim())
        return aminmax_result(low, high)
    return aminmax_result(amin(input, dim, keepdim), amax(input, dim, keepdim))


# ------------------------------------------------------------------ quantiles
_INTERPOLATIONS = ("linear", "lower", "higher", "midpoint", "nearest")


def _quantile(input: Tensor, q, dim, keepdim: bool, interpolation: str, ignore_nan: bool, name: str) -> Tensor:
    input = tensor_arg(input, name)
    if interpolation not in _INTERPOLATIONS:
        raise RuntimeError(
            "quantile() interpolation must be one of linear, lower, higher, midpoint or nearest, "
            f"but got {interpolation}"
        )
    if not input.dtype.is_floating_point:
        raise RuntimeError("quantile() input tensor must be either float or double dtype")
    if isinstance(q, TENSOR_TYPES):
        q_data = q._data if isinstance(q, Tensor) else q
        if q_data.dtype != input.dtype:
            raise RuntimeError("quantile() q tensor must be same dtype as the input tensor")
    elif isinstance(q, numbers.Real) and not 0 <= q <= 1:
        raise RuntimeError(f"quantile() q must be in the range [0, 1] but got {q}")
    elif isinstance(q, (numbers.Real, list, tuple)):
        q_data = torch.tensor(q, dtype=input.dtype)
    else:
        raise TypeError(f"{name}(): argument 'q' (position 2) must be float or Tensor, not {type(q).__name__}")
    if q_data.dim() > 1:
        raise RuntimeError("quantile() q must be a scalar or 1D tensor")
    if bool(((q_data < 0) | (q_data > 1)).any()):
        raise RuntimeError("quantile() q values must be in the range [0, 1]")
    if input.numel() == 0 and dim is None:
        raise RuntimeError("quantile() input tensor must be non-empty")
    if dim is not None:
        dim = normalize_dim(dim, max(input.dim(), 1))
    values = reshape(input, (-1,)) if dim is None or input.dim() == 0 else movedim(input, dim, -1)
    ordered = sort(values, -1)[0]  # NaNs last
    n = ordered.shape[-1]
    qs = q_data.reshape(-1)
    nans = ordered._data.isnan()
    if ignore_nan:
        valid = (~nans).sum(-1, keepdim=True).to(input.dtype)
        ranks = qs * (valid - 1).clamp(min=0)
        undefined = valid == 0
    else:
        ranks = (qs * (n - 1)).expand(*ordered.shape[:-1], qs.numel())
        undefined = nans.any(-1, keepdim=True)
        ranks = torch.where(undefined, float(n - 1), ranks)  # a NaN in the slice: the result is NaN
    if interpolation == "nearest":
        ranks = ranks.round()
    top = max(n - 1, 0)
    low, high = ranks.floor().long().clamp(0, top), ranks.ceil().long().clamp(0, top)
    if interpolation == "lower":
        high = low
    elif interpolation == "higher":
        low = high
    if interpolation == "linear":
        weight = ranks - ranks.floor()
    else:
        weight = torch.full_like(ranks, 0.5 if interpolation == "midpoint" else 0.0)
    low_values, high_values = gather(ordered, -1, _constant(low)), gather(ordered, -1, _constant(high))
    if interpolation == "linear" and isinstance(q, Tensor) and q.requires_grad:  # the weight's gradient reaches q
        scale = (valid - 1).clamp(min=0) if ignore_nan else torch.full_like(ranks, n - 1)
        weight = mul(reshape(q, (-1,)), _constant(scale)) - _constant(ranks.floor())
        weight = where(_constant(low == high), 0.0, weight)
    else:
        weight = _constant(torch.where(low == high, 0.0, weight))
    out = lerp(low_values, high_values, weight)
    if ignore_nan:
        out = where(_constant(undefined.expand_as(out._data)), float("nan"), out)
    out = movedim(out, -1, 0)  # (Q, *rest)
    if keepdim and dim is None:
        out = reshape(out, (qs.numel(),) + (1,) * input.dim())
    elif keepdim and input.dim() > 0:
        out = unsqueeze(out, dim + 1)
    return squeeze(out, 0) if q_data.dim() == 0 else out


def quantile(input: Tensor, q, dim=None, keepdim: bool = False, *, interpolation: str = "linear") -> Tensor:
    """The ``q``-th quantiles (a number or a 1-D tensor of them, first in the result) along ``dim``."""
    return _quantile(input, q, dim, keepdim, interpolation, False, "quantile")


def nanquantile(input: Tensor, q, dim=None, keepdim: bool = False, *, interpolation: str = "linear") -> Tensor:
    """``quantile`` of the non-NaN elements."""
    return _quantile(input, q, dim, keepdim, interpolation, True, "nanquantile")


# ------------------------------------------------------------------ covariance
def cov(input: Tensor, *, correction: int = 1, fweights=None, aweights=None) -> Tensor:
    """The covariance matrix of the rows of ``input`` (variables) over its columns (observations)."""
    input = tensor_arg(input, "cov")
    result = torch.cov(  # torch's checks of the weights (dims, dtypes, sizes, signs)
        input._data,
        correction=correction,
        fweights=None if fweights is None else tensor_arg(fweights, "cov", "fweights")._data,
        aweights=None if aweights is None else tensor_arg(aweights, "cov", "aweights")._data,
    )
    if input.dtype.is_complex:  # never requires grad here: torch's answer
        return Tensor._make(result, None)
    if input.dim() > 2:
        raise RuntimeError(
            f"cov(): expected input to have two or fewer dimensions but got an input with {input.dim()} dimensions"
        )
    x = reshape(input, (1, -1)) if input.dim() < 2 else input
    if not x.dtype.is_floating_point:
        x = x.to(torch.get_default_dtype())
    observations = x.shape[1]
    w = None
    if fweights is not None:
        w = tensor_arg(fweights, "cov", "fweights")
    if aweights is not None:
        aw = tensor_arg(aweights, "cov", "aweights")
        w = aw if w is None else mul(w, aw)
    w_sum = _sum(w) if w is not None else observations
    average = _sum(mul(x, w), 1) / w_sum if w is not None else mean(x, 1)
    if w is not None and aweights is not None and correction != 0:
        norm_factor = w_sum - correction * _sum(mul(w, aweights)) / w_sum
    else:
        norm_factor = w_sum - correction
    if float(norm_factor.item() if isinstance(norm_factor, Tensor) else norm_factor) <= 0:
        warnings.warn(
            "cov(): degrees of freedom is <= 0. Correction should be strictly less than the number of observations.",
            stacklevel=2,
        )
        norm_factor = clamp(norm_factor, min=0) if isinstance(norm_factor, Tensor) else 0
    centered = sub(x, unsqueeze(average, 1))
    product = mm(centered, (mul(centered, w) if w is not None else centered).t())
    return squeeze(product / norm_factor)


def corrcoef(input: Tensor) -> Tensor:
    """Pearson's correlation coefficients of the rows of ``input``."""
    input = tensor_arg(input, "corrcoef")
    if input.dim() > 2:
        raise RuntimeError(
            f"corrcoef(): expected input to have two or fewer dimensions but got an input with {input.dim()} dimensions"
        )
    if input.dtype.is_complex:  # never requires grad here: torch's answer
        return Tensor._make(torch.corrcoef(input._data), None)
    c = cov(input)
    if c.dim() == 0:
        return c / c
    stddev = sqrt(c.diagonal())
    c = c / unsqueeze(stddev, 1)
    c = c / unsqueeze(stddev, 0)
    return clamp(c, -1, 1)


def dist(input: Tensor, other: Tensor, p=2) -> Tensor:
    """The ``p``-norm of ``input - other``."""
    input, other = tensor_arg(input, "dist"), tensor_arg(other, "dist", "other", 2)
    return vector_norm(sub(input, other), p)


# ------------------------------------------------------------------ differences and integrals
def diff(input: Tensor, n: int = 1, dim: int = -1, prepend=None, append=None) -> Tensor:
    """The ``n``-th forward difference along ``dim``, after ``prepend``/``append``."""
    input = tensor_arg(input, "diff")
    check_number(n, "diff", "n", integer=True)
    if input.dim() == 0:
        raise RuntimeError("diff expects input to be at least one-dimensional")
    if n < 0:
        raise RuntimeError(f"order must be non-negative but got {n}")
    dim = normalize_dim(dim, input.dim())
    if n == 0:
        return input
    if prepend is not None or append is not None:
        pieces = [p for p in (prepend, input, append) if p is not None]
        input = cat([tensor_arg(p, "diff") if isinstance(p, TENSOR_TYPES) else p for p in pieces], dim)
    for _ in range(n):
        length = input.shape[dim]
        if length == 0:
            break
        later, earlier = narrow(input, dim, 1, length - 1), narrow(input, dim, 0, length - 1)
        input = (later != earlier) if input.dtype == torch.bool else sub(later, earlier)
    return input


def _spacing(x: Tensor, y: Tensor, dim: int, name: str) -> Tensor:
    """The differences of the sample points ``x`` along ``dim``, shaped to broadcast with ``y``'s pairs."""
    if x.dtype == torch.bool:
        raise NotImplementedError(f"{name}: received a bool input for `x` or `y`, but bool is not supported")
    if x.dim() == 1 and x.shape[0] != y.shape[dim]:
        raise RuntimeError(f"{name}: There must be one `x` value for each sample point")
    if x.dim() == 1:
        x = reshape(x, [-1 if d == dim else 1 for d in range(y.dim())])
    elif x.dim() < y.dim():
        x = reshape(x, [1] * (y.dim() - x.dim()) + list(x.shape))
    return diff(x, dim=dim)


def trapezoid(y: Tensor, x=None, *, dx=None, dim: int = -1) -> Tensor:
    """The trapezoid rule along ``dim``, with sample points ``x`` or a constant spacing ``dx``."""
    y = tensor_arg(y, "trapezoid", "y")
    if y.dtype == torch.bool:
        raise NotImplementedError("trapezoid: received a bool input for `y`, but bool is not supported")
    dim = normalize_dim(dim, y.dim())
    length = y.shape[dim]
    if length == 0:
        return _sum(y, dim) * 0
    pairs = narrow(y, dim, 1, length - 1) + narrow(y, dim, 0, length - 1)
    if x is None or not isinstance(x, TENSOR_TYPES):
        spacing = (1.0 if dx is None else dx) if x is None else x
        return _sum(pairs, dim) * (spacing / 2)
    return _sum(mul(_spacing(tensor_arg(x, "trapezoid", "x", 2), y, dim, "trapezoid"), pairs), dim) / 2


def trapz(y: Tensor, x=None, *, dx=None, dim: int = -1) -> Tensor:
    """``trapezoid`` under its old name (``trapz(y, x, dim=...)`` or ``trapz(y, dx=..., dim=...)``)."""
    return trapezoid(y, x, dx=dx, dim=dim)


def cumulative_trapezoid(y: Tensor, x=None, *, dx=None, dim: int = -1) -> Tensor:
    """The running trapezoid rule along ``dim``: one fewer element than ``y`` there."""
    from .scan import cumsum

    y = tensor_arg(y, "cumulative_trapezoid", "y")
    if y.dtype == torch.bool:
        raise NotImplementedError("cumulative_trapezoid: received a bool input for `y`, but bool is not supported")
    dim = normalize_dim(dim, y.dim())
    length = y.shape[dim]
    if length == 0:
        return y
    pairs = narrow(y, dim, 1, length - 1) + narrow(y, dim, 0, length - 1)
    if x is None or not isinstance(x, TENSOR_TYPES):
        spacing = (1.0 if dx is None else dx) if x is None else x
        return cumsum(pairs * (spacing / 2), dim)
    return cumsum(
        mul(_spacing(tensor_arg(x, "cumulative_trapezoid", "x", 2), y, dim, "cumulative_trapezoid"), pairs) / 2, dim
    )


def renorm(input: Tensor, p, dim: int, maxnorm) -> Tensor:
    """Each slice along ``dim`` whose ``p``-norm exceeds ``maxnorm`` scaled down to ``maxnorm``."""
    input = tensor_arg(input, "renorm")
    if input.dim() < 2:
        raise RuntimeError(f"renorm: input needs at least 2 dimensions, got {input.dim()} dimensions")
    if p <= 0:
        raise RuntimeError("renorm: non-positive-norm not supported")
    if maxnorm < 0:
        raise RuntimeError(f"renorm: expected maxnorm to be >= 0 but got {maxnorm}")
    dim = normalize_dim(dim, input.dim())
    others = tuple(d for d in range(input.dim()) if d != dim)
    norms = vector_norm(input, p, others, keepdim=True)
    factor = where(_constant(norms._data > maxnorm), maxnorm / (norms + 1e-7), 1.0)
    return mul(input, factor)


# ------------------------------------------------------------------ scans
class LogCumSumExp(Function):
    @staticmethod
    def forward(ctx, x, dim):
        y = torch.logcumsumexp(x, dim)
        ctx.save_for_backward(x, y)
        ctx.dim = dim
        return y

    @staticmethod
    def backward(ctx, grad):
        # PyTorch's logcumsumexp_backward: the positive and negative parts of grad in log space.
        x, y = ctx.saved_tensors
        dim = ctx.dim
        if grad.dim() == 0 or grad.numel() == 0:
            return grad, None
        lowest = torch.finfo(grad.dtype).min
        log_abs = grad.abs().log()
        positive = torch.where(grad > 0, log_abs, lowest)
        negative = torch.where(grad < 0, log_abs, lowest)

        def reverse_scan(t):
            return call(LogCumSumExp, t.flip(dim), dim).flip(dim)

        return (reverse_scan(positive - y) + x).exp() - (reverse_scan(negative - y) + x).exp(), None


class CumulativeExtremum(Function):
    """cummax/cummin: values and indices; each gradient goes to the index that gave the value."""

    @staticmethod
    def forward(ctx, x, kernel, dim):
        values, indices = kernel(x, dim)
        ctx.mark_non_differentiable(indices)
        ctx.save_for_backward(indices)
        ctx.dim = dim
        return values, indices

    @staticmethod
    def backward(ctx, grad, _):
        (indices,) = ctx.saved_tensors
        if grad.dim() == 0:
            return grad, None, None
        return grad.new_zeros(grad.shape).scatter_add(ctx.dim, indices, grad), None, None


def logcumsumexp(input: Tensor, dim: int) -> Tensor:
    """``log(cumsum(exp(input)))`` along ``dim``, computed stably."""
    input = tensor_arg(input, "logcumsumexp")
    return LogCumSumExp.apply1(input, normalize_dim(dim, max(input.dim(), 1)))


def cummax(input: Tensor, dim: int):
    """``(values, indices)`` of the running maximum along ``dim``."""
    input = tensor_arg(input, "cummax")
    return values_indices(*CumulativeExtremum.apply(input, torch.cummax, normalize_dim(dim, max(input.dim(), 1))))


def cummin(input: Tensor, dim: int):
    """``(values, indices)`` of the running minimum along ``dim``."""
    input = tensor_arg(input, "cummin")
    return values_indices(*CumulativeExtremum.apply(input, torch.cummin, normalize_dim(dim, max(input.dim(), 1))))


def msort(input: Tensor) -> Tensor:
    """``input`` sorted along its first dimension."""
    return sort(tensor_arg(input, "msort"), 0)[0]


# ------------------------------------------------------------------ histograms (no gradient)
def histc(input: Tensor, bins: int = 100, min=0, max=0) -> Tensor:
    return _constant(torch.histc(tensor_arg(input, "histc")._data, bins, min, max))


def histogram(input: Tensor, bins=100, *, range=None, weight=None, density: bool = False):
    input = tensor_arg(input, "histogram")
    bins = bins._data if isinstance(bins, Tensor) else bins
    weight = weight._data if isinstance(weight, Tensor) else weight
    options = {"weight": weight, "density": density} | ({"range": range} if range is not None else {})
    hist, edges = torch.histogram(input._data, bins, **options)
    return torch.return_types.histogram((_constant(hist), _constant(edges)))


def histogramdd(input: Tensor, bins=10, *, range=None, weight=None, density: bool = False):
    input = tensor_arg(input, "histogramdd")
    if input.dim() == 0:
        raise IndexError("histogramdd: dimension out of range (expected an input of at least 1 dimension, got 0)")
    bins = [b._data for b in bins] if isinstance(bins, (list, tuple)) and bins and isinstance(bins[0], Tensor) else bins
    weight = weight._data if isinstance(weight, Tensor) else weight
    hist, edges = torch.histogramdd(input._data, bins, range=range, weight=weight, density=density)
    return torch.return_types.histogramdd((_constant(hist), [_constant(e) for e in edges]))


def hash_tensor(input: Tensor, dim=(), *, keepdim: bool = False, mode: int = 0) -> Tensor:
    """A hash of the elements (their bits, xor-reduced by default) over ``dim``; no gradient."""
    return _constant(torch.hash_tensor(tensor_arg(input, "hash_tensor")._data, dim, keepdim=keepdim, mode=mode))


def gradient(input: Tensor, *, spacing=None, dim=None, edge_order: int = 1) -> tuple[Tensor, ...]:
    """Estimates of ``input``'s derivative along each of ``dim`` (all dims by default) by central
    differences inside and one-sided ones of order ``edge_order`` at the edges; ``spacing`` a number,
    one per dim, or each dim's sample coordinates (1-D tensors). As ``torch.gradient``."""
    input = tensor_arg(input, "gradient")
    if input.dtype == torch.uint8:
        raise RuntimeError("torch.gradient does not support uint8 input.")
    if not (
        dim is None or isinstance(dim, int) or (isinstance(dim, (list, tuple)) and all(isinstance(d, int) for d in dim))
    ):
        raise TypeError(f"gradient(): argument 'dim' must be int or tuple of ints, not {type(dim).__name__}")
    dims = list(range(input.dim())) if dim is None else [dim] if isinstance(dim, int) else list(dim)
    dims = [normalize_dim(d, input.dim()) for d in dims]
    for d in dims:
        if dims.count(d) > 1:
            raise RuntimeError(f"dim {d} appears multiple times in the list of dims")
    if spacing is None:
        spacings = [1.0] * len(dims)
    elif isinstance(spacing, (list, tuple)):
        spacings = list(spacing)
    else:
        spacings = [spacing.item() if isinstance(spacing, TENSOR_TYPES) else spacing] * len(dims)
    if len(spacings) != len(dims):
        raise RuntimeError(
            f"torch.gradient expected spacing to be unspecified, a scalar or it's spacing and dim arguments to have "
            f"the same length, but got a spacing argument of length {len(spacings)} and a dim argument of length "
            f"{len(dims)}."
        )
    if edge_order not in (1, 2):
        raise RuntimeError("torch.gradient only supports edge_order=1 and edge_order=2.")
    for d in dims:
        if input.shape[d] < edge_order + 1:
            raise RuntimeError("torch.gradient expected each dimension size to be at least edge_order+1")
    return tuple(_gradient_along(input, d, h, edge_order) for d, h in zip(dims, spacings))


def _gradient_along(f: Tensor, d: int, h, edge_order: int) -> Tensor:
    def part(start, stop=None):
        stop = f.shape[d] + stop if stop is not None and stop < 0 else stop if stop is not None else f.shape[d]
        start = f.shape[d] + start if start < 0 else start
        return narrow(f, d, start, stop - start)

    if not isinstance(h, TENSOR_TYPES):  # a uniform spacing
        center = (part(2) - part(0, -2)) / h / 2
        if edge_order == 1:
            first, last = (part(1, 2) - part(0, 1)) / h, (part(-1) - part(-2, -1)) / h
        else:
            first = (part(0, 1) * -1.5 + part(1, 2) * 2 - part(2, 3) * 0.5) / h
            last = (part(-3, -2) * 0.5 - part(-2, -1) * 2 + part(-1) * 1.5) / h
        return cat([first, center, last], d)
    steps = torch.diff(tensor_arg(h, "gradient", "spacing")._data.to(f.dtype))
    shape = [-1 if i == d else 1 for i in range(f.dim())]
    dx1, dx2 = steps[:-1], steps[1:]
    a = _constant((-dx2 / (dx1 * (dx1 + dx2))).reshape(shape))
    b = _constant(((dx2 - dx1) / (dx1 * dx2)).reshape(shape))
    c = _constant((dx1 / (dx2 * (dx1 + dx2))).reshape(shape))
    center = a * part(0, -2) + b * part(1, -1) + c * part(2)
    h0, h1, hl, hm = (float(steps[i]) for i in (0, 1, -1, -2)) if steps.numel() > 1 else (float(steps[0]),) * 4
    if edge_order == 1:
        first, last = (part(1, 2) - part(0, 1)) / h0, (part(-1) - part(-2, -1)) / hl
    else:
        first = (
            part(0, 1) * (-(2.0 * h0 + h1) / (h0 * (h0 + h1)))
            + part(1, 2) * ((h0 + h1) / (h0 * h1))
            + part(2, 3) * (-h0 / (h1 * (h0 + h1)))
        )
        last = (
            part(-3, -2) * (hl / (hm * (hl + hm)))
            + part(-2, -1) * (-(hl + hm) / (hl * hm))
            + part(-1) * ((2 * hl + hm) / (hl * (hl + hm)))
        )
    return cat([first, center, last], d)
