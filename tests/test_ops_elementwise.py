"""Elementwise ops against torch.autograd in float64 (values and every input's gradient) on
generated broadcast shapes, as operators, methods and mt functions, plus gradcheck on each."""

from __future__ import annotations

import operator

import pytest
import torch
from helpers import compare_with_torch
from hypothesis import given
from hypothesis import strategies as st
from strategies import FUZZ, broadcast_shapes, positive, scalars, shapes, tensors

import minitorch_rx as mt

OPERATORS = {
    "add": operator.add,
    "sub": operator.sub,
    "mul": operator.mul,
    "div": operator.truediv,
    "pow": operator.pow,
}
FUNCTIONS = ["add", "sub", "mul", "div", "pow", "maximum", "minimum"]
UNARY = ["neg", "abs", "exp", "log", "sqrt", "sin", "cos"]


def _operands(name: str, shape_a, shape_b):
    """Strategies for the two operands of ``name`` on its domain (a positive divisor or base)."""
    if name == "div":
        return tensors(shape_a), tensors(shape_b, margin=0.5)
    if name == "pow":
        return positive(shape_a), tensors(shape_b)
    return tensors(shape_a), tensors(shape_b)


def _unary_input(name: str, shape):
    if name in ("log", "sqrt"):
        return positive(shape)
    return tensors(shape, margin=0.1 if name == "abs" else 0.0)


@pytest.mark.parametrize("name", OPERATORS)
@FUZZ
@given(data=st.data(), pair=broadcast_shapes())
def test_operator_matches_torch_on_broadcast_shapes(name, data, pair):
    a, b = (data.draw(s) for s in _operands(name, *pair))
    op = OPERATORS[name]
    compare_with_torch(op, op, [a, b])


@pytest.mark.parametrize("name", FUNCTIONS)
@FUZZ
@given(data=st.data(), pair=broadcast_shapes())
def test_function_matches_torch_on_broadcast_shapes(name, data, pair):
    a, b = (data.draw(s) for s in _operands(name, *pair))
    compare_with_torch(getattr(mt, name), getattr(torch, name), [a, b])


@pytest.mark.parametrize("name", FUNCTIONS)
@FUZZ
@given(data=st.data(), pair=broadcast_shapes())
def test_method_matches_torch_on_broadcast_shapes(name, data, pair):
    a, b = (data.draw(s) for s in _operands(name, *pair))
    compare_with_torch(lambda x, y: getattr(x, name)(y), lambda x, y: getattr(x, name)(y), [a, b])


@pytest.mark.parametrize("name", OPERATORS)
@FUZZ
@given(data=st.data(), scalar=scalars())
def test_python_scalar_on_the_right_matches_torch(name, data, scalar):
    x = data.draw(positive() if name == "pow" else tensors())
    if name == "div" and scalar == 0:
        scalar = 2
    op = OPERATORS[name]
    for _ in range(2):  # the first use of a number caches it; later uses take the ConstantOp path
        compare_with_torch(lambda t: op(t, scalar), lambda t: op(t, scalar), [x])


@pytest.mark.parametrize("name", OPERATORS)
@FUZZ
@given(data=st.data(), scalar=scalars())
def test_python_scalar_on_the_left_matches_torch(name, data, scalar):
    x = data.draw(tensors(margin=0.5) if name == "div" else tensors())
    if name == "pow":
        scalar = abs(scalar) + 0.5
    op = OPERATORS[name]
    compare_with_torch(lambda t: op(scalar, t), lambda t: op(scalar, t), [x])


@pytest.mark.parametrize("name", ["add", "sub", "mul", "div", "pow"])
@FUZZ
@given(data=st.data())
def test_function_with_python_scalar_first_matches_torch(name, data):
    x = data.draw(tensors(margin=0.5))
    compare_with_torch(lambda t: getattr(mt, name)(1.5, t), lambda t: getattr(torch, name)(1.5, t), [x])


@pytest.mark.parametrize("name", ["add", "sub", "mul", "div", "pow"])
@FUZZ
@given(data=st.data(), scalar=scalars())
def test_function_with_python_scalar_second_matches_torch(name, data, scalar):
    x = data.draw(positive() if name == "pow" else tensors())
    if name == "div" and scalar == 0:
        scalar = 2
    compare_with_torch(lambda t: getattr(mt, name)(t, scalar), lambda t: getattr(torch, name)(t, scalar), [x])


