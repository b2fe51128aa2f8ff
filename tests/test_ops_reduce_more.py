"""prod, cumsum, cumprod, median, mode and sum(dtype=) against torch.autograd in float64 on
generated shapes (rank 0-5, size-0 dims included), with zeros in the products; gradcheck on each."""

from __future__ import annotations

import pytest
import torch
from helpers import compare_with_torch
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from strategies import FUZZ, shapes, tensors

import minitorch_rx as mt

FEW = settings(FUZZ, max_examples=15)


@st.composite
def _with_zeros(draw, shape=None):
    """A tensor with some elements exactly 0 (none, one or several per slice)."""
    x = draw(tensors(shapes() if shape is None else shape, low=0.5, high=1.5))
    x = x * torch.where(
        torch.rand(x.shape, generator=torch.Generator().manual_seed(draw(st.integers(0, 99)))) < 0.5, -1, 1
    )
    if x.numel():
        zeros = draw(st.lists(st.integers(0, x.numel() - 1), max_size=3))
        x.view(-1)[zeros] = 0.0
    return x


def _dim(data, shape) -> int:
    size = max(len(shape), 1)
    return data.draw(st.integers(-size, size - 1))


@FEW
@given(data=st.data())
def test_prod_over_all_elements_matches_torch_with_zeros(data):
    x = data.draw(_with_zeros())
    compare_with_torch(mt.prod, torch.prod, [x])
    compare_with_torch(lambda t: t.prod(), lambda t: t.prod(), [x])


@FEW
@given(data=st.data(), keepdim=st.booleans())
def test_prod_along_a_dim_matches_torch_with_zeros(data, keepdim):
    x = data.draw(_with_zeros())
    dim = _dim(data, x.shape)
    compare_with_torch(lambda t: t.prod(dim, keepdim), lambda t: t.prod(dim, keepdim), [x])
    compare_with_torch(lambda t: mt.prod(t, dim, keepdim=keepdim), lambda t: torch.prod(t, dim, keepdim=keepdim), [x])


@pytest.mark.parametrize(
    "values", [[2.0, 3.0, 4.0], [2.0, 0.0, 4.0], [0.0, 3.0, 0.0], [[1.5, 0.0], [0.0, 0.0]], [[0.0, 2.0], [3.0, 4.0]]]
)
def test_prod_gradcheck_with_and_without_zeros(values):
    x = mt.tensor(values, dtype=torch.float64, requires_grad=True)
    assert mt.autograd.gradcheck(lambda t: t.prod(), [x])
    assert mt.autograd.gradcheck(lambda t: t.prod(-1), [x])


def test_prod_with_a_dtype_gives_the_input_its_own_dtype_of_gradient():
    x = torch.tensor([[1.5, 2.0], [0.5, 0.0]])
    compare_with_torch(
        lambda t: t.prod(1, dtype=torch.float64), lambda t: t.prod(1, dtype=torch.float64), [x], atol=1e-6, rtol=1e-5
    )
    ints = mt.tensor([[1, 2], [3, 4]])
    assert ints.prod().dtype == torch.int64 and ints.prod().item() == 24


@pytest.mark.parametrize("name", ["cumsum", "cumprod"])
@FEW
@given(data=st.data())
def test_scan_matches_torch(name, data):
    x = data.draw(_with_zeros()) if name == "cumprod" else data.draw(tensors())
    dim = _dim(data, x.shape)
    compare_with_torch(lambda t: getattr(t, name)(dim), lambda t: getattr(t, name)(dim), [x])
    compare_with_torch(lambda t: getattr(mt, name)(t, dim), lambda t: getattr(torch, name)(t, dim), [x])


