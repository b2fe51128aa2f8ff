"""User-defined Functions, gradcheck, and the recorded rustworkx graph."""

from __future__ import annotations

import threading

import pytest
import rustworkx as rx
import torch

import minitorch_rx as mt


class Cube(mt.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x**3

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad * 3 * x**2


class ScaleBy(mt.autograd.Function):
    @staticmethod
    def forward(ctx, x, factor):
        ctx.factor = factor
        return x * factor

    @staticmethod
    def backward(ctx, grad):
        return grad * ctx.factor, None


def test_user_function_forward_and_backward():
    x = mt.tensor([1.0, 2.0], requires_grad=True)
    y = Cube.apply(x)
    assert y.grad_fn.name() == "CubeBackward"
    y.sum().backward()
    assert x.grad.tolist() == [3.0, 12.0]


def test_user_function_with_non_tensor_argument():
    x = mt.tensor([1.0, 2.0], requires_grad=True)
    ScaleBy.apply(x, 4.0).sum().backward()
    assert x.grad.tolist() == [4.0, 4.0]


def test_needs_input_grad_reports_each_argument():
    seen = []

    class Probe(mt.autograd.Function):
        @staticmethod
        def forward(ctx, a, b, k):
            seen.append(ctx.needs_input_grad)
            return a * b * k

        @staticmethod
        def backward(ctx, grad):
            return grad, None, None

    Probe.apply(mt.ones(2, requires_grad=True), mt.ones(2), 2)
    assert seen == [(True, False, False)]


def test_wrong_number_of_gradients_raises():
    class Bad(mt.autograd.Function):
        @staticmethod
        def forward(ctx, a, b):
            return a + b

        @staticmethod
        def backward(ctx, grad):
            return (grad,)

    a = mt.ones(2, requires_grad=True)
    with pytest.raises(RuntimeError, match=r"returned an incorrect number of gradients \(expected 2, got 1\)"):
        Bad.apply(a, a).sum().backward()


def test_gradcheck_accepts_a_correct_function():
    x = mt.randn(4, dtype=torch.float64, requires_grad=True)
    assert mt.autograd.gradcheck(Cube.apply, (x,))


def test_gradcheck_rejects_a_wrong_gradient():
    class WrongCube(Cube):
        @staticmethod
        def backward(ctx, grad):
            (x,) = ctx.saved_tensors
            return grad * 2 * x**2

    x = mt.randn(3, dtype=torch.float64, requires_grad=True)
    with pytest.raises(mt.autograd.GradcheckError, match="Jacobian mismatch"):
        mt.autograd.gradcheck(WrongCube.apply, (x,))


def test_graph_records_ops_and_leaves():
    x = mt.ones(3, requires_grad=True)
    with mt.Graph() as g:
        y = (x * 2).sum()
    assert g.num_nodes() == 3  # AccumulateGrad, MulBackward0, SumBackward0
    assert g.num_edges() == 2
    labels = sorted(node.label().split("\\n")[0] for node in g.nodes())
    assert labels == ["AccumulateGrad", "MulBackward0", "SumBackward0"]
    assert isinstance(g.rx, rx.PyDiGraph)
    assert not g.has_cycle()
    del y


def test_graph_edges_run_from_inputs_to_outputs():
    x = mt.ones(2, requires_grad=True)
    with mt.Graph() as g:
        y = x.exp()
    node_of = {id(n): i for i in g.rx.node_indices() for n in [g.rx[i]()]}
    assert g.rx.has_edge(node_of[id(y.grad_fn.next_functions[0][0])], node_of[id(y.grad_fn)])


def test_to_dot_is_graphviz_text():
    x = mt.ones(2, requires_grad=True)
    with mt.Graph() as g:
        y = x.exp().sum()
    dot = g.to_dot()
    assert dot.startswith("digraph") and "ExpBackward0" in dot and "->" in dot
    del y


def test_graph_scope_restores_the_outer_graph():
    outer = mt.autograd.current_graph()
    with mt.Graph() as g:
        assert mt.autograd.current_graph() is g
    assert mt.autograd.current_graph() is outer


def test_clear_forgets_recorded_nodes_but_backward_still_works():
    x = mt.ones(2, requires_grad=True)
    with mt.Graph() as g:
        y = (x * 3).sum()
        g.clear()
        assert g.num_nodes() == 0
    y.backward()
    assert x.grad.tolist() == [3.0, 3.0]


def test_backward_across_two_graphs():
    x = mt.ones(2, requires_grad=True)
    with mt.Graph():
        h = x * 2
    with mt.Graph():
        y = (h * 3).sum()
    y.backward()
    assert x.grad.tolist() == [6.0, 6.0]


def test_backward_order_survives_reused_node_indices():
    x = mt.ones(2, requires_grad=True)
    with mt.Graph() as g:
        for _ in range(5):
            (x * 2).exp()  # freed at once: their indices are reused below
        y = x.sin()
        for _ in range(3):
            y = (y * 1.5).exp()
        z = y.sum()
    reference = torch.ones(2, dtype=torch.float32, requires_grad=True)
    r = reference.sin()
    for _ in range(3):
        r = (r * 1.5).exp()
    r.sum().backward()
    z.backward()
    del g
    torch.testing.assert_close(x.grad.torch(), reference.grad)


def test_default_graph_is_per_thread():
    graphs = []
    thread = threading.Thread(target=lambda: graphs.append(mt.autograd.current_graph()))
    thread.start()
    thread.join()
    assert graphs[0] is not mt.autograd.current_graph()


def test_two_threads_get_independent_gradients():
    results = {}

    def train(name, scale):
        w = mt.ones(3, requires_grad=True)
        for _ in range(200):
            (w * scale).sum().backward()
        results[name] = w.grad.tolist()

    threads = [threading.Thread(target=train, args=(n, s)) for n, s in (("a", 1.0), ("b", 2.0))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert results == {"a": [200.0] * 3, "b": [400.0] * 3}