@pytest.mark.parametrize("name", ["add", "sub"])
@FUZZ
@given(data=st.data(), pair=broadcast_shapes(), alpha=scalars())
def test_alpha_scales_the_other_operand_as_in_torch(name, data, pair, alpha):
    a, b = data.draw(tensors(pair[0])), data.draw(tensors(pair[1]))
    compare_with_torch(
        lambda x, y: getattr(mt, name)(x, y, alpha=alpha), lambda x, y: getattr(torch, name)(x, y, alpha=alpha), [a, b]
    )


@pytest.mark.parametrize("name", FUNCTIONS)
@FUZZ
@given(data=st.data(), pair=broadcast_shapes(min_rank=1))
def test_float32_and_float64_operands_get_gradients_of_their_own_dtype(name, data, pair):
    a, b = (data.draw(s) for s in _operands(name, *pair))
    a = a.float()
    compare_with_torch(getattr(mt, name), getattr(torch, name), [a, b], atol=1e-6, rtol=1e-5)
    x, y = mt.tensor(a, requires_grad=True), mt.tensor(b, requires_grad=True)
    out = getattr(mt, name)(x, y)
    grad_x, grad_y = mt.autograd.grad(out, [x, y], torch.ones(out.shape, dtype=out.dtype))
    assert (grad_x.dtype, grad_y.dtype) == (torch.float32, torch.float64)


@pytest.mark.parametrize("name", UNARY)
@FUZZ
@given(data=st.data(), shape=shapes())
def test_unary_method_matches_torch(name, data, shape):
    x = data.draw(_unary_input(name, shape))
    compare_with_torch(lambda t: getattr(t, name)(), lambda t: getattr(t, name)(), [x])


@pytest.mark.parametrize("name", UNARY)
@FUZZ
@given(data=st.data(), shape=shapes())
def test_unary_function_matches_torch(name, data, shape):
    x = data.draw(_unary_input(name, shape))
    compare_with_torch(getattr(mt, name), getattr(torch, name), [x])


@FUZZ
@given(x=tensors(margin=0.1))
def test_negation_and_abs_operators_match_torch(x):
    compare_with_torch(lambda t: abs(-t), lambda t: abs(-t), [x])


def test_abs_gradient_at_zero_is_zero_as_in_torch():
    compare_with_torch(mt.abs, torch.abs, [torch.tensor([0.0, -1.0, 2.0], dtype=torch.float64)])


def test_power_with_zero_base_or_zero_exponent_matches_torch():
    base = torch.tensor([0.0, 0.0, 0.0, 2.0, 0.0], dtype=torch.float64)
    exponent = torch.tensor([0.0, 1.0, 2.0, 0.0, 0.5], dtype=torch.float64)
    compare_with_torch(operator.pow, operator.pow, [base, exponent])


@pytest.mark.parametrize("exponent", [0, 1, 2, 3, -1, -2, 0.5])
def test_python_power_of_a_tensor_matches_torch(exponent):
    x = torch.tensor([-1.5, -0.5, 0.5, 2.0], dtype=torch.float64)
    if exponent == 0.5:
        x = x.abs()
    compare_with_torch(lambda t: t**exponent, lambda t: t**exponent, [x])


def test_integer_tensor_exponent_matches_torch():
    x = torch.tensor([-1.5, 0.5, 2.0], dtype=torch.float64)
    compare_with_torch(operator.pow, operator.pow, [x, torch.tensor([2, 3, 1])])


@FUZZ
@given(
    x=tensors(),
    low=st.one_of(st.none(), st.floats(-1.5, 0.0)),
    high=st.one_of(st.none(), st.floats(0.1, 1.5)),
)
def test_clamp_with_number_bounds_matches_torch(x, low, high):
    if low is None and high is None:
        low = -0.5
    compare_with_torch(lambda t: t.clamp(low, high), lambda t: t.clamp(low, high), [x])
    compare_with_torch(lambda t: mt.clamp(t, min=low, max=high), lambda t: torch.clamp(t, min=low, max=high), [x])


