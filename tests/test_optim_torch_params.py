"""Optimizers both ways (issue 35): ours train a torch module's parameters (leaf torch tensors)
with gradients from our engine, bit for bit as torch.optim does given the same gradients; torch's
train our modules' parameters; our LR schedulers drive torch's optimizers. All in float64."""

from __future__ import annotations

import pytest
import torch
import torchvision
from torch.optim.optimizer import register_optimizer_step_pre_hook

import minitorch_rx as mt
import minitorch_rx.nn as nn

F64 = torch.float64

OPTIMIZERS = {
    "SGD": dict(lr=0.1, momentum=0.9, nesterov=True, weight_decay=1e-3),
    "Adam": dict(lr=0.01, amsgrad=True),
    "AdamW": dict(lr=0.01, weight_decay=0.1),
    "RMSprop": dict(lr=0.01, momentum=0.5, centered=True),
    "Adagrad": dict(lr=0.1),
    "NAdam": dict(lr=0.01),
}


def torch_net() -> torch.nn.Module:
    torch.manual_seed(0)
    return torch.nn.Sequential(
        torch.nn.Conv2d(2, 4, 3, padding=1, bias=False),  # a bias before BN: a zero gradient, noise to Adam
        torch.nn.BatchNorm2d(4),
        torch.nn.ReLU(),
        torch.nn.Flatten(),
        torch.nn.Linear(4 * 5 * 5, 3),
    ).double()


def batch(seed: int = 0) -> tuple[torch.Tensor, torch.Tensor]:
    gen = torch.Generator().manual_seed(seed)
    return torch.randn(6, 2, 5, 5, dtype=F64, generator=gen), torch.randint(0, 3, (6,), generator=gen)


def train_on_our_engine(model, optimizer, steps: int) -> list[float]:
    """Steps of a torch module called on our tensors: it records on our engine, whose backward fills
    its (torch) parameters' grads."""
    x, y = batch()
    losses = []
    for _ in range(steps):
        optimizer.zero_grad()
        out = model(mt.tensor(x))
        assert isinstance(out, mt.Tensor) and out.grad_fn is not None
        loss = mt.nn.functional.cross_entropy(out, mt.tensor(y))
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    return losses


def assert_same_state(ours: torch.nn.Module, theirs: torch.nn.Module) -> None:
    for (name, p), q in zip(ours.state_dict().items(), theirs.state_dict().values()):
        assert torch.equal(p, q), name


@pytest.mark.parametrize("name", list(OPTIMIZERS))
def test_our_optimizer_trains_a_torch_modules_parameters_bit_for_bit_as_torch_optim(name):
    ours, theirs = torch_net(), torch_net()
    opt = getattr(mt.optim, name)(ours.parameters(), **OPTIMIZERS[name])
    opt_ref = getattr(torch.optim, name)(theirs.parameters(), **OPTIMIZERS[name])
    losses = train_on_our_engine(ours, opt, 4)
    assert losses == train_on_our_engine(theirs, opt_ref, 4) and losses[-1] < losses[0]
    assert_same_state(ours, theirs)
    assert all(type(p) is torch.nn.Parameter for p in ours.parameters())
    state, state_ref = opt.state_dict(), opt_ref.state_dict()
    assert state["state"].keys() == state_ref["state"].keys()
    for i, buffers in state["state"].items():
        assert all(torch.equal(v, state_ref["state"][i][k]) for k, v in buffers.items())


def test_our_sgd_trains_a_torchvision_resnet18_as_torch_optim():
    torch.manual_seed(0)
    ours = torchvision.models.resnet18(num_classes=3).double()
    theirs, reference = torchvision.models.resnet18(num_classes=3).double(), torchvision.models.resnet18(num_classes=3)
    theirs.load_state_dict(ours.state_dict())
    reference.double().load_state_dict(ours.state_dict())
    options = dict(lr=0.05, momentum=0.9, weight_decay=1e-4)
    opt, opt_ref = mt.optim.SGD(ours.parameters(), **options), torch.optim.SGD(theirs.parameters(), **options)
    x = torch.randn(4, 3, 16, 16, dtype=F64, generator=torch.Generator().manual_seed(1))
    y = torch.tensor([0, 2, 1, 1])
    for model, optimizer in ((ours, opt), (theirs, opt_ref)):
        optimizer.zero_grad()
        mt.nn.functional.cross_entropy(model(mt.tensor(x)), mt.tensor(y)).backward()
        optimizer.step()
    assert_same_state(ours, theirs)
    # and torch's own autograd and optimizer land where ours do, up to the order of float64 sums
    # (measured: 8e-11 of each tensor's largest entry)
    opt_torch = torch.optim.SGD(reference.parameters(), **options)
    torch.nn.functional.cross_entropy(reference(x), y).backward()
    opt_torch.step()
    for (name, p), q in zip(ours.state_dict().items(), reference.state_dict().values()):
        assert (p - q).abs().max() <= 1e-9 * q.abs().max(), name


