"""Elementwise math (ops/math.py) against torch.autograd in float64 on generated shapes of rank
0-5 (broadcast pairs for the binary ops), as methods, mt functions and in-place methods, plus
gradcheck on each differentiable op."""

from __future__ import annotations

import pytest
import torch
from helpers import compare_with_torch
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import FUZZ, broadcast_shapes, shapes, tensors

import minitorch_rx as mt

FEW = settings(FUZZ, max_examples=12)

#: Each unary op with the interval its inputs are drawn from (inside its domain, off its poles).
UNARY = {
    "log1p": (-0.9, 2.0),
    "expm1": (-2.0, 2.0),
    "rsqrt": (0.3, 2.0),
    "reciprocal": (0.3, 2.0),
    "log2": (0.3, 2.0),
    "log10": (0.3, 2.0),
    "exp2": (-2.0, 2.0),
    "tan": (-1.2, 1.2),
    "asin": (-0.9, 0.9),
    "acos": (-0.9, 0.9),
    "atan": (-2.0, 2.0),
    "sinh": (-2.0, 2.0),
    "cosh": (-2.0, 2.0),
    "asinh": (-2.0, 2.0),
    "acosh": (1.1, 3.0),
    "atanh": (-0.9, 0.9),
    "erf": (-2.0, 2.0),
    "erfinv": (-0.9, 0.9),
    "frac": (-3.0, 3.0),
    "square": (-2.0, 2.0),
    "sign": (-2.0, 2.0),
    "floor": (-3.0, 3.0),
    "ceil": (-3.0, 3.0),
    "round": (-3.0, 3.0),
    "trunc": (-3.0, 3.0),
}
#: Binary ops, with the margin their second operand keeps from 0.
BINARY = {"fmod": 0.5, "remainder": 0.5, "atan2": 0.1, "hypot": 0.1, "logaddexp": 0.0}
DIFFERENTIABLE_UNARY = [name for name in UNARY if name not in ("sign", "floor", "ceil", "round", "trunc")]


def _unary_input(name: str, shape):
    low, high = UNARY[name]
    return tensors(shape, low=low, high=high)


@pytest.mark.parametrize("name", UNARY)
@FEW
@given(data=st.data(), shape=shapes())
def test_unary_function_matches_torch(name, data, shape):
    x = data.draw(_unary_input(name, shape))
    compare_with_torch(getattr(mt, name), getattr(torch, name), [x])


@pytest.mark.parametrize("name", UNARY)
@FEW
@given(data=st.data(), shape=shapes())
def test_unary_method_matches_torch(name, data, shape):
    x = data.draw(_unary_input(name, shape))
    compare_with_torch(lambda t: getattr(t, name)(), lambda t: getattr(t, name)(), [x])


@pytest.mark.parametrize("name", UNARY)
@FEW
@given(data=st.data(), shape=shapes())
def test_in_place_method_on_a_non_leaf_matches_torch(name, data, shape):
    x = data.draw(_unary_input(name, shape))
    # torch's out of place as the reference: some of its in-place forms (asinh_) have no derivative.
    compare_with_torch(lambda t: getattr(t * 1, name + "_")(), lambda t: getattr(t * 1, name)(), [x])


@pytest.mark.parametrize("name", DIFFERENTIABLE_UNARY)
def test_unary_gradcheck(name):
    low, high = UNARY[name]
    x = mt.tensor(torch.linspace(low + 0.05, high - 0.05, 7, dtype=torch.float64), requires_grad=True)
    if name == "frac":  # away from the integers, where frac jumps
        x = mt.tensor([-1.7, -0.3, 0.4, 1.6], dtype=torch.float64, requires_grad=True)
    assert mt.autograd.gradcheck(getattr(mt, name), [x])


@pytest.mark.parametrize("name", ["floor", "ceil", "round", "trunc", "sign"])
def test_rounding_ops_give_a_zero_gradient_as_torch(name):
    x = mt.tensor([-1.5, 0.2, 2.7], dtype=torch.float64, requires_grad=True)
    getattr(mt, name)(x).sum().backward()
    assert x.grad.tolist() == [0.0, 0.0, 0.0]


