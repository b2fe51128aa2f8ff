"""functional_call and stack_module_state against torch.func's, per-sample gradients and model
ensembles through vmap, and torch.func.X routed to ours for our tensors and modules."""

from __future__ import annotations

import pytest
import torch
import torch.func as tf

import minitorch_rx as mt
import minitorch_rx.nn as nn
import minitorch_rx.nn.functional as F
from minitorch_rx import func
from tests.test_func import _same_error, assert_same, ours


def _pair(seed: int = 0):
    """The same small CNN in torch and in minitorch_rx (float64, eval-free: no BatchNorm)."""
    torch.manual_seed(seed)
    layers = [nn.Conv2d(1, 4, 3), nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(), nn.Linear(4 * 3 * 3, 5)]
    t_layers = [torch.nn.Conv2d(1, 4, 3), torch.nn.ReLU(), torch.nn.MaxPool2d(2), torch.nn.Flatten()]
    t_layers.append(torch.nn.Linear(4 * 3 * 3, 5))
    theirs = torch.nn.Sequential(*t_layers).double()
    mine = nn.Sequential(*layers).double()
    mine.load_state_dict({k: v.detach().clone() for k, v in theirs.state_dict().items()})
    return mine, theirs


def _params(model):
    return {k: v.detach() for k, v in model.named_parameters()}


def test_functional_call_matches_torch():
    mine, theirs = _pair()
    x = torch.randn(2, 1, 8, 8, dtype=torch.float64)
    new = {k: torch.randn_like(v) for k, v in _params(theirs).items()}
    assert_same(func.functional_call(mine, ours(new), (ours(x),)), tf.functional_call(theirs, new, (x,)))


def test_functional_call_restores_the_module():
    mine, _ = _pair()
    before = {k: v for k, v in mine.named_parameters()}
    func.functional_call(mine, {"4.weight": mt.zeros(5, 36, dtype=mt.float64)}, mt.zeros(1, 1, 8, 8, dtype=mt.float64))
    assert {k: v for k, v in mine.named_parameters()} == before


def test_functional_call_takes_a_sequence_of_dicts_and_kwargs():
    layer = nn.Linear(3, 2)
    out = func.functional_call(
        layer, ({"weight": mt.ones(2, 3)}, {"bias": mt.zeros(2)}), args=(), kwargs={"input": mt.ones(1, 3)}
    )
    assert out.tolist() == [[3.0, 3.0]]


def test_functional_call_repeated_keys_raise_torchs_error():
    mine, theirs = nn.Linear(3, 2), torch.nn.Linear(3, 2)
    w, tw = mt.ones(2, 3), torch.ones(2, 3)
    _same_error(
        lambda: func.functional_call(mine, ({"weight": w}, {"weight": w}), mt.ones(1, 3)),
        lambda: tf.functional_call(theirs, ({"weight": tw}, {"weight": tw}), torch.ones(1, 3)),
    )


def test_functional_call_strict_raises_torchs_error():
    mine, theirs = nn.Linear(3, 2), torch.nn.Linear(3, 2)
    _same_error(
        lambda: func.functional_call(mine, {"weight": mt.ones(2, 3), "extra": mt.ones(1)}, mt.ones(1, 3), strict=True),
        lambda: tf.functional_call(
            theirs, {"weight": torch.ones(2, 3), "extra": torch.ones(1)}, torch.ones(1, 3), strict=True
        ),
    )


class _Tied(nn.Module):
    def __init__(self):
        super().__init__()
        self.a = nn.Linear(2, 2, bias=False)
        self.b = nn.Linear(2, 2, bias=False)
        self.b.weight = self.a.weight

    def forward(self, x):
        return self.b(self.a(x))


@pytest.mark.parametrize("tie_weights", [True, False])
def test_functional_call_tie_weights(tie_weights):
    model = _Tied()
    out = func.functional_call(model, {"a.weight": 2 * mt.eye(2)}, mt.ones(1, 2), tie_weights=tie_weights)
    b_weight = 2 * torch.eye(2) if tie_weights else model.b.weight.torch()
    torch.testing.assert_close(out.torch(), 2 * torch.ones(1, 2) @ b_weight.T)


