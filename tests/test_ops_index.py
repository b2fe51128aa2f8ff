"""Index ops (gather/scatter, index_*, masked ops, take, nonzero) against torch.autograd in float64
on generated shapes (rank 0-5, size-0 and size-1 dims), as methods and mt functions; the in-place
forms through the in-place mechanism (views, version counters); gradcheck on each."""

from __future__ import annotations

import pytest
import torch
from helpers import compare_with_torch
from hypothesis import given
from hypothesis import strategies as st
from strategies import FUZZ, broadcast_shapes, shapes, tensors

import minitorch_rx as mt


def _seeded(data) -> torch.Generator:
    return torch.Generator().manual_seed(data.draw(st.integers(0, 2**31 - 1)))


@st.composite
def _gather_case(draw, min_rank: int = 0):
    """(shape, dim, index) with an index no larger than the shape off ``dim`` and values in range."""
    shape = draw(shapes(min_rank=min_rank))
    size = max(len(shape), 1)
    dim = draw(st.integers(-size, size - 1))
    d = dim % size
    index_shape = [draw(st.integers(0, side)) for side in shape]
    if shape:
        index_shape[d] = draw(st.integers(0, 3)) if shape[d] else 0
    high = shape[d] if shape else 1
    generator = torch.Generator().manual_seed(draw(st.integers(0, 2**31 - 1)))
    index = torch.randint(0, max(high, 1), index_shape, generator=generator)
    return tuple(shape), dim, index


@FUZZ
@given(data=st.data(), case=_gather_case())
def test_gather_matches_torch(data, case):
    shape, dim, index = case
    x = data.draw(tensors(shape))
    compare_with_torch(lambda t: t.gather(dim, index), lambda t: t.gather(dim, index), [x])
    compare_with_torch(lambda t: mt.gather(t, dim, index), lambda t: torch.gather(t, dim, index), [x])


@FUZZ
@given(data=st.data(), case=_gather_case())
def test_scatter_of_a_tensor_matches_torch(data, case):
    shape, dim, index = case
    x, src = data.draw(tensors(shape)), data.draw(tensors(tuple(index.shape)))
    compare_with_torch(lambda t, s: t.scatter(dim, index, s), lambda t, s: t.scatter(dim, index, s), [x, src])
    compare_with_torch(
        lambda t, s: mt.scatter(t, dim, index, s), lambda t, s: torch.scatter(t, dim, index, s), [x, src]
    )


@FUZZ
@given(data=st.data(), case=_gather_case(), value=st.floats(-2, 2))
def test_scatter_of_a_value_matches_torch(data, case, value):
    shape, dim, index = case
    x = data.draw(tensors(shape))
    compare_with_torch(lambda t: t.scatter(dim, index, value), lambda t: t.scatter(dim, index, value), [x])
    compare_with_torch(
        lambda t: mt.scatter(t, dim, index, value=value), lambda t: torch.scatter(t, dim, index, value=value), [x]
    )


@FUZZ
@given(data=st.data(), case=_gather_case())
def test_scatter_add_matches_torch(data, case):
    shape, dim, index = case
    x, src = data.draw(tensors(shape)), data.draw(tensors(tuple(index.shape)))
    compare_with_torch(lambda t, s: t.scatter_add(dim, index, s), lambda t, s: t.scatter_add(dim, index, s), [x, src])
    compare_with_torch(
        lambda t, s: mt.scatter_add(t, dim, index, s), lambda t, s: torch.scatter_add(t, dim, index, s), [x, src]
    )


@FUZZ
@given(
    data=st.data(),
    case=_gather_case(),
    reduce=st.sampled_from(["sum", "prod", "mean", "amax", "amin"]),
    include_self=st.booleans(),
)
def test_scatter_reduce_matches_torch(data, case, reduce, include_self):
    shape, dim, index = case
    x, src = data.draw(tensors(shape)), data.draw(tensors(tuple(index.shape)))
    compare_with_torch(
        lambda t, s: t.scatter_reduce(dim, index, s, reduce, include_self=include_self),
        lambda t, s: t.scatter_reduce(dim, index, s, reduce, include_self=include_self),
        [x, src],
    )


