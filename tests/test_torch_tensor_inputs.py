"""torch tensors that require grad, handed to minitorch_rx, never record into torch's autograd (issue 13.15).

A user's ``torch.randn(..., requires_grad=True)`` (or a transform's output) used as an input,
operand, parameter or gradient made torch record a graph behind our tensors, and our optimizers'
in-place updates extended it every step: hundreds of ops deep, memory growing, silently. Every
entry point now detaches it (warning once that torch's autograd is not used), and optimizer steps
run under ``torch.no_grad()``.
"""

from __future__ import annotations

import warnings

import pytest
import torch

import minitorch_rx as mt
import minitorch_rx.autograd.tensor as tensor_module
import minitorch_rx.nn as nn
import minitorch_rx.nn.functional as F
import minitorch_rx.optim as optim

pytestmark = pytest.mark.filterwarnings("ignore:a torch.Tensor that requires grad:UserWarning")


def torch_leaf(*shape: int) -> torch.Tensor:
    return torch.randn(*shape, requires_grad=True)


def outside_torch_autograd(t: mt.Tensor | torch.Tensor) -> bool:
    data = t.torch() if isinstance(t, mt.Tensor) else t
    return data.grad_fn is None and not data.requires_grad


def assign_data(t: torch.Tensor) -> mt.Tensor:
    p = nn.Parameter(mt.zeros(2, 3))
    p.data = t
    return p


def assign_grad(t: torch.Tensor) -> mt.Tensor:
    p = nn.Parameter(mt.zeros(2, 3))
    p.grad = t
    return p.grad


def set_item(t: torch.Tensor) -> mt.Tensor:
    y = mt.zeros(2, 3)
    y[0] = t[0]
    return y


def copy_into(t: torch.Tensor) -> mt.Tensor:
    return mt.zeros(2, 3).copy_(t)


def backward_gradient(t: torch.Tensor) -> mt.Tensor:
    w = mt.ones(2, 3, requires_grad=True)
    (w * 2).backward(t)
    return w.grad


ENTRY_POINTS = {
    "mt.tensor": lambda t: mt.tensor(t),
    "mt.tensor requires_grad": lambda t: mt.tensor(t, requires_grad=True),
    "mt.from_torch": lambda t: mt.from_torch(t),
    "mt.Tensor": lambda t: mt.Tensor(t),
    "nn.Parameter": lambda t: nn.Parameter(t),
    ".data =": assign_data,
    ".grad =": assign_grad,
    "x + t": lambda t: mt.ones(2, 3) + t,
    "t + x": lambda t: t + mt.ones(2, 3),
    "x * t, x requires grad": lambda t: mt.ones(2, 3, requires_grad=True) * t,
    "mt.matmul": lambda t: mt.matmul(mt.ones(4, 2), t),
    "F.linear": lambda t: F.linear(t, mt.ones(5, 3)),
    "mt.cat": lambda t: mt.cat([mt.ones(1, 3), t]),
    "mt.where": lambda t: mt.where(mt.ones(2, 3) > 0, mt.ones(2, 3), t),
    "F.mse_loss": lambda t: F.mse_loss(mt.ones(2, 3, requires_grad=True), t),
    "setitem": set_item,
    "copy_": copy_into,
    "backward(gradient)": backward_gradient,
    "mt.where, torch operands only": lambda t: mt.where(mt.ones(2, 3) > 0, t, t * 2),
    "mt.clamp bounds": lambda t: mt.clamp(mt.zeros(2, 3), t, t + 1),
    "mt.dot": lambda t: mt.dot(mt.ones(3), t[0]),
    "F.layer_norm weight": lambda t: F.layer_norm(mt.ones(2, 3), (3,), t[0], t[1]),
    "F.batch_norm running stats": lambda t: F.batch_norm(mt.randn(4, 3), t[0], t[1].abs(), training=True),
    "F.batch_norm weight": lambda t: F.batch_norm(mt.randn(4, 3), None, None, t[0], t[1], training=True),
    "a custom Function": lambda t: Scale.apply(mt.ones(2, 3, requires_grad=True), t),
}


class Scale(mt.autograd.Function):
    @staticmethod
    def forward(ctx, x, factor):
        return x * factor

    @staticmethod
    def backward(ctx, grad):
        return grad, None


@pytest.mark.parametrize("entry", list(ENTRY_POINTS))
def test_a_torch_tensor_that_requires_grad_is_used_detached(entry):
    t = torch_leaf(2, 3)
    result = ENTRY_POINTS[entry](t)
    assert outside_torch_autograd(result), entry
    assert t.grad is None


def test_the_warning_is_given_once(monkeypatch):
    monkeypatch.setattr(tensor_module, "_warned_torch_autograd", False)
    with pytest.warns(UserWarning, match="minitorch_rx computes gradients with its own engine"):
        mt.tensor(torch_leaf(2))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        mt.from_torch(torch_leaf(2))
        mt.ones(2) + torch_leaf(2)
        mt.tensor(torch.ones(2))  # a tensor that needs no grad never warns


@pytest.mark.parametrize("optimizer", ["SGD", "Adam", "AdamW"])
def test_training_on_torch_tensors_that_require_grad_builds_no_torch_graph(optimizer):
    """Weights made from, and batches given as, torch tensors requiring grad: after every step the
    weights, their gradients and the optimizer's state carry no torch history."""
    torch.manual_seed(0)
    model = nn.Linear(4, 3)
    model.weight = nn.Parameter(mt.Tensor(torch_leaf(3, 4)))
    model.bias.data = torch_leaf(3)
    kwargs = {"momentum": 0.9} if optimizer == "SGD" else {}
    opt = getattr(optim, optimizer)(model.parameters(), lr=torch.tensor(0.01), **kwargs)
    for _ in range(20):
        batch, target = torch_leaf(8, 4), torch.randn(8, 3)
        loss = F.mse_loss(model(batch) * torch_leaf(1, 3), target)
        opt.zero_grad()
        loss.backward()
        opt.step()
        assert outside_torch_autograd(loss)
        for p in model.parameters():
            assert outside_torch_autograd(p) and outside_torch_autograd(p.grad)
            assert all(outside_torch_autograd(v) for v in opt.state[p].values() if isinstance(v, torch.Tensor))


def test_an_optimizer_step_runs_outside_torch_autograd_but_its_closure_inside():
    weight = nn.Parameter(mt.ones(2))
    seen = []

    def closure():
        seen.append(torch.is_grad_enabled())
        loss = (weight * weight).sum()
        loss.backward()
        return loss

    class Recording(optim.SGD):
        def step(self, closure=None):
            seen.append(torch.is_grad_enabled())
            return super().step(closure)

    Recording([weight], lr=0.1).step(closure)
    assert seen == [False, True]
    assert torch.is_grad_enabled()
