"""Seeing the graph (issue 17): memory held for backward, the profiler, the drawings."""

from __future__ import annotations

import json
from xml.etree import ElementTree

import pytest
import torch

import minitorch_rx as mt
import minitorch_rx.nn as nn
import minitorch_rx.nn.functional as F
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


# ------------------------------------------------------------------ profiler
def _profiled_step():
    x = mt.randn(4, 3, requires_grad=True)
    w = mt.randn(3, 2, requires_grad=True)
    with mt.autograd.profile() as prof:
        loss = (x @ w).relu().sum()
        loss.backward()
    return prof


def test_profiler_records_forward_ops_and_backward_nodes_in_order():
    prof = _profiled_step()
    names = [(e.name, e.kind) for e in prof.events]
    assert names[:3] == [("MatMul", "forward"), ("ReLU", "forward"), ("Sum", "forward")]
    assert names[3:6] == [("SumBackward0", "backward"), ("ReluBackward0", "backward"), ("MmBackward0", "backward")]
    assert sorted(names[6:]) == [("AccumulateGrad", "backward")] * 2
    matmul = prof.events[0]
    assert matmul.input_shapes == ((4, 3), (3, 2))
    assert matmul.saved_bytes == 4 * 3 * 4 + 3 * 2 * 4  # both operands (float32)
    assert all(e.duration_ns >= 0 for e in prof.events)


def test_profiler_totals_equal_the_sum_of_their_events():
    prof = _profiled_step()
    rows = prof.key_averages()
    assert sum(row.total_ns for row in rows) == prof.total_ns == sum(e.duration_ns for e in prof.events)
    for row in rows:
        events = [e for e in prof.events if e.name == row.name]
        assert row.calls == len(events)
        assert row.total_ns == sum(e.duration_ns for e in events)
        assert row.saved_bytes == sum(e.saved_bytes for e in events)


def test_profiler_table_sorts_and_limits_rows():
    prof = _profiled_step()
    lines = prof.table(sort_by="calls", row_limit=2).splitlines()
    assert lines[3].startswith("AccumulateGrad")  # 2 calls: first
    assert len(lines) == 3 + 2 + 2  # rule, header, rule, 2 rows, rule, total


def test_profiler_table_rejects_an_unknown_sort_key():
    with pytest.raises(ValueError, match="sort_by must be one of"):
        _profiled_step().table(sort_by="flops")


def test_chrome_trace_loads_as_json_with_complete_events(tmp_path):
    prof = _profiled_step()
    path = tmp_path / "trace.json"
    prof.export_chrome_trace(path)
    events = [e for e in json.loads(path.read_text())["traceEvents"] if e["ph"] == "X"]
    assert [e["name"] for e in events] == [e.name for e in prof.events]
    for event in events:
        assert {"name", "cat", "ts", "dur", "pid", "tid"} <= event.keys()
        assert event["ts"] >= 0 and event["dur"] >= 0
    forward_end = max(e["ts"] + e["dur"] for e in events if e["cat"] == "forward")
    assert min(e["ts"] for e in events if e["cat"] == "backward") >= forward_end  # one timeline


def test_profiling_leaves_no_trace_outside_its_block():
    from minitorch_rx.autograd import engine, function
    from minitorch_rx.autograd.grad_mode import state

    record, backward_node = function._record, engine._backward_node
    _profiled_step()
    assert function._record is record and engine._backward_node is backward_node
    assert state.observers == ()
    assert state.recording is mt.autograd.current_graph()


def test_gradients_under_the_profiler_are_the_same():
    x = mt.randn(5, dtype=mt.float64, requires_grad=True)
    (x.tanh() * x).sum().backward()
    expected = x.grad.torch().clone()
    x.grad = None
    with mt.autograd.profile():
        (x.tanh() * x).sum().backward()
    assert torch.equal(x.grad.torch(), expected)


# ------------------------------------------------------------------ drawings
SVG = "{http://www.w3.org/2000/svg}"


def _small_cnn():
    mt.manual_seed(0)
    return nn.Sequential(nn.Conv2d(1, 2, 3), nn.ReLU(), nn.Flatten(), nn.Linear(2 * 4 * 4, 3))


def _drawn_nodes(svg: str) -> list:
    root = ElementTree.fromstring(svg)
    return [g for g in root.iter(SVG + "g") if "node" in g.get("class", "").split()]


def _texts(node) -> list[str]:
    return [t.text for t in node.iter(SVG + "text")]


def test_svg_parses_with_one_shape_per_node_and_every_op_named():
    model = _small_cnn()
    with mt.Graph(module=model) as g:
        loss = F.cross_entropy(model(mt.randn(2, 1, 6, 6)), mt.tensor([0, 2]))
    nodes = _drawn_nodes(g.to_svg())
    assert len(nodes) == g.num_nodes()
    for node in nodes:
        assert len([e for e in node if e.tag in (SVG + "rect", SVG + "ellipse")]) == 1
    titles = sorted(_texts(node)[0] for node in nodes)
    ops = sorted(type(n).__name__ for n in g.nodes() if type(n).__name__ != "AccumulateGrad")
    params = sorted(name for name, _ in model.named_parameters())
    assert titles == sorted(ops + params)  # parameters named by their module path
    linear = next(node for node in nodes if _texts(node)[0] == "LinearBackward0")
    assert _texts(linear)[1] == "[2, 3] float32"
    assert len(list(ElementTree.fromstring(g.to_svg()).iter(SVG + "path"))) >= g.num_edges()
    del loss


