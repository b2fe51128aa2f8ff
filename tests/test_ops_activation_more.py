"""The second family of activations (relu6, hardtanh, hardsigmoid, hardswish, selu, celu, mish,
softsign, logsigmoid, tanhshrink, softshrink, hardshrink, threshold, prelu, rrelu, glu, softmin,
softmax with dtype) and their modules against torch.autograd in float64 on generated shapes;
finite values and gradients for |x| up to 1e4; gradcheck on each."""

from __future__ import annotations

import pytest
import torch
import torch.nn.functional as F
from helpers import compare_with_torch
from hypothesis import given
from hypothesis import strategies as st
from strategies import FUZZ, shapes, tensors

import minitorch_rx as mt
import minitorch_rx.nn as nn
import minitorch_rx.nn.functional as mF

#: name -> (minitorch_rx function, the same in torch)
ACTIVATIONS = {
    "relu6": (mF.relu6, F.relu6),
    "hardtanh": (mF.hardtanh, F.hardtanh),
    "hardtanh_-2_0.5": (lambda t: mF.hardtanh(t, -2.0, 0.5), lambda t: F.hardtanh(t, -2.0, 0.5)),
    "hardsigmoid": (mF.hardsigmoid, F.hardsigmoid),
    "hardswish": (mF.hardswish, F.hardswish),
    "selu": (mF.selu, F.selu),
    "celu": (mF.celu, F.celu),
    "celu_0.5": (lambda t: mF.celu(t, 0.5), lambda t: F.celu(t, 0.5)),
    "mish": (mF.mish, F.mish),
    "softsign": (mF.softsign, F.softsign),
    "logsigmoid": (mF.logsigmoid, F.logsigmoid),
    "tanhshrink": (mF.tanhshrink, F.tanhshrink),
    "softshrink": (mF.softshrink, F.softshrink),
    "softshrink_2": (lambda t: mF.softshrink(t, 2.0), lambda t: F.softshrink(t, 2.0)),
    "hardshrink": (mF.hardshrink, F.hardshrink),
    "hardshrink_1.5": (lambda t: mF.hardshrink(t, 1.5), lambda t: F.hardshrink(t, 1.5)),
    "threshold": (lambda t: mF.threshold(t, 0.3, -2.0), lambda t: F.threshold(t, 0.3, -2.0)),
    "rrelu_eval": (lambda t: mF.rrelu(t), lambda t: F.rrelu(t)),
    "rrelu_eval_bounds": (lambda t: mF.rrelu(t, 0.1, 0.9), lambda t: F.rrelu(t, 0.1, 0.9)),
}
#: breakpoints of each activation's pieces, kept away from the finite-difference points
KINKS = [-3.0, -2.0, -1.5, -1.0, -0.5, 0.0, 0.3, 0.5, 1.0, 1.5, 2.0, 3.0, 6.0]


def _away_from_kinks(x: torch.Tensor, margin: float = 1e-3) -> torch.Tensor:
    for kink in KINKS:
        x = torch.where((x - kink).abs() < margin, kink + margin * 2, x)
    return x


@pytest.mark.parametrize("name", ACTIVATIONS)
@FUZZ
@given(data=st.data(), shape=shapes())
def test_function_matches_torch(name, data, shape):
    x = _away_from_kinks(data.draw(tensors(shape, low=-8.0, high=8.0)))
    ours, theirs = ACTIVATIONS[name]
    compare_with_torch(ours, theirs, [x])


@pytest.mark.parametrize("name", ACTIVATIONS)
def test_float32_input_gives_float32_values_and_gradient(name):
    x = _away_from_kinks(torch.linspace(-7, 7, 12, dtype=torch.float32).reshape(3, 4))
    ours, theirs = ACTIVATIONS[name]
    compare_with_torch(ours, theirs, [x], atol=1e-6, rtol=1e-5)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("name", ACTIVATIONS)
def test_values_and_gradients_are_finite_for_magnitudes_up_to_1e4(name, dtype):
    x = mt.tensor([[-1e4, -1e3, -100.0, -30.0, 0.1], [30.0, 100.0, 1e3, 1e4, 1.1]], dtype=dtype, requires_grad=True)
    out = ACTIVATIONS[name][0](x)
    (grad,) = mt.autograd.grad(out, [x], torch.ones(out.shape, dtype=dtype))
    assert bool(torch.isfinite(out.torch()).all()), out
    assert bool(torch.isfinite(grad.torch()).all()), grad


