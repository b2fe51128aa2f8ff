"""Drawings of a recorded graph that need no external program: a layered layout and its SVG.

Layers come from ``rustworkx.topological_generations`` (inputs at the top, the loss at the
bottom; a leaf sits just above its first consumer), edges that skip layers run through dummy
points, and barycentric sweeps order each layer to reduce crossings (as Sugiyama-style tools
such as Graphviz's ``dot`` do). ``Notes`` is what a ``with Graph()`` block records for its drawing:
output shapes, gradient norms and, with a module, the module that ran each op and parameter names.
"""

from __future__ import annotations

import html
import math
import weakref
from dataclasses import dataclass, field

import rustworkx as rx
import torch

from . import observe
from .memory import format_bytes, saved_storages

# ------------------------------------------------------------------ what a Graph block records
SMALL = 16  # a tensor of up to this many elements shows its values (and gradient) in its node


def small_values(data: torch.Tensor) -> tuple[float, ...] | None:
    """The values of a tensor of up to ``SMALL`` real elements, flattened; None for others."""
    if data.numel() > SMALL or data.is_complex():
        return None
    values = data.tolist()  # (one call: this runs for every small output of a Graph block)
    dims = data.dim()
    if dims == 0:
        return (float(values),)
    for _ in range(dims - 1):
        values = [v for row in values for v in row]
    return tuple(map(float, values))


def value_lines(prefix: str, values: tuple[float, ...] | None, per_line: int = 4) -> list[str]:
    """``["data 1, -2.5, 3, 4", "5"]``: values four to a line, as micrograd's nodes show them."""
    if values is None:
        return []
    text = [f"{v:.4g}" for v in values]
    return [(prefix + " " if i == 0 else "") + ", ".join(text[i : i + per_line]) for i in range(0, len(text), per_line)]


class Notes(observe.Observer):
    """Observer of a ``with Graph()`` block: per node its outputs' shapes and dtypes and, for a
    backward run inside the block, the norm of the gradient that reached it; with a module, the
    module that ran each op and the parameters' names."""

    def __init__(self, module=None) -> None:
        self.module = module
        self.module_of: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
        self.grad_norms: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
        self.values: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # small outputs: (data, version)
        self.grad_values: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # ... and gradients
        self.param_names: dict[int, tuple[str, weakref.ref]] = {}
        self.module_types: dict[str, str] = {}
        self._stack: list[str] = []
        self._wrapped: list = []
        self._rx = None

    def start(self, rxgraph) -> None:
        self._rx = rxgraph
        if self.module is not None:
            for name, param in self.module.named_parameters():
                self.param_names[id(param)] = (name, weakref.ref(param))
            for name, sub in self.module.named_modules():
                self.module_types[name] = type(sub).__name__
                sub.__dict__["forward"] = self._entering(name, sub.forward)
                self._wrapped.append(sub)
        observe.attach(self)

    def stop(self) -> None:
        observe.detach(self)
        for sub in self._wrapped:
            sub.__dict__.pop("forward", None)
        self._wrapped.clear()

    def _entering(self, name: str, forward):
        stack = self._stack

        def forward_in_module(*args, **kwargs):
            stack.append(name)
            try:
                return forward(*args, **kwargs)
            finally:
                stack.pop()

        return forward_in_module

    def on_forward(self, node, args: tuple, result, start_ns: int, end_ns: int) -> None:
        # This runs for every op in the block: the output's (shape, dtype, device) goes where a
        # multi-output node keeps those of its outputs already, on the node (it dies with it).
        if type(result) is not tuple:
            data = result._data
            node._output_meta = ((data.shape, data.dtype, data.device),)
            if data.numel() <= SMALL:  # read when drawn, unless changed in place by then
                self.values[node] = (data, data._version) if data._base is None else (small_values(data), None)
        if self._stack:
            self.module_of[node] = self._stack[-1]

    def on_backward(self, node, grads: tuple, start_ns: int, end_ns: int) -> None:
        # Only a backward that keeps the graph leaves something to draw: the others pay nothing.
        if node._rx is not self._rx or not observe.retaining_graph():
            return
        norm = self.grad_norms.get(node)
        if len(grads) == 1 and grads[0] is not None:
            small = small_values(getattr(grads[0], "_data", grads[0]))
            if small is not None:
                self.grad_values[node] = small
        for g in grads:
            g = getattr(g, "_data", g)  # an mt.Tensor under create_graph
            if g is not None and g.numel():
                g_norm = torch.linalg.vector_norm(g.detach(), dtype=torch.float64)  # read when drawn
                norm = g_norm if norm is None else torch.hypot(norm, g_norm)
        if norm is not None:
            self.grad_norms[node] = norm

    def output_values(self, node) -> tuple[float, ...] | None:
        """The values of ``node``'s output when it has up to ``SMALL`` elements (None once it was
        changed in place)."""
        entry = self.values.get(node)
        if entry is None or entry[1] is None:
            return None if entry is None else entry[0]
        data, version = entry
        return small_values(data) if data._version == version else None

    def name_of(self, tensor) -> str | None:
        entry = self.param_names.get(id(tensor))
        return entry[0] if entry is not None and entry[1]() is tensor else None


