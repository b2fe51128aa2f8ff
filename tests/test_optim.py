"""minitorch_rx.optim against torch.optim: 50 steps from identical weights, step for step."""

from __future__ import annotations

import copy

import pytest
import torch

import minitorch_rx as mt
import minitorch_rx.optim as optim

SHAPES = [(4, 3), (4,), (2, 4), (2,), ()]
STEPS = 50


def _weights(seed: int = 0, dtype: torch.dtype = torch.float64) -> list[torch.Tensor]:
    generator = torch.Generator().manual_seed(seed)
    return [torch.randn(shape, generator=generator, dtype=dtype) for shape in SHAPES]


def _batch(step: int, dtype: torch.dtype = torch.float64) -> tuple[torch.Tensor, torch.Tensor]:
    generator = torch.Generator().manual_seed(1000 + step)
    return torch.randn(8, 3, generator=generator, dtype=dtype), torch.randn(8, 2, generator=generator, dtype=dtype)


def _grads(weights: list[torch.Tensor], step: int) -> list[torch.Tensor]:
    """d(loss)/d(weights) of a small tanh MLP (plus a 0-d parameter), by torch.autograd."""
    w1, b1, w2, b2, s = [w.detach().clone().requires_grad_(True) for w in weights]
    x, y = _batch(step, weights[0].dtype)
    out = torch.tanh(x @ w1.T + b1) @ w2.T + b2
    loss = ((out - y) ** 2).mean() + (s - 0.5) ** 2
    return list(torch.autograd.grad(loss, [w1, b1, w2, b2, s]))


def _twins(seed: int = 0, dtype: torch.dtype = torch.float64) -> tuple[list[torch.Tensor], list[mt.Tensor]]:
    weights = _weights(seed, dtype)
    theirs = [torch.nn.Parameter(w.clone()) for w in weights]
    ours = [mt.tensor(w.clone(), requires_grad=True) for w in weights]
    return theirs, ours


def _give_grads(params: list, step: int, skip: int | None = None) -> None:
    """Give torch or mt parameters the gradient at their own weights (none to ``skip``)."""
    weights = [p.torch() if isinstance(p, mt.Tensor) else p.data for p in params]
    for i, (p, g) in enumerate(zip(params, _grads(weights, step), strict=True)):
        if i == skip:
            p.grad = None
        else:
            p.grad = mt.Tensor(g) if isinstance(p, mt.Tensor) else g


def _set_grads(theirs: list[torch.Tensor], ours: list[mt.Tensor], step: int, skip: int | None = None) -> None:
    _give_grads(theirs, step, skip)
    _give_grads(ours, step, skip)


def _assert_same(theirs: list[torch.Tensor], ours: list[mt.Tensor], atol: float = 1e-6) -> None:
    for t, o in zip(theirs, ours, strict=True):
        torch.testing.assert_close(o.torch(), t.detach(), atol=atol, rtol=1e-6)


def _run_side_by_side(torch_cls, our_cls, kwargs: dict, steps: int = STEPS):
    theirs, ours = _twins()
    torch_opt, our_opt = torch_cls(theirs, **kwargs), our_cls(ours, **kwargs)
    for step in range(steps):
        # Every third step the first bias has no grad: both optimizers must skip it.
        _set_grads(theirs, ours, step, skip=1 if step % 3 == 2 else None)
        torch_opt.step()
        our_opt.step()
        _assert_same(theirs, ours)
    return torch_opt, our_opt, theirs, ours


def _assert_same_state(torch_opt, our_opt) -> None:
    theirs, ours = torch_opt.state_dict(), our_opt.state_dict()
    assert theirs["state"].keys() == ours["state"].keys()
    for index, state in theirs["state"].items():
        assert state.keys() == ours["state"][index].keys()
        for name, value in state.items():
            torch.testing.assert_close(ours["state"][index][name], value, atol=1e-6, rtol=1e-6)


SGD_CONFIGS = [
    dict(lr=0.1),
    dict(lr=0.1, momentum=0.9),
    dict(lr=0.1, momentum=0.9, dampening=0.3),
    dict(lr=0.1, momentum=0.9, nesterov=True),
    dict(lr=0.1, weight_decay=0.1),
    dict(lr=0.05, momentum=0.8, dampening=0.1, weight_decay=0.05),
    dict(lr=0.01, maximize=True),
    dict(lr=0.01, momentum=0.9, nesterov=True, weight_decay=0.1, maximize=True),
]
ADAM_CONFIGS = [
    dict(lr=0.01),
    dict(lr=0.01, amsgrad=True),
    dict(lr=0.01, weight_decay=0.1),
    dict(lr=0.01, betas=(0.8, 0.99), eps=1e-6),
    dict(lr=0.01, maximize=True),
    dict(lr=0.01, weight_decay=0.1, amsgrad=True, maximize=True),
]
ADAMW_CONFIGS = [
    dict(lr=0.01),
    dict(lr=0.01, weight_decay=0.1, amsgrad=True),
    dict(lr=0.01, maximize=True),
]


