"""What is freed when, with the cycle collector disabled: reference counting alone must free
every intermediate, node and graph entry (the engine creates no reference cycles)."""

from __future__ import annotations

import gc
import sys
import weakref

import pytest
import torch

import minitorch_rx as mt
from minitorch_rx.autograd.node import Node


@pytest.fixture(autouse=True)
def no_cycle_collector():
    gc.collect()
    gc.disable()
    yield
    gc.enable()


def live_nodes() -> int:
    return sum(issubclass(type(o), Node) for o in gc.get_objects())


def mlp_step(x, w1, w2):
    h = (x @ w1).relu()
    return (h @ w2).log_softmax(1).sum()


def params():
    return mt.randn(8, 16, requires_grad=True), mt.randn(16, 4, requires_grad=True)


def test_backward_frees_saved_tensors_and_nodes():
    w1, w2 = params()
    x = mt.randn(5, 8)
    with mt.Graph() as g:
        loss = mlp_step(x, w1, w2)
    inputs = {id(t.torch()) for t in (x, w1, w2)}
    saved = [
        weakref.ref(t) for node in g.nodes() for t in node._saved if isinstance(t, torch.Tensor) and id(t) not in inputs
    ]
    assert saved and all(r() is not None for r in saved)
    loss.backward()
    assert all(r() is None for r in saved)
    assert g.num_nodes() == 0
    del loss
    assert live_nodes() == 0


def test_dropped_output_frees_its_graph_without_backward():
    w1, w2 = params()
    x = mt.randn(5, 8)
    with mt.Graph() as g:
        loss = mlp_step(x, w1, w2)
        hidden = weakref.ref(loss.grad_fn.next_functions[0][0])
    assert g.num_nodes() > 0
    del loss
    assert hidden() is None
    assert g.num_nodes() == 0
    assert live_nodes() == 0


def test_intermediate_tensor_dies_with_backward():
    x = mt.randn(4, requires_grad=True)
    h = x.exp()
    ref = weakref.ref(h.torch())
    y = (h * 2).sum()
    del h
    assert ref() is not None  # saved by ExpBackward0
    y.backward()
    assert ref() is None


def test_repeated_forward_passes_without_backward_stay_flat():
    w1, w2 = params()
    x = mt.randn(5, 8)
    graph = mt.autograd.current_graph()
    for _ in range(50):
        mlp_step(x, w1, w2)
    assert live_nodes() == 0
    assert graph.num_nodes() == 0


def test_training_steps_leave_only_the_last_graph():
    w1, w2 = params()
    x = mt.randn(5, 8)
    for _ in range(20):
        loss = mlp_step(x, w1, w2)
        loss.backward()
        with mt.no_grad():
            w1 -= 0.01 * w1.grad
            w2 -= 0.01 * w2.grad
        w1.grad = w2.grad = None
    del loss
    assert live_nodes() == 0
    assert mt.autograd.current_graph().num_nodes() == 0


def test_exception_in_the_middle_of_a_forward_leaks_nothing():
    w1, w2 = params()
    before = len(gc.get_objects())
    for _ in range(10):
        with pytest.raises(RuntimeError):
            h = (mt.randn(5, 8) @ w1).relu()
            h @ mt.randn(5, 4)  # shapes do not match
        del h
    assert live_nodes() == 0
    assert len(gc.get_objects()) <= before + 50


def test_backward_through_a_100k_op_chain_at_the_default_recursion_limit():
    assert sys.getrecursionlimit() <= 1000 + 100
    x = mt.ones(2, requires_grad=True)
    y = x
    for _ in range(100_000):
        y = y * 1.0
    y.sum().backward()
    assert x.grad.tolist() == [1.0, 1.0]


def test_dropping_a_100k_op_chain_without_backward():
    x = mt.ones(2, requires_grad=True)
    y = x
    for _ in range(100_000):
        y = y + 1.0
    del y
    assert live_nodes() == 0


def test_inplace_on_a_view_leaves_nothing_behind():
    x = mt.randn(4, 3, requires_grad=True)
    for _ in range(3):
        y = x * 1
        row = y[1]
        row.mul_(2)  # y's history becomes CopySlices; row's, a region of it
        (y.sum() + row.sum()).backward()
    del y, row
    assert live_nodes() == 0
    assert mt.autograd.current_graph().num_nodes() == 0
    torch.testing.assert_close(x.grad.torch(), torch.tensor([[1.0] * 3, [4.0] * 3, [1.0] * 3, [1.0] * 3]) * 3)
    y = x * 1
    y[0].add_(1)
    del y  # dropped without backward
    assert live_nodes() == 0


def test_views_taken_before_an_inplace_op_leave_nothing_behind():
    """The base's weak list of its views (to regenerate their histories) creates no cycle."""
    x = mt.randn(4, 3, requires_grad=True)
    y = x * 1
    views = [y[0:2], y.t()[1], y.view(12)[3:7]]
    y[0].mul_(2)  # every earlier view becomes a region of y's new history
    sum(v.sum() for v in views).backward()
    del y, views
    assert live_nodes() == 0
    assert mt.autograd.current_graph().num_nodes() == 0
    y = x * 1
    early = y[1:]
    y.add_(1)
    del y, early  # dropped without backward
    assert live_nodes() == 0
