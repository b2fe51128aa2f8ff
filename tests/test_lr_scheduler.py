"""minitorch_rx.optim.lr_scheduler against torch.optim.lr_scheduler: 50 steps, value for value."""

from __future__ import annotations

import copy
import math
import warnings

import pytest
import torch

import minitorch_rx as mt
import minitorch_rx.optim as optim
from minitorch_rx.optim import lr_scheduler

STEPS = 50


def _optimizers(kind: str = "SGD", lrs: tuple[float, ...] = (0.1, 0.03)):
    """A torch optimizer and ours over twin parameters, one group per entry of ``lrs``."""
    torch_groups = [{"params": [torch.nn.Parameter(torch.ones(2, dtype=torch.float64))], "lr": lr} for lr in lrs]
    our_groups = [{"params": [mt.ones(2, dtype=torch.float64, requires_grad=True)], "lr": lr} for lr in lrs]
    if kind == "SGD":
        return torch.optim.SGD(torch_groups, momentum=0.9), optim.SGD(our_groups, momentum=0.9)
    return torch.optim.Adam(torch_groups), optim.Adam(our_groups)


def _step_both(torch_opt, our_opt, torch_sched, our_sched, metric: float | None = None) -> None:
    for opt in (torch_opt, our_opt):
        for group in opt.param_groups:
            group["params"][0].grad = (
                mt.ones(2, dtype=torch.float64)
                if isinstance(opt, optim.Optimizer)
                else torch.ones(2, dtype=torch.float64)
            )
        opt.step()
    if metric is None:
        torch_sched.step()
        our_sched.step()
    else:
        torch_sched.step(metric)
        our_sched.step(metric)


def _assert_same_groups(torch_opt, our_opt, keys=("lr",)) -> None:
    for theirs, ours in zip(torch_opt.param_groups, our_opt.param_groups, strict=True):
        for key in keys:
            assert ours[key] == pytest.approx(theirs[key], rel=1e-12, abs=1e-15), key


SCHEDULERS = {
    "StepLR": ("StepLR", dict(step_size=7, gamma=0.5)),
    "MultiStepLR": ("MultiStepLR", dict(milestones=[5, 12, 12, 30], gamma=0.3)),
    "ExponentialLR": ("ExponentialLR", dict(gamma=0.93)),
    "CosineAnnealingLR": ("CosineAnnealingLR", dict(T_max=10, eta_min=0.001)),
    "CosineAnnealingLR-long": ("CosineAnnealingLR", dict(T_max=60)),
    "LinearLR": ("LinearLR", dict(start_factor=0.2, end_factor=0.9, total_iters=20)),
    "LinearLR-decay": ("LinearLR", dict(start_factor=1.0, end_factor=0.0, total_iters=40)),
}


@pytest.mark.parametrize("name", list(SCHEDULERS))
def test_scheduler_matches_torch_for_50_steps(name):
    cls_name, kwargs = SCHEDULERS[name]
    torch_opt, our_opt = _optimizers()
    torch_sched = getattr(torch.optim.lr_scheduler, cls_name)(torch_opt, **kwargs)
    our_sched = getattr(lr_scheduler, cls_name)(our_opt, **kwargs)
    assert our_sched.get_last_lr() == pytest.approx(torch_sched.get_last_lr(), rel=1e-12)
    for _ in range(STEPS):
        _step_both(torch_opt, our_opt, torch_sched, our_sched)
        assert our_sched.get_last_lr() == pytest.approx(torch_sched.get_last_lr(), rel=1e-12, abs=1e-15)
        assert our_sched.last_epoch == torch_sched.last_epoch
        _assert_same_groups(torch_opt, our_opt)
    for p_theirs, p_ours in zip(torch_opt.param_groups, our_opt.param_groups, strict=True):
        torch.testing.assert_close(p_ours["params"][0].torch(), p_theirs["params"][0].detach(), atol=1e-6, rtol=1e-6)