@pytest.mark.parametrize("name", ["cumsum", "cumprod"])
def test_scan_in_place_and_dtype_match_torch(name):
    x = torch.tensor([[1.5, -2.0, 0.0, 3.0], [0.5, 0.0, 0.0, 2.0]])
    compare_with_torch(lambda t: getattr(t * 1, name + "_")(1), lambda t: getattr(t * 1, name)(1), [x.double()])
    compare_with_torch(
        lambda t: getattr(t, name)(1, dtype=torch.float64),
        lambda t: getattr(t, name)(1, dtype=torch.float64),
        [x],
        atol=1e-6,
        rtol=1e-5,
    )


@pytest.mark.parametrize(
    "values",
    [[2.0, 3.0, -4.0, 0.5], [2.0, 0.0, 4.0, 0.5], [0.0, 3.0, 0.0, 2.0], [[1.5, 0.0, 2.0], [0.0, 2.0, 0.0]]],
)
def test_cumprod_gradcheck_with_and_without_zeros(values):
    x = mt.tensor(values, dtype=torch.float64, requires_grad=True)
    assert mt.autograd.gradcheck(lambda t: t.cumprod(-1), [x])
    assert mt.autograd.gradcheck(lambda t: t.cumprod(0), [x])


def test_cumsum_gradcheck():
    x = mt.randn(3, 4, dtype=torch.float64, requires_grad=True)
    assert mt.autograd.gradcheck(lambda t: mt.cumsum(t, 1), [x])


@FEW
@given(x=tensors(shapes(min_side=1)))
def test_median_of_all_elements_matches_torch(x):
    compare_with_torch(mt.median, torch.median, [x])


def test_median_of_tied_values_splits_the_gradient_as_torch():
    x = torch.tensor([1.0, 2.0, 2.0, 3.0, 2.0], dtype=torch.float64)
    compare_with_torch(lambda t: t.median(), lambda t: t.median(), [x])


@pytest.mark.parametrize("name", ["median", "mode"])
@FEW
@given(data=st.data(), keepdim=st.booleans())
def test_median_and_mode_along_a_dim_match_torch(name, data, keepdim):
    shape = data.draw(shapes(min_side=1))
    x = data.draw(tensors(shape)).mul(2).round()  # ties, so that mode means something
    dim = _dim(data, shape)
    compare_with_torch(lambda t: getattr(t, name)(dim, keepdim), lambda t: getattr(t, name)(dim, keepdim), [x])
    compare_with_torch(
        lambda t: tuple(getattr(mt, name)(t, dim, keepdim=keepdim)),
        lambda t: tuple(getattr(torch, name)(t, dim, keepdim=keepdim)),
        [x],
    )


def test_median_and_mode_gradcheck():
    x = mt.tensor([[0.3, -1.2, 2.0], [1.1, 0.4, -0.6]], dtype=torch.float64, requires_grad=True)
    assert mt.autograd.gradcheck(lambda t: t.median(), [x])
    assert mt.autograd.gradcheck(lambda t: t.median(1).values, [x])
    assert mt.autograd.gradcheck(lambda t: t.mode(0).values, [x])


@FEW
@given(data=st.data())
def test_sum_with_a_dtype_matches_torch(data):
    x = data.draw(tensors(dtype=torch.float32))
    dim = data.draw(st.one_of(st.none(), st.just(0)))
    assume(dim is None or x.dim() > 0)
    compare_with_torch(
        lambda t: t.sum(dim, dtype=torch.float64),
        lambda t: t.sum(dim, dtype=torch.float64) if dim is not None else t.sum(dtype=torch.float64),
        [x],
        atol=1e-6,
        rtol=1e-5,
    )
    ints = mt.tensor([[1, 2], [3, 4]], dtype=torch.int32)
    assert mt.sum(ints, dtype=torch.int64).dtype == torch.int64


def test_nanmedian_of_an_integer_tensor_keeps_its_dtype():
    ints = torch.tensor([[3, -1, 2], [0, 5, 1]])
    ours, theirs = mt.nanmedian(mt.tensor(ints)).torch(), torch.nanmedian(ints)
    assert ours.dtype == theirs.dtype and torch.equal(ours, theirs)  # was tensor(1.)