def test_a_non_leaf_torch_tensor_is_refused_as_torch_optim_refuses_it():
    w = torch.randn(3, requires_grad=True) * 2
    for optim in (mt.optim, torch.optim):
        with pytest.raises(ValueError, match="can't optimize a non-leaf Tensor"):
            optim.SGD([w], lr=0.1)


# ------------------------------------------------------- torch's optimizers train our modules
def our_net() -> nn.Module:
    """``torch_net``'s layers in our nn, with its initial weights."""
    model = nn.Sequential(
        nn.Conv2d(2, 4, 3, padding=1, bias=False), nn.BatchNorm2d(4), nn.ReLU(), nn.Flatten(), nn.Linear(100, 3)
    )
    model.double().load_state_dict({k: mt.tensor(v) for k, v in torch_net().state_dict().items()})
    return model


TORCH_OPTIMIZERS = {
    "SGD": dict(lr=0.1, momentum=0.9, weight_decay=1e-3),
    "Adam": dict(lr=0.01),
    "Adam-foreach": dict(lr=0.01, foreach=True),
    "AdamW": dict(lr=0.01, amsgrad=True),
    "RMSprop": dict(lr=0.01),
}


@pytest.mark.parametrize("name", list(TORCH_OPTIMIZERS))
def test_torch_optimizer_trains_our_model_step_for_step_as_ours_and_as_it_trains_torchs(name):
    optimizer = getattr(torch.optim, name.split("-")[0])
    ours, ours_by_mt, theirs = our_net(), our_net(), torch_net()
    losses = train_on_our_engine(ours, optimizer(ours.parameters(), **TORCH_OPTIMIZERS[name]), 4)
    options = {k: v for k, v in TORCH_OPTIMIZERS[name].items() if k != "foreach"}
    assert losses == train_on_our_engine(
        ours_by_mt, getattr(mt.optim, name.split("-")[0])(ours_by_mt.parameters(), **options), 4
    )
    assert_same_state(ours, ours_by_mt)
    assert all(isinstance(p, nn.Parameter) and p.grad_fn is None for p in ours.parameters())
    x, y = batch()
    opt_ref = optimizer(theirs.parameters(), **TORCH_OPTIMIZERS[name])
    for loss in losses:  # the same model on torch's autograd: the same steps, up to float64 rounding
        opt_ref.zero_grad()
        loss_ref = torch.nn.functional.cross_entropy(theirs(x), y)
        loss_ref.backward()
        opt_ref.step()
        assert loss == pytest.approx(loss_ref.item(), rel=1e-12)
    for (key, p), q in zip(ours.state_dict().items(), theirs.state_dict().values()):
        torch.testing.assert_close(p.torch(), q, rtol=1e-10, atol=1e-12, msg=key)


# --------------------------------------------------------- schedulers drive torch's optimizers
SCHEDULERS = {
    "StepLR": dict(step_size=2, gamma=0.5),
    "CosineAnnealingLR": dict(T_max=5),
    "OneCycleLR": dict(max_lr=0.5, total_steps=8),
    "LinearLR": dict(start_factor=0.2, total_iters=3),
}