@pytest.mark.parametrize("kwargs", SGD_CONFIGS, ids=str)
def test_sgd_matches_torch_for_50_steps(kwargs):
    torch_opt, our_opt, _, _ = _run_side_by_side(torch.optim.SGD, optim.SGD, kwargs)
    _assert_same_state(torch_opt, our_opt)


@pytest.mark.parametrize("kwargs", ADAM_CONFIGS, ids=str)
def test_adam_matches_torch_for_50_steps(kwargs):
    torch_opt, our_opt, _, _ = _run_side_by_side(torch.optim.Adam, optim.Adam, kwargs)
    _assert_same_state(torch_opt, our_opt)


@pytest.mark.parametrize("kwargs", ADAMW_CONFIGS, ids=str)
def test_adamw_matches_torch_for_50_steps(kwargs):
    torch_opt, our_opt, _, _ = _run_side_by_side(torch.optim.AdamW, optim.AdamW, kwargs)
    _assert_same_state(torch_opt, our_opt)


@pytest.mark.parametrize(
    ("torch_cls", "our_cls", "kwargs"),
    [
        (torch.optim.SGD, optim.SGD, dict(lr=0.1, momentum=0.9)),
        (torch.optim.Adam, optim.Adam, dict(lr=0.01)),
    ],
    ids=["SGD", "Adam"],
)
def test_float32_steps_equal_torch_bit_for_bit(torch_cls, our_cls, kwargs):
    theirs, ours = _twins(dtype=torch.float32)
    torch_opt, our_opt = torch_cls(theirs, **kwargs), our_cls(ours, **kwargs)
    for step in range(10):
        _set_grads(theirs, ours, step)
        torch_opt.step()
        our_opt.step()
        for t, o in zip(theirs, ours, strict=True):
            assert torch.equal(o.torch(), t.detach())


def test_per_group_options_match_torch():
    theirs, ours = _twins()

    def groups(params):
        return [{"params": params[:2], "lr": 0.2, "momentum": 0.5}, {"params": params[2:]}]

    torch_opt = torch.optim.SGD(groups(theirs), lr=0.05, momentum=0.9, nesterov=True)
    our_opt = optim.SGD(groups(ours), lr=0.05, momentum=0.9, nesterov=True)
    assert [g["lr"] for g in our_opt.param_groups] == [0.2, 0.05]
    assert [g["momentum"] for g in our_opt.param_groups] == [0.5, 0.9]
    for step in range(STEPS):
        _set_grads(theirs, ours, step)
        torch_opt.step()
        our_opt.step()
        _assert_same(theirs, ours)


def test_changing_group_lr_takes_effect_like_torch():
    theirs, ours = _twins()
    torch_opt, our_opt = torch.optim.Adam(theirs, lr=0.01), optim.Adam(ours, lr=0.01)
    for step in range(10):
        for opt in (torch_opt, our_opt):
            opt.param_groups[0]["lr"] = 0.01 / (step + 1)
            opt.param_groups[0]["betas"] = (0.9 - 0.01 * step, 0.999)
        _set_grads(theirs, ours, step)
        torch_opt.step()
        our_opt.step()
        _assert_same(theirs, ours)


def test_training_through_the_engine_matches_torch():
    """Gradients from minitorch_rx's own backward, updates from minitorch_rx's Adam."""
    theirs, ours = _twins()
    torch_opt, our_opt = torch.optim.Adam(theirs, lr=0.01), optim.Adam(ours, lr=0.01)
    for step in range(20):
        x, y = _batch(step)
        w1, b1, w2, b2, s = theirs
        loss = ((torch.tanh(x @ w1.T + b1) @ w2.T + b2 - y) ** 2).mean() + (s - 0.5) ** 2
        torch_opt.zero_grad()
        loss.backward()
        torch_opt.step()
        w1, b1, w2, b2, s = ours
        out = mt.tanh(mt.tensor(x) @ w1.T + b1) @ w2.T + b2
        our_loss = ((out - mt.tensor(y)) ** 2).mean() + (s - 0.5) ** 2
        our_opt.zero_grad()
        our_loss.backward()
        our_opt.step()
        _assert_same(theirs, ours)