# ------------------------------------------------------------------ the items drawn
@dataclass
class Item:
    """One box of the drawing: a node, or a module's nodes collapsed together."""

    title: str
    kind: str  # "op", "leaf" (a tensor that requires grad), "group" (a collapsed module)
    lines: list[str] = field(default_factory=list)
    grad_lines: list[str] = field(default_factory=list)  # drawn last, as class "grad" (the film shows them late)
    details: list[str] = field(default_factory=list)
    saved: int = 0
    storages: dict = field(default_factory=dict)  # what ``saved`` counts: {storage key: bytes}
    norm: float | None = None


def _describe(node, notes: Notes | None) -> tuple[Item, str]:
    """The item of one node and the module path it belongs to ("" when unknown)."""
    name = type(node).__name__
    storages = saved_storages(node)
    saved = sum(storages.values())
    module = ""
    data_values = grad_values = None
    if hasattr(node, "variable"):  # a leaf's accumulator
        t = node._variable()
        param = None if (t is None or notes is None) else notes.name_of(t)
        metas = [] if t is None else [(t._data.shape, t._data.dtype)]
        item = Item(param or "leaf", "leaf")
        if param is not None:
            module = param.rpartition(".")[0]
        item.details.append(f"AccumulateGrad of {param or 'a leaf tensor'}")
        if t is not None:
            data_values = small_values(t._data)
            grad_values = None if t._grad is None else small_values(t._grad._data)
    else:
        metas = [(shape, dtype) for shape, dtype, _ in node._output_meta if dtype]
        module = notes.module_of.get(node, "") if notes is not None else ""
        item = Item(name, "op")
        if module:
            item.details.append(f"in module {module}")
        if notes is not None:
            data_values, grad_values = notes.output_values(node), notes.grad_values.get(node)
    for shape, dtype in metas[:2]:
        item.lines.append(f"{list(shape)} {str(dtype).removeprefix('torch.')}")
    if len(metas) > 2:
        item.lines.append(f"+{len(metas) - 2} outputs")
    if saved:
        item.lines.append(f"saved {format_bytes(saved)}")
    item.lines += value_lines("data", data_values)
    item.grad_lines = value_lines("grad", grad_values)
    item.saved, item.storages = saved, storages
    if notes is not None and node in notes.grad_norms:
        item.norm = float(notes.grad_norms[node])
    return item, module


