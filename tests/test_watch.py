"""``mt.autograd.watch()``: the film of a training step is what the engine did, and watching
changes nothing: not the order, not a gradient's bits, not what is freed when."""

from __future__ import annotations

import gc
import re
import weakref

import pytest
import torch

import minitorch_rx as mt
from minitorch_rx.nn import functional as F


def lenet_step(model, x, y):
    loss = F.cross_entropy(model(x), y)
    loss.backward()
    return loss


@pytest.fixture
def lenet():
    mt.manual_seed(0)
    return mt.models.get("lenet5"), mt.randn(2, 1, 28, 28), mt.randint(0, 10, (2,))


def test_backward_steps_are_the_nodes_the_engine_ran_in_its_order(lenet):
    model, x, y = lenet
    with mt.Graph() as g, mt.autograd.watch(model) as film, mt.autograd.profile() as prof:
        loss = F.cross_entropy(model(x), y)
        expected = [type(n).__name__ for n in sorted(g.nodes(), key=lambda n: n._seq, reverse=True)]
        loss.backward()
    ran = [step.node for step in film.steps if step.kind == "backward"]
    assert ran == expected
    assert ran == [e.name for e in prof.events if e.kind == "backward"]
    assert [s.node for s in film.steps if s.kind == "forward"][-1] == "CrossEntropyBackward0"
    assert [s.index for s in film.steps] == list(range(len(film.steps)))


def test_each_gradient_sent_is_what_register_hook_sees():
    w = mt.randn(3, 4, requires_grad=True)
    b = mt.randn(4, requires_grad=True)
    x = mt.randn(2, 3)
    seen = {}
    with mt.autograd.watch() as film:
        a = x @ w
        h = a + b
        t = h.tanh()
        loss = (t * t).sum()
        for name, tensor in {"w": w, "b": b, "a": a, "h": h}.items():
            tensor.register_hook(lambda g, name=name: seen.__setitem__(name, g.clone()))
        loss.backward()
    forward = [s for s in film.steps if s.kind == "forward"]
    node_of = {"a": forward[0].node_index, "h": forward[1].node_index}
    node_of["w"], node_of["b"] = (n for n, node in enumerate(film.nodes) if node.kind == "leaf")
    for name, index in node_of.items():
        sent = [s.grad for step in film.steps for s in step.grads_sent if s.to == index]
        assert len(sent) == 1, name
        assert sent[0].values == tuple(seen[name].reshape(-1).double().tolist()), name
        assert sent[0].shape == tuple(seen[name].shape)
        assert sent[0].norm == pytest.approx(float(seen[name].norm()))
    leaf_steps = {s.leaf: s for s in film.steps if s.node == "AccumulateGrad"}
    assert leaf_steps["leaf"].leaf_grad is not None
    # t is used twice by the product: it receives the sum of what MulBackward0 sent along both edges.
    mul = next(s for s in film.steps if s.kind == "backward" and s.node == "MulBackward0")
    assert len(mul.grads_sent) == 2 and {s.to for s in mul.grads_sent} == {forward[2].node_index}
    assert mul.hooks == () and any(s.hooks for s in film.steps if s.node == "AddBackward0")


def test_bytes_held_rise_to_the_graph_s_saved_bytes_and_fall_to_zero(lenet):
    model, x, y = lenet
    with mt.Graph() as g, mt.autograd.watch(model) as film:
        loss = F.cross_entropy(model(x), y)
        after_forward, steps = g.saved_bytes(), len(film.steps)
        loss.backward()
    curve = film.memory_curve()
    assert after_forward > 0 and curve[steps - 1] == after_forward == max(curve)
    assert curve[-1] == 0 and film.steps[-1].held_bytes == 0
    forward, backward = film.steps[:steps], film.steps[steps:]
    assert sum(s.saved_bytes for s in forward) == after_forward == sum(s.saved_bytes for s in backward)
    assert all(s.kind == "forward" for s in forward) and all(s.kind == "backward" for s in backward)


def test_retained_graph_keeps_its_bytes_held(lenet):
    model, x, y = lenet
    with mt.Graph() as g, mt.autograd.watch(model) as film:
        loss = F.cross_entropy(model(x), y)
        loss.backward(retain_graph=True)
        held = g.saved_bytes()
    assert film.memory_curve()[-1] == held > 0


def test_leaf_steps_name_parameters_and_show_their_grad(lenet):
    model, x, y = lenet
    with mt.autograd.watch(model) as film:
        lenet_step(model, x, y)
    leaves = {s.leaf: s for s in film.steps if s.node == "AccumulateGrad"}
    names = {name for name, _ in model.named_parameters()}
    assert set(leaves) == names
    for name, p in model.named_parameters():
        grad = leaves[name].leaf_grad
        assert grad.shape == tuple(p.shape) and grad.norm == pytest.approx(float(p.grad.norm()), rel=1e-6)
    assert all(s.module for s in film.steps if s.kind == "forward" and s.node == "ConvolutionBackward0")
    small = [s for s in film.steps if s.grads_received and s.grads_received[0].values is not None]
    assert small and all(len(s.grads_received[0].values) <= 64 for s in small)


def test_watching_changes_no_gradient_bit_for_bit(lenet):
    model, x, y = lenet
    lenet_step(model, x, y)
    plain = [p.grad.clone() for p in model.parameters()]
    model.zero_grad()
    with mt.autograd.watch(model):
        lenet_step(model, x, y)
    for before, p in zip(plain, model.parameters()):
        assert torch.equal(before._data, p.grad._data)


