"""Resampling: ``interpolate`` (nearest, nearest-exact, (bi/tri)linear, bicubic, area), as PyTorch's.

Every mode is a weighted sum of gathered input values, and the gathers are one pair of
Functions, ``IndexSelect`` and its adjoint ``IndexAdd`` (each one's backward is the other), so
the rest is composed of recorded ops: differentiable to any order. ``interpolate`` is separable
and resamples one spatial dim at a time, with source indices and weights computed as PyTorch's
kernels compute them (``area_pixel_compute_source_index``). ``ops/grid_sample.py`` uses the same
gathers.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence

import torch

from ..autograd.function import Function
from ..autograd.tensor import Tensor
from .autocast import state as autocast_state
from .autocast import to_float32_on_gpu
from .constants import operand, tensor_arg
from .pool import adaptive_avg_pool1d, adaptive_avg_pool2d, adaptive_avg_pool3d


def _index_add(t: torch.Tensor, dim: int, index: torch.Tensor, size: int) -> torch.Tensor:
    shape = list(t.shape)
    shape[dim] = size
    return t.new_zeros(shape).index_add_(dim, index, t)


class IndexSelect(Function):
    """``x.index_select(dim, index)``; its gradient adds back into place (``IndexAdd``)."""

    @staticmethod
    def forward(ctx, x, dim, index):
        ctx.args = (dim, index, x.shape[dim])
        return x.index_select(dim, index)

    @staticmethod
    def backward(ctx, grad):
        dim, index, size = ctx.args
        if isinstance(grad, Tensor):  # create_graph
            return IndexAdd.apply1(grad, dim, index, size), None, None
        return _index_add(grad, dim, index, size), None, None


class IndexAdd(Function):
    """Zeros of size ``size`` along ``dim`` with ``x``'s slices added at ``index``: ``IndexSelect``'s adjoint."""

    @staticmethod
    def forward(ctx, x, dim, index, size):
        ctx.args = (dim, index)
        return _index_add(x, dim, index, size)

    @staticmethod
    def backward(ctx, grad):
        dim, index = ctx.args
        if isinstance(grad, Tensor):
            return IndexSelect.apply1(grad, dim, index), None, None, None
        return grad.index_select(dim, index), None, None, None


def _taps(x: Tensor, dim: int, taps: list[tuple[torch.Tensor, torch.Tensor | None]]) -> Tensor:
    """``sum_j x.index_select(dim, index_j) * weight_j``, each weight (L_out,) along ``dim``."""
    out = None
    trailing = (1,) * (x.dim() - 1 - dim)
    for index, weight in taps:
        term = IndexSelect.apply1(x, dim, index)
        if weight is not None:
            term = term * weight.view(-1, *trailing)
        out = term if out is None else out + term
    return out


# ------------------------------------------------------------------ interpolate
def _source_scale(in_size: int, out_size: int, align_corners: bool, scale: float | None) -> float:
    """PyTorch's ``area_pixel_compute_scale``: the input step per output step."""
    if align_corners:
        return (in_size - 1) / (out_size - 1) if out_size > 1 else 0.0
    return 1.0 / scale if scale is not None and scale > 0 else in_size / out_size


def _interpolation_taps(
    mode: str, in_size: int, out_size: int, align_corners: bool, scale: float | None, dtype: torch.dtype, device
) -> list[tuple[torch.Tensor, torch.Tensor | None]]:
    """The (index, weight) pairs of one spatial dim, as PyTorch's upsampling kernels compute them."""
    if mode in ("nearest", "nearest-exact"):
        # float32 arithmetic, as PyTorch's nearest_idx
        step = torch.tensor(1.0 / scale if scale is not None and scale > 0 else in_size / out_size)
        positions = torch.arange(out_size, dtype=torch.float32, device=device)
        if mode == "nearest-exact":
            positions = positions + 0.5
        return [((positions * step).floor().long().clamp(max=in_size - 1), None)]
    step = _source_scale(in_size, out_size, align_corners, scale)
    positions = torch.arange(out_size, dtype=torch.float64, device=device)
    source = positions * step if align_corners else (positions + 0.5) * step - 0.5
    if mode == "linear":
        source = source.clamp(min=0)
        low = source.floor().long().clamp(max=in_size - 1)
        high = (low + 1).clamp(max=in_size - 1)
        frac = (source - low).clamp(0, 1).to(dtype)
        return [(low, 1 - frac), (high, frac)]
    # the 4 neighbours, clamped to the edge
    low = source.floor()
    weights = cubic_weights(source - low)
    low = low.long()
    return [((low + k - 1).clamp(0, in_size - 1), w.to(dtype)) for k, w in enumerate(weights)]