def items_and_edges(graph, grads: bool = False, depth: int | None = None) -> tuple[list[Item], list[tuple[int, int]]]:
    """What ``graph`` draws: one item per live node (or per module at ``depth``), edges input -> output."""
    notes = graph._notes
    if grads and (notes is None or not len(notes.grad_norms)):
        raise RuntimeError(
            "to_svg(grads=True) needs gradient norms: run `loss.backward(retain_graph=True)` inside the "
            "`with mt.Graph() as g:` block that recorded the graph"
        )
    if depth is not None and (notes is None or notes.module is None):
        raise RuntimeError("to_svg(depth=N) collapses modules: record with `with mt.Graph(module=model) as g:`")
    rxgraph = graph.rx
    nodes = graph.nodes()
    position = {node._index: i for i, node in enumerate(nodes)}
    described = [_describe(node, notes) for node in nodes]
    edges = [(position[s], position[t]) for s, t in rxgraph.edge_list() if s in position and t in position]
    if depth is None:
        items = [item for item, _ in described]
        if not grads:
            for item in items:
                item.norm = None
        else:
            for item in items:
                if item.norm is not None:
                    item.lines.append(f"grad norm {item.norm:.2e}")
        return items, sorted(set(edges))
    return _collapse(described, edges, depth, notes)


def _collapse(described, edges, depth: int, notes: Notes):
    if depth < 1:
        raise ValueError(f"depth must be at least 1, got {depth}")
    group_of: list[int] = []
    items: list[Item] = []
    groups: dict[str, int] = {}
    for item, module in described:
        key = ".".join(module.split(".")[:depth]) if module else ""
        if not key:
            item.norm = None
            group_of.append(len(items))
            items.append(item)
            continue
        if key not in groups:
            groups[key] = len(items)
            items.append(Item(key, "group", details=[f"module {key} ({notes.module_types.get(key, '?')})"]))
        group = items[groups[key]]
        group.storages.update(item.storages)
        group.details.append(item.title if item.kind != "op" else f"{item.title} {' '.join(item.lines[:1])}")
        group_of.append(groups[key])
    for key, index in groups.items():
        group = items[index]
        ops = len(group.details) - 1
        group.saved = sum(group.storages.values())
        group.lines = [notes.module_types.get(key, "module"), f"{ops} nodes"]
        if group.saved:
            group.lines.append(f"saved {format_bytes(group.saved)}")
    collapsed = sorted({(group_of[s], group_of[t]) for s, t in edges if group_of[s] != group_of[t]})
    check = rx.PyDiGraph()
    check.add_nodes_from(range(len(items)))
    check.add_edges_from_no_data(collapsed)
    if not rx.is_directed_acyclic_graph(check):
        raise ValueError(
            f"collapsing modules at depth {depth} makes a cycle (a module runs, then another, then the first "
            "again): draw with a larger depth or without one"
        )
    return items, collapsed


# ------------------------------------------------------------------ layout
@dataclass
class Layout:
    x: list[float]  # centre of each item
    y: list[float]  # top of each item
    width: list[float]
    height: list[float]
    routes: dict[tuple[int, int], list[tuple[float, float]]]  # edge -> its bend points
    size: tuple[float, float]


FONT = 11
LINE = 14
PAD_X, PAD_Y = 10, 6
GAP_X, GAP_Y = 18, 34


def _text_width(text: str, bold: bool = False) -> float:
    return len(text) * FONT * (0.62 if bold else 0.58)