def test_scatter_reduce_prod_with_zeros_matches_torch():
    x = torch.tensor([[2.0, 0.0, 3.0], [1.0, 4.0, 0.0]], dtype=torch.float64)
    src = torch.tensor([[0.0, 5.0, 0.0], [0.0, 2.0, 6.0]], dtype=torch.float64)
    index = torch.tensor([[0, 1, 0], [1, 1, 1]])
    for include_self in (True, False):
        compare_with_torch(
            lambda t, s, i=include_self: t.scatter_reduce(0, index, s, "prod", include_self=i),
            lambda t, s, i=include_self: t.scatter_reduce(0, index, s, "prod", include_self=i),
            [x, src],
        )


def test_scatter_from_a_source_larger_than_its_index_gives_the_unread_part_a_zero_gradient():
    src = mt.ones(3, 4, requires_grad=True)
    mt.zeros(3, 4).scatter(0, mt.tensor([[2, 0]]), src).sum().backward()
    assert src.grad.tolist() == [[1, 1, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0]]


@st.composite
def _index_select_case(draw):
    shape = draw(shapes(min_rank=1))
    dim = draw(st.integers(-len(shape), len(shape) - 1))
    count = draw(st.integers(0, 4)) if shape[dim] else 0
    generator = torch.Generator().manual_seed(draw(st.integers(0, 2**31 - 1)))
    return shape, dim, torch.randint(0, max(shape[dim], 1), (count,), generator=generator)


@FUZZ
@given(data=st.data(), case=_index_select_case())
def test_index_select_matches_torch(data, case):
    shape, dim, index = case
    x = data.draw(tensors(shape))
    compare_with_torch(lambda t: t.index_select(dim, index), lambda t: t.index_select(dim, index), [x])
    compare_with_torch(lambda t: mt.index_select(t, dim, index), lambda t: torch.index_select(t, dim, index), [x])


def _source_shape(shape, dim, index):
    sizes = list(shape)
    sizes[dim] = len(index)
    return tuple(sizes)


@FUZZ
@given(data=st.data(), case=_index_select_case(), alpha=st.sampled_from([1, 2.5, -1]))
def test_index_add_matches_torch(data, case, alpha):
    shape, dim, index = case
    x, source = data.draw(tensors(shape)), data.draw(tensors(_source_shape(shape, dim, index)))
    compare_with_torch(
        lambda t, s: t.index_add(dim, index, s, alpha=alpha),
        lambda t, s: t.index_add(dim, index, s, alpha=alpha),
        [x, source],
    )
    compare_with_torch(
        lambda t, s: mt.index_add(t, dim, index, s), lambda t, s: torch.index_add(t, dim, index, s), [x, source]
    )


@FUZZ
@given(data=st.data(), case=_index_select_case())
def test_index_copy_matches_torch(data, case):
    shape, dim, index = case
    index = index.unique()  # torch leaves the winner of repeated indices unspecified
    x, source = data.draw(tensors(shape)), data.draw(tensors(_source_shape(shape, dim, index)))
    compare_with_torch(lambda t, s: t.index_copy(dim, index, s), lambda t, s: t.index_copy(dim, index, s), [x, source])
    compare_with_torch(
        lambda t, s: mt.index_copy(t, dim, index, s), lambda t, s: torch.index_copy(t, dim, index, s), [x, source]
    )


@FUZZ
@given(data=st.data(), case=_index_select_case(), value=st.floats(-2, 2))
def test_index_fill_matches_torch(data, case, value):
    shape, dim, index = case
    x = data.draw(tensors(shape))
    compare_with_torch(lambda t: t.index_fill(dim, index, value), lambda t: t.index_fill(dim, index, value), [x])
    v = torch.tensor(value, dtype=torch.float64)
    compare_with_torch(
        lambda t, w: mt.index_fill(t, dim, index, w), lambda t, w: torch.index_fill(t, dim, index, w), [x, v]
    )


@st.composite
def _mask_case(draw):
    """(x shape, mask) whose shapes broadcast together."""
    x_shape, mask_shape = draw(broadcast_shapes(2))
    generator = torch.Generator().manual_seed(draw(st.integers(0, 2**31 - 1)))
    return x_shape, torch.rand(mask_shape, generator=generator) < 0.5


@FUZZ
@given(data=st.data(), case=_mask_case(), value=st.floats(-2, 2))
def test_masked_fill_matches_torch(data, case, value):
    shape, mask = case
    x = data.draw(tensors(shape))
    compare_with_torch(lambda t: t.masked_fill(mask, value), lambda t: t.masked_fill(mask, value), [x])
    v = torch.tensor(value, dtype=torch.float64)
    compare_with_torch(lambda t, w: mt.masked_fill(t, mask, w), lambda t, w: torch.masked_fill(t, mask, w), [x, v])


