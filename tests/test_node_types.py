"""Nodes as PyTorch's: ``type(node)`` prints as ``<class 'TraceBackward0'>``, and nodes have
PyTorch's ``_saved_self``, ``_saved_other`` and ``_saved_result`` where its node of that name has
them (torchviz's ``show_saved`` lists them through ``dir``)."""

from __future__ import annotations

import pytest
import torch

import minitorch_rx as mt


def saved_names(node) -> list[str]:
    return [name for name in dir(node) if name.startswith("_saved_")]


def test_node_types_print_as_pytorch_s():
    m = mt.randn(3, 3, requires_grad=True)
    t = (m @ m.T).trace()
    expected = (m._data.detach().requires_grad_() @ m._data.detach().T).trace()
    assert repr(type(t.grad_fn)) == repr(type(expected.grad_fn)) == "<class 'TraceBackward0'>"
    assert type(t.grad_fn).__qualname__ == "TraceBackward0"


def test_a_custom_function_s_node_keeps_its_module():
    class Cube(mt.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x**3

        @staticmethod
        def backward(ctx, grad):
            return grad

    node = Cube.apply(mt.ones(2, requires_grad=True)).grad_fn
    assert type(node).__module__ == __name__ and type(node).__name__ == "CubeBackward"


def test_saved_self_and_other_are_the_inputs():
    x, y = mt.randn(3, requires_grad=True), mt.randn(3, requires_grad=True)
    z = x * y
    tx, ty = x._data.detach().requires_grad_(), y._data.detach().requires_grad_()
    assert saved_names(z.grad_fn) == saved_names((tx * ty).grad_fn) == ["_saved_other", "_saved_self"]
    assert z.grad_fn._saved_self is x and z.grad_fn._saved_other is y


def test_saved_result_is_the_output_with_its_history():
    x = mt.randn(3, requires_grad=True)
    e = (x * 2).exp()
    assert saved_names(e.grad_fn) == saved_names(x._data.detach().requires_grad_().exp().grad_fn)
    result = e.grad_fn._saved_result
    assert torch.equal(result._data, e._data) and result.grad_fn is e.grad_fn


def test_nodes_without_them_have_none():
    x = mt.randn(3, requires_grad=True)
    s = x.sum()
    assert saved_names(s.grad_fn) == []
    with pytest.raises(AttributeError, match="no attribute '_saved_self'"):
        _ = s.grad_fn._saved_self


def test_saved_tensors_are_gone_after_backward():
    x, y = mt.randn(3, requires_grad=True), mt.randn(3, requires_grad=True)
    z = x * y
    z.sum().backward()
    with pytest.raises(RuntimeError, match="Trying to backward through the graph a second time"):
        _ = z.grad_fn._saved_self