@FUZZ
@given(data=st.data(), triple=broadcast_shapes(num_shapes=3))
def test_clamp_with_tensor_bounds_matches_torch(data, triple):
    x, low, high = (data.draw(tensors(s)) for s in triple)
    compare_with_torch(lambda t, lo, hi: t.clamp(lo, hi + 2.5), lambda t, lo, hi: t.clamp(lo, hi + 2.5), [x, low, high])


def test_clamp_gives_no_gradient_to_a_value_on_a_number_bound():
    x = torch.tensor([-1.0, -0.5, 0.0, 1.0, 2.0], dtype=torch.float64)
    compare_with_torch(lambda t: t.clamp(-1.0, 1.0), lambda t: t.clamp(-1.0, 1.0), [x])
    compare_with_torch(lambda t: t.clamp(min=-1.0), lambda t: t.clamp(min=-1.0), [x])
    compare_with_torch(lambda t: t.clamp(max=1.0), lambda t: t.clamp(max=1.0), [x])


def test_clamp_with_tensor_bounds_splits_the_gradient_of_ties():
    x = torch.tensor([1.0, 2.0, 0.5, 3.0], dtype=torch.float64)
    low = torch.tensor([1.0, 0.0, 1.0, 0.0], dtype=torch.float64)
    high = torch.tensor([5.0, 2.0, 0.0, 5.0], dtype=torch.float64)
    compare_with_torch(lambda t, lo, hi: t.clamp(lo, hi), lambda t, lo, hi: t.clamp(lo, hi), [x, low, high])


def test_clip_is_clamp():
    x = torch.linspace(-2, 2, 9, dtype=torch.float64)
    compare_with_torch(lambda t: t.clip(-1, 1), lambda t: t.clip(-1, 1), [x])


def test_clamp_without_bounds_raises():
    with pytest.raises(RuntimeError, match="At least one of 'min' or 'max' must not be None"):
        mt.ones(2).clamp()


@pytest.mark.parametrize("name", ["maximum", "minimum"])
def test_maximum_and_minimum_split_the_gradient_of_ties_evenly(name):
    a = torch.tensor([1.0, 2.0, 3.0], dtype=torch.float64)
    b = torch.tensor([1.0, 0.0, 3.0], dtype=torch.float64)
    compare_with_torch(getattr(mt, name), getattr(torch, name), [a, b])


@pytest.mark.parametrize("name", ["maximum", "minimum"])
def test_maximum_and_minimum_refuse_a_python_number_as_torch_does(name):
    """Issue 25.5: they took one, where torch raises (``clamp`` is the function for a number)."""
    with pytest.raises(TypeError, match=rf"^{name}\(\): argument 'other' \(position 2\) must be Tensor, not int$"):
        getattr(mt, name)(mt.ones(3), 2)


@FUZZ
@given(data=st.data(), triple=broadcast_shapes(num_shapes=3))
def test_where_matches_torch_on_broadcast_shapes(data, triple):
    condition = data.draw(tensors(triple[0])) > 0
    a, b = data.draw(tensors(triple[1])), data.draw(tensors(triple[2]))
    compare_with_torch(
        lambda x, y: mt.where(mt.tensor(condition), x, y), lambda x, y: torch.where(condition, x, y), [a, b]
    )


@FUZZ
@given(data=st.data(), pair=broadcast_shapes())
def test_where_method_matches_torch(data, pair):
    a, b = data.draw(tensors(pair[0])), data.draw(tensors(pair[1]))
    compare_with_torch(lambda x, y: x.where(x > 0, y), lambda x, y: x.where(x > 0, y), [a, b])


@FUZZ
@given(x=tensors(), scalar=scalars(), scalar_first=st.booleans())
def test_where_with_a_python_number_on_either_side_matches_torch(x, scalar, scalar_first):
    scalar = float(scalar)
    if scalar_first:
        compare_with_torch(lambda t: mt.where(t > 0, scalar, t), lambda t: torch.where(t > 0, scalar, t), [x])
    else:
        compare_with_torch(lambda t: mt.where(t > 0, t, scalar), lambda t: torch.where(t > 0, t, scalar), [x])


def test_where_with_a_non_boolean_condition_raises():
    x = mt.ones(3)
    with pytest.raises(RuntimeError, match="where expected condition to be a boolean tensor"):
        mt.where(x, x, x)