@pytest.mark.parametrize("name", ACTIVATIONS)
def test_gradcheck_passes(name):
    values = [[-7.3, -2.7, -1.2, -0.7, -0.2], [0.05, 0.4, 0.8, 1.7, 4.1]]
    assert mt.autograd.gradcheck(ACTIVATIONS[name][0], [mt.tensor(values, dtype=torch.float64, requires_grad=True)])


# ------------------------------------------------------------------ prelu, glu, softmin, rrelu
@FUZZ
@given(data=st.data(), shape=shapes(min_rank=1, max_rank=4, min_side=1))
def test_prelu_per_channel_and_shared_match_torch(data, shape):
    x = _away_from_kinks(data.draw(tensors(shape, low=-3.0, high=3.0)))
    channels = shape[1] if len(shape) >= 2 else 1
    weight = data.draw(tensors((data.draw(st.sampled_from([1, channels])),), low=-1.0, high=1.0))
    compare_with_torch(mF.prelu, F.prelu, [x, weight])


def test_prelu_gradcheck():
    x = mt.tensor([[[-1.0, 2.0], [0.5, -0.3]], [[1.2, -2.2], [-0.7, 0.9]]], dtype=torch.float64, requires_grad=True)
    w = mt.tensor([0.25, -0.5], dtype=torch.float64, requires_grad=True)
    assert mt.autograd.gradcheck(mF.prelu, [x, w])


@FUZZ
@given(data=st.data(), shape=shapes(min_rank=1, max_rank=4, min_side=1))
def test_glu_matches_torch_on_every_even_dim(data, shape):
    dim = data.draw(st.integers(-len(shape), len(shape) - 1))
    shape = list(shape)
    shape[dim] *= 2
    x = data.draw(tensors(tuple(shape)))
    compare_with_torch(lambda t: mF.glu(t, dim), lambda t: F.glu(t, dim), [x])


def test_glu_gradcheck():
    x = mt.randn(2, 4, 3, dtype=torch.float64, requires_grad=True)
    assert mt.autograd.gradcheck(lambda t: mF.glu(t, 1), [x])


@FUZZ
@given(data=st.data(), shape=shapes(min_rank=1, max_rank=4))
def test_softmin_matches_torch(data, shape):
    dim = data.draw(st.integers(-len(shape), len(shape) - 1))
    x = data.draw(tensors(shape))
    compare_with_torch(lambda t: mF.softmin(t, dim), lambda t: F.softmin(t, dim), [x])


@pytest.mark.parametrize("function", ["softmax", "log_softmax", "softmin"])
def test_softmax_family_with_dtype_casts_first(function):
    x = torch.randn(3, 4, dtype=torch.float32)
    ours, theirs = getattr(mF, function), getattr(F, function)
    compare_with_torch(
        lambda t: ours(t, 1, dtype=torch.float64), lambda t: theirs(t, 1, dtype=torch.float64), [x], atol=1e-6
    )


def test_softmax_without_dim_warns_and_picks_torchs_dim():
    x = torch.randn(2, 3, dtype=torch.float64)
    with pytest.warns(UserWarning, match="Implicit dimension choice for softmax"):
        ours = mF.softmax(mt.tensor(x))
    torch.testing.assert_close(ours.torch(), F.softmax(x, 1))


def test_rrelu_in_training_draws_torchs_slopes_and_backpropagates_them():
    x = torch.randn(4, 5, dtype=torch.float64)
    mt.manual_seed(3)
    ours = mt.tensor(x, requires_grad=True)
    out = mF.rrelu(ours, 0.1, 0.4, training=True)
    out.backward(torch.ones(4, 5, dtype=torch.float64))
    torch.manual_seed(3)
    theirs = x.clone().requires_grad_(True)
    expected = F.rrelu(theirs, 0.1, 0.4, training=True)
    expected.backward(torch.ones(4, 5, dtype=torch.float64))
    torch.testing.assert_close(out.torch(), expected.detach())
    torch.testing.assert_close(ours.grad.torch(), theirs.grad)
    slopes = (out.torch() / x)[x < 0]
    assert bool(((slopes >= 0.1) & (slopes <= 0.4)).all())


# ----------------------------------------------------------------------------------- modules
MODULES = [
    ("ReLU6", (), {}),
    ("Hardtanh", (-0.5, 2.0), {}),
    ("Hardsigmoid", (), {}),
    ("Hardswish", (), {}),
    ("SELU", (), {}),
    ("CELU", (0.7,), {}),
    ("Mish", (), {}),
    ("Softsign", (), {}),
    ("LogSigmoid", (), {}),
    ("Tanhshrink", (), {}),
    ("Softshrink", (0.3,), {}),
    ("Hardshrink", (0.3,), {}),
    ("Threshold", (0.2, 5.0), {}),
    ("GLU", (), {"dim": 1}),
    ("Softmin", (), {"dim": 1}),
    ("PReLU", (), {"num_parameters": 4, "init": 0.1}),
    ("PReLU", (), {}),
]


