"""new_* constructors, logspace, meshgrid, clone, random draws and in-place random fills: the
values, dtypes and devices PyTorch gives, the same draws under the same seed, and PyTorch's
autograd rules (clone and meshgrid differentiable, draws with a zero gradient, fills refused on a
leaf that requires grad)."""

from __future__ import annotations

import pytest
import torch
from helpers import compare_with_torch
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import FUZZ, shapes, tensors

import minitorch_rx as mt

FEW = settings(FUZZ, max_examples=15)


@pytest.mark.parametrize("name", ["new_zeros", "new_ones", "new_empty"])
@pytest.mark.parametrize("dtype", [None, torch.int32])
def test_new_constructors_take_dtype_and_device_from_the_tensor(name, dtype):
    t = torch.ones(2, dtype=torch.float64)
    ours = getattr(mt.tensor(t), name)(2, 3, dtype=dtype)
    theirs = getattr(t, name)(2, 3, dtype=dtype)
    assert (ours.shape, ours.dtype, ours.device) == (theirs.shape, theirs.dtype, theirs.device)
    assert getattr(mt.tensor(t), name)((4,)).shape == (4,)
    if name != "new_empty":
        assert torch.equal(ours.torch(), theirs)
    assert ours.is_leaf and not ours.requires_grad
    assert getattr(mt.tensor(t), name)(2, requires_grad=True).requires_grad


@pytest.mark.filterwarnings("ignore:To copy construct from a tensor:UserWarning")
def test_new_full_and_new_tensor_match_torch():
    t = torch.ones(2, dtype=torch.float64)
    x = mt.tensor(t)
    assert torch.equal(x.new_full((2, 2), 7).torch(), t.new_full((2, 2), 7))
    for data in ([1, 2, 3], torch.tensor([1, 2]), 2.5):
        ours, theirs = x.new_tensor(data), t.new_tensor(data)
        assert ours.dtype == theirs.dtype and torch.equal(ours.torch(), theirs)
    with pytest.warns(UserWarning, match="To copy construct from a tensor"):
        copy = x.new_tensor(x)
    assert copy.torch().data_ptr() != x.torch().data_ptr()
    assert x.new_tensor([1, 2], dtype=torch.int64).dtype == torch.int64


def test_logspace_matches_torch():
    assert torch.equal(mt.logspace(0, 3, 4).torch(), torch.logspace(0, 3, 4))
    assert torch.equal(mt.logspace(-1, 1, 5, base=2.0).torch(), torch.logspace(-1, 1, 5, base=2.0))


@pytest.mark.parametrize("indexing", ["ij", "xy"])
@FEW
@given(data=st.data(), sizes=st.lists(st.integers(0, 3), min_size=1, max_size=4))
def test_meshgrid_matches_torch_and_is_differentiable(indexing, data, sizes):
    inputs = [data.draw(tensors((n,))) for n in sizes]
    compare_with_torch(
        lambda *ts: mt.meshgrid(*ts, indexing=indexing), lambda *ts: torch.meshgrid(*ts, indexing=indexing), inputs
    )
    compare_with_torch(
        lambda *ts: mt.meshgrid(list(ts), indexing=indexing),
        lambda *ts: torch.meshgrid(list(ts), indexing=indexing),
        inputs,
    )


@FEW
@given(x=tensors(shapes()))
def test_clone_matches_torch_and_passes_the_gradient(x):
    compare_with_torch(mt.clone, torch.clone, [x])
    compare_with_torch(lambda t: (t * 2).clone() * t, lambda t: (t * 2).clone() * t, [x])


def test_clone_has_its_own_memory_and_gradcheck():
    x = mt.randn(2, 3, dtype=torch.float64, requires_grad=True)
    copy = x.clone()
    assert copy.torch().data_ptr() != x.torch().data_ptr() and copy.grad_fn.name() == "CloneBackward0"
    assert mt.autograd.gradcheck(lambda t: t.clone(), [x])
    channels_last = mt.randn(1, 2, 3, 3).clone(memory_format=torch.channels_last)
    assert channels_last.torch().is_contiguous(memory_format=torch.channels_last)