def test_mixed_dtypes_and_large_tensors_match_torch():
    """Buckets split by dtype, and large CPU tensors in runs of their own, change no value."""
    generator = torch.Generator().manual_seed(0)
    shapes = [(600, 600), (3,), (300, 1000), (5, 5), (700, 500)]
    weights = [
        torch.randn(s, generator=generator, dtype=torch.float64 if i % 2 else torch.float32)
        for i, s in enumerate(shapes)
    ]
    theirs = [torch.nn.Parameter(w.clone()) for w in weights]
    ours = [mt.tensor(w.clone(), requires_grad=True) for w in weights]
    torch_opt, our_opt = (
        torch.optim.Adam(theirs, lr=0.01, amsgrad=True),
        optim.Adam(ours, lr=0.01, amsgrad=True),
    )
    for _ in range(5):
        for t, o in zip(theirs, ours, strict=True):
            g = torch.randn(t.shape, generator=generator, dtype=t.dtype)
            t.grad, o.grad = g, mt.Tensor(g.clone())
        torch_opt.step()
        our_opt.step()
        for t, o in zip(theirs, ours, strict=True):
            assert torch.equal(o.torch(), t.detach())


# ---------------------------------------------------------------- state dicts
@pytest.mark.parametrize(
    ("cls", "kwargs"),
    [
        (optim.SGD, dict(lr=0.1, momentum=0.9, nesterov=True)),
        (optim.Adam, dict(lr=0.01, amsgrad=True)),
        (optim.AdamW, dict(lr=0.01, weight_decay=0.1)),
    ],
    ids=["SGD", "Adam", "AdamW"],
)
def test_state_dict_round_trip_resumes_exactly(cls, kwargs):
    _, params = _twins()
    opt = cls(params, **kwargs)
    for step in range(20):
        _give_grads(params, step)
        opt.step()
    checkpoint = copy.deepcopy(opt.state_dict())
    saved_weights = [p.torch().clone() for p in params]

    _, resumed = _twins(seed=1)
    for p, w in zip(resumed, saved_weights, strict=True):
        p.torch().copy_(w)
    resumed_opt = cls(resumed, lr=0.5)
    resumed_opt.load_state_dict(checkpoint)
    assert resumed_opt.param_groups[0]["lr"] == kwargs["lr"]
    for step in range(20, 50):
        _give_grads(params, step)
        _give_grads(resumed, step)
        opt.step()
        resumed_opt.step()
        for a, b in zip(params, resumed, strict=True):
            assert torch.equal(a.torch(), b.torch())


def test_state_dict_has_torch_layout():
    _, params = _twins()
    opt = optim.Adam([{"params": params[:2]}, {"params": params[2:], "lr": 0.1}])
    _give_grads(params, 0, skip=3)
    opt.step()
    sd = opt.state_dict()
    assert [g["params"] for g in sd["param_groups"]] == [[0, 1], [2, 3, 4]]
    assert sorted(sd["state"]) == [0, 1, 2, 4]
    assert set(sd["state"][0]) == {"step", "exp_avg", "exp_avg_sq"}
    assert all(isinstance(v, torch.Tensor) for v in sd["state"][0].values())


def test_loaded_state_shares_no_tensors_with_the_state_dict():
    _, params = _twins()
    opt = optim.SGD(params, lr=0.1, momentum=0.9)
    _give_grads(params, 0)
    opt.step()
    sd = opt.state_dict()
    other = optim.SGD(_twins()[1], lr=0.1, momentum=0.9)
    other.load_state_dict(sd)
    assert other.state_dict()["state"][0]["momentum_buffer"] is not sd["state"][0]["momentum_buffer"]


@pytest.mark.parametrize(
    ("torch_cls", "our_cls", "kwargs"),
    [
        (torch.optim.SGD, optim.SGD, dict(lr=0.1, momentum=0.9)),
        (torch.optim.Adam, optim.Adam, dict(lr=0.01, amsgrad=True)),
        (torch.optim.AdamW, optim.AdamW, dict(lr=0.01)),
    ],
    ids=["SGD", "Adam", "AdamW"],
)
def test_state_dicts_move_between_torch_and_minitorch(torch_cls, our_cls, kwargs):
    theirs, ours = _twins()
    torch_opt, our_opt = torch_cls(theirs, **kwargs), our_cls(ours, **kwargs)
    for step in range(10):
        _set_grads(theirs, ours, step)
        torch_opt.step()
        our_opt.step()
    # Swap optimizer states: each side continues from the other's.
    torch_sd, our_sd = copy.deepcopy(torch_opt.state_dict()), copy.deepcopy(our_opt.state_dict())
    our_opt.load_state_dict(torch_sd)
    torch_opt.load_state_dict(our_sd)
    for step in range(10, 30):
        _set_grads(theirs, ours, step)
        torch_opt.step()
        our_opt.step()
        _assert_same(theirs, ours)


