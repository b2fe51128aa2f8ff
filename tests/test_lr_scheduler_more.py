"""LambdaLR, MultiplicativeLR, ConstantLR, PolynomialLR, CyclicLR, CosineAnnealingWarmRestarts,
SequentialLR and ChainedScheduler against torch.optim.lr_scheduler: 50 steps, value for value,
and their state dicts."""

from __future__ import annotations

import copy

import pytest
import torch

from minitorch_rx.optim import lr_scheduler
from tests.test_lr_scheduler import STEPS, _assert_same_groups, _optimizers, _step_both


class Halve:
    """A callable object: its ``__dict__`` is what torch's lambda schedulers save."""

    def __init__(self) -> None:
        self.factor = 0.5

    def __call__(self, epoch: int) -> float:
        return self.factor ** (epoch // 10)


def _pair(namespace, optimizer, name: str, kwargs: dict):
    """Build scheduler ``name`` from ``namespace`` (torch's lr_scheduler module or ours)."""
    if name == "SequentialLR":
        inner = [namespace.ConstantLR(optimizer, factor=0.2, total_iters=4), namespace.ExponentialLR(optimizer, 0.9)]
        return namespace.SequentialLR(optimizer, inner, milestones=[6])
    if name == "SequentialLR-three":
        inner = [
            namespace.LinearLR(optimizer, start_factor=0.1, total_iters=5),
            namespace.CosineAnnealingLR(optimizer, T_max=10),
            namespace.StepLR(optimizer, step_size=3, gamma=0.5),
        ]
        return namespace.SequentialLR(optimizer, inner, milestones=[5, 20])
    if name == "ChainedScheduler":
        inner = [namespace.ConstantLR(optimizer, factor=0.5, total_iters=7), namespace.ExponentialLR(optimizer, 0.95)]
        return namespace.ChainedScheduler(inner)
    return getattr(namespace, name.split("-")[0])(optimizer, **kwargs)


SCHEDULERS = {
    "LambdaLR": dict(lr_lambda=lambda epoch: 0.95**epoch),
    "LambdaLR-per-group": dict(lr_lambda=[lambda epoch: 1 / (epoch + 1), lambda epoch: 0.9 ** (epoch % 7)]),
    "MultiplicativeLR": dict(lr_lambda=lambda epoch: 0.97),
    "ConstantLR": dict(factor=0.25, total_iters=8),
    "PolynomialLR": dict(total_iters=30, power=2.0),
    "CyclicLR": dict(base_lr=0.01, max_lr=0.1, step_size_up=5),
    "CyclicLR-triangular2": dict(base_lr=0.01, max_lr=[0.1, 0.2], step_size_up=4, step_size_down=6, mode="triangular2"),
    "CyclicLR-exp_range": dict(base_lr=0.01, max_lr=0.1, step_size_up=3, mode="exp_range", gamma=0.97),
    "CyclicLR-no-momentum": dict(base_lr=0.01, max_lr=0.1, step_size_up=3, cycle_momentum=False),
    "CosineAnnealingWarmRestarts": dict(T_0=7, eta_min=0.001),
    "CosineAnnealingWarmRestarts-mult": dict(T_0=3, T_mult=2),
    "SequentialLR": {},
    "SequentialLR-three": {},
    "ChainedScheduler": {},
}


@pytest.mark.parametrize("name", list(SCHEDULERS))
@pytest.mark.parametrize("kind", ["SGD", "Adam"])
def test_scheduler_matches_torch_for_50_steps(name, kind):
    torch_opt, our_opt = _optimizers(kind)
    torch_sched = _pair(torch.optim.lr_scheduler, torch_opt, name, SCHEDULERS[name])
    our_sched = _pair(lr_scheduler, our_opt, name, SCHEDULERS[name])
    keys = ("lr", "betas" if kind == "Adam" else "momentum") if name.startswith("CyclicLR") else ("lr",)
    assert our_sched.get_last_lr() == pytest.approx(torch_sched.get_last_lr(), rel=1e-12)
    _assert_same_groups(torch_opt, our_opt, keys)
    for _ in range(STEPS):
        _step_both(torch_opt, our_opt, torch_sched, our_sched)
        assert our_sched.get_last_lr() == pytest.approx(torch_sched.get_last_lr(), rel=1e-12, abs=1e-15)
        _assert_same_groups(torch_opt, our_opt, keys)


def test_warm_restarts_with_fractional_epochs_match_torch():
    torch_opt, our_opt = _optimizers()
    kwargs = dict(T_0=4, T_mult=2)
    torch_sched = torch.optim.lr_scheduler.CosineAnnealingWarmRestarts(torch_opt, **kwargs)
    our_sched = lr_scheduler.CosineAnnealingWarmRestarts(our_opt, **kwargs)
    for epoch in range(12):
        for batch in range(5):
            torch_sched.step(epoch + batch / 5)
            our_sched.step(epoch + batch / 5)
            assert our_sched.get_last_lr() == pytest.approx(torch_sched.get_last_lr(), rel=1e-12)


@pytest.mark.parametrize(
    "name", ["LambdaLR", "PolynomialLR", "CyclicLR", "CosineAnnealingWarmRestarts", "SequentialLR", "ChainedScheduler"]
)
def test_state_dicts_move_between_torch_and_minitorch(name):
    kwargs = dict(SCHEDULERS[name])
    if name == "LambdaLR":
        kwargs["lr_lambda"] = Halve()
    torch_opt, our_opt = _optimizers()
    torch_sched = _pair(torch.optim.lr_scheduler, torch_opt, name, kwargs)
    our_sched = _pair(lr_scheduler, our_opt, name, kwargs)
    for _ in range(8):
        _step_both(torch_opt, our_opt, torch_sched, our_sched)
    torch_sd, our_sd = copy.deepcopy(torch_sched.state_dict()), copy.deepcopy(our_sched.state_dict())
    torch_sched.load_state_dict(our_sd)
    our_sched.load_state_dict(torch_sd)
    for _ in range(20):
        _step_both(torch_opt, our_opt, torch_sched, our_sched)
        assert our_sched.get_last_lr() == pytest.approx(torch_sched.get_last_lr(), rel=1e-12)


def test_lambda_state_dict_keeps_a_callable_objects_attributes():
    _, opt = _optimizers()
    schedule = Halve()
    sched = lr_scheduler.LambdaLR(opt, schedule)
    schedule.factor = 0.1
    saved = copy.deepcopy(sched.state_dict())
    assert saved["lr_lambdas"] == [{"factor": 0.1}, {"factor": 0.1}]
    fresh = Halve()
    _, other_opt = _optimizers()
    lr_scheduler.LambdaLR(other_opt, fresh).load_state_dict(saved)
    assert fresh.factor == 0.1


def test_sequential_state_dict_round_trip_resumes_exactly():
    _, opt = _optimizers()
    sched = _pair(lr_scheduler, opt, "SequentialLR-three", {})
    for _ in range(12):
        opt.step()
        sched.step()
    saved_opt, saved = copy.deepcopy(opt.state_dict()), copy.deepcopy(sched.state_dict())
    _, resumed_opt = _optimizers()
    resumed = _pair(lr_scheduler, resumed_opt, "SequentialLR-three", {})
    resumed_opt.load_state_dict(saved_opt)
    resumed.load_state_dict(saved)
    for _ in range(20):
        for o, s in ((opt, sched), (resumed_opt, resumed)):
            o.step()
            s.step()
        assert resumed.get_last_lr() == sched.get_last_lr()
