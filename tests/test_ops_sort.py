"""Sorting and searching against torch in float64 on generated shapes (rank 0-5, size-0 and
size-1 dims): values and gradients of sort/topk/kthvalue, the integer results of argsort,
unique, unique_consecutive, searchsorted and bucketize; gradcheck on the differentiable ones."""

from __future__ import annotations

import pytest
import torch
from helpers import compare_with_torch
from hypothesis import given
from hypothesis import strategies as st
from strategies import FUZZ, shapes, tensors

import minitorch_rx as mt


def _dim(data, shape) -> int:
    size = max(len(shape), 1)
    return data.draw(st.integers(-size, size - 1))


def _side(shape, dim) -> int:
    return shape[dim] if shape else 1


@FUZZ
@given(data=st.data(), shape=shapes(), descending=st.booleans(), stable=st.booleans())
def test_sort_matches_torch(data, shape, descending, stable):
    x, dim = data.draw(tensors(shape)), _dim(data, shape)
    compare_with_torch(lambda t: t.sort(dim, descending), lambda t: t.sort(dim, descending), [x])
    compare_with_torch(
        lambda t: mt.sort(t, dim=dim, stable=stable), lambda t: torch.sort(t, dim=dim, stable=stable), [x]
    )


def test_sort_returns_named_values_and_indices():
    result = mt.tensor([3.0, 1.0, 2.0]).sort()
    assert result.values.tolist() == [1.0, 2.0, 3.0] and result.indices.tolist() == [1, 2, 0]
    assert not result.indices.requires_grad


@FUZZ
@given(data=st.data(), shape=shapes(), descending=st.booleans())
def test_argsort_matches_torch(data, shape, descending):
    x, dim = data.draw(tensors(shape)), _dim(data, shape)
    assert mt.argsort(mt.tensor(x), dim, descending).torch().equal(torch.argsort(x, dim, descending))
    assert mt.tensor(x).argsort(dim=dim).torch().equal(x.argsort(dim=dim))


@FUZZ
@given(data=st.data(), shape=shapes(), largest=st.booleans())
def test_topk_matches_torch(data, shape, largest):
    x, dim = data.draw(tensors(shape)), _dim(data, shape)
    k = data.draw(st.integers(0, _side(shape, dim)))
    compare_with_torch(lambda t: t.topk(k, dim, largest), lambda t: t.topk(k, dim, largest), [x])
    compare_with_torch(lambda t: mt.topk(t, k, dim=dim), lambda t: torch.topk(t, k, dim=dim), [x])


@FUZZ
@given(data=st.data(), shape=shapes(min_side=1), keepdim=st.booleans())
def test_kthvalue_matches_torch(data, shape, keepdim):
    x, dim = data.draw(tensors(shape)), _dim(data, shape)
    k = data.draw(st.integers(1, _side(shape, dim)))
    compare_with_torch(lambda t: t.kthvalue(k, dim, keepdim), lambda t: t.kthvalue(k, dim, keepdim), [x])
    compare_with_torch(lambda t: mt.kthvalue(t, k, dim), lambda t: torch.kthvalue(t, k, dim), [x])


def _small_ints(data, shape):
    return torch.randint(0, 3, shape, generator=torch.Generator().manual_seed(data.draw(st.integers(0, 2**31 - 1))))


def _same(ours, theirs) -> bool:
    if isinstance(theirs, tuple):
        return len(ours) == len(theirs) and all(o.torch().equal(t) for o, t in zip(ours, theirs))
    return ours.torch().equal(theirs)


@FUZZ
@given(data=st.data(), shape=shapes(), inverse=st.booleans(), counts=st.booleans(), with_dim=st.booleans())
def test_unique_matches_torch(data, shape, inverse, counts, with_dim):
    x = _small_ints(data, shape)
    dim = _dim(data, shape) if with_dim and shape and 0 not in shape else None  # torch refuses empty slices
    kwargs = {"sorted": True, "return_inverse": inverse, "return_counts": counts, "dim": dim}
    assert _same(mt.unique(mt.tensor(x), **kwargs), torch.unique(x, **kwargs))
    assert _same(mt.tensor(x).unique(**kwargs), x.unique(**kwargs))


@FUZZ
@given(data=st.data(), shape=shapes(), inverse=st.booleans(), counts=st.booleans(), with_dim=st.booleans())
def test_unique_consecutive_matches_torch(data, shape, inverse, counts, with_dim):
    x = _small_ints(data, shape)
    dim = _dim(data, shape) if with_dim and shape and 0 not in shape else None  # torch refuses empty slices
    kwargs = {"return_inverse": inverse, "return_counts": counts, "dim": dim}
    assert _same(mt.unique_consecutive(mt.tensor(x), **kwargs), torch.unique_consecutive(x, **kwargs))
    assert _same(mt.tensor(x).unique_consecutive(**kwargs), x.unique_consecutive(**kwargs))


@FUZZ
@given(data=st.data(), batch=shapes(max_rank=3), length=st.integers(0, 5), right=st.booleans())
def test_searchsorted_and_bucketize_match_torch(data, batch, length, right):
    boundaries = data.draw(tensors((*batch, length))).sort(-1).values
    values = data.draw(tensors((*batch, 3)))
    ours = mt.searchsorted(mt.tensor(boundaries), mt.tensor(values), right=right)
    assert ours.torch().equal(torch.searchsorted(boundaries, values, right=right))
    flat = data.draw(tensors((length,))).sort().values
    ours = mt.bucketize(mt.tensor(values), mt.tensor(flat), right=right, out_int32=True)
    assert ours.torch().equal(torch.bucketize(values, flat, right=right, out_int32=True))


def test_searchsorted_takes_a_scalar_and_a_sorter():
    sequence = torch.tensor([3.0, 1.0, 2.0])
    sorter = sequence.argsort()
    ours = mt.searchsorted(mt.tensor(sequence), 2.5, sorter=mt.tensor(sorter))
    assert ours.torch().equal(torch.searchsorted(sequence, 2.5, sorter=sorter))


def _small(*shape, seed=0):
    generator = torch.Generator().manual_seed(seed)
    return mt.tensor(torch.rand(shape, generator=generator, dtype=torch.float64) * 3 - 1.5, requires_grad=True)


GRADCHECKS = {
    "sort": lambda t: t.sort(1, descending=True).values,
    "topk": lambda t: t.topk(2, 0, largest=False).values,
    "kthvalue": lambda t: t.kthvalue(2, 1).values,
}


@pytest.mark.parametrize("name", GRADCHECKS)
def test_gradcheck_passes(name):
    assert mt.autograd.gradcheck(GRADCHECKS[name], [_small(3, 4)])