def layout(items: list[Item], edges: list[tuple[int, int]], sweeps: int = 12) -> Layout:
    """Layered positions: layers from topological generations, leaves moved down to just above
    their first consumer, dummy points on long edges, barycentric sweeps to order each layer."""
    n = len(items)
    dag = rx.PyDiGraph()
    dag.add_nodes_from(range(n))
    dag.add_edges_from_no_data(edges)
    layer = [0] * n
    for depth, generation in enumerate(rx.topological_generations(dag)):
        for v in generation:
            layer[v] = depth
    for v in range(n):  # a source (a leaf) goes right above its first consumer
        if dag.in_degree(v) == 0 and dag.out_degree(v):
            layer[v] = min(layer[c] for c in dag.successor_indices(v)) - 1
    # Dummy points: an edge over k layers becomes a chain through k - 1 of them.
    width = [
        max([_text_width(it.title, True)] + [_text_width(t) for t in it.lines + it.grad_lines]) + 2 * PAD_X
        for it in items
    ]
    height = [(1 + len(it.lines) + len(it.grad_lines)) * LINE + 2 * PAD_Y for it in items]
    chains: dict[tuple[int, int], list[int]] = {}
    up: dict[int, list[int]] = {v: [] for v in range(n)}
    down: dict[int, list[int]] = {v: [] for v in range(n)}
    for s, t in edges:
        chain = [s]
        for level in range(layer[s] + 1, layer[t]):
            dummy = len(layer)
            layer.append(level)
            width.append(4.0)
            height.append(0.0)
            up[dummy], down[dummy] = [], []
            chain.append(dummy)
        chain.append(t)
        for a, b in zip(chain, chain[1:]):
            down[a].append(b)
            up[b].append(a)
        chains[(s, t)] = chain[1:-1]
    levels: list[list[int]] = [[] for _ in range(max(layer) + 1)] if layer else []
    for v in sorted(range(len(layer)), key=lambda v: (layer[v], v)):
        levels[layer[v]].append(v)
    levels = _order(levels, up, down, sweeps)
    light = {v for v in range(n) if items[v].kind == "leaf"}
    x = _coordinates(levels, up, down, width, light)
    # y: the top of each layer, each layer as tall as its tallest item.
    y = [0.0] * len(layer)
    top = GAP_Y
    for level in levels:
        tallest = max([height[v] for v in level] + [LINE])
        for v in level:
            y[v] = top + (tallest - height[v]) / 2
        top += tallest + GAP_Y
    left = min((x[v] - width[v] / 2 for v in range(len(layer))), default=0.0) - GAP_X
    x = [value - left for value in x]
    right = max((x[v] + width[v] / 2 for v in range(len(layer))), default=0.0) + GAP_X
    routes = {edge: [(x[d], y[d]) for d in chain] for edge, chain in chains.items()}
    return Layout(x[:n], y[:n], width[:n], height[:n], routes, (right, top))


def _crossings(levels: list[list[int]], down: dict[int, list[int]]) -> int:
    total = 0
    for upper, lower in zip(levels, levels[1:]):
        rank = {v: i for i, v in enumerate(lower)}
        pairs = sorted((i, rank[c]) for i, v in enumerate(upper) for c in down[v] if c in rank)
        for a in range(len(pairs)):  # pairs whose ends are in opposite orders cross
            for b in range(a + 1, len(pairs)):
                if pairs[a][0] < pairs[b][0] and pairs[a][1] > pairs[b][1]:
                    total += 1
    return total


def _order(levels, up, down, sweeps: int):
    """Sort each layer by the mean rank of its neighbours in the layer above (downward sweeps)
    or below (upward), alternately; keep the order with the fewest crossings."""
    best, best_crossings = [list(level) for level in levels], _crossings(levels, down)
    for sweep in range(sweeps):
        downward = sweep % 2 == 0
        sequence = range(1, len(levels)) if downward else range(len(levels) - 2, -1, -1)
        for i in sequence:
            reference = levels[i - 1] if downward else levels[i + 1]
            levels[i] = _by_barycentre(levels[i], reference, up if downward else down)
        crossings = _crossings(levels, down)
        if crossings < best_crossings:
            best, best_crossings = [list(level) for level in levels], crossings
    return best


def _by_barycentre(level: list[int], reference: list[int], neighbours: dict[int, list[int]]) -> list[int]:
    rank = {v: r for r, v in enumerate(reference)}
    scale = len(reference) / max(len(level), 1)
    keys = {}
    for position, v in enumerate(level):
        linked = [rank[u] for u in neighbours[v] if u in rank]
        keys[v] = sum(linked) / len(linked) if linked else position * scale  # unlinked: stay
    return sorted(level, key=keys.__getitem__)