def test_svg_layers_put_inputs_above_the_loss():
    model = _small_cnn()
    with mt.Graph(module=model) as g:
        loss = F.cross_entropy(model(mt.randn(2, 1, 6, 6)), mt.tensor([0, 2]))
    tops = {_texts(n)[0]: float(next(iter(n.iter(SVG + "rect"))).get("y")) for n in _drawn_nodes(g.to_svg())}
    assert tops["0.weight"] < tops["ConvolutionBackward0"] < tops["ReluBackward0"] < tops["CrossEntropyBackward0"]
    assert max(tops.values()) == tops["CrossEntropyBackward0"]
    del loss


def test_svg_of_a_plain_graph_names_ops_and_leaves():
    x = mt.randn(3, requires_grad=True)
    with mt.Graph() as g:
        loss = (x.exp() * 2).sum()
    titles = [_texts(n)[0] for n in _drawn_nodes(g.to_svg())]
    assert sorted(titles) == ["ExpBackward0", "MulBackward0", "SumBackward0", "leaf"]
    del loss


def test_svg_of_a_plain_graph_shows_each_ops_output_shape_and_dtype():
    a, b = mt.randn(3, 4, requires_grad=True), mt.randn(4, 2, requires_grad=True)
    with mt.Graph() as g:
        y = (a @ b).relu().sum()
    lines = {_texts(n)[0]: _texts(n)[1:] for n in _drawn_nodes(g.to_svg())}
    assert lines["MmBackward0"][0] == "[3, 2] float32"
    assert lines["ReluBackward0"][0] == "[3, 2] float32"
    assert lines["SumBackward0"][0] == "[] float32"
    del y


def test_outside_a_graph_block_ops_keep_their_hot_path():
    from minitorch_rx.autograd.grad_mode import state

    x = mt.randn(3, requires_grad=True)
    with mt.Graph():
        assert state.recording is None  # the block records shapes: ops take the observed path
    assert state.recording is not None and state.observers == ()
    assert x.exp().grad_fn is not None


def test_svg_with_grads_shows_each_nodes_gradient_norm():
    x = mt.tensor([3.0, 4.0], requires_grad=True)
    with mt.Graph() as g:
        loss = (x * 2).sum()
        loss.backward(retain_graph=True)
    lines = {_texts(n)[0]: _texts(n)[1:] for n in _drawn_nodes(g.to_svg(grads=True))}
    assert "grad norm 1.00e+00" in lines["SumBackward0"]  # d loss / d loss
    assert "grad norm 1.41e+00" in lines["MulBackward0"]  # ones(2)
    assert "grad norm 2.83e+00" in lines["leaf"]  # 2 * ones(2)


def test_svg_with_grads_needs_a_backward_inside_the_block():
    x = mt.randn(2, requires_grad=True)
    with mt.Graph() as g:
        loss = x.sum()
    loss.backward(retain_graph=True)
    with pytest.raises(RuntimeError, match="retain_graph=True"):
        g.to_svg(grads=True)


def test_svg_depth_collapses_modules():
    model = nn.Sequential(_small_cnn(), nn.ReLU())
    with mt.Graph(module=model) as g:
        loss = F.cross_entropy(model(mt.randn(2, 1, 6, 6)), mt.tensor([0, 2]))
    titles = sorted(_texts(n)[0] for n in _drawn_nodes(g.to_svg(depth=1)))
    assert titles == ["0", "1", "CrossEntropyBackward0"]
    del loss


def test_html_is_one_file_with_the_svg_and_no_network():
    x = mt.randn(3, requires_grad=True)
    with mt.Graph() as g:
        loss = x.exp().sum()
    page = g.to_html()
    assert page.startswith("<!doctype html>") and "<svg" in page and "<script>" in page
    assert "http://" not in page.replace('xmlns="http://www.w3.org/2000/svg"', "") and "https://" not in page
    del loss


def test_graph_block_restores_the_modules_and_the_hot_path():
    from minitorch_rx.autograd.grad_mode import state

    model = _small_cnn()
    with mt.Graph(module=model) as g:
        assert state.recording is None  # ops take the observed path
        model(mt.randn(1, 1, 6, 6))
    assert all("forward" not in m.__dict__ for m in model.modules())
    assert state.observers == ()
    with g:
        pass


def test_inspect_graph_example_runs(tmp_path, monkeypatch, capsys):
    import runpy
    import sys
    from pathlib import Path

    example = Path(__file__).resolve().parents[1] / "examples" / "inspect_graph.py"
    monkeypatch.setattr(sys, "argv", [str(example), "--out", str(tmp_path)])
    runpy.run_path(str(example), run_name="__main__")
    printed = capsys.readouterr().out
    assert "AccumulateGrad -> ConvolutionBackward0 -> NativeBatchNormBackward0" in printed
    assert "after the last backward: 0 nodes, 0 bytes kept" in printed
    assert {p.name for p in tmp_path.iterdir()} == {"graph.svg", "graph.html", "trace.json"}


def test_svg_depth_refuses_a_collapse_that_makes_a_cycle():
    first, second = nn.Linear(2, 2), nn.Linear(2, 2)
    model = nn.ModuleList([first, second])
    with mt.Graph(module=model) as g:
        loss = first(second(first(mt.randn(1, 2)))).sum()  # 0, then 1, then 0 again
    with pytest.raises(ValueError, match="makes a cycle"):
        g.to_svg(depth=1)
    assert "LinearBackward0" in g.to_svg()
    del loss