@pytest.mark.parametrize(("name", "args", "kwargs"), MODULES, ids=[m[0] + str(m[2]) for m in MODULES])
def test_module_matches_torch_module_repr_and_parameters(name, args, kwargs):
    ours, theirs = getattr(nn, name)(*args, **kwargs), getattr(torch.nn, name)(*args, **kwargs).double()
    ours = ours.double() if list(ours.parameters()) else ours
    assert repr(ours) == repr(theirs)
    assert list(ours.state_dict()) == list(theirs.state_dict())
    x = _away_from_kinks(torch.randn(3, 4, 2, dtype=torch.float64) * 3)
    mt_x = mt.tensor(x, requires_grad=True)
    torch_x = x.clone().requires_grad_(True)
    out, expected = ours(mt_x), theirs(torch_x)
    torch.testing.assert_close(out.torch(), expected.detach())
    grad = torch.randn(expected.shape, dtype=torch.float64)
    out.backward(grad)
    expected.backward(grad)
    torch.testing.assert_close(mt_x.grad.torch(), torch_x.grad)
    for (_, p), (_, q) in zip(ours.named_parameters(), theirs.named_parameters(), strict=True):
        torch.testing.assert_close(p.grad.torch(), q.grad)


@pytest.mark.parametrize("name", ["ReLU6", "Hardtanh", "Hardsigmoid", "Hardswish", "SELU", "CELU", "Mish", "RReLU"])
def test_inplace_module_overwrites_its_input_like_torch(name):
    x = _away_from_kinks(torch.randn(3, 4, dtype=torch.float64) * 3)
    ours = mt.tensor(x.clone())
    out = getattr(nn, name)(inplace=True).eval()(ours)
    expected = getattr(torch.nn, name)(inplace=True).eval()(x)
    assert out is ours
    torch.testing.assert_close(ours.torch(), expected)


def test_rrelu_module_is_random_in_training_and_mean_slope_in_eval():
    module = nn.RReLU(0.1, 0.3)
    x = -mt.ones(1000, dtype=torch.float64)
    slopes = -module(x).torch()
    assert slopes.min() >= 0.1 and slopes.max() <= 0.3 and slopes.std() > 0.01
    assert torch.allclose(-module.eval()(x).torch(), torch.full((1000,), 0.2, dtype=torch.float64))


# ------------------------------------------------------------- torch's top-level names and methods
TOP_LEVEL = {
    "selu": ((3, 4),),
    "celu": ((3, 4), 0.5),
    "prelu": ((3, 4), "weight"),
    "rrelu": ((3, 4), 0.2, 0.4),
    "threshold": ((3, 4), 0.1, -1.0),
    "hardshrink": ((3, 4), 0.3),
    "cosine_similarity": ((3, 4), (3, 4)),
    "pairwise_distance": ((3, 4), (1, 4)),
    "bilinear": ((3, 2), (3, 4), (5, 2, 4)),
}


def _top_level_inputs(name):
    generator = torch.Generator().manual_seed(0)
    tensors, params = [], []
    for arg in TOP_LEVEL[name]:
        if isinstance(arg, tuple):
            tensors.append(_away_from_kinks(torch.randn(*arg, dtype=torch.float64, generator=generator) * 2))
        elif arg == "weight":
            tensors.append(torch.rand(4, dtype=torch.float64, generator=generator))
        else:
            params.append(arg)
    return tensors, params


@pytest.mark.parametrize("name", TOP_LEVEL)
def test_top_level_name_matches_torchs(name):
    tensors, params = _top_level_inputs(name)
    compare_with_torch(lambda *t: getattr(mt, name)(*t, *params), lambda *t: getattr(torch, name)(*t, *params), tensors)


@pytest.mark.parametrize(("name", "args"), [("hardshrink", (0.3,)), ("prelu", ())])
def test_tensor_method_matches_torchs(name, args):
    x = _away_from_kinks(torch.randn(3, 4, dtype=torch.float64) * 2)
    weight = torch.rand(4, dtype=torch.float64)
    extra = [weight] if name == "prelu" else []
    compare_with_torch(
        lambda t, *w: getattr(t, name)(*w, *args), lambda t, *w: getattr(t, name)(*w, *args), [x, *extra]
    )
