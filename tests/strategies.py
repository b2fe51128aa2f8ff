"""Hypothesis strategies shared by the op tests: shapes of rank 0-5 with size-1 and size-0 dims,
broadcast-compatible shape pairs, float64 tensors on an op's domain, and reduction dims."""

from __future__ import annotations

import hypothesis.extra.numpy as hnp
import torch
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

#: Every generated test: few enough examples to keep the op suites under a minute and a half.
FUZZ = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])

MAX_RANK = 5
MAX_SIDE = 3


def shapes(min_rank: int = 0, max_rank: int = MAX_RANK, min_side: int = 0, max_side: int = MAX_SIDE):
    """Shapes of rank ``min_rank..max_rank``; sides ``min_side..max_side`` (0 gives empty tensors)."""
    return hnp.array_shapes(min_dims=min_rank, max_dims=max_rank, min_side=min_side, max_side=max_side)


def broadcast_shapes(num_shapes: int = 2, min_rank: int = 0, max_rank: int = MAX_RANK, min_side: int = 0):
    """``num_shapes`` shapes that broadcast together (PyTorch's rules are numpy's): size-1 and
    missing leading dims included."""
    return hnp.mutually_broadcastable_shapes(
        num_shapes=num_shapes, min_dims=min_rank, max_dims=max_rank, min_side=min_side, max_side=MAX_SIDE
    ).map(lambda result: result.input_shapes)


@st.composite
def tensors(
    draw, shape=None, *, low: float = -2.0, high: float = 2.0, margin: float = 0.0, dtype: torch.dtype = torch.float64
) -> torch.Tensor:
    """A tensor of ``shape`` (a shape, a strategy for one, or None for any) with values uniform in
    ``[low, high]``; with ``margin``, values closer than it to 0 are pushed out (for kinks such as
    abs and relu)."""
    if shape is None:
        shape = draw(shapes())
    elif isinstance(shape, st.SearchStrategy):
        shape = draw(shape)
    seed = draw(st.integers(0, 2**31 - 1))
    generator = torch.Generator().manual_seed(seed)
    values = torch.rand(shape, generator=generator, dtype=torch.float64) * (high - low) + low
    if margin:
        values = torch.where(values.abs() < margin, torch.where(values < 0, -margin, margin), values)
    return values.to(dtype)


def positive(shape=None, low: float = 0.5, high: float = 2.0):
    """Values away from 0, for log, sqrt, division and the base of a tensor power."""
    return tensors(shape, low=low, high=high)


@st.composite
def dims(draw, ndim: int):
    """A reduction ``dim`` for a rank-``ndim`` tensor: an int or a tuple of distinct ints, either
    sign (a 0-dim tensor accepts 0 and -1)."""
    size = max(ndim, 1)
    one = st.integers(-size, size - 1)
    if draw(st.booleans()):
        return draw(one)
    chosen = draw(st.lists(st.integers(0, size - 1), min_size=1, max_size=size, unique=True))
    return tuple(d - size if draw(st.booleans()) else d for d in chosen)


def scalars():
    """Python numbers an op may take on either side: ints and floats, negative ones included."""
    return st.one_of(st.integers(-3, 3), st.floats(-3.0, 3.0).map(lambda v: round(v, 3)))
