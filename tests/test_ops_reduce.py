"""Reductions against torch.autograd in float64 on generated shapes (rank 0-5, size-0 dims
included) with int or tuple ``dim`` and ``keepdim``, as methods and mt functions; gradcheck on each."""

from __future__ import annotations

import operator
import re

import pytest
import torch
from helpers import compare_with_torch
from hypothesis import assume, given
from hypothesis import strategies as st
from strategies import FUZZ, dims, shapes, tensors

import minitorch_rx as mt

# Generated shapes include reductions over one element or none, where torch warns (and so do we).
pytestmark = pytest.mark.filterwarnings("ignore:.*degrees of freedom is <= 0:UserWarning")

WITH_DIM = ["sum", "mean", "var", "std", "amax", "amin", "logsumexp"]
OVER_ALL = ["sum", "mean", "var", "std", "max", "min", "amax", "amin"]
#: torch refuses to take these over an empty dim; the others give 0, nan or -inf.
NEEDS_ELEMENTS = {"amax", "amin", "max", "min"}


def _reduced_sizes(shape, dim) -> list[int]:
    if not shape:
        return [1]
    return [shape[d] for d in ((dim,) if isinstance(dim, int) else dim)]


@st.composite
def _reduction_case(draw, name: str):
    shape = draw(shapes())
    dim = draw(dims(len(shape)))
    if name in NEEDS_ELEMENTS:
        assume(0 not in _reduced_sizes(shape, dim))
    return draw(tensors(shape)), dim, draw(st.booleans())


@pytest.mark.parametrize("name", WITH_DIM)
@FUZZ
@given(data=st.data())
def test_method_over_dims_matches_torch(name, data):
    x, dim, keepdim = data.draw(_reduction_case(name))
    compare_with_torch(
        lambda t: getattr(t, name)(dim, keepdim=keepdim), lambda t: getattr(t, name)(dim, keepdim=keepdim), [x]
    )


@pytest.mark.parametrize("name", WITH_DIM)
@FUZZ
@given(data=st.data())
def test_function_over_dims_matches_torch(name, data):
    x, dim, keepdim = data.draw(_reduction_case(name))
    compare_with_torch(
        lambda t: getattr(mt, name)(t, dim=dim, keepdim=keepdim),
        lambda t: getattr(torch, name)(t, dim=dim, keepdim=keepdim),
        [x],
    )


@pytest.mark.parametrize("name", OVER_ALL)
@FUZZ
@given(data=st.data(), shape=shapes())
def test_reduction_over_all_dims_matches_torch(name, data, shape):
    if name in NEEDS_ELEMENTS:
        assume(0 not in shape)
    x = data.draw(tensors(shape))
    compare_with_torch(lambda t: getattr(t, name)(), lambda t: getattr(t, name)(), [x])
    compare_with_torch(getattr(mt, name), getattr(torch, name), [x])


@pytest.mark.parametrize("name", ["max", "min"])
@FUZZ
@given(data=st.data(), shape=shapes(), keepdim=st.booleans())
def test_max_and_min_along_a_dim_return_values_and_indices_like_torch(name, data, shape, keepdim):
    dim = data.draw(dims(len(shape)).filter(lambda d: isinstance(d, int)))
    assume(0 not in _reduced_sizes(shape, dim))
    x = data.draw(tensors(shape))
    compare_with_torch(
        lambda t: tuple(getattr(t, name)(dim, keepdim)), lambda t: tuple(getattr(t, name)(dim, keepdim)), [x]
    )
    values, indices = getattr(mt, name)(mt.tensor(x), dim=dim, keepdim=keepdim)
    assert indices.dtype == torch.int64 and not indices.requires_grad


@pytest.mark.parametrize("name", ["max", "min"])
def test_max_and_min_results_have_values_and_indices_fields(name):
    result = getattr(mt.tensor([[1.0, 5.0], [7.0, 3.0]]), name)(dim=1)
    expected = getattr(torch.tensor([[1.0, 5.0], [7.0, 3.0]]), name)(dim=1)
    assert result.values.tolist() == expected.values.tolist()
    assert result.indices.tolist() == expected.indices.tolist()


@pytest.mark.parametrize("name", ["max", "min", "amax", "amin"])
def test_extremum_over_all_dims_splits_the_gradient_among_ties(name):
    x = torch.tensor([[3.0, -1.0, 3.0], [-1.0, 0.0, 2.0]], dtype=torch.float64)
    compare_with_torch(lambda t: getattr(t, name)(), lambda t: getattr(t, name)(), [x])


@pytest.mark.parametrize("name", ["amax", "amin"])
def test_amax_and_amin_along_dims_split_the_gradient_among_ties(name):
    x = torch.tensor([[3.0, -1.0, 3.0], [-1.0, 3.0, -1.0]], dtype=torch.float64)
    compare_with_torch(lambda t: getattr(t, name)(1), lambda t: getattr(t, name)(1), [x])
    compare_with_torch(lambda t: getattr(t, name)((0, 1)), lambda t: getattr(t, name)((0, 1)), [x])