def test_per_sample_gradients_of_a_cnn_match_torch():
    mine, theirs = _pair()
    x = torch.randn(6, 1, 8, 8, dtype=torch.float64)
    y = torch.randint(0, 5, (6,))

    def loss(p, xi, yi):
        return F.cross_entropy(func.functional_call(mine, p, (xi.unsqueeze(0),)), yi.unsqueeze(0))

    def t_loss(p, xi, yi):
        return torch.nn.functional.cross_entropy(tf.functional_call(theirs, p, (xi.unsqueeze(0),)), yi.unsqueeze(0))

    mine_grads = func.vmap(func.grad(loss), in_dims=(None, 0, 0))(ours(_params(theirs)), ours(x), ours(y))
    assert_same(mine_grads, tf.vmap(tf.grad(t_loss), in_dims=(None, 0, 0))(_params(theirs), x, y))


def test_stack_module_state_and_an_ensemble_match_torch():
    pairs = [_pair(seed) for seed in range(3)]
    params, buffers = func.stack_module_state([m for m, _ in pairs])
    t_params, t_buffers = tf.stack_module_state([t for _, t in pairs])
    assert_same((params, buffers), (t_params, t_buffers))
    assert all(p.is_leaf and p.requires_grad for p in params.values())
    x = torch.randn(2, 1, 8, 8, dtype=torch.float64)
    base, t_base = pairs[0]

    def run(p, b, x):
        return func.functional_call(base, (p, b), (x,))

    def t_run(p, b, x):
        return tf.functional_call(t_base, (p, b), (x,))

    in_dims = (0, 0, None)
    assert_same(func.vmap(run, in_dims)(params, buffers, ours(x)), tf.vmap(t_run, in_dims)(t_params, t_buffers, x))


def test_stack_module_state_errors_are_torchs():
    _same_error(lambda: func.stack_module_state([]), lambda: tf.stack_module_state([]))
    a, b = nn.Linear(1, 1), nn.Linear(1, 1).eval()
    ta, tb = torch.nn.Linear(1, 1), torch.nn.Linear(1, 1).eval()
    _same_error(lambda: func.stack_module_state([a, b]), lambda: tf.stack_module_state([ta, tb]))


# ----------------------------------------------------------------------------- routing
@pytest.mark.parametrize("name", ["grad", "vmap", "jacrev", "jacfwd", "hessian"])
def test_torch_func_transforms_run_ours_for_our_tensors(name):
    x = mt.tensor([0.5, 1.0], dtype=mt.float64)
    f = (lambda v: (v * v).sum()) if name in ("grad", "hessian") else (lambda v: v * v)
    out = getattr(torch.func, name)(f)(x)
    assert isinstance(out, mt.Tensor)
    assert_same(out, getattr(func, name)(f)(x).torch())


def test_torch_func_transforms_still_run_torchs_for_torch_tensors():
    out = torch.func.grad(lambda v: (v * v).sum())(torch.ones(2))
    assert type(out) is torch.Tensor and out.tolist() == [2.0, 2.0]
    assert torch.vmap(torch.sin)(torch.zeros(2)).tolist() == [0.0, 0.0]


def test_torch_func_vjp_jvp_and_functional_call_run_ours():
    x = mt.ones(2)
    out, fn = torch.func.vjp(lambda v: v * 3, x)
    assert isinstance(fn(mt.ones(2))[0], mt.Tensor)
    assert isinstance(torch.func.jvp(lambda v: v * 3, (x,), (x,))[1], mt.Tensor)
    layer = nn.Linear(2, 1)
    assert isinstance(torch.func.functional_call(layer, {}, (x,)), mt.Tensor)
    assert isinstance(torch.func.stack_module_state([layer, nn.Linear(2, 1)])[0]["weight"], mt.Tensor)
