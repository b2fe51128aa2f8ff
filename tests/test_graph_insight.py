"""Seeing the graph (issue 17): memory held for backward, the profiler, the drawings."""

from __future__ import annotations

import torch

import minitorch_rx as mt
from minitorch_rx.autograd.memory import node_saved_bytes


def _node(graph: mt.Graph, name: str):
    (node,) = [n for n in graph.nodes() if type(n).__name__ == name]
    return node


# ------------------------------------------------------------------ saved bytes
def test_exp_saves_its_output():
    x = mt.randn(10, requires_grad=True)  # float32: 40 bytes
    with mt.Graph() as g:
        y = x.exp()
    assert node_saved_bytes(_node(g, "ExpBackward0")) == 40
    assert g.saved_bytes() == 40
    del y


def test_a_storage_saved_by_two_nodes_counts_once():
    x = mt.randn(10, dtype=mt.float64, requires_grad=True)  # 80 bytes
    with mt.Graph() as g:
        y = x.exp()  # saves y
        z = y.sin()  # saves its input: y again
    assert node_saved_bytes(_node(g, "ExpBackward0")) == 80
    assert node_saved_bytes(_node(g, "SinBackward0")) == 80
    assert g.saved_bytes() == 80
    del z


def test_a_tensor_saved_twice_by_one_node_counts_once():
    x = mt.randn(10, requires_grad=True)
    with mt.Graph() as g:
        z = x * x  # saves x for both operands
    assert node_saved_bytes(_node(g, "MulBackward0")) == 40
    assert g.saved_bytes() == 40
    del z


def test_a_saved_view_counts_its_base_storage():
    base = torch.zeros(4, 5)  # 80 bytes
    w = mt.from_torch(base[:, :2])  # a 4x2 view: 32 bytes of elements, 80 of storage
    p = mt.randn(4, 2, requires_grad=True)
    with mt.Graph() as g:
        z = p * w  # saves w only (p's gradient needs w; w needs none)
    assert g.saved_bytes() == 80
    del z


def test_saved_bytes_are_zero_after_backward_and_kept_with_retain_graph():
    x = mt.randn(10, requires_grad=True)
    with mt.Graph() as g:
        loss = x.exp().sum()
    loss.backward(retain_graph=True)
    assert g.saved_bytes() == 40
    loss.backward()
    assert g.saved_bytes() == 0


def test_dot_labels_show_saved_bytes():
    x = mt.randn(10, requires_grad=True)
    with mt.Graph() as g:
        loss = x.exp().sum()
    assert 'label="ExpBackward0\\nsaved 40 B"' in g.to_dot()
    del loss