@pytest.mark.parametrize("name", ["max", "min"])
def test_max_and_min_along_a_dim_send_the_gradient_to_the_returned_index(name):
    x = torch.tensor([[3.0, -1.0, 3.0], [-1.0, 3.0, -1.0]], dtype=torch.float64)
    compare_with_torch(lambda t: getattr(t, name)(1)[0], lambda t: getattr(t, name)(1)[0], [x])


@pytest.mark.parametrize("name", ["max", "min"])
def test_max_and_min_with_a_tensor_are_maximum_and_minimum(name):
    a = torch.tensor([[1.0, 4.0], [2.0, -3.0]], dtype=torch.float64)
    b = torch.tensor([2.0, 0.5], dtype=torch.float64)
    compare_with_torch(getattr(mt, name), getattr(torch, name), [a, b])
    compare_with_torch(lambda x, y: getattr(x, name)(y), lambda x, y: getattr(x, name)(y), [a, b])


@pytest.mark.parametrize("name", ["argmax", "argmin"])
@FUZZ
@given(data=st.data(), shape=shapes(min_side=1), keepdim=st.booleans(), whole=st.booleans())
def test_argmax_and_argmin_match_torch_and_carry_no_gradient(name, data, shape, keepdim, whole):
    x = data.draw(tensors(shape))
    dim = None if whole else data.draw(dims(len(shape)).filter(lambda d: isinstance(d, int)))
    ours = getattr(mt.tensor(x, requires_grad=True), name)(dim, keepdim)
    assert torch.equal(ours.torch(), getattr(x, name)(dim, keepdim))
    assert not ours.requires_grad
    assert torch.equal(getattr(mt, name)(mt.tensor(x), dim, keepdim).torch(), getattr(torch, name)(x, dim, keepdim))


@pytest.mark.parametrize("name", ["var", "std"])
@FUZZ
@given(data=st.data(), correction=st.sampled_from([0, 1, 2, 0.5]))
def test_var_and_std_with_correction_match_torch(name, data, correction):
    shape = data.draw(shapes(min_rank=1, min_side=3))
    x, dim = data.draw(tensors(shape)), data.draw(dims(len(shape)))
    reduce = operator.methodcaller(name, dim, correction=correction)
    compare_with_torch(reduce, reduce, [x])


@pytest.mark.parametrize("name", ["var", "std"])
@pytest.mark.parametrize("unbiased", [True, False])
def test_var_and_std_with_unbiased_match_torch(name, unbiased):
    x = torch.tensor([[1.0, 2.0, 4.0], [0.5, -1.0, 3.0]], dtype=torch.float64)
    along_dim, over_all = operator.methodcaller(name, 1, unbiased), operator.methodcaller(name, unbiased=unbiased)
    compare_with_torch(along_dim, along_dim, [x])
    compare_with_torch(over_all, over_all, [x])


def test_std_gives_no_gradient_where_the_std_is_zero():
    x = torch.tensor([[2.0, 2.0, 2.0], [1.0, 2.0, 3.0]], dtype=torch.float64)
    compare_with_torch(lambda t: t.std(1), lambda t: t.std(1), [x])


def test_var_of_a_single_element_has_a_nan_gradient_like_torch():
    x = torch.tensor([[1.5, 2.0]], dtype=torch.float64)
    compare_with_torch(lambda t: t.var(0), lambda t: t.var(0), [x])


@pytest.mark.parametrize("name", ["var", "std"])
def test_var_and_std_over_an_empty_dim_tuple_reduce_every_dim(name):
    # torch 2.14 gives an infinite gradient for dim=(); the gradient of dim=None is the right one.
    x = torch.tensor([[1.0, 2.0, 4.0], [0.5, -1.0, 3.0]], dtype=torch.float64)
    compare_with_torch(lambda t: getattr(t, name)(()), lambda t: getattr(t, name)(), [x])


@pytest.mark.parametrize("magnitude", [1e2, 1e4])
def test_logsumexp_is_finite_and_matches_torch_for_large_inputs(magnitude):
    x = torch.tensor([[magnitude, magnitude, -magnitude], [-magnitude, -magnitude, 0.0]], dtype=torch.float64)
    compare_with_torch(lambda t: t.logsumexp(1), lambda t: t.logsumexp(1), [x])
    t = mt.tensor(x, requires_grad=True)
    out = t.logsumexp(1)
    (grad,) = mt.autograd.grad(out, [t], torch.ones(2, dtype=torch.float64))
    assert bool(torch.isfinite(out.torch()).all()) and bool(torch.isfinite(grad.torch()).all())


@pytest.mark.parametrize("name", ["sum", "mean", "amax", "logsumexp"])
def test_float32_reduction_gives_a_float32_gradient(name):
    x = torch.tensor([[1.0, 2.0, 4.0], [0.5, -1.0, 3.0]], dtype=torch.float32)
    compare_with_torch(lambda t: getattr(t, name)(1), lambda t: getattr(t, name)(1), [x], atol=1e-6, rtol=1e-5)