def _antialiased_taps(
    kind: str, in_size: int, out_size: int, align_corners: bool, scale: float | None, dtype: torch.dtype, device
) -> list[tuple[torch.Tensor, torch.Tensor]]:
    """The (index, weight) pairs of one spatial dim with ``antialias=True``, as PyTorch's
    ``_upsample_bilinear2d_aa`` / ``_upsample_bicubic2d_aa`` kernels compute them: when shrinking by
    ``step``, the filter (triangle, or Keys' cubic with a = -0.5) is stretched by ``step`` and each
    output's window of weights is normalized to sum to 1. Windows are padded to one length with
    zero weights."""
    step = _source_scale(in_size, out_size, align_corners, scale)
    support = (1.0 if kind == "linear" else 2.0) * max(step, 1.0)
    inverse = 1.0 / step if step >= 1.0 else 1.0
    width = math.ceil(support) * 2 + 1
    center = (torch.arange(out_size, dtype=torch.float64) + 0.5) * step
    first = (center - support + 0.5).trunc().clamp(min=0)
    last = (center + support + 0.5).trunc().clamp(max=in_size)
    offsets = torch.arange(width, dtype=torch.float64)
    positions = first[:, None] + offsets  # (out, width)
    x = ((positions - center[:, None] + 0.5) * inverse).abs()
    if kind == "linear":
        weights = (1 - x).clamp(min=0)
    else:
        a = -0.5
        near = ((a + 2) * x - (a + 3)) * x * x + 1
        far = ((a * x - 5 * a) * x + 8 * a) * x - 4 * a
        weights = torch.where(x < 1, near, torch.where(x < 2, far, torch.zeros_like(x)))
    weights = weights * (positions < last[:, None])
    total = weights.sum(1, keepdim=True)
    weights = torch.where(total != 0, weights / total, weights)
    index = positions.long().clamp(max=in_size - 1)
    return [(index[:, j].to(device), weights[:, j].to(dtype=dtype, device=device)) for j in range(width)]


def cubic_weights(t):
    """The weights of the neighbours at offsets -1, 0, 1, 2 for a position ``t`` in [0, 1) past the
    second: PyTorch's cubic convolution (A = -0.75). Arithmetic only, so ``t`` may be a torch
    tensor or a recorded one."""
    a = -0.75
    return [
        ((a * (t + 1) - 5 * a) * (t + 1) + 8 * a) * (t + 1) - 4 * a,
        ((a + 2) * t - (a + 3)) * t * t + 1,
        ((a + 2) * (1 - t) - (a + 3)) * (1 - t) * (1 - t) + 1,
        ((a * (2 - t) - 5 * a) * (2 - t) + 8 * a) * (2 - t) - 4 * a,
    ]


_MODE_RANK = {"linear": 1, "bilinear": 2, "bicubic": 2, "trilinear": 3}
_MODES = "nearest | linear | bilinear | bicubic | trilinear | area | nearest-exact"


def _output_size(
    x: Tensor, size, scale_factor, recompute_scale_factor: bool | None, mode: str
) -> tuple[list[int], list[float | None]]:
    """F.interpolate's size and scale arguments checked as PyTorch's: the output sizes, and the
    scales the kernels use (None where the sizes decide)."""
    spatial = list(x.shape[2:])
    dim = len(spatial)
    if size is not None and scale_factor is not None:
        raise ValueError("only one of size or scale_factor should be defined")
    if size is not None:
        if isinstance(size, (list, tuple)):
            if len(size) != dim:
                raise ValueError(
                    "Input and output must have the same number of spatial dimensions, but got input with "
                    f"spatial dimensions of {spatial} and output size of {size}. Please provide input tensor in "
                    "(N, C, d1, d2, ...,dK) format and output size in (o1, o2, ...,oK) format."
                )
            output_size = [int(s) for s in size]
        else:
            output_size = [int(size)] * dim
        scales = [None] * dim
    elif scale_factor is not None:
        if isinstance(scale_factor, (list, tuple)):
            if len(scale_factor) != dim:
                raise ValueError(
                    "Input and scale_factor must have the same number of spatial dimensions, but got input with "
                    f"spatial dimensions of {spatial} and scale_factor of shape {scale_factor}. Please provide "
                    "input tensor in (N, C, d1, d2, ...,dK) format and scale_factor in (s1, s2, ...,sK) format."
                )
            scales = [float(s) for s in scale_factor]
        else:
            scales = [float(scale_factor)] * dim
        output_size = [math.floor(s * f) for s, f in zip(spatial, scales, strict=True)]
    else:
        raise ValueError("either size or scale_factor should be defined")
    if recompute_scale_factor and size is not None:
        raise ValueError("recompute_scale_factor is not meaningful with an explicit size.")
    if recompute_scale_factor or mode == "area":
        scales = [None] * dim
    if any(o <= 0 for o in output_size) or any(s <= 0 for s in spatial):
        names = ("D", "H", "W")[3 - dim :] if dim <= 3 else [str(i) for i in range(dim)]
        given = ", ".join(f"{n}: {s}" for n, s in zip(names, spatial, strict=False))
        wanted = ", ".join(f"{n}: {s}" for n, s in zip(names, output_size, strict=False))
        raise RuntimeError(
            f"Input and output sizes should be greater than 0, but got input ({given}) output ({wanted})"
        )
    return output_size, scales


