"""mt.Tensor as a torch.Tensor subclass (issue 34): what the instance shows torch, and what is
never changed behind the caller's back."""

from __future__ import annotations

import copy
import gc
import io
import pickle

import pytest
import torch

import minitorch_rx as mt
import minitorch_rx.nn as nn


def _as_torch_sees(t: torch.Tensor) -> tuple:
    """The instance's own shape, dtype and data pointer, read without ``__torch_function__``."""
    with torch._C.DisableTorchFunctionSubclass():
        return tuple(t.shape), t.dtype, t.data_ptr()


def test_torch_requires_grad_stays_false_and_ours_shadows_it():
    x = mt.ones(2, requires_grad=True)
    y = x * 2.0
    with torch._C.DisableTorchFunctionSubclass():
        assert not torch._C.TensorBase.requires_grad.__get__(x) and torch._C.TensorBase.grad_fn.__get__(y) is None
    assert x.requires_grad and y.grad_fn is not None and not y.is_leaf


@pytest.mark.parametrize("make", ["leaf", "op", "constant_op"])
def test_the_instance_shows_its_data(make):
    x = mt.randn(2, 3, requires_grad=True)
    t = {"leaf": x, "op": x.exp(), "constant_op": (x * 3.0) * 2.0}[make]
    assert _as_torch_sees(t) == (tuple(t._data.shape), t._data.dtype, t._data.data_ptr())
    before = t._version
    with mt.no_grad():
        t.add_(1)
    assert t._version == t._data._version == before + 1


def test_rebinding_the_data_moves_the_instance_too():
    model = nn.Linear(2, 3)
    model.double()
    assert _as_torch_sees(model.weight)[1] == torch.float64
    x = mt.zeros(3)
    x.unsqueeze_(0)
    assert _as_torch_sees(x)[0] == (1, 3)
    x.data = torch.ones(4, dtype=torch.float64)
    assert _as_torch_sees(x) == ((4,), torch.float64, x._data.data_ptr())


def test_ops_that_return_their_input_leave_the_callers_torch_tensor_a_torch_tensor():
    t = torch.randn(3)
    x = mt.from_torch(t)
    for same in (x.contiguous(), x.to(torch.float32), x.view_as(x), x.detach(), mt.as_tensor(t)):
        assert isinstance(same, mt.Tensor)
    assert type(t) is torch.Tensor and type(x._data) is torch.Tensor


def test_constant_op_results_make_their_data_when_first_read():
    x = mt.randn(3, requires_grad=True)
    y = (x * 2.0) * 2.0
    assert "_data" not in vars(y)
    data = y._data
    assert type(data) is torch.Tensor and vars(y)["_data"] is data and data.data_ptr() == _as_torch_sees(y)[2]


def test_a_chain_of_constant_ops_leaves_no_cycle():
    gc.collect()
    gc.disable()
    try:
        x = mt.randn(4, requires_grad=True)
        for _ in range(3):
            y = x
            for _ in range(20):
                y = y * 1.5 + 0.5
            y.sum().backward()
            del y
        assert gc.collect() == 0
    finally:
        gc.enable()


def test_torch_save_loads_with_weights_only_and_mt_load():
    state = {"w": mt.randn(2), "p": nn.Parameter(mt.ones(3))}
    buffer = io.BytesIO()
    torch.save(state, buffer)
    loaded = torch.load(io.BytesIO(buffer.getvalue()), weights_only=True)
    assert type(loaded["w"]) is mt.Tensor and type(loaded["p"]) is nn.Parameter and loaded["p"].requires_grad
    assert torch.equal(loaded["w"].torch(), state["w"].torch())
    again = mt.load(io.BytesIO(buffer.getvalue()))
    assert torch.equal(again["p"].torch(), state["p"].torch())


def test_pickle_and_deepcopy_keep_the_type_and_requires_grad():
    p = nn.Parameter(mt.randn(2))
    for made in (pickle.loads(pickle.dumps(p)), copy.deepcopy(p)):
        assert type(made) is nn.Parameter and made.requires_grad and torch.equal(made.torch(), p.torch())
    x = mt.randn(2, requires_grad=True)
    assert pickle.loads(pickle.dumps(x)).requires_grad


def test_numpy_refuses_a_tensor_that_requires_grad_as_torch():
    with pytest.raises(RuntimeError) as theirs:
        torch.ones(2, requires_grad=True).numpy()
    with pytest.raises(RuntimeError) as ours:
        mt.ones(2, requires_grad=True).numpy()
    assert str(ours.value) == str(theirs.value)
    assert mt.ones(2, requires_grad=True).detach().numpy().tolist() == [1.0, 1.0]


def test_a_torch_function_we_cannot_record_still_raises_for_inputs_that_require_grad():
    with pytest.raises(RuntimeError, match="is not differentiable by minitorch_rx yet"):
        torch.Tensor.to_sparse(mt.ones(2, 2, requires_grad=True))
    assert isinstance(torch.Tensor.to_sparse(mt.ones(2, 2)), mt.Tensor)


def test_a_fresh_gradient_is_the_grad_itself_and_sgd_updates_through_it_without_an_alias():
    w = nn.Parameter(mt.tensor([1.0, -2.0, 3.0]))
    (w * w).sum().backward()
    g = w.grad
    assert type(g) is mt.Tensor and "_data" not in vars(g)
    expected = w._data - 0.1 * 2 * w._data
    opt = mt.optim.SGD([w], lr=0.1, momentum=0.9)
    opt.step()
    assert "_data" not in vars(g)  # the step ran on the instance itself
    assert type(opt.state[w]["momentum_buffer"]) is torch.Tensor
    torch.testing.assert_close(w._data, expected)
    (w * w).sum().backward()  # accumulates into the same .grad, through its (now made) data
    assert w.grad is g and type(g._data) is torch.Tensor and g._data.data_ptr() == _as_torch_sees(g)[2]
    torch.testing.assert_close(g._data, 2 * torch.tensor([1.0, -2.0, 3.0]) + 2 * expected)


def test_a_subclass_of_ours_counts_as_ours_on_the_op_paths():
    class Tagged(mt.Tensor):
        pass

    x = Tagged(torch.ones(2, 3), requires_grad=True)
    assert Tagged in mt.autograd.tensor.OURS and not mt.autograd.tensor.is_torch_data(x)
    out = mt.nn.functional.linear(x, nn.Parameter(mt.ones(4, 3)))
    out.sum().backward()
    assert out.grad_fn is not None and x.grad.tolist() == [[4.0] * 3] * 2