def test_mean_of_an_integer_tensor_raises():
    with pytest.raises(RuntimeError, match="mean\\(\\): could not infer output dtype.*Got: Long"):
        mt.tensor([1, 2, 3]).mean()


def test_sum_of_an_integer_tensor_matches_torch():
    assert mt.tensor([[1, 2], [3, 4]]).sum(0).tolist() == [4, 6]


@pytest.mark.parametrize("name", ["max", "min"])
def test_max_and_min_of_an_empty_tensor_without_dim_raise(name):
    with pytest.raises(RuntimeError, match=f"{name}\\(\\): Expected reduction dim to be specified"):
        getattr(mt.zeros(2, 0), name)()


def test_a_repeated_dim_raises():
    with pytest.raises(RuntimeError, match="dim 1 appears multiple times in the list of dims"):
        mt.ones(2, 3).sum((1, -1))


def test_a_dim_out_of_range_raises():
    with pytest.raises(
        IndexError, match=re.escape("Dimension out of range (expected to be in range of [-2, 1], but got 2)")
    ):
        mt.ones(2, 3).sum(2)


def _small(*shape, seed=0):
    generator = torch.Generator().manual_seed(seed)
    return mt.tensor(torch.rand(shape, generator=generator, dtype=torch.float64) * 3 - 1.5, requires_grad=True)


GRADCHECKS = {
    "sum": lambda t: t.sum((0, 2)),
    "sum_all": lambda t: t.sum(),
    "mean": lambda t: t.mean(1, keepdim=True),
    "mean_all": lambda t: t.mean(),
    "var": lambda t: t.var((0, 2)),
    "var_all": lambda t: t.var(),
    "std": lambda t: t.std(-1, keepdim=True),
    "std_all": lambda t: t.std(correction=0),
    "max": lambda t: t.max(),
    "max_dim": lambda t: t.max(1)[0],
    "min": lambda t: t.min(),
    "min_dim": lambda t: t.min(-1, keepdim=True)[0],
    "amax": lambda t: t.amax((1, 2)),
    "amin": lambda t: t.amin(0),
    "logsumexp": lambda t: t.logsumexp((0, 1)),
}


@pytest.mark.parametrize("name", GRADCHECKS)
def test_gradcheck_passes(name):
    assert mt.autograd.gradcheck(GRADCHECKS[name], [_small(2, 3, 2)])


# ----------------------------------------------- NaN, infinities and ties (issue 13.10)
SPECIAL = [1.0, 2.0, -1.0, float("nan"), float("inf"), -float("inf"), 0.0, -0.0]
EXTREMA = {
    "max()": lambda t: t.max(),
    "min()": lambda t: t.min(),
    "max(dim)": lambda t: t.max(-1).values,
    "min(dim, keepdim)": lambda t: t.min(0, keepdim=True).values,
    "amax()": lambda t: t.amax(),
    "amin(dim)": lambda t: t.amin(-1),
    "amax(dims, keepdim)": lambda t: t.amax((0, -1), keepdim=True),
    "maximum": lambda t: (torch if isinstance(t, torch.Tensor) else mt).maximum(t[0], t[-1]),
    "minimum": lambda t: (torch if isinstance(t, torch.Tensor) else mt).minimum(t[-1], t[0]),
    "max(other)": lambda t: t[0].max(t[-1]),
    "logsumexp": lambda t: t.logsumexp(-1),
    "softmax": lambda t: t.softmax(-1),
}


@FUZZ
@given(
    values=st.lists(st.sampled_from(SPECIAL), min_size=6, max_size=6),
    shape=st.sampled_from([(2, 3), (3, 2), (1, 2, 3), (2, 1, 3)]),
    infinite_gradient=st.booleans(),
)
@pytest.mark.parametrize("name", list(EXTREMA))
def test_extrema_with_nans_infinities_and_ties_give_torchs_gradients(name, values, shape, infinite_gradient):
    """Full max()/min() of a tensor holding NaN gave NaN gradients everywhere; torch gives the
    gradient to the NaN. Every extremum, tie and NaN placement, finite and infinite gradients."""
    op = EXTREMA[name]
    data = torch.tensor(values, dtype=torch.float64).reshape(shape)
    x, x_torch = mt.tensor(data, requires_grad=True), data.clone().requires_grad_(True)
    y, y_torch = op(x), op(x_torch)
    torch.testing.assert_close(y.torch(), y_torch.detach(), equal_nan=True, atol=0, rtol=0)
    grad = torch.full_like(y_torch, float("inf")) if infinite_gradient else torch.rand_like(y_torch) + 0.5
    y.backward(mt.tensor(grad))
    y_torch.backward(grad)
    torch.testing.assert_close(x.grad.torch(), x_torch.grad, equal_nan=True, atol=0, rtol=1e-12)


def test_max_of_a_tensor_with_a_nan_puts_the_gradient_on_the_nan():
    x = mt.tensor([1.0, float("nan"), 3.0, float("nan")], requires_grad=True)
    x.max().backward()
    assert x.grad.tolist() == [0.0, 0.5, 0.0, 0.5]
