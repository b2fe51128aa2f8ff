"""RMSprop, Adagrad, Adadelta, Adamax, NAdam, RAdam and LBFGS against torch.optim, step for step,
with their state dicts (layout, round trips, and moves between torch and minitorch_rx)."""

from __future__ import annotations

import copy

import pytest
import torch

import minitorch_rx as mt
import minitorch_rx.optim as optim
from tests.test_optim import _assert_same_state, _give_grads, _run_side_by_side, _twins

CONFIGS = [
    ("RMSprop", dict(lr=0.01)),
    ("RMSprop", dict(lr=0.01, alpha=0.9, eps=1e-6, weight_decay=0.1)),
    ("RMSprop", dict(lr=0.01, momentum=0.9)),
    ("RMSprop", dict(lr=0.01, momentum=0.5, centered=True, maximize=True)),
    ("RMSprop", dict(lr=0.01, centered=True)),
    ("Adagrad", dict(lr=0.1)),
    ("Adagrad", dict(lr=0.1, lr_decay=0.01, initial_accumulator_value=0.5)),
    ("Adagrad", dict(lr=0.1, weight_decay=0.1, eps=1e-6, maximize=True)),
    ("Adadelta", dict()),
    ("Adadelta", dict(lr=0.5, rho=0.8, eps=1e-5, weight_decay=0.1)),
    ("Adadelta", dict(lr=0.5, maximize=True)),
    ("Adamax", dict(lr=0.01)),
    ("Adamax", dict(lr=0.01, betas=(0.8, 0.99), eps=1e-6, weight_decay=0.1)),
    ("Adamax", dict(lr=0.01, maximize=True)),
    ("NAdam", dict(lr=0.01)),
    ("NAdam", dict(lr=0.01, momentum_decay=0.01, weight_decay=0.1)),
    ("NAdam", dict(lr=0.01, weight_decay=0.1, decoupled_weight_decay=True, maximize=True)),
    ("RAdam", dict(lr=0.01)),
    ("RAdam", dict(lr=0.01, betas=(0.8, 0.9), weight_decay=0.1)),
    ("RAdam", dict(lr=0.01, weight_decay=0.1, decoupled_weight_decay=True, maximize=True)),
]


@pytest.mark.parametrize(("name", "kwargs"), CONFIGS, ids=lambda v: v if isinstance(v, str) else str(v))
def test_optimizer_matches_torch_for_50_steps(name, kwargs):
    torch_opt, our_opt, _, _ = _run_side_by_side(getattr(torch.optim, name), getattr(optim, name), kwargs)
    _assert_same_state(torch_opt, our_opt)


@pytest.mark.parametrize("name", ["RMSprop", "Adagrad", "Adadelta", "Adamax", "NAdam", "RAdam"])
def test_float32_steps_equal_torch_bit_for_bit(name):
    theirs, ours = _twins(dtype=torch.float32)
    torch_opt, our_opt = getattr(torch.optim, name)(theirs, lr=0.01), getattr(optim, name)(ours, lr=0.01)
    for step in range(10):
        _give_grads(theirs, step)
        _give_grads(ours, step)
        torch_opt.step()
        our_opt.step()
        for t, o in zip(theirs, ours, strict=True):
            assert torch.equal(o.torch(), t.detach())


@pytest.mark.parametrize(
    ("name", "kwargs"),
    [
        ("RMSprop", dict(lr=0.01, momentum=0.9, centered=True)),
        ("Adagrad", dict(lr=0.1, lr_decay=0.01)),
        ("Adadelta", dict(lr=0.5)),
        ("Adamax", dict(lr=0.01)),
        ("NAdam", dict(lr=0.01)),
        ("RAdam", dict(lr=0.01)),
    ],
    ids=lambda v: v if isinstance(v, str) else "",
)
def test_state_dict_round_trip_resumes_exactly(name, kwargs):
    cls = getattr(optim, name)
    _, params = _twins()
    opt = cls(params, **kwargs)
    for step in range(10):
        _give_grads(params, step)
        opt.step()
    checkpoint = copy.deepcopy(opt.state_dict())
    _, resumed = _twins(seed=1)
    for p, q in zip(resumed, params, strict=True):
        p.torch().copy_(q.torch())
    resumed_opt = cls(resumed, lr=0.5)
    resumed_opt.load_state_dict(checkpoint)
    assert resumed_opt.param_groups[0]["lr"] == kwargs.get("lr", 1.0)
    for step in range(10, 25):
        _give_grads(params, step)
        _give_grads(resumed, step)
        opt.step()
        resumed_opt.step()
        for a, b in zip(params, resumed, strict=True):
            # NAdam's float32 mu_product comes back as the parameter's dtype, as torch loads it
            torch.testing.assert_close(a.torch(), b.torch(), atol=1e-9, rtol=0)