@pytest.mark.parametrize(
    ("kind", "kwargs"),
    [
        ("SGD", dict(max_lr=1.0, total_steps=STEPS)),
        (
            "SGD",
            dict(
                max_lr=[1.0, 0.5],
                epochs=5,
                steps_per_epoch=10,
                anneal_strategy="linear",
                three_phase=True,
            ),
        ),
        ("Adam", dict(max_lr=0.01, total_steps=STEPS, pct_start=0.25, div_factor=10.0)),
        ("SGD", dict(max_lr=0.3, total_steps=STEPS, cycle_momentum=False)),
    ],
    ids=["cos", "linear-three-phase", "adam-betas", "no-momentum"],
)
def test_one_cycle_matches_torch_including_momentum(kind, kwargs):
    torch_opt, our_opt = _optimizers(kind)
    torch_sched = torch.optim.lr_scheduler.OneCycleLR(torch_opt, **kwargs)
    our_sched = lr_scheduler.OneCycleLR(our_opt, **kwargs)
    keys = ("lr", "betas" if kind == "Adam" else "momentum")
    _assert_same_groups(torch_opt, our_opt, keys)
    for _ in range(STEPS - 1):
        _step_both(torch_opt, our_opt, torch_sched, our_sched)
        assert our_sched.get_last_lr() == pytest.approx(torch_sched.get_last_lr(), rel=1e-12)
        _assert_same_groups(torch_opt, our_opt, keys)


def test_one_cycle_raises_past_total_steps():
    _, opt = _optimizers()
    sched = lr_scheduler.OneCycleLR(opt, max_lr=1.0, total_steps=3)
    for _ in range(3):
        opt.step()
        sched.step()
    with pytest.raises(ValueError, match="Tried to step 4 times. The specified number of total steps is 3"):
        sched.step()


@pytest.mark.parametrize(
    "kwargs",
    [
        dict(patience=2),
        dict(
            mode="max",
            factor=0.5,
            patience=1,
            threshold=0.05,
            threshold_mode="abs",
            cooldown=2,
            min_lr=[0.01, 0.02],
        ),
        dict(factor=0.2, patience=0, cooldown=1, min_lr=0.005, eps=1e-3),
    ],
    ids=["min-rel", "max-abs-cooldown", "min-lr"],
)
def test_reduce_lr_on_plateau_matches_torch(kwargs):
    torch_opt, our_opt = _optimizers()
    torch_sched = torch.optim.lr_scheduler.ReduceLROnPlateau(torch_opt, **kwargs)
    our_sched = lr_scheduler.ReduceLROnPlateau(our_opt, **kwargs)
    generator = torch.Generator().manual_seed(0)
    for step in range(STEPS):
        # Improves for 10 epochs, then wanders on a plateau.
        metric = 1.0 / (1 + min(step, 10)) + 0.02 * torch.rand((), generator=generator).item()
        _step_both(torch_opt, our_opt, torch_sched, our_sched, metric)
        assert our_sched.get_last_lr() == torch_sched.get_last_lr()
        assert our_sched.num_bad_epochs == torch_sched.num_bad_epochs
    assert our_sched.get_last_lr() != [0.1, 0.03]


def test_closed_form_with_epoch_argument_matches_torch():
    torch_opt, our_opt = _optimizers()
    torch_sched = torch.optim.lr_scheduler.CosineAnnealingLR(torch_opt, T_max=10)
    our_sched = lr_scheduler.CosineAnnealingLR(our_opt, T_max=10)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch_opt.step()
        our_opt.step()
        for epoch in (3, 7, 15, 4):
            torch_sched.step(epoch)
            with pytest.warns(UserWarning, match="The epoch parameter in `scheduler.step\\(\\)` was not necessary"):
                our_sched.step(epoch)
            assert our_sched.get_last_lr() == pytest.approx(torch_sched.get_last_lr(), rel=1e-12)
    expected = [
        0.1 * (1 + math.cos(math.pi * 4 / 10)) / 2,
        0.03 * (1 + math.cos(math.pi * 4 / 10)) / 2,
    ]
    assert our_sched.get_last_lr() == pytest.approx(expected, rel=1e-12)


@pytest.mark.parametrize("name", ["StepLR", "CosineAnnealingLR", "LinearLR"])
def test_state_dict_round_trip_resumes_exactly(name):
    cls_name, kwargs = SCHEDULERS[name]
    _, opt = _optimizers()
    sched = getattr(lr_scheduler, cls_name)(opt, **kwargs)
    for _ in range(15):
        opt.step()
        sched.step()
    opt_sd, sched_sd = copy.deepcopy(opt.state_dict()), copy.deepcopy(sched.state_dict())
    assert "optimizer" not in sched_sd and sched_sd["last_epoch"] == 15

    _, resumed_opt = _optimizers(lrs=(9.0, 9.0))
    resumed_opt.load_state_dict(opt_sd)
    resumed = getattr(lr_scheduler, cls_name)(resumed_opt, last_epoch=14, **kwargs)
    resumed.load_state_dict(sched_sd)
    for _ in range(STEPS - 15):
        for o, s in ((opt, sched), (resumed_opt, resumed)):
            o.step()
            s.step()
        assert resumed.get_last_lr() == sched.get_last_lr()


