"""Activations against torch.autograd in float64 on generated shapes, as mt functions and (where
torch has them) methods; finite values and gradients for |x| up to 1e4; gradcheck on each."""

from __future__ import annotations

import pytest
import torch
import torch.nn.functional as F
from helpers import compare_with_torch
from hypothesis import given
from hypothesis import strategies as st
from strategies import FUZZ, shapes, tensors

import minitorch_rx as mt

#: name -> (minitorch_rx function, the same in torch)
ACTIVATIONS = {
    "relu": (mt.relu, torch.relu),
    "leaky_relu": (mt.leaky_relu, F.leaky_relu),
    "leaky_relu_0.2": (lambda t: mt.leaky_relu(t, 0.2), lambda t: F.leaky_relu(t, 0.2)),
    "elu": (mt.elu, F.elu),
    "elu_0.5": (lambda t: mt.elu(t, alpha=0.5), lambda t: F.elu(t, alpha=0.5)),
    "gelu": (mt.gelu, F.gelu),
    "gelu_tanh": (lambda t: mt.gelu(t, approximate="tanh"), lambda t: F.gelu(t, approximate="tanh")),
    "silu": (mt.silu, F.silu),
    "swish": (mt.swish, F.silu),
    "swish_2": (lambda t: mt.swish(t, 2.0), lambda t: t * torch.sigmoid(2.0 * t)),
    "sigmoid": (mt.sigmoid, torch.sigmoid),
    "tanh": (mt.tanh, torch.tanh),
    "softplus": (mt.softplus, F.softplus),
    "softplus_2_5": (lambda t: mt.softplus(t, 2.0, 5.0), lambda t: F.softplus(t, 2.0, 5.0)),
    "softmax": (lambda t: mt.softmax(t, -1), lambda t: torch.softmax(t, -1)),
    "softmax_0": (lambda t: mt.softmax(t, dim=0), lambda t: torch.softmax(t, dim=0)),
    "log_softmax": (lambda t: mt.log_softmax(t, -1), lambda t: torch.log_softmax(t, -1)),
    "log_softmax_0": (lambda t: mt.log_softmax(t, dim=0), lambda t: torch.log_softmax(t, dim=0)),
}
#: activations that torch also has as Tensor methods
METHODS = {
    "relu": (),
    "sigmoid": (),
    "tanh": (),
    "softmax": (-1,),
    "log_softmax": (0,),
}


@pytest.mark.parametrize("name", ACTIVATIONS)
@FUZZ
@given(data=st.data(), shape=shapes())
def test_function_matches_torch(name, data, shape):
    # Magnitudes past softplus's threshold and tanh's saturation, and away from relu's kink.
    x = data.draw(tensors(shape, low=-25.0, high=25.0, margin=1e-3))
    ours, theirs = ACTIVATIONS[name]
    compare_with_torch(ours, theirs, [x])


@pytest.mark.parametrize("name", METHODS)
@FUZZ
@given(data=st.data(), shape=shapes())
def test_method_matches_torch(name, data, shape):
    x = data.draw(tensors(shape, low=-5.0, high=5.0, margin=1e-3))
    args = METHODS[name]
    compare_with_torch(lambda t: getattr(t, name)(*args), lambda t: getattr(t, name)(*args), [x])


@pytest.mark.parametrize("name", ACTIVATIONS)
def test_float32_input_gives_float32_values_and_gradient(name):
    x = torch.linspace(-4, 4, 12, dtype=torch.float32).reshape(3, 4)
    ours, theirs = ACTIVATIONS[name]
    compare_with_torch(ours, theirs, [x], atol=1e-6, rtol=1e-5)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("name", ACTIVATIONS)
def test_values_and_gradients_are_finite_for_magnitudes_up_to_1e4(name, dtype):
    x = mt.tensor([[-1e4, -1e3, -100.0, -30.0, 0.0], [30.0, 100.0, 1e3, 1e4, 1.0]], dtype=dtype, requires_grad=True)
    out = ACTIVATIONS[name][0](x)
    (grad,) = mt.autograd.grad(out, [x], torch.ones(out.shape, dtype=dtype))
    assert bool(torch.isfinite(out.torch()).all()), out
    assert bool(torch.isfinite(grad.torch()).all()), grad