@pytest.mark.parametrize("name", ["RMSprop", "Adagrad", "Adadelta", "Adamax", "NAdam", "RAdam"])
def test_state_dicts_move_between_torch_and_minitorch(name):
    theirs, ours = _twins()
    torch_opt, our_opt = getattr(torch.optim, name)(theirs, lr=0.01), getattr(optim, name)(ours, lr=0.01)
    for step in range(5):
        _give_grads(theirs, step)
        _give_grads(ours, step)
        torch_opt.step()
        our_opt.step()
    torch_sd, our_sd = copy.deepcopy(torch_opt.state_dict()), copy.deepcopy(our_opt.state_dict())
    torch_opt.load_state_dict(our_sd)
    our_opt.load_state_dict(torch_sd)
    for step in range(5, 15):
        _give_grads(theirs, step)
        _give_grads(ours, step)
        torch_opt.step()
        our_opt.step()
    for t, o in zip(theirs, ours, strict=True):
        torch.testing.assert_close(o.torch(), t.detach(), atol=1e-12, rtol=1e-12)


def test_adagrad_creates_state_for_every_parameter_at_construction():
    _, params = _twins()
    opt = optim.Adagrad(params, initial_accumulator_value=0.25)
    assert len(opt.state) == len(params)
    assert all(bool((s["sum"] == 0.25).all()) and s["step"].item() == 0 for s in opt.state.values())


# ------------------------------------------------------------------------------- LBFGS
def _rosenbrock_twins():
    start = torch.tensor([-1.5, 2.0], dtype=torch.float64)
    return torch.nn.Parameter(start.clone()), mt.tensor(start.clone(), requires_grad=True)


def _rosenbrock(w):
    return (1 - w[0]) ** 2 + 100 * (w[1] - w[0] ** 2) ** 2


@pytest.mark.parametrize(
    "kwargs",
    [
        dict(lr=0.001, max_iter=5),
        dict(lr=1, history_size=3, line_search_fn="strong_wolfe"),
        dict(lr=0.5, max_iter=8, max_eval=10, line_search_fn="strong_wolfe", tolerance_change=1e-12),
        dict(lr=0.0005, max_iter=4, maximize=False, history_size=2),
    ],
    ids=str,
)
def test_lbfgs_matches_torch_step_by_step(kwargs):
    theirs, ours = _rosenbrock_twins()
    torch_opt, our_opt = torch.optim.LBFGS([theirs], **kwargs), optim.LBFGS([ours], **kwargs)

    def closure_for(opt, w):
        def closure():
            opt.zero_grad()
            loss = _rosenbrock(w)
            loss.backward()
            return loss

        return closure

    for _ in range(6):
        torch_loss = torch_opt.step(closure_for(torch_opt, theirs))
        our_loss = our_opt.step(closure_for(our_opt, ours))
        assert our_loss.item() == pytest.approx(torch_loss.item(), rel=1e-10, abs=1e-12)
        torch.testing.assert_close(ours.torch(), theirs.detach(), atol=1e-10, rtol=1e-10)
        theirs_state, ours_state = torch_opt.state[theirs], our_opt.state[ours]
        assert ours_state["func_evals"] == theirs_state["func_evals"]
        assert ours_state["n_iter"] == theirs_state["n_iter"]


def test_lbfgs_with_strong_wolfe_finds_the_minimum_through_the_engine():
    model = mt.nn.Linear(3, 1).double()
    x = mt.randn(20, 3, dtype=torch.float64)
    y = x @ mt.tensor([[1.0], [-2.0], [0.5]], dtype=torch.float64) + 0.25
    opt = optim.LBFGS(model.parameters(), line_search_fn="strong_wolfe")

    def closure():
        opt.zero_grad()
        loss = ((model(x) - y) ** 2).mean()
        loss.backward()
        return loss

    for _ in range(3):
        opt.step(closure)
    assert closure().item() < 1e-9


def test_lbfgs_refuses_parameter_groups():
    a, b = mt.zeros(2, requires_grad=True), mt.zeros(2, requires_grad=True)
    with pytest.raises(ValueError, match="LBFGS doesn't support per-parameter options"):
        optim.LBFGS([{"params": [a]}, {"params": [b]}])


def test_lbfgs_state_dict_moves_between_torch_and_minitorch():
    theirs, ours = _rosenbrock_twins()
    torch_opt = torch.optim.LBFGS([theirs], lr=0.5, max_iter=4, history_size=3, line_search_fn="strong_wolfe")
    our_opt = optim.LBFGS([ours], lr=0.5, max_iter=4, history_size=3, line_search_fn="strong_wolfe")

    def closure_for(opt, w):
        def closure():
            opt.zero_grad()
            loss = _rosenbrock(w)
            loss.backward()
            return loss

        return closure

    for _ in range(2):
        torch_opt.step(closure_for(torch_opt, theirs))
        our_opt.step(closure_for(our_opt, ours))
    torch_sd, our_sd = copy.deepcopy(torch_opt.state_dict()), copy.deepcopy(our_opt.state_dict())
    assert sorted(our_sd["state"][0]) == sorted(torch_sd["state"][0])
    torch_opt.load_state_dict(our_sd)
    our_opt.load_state_dict(torch_sd)
    for _ in range(3):
        torch_opt.step(closure_for(torch_opt, theirs))
        our_opt.step(closure_for(our_opt, ours))
        torch.testing.assert_close(ours.torch(), theirs.detach(), atol=1e-10, rtol=1e-10)