def test_state_dicts_move_between_torch_and_minitorch():
    torch_opt, our_opt = _optimizers()
    torch_sched = torch.optim.lr_scheduler.CosineAnnealingLR(torch_opt, T_max=12)
    our_sched = lr_scheduler.CosineAnnealingLR(our_opt, T_max=12)
    for _ in range(5):
        _step_both(torch_opt, our_opt, torch_sched, our_sched)
    torch_sd, our_sd = (
        copy.deepcopy(torch_sched.state_dict()),
        copy.deepcopy(our_sched.state_dict()),
    )
    our_sched.load_state_dict(torch_sd)
    torch_sched.load_state_dict(our_sd)
    for _ in range(20):
        _step_both(torch_opt, our_opt, torch_sched, our_sched)
        assert our_sched.get_last_lr() == pytest.approx(torch_sched.get_last_lr(), rel=1e-12)


def test_reduce_lr_on_plateau_state_dict_round_trip():
    _, opt = _optimizers()
    sched = lr_scheduler.ReduceLROnPlateau(opt, mode="max", patience=1)
    for metric in (1.0, 0.5, 0.4):
        sched.step(metric)
    other = lr_scheduler.ReduceLROnPlateau(_optimizers()[1])
    other.load_state_dict(copy.deepcopy(sched.state_dict()))
    assert other.mode == "max" and other.mode_worse == -math.inf and other.best == 1.0
    assert other.num_bad_epochs == sched.num_bad_epochs


def test_resuming_without_initial_lr_raises():
    _, opt = _optimizers()
    with pytest.raises(KeyError, match="param 'initial_lr' is not specified in param_groups\\[0\\]"):
        lr_scheduler.StepLR(opt, step_size=2, last_epoch=3)


def test_scheduler_step_before_optimizer_step_warns():
    _, opt = _optimizers()
    sched = lr_scheduler.StepLR(opt, step_size=2)
    with pytest.warns(
        UserWarning,
        match="Detected call of `lr_scheduler.step\\(\\)` before `optimizer.step\\(\\)`",
    ):
        sched.step()


def test_scheduler_step_after_optimizer_step_does_not_warn():
    _, opt = _optimizers()
    sched = lr_scheduler.StepLR(opt, step_size=2)
    opt.step()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        sched.step()


@pytest.mark.parametrize(
    ("make", "error", "message"),
    [
        (
            lambda opt: lr_scheduler.StepLR(object(), step_size=1),
            TypeError,
            "object is not an Optimizer",
        ),
        (
            lambda opt: lr_scheduler.LinearLR(opt, start_factor=0.0),
            ValueError,
            "Starting multiplicative factor",
        ),
        (
            lambda opt: lr_scheduler.LinearLR(opt, end_factor=1.5),
            ValueError,
            "Ending multiplicative factor",
        ),
        (
            lambda opt: lr_scheduler.ReduceLROnPlateau(opt, factor=1.0),
            ValueError,
            "Factor should be < 1.0.",
        ),
        (
            lambda opt: lr_scheduler.ReduceLROnPlateau(opt, mode="up"),
            ValueError,
            "mode up is unknown!",
        ),
        (
            lambda opt: lr_scheduler.ReduceLROnPlateau(opt, min_lr=[0.1]),
            ValueError,
            "expected 2 min_lrs, got 1",
        ),
        (
            lambda opt: lr_scheduler.OneCycleLR(opt, max_lr=1.0),
            ValueError,
            "You must define either total_steps",
        ),
        (
            lambda opt: lr_scheduler.OneCycleLR(opt, max_lr=1.0, total_steps=10, pct_start=1),
            ValueError,
            "Expected float between 0 and 1 pct_start, but got 1",
        ),
        (
            lambda opt: lr_scheduler.OneCycleLR(opt, max_lr=[1.0], total_steps=10),
            ValueError,
            "max_lr must have the same length as optimizer.param_groups",
        ),
    ],
)
def test_argument_errors_use_torch_wording(make, error, message):
    _, opt = _optimizers()
    with pytest.raises(error) as info:
        make(opt)
    assert message in str(info.value)
