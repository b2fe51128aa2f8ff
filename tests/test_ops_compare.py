"""Comparisons, value tests and logical/bitwise ops (ops/compare.py) against torch on generated
broadcast shapes: same values and dtype, and no gradient recorded."""

from __future__ import annotations

import operator

import pytest
import torch
from helpers import compare_with_torch
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import FUZZ, broadcast_shapes, shapes, tensors

import minitorch_rx as mt

FEW = settings(FUZZ, max_examples=12)
COMPARISONS = {"eq": operator.eq, "ne": operator.ne, "lt": operator.lt, "le": operator.le, "gt": operator.gt}
COMPARISONS["ge"] = operator.ge
LOGICAL = ["logical_and", "logical_or", "logical_xor"]
BITWISE = {"bitwise_and": operator.and_, "bitwise_or": operator.or_, "bitwise_xor": operator.xor}


def _rounded(data, shape):
    """Values on a coarse grid, so that ties (eq, le, ge) occur."""
    return data.draw(tensors(shape)).round()


def _same(ours, theirs):
    if isinstance(theirs, bool):
        assert ours is theirs
        return
    assert isinstance(ours, mt.Tensor) and not ours.requires_grad
    assert ours.dtype == theirs.dtype and ours.shape == theirs.shape
    assert torch.equal(ours.torch(), theirs)


@pytest.mark.parametrize("name", COMPARISONS)
@FEW
@given(data=st.data(), pair=broadcast_shapes())
def test_comparison_function_method_and_operator_match_torch(name, data, pair):
    a, b = (_rounded(data, s) for s in pair)
    x, y = mt.tensor(a, requires_grad=True), mt.tensor(b)
    expected = getattr(torch, name)(a, b)
    _same(getattr(mt, name)(x, y), expected)
    _same(getattr(x, name)(y), expected)
    _same(COMPARISONS[name](x, y), expected)
    _same(COMPARISONS[name](x, 1.0), COMPARISONS[name](a, 1.0))
    _same(COMPARISONS[name](1.0, x), COMPARISONS[name](1.0, a))


@pytest.mark.parametrize("name", ["isnan", "isinf", "isfinite"])
def test_value_tests_match_torch(name):
    a = torch.tensor([[1.0, float("nan")], [float("inf"), -float("inf")]])
    _same(getattr(mt, name)(mt.tensor(a)), getattr(torch, name)(a))
    _same(getattr(mt.tensor(a), name)(), getattr(torch, name)(a))


@pytest.mark.parametrize("name", ["all", "any"])
@FEW
@given(data=st.data(), shape=shapes(min_rank=1), keepdim=st.booleans())
def test_all_and_any_match_torch(name, data, shape, keepdim):
    a = _rounded(data, shape) > 0
    dim = data.draw(st.integers(-len(shape), len(shape) - 1))
    _same(getattr(mt, name)(mt.tensor(a)), getattr(torch, name)(a))
    _same(getattr(mt.tensor(a), name)(dim, keepdim), getattr(a, name)(dim, keepdim))


@FEW
@given(data=st.data(), pair=broadcast_shapes())
def test_isclose_allclose_and_equal_match_torch(data, pair):
    a = data.draw(tensors(pair[0]))
    b = a + data.draw(tensors(pair[1], low=-1e-6, high=1e-6))
    x, y = mt.tensor(a), mt.tensor(b)
    _same(mt.isclose(x, y), torch.isclose(a, b))
    _same(x.isclose(y, atol=1e-7, rtol=0.0), a.isclose(b, atol=1e-7, rtol=0.0))
    _same(mt.allclose(x, y), torch.allclose(a, b))
    _same(x.allclose(y, atol=1e-9, rtol=0.0), a.allclose(b, atol=1e-9, rtol=0.0))
    _same(mt.equal(x, y), torch.equal(a, b))
    _same(x.equal(x), True)


@pytest.mark.parametrize("name", LOGICAL)
@FEW
@given(data=st.data(), pair=broadcast_shapes())
def test_logical_ops_match_torch_on_bool_and_float_tensors(name, data, pair):
    a, b = (_rounded(data, s) for s in pair)
    _same(getattr(mt, name)(mt.tensor(a), mt.tensor(b)), getattr(torch, name)(a, b))
    _same(getattr(mt.tensor(a > 0), name)(mt.tensor(b > 0)), getattr(a > 0, name)(b > 0))