def _coordinates(levels, up, down, width, light: set) -> list[float]:
    """x of each centre: packed per layer, then pulled towards the weighted mean of its
    neighbours a few times, keeping each layer's order and spacing. Leaves (``light``) pull
    their consumers weakly, so the chain of ops runs straight and the parameters sit beside it."""
    x = [0.0] * len(width)
    for level in levels:
        _place(level, [0.0] * len(level), width, x, light)
    for sweep in range(10):
        sequence = levels if sweep % 2 == 0 else levels[::-1]
        for level in sequence:
            wanted = []
            for v in level:
                weights = [(u, 0.05 if u in light and v not in light else 1.0) for u in up[v] + down[v]]
                total = sum(w for _, w in weights)
                wanted.append(sum(x[u] * w for u, w in weights) / total if weights else x[v])
            _place(level, wanted, width, x, light)
    return x


def _place(level: list[int], wanted: list[float], width: list[float], x: list[float], light: set) -> None:
    """Put ``level`` as near ``wanted`` as its order and spacing allow: least squares (leaves
    weigh little) under the order constraints, by pooling adjacent violators."""
    offsets = [0.0]
    for previous, v in zip(level, level[1:]):
        offsets.append(offsets[-1] + (width[previous] + width[v]) / 2 + GAP_X)
    blocks: list[list[float]] = []  # [weighted sum, weight, count]
    for i, v in enumerate(level):
        weight = 0.1 if v in light else 1.0
        blocks.append([weight * (wanted[i] - offsets[i]), weight, 1])
        while len(blocks) > 1 and blocks[-2][0] / blocks[-2][1] > blocks[-1][0] / blocks[-1][1]:
            total, weight, count = blocks.pop()
            blocks[-1][0] += total
            blocks[-1][1] += weight
            blocks[-1][2] += count
    i = 0
    for total, weight, count in blocks:
        for _ in range(count):
            x[level[i]] = total / weight + offsets[i]
            i += 1


# ------------------------------------------------------------------ SVG
FILLS = {"op": "#dbe8f7", "leaf": "#d6efd0", "group": "#efe3f7"}
STROKES = {"op": "#5b7fa6", "leaf": "#5a9a4f", "group": "#8a62a8"}
DECADES = 3  # grads=True: colour saturates this many decades from the median norm


def _grad_colour(norm: float | None, median_log: float) -> str | None:
    """White at the median norm, blue towards vanishing, red towards exploding; grey for zero."""
    if norm is None:
        return None
    if norm == 0 or not math.isfinite(norm):
        return "#9a9a9a" if norm == 0 else "#7a0010"
    t = max(-1.0, min(1.0, (math.log10(norm) - median_log) / DECADES))
    if t < 0:
        r, g, b = (int(255 + (c - 255) * -t) for c in (40, 90, 200))
    else:
        r, g, b = (int(255 + (c - 255) * t) for c in (210, 40, 40))
    return f"#{r:02x}{g:02x}{b:02x}"