def test_watching_leaves_no_reference_cycle(lenet):
    model, x, y = lenet
    gc.collect()
    gc.disable()
    try:
        watcher = mt.autograd.watch(model)
        with watcher as film:
            loss = lenet_step(model, x, y)
        refs = [weakref.ref(o) for o in (watcher, film, loss.grad_fn)]
        del watcher, film, loss
        assert [r() for r in refs] == [None, None, None]
        assert "forward" not in model.__dict__
    finally:
        gc.enable()


def test_watch_is_not_reentrant():
    watcher = mt.autograd.watch()
    with watcher, pytest.raises(RuntimeError, match="not reentrant"):
        with watcher:
            pass


def test_small_tensors_keep_their_values_on_the_film_s_nodes():
    x = mt.tensor([1.0, -2.0], requires_grad=True)
    with mt.autograd.watch() as film:
        (x * 3).sum().backward()
    values = {node.name: node.values for node in film.nodes}
    assert values == {"AccumulateGrad": (1.0, -2.0), "MulBackward0": (3.0, -6.0), "SumBackward0": (-3.0,)}


def test_drawings_show_small_tensors_values_and_after_backward_their_gradient():
    x = mt.tensor([1.0, -2.0], requires_grad=True)
    with mt.Graph() as g:
        y = (x * 3).sum()
        before = g.to_svg()
        y.backward(retain_graph=True)
    after = g.to_svg()
    assert "data 1, -2" in before and "data 3, -6" in before and "grad" not in before
    assert '<text class="grad"' in after and "grad 3, 3" in after and "grad 1, 1" in after
    assert "data" not in mt.Graph().to_svg()


def test_film_and_graph_display_in_jupyter():
    x = mt.tensor([1.0, -2.0], requires_grad=True)
    with mt.Graph() as g, mt.autograd.watch() as film:
        (x * 3).sum().backward(retain_graph=True)
    assert g._repr_html_().startswith("<svg")
    assert film._repr_html_().startswith("<iframe srcdoc=") and "&lt;script" in film._repr_html_()
    assert repr(film) == "Film(steps=5, forward=2, backward=3)"


def test_the_cli_writes_the_watch_page(tmp_path, capsys):
    from minitorch_rx.cli.main import main

    out = tmp_path / "step.html"
    assert main(["graph", "--model", "lenet5", "--watch", "--out", str(out)]) == 0
    page = out.read_text()
    assert '<script id="film" type="application/json">' in page and "LinearBackward0" in page
    assert "http://" not in page.replace("http://www.w3.org/2000/svg", "") and "https://" not in page
    assert "36 steps" in capsys.readouterr().out
    assert main(["graph", "--model", "lenet5", "--watch", "--out", str(tmp_path / "step.svg")]) == 2


def test_an_empty_film_has_no_page():
    with mt.autograd.watch() as film:
        pass
    assert film.memory_curve() == []
    with pytest.raises(RuntimeError, match="no steps"):
        film.to_html()


def test_a_drawing_shows_no_values_for_an_output_changed_in_place():
    x = mt.tensor([1.0, -2.0], requires_grad=True)
    with mt.Graph() as g:
        y = x * 3
        z = y * 1
        z.mul_(2)
    lines = [line for line in re.findall(r">([^<]*)</text>", g.to_svg()) if not line.startswith("saved")]
    # y * 1 (3, -6 when it ran) was changed in place: its box shows no values; mul_'s shows its own.
    assert lines == [
        *("leaf", "[2] float32", "data 1, -2"),
        *("MulBackward0", "[2] float32", "data 3, -6"),
        *("MulBackward0", "[2] float32"),
        *("MulBackward0", "[2] float32", "data 6, -12"),
    ]


def test_a_node_that_gets_no_gradient_is_released_all_the_same():
    class Stop(mt.autograd.Function):  # sends its input no gradient
        @staticmethod
        def forward(ctx, x):
            return x * 1

        @staticmethod
        def backward(ctx, grad):
            return None

    x = mt.randn(3, requires_grad=True)
    with mt.Graph() as g, mt.autograd.watch() as film:
        loss = (Stop.apply(x.exp()) * x).sum()
        held = g.saved_bytes()
        loss.backward()
    assert held > 0 and film.memory_curve()[-1] == 0
    assert "ExpBackward0" not in [s.node for s in film.steps if s.kind == "backward"]  # it never ran
    exp = next(n for n in film.nodes if n.name == "ExpBackward0")
    assert exp.released_at is not None
    # Last in backward's order, after the last step: that step gives its bytes back.
    with mt.autograd.watch() as film:
        Stop.apply(x.exp()).sum().backward()
    assert [s.node for s in film.steps if s.kind == "backward"] == ["SumBackward0", "StopBackward"]
    assert film.memory_curve()[-1] == 0 and film.steps[-1].saved_bytes == 12


def test_the_film_holds_no_tensor():
    x = mt.randn(4, requires_grad=True)
    with mt.autograd.watch() as film:
        (x.tanh() * x).sum().backward()

    def walk(value):
        if isinstance(value, torch.Tensor):
            raise AssertionError(f"the film holds a tensor: {value!r}")
        if isinstance(value, (tuple, list)):
            for item in value:
                walk(item)
        elif hasattr(value, "__dataclass_fields__"):
            for name in value.__dataclass_fields__:
                walk(getattr(value, name))

    walk(film.steps)
    walk(film.nodes)