def test_where_of_a_condition_alone_is_nonzero_as_a_tuple():
    data = torch.tensor([[0.0, 1.5, -2.0], [3.0, 0.0, 0.0]])
    for condition in (data > 0, data):  # any dtype, as torch's
        ours, theirs = mt.where(mt.tensor(condition)), torch.where(condition)
        assert len(ours) == len(theirs) == 2
        assert all(torch.equal(a.torch(), b) for a, b in zip(ours, theirs, strict=True))


def _small(*shape, low=-1.5, high=1.5, margin=0.2, seed=0):
    generator = torch.Generator().manual_seed(seed)
    values = torch.rand(shape, generator=generator, dtype=torch.float64) * (high - low) + low
    values = torch.where(values.abs() < margin, torch.where(values < 0, -margin, margin), values)
    return mt.tensor(values, requires_grad=True)


def _positive(*shape, seed=0):
    return _small(*shape, low=0.5, high=2.0, seed=seed)


GRADCHECKS = {
    "add": lambda: (operator.add, [_small(2, 3), _small(3, seed=1)]),
    "sub": lambda: (operator.sub, [_small(2, 3), _small(3, seed=1)]),
    "mul": lambda: (operator.mul, [_small(2, 3), _small(3, seed=1)]),
    "div": lambda: (operator.truediv, [_small(2, 3), _small(3, seed=1)]),
    "pow": lambda: (operator.pow, [_positive(2, 3), _small(3, seed=1)]),
    "rsub": lambda: (lambda t: 2 - t, [_small(2, 3)]),
    "rdiv": lambda: (lambda t: 2 / t, [_small(2, 3)]),
    "rpow": lambda: (lambda t: 2**t, [_small(2, 3)]),
    "pow_scalar": lambda: (lambda t: t**3, [_small(2, 3)]),
    "neg": lambda: (mt.neg, [_small(2, 3)]),
    "abs": lambda: (mt.abs, [_small(2, 3)]),
    "exp": lambda: (mt.exp, [_small(2, 3)]),
    "log": lambda: (mt.log, [_positive(2, 3)]),
    "sqrt": lambda: (mt.sqrt, [_positive(2, 3)]),
    "sin": lambda: (mt.sin, [_small(2, 3)]),
    "cos": lambda: (mt.cos, [_small(2, 3)]),
    "clamp": lambda: (lambda t: mt.clamp(t, -0.75, 0.8), [_small(2, 3)]),
    "clamp_tensor": lambda: (lambda t, lo: mt.clamp(t, lo), [_small(2, 3), _small(3, seed=1)]),
    "maximum": lambda: (mt.maximum, [_small(2, 3), _small(3, seed=1)]),
    "minimum": lambda: (mt.minimum, [_small(2, 3), _small(3, seed=1)]),
    "where": lambda: (lambda a, b: mt.where(a > 0, a, b), [_small(2, 3), _small(3, seed=1)]),
}


@pytest.mark.parametrize("name", GRADCHECKS)
def test_gradcheck_passes(name):
    fn, inputs = GRADCHECKS[name]()
    assert mt.autograd.gradcheck(fn, inputs)


class Halves(mt.autograd.Function):
    """Two outputs: the nodes of ops on them must say which output they read."""

    @staticmethod
    def forward(ctx, x):
        return x[:1].clone(), x[1:].clone()

    @staticmethod
    def backward(ctx, first, second):
        return torch.cat([first, second])


@pytest.mark.parametrize("name", ["add", "sub", "mul", "div"])
def test_an_op_with_a_cached_constant_is_recorded_and_differentiated_as_the_op_itself(name):
    op = OPERATORS[name]
    op(mt.ones(1, dtype=torch.float64), 3.0)  # caches the constant: what follows takes the fast path
    x = mt.tensor([1.0, 2.0, 4.0], dtype=torch.float64, requires_grad=True)
    x_torch = x.torch().clone().requires_grad_(True)
    y, y_torch = op(x, 3.0), op(x_torch, 3.0)
    assert type(y.grad_fn).__name__ == type(y_torch.grad_fn).__name__ == f"{name.capitalize()}Backward0"
    y.retain_grad()
    y_torch.retain_grad()
    (y * y).sum().backward(retain_graph=True)
    (y_torch * y_torch).sum().backward(retain_graph=True)
    torch.testing.assert_close(y.grad.torch(), y_torch.grad)
    torch.testing.assert_close(x.grad.torch(), x_torch.grad)
    (y * y).sum().backward()  # the retained graph runs again, then is released
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        y.sum().backward()
    assert mt.autograd.gradcheck(lambda t: op(t, 3.0), (x.detach().requires_grad_(),))


