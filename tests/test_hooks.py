"""Tensor and module hooks (issue 15): what each hook sees and returns, the call order and the
final gradients, value by value against torch's."""

from __future__ import annotations

import gc
import weakref

import pytest
import torch

import minitorch_rx as mt
import minitorch_rx.nn as nn

F64 = torch.float64


def _pair(shape=(3,), seed=0):
    data = torch.randn(*shape, dtype=F64, generator=torch.Generator().manual_seed(seed))
    return mt.tensor(data, requires_grad=True), data.clone().requires_grad_(True)


def test_a_non_leaf_hook_sees_the_summed_gradient_and_may_replace_it():
    seen = {}
    for lib, (x, _) in (("mt", _pair()), ("torch", (None, _pair()[1]))):
        x = x if lib == "mt" else _pair()[1]
        y = x * 2
        y.register_hook(lambda g, lib=lib: seen.setdefault(lib, []).append(g.tolist()))
        y.register_hook(lambda g: g * 10)
        (y * y + y).sum().backward()
        seen[lib + "_grad"] = x.grad.tolist()
    assert seen["mt"] == seen["torch"]
    assert seen["mt_grad"] == pytest.approx(seen["torch_grad"])


def test_a_leaf_hook_runs_before_accumulation_and_its_result_is_accumulated():
    x, x_t = _pair()
    x.register_hook(lambda g: g + 1)
    x_t.register_hook(lambda g: g + 1)
    (x * 3).sum().backward()
    (x_t * 3).sum().backward()
    torch.testing.assert_close(x.grad.torch(), x_t.grad)


def test_retain_grad_stores_what_the_hooks_leave():
    x, x_t = _pair()
    results = []
    for t in (x, x_t):
        y = t.exp()
        y.retain_grad()
        y.register_hook(lambda g: g * 0.5)
        (y * y).sum().backward()
        results.append(y.grad.tolist())
    assert results[0] == pytest.approx(results[1])


def test_a_removed_hook_no_longer_runs():
    x, _ = _pair()
    calls = []
    handle = x.register_hook(lambda g: calls.append(1))
    handle.remove()
    (x * 2).sum().backward()
    assert calls == []


def test_a_hook_returning_another_shape_is_refused():
    x, _ = _pair()
    x.register_hook(lambda g: g.sum())
    with pytest.raises(RuntimeError, match="has changed the size of value"):
        (x * 2).sum().backward()


def test_a_hook_closing_over_tensors_does_not_leak():
    gc.collect()
    gc.disable()
    try:
        x, _ = _pair()
        big = mt.randn(1000)
        y = x * 2
        y.register_hook(lambda g, big=big: g * big.sum())
        ref = weakref.ref(big)
        node = weakref.ref(y.grad_fn)
        del big, y
        assert ref() is None and node() is None
    finally:
        gc.enable()


class _Both:
    """The same two-layer model in both frameworks, with torch's weights."""

    def __init__(self):
        torch.manual_seed(0)
        self.theirs = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.Tanh(), torch.nn.Linear(4, 2)).double()
        self.ours = nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 2)).double()
        self.ours.load_state_dict({k: mt.tensor(v) for k, v in self.theirs.state_dict().items()})


def _record(log, name):
    def hook(*args):
        log.append((name, [None if a is None else [round(v, 9) for v in a.flatten().tolist()] for a in _flat(args)]))

    return hook


def _flat(args):
    for a in args:
        if isinstance(a, (tuple, list)):
            yield from _flat(a)
        elif isinstance(a, (mt.Tensor, torch.Tensor)) or a is None:
            yield a


@pytest.mark.filterwarnings("ignore:Full backward hook is firing")
@pytest.mark.parametrize("input_requires_grad", [True, False])
def test_module_hooks_see_what_torchs_see_in_the_same_order(input_requires_grad):
    both = _Both()
    logs = {}
    for lib, model in (("mt", both.ours), ("torch", both.theirs)):
        log = logs[lib] = []
        layer = model[2]
        layer.register_forward_pre_hook(_record(log, "pre"))
        layer.register_forward_hook(_record(log, "forward"))
        layer.register_full_backward_pre_hook(_record(log, "backward_pre"))
        layer.register_full_backward_hook(_record(log, "backward"))
        model[0].register_full_backward_hook(_record(log, "first_backward"))
        data = torch.linspace(-1, 1, 6, dtype=F64).reshape(2, 3)
        x = (
            mt.tensor(data, requires_grad=input_requires_grad)
            if lib == "mt"
            else data.requires_grad_(input_requires_grad)
        )
        model(x).pow(2).sum().backward()
        logs[lib + "_grads"] = [p.grad.tolist() for p in model.parameters()]
    # drop the modules from the records: only names and values are compared
    assert [name for name, _ in logs["mt"]] == [name for name, _ in logs["torch"]]
    for (_, ours), (_, theirs) in zip(logs["mt"], logs["torch"]):
        assert len(ours) == len(theirs)
        for a, b in zip(ours, theirs):
            assert (a is None) == (b is None)
            if a is not None:
                assert a == pytest.approx(b)
    for ours, theirs in zip(logs["mt_grads"], logs["torch_grads"]):
        torch.testing.assert_close(torch.tensor(ours), torch.tensor(theirs))


def test_module_hook_return_values_replace_inputs_outputs_and_gradients():
    both = _Both()
    grads = []
    for model in (both.ours, both.theirs):
        layer = model[0]
        layer.register_forward_pre_hook(lambda m, args: (args[0] * 2,))
        layer.register_forward_hook(lambda m, args, out: out + 1)
        layer.register_full_backward_pre_hook(lambda m, grad_output: (grad_output[0] * 3,))
        layer.register_full_backward_hook(lambda m, grad_input, grad_output: (grad_input[0] * 5,))
        data = torch.linspace(-1, 1, 6, dtype=F64).reshape(2, 3)
        x = mt.tensor(data, requires_grad=True) if model is both.ours else data.clone().requires_grad_(True)
        model(x).sum().backward()
        grads.append((x.grad.tolist(), [p.grad.tolist() for p in model.parameters()]))
    torch.testing.assert_close(torch.tensor(grads[0][0]), torch.tensor(grads[1][0]))
    for ours, theirs in zip(grads[0][1], grads[1][1]):
        torch.testing.assert_close(torch.tensor(ours), torch.tensor(theirs))


def test_a_backward_hook_returning_the_wrong_number_of_gradients_is_refused():
    layer = nn.Linear(2, 2)
    layer.register_full_backward_hook(lambda m, gi, go: (gi[0], gi[0]))
    with pytest.raises(RuntimeError, match="backward hook returned an invalid number of grads, expected 1, but got 2"):
        layer(mt.ones(1, 2, requires_grad=True)).sum().backward()


def test_a_removed_module_hook_no_longer_runs():
    layer = nn.Linear(2, 2)
    calls = []
    handle = layer.register_forward_hook(lambda *a: calls.append(1))
    layer(mt.ones(1, 2))
    handle.remove()
    layer(mt.ones(1, 2))
    assert calls == [1]