def to_svg(items: list[Item], edges: list[tuple[int, int]], title: str = "minitorch_rx graph") -> str:
    """The SVG document of ``items`` laid out by ``layout``: one ``g.node`` (one shape, its text
    and a ``<title>`` tooltip) per item, one ``path.edge`` per edge."""
    lay = layout(items, edges)
    norms = [math.log10(it.norm) for it in items if it.norm]
    median_log = sorted(norms)[len(norms) // 2] if norms else 0.0
    legend = any(it.norm is not None for it in items)
    offset = 70 if legend else 0
    width, height = lay.size[0], lay.size[1] + offset
    width = max(width, 360 if legend else 0)
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width:.0f}" height="{height:.0f}" '
        f'viewBox="0 0 {width:.0f} {height:.0f}" font-family="Helvetica, Arial, sans-serif" font-size="{FONT}">',
        f"<title>{html.escape(title)}</title>",
        '<defs><marker id="arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="8" markerHeight="8" '
        'markerUnits="userSpaceOnUse" orient="auto-start-reverse">'
        '<path d="M 0 0 L 10 5 L 0 10 z" fill="#666"/></marker></defs>',
        '<rect class="background" width="100%" height="100%" fill="white"/>',
        f'<g id="viewport" transform="translate(0,{offset})">',
    ]
    ends = _arrival_points(edges, lay)
    for s, t in edges:
        points = [(lay.x[s], lay.y[s] + lay.height[s]), *lay.routes.get((s, t), []), ends[(s, t)]]
        d = f"M {points[0][0]:.1f} {points[0][1]:.1f}"
        for (x0, y0), (x1, y1) in zip(points, points[1:]):
            middle = (y0 + y1) / 2
            d += f" C {x0:.1f} {middle:.1f} {x1:.1f} {middle:.1f} {x1:.1f} {y1:.1f}"
        out.append(
            f'<path class="edge" id="edge{s}-{t}" d="{d}" fill="none" stroke="#777" stroke-width="1.1" '
            'marker-end="url(#arrow)"/>'
        )
    for i, item in enumerate(items):
        out.append(_node_svg(i, item, lay, median_log))
    out.append("</g>")
    if legend:
        out.append(_legend_svg(median_log))
    out.append("</svg>")
    return "\n".join(out) + "\n"


def _arrival_points(edges, lay: Layout) -> dict[tuple[int, int], tuple[float, float]]:
    """Where each edge meets its target's top: spread over the middle of the box, in the order
    of where the edges come from, so that several inputs stay apart."""
    arriving: dict[int, list[tuple[float, tuple[int, int]]]] = {}
    for s, t in edges:
        route = lay.routes.get((s, t))
        origin = route[-1][0] if route else lay.x[s]
        arriving.setdefault(t, []).append((origin, (s, t)))
    ends = {}
    for t, incoming in arriving.items():
        incoming.sort()
        span = min(lay.width[t] * 0.6, 24.0 * (len(incoming) - 1))
        for k, (_, edge) in enumerate(incoming):
            offset = 0.0 if len(incoming) == 1 else span * (k / (len(incoming) - 1) - 0.5)
            ends[edge] = (lay.x[t] + offset, lay.y[t])
    return ends


def _node_svg(i: int, item: Item, lay: Layout, median_log: float) -> str:
    x, y, w, h = lay.x[i] - lay.width[i] / 2, lay.y[i], lay.width[i], lay.height[i]
    fill = _grad_colour(item.norm, median_log) or FILLS[item.kind]
    radius = h / 2 if item.kind == "leaf" else 5
    details = "\n".join([item.title, *item.lines, *item.grad_lines, *item.details])
    parts = [
        f'<g class="node {item.kind}" id="node{i}" data-details="{html.escape(details)}">',
        f"<title>{html.escape(details)}</title>",
        f'<rect x="{x:.1f}" y="{y:.1f}" width="{w:.1f}" height="{h:.1f}" rx="{radius:.1f}" '
        f'fill="{fill}" stroke="{STROKES[item.kind]}" stroke-width="1.2"/>',
    ]
    baseline = y + PAD_Y + LINE - 3
    title = html.escape(item.title)
    parts.append(f'<text x="{lay.x[i]:.1f}" y="{baseline:.1f}" text-anchor="middle" font-weight="bold">{title}</text>')
    for line in item.lines:
        baseline += LINE
        kind = ' class="saved"' if line.startswith("saved ") else ""
        parts.append(
            f'<text{kind} x="{lay.x[i]:.1f}" y="{baseline:.1f}" text-anchor="middle" fill="#333">'
            f"{html.escape(line)}</text>"
        )
    for line in item.grad_lines:
        baseline += LINE
        parts.append(
            f'<text class="grad" x="{lay.x[i]:.1f}" y="{baseline:.1f}" text-anchor="middle" fill="#a33">'
            f"{html.escape(line)}</text>"
        )
    parts.append("</g>")
    return "".join(parts)