@FUZZ
@given(data=st.data(), case=_mask_case(), extra=st.integers(0, 3))
def test_masked_scatter_matches_torch(data, case, extra):
    shape, mask = case
    x = data.draw(tensors(shape))
    count = torch.broadcast_to(mask, torch.broadcast_shapes(mask.shape, shape)).sum().item()
    source = data.draw(tensors((count + extra,)))
    compare_with_torch(lambda t, s: t.masked_scatter(mask, s), lambda t, s: t.masked_scatter(mask, s), [x, source])
    compare_with_torch(
        lambda t, s: mt.masked_scatter(t, mask, s), lambda t, s: torch.masked_scatter(t, mask, s), [x, source]
    )


@FUZZ
@given(data=st.data(), case=_mask_case())
def test_masked_select_matches_torch(data, case):
    shape, mask = case
    x = data.draw(tensors(shape))
    compare_with_torch(lambda t: t.masked_select(mask), lambda t: t.masked_select(mask), [x])
    compare_with_torch(lambda t: mt.masked_select(t, mask), lambda t: torch.masked_select(t, mask), [x])


@FUZZ
@given(data=st.data(), shape=shapes(), index_shape=shapes(max_rank=3))
def test_take_matches_torch(data, shape, index_shape):
    x = data.draw(tensors(shape))
    numel = x.numel()
    if numel == 0:
        index_shape = (0,)
    generator = _seeded(data)
    index = torch.randint(-numel, max(numel, 1), index_shape, generator=generator)
    compare_with_torch(lambda t: t.take(index), lambda t: t.take(index), [x])
    compare_with_torch(lambda t: mt.take(t, index), lambda t: torch.take(t, index), [x])


@FUZZ
@given(data=st.data(), shape=shapes(min_rank=1, min_side=1))
def test_take_along_dim_matches_torch(data, shape):
    x = data.draw(tensors(shape))
    dim = data.draw(st.integers(-len(shape), len(shape) - 1))
    index_shape = [data.draw(st.sampled_from([1, side])) for side in shape]
    index_shape[dim] = data.draw(st.integers(0, 3))
    index = torch.randint(0, shape[dim], index_shape, generator=_seeded(data))
    compare_with_torch(lambda t: t.take_along_dim(index, dim), lambda t: t.take_along_dim(index, dim), [x])
    flat = torch.randint(0, x.numel(), (4,), generator=_seeded(data))
    compare_with_torch(lambda t: mt.take_along_dim(t, flat), lambda t: torch.take_along_dim(t, flat), [x])


@FUZZ
@given(data=st.data(), shape=shapes())
def test_nonzero_and_argwhere_match_torch(data, shape):
    x = data.draw(tensors(shape)).round()
    assert mt.nonzero(mt.tensor(x)).torch().equal(torch.nonzero(x))
    assert mt.tensor(x).argwhere().torch().equal(torch.argwhere(x))
    ours = mt.tensor(x).nonzero(as_tuple=True)
    theirs = torch.nonzero(x, as_tuple=True)
    assert len(ours) == len(theirs) and all(o.torch().equal(t) for o, t in zip(ours, theirs))


# ------------------------------------------------------------------ in place
IN_PLACE = {
    "scatter_": (lambda t, s, i: t.scatter_(0, i, s)),
    "scatter_value": (lambda t, s, i: t.scatter_(0, i, 1.5)),
    "scatter_add_": (lambda t, s, i: t.scatter_add_(0, i, s)),
    "scatter_reduce_": (lambda t, s, i: t.scatter_reduce_(0, i, s, "amax")),
    "index_add_": (lambda t, s, i: t.index_add_(0, i[0, :2], s, alpha=2)),
    "index_copy_": (lambda t, s, i: t.index_copy_(0, i[0, :1], s[:1, :1].expand(1, 3))),
    "index_fill_": (lambda t, s, i: t.index_fill_(1, i[0, :2], -1.0)),
    "masked_fill_": (lambda t, s, i: t.masked_fill_(s > 0, 0.0)),
    "masked_scatter_": (lambda t, s, i: t.masked_scatter_(s > 0, s * 3)),
}


