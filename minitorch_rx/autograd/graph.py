"""The recorded computation as a ``rustworkx.PyDiGraph``.

Ownership (why nothing here keeps a computation alive): an output tensor holds its node,
a node holds the nodes of its inputs, and the graph holds only a weak reference per node.
When a node dies its weak reference's callback removes it from the graph, so dropping an
output frees its whole graph by reference counting alone.
"""

from __future__ import annotations

import weakref

import rustworkx as rx

from . import memory as _memory
from .grad_mode import state
from .saved_tensors import save_on_cpu, saved_tensors_hooks  # torch.autograd.graph's names

__all__ = ["Graph", "current_graph", "save_on_cpu", "saved_tensors_hooks"]


class _NodeRef(weakref.ref):
    """Payload of one graph node: a weak reference that knows where it is stored."""

    __slots__ = ("_rx", "_index")


def _remove_dead_node(ref: _NodeRef) -> None:
    # A module-level function, not a closure: a closure over the graph would be a cycle.
    if ref._rx is not None:
        ref._rx.remove_node(ref._index)


def remove_nodes(nodes: list) -> None:
    """Take live nodes out of their graphs now (after backward has released them), one call
    into rustworkx per graph. Their weak references go with them (rustworkx held the only
    other one), so no callback runs when the nodes die."""
    if not nodes:
        return
    # The common case, every node in one graph, without a dict lookup per node.
    rxgraph = nodes[0]._rx
    members = []
    append = members.append
    for node in nodes:
        if node._rx is not rxgraph or rxgraph is None:
            break
        append(node._index)
        node._ref._rx = None
        node._rx = node._ref = None
    else:
        rxgraph.remove_nodes_from(members)
        return
    indices: dict = {rxgraph: members} if members else {}
    for node in nodes:  # (those already taken have no graph left)
        rxgraph = node._rx
        if rxgraph is not None:
            members = indices.get(rxgraph)
            if members is None:
                members = indices[rxgraph] = []
            members.append(node._index)
            node._ref._rx = None  # in case someone else still holds the reference
            node._rx = node._ref = None
    for rxgraph, members in indices.items():
        rxgraph.remove_nodes_from(members)


class Graph:
    """A recorded computation: nodes are ops (and leaf accumulators), edges run from inputs to outputs.

    ``with mt.Graph() as g:`` records the ops run inside the block into ``g``; outside any such
    block ops record into a per-thread default graph (``mt.autograd.current_graph()``).

    >>> import minitorch_rx as mt
    >>> x = mt.ones(3, requires_grad=True)
    >>> with mt.Graph() as g:
    ...     y = (x * 2).sum()
    >>> g.num_nodes(), g.num_edges()
    (3, 2)

    For its drawings, a ``with`` block also records each op's output shapes and dtypes, and
    the norm of each node's gradient when ``backward(retain_graph=True)`` runs inside the block;
    ``mt.Graph(module=model)`` also names ``model``'s parameters by their path
    (``layer1.0.conv1.weight``) and notes which submodule ran each op, for ``to_svg(depth=N)``.
    Inside a block ops take the engine's general path (as under ``detect_anomaly``): slower.
    Outside any block (the default graph) nothing of this is recorded, nor paid.
    """

    __slots__ = ("_rx", "_outer", "_notes", "_module")

    def __init__(self, module=None) -> None:
        self._rx = rx.PyDiGraph(check_cycle=False, multigraph=True)
        self._outer: list[Graph | None] = []
        self._notes = None
        self._module = module

    @property
    def rx(self) -> rx.PyDiGraph:
        """The ``rustworkx.PyDiGraph`` itself (read-only use); payloads are weak references to nodes."""
        return self._rx

    def num_nodes(self) -> int:
        return self._rx.num_nodes()

    def num_edges(self) -> int:
        return self._rx.num_edges()

    def has_cycle(self) -> bool:
        """Whether the recorded graph has a cycle (it never should: edges follow creation order)."""
        return not rx.is_directed_acyclic_graph(self._rx)

    def nodes(self) -> list:
        """The live nodes, in creation order."""
        nodes = [ref() for ref in self._rx.nodes()]
        return sorted((n for n in nodes if n is not None), key=_creation_order)

    def clear(self) -> None:
        """Forget everything recorded so far. Tensors already computed keep their own history."""
        self._rx = rx.PyDiGraph(check_cycle=False, multigraph=True)
        if self._notes is not None:
            self._notes._rx = self._rx

    def saved_bytes(self) -> int:
        """Bytes of the tensors that the live nodes keep for backward, each storage counted once
        (a view counts its base's storage); 0 once backward has released them."""
        return _memory.saved_bytes(self.nodes())

    def to_dot(self) -> str:
        """Graphviz DOT text: one box per op (with the bytes it saves for backward), one ellipse
        per leaf, edges from inputs to outputs."""
        lines = ["digraph minitorch_rx {", "  rankdir=BT;", '  node [fontname="Helvetica"];']
        for index in self._rx.node_indices():
            node = self._rx[index]()
            if node is None:
                continue
            saved = _memory.node_saved_bytes(node)
            label = node.label() + (f"\\nsaved {_memory.format_bytes(saved)}" if saved else "")
            lines.append(f'  n{index} [label="{label}", shape={node.dot_shape}];')
        for source, target in self._rx.edge_list():
            lines.append(f"  n{source} -> n{target};")
        lines.append("}")
        return "\n".join(lines) + "\n"

    def to_svg(self, grads: bool = False, depth: int | None = None) -> str:
        """A self-contained SVG drawing (no Graphviz needed): inputs at the top, the loss at the
        bottom, one box per node with its op name, output shape and dtype (recorded in a ``with`` block) and the
        bytes it saves for backward; parameters named by module path (``Graph(module=model)``).

        ``grads=True`` colours each node by the norm of its gradient (blue: vanishing, red:
        exploding, relative to the median node); it needs ``backward(retain_graph=True)`` run
        inside the graph's ``with`` block. ``depth=N`` (``Graph(module=model)``) draws each
        module at depth N (``layer1`` at 1, ``layer1.0`` at 2) as one box."""
        from . import drawing

        items, edges = drawing.items_and_edges(self, grads, depth)
        return drawing.to_svg(items, edges)

    def to_html(self, grads: bool = False, depth: int | None = None) -> str:
        """``to_svg`` in one self-contained HTML page: zoom, pan, and each node's details on hover."""
        from . import drawing

        return drawing.to_html(self.to_svg(grads, depth))

    def _repr_html_(self) -> str:
        """Jupyter shows a graph as its drawing."""
        return self.to_svg()

    def __enter__(self) -> Graph:
        if self._notes is None:
            from .drawing import Notes

            self._notes = Notes(self._module)
        self._outer.append(state.graph)
        state.graph = self
        self._notes.start(self._rx)
        return self

    def __exit__(self, *exc: object) -> None:
        if self._notes is not None:
            self._notes.stop()
        state.graph = self._outer.pop()

    def __repr__(self) -> str:
        return f"Graph(num_nodes={self.num_nodes()}, num_edges={self.num_edges()})"


def _creation_order(node) -> int:
    return node._seq


def current_graph() -> Graph:
    """The graph ops record into in this thread: the innermost ``with Graph()`` or the default."""
    graph = state.graph
    if graph is None:
        graph = state.graph = Graph()
    return graph
