"""Resampling: ``interpolate`` (nearest, nearest-exact, (bi/tri)linear, bicubic, area),
``grid_sample`` and ``affine_grid``, as PyTorch's.

Every mode is a weighted sum of gathered input values, and the gathers are one pair of
Functions, ``IndexSelect`` and its adjoint ``IndexAdd`` (each one's backward is the other), so
the rest is composed of recorded ops: differentiable to any order, in the sampling grid too.
``interpolate`` is separable and resamples one spatial dim at a time, with source indices and
weights computed as PyTorch's kernels compute them (``area_pixel_compute_source_index``);
``grid_sample`` gathers each output point's corners from the flattened input.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence

import torch

from ..autograd.function import Function
from ..autograd.tensor import Tensor
from .constants import TENSOR_TYPES, not_a_tensor, operand
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
    # cubic convolution (A = -0.75) over 4 neighbours, clamped to the edge
    low = source.floor()
    t = source - low
    a = -0.75
    weights = [
        ((a * (t + 1) - 5 * a) * (t + 1) + 8 * a) * (t + 1) - 4 * a,
        ((a + 2) * t - (a + 3)) * t * t + 1,
        ((a + 2) * (1 - t) - (a + 3)) * (1 - t) * (1 - t) + 1,
        ((a * (2 - t) - 5 * a) * (2 - t) + 8 * a) * (2 - t) - 4 * a,
    ]
    low = low.long()
    return [((low + k - 1).clamp(0, in_size - 1), w.to(dtype)) for k, w in enumerate(weights)]


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
    or arguments; ``antialias`` is not supported.

    >>> import minitorch_rx as mt
    >>> interpolate(mt.tensor([[[1.0, 2.0]]]), scale_factor=2, mode="linear").tolist()
    [[[1.0, 1.25, 1.75, 2.0]]]
    """
    if not isinstance(input, TENSOR_TYPES):
        raise not_a_tensor("interpolate", input)
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
    if mode in _MODE_RANK and rank in (1, 2, 3) and _MODE_RANK[mode] != rank:
        raise NotImplementedError(f"Got {x.dim()}D input, but {mode} mode needs {_MODE_RANK[mode] + 2}D input")
    if rank not in (1, 2, 3) or mode not in (*_MODE_RANK, "nearest", "nearest-exact", "area"):
        raise NotImplementedError(
            f"Input Error: Only 3D, 4D and 5D input Tensors supported (got {x.dim()}D) for the modes: "
            f"{_MODES} (got {mode})"
        )
    if antialias:
        raise NotImplementedError("interpolate(antialias=True) is not supported")
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
        if in_size == out_size and kind != "cubic":  # as PyTorch's per-dim source indices
            continue
        taps = _interpolation_taps(kind, in_size, out_size, align_corners, scale, x.dtype, x.device)
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


# ------------------------------------------------------------------ grid_sample, affine_grid
def _reflect(coord: torch.Tensor, twice_low: int, twice_high: int) -> tuple[torch.Tensor, torch.Tensor]:
    """PyTorch's ``reflect_coordinates``: ``coord`` folded into [twice_low / 2, twice_high / 2], and
    its slope (+1 or -1) there."""
    if twice_low == twice_high:
        return torch.zeros_like(coord), torch.zeros_like(coord)
    low = twice_low / 2
    span = (twice_high - twice_low) / 2
    shifted = coord - low
    sign = torch.where(shifted < 0, -1.0, 1.0).to(coord.dtype)
    shifted = shifted.abs()
    extra = torch.fmod(shifted, span)
    even = torch.floor(shifted / span) % 2 == 0
    return torch.where(even, extra + low, span - extra + low), torch.where(even, sign, -sign)


def _clip(coord: torch.Tensor, size: int) -> tuple[torch.Tensor, torch.Tensor]:
    """``coord`` clipped to [0, size - 1], and its slope (1 strictly inside, else 0), as PyTorch's."""
    inside = (coord > 0) & (coord < size - 1)
    return coord.clamp(0, size - 1), inside.to(coord.dtype)


def _source_coordinate(coord: Tensor, size: int, padding_mode: str, align_corners: bool) -> Tensor:
    """A normalized grid coordinate in [-1, 1] as a position in the input (PyTorch's
    ``grid_sampler_compute_source_index``), as a recorded op of ``coord``: the padding maps are
    piecewise linear, ``coord * slope + offset`` with slope and offset taken from its data."""
    if align_corners:
        position = (coord + 1) * ((size - 1) / 2)
    else:
        position = (coord + 1) * (size / 2) - 0.5
    if padding_mode == "zeros":
        return position
    data = position._data.detach()
    mapped, slope = data, torch.ones_like(data)
    if padding_mode == "reflection":
        twice = (0, 2 * (size - 1)) if align_corners else (-1, 2 * size - 1)
        mapped, slope = _reflect(mapped, *twice)
    mapped, clip_slope = _clip(mapped, size)
    slope = slope * clip_slope
    return position * slope + (mapped - data * slope)