@pytest.mark.parametrize("name", IN_PLACE)
def test_in_place_index_op_on_a_view_matches_torch(name):
    op = IN_PLACE[name]
    base = torch.randn(4, 3, dtype=torch.float64)
    src = torch.randn(2, 3, dtype=torch.float64)
    index = torch.tensor([[1, 0, 1], [0, 1, 0]])

    def run(b, s):
        b = b * 1
        op(b[1:3], s, index)  # an in-place op on a view rewrites the base's history
        return b * 2

    compare_with_torch(lambda b, s: run(b, s), lambda b, s: run(b, s), [base, src])


@pytest.mark.parametrize("name", ["index_add_", "scatter_add_", "index_copy_", "masked_scatter_"])
def test_in_place_index_op_into_a_fresh_buffer_records_the_source(name):
    """``out = zeros(...); out.index_add_(0, index, messages)``, the message-passing habit."""
    index = torch.tensor([2, 0])
    calls = {
        "index_add_": lambda out, s: out.index_add_(0, index, s),
        "scatter_add_": lambda out, s: out.scatter_add_(0, index[:, None].expand(2, 3), s),
        "index_copy_": lambda out, s: out.index_copy_(0, index, s),
        "masked_scatter_": lambda out, s: out.masked_scatter_(torch.tensor([True, False, True])[:, None], s),
    }

    def run(zeros):
        def fn(s):
            out = zeros(3, 3, dtype=torch.float64)
            calls[name](out, s)
            return out * 2

        return fn

    src = torch.randn(2, 3, dtype=torch.float64)
    compare_with_torch(run(mt.zeros), run(torch.zeros), [src])


def test_in_place_index_op_on_a_leaf_that_requires_grad_raises():
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad is being used in an in-place operation"):
        mt.zeros(3, requires_grad=True).index_fill_(0, mt.tensor([0]), 1.0)


def test_index_changed_in_place_before_backward_raises():
    x = mt.randn(3, 2, requires_grad=True)
    index = mt.tensor([[0, 1]])
    y = x.gather(0, index)
    index.fill_(2)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.sum().backward()


def test_in_place_index_op_without_grad_writes_the_data():
    x = mt.zeros(2, 3)
    x.scatter_(1, mt.tensor([[2], [0]]), mt.ones(2, 1))
    x.masked_fill_(x == 0, -1.0)
    assert x.tolist() == [[-1, -1, 1], [1, -1, -1]]


def _small(*shape, seed=0):
    generator = torch.Generator().manual_seed(seed)
    return mt.tensor(torch.rand(shape, generator=generator, dtype=torch.float64) * 3 - 1.5, requires_grad=True)


_INDEX = mt.tensor([[1, 0, 1], [0, 1, 1]])
_MASK = mt.tensor([[True, False, True], [False, True, True]])
GRADCHECKS = {
    "gather": lambda t: t.gather(1, _INDEX),
    "scatter": lambda t: t.scatter(1, _INDEX[:, :2], t[:, :2] * 2),
    "scatter_add": lambda t: t.scatter_add(0, _INDEX, t * t),
    "scatter_reduce_mean": lambda t: t.scatter_reduce(1, _INDEX, t * 2, "mean", include_self=False),
    "scatter_reduce_prod": lambda t: t.scatter_reduce(1, _INDEX, t + 1, "prod"),
    "index_select": lambda t: t.index_select(1, mt.tensor([2, 0, 2])),
    "index_add": lambda t: t.index_add(1, mt.tensor([2, 2]), t[:, :2], alpha=3),
    "index_copy": lambda t: t.index_copy(1, mt.tensor([2, 0]), t[:, :2] * 2),
    "index_fill": lambda t: t.index_fill(1, mt.tensor([1]), t[0, 0]),
    "masked_fill": lambda t: t.masked_fill(_MASK, t[1, 0]),
    "masked_scatter": lambda t: t.masked_scatter(_MASK, t * 2),
    "masked_select": lambda t: t.masked_select(_MASK[0]),
    "take": lambda t: t.take(mt.tensor([[5, -1], [0, 0]])),
    "take_along_dim": lambda t: t.take_along_dim(mt.tensor([[2], [0]]), 1),
}


@pytest.mark.parametrize("name", GRADCHECKS)
def test_gradcheck_passes(name):
    assert mt.autograd.gradcheck(GRADCHECKS[name], [_small(2, 3)])