@pytest.mark.parametrize("name", list(SCHEDULERS))
def test_our_scheduler_drives_a_torch_optimizer_as_torchs_scheduler(name, recwarn):
    runs = []
    for lr_scheduler in (mt.optim.lr_scheduler, torch.optim.lr_scheduler):
        model = torch_net()
        opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
        scheduler = getattr(lr_scheduler, name)(opt, **SCHEDULERS[name])
        lrs = []
        for _ in range(6):
            opt.step()
            scheduler.step()
            lrs.append((scheduler.get_last_lr(), opt.param_groups[0]["lr"], opt.param_groups[0]["momentum"]))
        runs.append(lrs)
    assert runs[0] == runs[1]
    assert not [w for w in recwarn if "lr_scheduler.step()" in str(w.message)]


def test_our_scheduler_warns_as_torchs_when_a_torch_optimizer_has_not_stepped():
    for lr_scheduler in (mt.optim.lr_scheduler, torch.optim.lr_scheduler):
        scheduler = lr_scheduler.StepLR(torch.optim.SGD(torch_net().parameters(), lr=0.1), step_size=1)
        with pytest.warns(UserWarning, match=r"Detected call of `lr_scheduler.step\(\)` before `optimizer.step\(\)`"):
            scheduler.step()


# --------------------------------------------------------- torch's schedulers and hooks drive ours
TORCH_SCHEDULERS = {**SCHEDULERS, "ReduceLROnPlateau": dict(patience=1, factor=0.5)}


@pytest.mark.parametrize("name", list(TORCH_SCHEDULERS))
def test_torchs_scheduler_drives_our_optimizer_as_it_drives_torchs(name, recwarn):
    runs = []
    for optim in (mt.optim, torch.optim):
        opt = optim.SGD(torch_net().parameters(), lr=0.1, momentum=0.9)
        assert isinstance(opt, torch.optim.Optimizer)
        scheduler = getattr(torch.optim.lr_scheduler, name)(opt, **TORCH_SCHEDULERS[name])
        lrs = []
        for _ in range(6):
            opt.step()
            scheduler.step(1.0) if name == "ReduceLROnPlateau" else scheduler.step()
            lrs.append((scheduler.get_last_lr(), opt.param_groups[0]["lr"], opt.param_groups[0]["momentum"]))
        runs.append(lrs)
    assert runs[0] == runs[1]
    assert not [w for w in recwarn if "lr_scheduler.step()" in str(w.message)]


def test_torchs_scheduler_warns_when_our_optimizer_has_not_stepped():
    scheduler = torch.optim.lr_scheduler.StepLR(mt.optim.SGD(torch_net().parameters(), lr=0.1), step_size=1)
    with pytest.warns(UserWarning, match=r"Detected call of `lr_scheduler.step\(\)` before `optimizer.step\(\)`"):
        scheduler.step()


def test_torchs_optimizer_hooks_run_on_ours():
    model = nn.Linear(2, 1)
    opt = mt.optim.SGD(model.parameters(), lr=0.1)
    seen = []
    opt.register_step_pre_hook(lambda o, args, kwargs: seen.append(("pre", o is opt)))
    handle = opt.register_step_post_hook(lambda o, args, kwargs: seen.append(("post", o is opt)))
    opt.register_state_dict_post_hook(lambda o, state: {**state, "extra": 1})
    opt.register_load_state_dict_pre_hook(lambda o, state: {k: v for k, v in state.items() if k != "extra"})
    opt.register_load_state_dict_post_hook(lambda o: seen.append("loaded"))
    model(mt.ones(3, 2)).sum().backward()
    opt.step()
    handle.remove()
    opt.step()
    assert seen == [("pre", True), ("post", True), ("pre", True)]
    state = opt.state_dict()
    assert state["extra"] == 1 and repr(opt).startswith("SGD (\nParameter Group 0\n")
    opt.load_state_dict(state)
    assert seen[-1] == "loaded"


def test_a_global_step_hook_runs_on_ours_and_may_replace_the_arguments():
    model = nn.Linear(2, 1)
    opt = mt.optim.SGD(model.parameters(), lr=0.1)
    closure_calls = []

    def closure():
        closure_calls.append(1)
        return model(mt.ones(1, 2)).sum()

    handle = register_optimizer_step_pre_hook(lambda o, args, kwargs: ((closure,), {}))
    try:
        model(mt.ones(1, 2)).sum().backward()
        opt.step()
    finally:
        handle.remove()
    assert closure_calls == [1]
