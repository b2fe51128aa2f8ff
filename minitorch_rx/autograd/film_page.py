"""The page that plays a film (``Film.to_html``): the graph drawn as ``Graph.to_svg`` draws it,
the steps as JSON, and ``film_page.html``'s script, which lights each step's node, labels the
edges it sends gradients along with their norms, strikes out what it released, and moves the
marker of the memory chart. One file, no network.
"""

from __future__ import annotations

import html
import json
import math
from pathlib import Path

from . import drawing
from .memory import format_bytes

TEMPLATE = Path(__file__).with_name("film_page.html")


def _meta(meta) -> str:
    return f"{list(meta.shape)} {meta.dtype}"


def _number(v: float) -> float | None:
    """A float JSON can carry (``JSON.parse`` refuses NaN and Infinity: those become null), to 5 digits."""
    return float(f"{v:.5g}") if math.isfinite(v) else None


def _summary(s) -> dict | None:
    if s is None:
        return None
    return {
        "shape": list(s.shape),
        "dtype": s.dtype,
        "norm": _number(s.norm),
        "min": _number(s.min),
        "max": _number(s.max),
        "heatmap": None if s.heatmap is None else [_number(v) for v in s.heatmap],
    }


def _steps_of_nodes(film) -> tuple[list[int], list[int | None]]:
    """Per node: the step at which the page shows it (its forward step; a leaf's first consumer's;
    0 for a node recorded before the block) and its first backward step (None if it ran none)."""
    first: list[int | None] = [None] * len(film.nodes)
    back: list[int | None] = [None] * len(film.nodes)
    for step in film.steps:
        if step.kind == "forward" and first[step.node_index] is None:
            first[step.node_index] = step.index
        elif step.kind == "backward" and back[step.node_index] is None:
            back[step.node_index] = step.index
    for index, node in enumerate(film.nodes):
        for parent, _ in node.inputs:
            if film.nodes[parent].kind == "leaf" and first[index] is not None:
                known = first[parent]
                first[parent] = first[index] if known is None else min(known, first[index])
    return [0 if f is None else f for f in first], back


def items_and_edges(film) -> tuple[list[drawing.Item], list[tuple[int, int]]]:
    """The drawing's items (one per node of the film) and edges (input -> output)."""
    last_grad: dict[int, tuple | None] = {}
    for step in film.steps:
        if step.kind != "backward":
            continue
        grad = step.leaf_grad if step.leaf is not None else (step.grads_received or (None,))[0]
        last_grad[step.node_index] = None if grad is None or len(step.grads_received) != 1 else grad.values
    items = []
    for index, node in enumerate(film.nodes):
        item = drawing.Item(node.title, node.kind)
        for meta in node.outputs[:2]:
            item.lines.append(_meta(meta))
        if len(node.outputs) > 2:
            item.lines.append(f"+{len(node.outputs) - 2} outputs")
        if node.saved_bytes:
            item.lines.append(f"saved {format_bytes(node.saved_bytes)}")
        item.lines += drawing.value_lines("data", node.values)
        grad = last_grad.get(index)
        if grad is not None and len(grad) <= drawing.SMALL:
            item.grad_lines = drawing.value_lines("grad", grad)
        item.details = [node.name] + ([f"in module {node.module}"] if node.module else [])
        items.append(item)
    edges = sorted({(parent, index) for index, node in enumerate(film.nodes) for parent, _ in node.inputs})
    return items, edges


def _data(film) -> dict:
    first, back = _steps_of_nodes(film)
    nodes = [
        {
            "title": node.title,
            "name": node.name,
            "kind": node.kind,
            "module": node.module,
            "saved": [f"{_meta(meta)} ({format_bytes(nbytes)} storage)" for meta, nbytes in node.saved],
            "saved_bytes": node.saved_bytes,
            "values": None if node.values is None else [_number(v) for v in node.values],
            "first": first[index],
            "back": back[index],
            "released": None if node.released_at is None else min(node.released_at, len(film.steps) - 1),
        }
        for index, node in enumerate(film.nodes)
    ]
    steps = [
        {
            "kind": step.kind,
            "name": step.node,
            "node": step.node_index,
            "inputs": [_meta(m) for m in step.inputs],
            "outputs": [_meta(m) for m in step.outputs],
            "ns": step.duration_ns,
            "saved": step.saved_bytes,
            "held": step.held_bytes,
            "module": step.module,
            "received": [_summary(g) for g in step.grads_received],
            "sent": [{"to": s.to, "nr": s.output_nr, "grad": _summary(s.grad)} for s in step.grads_sent],
            "hooks": list(step.hooks),
            "leaf": step.leaf,
            "leaf_grad": _summary(step.leaf_grad),
        }
        for step in film.steps
    ]
    return {"nodes": nodes, "steps": steps}


def page(film, title: str = "minitorch_rx: watch autograd run") -> str:
    """The page's HTML text."""
    if not film.steps:
        raise RuntimeError("the film has no steps: run ops that record a graph (and backward) inside watch()")
    items, edges = items_and_edges(film)
    svg = drawing.to_svg(items, edges, title)
    data = json.dumps(_data(film), separators=(",", ":")).replace("</", "<\\/")
    text = TEMPLATE.read_text()
    return text.replace("__TITLE__", html.escape(title)).replace("__SVG__", svg).replace("__DATA__", data)


def inline(page_html: str, height: int = 720) -> str:
    """``page_html`` in an ``<iframe>`` (for Jupyter's ``_repr_html_``): its script and styles stay its own."""
    return (
        f'<iframe srcdoc="{html.escape(page_html, quote=True)}" style="width: 100%; height: {height}px; '
        'border: 1px solid #ccc"></iframe>'
    )