def _legend_svg(median_log: float) -> str:
    colours = [_grad_colour(10 ** (median_log + DECADES * (k / 4 - 1)), median_log) for k in range(9)]
    stops = "".join(f'<stop offset="{k / 8:.3f}" stop-color="{colour}"/>' for k, colour in enumerate(colours))
    return (
        '<g class="legend">'
        f'<defs><linearGradient id="gradnorm">{stops}</linearGradient></defs>'
        '<text x="16" y="20" font-weight="bold">gradient norm (relative to the median node)</text>'
        '<rect class="legend" x="16" y="28" width="320" height="14" fill="url(#gradnorm)" stroke="#999"/>'
        f'<text x="16" y="56">1e-{DECADES}x: vanishing</text>'
        '<text x="176" y="56" text-anchor="middle">median</text>'
        f'<text x="336" y="56" text-anchor="end">1e{DECADES}x: exploding</text>'
        "</g>"
    )


HTML_TEMPLATE = """<!doctype html>
<html><head><meta charset="utf-8"><title>{title}</title>
<style>
body {{ margin: 0; font-family: Helvetica, Arial, sans-serif; }}
#view {{ position: fixed; inset: 0; overflow: hidden; cursor: grab; }}
#info {{ position: fixed; top: 8px; right: 8px; max-width: 420px; max-height: 80vh; overflow: auto;
  background: #fffbe8; border: 1px solid #bbb; padding: 8px; font-size: 12px; white-space: pre-wrap; }}
.node:hover rect {{ stroke-width: 3; }}
</style></head>
<body><div id="view">{svg}</div>
<div id="info">{title}: hover a node for details; scroll to zoom, drag to pan, double-click to fit.</div>
<script>
const svg = document.querySelector("#view svg"), vp = document.getElementById("viewport");
const info = document.getElementById("info");
const drawing = {{ width: svg.viewBox.baseVal.width, height: svg.viewBox.baseVal.height }};
let scale = 1, tx = 0, ty = 0, drag = null;
const base = vp.getAttribute("transform") || "";
svg.setAttribute("width", "100%"); svg.setAttribute("height", "100%");
svg.removeAttribute("viewBox");
function apply() {{ vp.setAttribute("transform", `translate(${{tx}},${{ty}}) scale(${{scale}}) ${{base}}`); }}
function fit() {{  // the whole drawing in the window, centred, never enlarged past 1.5x
  const margin = 12, w = window.innerWidth - 2 * margin, h = window.innerHeight - 2 * margin;
  scale = Math.min(w / drawing.width, h / drawing.height, 1.5);
  tx = margin + (w - drawing.width * scale) / 2; ty = margin + (h - drawing.height * scale) / 2;
  apply();
}}
svg.addEventListener("wheel", e => {{
  e.preventDefault();
  const k = Math.exp(-e.deltaY * 0.0015);
  tx = e.clientX - (e.clientX - tx) * k; ty = e.clientY - (e.clientY - ty) * k; scale *= k; apply();
}}, {{ passive: false }});
svg.addEventListener("mousedown", e => {{ drag = [e.clientX - tx, e.clientY - ty]; }});
svg.addEventListener("dblclick", fit);
window.addEventListener("mousemove", e => {{
  if (drag) {{ tx = e.clientX - drag[0]; ty = e.clientY - drag[1]; apply(); }}
}});
window.addEventListener("mouseup", () => {{ drag = null; }});
document.querySelectorAll(".node").forEach(n => n.addEventListener("mouseenter", () => {{
  info.textContent = n.dataset.details;
}}));
fit();
</script></body></html>
"""


def to_html(svg: str, title: str = "minitorch_rx graph") -> str:
    """One self-contained HTML file (no network): the SVG fitted to the window when it opens, with
    zoom (wheel), pan (drag), fit again (double-click) and each node's details on hover."""
    return HTML_TEMPLATE.format(title=html.escape(title), svg=svg)