def test_logical_not_and_invert_match_torch():
    a = torch.tensor([[True, False], [False, True]])
    _same(mt.logical_not(mt.tensor(a)), torch.logical_not(a))
    _same(~mt.tensor(a), ~a)
    ints = torch.tensor([0, 5, -3])
    _same(~mt.tensor(ints), ~ints)
    _same(mt.bitwise_not(mt.tensor(ints)), torch.bitwise_not(ints))


@pytest.mark.parametrize("name", BITWISE)
@FEW
@given(data=st.data(), pair=broadcast_shapes(), as_bool=st.booleans())
def test_bitwise_ops_and_operators_match_torch(name, data, pair, as_bool):
    a, b = ((_rounded(data, s) * 3).long() for s in pair)
    if as_bool:
        a, b = a > 0, b > 0
    x, y = mt.tensor(a), mt.tensor(b)
    op = BITWISE[name]
    _same(getattr(mt, name)(x, y), getattr(torch, name)(a, b))
    _same(getattr(x, name)(y), getattr(a, name)(b))
    _same(op(x, y), op(a, b))
    scalar = True if as_bool else 6
    _same(op(x, scalar), op(a, scalar))
    _same(op(scalar, x), op(scalar, a))


@pytest.mark.parametrize("name", ["and_", "or_", "xor"])
def test_in_place_bitwise_operators_write_into_the_tensor(name):
    a = torch.tensor([True, False, True])
    b = torch.tensor([False, False, True])
    x = mt.tensor(a)
    data = x.torch()
    y = getattr(operator, f"i{name.rstrip('_')}")(x, mt.tensor(b))
    assert y is x and x.torch() is data
    assert torch.equal(data, getattr(operator, name)(a, b))


@pytest.mark.parametrize("name", ["logical_and_", "logical_or_", "logical_xor_", "bitwise_and_", "bitwise_or_"])
def test_in_place_logical_and_bitwise_methods_match_torch(name):
    a, b = torch.tensor([1, 0, 3, 0]), torch.tensor([1, 2, 0, 0])
    x = mt.tensor(a)
    assert getattr(x, name)(mt.tensor(b)) is x
    _same(x, getattr(a.clone(), name)(b))
    flags = mt.tensor([True, False])
    assert flags.logical_not_() is flags and flags.tolist() == [False, True]


def test_shifts_match_torch():
    a = torch.tensor([1, 2, 8])
    _same(mt.bitwise_left_shift(mt.tensor(a), 2), torch.bitwise_left_shift(a, 2))
    _same(mt.tensor(a).bitwise_right_shift(1), a.bitwise_right_shift(1))


@FEW
@given(data=st.data(), shape=shapes())
def test_count_nonzero_matches_torch(data, shape):
    a = _rounded(data, shape)
    _same(mt.count_nonzero(mt.tensor(a)), torch.count_nonzero(a))
    if shape:
        dim = data.draw(st.integers(-len(shape), len(shape) - 1))
        _same(mt.tensor(a).count_nonzero(dim), a.count_nonzero(dim))


def test_a_comparison_with_an_unsupported_operand_gives_python_s_type_error():
    with pytest.raises(TypeError):
        _ = mt.ones(2) < "a"


@pytest.mark.parametrize("name", COMPARISONS)
def test_in_place_comparison_writes_zeros_and_ones_with_a_zero_gradient_as_torch(name):
    a = torch.tensor([1.0, 2.0, 3.0], dtype=torch.float64)
    b = torch.tensor([2.0, 2.0, 2.0], dtype=torch.float64)

    def run(x, y):
        return getattr(x * 1, name + "_")(y) + x

    compare_with_torch(run, run, [a, b])
    ints = mt.tensor([1, 2, 3])
    assert getattr(ints, name + "_")(2) is ints
    assert ints.tolist() == getattr(torch.tensor([1, 2, 3]), name + "_")(2).tolist()


@pytest.mark.parametrize(
    "alias, name",
    [("greater", "gt"), ("greater_equal", "ge"), ("less", "lt"), ("less_equal", "le"), ("not_equal", "ne")],
)
def test_comparison_aliases_are_the_same_functions(alias, name):
    assert getattr(mt, alias) is getattr(mt, name)
    assert getattr(mt.Tensor, alias) is getattr(mt.Tensor, name)