def test_round_to_decimals_matches_torch():
    x = torch.tensor([1.2345, -2.5551, 0.125], dtype=torch.float64)
    compare_with_torch(lambda t: t.round(decimals=2), lambda t: t.round(decimals=2), [x])


def _binary_operands(data, name, pair):
    a = data.draw(tensors(pair[0], low=-3.0, high=3.0))
    b = data.draw(tensors(pair[1], margin=BINARY[name]))
    return a, b


@pytest.mark.parametrize("name", BINARY)
@FEW
@given(data=st.data(), pair=broadcast_shapes())
def test_binary_function_matches_torch_on_broadcast_shapes(name, data, pair):
    a, b = _binary_operands(data, name, pair)
    compare_with_torch(getattr(mt, name), getattr(torch, name), [a, b])


@pytest.mark.parametrize("name", BINARY)
@FEW
@given(data=st.data(), pair=broadcast_shapes())
def test_binary_method_matches_torch_on_broadcast_shapes(name, data, pair):
    a, b = _binary_operands(data, name, pair)
    compare_with_torch(lambda x, y: getattr(x, name)(y), lambda x, y: getattr(x, name)(y), [a, b])


@pytest.mark.parametrize("name", ["fmod", "remainder", "atan2", "hypot"])
@FEW
@given(data=st.data(), pair=broadcast_shapes())
def test_binary_in_place_method_matches_torch(name, data, pair):
    a, b = _binary_operands(data, name, pair)
    a = a.expand(torch.broadcast_shapes(a.shape, b.shape)).contiguous()

    def run(x, y):
        return getattr(x * 1, name + "_")(y)

    compare_with_torch(run, run, [a, b])


@pytest.mark.parametrize("name", BINARY)
def test_binary_gradcheck(name):
    a = mt.tensor([[-2.3, 0.7, 1.9]], dtype=torch.float64, requires_grad=True)
    b = mt.tensor([[1.3], [-0.8]], dtype=torch.float64, requires_grad=True)
    assert mt.autograd.gradcheck(getattr(mt, name), [a, b])


@pytest.mark.parametrize("name", ["fmod", "remainder"])
@pytest.mark.parametrize("scalar", [1.5, -0.75, 2])
def test_binary_with_a_python_number_matches_torch(name, scalar):
    x = torch.tensor([-2.3, 0.7, 1.9], dtype=torch.float64)
    compare_with_torch(lambda t: getattr(mt, name)(t, scalar), lambda t: getattr(torch, name)(t, scalar), [x])


@pytest.mark.parametrize("scalar", [1.5, -0.75, 3])
def test_mod_operator_matches_torch_on_either_side(scalar):
    x = torch.tensor([-2.3, 0.7, 1.9, 4.0], dtype=torch.float64)
    compare_with_torch(lambda t: t % scalar, lambda t: t % scalar, [x])
    # torch's ``number % t`` has no derivative: a full tensor on the left is the reference.
    compare_with_torch(lambda t: scalar % t, lambda t: torch.full_like(t, scalar) % t, [x])
    compare_with_torch(lambda t: t % 3, lambda t: t % 3, [torch.tensor([-7, 3, 8])])