RANDOM_DRAWS = {
    "randperm": (lambda m: m.randperm(6), None),
    "randint_like": (lambda m: m.randint_like(m.ones(3, 2), 10), None),
    "randint_like with low": (lambda m: m.randint_like(m.ones(3, 2), 5, 10), None),
    "multinomial": (lambda m: m.multinomial(m.tensor([0.1, 0.5, 0.4]), 5, True), None),
    "bernoulli": (lambda m: m.bernoulli(m.full((4,), 0.3)), None),
    "bernoulli with p": (lambda m: m.bernoulli(m.zeros(4), 0.6), None),
    "normal tensors": (lambda m: m.normal(m.zeros(3), m.ones(3)), None),
    "normal numbers": (lambda m: m.normal(2.0, 3.0, (2, 2)), None),
    "normal_": (lambda m: m.zeros(3).normal_(1.0, 2.0), None),
    "uniform_": (lambda m: m.zeros(3).uniform_(-1.0, 1.0), None),
    "bernoulli_": (lambda m: m.zeros(3).bernoulli_(0.5), None),
    "exponential_": (lambda m: m.zeros(3).exponential_(2.0), None),
    "random_": (lambda m: m.zeros(3).random_(0, 10), None),
    "geometric_": (lambda m: m.zeros(3).geometric_(0.3), None),
    "cauchy_": (lambda m: m.zeros(3).cauchy_(), None),
    "log_normal_": (lambda m: m.zeros(3).log_normal_(), None),
}


def _torch_data(value):
    return value.torch() if isinstance(value, mt.Tensor) else value


@pytest.mark.parametrize("name", RANDOM_DRAWS)
def test_random_draw_equals_torchs_under_the_same_seed(name):
    draw, _ = RANDOM_DRAWS[name]
    mt.manual_seed(3)
    ours = draw(mt)
    torch.manual_seed(3)
    theirs = draw(torch)
    assert isinstance(ours, mt.Tensor)
    assert ours.dtype == theirs.dtype and torch.equal(ours.torch(), theirs)


def test_random_draws_take_a_generator():
    for fn in (
        lambda g: mt.randperm(5, generator=g),
        lambda g: mt.normal(0.0, 1.0, (3,), generator=g),
        lambda g: mt.zeros(3).normal_(generator=g),
    ):
        assert torch.equal(fn(torch.Generator().manual_seed(1)).torch(), fn(torch.Generator().manual_seed(1)).torch())


def test_in_place_fill_on_a_leaf_that_requires_grad_raises_as_torch():
    x = mt.zeros(3, requires_grad=True)
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad"):
        x.normal_()
    with mt.no_grad():
        x.uniform_(2.0, 3.0)
    assert bool((x.torch() >= 2.0).all()) and x.requires_grad and x.is_leaf


def test_in_place_fill_on_a_non_leaf_gives_its_history_a_zero_gradient():
    x = mt.ones(3, requires_grad=True)
    y = x * 2
    assert y.uniform_() is y and y.grad_fn is not None
    (y.sum() + x.sum()).backward()
    assert x.grad.tolist() == [1.0, 1.0, 1.0]


def test_draws_from_tensors_that_require_grad_give_them_a_zero_gradient_as_torch():
    mean = torch.zeros(3, requires_grad=True)
    p = torch.full((3,), 0.5, requires_grad=True)
    ours_mean, ours_p = mt.zeros(3, requires_grad=True), mt.full((3,), 0.5, requires_grad=True)
    out = mt.normal(ours_mean, 1.0).sum() + mt.bernoulli(ours_p).sum()
    out.backward()
    (torch.normal(mean, 1.0).sum() + torch.bernoulli(p).sum()).backward()
    assert ours_mean.grad.tolist() == mean.grad.tolist() == [0.0, 0.0, 0.0]
    assert ours_p.grad.tolist() == p.grad.tolist()


def test_integer_draws_record_nothing():
    assert not mt.randint_like(mt.ones(2, requires_grad=True), 4).requires_grad
    assert not mt.multinomial(mt.tensor([0.5, 0.5], requires_grad=True), 1).requires_grad