@pytest.mark.parametrize("name", ["silu", "swish", "swish_2"])
def test_gradient_at_zero_is_one_half(name):
    x = mt.zeros(3, dtype=mt.float64, requires_grad=True)
    ACTIVATIONS[name][0](x).sum().backward()
    assert x.grad.tolist() == [0.5, 0.5, 0.5]


@pytest.mark.parametrize("name", ["relu", "leaky_relu", "elu", "gelu", "softplus", "sigmoid", "tanh"])
def test_gradient_at_zero_matches_torch(name):
    ours, theirs = ACTIVATIONS[name]
    compare_with_torch(ours, theirs, [torch.zeros(4, dtype=torch.float64)])


def test_softmax_and_log_softmax_of_huge_logits_match_torch():
    x = torch.tensor([[1e4, 1e4 - 1, -1e4], [-1e4, -1e4, -1e4]], dtype=torch.float64)
    compare_with_torch(lambda t: mt.softmax(t, 1), lambda t: torch.softmax(t, 1), [x])
    compare_with_torch(lambda t: mt.log_softmax(t, 1), lambda t: torch.log_softmax(t, 1), [x])


def test_gelu_with_an_unknown_approximation_raises():
    with pytest.raises(RuntimeError, match="approximate argument must be either none or tanh"):
        mt.gelu(mt.ones(2), approximate="erf")


def test_softmax_with_a_dim_out_of_range_raises():
    with pytest.raises(IndexError, match="Dimension out of range"):
        mt.softmax(mt.ones(2, 3), 2)


GRADCHECK_SKIP_KINK = {"relu", "leaky_relu", "leaky_relu_0.2", "elu", "elu_0.5"}


@pytest.mark.parametrize("name", ACTIVATIONS)
def test_gradcheck_passes(name):
    generator = torch.Generator().manual_seed(0)
    values = torch.rand(2, 4, generator=generator, dtype=torch.float64) * 6 - 3
    if name in GRADCHECK_SKIP_KINK:
        values = torch.where(values.abs() < 0.1, 0.5, values)  # away from the kink at 0
    assert mt.autograd.gradcheck(ACTIVATIONS[name][0], [mt.tensor(values, requires_grad=True)])


#: name -> (minitorch_rx call with inplace=True, the same in torch)
INPLACE_ACTIVATIONS = {
    "relu": (lambda t: mt.nn.functional.relu(t, inplace=True), lambda t: F.relu(t, inplace=True)),
    "leaky_relu": (lambda t: mt.nn.functional.leaky_relu(t, 0.2, True), lambda t: F.leaky_relu(t, 0.2, True)),
    "elu": (lambda t: mt.nn.functional.elu(t, 0.5, True), lambda t: F.elu(t, 0.5, True)),
    "silu": (lambda t: mt.nn.functional.silu(t, inplace=True), lambda t: F.silu(t, inplace=True)),
    "ReLU module": (mt.nn.ReLU(inplace=True), torch.nn.ReLU(inplace=True)),
    "LeakyReLU module": (mt.nn.LeakyReLU(0.1, inplace=True), torch.nn.LeakyReLU(0.1, inplace=True)),
}


@pytest.mark.parametrize("name", INPLACE_ACTIVATIONS)
def test_inplace_activation_overwrites_its_input_and_matches_torch(name):
    ours, theirs = INPLACE_ACTIVATIONS[name]

    def run(fn):
        def on_a_copy(x):
            y = x * 1
            out = fn(y)
            assert out is y  # the input itself, overwritten
            return y * x  # the overwritten values are what later ops see

        return on_a_copy

    compare_with_torch(run(ours), run(theirs), [torch.linspace(-2, 2, 12, dtype=torch.float64).view(3, 4)])
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad is being used in an in-place operation"):
        ours(mt.ones(3, requires_grad=True))
    plain = mt.tensor([-1.0, 2.0])
    assert ours(plain) is plain and plain.tolist() == theirs(torch.tensor([-1.0, 2.0])).tolist()


def test_inplace_dropout_overwrites_its_input_and_scales_the_gradient_of_what_it_kept():
    x = mt.ones(1000, dtype=torch.float64, requires_grad=True)
    y = x * 1
    assert mt.nn.functional.dropout(y, 0.5, training=True, inplace=True) is y
    kept = y.torch() != 0
    assert set(y.torch().unique().tolist()) <= {0.0, 2.0} and 300 < int(kept.sum()) < 700
    y.sum().backward()
    torch.testing.assert_close(x.grad.torch(), kept.double() * 2)