def _check_grid_sample(x: Tensor, grid: Tensor, mode: str, padding_mode: str) -> None:
    if mode not in ("bilinear", "nearest"):
        if mode == "bicubic":
            raise NotImplementedError("grid_sample(mode='bicubic') is not supported")
        raise ValueError(
            f"nn.functional.grid_sample(): expected mode to be 'bilinear', 'nearest' or 'bicubic', but got: '{mode}'"
        )
    if padding_mode not in ("zeros", "border", "reflection"):
        raise ValueError(
            "nn.functional.grid_sample(): expected padding_mode to be 'zeros', 'border', or 'reflection', "
            f"but got: '{padding_mode}'"
        )
    if grid.dim() != x.dim():
        raise RuntimeError(
            f"grid_sampler(): expected {x.dim()}D input and grid with same number of dimensions, but got input "
            f"with sizes {list(x.shape)} and grid with sizes {list(grid.shape)}"
        )
    if x.dim() not in (4, 5):
        raise RuntimeError(
            f"grid_sampler(): expected 4D or 5D input and grid with same number of dimensions, but got input "
            f"with sizes {list(x.shape)} and grid with sizes {list(grid.shape)}"
        )
    if grid.shape[-1] != x.dim() - 2:
        raise RuntimeError(
            f"grid_sampler(): expected grid to have size {x.dim() - 2} in last dimension, but got grid with sizes "
            f"{list(grid.shape)}"
        )
    if grid.shape[0] != x.shape[0]:
        raise RuntimeError(
            "grid_sampler(): expected grid and input to have same batch size, but got input with sizes "
            f"{list(x.shape)} and grid with sizes {list(grid.shape)}"
        )
    if x.dtype != grid.dtype:
        raise RuntimeError(
            f"grid_sampler(): expected input and grid to have same dtype, but input has {x.dtype} and grid has "
            f"{grid.dtype}"
        )


def _align_corners(align_corners: bool | None) -> bool:
    if align_corners is None:
        warnings.warn(
            "Default grid_sample and affine_grid behavior has changed to align_corners=False since 1.3.0. "
            "Please specify align_corners=True if the old behavior is desired. See the documentation of "
            "grid_sample for details.",
            stacklevel=3,
        )
        return False
    return align_corners


def grid_sample(
    input: Tensor, grid: Tensor, mode: str = "bilinear", padding_mode: str = "zeros", align_corners: bool | None = None
) -> Tensor:
    """Sample ``input`` (N, C, H, W) or (N, C, D, H, W) at ``grid`` (N, H_out, W_out, 2) or
    (N, D_out, H_out, W_out, 3), normalized coordinates in [-1, 1] with x (width) first, as
    ``torch.nn.functional.grid_sample``.

    ``mode`` 'bilinear' (trilinear for 5-D) or 'nearest' (rounding half to even); ``padding_mode``
    'zeros', 'border' (clip) or 'reflection'; ``align_corners`` maps -1 and 1 to the corner pixels'
    centres (else their outer edges; None warns, as PyTorch, and means False). Differentiable in
    ``input`` and, for 'bilinear', ``grid``, to any order. Raises in PyTorch's words for mismatched
    shapes, dtypes or modes; 'bicubic' is not supported.
    """
    for position, (name, value) in enumerate((("input", input), ("grid", grid)), start=1):
        if not isinstance(value, TENSOR_TYPES):
            raise not_a_tensor("grid_sample", value, name, position)
    x, grid = operand(input, None), operand(grid, None)
    _check_grid_sample(x, grid, mode, padding_mode)
    align_corners = _align_corners(align_corners)
    n, channels, *sizes = x.shape
    nd = len(sizes)
    out_spatial = tuple(grid.shape[1:-1])
    points = math.prod(out_spatial)
    positions = math.prod(sizes)
    # the input as (C, N * positions): one gather along dim 1 serves every sample
    flat = x.reshape(n, channels, positions).transpose(0, 1).reshape(channels, n * positions)
    coords = grid.reshape(n, points, nd)
    source = [
        _source_coordinate(coords[:, :, nd - 1 - d], size, padding_mode, align_corners) for d, size in enumerate(sizes)
    ]
    strides = [math.prod(sizes[d + 1 :]) for d in range(nd)]
    sample_offset = torch.arange(n, device=x.device).view(n, 1) * positions
    if mode == "nearest":
        corners = [[(torch.round(s._data.detach()).long(), None)] for s in source]
    else:
        corners = []
        for s in source:
            low = torch.floor(s._data.detach())
            frac = s - low
            corners.append([(low.long(), 1 - frac), (low.long() + 1, frac)])
    out = None
    for choice in _product(len(corners[0]), nd):
        index = sample_offset.expand(n, points).clone()
        valid = torch.ones(n, points, dtype=torch.bool, device=x.device)
        weight = None
        for d, k in enumerate(choice):
            at, w = corners[d][k]
            valid &= (at >= 0) & (at < sizes[d])
            index += at.clamp(0, sizes[d] - 1) * strides[d]
            if w is not None:
                weight = w if weight is None else weight * w
        mask = valid.to(x.dtype)
        weight = mask if weight is None else weight * mask
        values = IndexSelect.apply1(flat, 1, index.view(-1)).reshape(channels, n, points) * weight
        out = values if out is None else out + values
    return out.transpose(0, 1).reshape(n, channels, *out_spatial)