def interpolate(
    input: Tensor,
    size: int | Sequence[int] | None = None,
    scale_factor: float | Sequence[float] | None = None,
    mode: str = "nearest",
    align_corners: bool | None = None,
    recompute_scale_factor: bool | None = None,
    antialias: bool = False,
) -> Tensor:
    """Resize ``input`` (N, C, *spatial), 1 to 3 spatial dims, to ``size`` or by ``scale_factor``
    (one, or one per spatial dim), as ``torch.nn.functional.interpolate``.

    Modes: 'nearest' (PyTorch's rounding down), 'nearest-exact', 'linear' (3-D input),
    'bilinear' and 'bicubic' (4-D), 'trilinear' (5-D), 'area' (adaptive average pooling).
    ``align_corners`` (interpolating modes only) maps the corner pixels' centres onto each other;
    a given ``scale_factor`` sets the sampling step unless ``recompute_scale_factor``. Differentiable
    (to any order). Raises ValueError/NotImplementedError in PyTorch's words for bad sizes, modes,
    or arguments; ``antialias=True`` (bilinear and bicubic) filters as PyTorch's when shrinking.

    >>> import minitorch_rx as mt
    >>> interpolate(mt.tensor([[[1.0, 2.0]]]), scale_factor=2, mode="linear").tolist()
    [[[1.0, 1.25, 1.75, 2.0]]]
    """
    input = tensor_arg(input, "interpolate")
    if autocast_state.active and mode != "area":
        (input,) = to_float32_on_gpu(input)
    x = operand(input, None)
    if mode in ("nearest", "area", "nearest-exact"):
        if align_corners is not None:
            raise ValueError(
                "align_corners option can only be set with the interpolating modes: "
                "linear | bilinear | bicubic | trilinear"
            )
    elif align_corners is None:
        align_corners = False
    rank = x.dim() - 2
    if isinstance(mode, str) and mode in _MODE_RANK and rank in (1, 2, 3) and _MODE_RANK[mode] != rank:
        raise NotImplementedError(f"Got {x.dim()}D input, but {mode} mode needs {_MODE_RANK[mode] + 2}D input")
    if rank not in (1, 2, 3) or mode not in (*_MODE_RANK, "nearest", "nearest-exact", "area"):
        raise NotImplementedError(
            f"Input Error: Only 3D, 4D and 5D input Tensors supported (got {x.dim()}D) for the modes: "
            f"{_MODES} (got {mode})"
        )
    if antialias and not (mode in ("bilinear", "bicubic") and x.dim() == 4):
        raise ValueError(
            "Anti-alias option is restricted to bilinear, bicubic, and lanczos modes and requires a 4-D tensor as input"
        )
    output_size, scales = _output_size(x, size, scale_factor, recompute_scale_factor, mode)
    if mode == "area":
        pool = (adaptive_avg_pool1d, adaptive_avg_pool2d, adaptive_avg_pool3d)[rank - 1]
        return pool(x, output_size)
    kind = {"bilinear": "linear", "trilinear": "linear", "bicubic": "cubic"}.get(mode, mode)
    result = x
    if list(x.shape[2:]) == output_size:  # PyTorch's kernels copy the input whatever the scales
        return IndexSelect.apply1(x, 2, torch.arange(output_size[0], device=x.device))
    for d, (out_size, scale) in enumerate(zip(output_size, scales, strict=True)):
        in_size = x.shape[2 + d]
        if in_size == out_size and kind != "cubic" and not antialias:  # as PyTorch's per-dim source indices
            continue
        taps = (_antialiased_taps if antialias else _interpolation_taps)(
            kind, in_size, out_size, align_corners, scale, x.dtype, x.device
        )
        result = _taps(result, 2 + d, taps)
    return result


def _deprecated(name: str) -> None:
    warnings.warn(f"`nn.functional.{name}` is deprecated. Use `nn.functional.interpolate` instead.", stacklevel=3)


def upsample(
    input: Tensor,
    size: int | Sequence[int] | None = None,
    scale_factor: float | Sequence[float] | None = None,
    mode: str = "nearest",
    align_corners: bool | None = None,
) -> Tensor:
    """Deprecated alias of ``interpolate`` (warns, as PyTorch's)."""
    _deprecated("upsample")
    return interpolate(input, size, scale_factor, mode, align_corners)


def upsample_nearest(
    input: Tensor, size: int | Sequence[int] | None = None, scale_factor: float | Sequence[float] | None = None
) -> Tensor:
    """Deprecated: ``interpolate(..., mode='nearest')`` (warns, as PyTorch's)."""
    _deprecated("upsample_nearest")
    return interpolate(input, size, scale_factor, mode="nearest")


def upsample_bilinear(
    input: Tensor, size: int | Sequence[int] | None = None, scale_factor: float | Sequence[float] | None = None
) -> Tensor:
    """Deprecated: ``interpolate(..., mode='bilinear', align_corners=True)`` (warns, as PyTorch's)."""
    _deprecated("upsample_bilinear")
    return interpolate(input, size, scale_factor, mode="bilinear", align_corners=True)