@pytest.mark.parametrize("scalar", [1.5, -0.75, 3])
def test_floordiv_operator_matches_torch_on_either_side(scalar):
    x = torch.tensor([-2.3, 0.7, 1.9, 4.0], dtype=torch.float64)
    ints = torch.tensor([-7, 3, 8])
    for ours, theirs in [
        (mt.tensor(x) // scalar, x // scalar),
        (scalar // mt.tensor(x), scalar // x),
        (mt.tensor(ints) // 3, ints // 3),
        (7 // mt.tensor(ints), 7 // ints),
    ]:
        assert ours.dtype == theirs.dtype
        torch.testing.assert_close(ours.torch(), theirs)


@FEW
@given(data=st.data(), pair=broadcast_shapes())
def test_floor_divide_matches_torch_and_records_nothing(data, pair):
    a, b = _binary_operands(data, "fmod", pair)
    out = mt.floor_divide(mt.tensor(a, requires_grad=True), mt.tensor(b))
    torch.testing.assert_close(out.torch(), torch.floor_divide(a, b))
    assert not out.requires_grad


@FEW
@given(data=st.data(), triple=broadcast_shapes(num_shapes=3))
def test_lerp_with_a_tensor_weight_matches_torch(data, triple):
    start, end, weight = (data.draw(tensors(s)) for s in triple)
    compare_with_torch(mt.lerp, torch.lerp, [start, end, weight])
    compare_with_torch(lambda s, e, w: s.lerp(e, w), lambda s, e, w: s.lerp(e, w), [start, end, weight])


@FEW
@given(data=st.data(), pair=broadcast_shapes(), weight=st.floats(-1.0, 2.0))
def test_lerp_with_a_number_weight_matches_torch(data, pair, weight):
    start, end = (data.draw(tensors(s)) for s in pair)
    compare_with_torch(lambda s, e: mt.lerp(s, e, weight), lambda s, e: torch.lerp(s, e, weight), [start, end])


def test_lerp_in_place_and_gradcheck():
    start, end, weight = (torch.rand(3, 2, dtype=torch.float64) for _ in range(3))
    compare_with_torch(lambda s, e, w: (s * 1).lerp_(e, w), lambda s, e, w: (s * 1).lerp_(e, w), [start, end, weight])
    inputs = [mt.tensor(t, requires_grad=True) for t in (start, end, weight)]
    assert mt.autograd.gradcheck(mt.lerp, inputs)


@pytest.mark.parametrize("name", ["clamp_min", "clamp_max"])
@FEW
@given(data=st.data(), pair=broadcast_shapes(), bound=st.floats(-1.0, 1.0))
def test_clamp_min_and_max_match_torch(name, data, pair, bound):
    x, other = (data.draw(tensors(s)) for s in pair)
    compare_with_torch(lambda t: getattr(mt, name)(t, bound), lambda t: getattr(torch, name)(t, bound), [x])
    compare_with_torch(lambda t, o: getattr(t, name)(o), lambda t, o: getattr(t, name)(o), [x, other])
    compare_with_torch(lambda t: getattr(t * 1, name + "_")(bound), lambda t: getattr(t * 1, name + "_")(bound), [x])


@pytest.mark.parametrize("name", ["exp", "log", "sqrt", "sin", "cos", "abs", "neg", "sigmoid", "tanh", "relu"])
def test_in_place_forms_of_existing_ops_match_torch(name):
    x = torch.tensor([0.3, 1.2, 2.5], dtype=torch.float64)
    compare_with_torch(lambda t: getattr(t * 1, name + "_")(), lambda t: getattr(t * 1, name + "_")(), [x])


def test_in_place_math_on_a_leaf_that_requires_grad_raises_as_torch():
    x = mt.ones(3, requires_grad=True)
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad"):
        x.log1p_()
    with mt.no_grad():
        x.log1p_()
    assert x.torch().tolist() == pytest.approx([0.6931472] * 3)


def test_in_place_math_outside_any_graph_runs_torchs_kernel_on_the_data():
    x = mt.tensor([0.25, 4.0])
    data = x.torch()
    assert x.rsqrt_() is x and x.torch() is data
    assert data.tolist() == [2.0, 0.5]


@pytest.mark.parametrize(
    "alias, name",
    [("arcsin", "asin"), ("arccos", "acos"), ("arctan", "atan"), ("arcsinh", "asinh"), ("arccosh", "acosh")]
    + [("arctanh", "atanh"), ("arctan2", "atan2"), ("fix", "trunc")],
)
def test_math_aliases_are_the_same_functions(alias, name):
    assert getattr(mt, alias) is getattr(mt, name)
    assert getattr(mt.Tensor, alias) is getattr(mt.Tensor, name)