def test_load_state_dict_accepts_mt_tensor_buffers():
    _, params = _twins()
    opt = optim.Adam(params, lr=0.01)
    _give_grads(params, 0)
    opt.step()
    sd = opt.state_dict()
    wrapped = {i: {k: mt.Tensor(v.clone()) for k, v in s.items()} for i, s in sd["state"].items()}
    other = optim.Adam(_twins()[1], lr=0.01)
    other.load_state_dict({"state": wrapped, "param_groups": sd["param_groups"]})
    loaded = other.state_dict()["state"][0]
    assert isinstance(loaded["exp_avg"], torch.Tensor)
    assert torch.equal(loaded["exp_avg"], sd["state"][0]["exp_avg"])


def test_load_state_dict_checks_group_sizes():
    _, params = _twins()
    opt = optim.SGD(params, lr=0.1)
    two_groups = optim.SGD([{"params": params[:2]}, {"params": params[2:]}], lr=0.1)
    with pytest.raises(ValueError, match="different number of parameter groups"):
        opt.load_state_dict(two_groups.state_dict())
    smaller = optim.SGD(params[:3], lr=0.1)
    with pytest.raises(ValueError, match="doesn't match the size of optimizer's group"):
        opt.load_state_dict(smaller.state_dict())


# ---------------------------------------------------------------- behaviour
def test_step_records_no_graph_and_updates_data_in_place():
    _, params = _twins()
    before = [p.torch() for p in params]
    opt = optim.Adam(params, lr=0.1)
    _give_grads(params, 0)
    opt.step()
    for p, data in zip(params, before, strict=True):
        assert p.is_leaf and p.grad_fn is None
        assert p.torch() is data


def test_params_without_grad_get_no_state():
    _, params = _twins()
    opt = optim.Adam(params, lr=0.1)
    untouched = params[4].torch().clone()
    _give_grads(params, 0, skip=4)
    opt.step()
    assert params[4] not in opt.state
    assert torch.equal(params[4].torch(), untouched)


def test_zero_grad_sets_to_none_by_default():
    _, params = _twins()
    opt = optim.SGD(params, lr=0.1)
    _give_grads(params, 0)
    opt.zero_grad()
    assert all(p.grad is None for p in params)


def test_zero_grad_without_set_to_none_zeros_in_place():
    _, params = _twins()
    opt = optim.SGD(params, lr=0.1)
    _give_grads(params, 0)
    grads = [p.grad for p in params]
    opt.zero_grad(set_to_none=False)
    for p, g in zip(params, grads, strict=True):
        assert p.grad is g
        assert torch.count_nonzero(g.torch()) == 0


def test_step_closure_runs_with_recording_on_and_returns_loss():
    w = mt.tensor([1.0, -2.0], requires_grad=True)
    opt = optim.SGD([w], lr=0.1)

    def closure():
        opt.zero_grad()
        loss = (w * w).sum()
        loss.backward()
        return loss

    with mt.no_grad():
        loss = opt.step(closure)
    assert loss.item() == 5.0
    torch.testing.assert_close(w.torch(), torch.tensor([0.8, -1.6]))


def test_add_param_group_fills_defaults():
    _, params = _twins()
    opt = optim.Adam(params[:2], lr=0.01, amsgrad=True)
    opt.add_param_group({"params": (p for p in params[2:]), "lr": 0.5})
    group = opt.param_groups[1]
    assert all(a is b for a, b in zip(group["params"], params[2:], strict=True))
    assert group["lr"] == 0.5 and group["amsgrad"] is True and group["betas"] == (0.9, 0.999)


def test_add_param_group_rejects_a_param_already_in_a_group():
    _, params = _twins()
    opt = optim.SGD(params[:2], lr=0.1)
    with pytest.raises(ValueError, match="some parameters appear in more than one parameter group"):
        opt.add_param_group({"params": params[1:3]})


def test_named_params_keep_their_names():
    _, params = _twins()
    opt = optim.SGD([(f"p{i}", p) for i, p in enumerate(params)], lr=0.1)
    assert opt.param_groups[0]["param_names"] == ["p0", "p1", "p2", "p3", "p4"]
    assert opt.state_dict()["param_groups"][0]["param_names"] == ["p0", "p1", "p2", "p3", "p4"]


def test_repr_lists_group_options():
    opt = optim.SGD([mt.zeros(1, requires_grad=True)], lr=0.1)
    assert repr(opt).startswith("SGD (\nParameter Group 0\n    dampening: 0\n")