@pytest.mark.parametrize("name", ["add", "sub", "mul", "div"])
def test_an_op_with_a_cached_constant_takes_any_input(name):
    op = OPERATORS[name]
    op(mt.ones(1), 3.0)
    expected = {"add": 1.0, "sub": 1.0, "mul": 3.0, "div": 1 / 3}[name]
    x = mt.tensor([1.0, 2.0], requires_grad=True)
    first, second = Halves.apply(x)
    op(second, 3.0).backward(mt.ones(1))  # the second output of a two-output node
    assert x.grad.tolist() == pytest.approx([0.0, expected])
    weight = mt.nn.Parameter(mt.ones(2))
    op(weight, 3.0).sum().backward()
    assert weight.grad.tolist() == pytest.approx([expected] * 2)
    with mt.no_grad():
        assert not op(weight, 3.0).requires_grad
    with mt.autograd.detect_anomaly():
        assert op(weight, 3.0).grad_fn is not None


def test_a_chain_of_ops_with_cached_constants_backpropagates_as_torch():
    """The backward loop's short path for ConstantOp nodes (plain ``backward()``, no capture)."""

    def chain(x):
        y = x
        for _ in range(3):
            y = (((y * 1.5) + 0.25) - 0.5) / 2.0
        return (y * y).sum()

    chain(mt.ones(1, dtype=torch.float64))  # caches the constants
    x = mt.tensor([0.5, -1.0, 2.0], dtype=torch.float64, requires_grad=True)
    x_torch = x.torch().clone().requires_grad_(True)
    chain(x).backward()
    chain(x_torch).backward()
    torch.testing.assert_close(x.grad.torch(), x_torch.grad)


def same_bits(ours: torch.Tensor, theirs: torch.Tensor) -> bool:
    """Equal including the sign of zeros and infinities, NaN where NaN."""
    return bool(
        (torch.isnan(ours) == torch.isnan(theirs)).all()
        and (torch.signbit(ours) == torch.signbit(theirs))[~torch.isnan(theirs)].all()
        and torch.equal(ours.nan_to_num(0.0), theirs.nan_to_num(0.0))
    )


SPECIAL_SCALARS = [0.0, -0.0, 0, float("nan"), -float("nan"), float("inf"), -float("inf"), 5e-324, -5e-324]
SCALAR_OPS = {
    "add": lambda x, c: x + c,
    "sub": lambda x, c: x - c,
    "mul": lambda x, c: x * c,
    "div": lambda x, c: x / c,
    "radd": lambda x, c: c + x,
    "rsub": lambda x, c: c - x,
    "rmul": lambda x, c: c * x,
    "rdiv": lambda x, c: c / x,
    "pow": lambda x, c: x**c,
}


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("name", list(SCALAR_OPS))
def test_signed_zeros_and_nans_as_scalars_give_torchs_bits_whatever_ran_before(name, dtype):
    """Issue 13.7: ``x / -0.0`` after ``x / 0.0`` took 0.0's cached constant ([inf, -inf], torch
    [-inf, inf]); ``3 * -0.0`` gave 0.0. Every special scalar, after every other one, both ways."""
    op = SCALAR_OPS[name]
    for order in (SPECIAL_SCALARS, SPECIAL_SCALARS[::-1]):
        for scalar in order:
            x = mt.tensor([3.0, -2.0, 0.0, -0.0], dtype=dtype, requires_grad=True)
            x_torch = x.torch().clone().requires_grad_(True)
            y, y_torch = op(x, scalar), op(x_torch, scalar)
            assert same_bits(y.torch(), y_torch.detach()), (name, scalar, y, y_torch)
            y.sum().backward()
            y_torch.sum().backward()
            assert same_bits(x.grad.torch(), x_torch.grad), (name, scalar, x.grad, x_torch.grad)