def _product(choices: int, nd: int) -> list[tuple[int, ...]]:
    """Every ``nd``-tuple of indices below ``choices`` (the corners of a cell)."""
    combos = [()]
    for _ in range(nd):
        combos = [(*c, k) for c in combos for k in range(choices)]
    return combos


def _linspace_from_neg_one(steps: int, align_corners: bool, dtype: torch.dtype, device) -> torch.Tensor:
    if steps <= 1:
        return torch.zeros(1, dtype=dtype, device=device)
    values = torch.linspace(-1, 1, steps, dtype=dtype, device=device)
    return values if align_corners else values * (steps - 1) / steps


def affine_grid(theta: Tensor, size: Sequence[int], align_corners: bool | None = None) -> Tensor:
    """The sampling grid (N, H, W, 2) or (N, D, H, W, 3) of the affine maps ``theta`` (N, 2, 3) or
    (N, 3, 4) for an output of ``size`` (N, C, H, W) or (N, C, D, H, W), as
    ``torch.nn.functional.affine_grid``; for ``grid_sample``. Differentiable in ``theta``. Raises
    ValueError/NotImplementedError in PyTorch's words for a non-float ``theta``, mismatched shapes,
    or a size of another rank.
    """
    if not isinstance(theta, TENSOR_TYPES):
        raise not_a_tensor("affine_grid", theta, "theta")
    theta = operand(theta, None)
    align_corners = _align_corners(align_corners)
    if not theta.dtype.is_floating_point:
        raise ValueError(f"Expected theta to have floating point type, but got {theta.dtype}")
    size = tuple(size)
    if len(size) not in (4, 5):
        raise NotImplementedError(
            "affine_grid only supports 4D and 5D sizes, for 2D and 3D affine transforms, respectively. "
            f"Got size {torch.Size(size)}."
        )
    nd = len(size) - 2
    if theta.dim() != 3 or tuple(theta.shape[-2:]) != (nd, nd + 1):
        raise ValueError(
            f"Expected a batch of {nd}D affine matrices of shape Nx{nd}x{nd + 1} for size {torch.Size(size)}. "
            f"Got {theta.shape}."
        )
    if min(size) <= 0:
        raise ValueError(f"Expected non-zero, positive output size. Got {torch.Size(size)}")
    n, spatial = size[0], size[2:]
    if align_corners and min(spatial) == 1:
        warnings.warn(
            "Since version 1.3.0, affine_grid behavior has changed for unit-size grids when align_corners=True. "
            "This is not an intended use case of affine_grid. See the documentation of affine_grid for details.",
            stacklevel=2,
        )
    if theta.shape[0] != n:
        raise RuntimeError(
            f"Expected size for first two dimensions of batch2 tensor to be: [{n}, {nd + 1}] but got: "
            f"[{theta.shape[0]}, {nd + 1}]."
        )
    axes = [_linspace_from_neg_one(s, align_corners, theta.dtype, theta.device) for s in spatial]
    mesh = torch.meshgrid(*axes, indexing="ij")
    base = torch.stack([*reversed(mesh), torch.ones_like(mesh[0])], dim=-1)
    base = base.reshape(1, -1, nd + 1).expand(n, -1, -1)
    grid = operand(base, None).matmul(theta.transpose(1, 2))
    return grid.reshape(n, *spatial, nd)