@pytest.mark.parametrize(
    ("make", "error", "message"),
    [
        (lambda p: optim.SGD(p, lr=-1.0), ValueError, "Invalid learning rate: -1.0"),
        (lambda p: optim.SGD(p, momentum=-0.5), ValueError, "Invalid momentum value: -0.5"),
        (lambda p: optim.SGD(p, weight_decay=-0.1), ValueError, "Invalid weight_decay value: -0.1"),
        (
            lambda p: optim.SGD(p, lr=0.1, nesterov=True),
            ValueError,
            "Nesterov momentum requires a momentum and zero dampening",
        ),
        (
            lambda p: optim.SGD(p, momentum=0.9, dampening=0.1, nesterov=True),
            ValueError,
            "Nesterov momentum requires a momentum and zero dampening",
        ),
        (lambda p: optim.Adam(p, lr=-1.0), ValueError, "Invalid learning rate: -1.0"),
        (lambda p: optim.Adam(p, eps=-1e-08), ValueError, "Invalid epsilon value: -1e-08"),
        (
            lambda p: optim.Adam(p, betas=(1.0, 0.999)),
            ValueError,
            "Invalid beta parameter at index 0: 1.0",
        ),
        (
            lambda p: optim.Adam(p, betas=(0.9, -0.1)),
            ValueError,
            "Invalid beta parameter at index 1: -0.1",
        ),
        (
            lambda p: optim.AdamW(p, weight_decay=-0.1),
            ValueError,
            "Invalid weight_decay value: -0.1",
        ),
        (lambda p: optim.SGD([], lr=0.1), ValueError, "optimizer got an empty parameter list"),
        (lambda p: optim.SGD(p[0], lr=0.1), TypeError, "should be an iterable of Tensors or dicts"),
        (
            lambda p: optim.SGD([1.0], lr=0.1),
            TypeError,
            "optimizer can only optimize Tensors",
        ),
        (lambda p: optim.SGD([p[0] * 2], lr=0.1), ValueError, "can't optimize a non-leaf Tensor"),
        (lambda p: optim.SGD([{"params": {p[0]}}], lr=0.1), TypeError, "Please use a list instead"),
    ],
)
def test_argument_errors_use_torch_wording(make, error, message):
    _, params = _twins()
    with pytest.raises(error) as info:
        make(params)
    assert message in str(info.value)


@pytest.mark.parametrize("name", ["SGD", "Adam", "AdamW"])
def test_a_tensor_learning_rate_steps_as_torchs(name):
    """Issue 13.16: ``Adam(params, lr=torch.tensor(1e-3))`` failed inside ``_foreach_addcdiv_``;
    torch takes a one-element tensor lr."""
    torch.manual_seed(0)
    start = torch.randn(3, 2, dtype=torch.float64)
    ours = mt.nn.Parameter(mt.tensor(start.clone()))
    theirs = torch.nn.Parameter(start.clone())
    opt = getattr(mt.optim, name)([ours], lr=torch.tensor(0.05))
    opt_torch = getattr(torch.optim, name)([theirs], lr=torch.tensor(0.05))
    for _ in range(3):
        (ours * ours).sum().backward()
        (theirs * theirs).sum().backward()
        opt.step()
        opt_torch.step()
        opt.zero_grad()
        opt_torch.zero_grad()
    torch.testing.assert_close(ours.torch(), theirs.detach())


def test_adam_makes_the_first_state_of_its_parameters_in_one_allocation_in_torch_s_order():
    params = [mt.randn(3, 2, requires_grad=True), mt.randn(4, requires_grad=True)]
    theirs = [p.torch().clone().requires_grad_() for p in params]
    ours_opt, torch_opt = mt.optim.Adam(params, lr=0.1), torch.optim.Adam(theirs, lr=0.1)
    for _ in range(2):
        for p, q in zip(params, theirs):
            p.grad, q.grad = mt.ones_like(p), torch.ones_like(q)
        ours_opt.step()
        torch_opt.step()
    states = [ours_opt.state[p] for p in params]
    assert [list(s) for s in states] == [["step", "exp_avg", "exp_avg_sq"]] * 2
    storages = {s[name].untyped_storage().data_ptr() for s in states for name in ("exp_avg", "exp_avg_sq")}
    assert len(storages) == 1
    for p, q in zip(params, theirs):
        torch.testing.assert_close(p.torch(), q.detach())
        torch.testing.assert_close(ours_opt.state[p]["exp_avg_sq"], torch_opt.state[q]["exp_avg_sq"])
