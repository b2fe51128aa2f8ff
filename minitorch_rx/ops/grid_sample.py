"""``grid_sample`` and ``affine_grid``, as PyTorch's (spatial transformers).

``grid_sample`` gathers each output point's corner values from the flattened input with
``ops/upsample.py``'s ``IndexSelect`` and weights them by recorded ops of the grid, so it is
differentiable in the input and the grid, to any order. The padding modes (border, reflection)
are piecewise linear maps of a coordinate, applied as ``coordinate * slope + offset`` with slope
and offset read off its data, as PyTorch's ``*_set_grad`` helpers do.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence

import torch

from ..autograd.tensor import Tensor
from .constants import TENSOR_TYPES, not_a_tensor, operand, tensor_arg
from .dims import int_tuple
from .upsample import IndexSelect, cubic_weights


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


def _unnormalize(coord: Tensor, size: int, align_corners: bool) -> Tensor:
    """A normalized grid coordinate in [-1, 1] as a position in the input (recorded)."""
    if align_corners:
        return (coord + 1) * ((size - 1) / 2)
    return (coord + 1) * (size / 2) - 0.5


def _pad_positions(
    positions: torch.Tensor, size: int, padding_mode: str, align_corners: bool
) -> tuple[torch.Tensor, torch.Tensor]:
    """Positions moved inside the input by the padding mode (PyTorch's ``compute_coordinates``),
    and the slope of that map at each."""
    if padding_mode == "zeros":
        return positions, torch.ones_like(positions)
    mapped, slope = positions, torch.ones_like(positions)
    if padding_mode == "reflection":
        twice = (0, 2 * (size - 1)) if align_corners else (-1, 2 * size - 1)
        mapped, slope = _reflect(mapped, *twice)
    mapped, clip_slope = _clip(mapped, size)
    return mapped, slope * clip_slope


def _source_coordinate(coord: Tensor, size: int, padding_mode: str, align_corners: bool) -> Tensor:
    """PyTorch's ``grid_sampler_compute_source_index`` as a recorded op of ``coord``: the padding
    maps are piecewise linear, ``position * slope + offset`` with slope and offset from its data."""
    position = _unnormalize(coord, size, align_corners)
    if padding_mode == "zeros":
        return position
    data = position._data.detach()
    mapped, slope = _pad_positions(data, size, padding_mode, align_corners)
    return position * slope + (mapped - data * slope)


def _check_grid_sample(x: Tensor, grid: Tensor, mode: str, padding_mode: str) -> None:
    if mode not in ("bilinear", "nearest", "bicubic"):
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
    if mode == "bicubic" and x.dim() != 4:
        raise RuntimeError("grid_sampler(): bicubic interpolation only supports 4D input")
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

    ``mode`` 'bilinear' (trilinear for 5-D), 'nearest' (rounding half to even) or 'bicubic' (4-D
    only; PyTorch's cubic convolution over 4x4 neighbours); ``padding_mode``
    'zeros', 'border' (clip) or 'reflection'; ``align_corners`` maps -1 and 1 to the corner pixels'
    centres (else their outer edges; None warns, as PyTorch, and means False). Differentiable in
    ``input`` and, except for 'nearest', ``grid``, to any order. Raises in PyTorch's words for
    mismatched shapes, dtypes or modes.
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
    axes = [coords[:, :, nd - 1 - d] for d in range(nd)]  # the grid holds x (width) first
    strides = [math.prod(sizes[d + 1 :]) for d in range(nd)]
    sample_offset = torch.arange(n, device=x.device).view(n, 1) * positions
    corners = []  # per spatial dim: the (index, weight) of each neighbour
    for axis, size in zip(axes, sizes, strict=True):
        if mode == "bicubic":  # the padding maps each neighbour's index, not the position
            position = _unnormalize(axis, size, align_corners)
            low = torch.floor(position._data.detach())
            neighbours = [_pad_positions(low + k - 1, size, padding_mode, align_corners)[0].long() for k in range(4)]
            corners.append(list(zip(neighbours, cubic_weights(position - low), strict=True)))
            continue
        source = _source_coordinate(axis, size, padding_mode, align_corners)
        if mode == "nearest":
            corners.append([(torch.round(source._data.detach()).long(), None)])
        else:
            low = torch.floor(source._data.detach())
            frac = source - low
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
    theta = tensor_arg(theta, "affine_grid", "theta")
    theta = operand(theta, None)
    align_corners = _align_corners(align_corners)
    if not theta.dtype.is_floating_point:
        raise ValueError(f"Expected theta to have floating point type, but got {theta.dtype}")
    size = int_tuple(size, "affine_grid", "size", 2)
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


_MODES = ("bilinear", "nearest", "bicubic")
_PADDINGS = ("zeros", "border", "reflection")


def grid_sampler(input: Tensor, grid: Tensor, interpolation_mode: int, padding_mode: int, align_corners: bool):
    """``grid_sample`` with its modes as torch's enum values (``torch.grid_sampler_2d/3d``)."""
    input, grid = tensor_arg(input, "grid_sampler"), tensor_arg(grid, "grid_sampler", "grid", 2)
    for name, value, names in (
        ("interpolation_mode", interpolation_mode, _MODES),
        ("padding_mode", padding_mode, _PADDINGS),
    ):
        if value not in range(3):  # torch reads past its enum; a negative index would pick a mode silently
            choices = ", ".join(f"{i} ({n})" for i, n in enumerate(names))
            raise RuntimeError(f"grid_sampler(): expected {name} to be one of {choices}, but got {value}")
    return grid_sample(input, grid, _MODES[interpolation_mode], _PADDINGS[padding_mode], align_corners)


def grid_sampler_2d(input: Tensor, grid: Tensor, interpolation_mode: int, padding_mode: int, align_corners: bool):
    """``grid_sampler`` of a 4-D input only."""
    return _grid_sampler_nd(4, input, grid, interpolation_mode, padding_mode, align_corners)


def grid_sampler_3d(input: Tensor, grid: Tensor, interpolation_mode: int, padding_mode: int, align_corners: bool):
    """``grid_sampler`` of a 5-D input only."""
    return _grid_sampler_nd(5, input, grid, interpolation_mode, padding_mode, align_corners)


def _grid_sampler_nd(ndim: int, input, grid, *args) -> Tensor:
    name = f"grid_sampler_{ndim - 2}d"
    input, grid = tensor_arg(input, name), tensor_arg(grid, name, "grid", 2)
    if input.dim() != ndim or grid.dim() != ndim:
        raise RuntimeError(
            f"grid_sampler(): expected {ndim}D input and grid with same number of dimensions, but got input "
            f"with sizes {list(input.shape)} and grid with sizes {list(grid.shape)}"
        )
    return grid_sampler(input, grid, *args)
