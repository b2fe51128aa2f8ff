"""Saved-tensor hooks and activation checkpointing (issue 15): what is kept for backward, and
gradients equal to those of the plain computation (dropout included)."""

from __future__ import annotations

import pytest
import torch

import minitorch_rx as mt
import minitorch_rx.nn as nn
from minitorch_rx.utils.checkpoint import CheckpointError, checkpoint, checkpoint_sequential


def _model():
    mt.manual_seed(0)
    return nn.Sequential(nn.Linear(6, 8), nn.Tanh(), nn.Dropout(0.5), nn.Linear(8, 8), nn.ReLU(), nn.Linear(8, 2))


def _grads(model, x):
    return [p.grad.torch().clone() for p in model.parameters()] + [x.grad.torch().clone()]


def test_saved_tensors_hooks_see_every_saved_tensor_and_give_it_back():
    x = mt.randn(3, requires_grad=True)
    packed = []

    def pack(t):
        packed.append(t.shape)
        return t.torch().clone()

    with mt.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        y = (x * x).exp().sum()
    y.backward()
    torch.testing.assert_close(x.grad.torch(), (2 * x.torch() * (x.torch() ** 2).exp()))
    assert packed  # exp saved its output, mul its inputs


def test_save_on_cpu_gives_the_plain_gradients():
    x = mt.randn(4, requires_grad=True)
    with mt.autograd.graph.save_on_cpu():
        (x.sin() * x).sum().backward()
    torch.testing.assert_close(x.grad.torch(), x.torch().cos() * x.torch() + x.torch().sin())


def test_an_unpack_hook_returning_no_tensor_is_refused():
    x = mt.randn(3, requires_grad=True)
    with mt.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: "nope"):
        y = (x * x).sum()
    with pytest.raises(TypeError, match="unpack hook of saved_tensors_hooks must return a Tensor, got str"):
        y.backward()


def test_checkpoint_gives_the_gradients_of_the_plain_model_dropout_included():
    model = _model()
    x = mt.randn(5, 6, requires_grad=True)
    mt.manual_seed(1)
    model(x).pow(2).sum().backward()
    plain = _grads(model, x)
    model.zero_grad()
    x.grad = None
    mt.manual_seed(1)
    checkpoint(model, x).pow(2).sum().backward()
    for a, b in zip(plain, _grads(model, x)):
        torch.testing.assert_close(a, b)


def test_checkpoint_keeps_no_activation_for_backward():
    model = nn.Sequential(*[nn.Sequential(nn.Linear(64, 64), nn.Tanh()) for _ in range(4)])
    x = mt.randn(32, 64, requires_grad=True)
    kept = []
    with mt.autograd.graph.saved_tensors_hooks(lambda t: kept.append(t.numel()) or t, lambda t: t):
        checkpoint(model, x)
    assert kept == []  # the inner hooks (checkpoint's) took every saved tensor: none reached these


def test_checkpoint_sequential_matches_the_plain_model():
    model = nn.Sequential(nn.Linear(4, 4), nn.Tanh(), nn.Linear(4, 4), nn.Tanh(), nn.Linear(4, 1))
    x = mt.randn(3, 4, requires_grad=True)
    model(x).sum().backward()
    plain = _grads(model, x)
    model.zero_grad()
    x.grad = None
    checkpoint_sequential(model, 2, x).sum().backward()
    for a, b in zip(plain, _grads(model, x)):
        torch.testing.assert_close(a, b)


def test_checkpoint_works_with_autograd_grad_and_inputs_that_need_no_grad():
    layer = nn.Linear(3, 3)
    x = mt.randn(2, 3)
    out = checkpoint(lambda t: layer(t).tanh(), x)
    (g,) = mt.autograd.grad(out.sum(), layer.weight)
    expected = mt.autograd.grad(layer(x).tanh().sum(), layer.weight)[0]
    torch.testing.assert_close(g.torch(), expected.torch())


def test_reentrant_checkpoint_without_inputs_requiring_grad_warns_as_pytorch():
    layer = nn.Linear(3, 3)
    with pytest.warns(UserWarning, match="None of the inputs have requires_grad=True. Gradients will be None"):
        out = checkpoint(layer, mt.randn(2, 3), use_reentrant=True)
    assert not out.requires_grad


def test_a_recomputation_that_saves_differently_is_refused():
    calls = []

    def unsteady(t):
        calls.append(1)
        return t.exp() if len(calls) == 1 else t.exp().exp()

    x = mt.randn(3, requires_grad=True)
    out = checkpoint(unsteady, x)
    with pytest.raises(CheckpointError, match="A different number of tensors was saved"):
        out.sum().backward()


@pytest.mark.parametrize("use_reentrant", [True, False])
def test_torchs_checkpoint_on_our_tensors_gives_the_plain_gradients(use_reentrant):
    layer = mt.nn.Linear(3, 3).double()
    x = mt.randn(2, 3, dtype=mt.float64, requires_grad=True)
    out = torch.utils.checkpoint.checkpoint(lambda t: layer(t).tanh(), x, use_reentrant=use_reentrant)
    out.square().sum().backward()
    grads = x.grad.torch().clone(), layer.weight.grad.torch().clone()
    x.grad = None
    layer.zero_grad()
    layer(x).tanh().square().sum().backward()
    torch.testing.assert_close(grads[0], x.grad.torch())
    torch.testing.assert_close(grads[1], layer.weight.grad.torch())
