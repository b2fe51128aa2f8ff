"""Backward: gradients flow over the recorded graph in reverse topological order.

The order comes from the graph: ``rustworkx.ancestors`` of each root, sorted by the nodes'
creation sequence (inputs always exist before the ops that use them, and rustworkx reuses
freed indices, so the index is not an order). The loop is iterative, so depth is unlimited.
Without ``retain_graph`` each node is released as soon as it has run: its saved tensors and
its links to its inputs go, and with them every intermediate nobody else holds.
"""

from __future__ import annotations

import operator
import sys
import threading
from collections.abc import Sequence

import rustworkx as rx
import torch

from . import graph as _graph
from .function import PASSES_GRADIENT, Function
from .grad_mode import state
from .graph import _NodeRef
from .hooks import call_hooks, run_output_hooks
from .node import SECOND_BACKWARD_MESSAGE, AccumulateGrad, Node, accumulator
from .tensor import OURS, Tensor, detach_torch, is_torch_data

# References to a gradient inside _accumulate (or _sum) when nobody else holds it: the engine's
# local (or buffer slot), the argument, and getrefcount's own argument. More means it is shared.
_UNSHARED_REFCOUNT = 3


def _storage_use_count(t: torch.Tensor) -> int:
    return torch._C._storage_Use_Count(t.untyped_storage()._cdata)


# The use count of a storage that one tensor alone uses (the Python storage object asked counts).
_UNSHARED_STORAGE = _storage_use_count(torch.empty(1))


def _sum(buffer: torch.Tensor, g: torch.Tensor) -> torch.Tensor:
    """``buffer + g`` for a gradient buffer (called as ``_sum(slot, g)``): added in place, as
    PyTorch's InputBuffer does, when nothing else can see ``buffer``: no other reference, no view
    sharing its memory, dense, and of ``g``'s shape and dtype. No fresh tensor per fan-out
    (ResNet-20: 8 MB at most; peak RSS 305 -> 294 MiB in one run each, step time unchanged)."""
    if (
        sys.getrefcount(buffer) == _UNSHARED_REFCOUNT
        and buffer._base is None
        and buffer.is_contiguous()
        and buffer.shape == g.shape
        and buffer.dtype == g.dtype
        and _storage_use_count(buffer) == _UNSHARED_STORAGE
    ):
        return buffer.add_(g)
    return buffer + g


def backward(
    tensors: Sequence[Tensor],
    grad_tensors: Sequence[Tensor | torch.Tensor | None] | None = None,
    retain_graph: bool | None = None,
    create_graph: bool = False,
    grad_variables: Sequence[Tensor | torch.Tensor | None] | None = None,
    inputs: Tensor | Sequence[Tensor] | None = None,
) -> None:
    """Accumulate the gradients of ``tensors`` into the leaves' ``.grad`` (``torch.autograd.backward``,
    which given our tensors runs this): into every leaf's, or only into those of ``inputs`` when given.
    ``grad_variables`` is ``grad_tensors``' deprecated name, as in torch."""
    if grad_variables is not None:
        if grad_tensors is not None:
            raise RuntimeError(
                "'grad_tensors' and 'grad_variables' (deprecated) arguments both passed to `backward()`. "
                "Please only use `grad_tensors`."
            )
        grad_tensors = grad_variables
    if retain_graph is None:
        retain_graph = create_graph
    tensors, grad_tensors = _tensor_list(tensors, "tensors"), _gradient_list(grad_tensors, "grad_tensors")
    roots, grads = _roots_and_grads(tensors, grad_tensors, create_graph)
    if inputs is None:
        run(roots, grads, retain_graph, None, create_graph)
        return
    inputs = _tensor_list(inputs, "inputs")
    if not inputs:
        raise RuntimeError("'inputs' argument to backward() cannot be empty.")
    captured = _run_capturing(roots, grads, inputs, retain_graph, create_graph)
    for t, g in zip(inputs, captured):
        if g is not None:
            _accumulate_into(t, g)


def backward_scalar(t: Tensor, retain_graph: bool | None) -> None:
    """``t.backward()`` with no gradient, ``inputs`` or ``create_graph``: the training step's call,
    with fewer checks than ``backward`` (which it defers to for anything unusual)."""
    node = t._node
    data = t._data
    if node is None or node._inputs is None or data.numel() != 1 or not data.is_floating_point():
        backward([t], None, retain_graph)
        return
    run([(node, t._out_nr)], [torch.ones_like(data)], bool(retain_graph), None)


def grad(
    outputs: Tensor | Sequence[Tensor],
    inputs: Tensor | Sequence[Tensor],
    grad_outputs: Tensor | Sequence[Tensor | None] | None = None,
    retain_graph: bool | None = None,
    create_graph: bool = False,
    only_inputs: bool = True,
    allow_unused: bool | None = None,
    is_grads_batched: bool = False,
    materialize_grads: bool = False,
) -> tuple[Tensor | None, ...]:
    """The gradients of ``outputs`` with respect to ``inputs``, leaving every ``.grad`` untouched
    (``torch.autograd.grad``, which given our tensors runs this); with ``create_graph=True`` they are
    recorded, so they can be differentiated again. ``is_grads_batched=True``: the first dim of each
    ``grad_outputs`` is a batch of vectors, one backward each (a loop: torch's vmap is not ours),
    the results stacked. ``only_inputs`` is deprecated and ignored, as in torch."""
    if retain_graph is None:
        retain_graph = create_graph
    if is_grads_batched:
        return _batched_grad(outputs, inputs, grad_outputs, retain_graph, create_graph, allow_unused, materialize_grads)
    if allow_unused is None:
        allow_unused = materialize_grads
    outputs, inputs = _tensor_list(outputs, "outputs"), _tensor_list(inputs, "inputs")
    grad_outputs = _gradient_list(grad_outputs, "grad_outputs")
    if not inputs:
        raise RuntimeError("`inputs` argument to `grad()` cannot be empty.")
    if not outputs:  # nothing is differentiated: every input is unused
        if not allow_unused:
            raise RuntimeError(
                "The differentiated Tensor at index 0 appears to not have been used in the graph. "
                "Set allow_unused=True if this is the desired behavior."
            )
        return (None,) * len(inputs)
    roots, grads = _roots_and_grads(outputs, grad_outputs, create_graph)
    captured = _run_capturing(roots, grads, inputs, retain_graph, create_graph)
    result = []
    for t, g in zip(inputs, captured):
        if g is None:
            if not allow_unused:
                raise RuntimeError(
                    "One of the differentiated Tensors appears to not have been used in the graph. "
                    "Set allow_unused=True if this is the desired behavior."
                )
            if materialize_grads:
                g = torch.zeros_like(t._data)
        result.append(g if g is None or isinstance(g, Tensor) else Tensor._make(g, None))
    return tuple(result)


def _batched_grad(outputs, inputs, grad_outputs, retain_graph, create_graph, allow_unused, materialize_grads):
    grad_outputs = _gradient_list(grad_outputs, "grad_outputs")
    if not grad_outputs or any(g is None for g in grad_outputs):
        raise RuntimeError("is_grads_batched=True needs a batch of grad_outputs for every output")
    rows = []
    for i in range(grad_outputs[0].shape[0]):
        rows.append(
            grad(
                outputs,
                inputs,
                [g[i] for g in grad_outputs],
                True,
                create_graph,
                True,
                allow_unused,
                False,
                materialize_grads,
            )
        )
    if not retain_graph:
        grad(
            outputs, inputs, [g[0] for g in grad_outputs], False, False, True, True
        )  # frees the graph, as one call would
    from ..ops.shape import stack

    return tuple(None if column[0] is None else stack(list(column)) for column in zip(*rows))


def _run_capturing(roots, grads, inputs: list, retain_graph: bool, create_graph: bool) -> list:
    """Run backward from ``roots``, taking the gradient that reaches each of ``inputs`` instead
    of accumulating into any ``.grad``."""
    capture: dict[Node, list[int]] = {}
    rxgraph = roots[0][0]._rx
    for i, t in enumerate(inputs):
        if not isinstance(t, Tensor):
            raise TypeError(f"autograd.grad expects mt.Tensor inputs, got {type(t).__name__}")
        if not t._requires_grad:
            raise RuntimeError("One of the differentiated Tensors does not require grad")
        node = t._node if t._node is not None else _existing_accumulator(t) or accumulator(t, rxgraph)
        capture.setdefault(node, []).append(i)
    captured: list = [None] * len(inputs)
    run(roots, grads, retain_graph, (capture, inputs, captured), create_graph)
    return captured


def _tensor_list(value: object, argument: str) -> list[Tensor]:
    """An mt.Tensor or a sequence of them as a list, or a TypeError naming ``argument``."""
    if isinstance(value, Tensor):
        return [value]
    if not isinstance(value, (list, tuple)):
        raise TypeError(f"{argument} must be an mt.Tensor or a sequence of them, not {type(value).__name__}")
    for i, t in enumerate(value):
        if not isinstance(t, Tensor):
            raise TypeError(f"{argument}[{i}] must be an mt.Tensor, not {type(t).__name__}")
    return list(value)


def _gradient_list(value: object, argument: str) -> list | None:
    """Gradients as given to backward/grad: None, one tensor, or a sequence of tensors and Nones."""
    if isinstance(value, (Tensor, torch.Tensor)):
        value = [value]
    if value is None:
        return None
    if isinstance(value, (list, tuple)):  # a torch gradient's own graph would grow with ours
        return [detach_torch(g) if is_torch_data(g) else g for g in value]
    raise TypeError(f"{argument} must be a Tensor, a sequence of Tensors or None, not {type(value).__name__}")


def _existing_accumulator(t: Tensor):
    acc = None if t._acc is None else t._acc()
    return acc if acc is not None and acc._rx is not None else None


def _roots_and_grads(tensors, grad_tensors, create_graph: bool = False):
    """The nodes backward starts from, and their gradients: torch tensors, or mt.Tensors (kept
    with their history) under ``create_graph``. A gradient takes its output's dtype and device."""
    if grad_tensors is None:
        grad_tensors = [None] * len(tensors)
    if len(grad_tensors) != len(tensors):
        raise RuntimeError(f"got {len(grad_tensors)} gradients for {len(tensors)} outputs")
    roots, grads = [], []
    for i, (t, g) in enumerate(zip(tensors, grad_tensors)):
        if not isinstance(t, Tensor):
            raise TypeError(f"backward expects mt.Tensor outputs, got {type(t).__name__} at position {i}")
        if not t._requires_grad:
            raise RuntimeError(f"element {i} of tensors does not require grad and does not have a grad_fn")
        data = t._data
        if g is None:
            if data.numel() != 1:
                raise RuntimeError("grad can be implicitly created only for scalar outputs")
            if not data.is_floating_point():
                raise RuntimeError(f"grad can be implicitly created only for real scalar outputs but got {data.dtype}")
            g = torch.ones_like(data)
        else:
            g_data = g._data if isinstance(g, Tensor) else g
            if not is_torch_data(g_data):
                raise TypeError(f"gradient must be a Tensor or None, got {type(g).__name__}")
            if g_data.shape != data.shape:
                raise RuntimeError(
                    f"Mismatch in shape: grad_output[{i}] has a shape of {g_data.shape} and output[{i}] "
                    f"has a shape of {data.shape}."
                )
            if g_data.device != data.device and g_data.dim() != 0:  # torch moves only a 0-dim gradient
                raise RuntimeError(
                    f"invalid gradient at index {i} - expected device {data.device} but got {g_data.device}"
                )
            if g_data.dtype != data.dtype or g_data.device != data.device:
                g = g.to(dtype=data.dtype, device=data.device)
            if not (create_graph and isinstance(g, Tensor)):
                g = g._data if isinstance(g, Tensor) else g
        if create_graph and not isinstance(g, Tensor):
            g = Tensor._make(g, None)
        node = t._node
        if node is None:
            graph = state.graph or _graph.current_graph()
            node = _existing_accumulator(t) or accumulator(t, graph._rx)
        elif node._inputs is None:
            raise RuntimeError(SECOND_BACKWARD_MESSAGE)
        roots.append((node, t._out_nr))
        grads.append(g)
    return roots, grads


def _ordered_nodes(roots: list[Node]) -> list[Node]:
    """Every node that gradients from ``roots`` can reach, outputs before inputs (by decreasing
    creation sequence, as PyTorch's engine runs them)."""
    if len(roots) == 1:
        # The root, and the chain of nodes of one input each (in the same graph) that leads from
        # it, come first, each before its input; the rest is the last one's history, which holds
        # only older nodes. Walking the chain is cheaper than asking rustworkx for its ancestors.
        chain = []
        node = roots[0]
        while True:
            inputs = node._inputs
            if not inputs:
                break
            if not node._simple and (  # (a simple node's input is in its graph)
                node._foreign or inputs[0] is None or inputs.count(None) != len(inputs) - 1
            ):
                break
            chain.append(node)
            node = inputs[0]
        if chain:
            chain += _ordered_nodes([node])
            return chain
    if len(roots) == 1 and roots[0]._rx is not None and not roots[0]._foreign:
        # The common case: one root, one graph. ancestors() names each node once; map() keeps
        # the per-node work in C.
        root = roots[0]
        rxgraph = root._rx
        ancestors = rx.ancestors(rxgraph, root._index)
        if len(ancestors) + 1 == rxgraph.num_nodes():  # the graph is the root's history: take it whole
            order = list(map(_NodeRef.__call__, rxgraph.nodes()))
        else:
            order = list(map(_NodeRef.__call__, map(rxgraph.__getitem__, ancestors)))
            order.append(root)
        if not any(map(_is_foreign, order)):
            order.sort(key=_seq, reverse=True)
            return order
    nodes: dict[Node, None] = {}
    pending = list(roots)
    while pending:
        root = pending.pop()
        if root in nodes:
            continue
        nodes[root] = None
        rxgraph = root._rx
        if rxgraph is None:
            continue
        for index in rx.ancestors(rxgraph, root._index):
            node = rxgraph[index]()
            nodes[node] = None
            if node._foreign:
                pending.extend(p for p in node._inputs if p is not None and p._rx is not rxgraph)
        if root._foreign:
            pending.extend(p for p in root._inputs if p is not None and p._rx is not rxgraph)
    order = list(nodes)
    order.sort(key=_seq, reverse=True)
    return order


_seq = operator.attrgetter("_seq")
_is_foreign = operator.attrgetter("_foreign")


def run(roots: list[tuple[Node, int]], grads: list, retain_graph: bool, capture, create_graph: bool = False) -> None:
    with _BACKWARD_LOCK:
        for node, _ in roots:
            if node._inputs is None and not isinstance(node, AccumulateGrad):
                raise RuntimeError(SECOND_BACKWARD_MESSAGE)
        anomaly = state.anomaly
        # Observers (the profiler, autograd/observe.py) see the nodes the general loop runs.
        plain = capture is None and not anomaly and not create_graph and not state.observers
        if plain and len(roots) == 1 and not state.backward_depth:
            order = None  # _run_plain_from orders the nodes as it runs them
        else:
            order = _ordered_nodes([node for node, _ in roots])
        # A backward inside another one's (a Function's backward, a hook, checkpointing) keeps
        # its gradients apart from the outer pass's buffers, which it puts back when done.
        outer_buffers = _take_buffers(order) if state.backward_depth else None
        for (node, nr), g in zip(roots, grads):
            _add_grad(node, nr, g)
        capture_nodes = None if capture is None else capture[0]
        dropped = ()
        if capture_nodes is not None:
            order, dropped = _on_paths_to(order, capture_nodes)
        previous_mode, previous_differentiating = state.grad_enabled, state.differentiating
        state.grad_enabled = create_graph  # torch's mode, as PyTorch's engine sets it
        state.differentiating = create_graph
        state.backward_depth += 1
        released: list[Node] = []
        try:
            if order is None:
                _run_plain_from(roots[0][0], retain_graph, released)
            elif plain:
                _run_plain(order, retain_graph, released)
            else:
                _run_in_order(order, retain_graph, capture, capture_nodes, anomaly, released, create_graph)
        except BaseException:
            for node in order or ():  # leave no partial gradient behind: the graph stays usable
                node._grad = None if node._n_outputs == 1 else [None] * node._n_outputs
            raise
        finally:
            state.backward_depth -= 1
            state.grad_enabled = previous_mode
            state.differentiating = previous_differentiating
            for node in dropped:  # gradients that reached nodes off the paths to the inputs
                node._grad = None if node._n_outputs == 1 else [None] * node._n_outputs
            if outer_buffers is not None:
                for node, buffer in outer_buffers:
                    node._grad = buffer
            _graph.remove_nodes(released)


def _take_buffers(order: list[Node]) -> list:
    taken = []
    for node in order:
        taken.append((node, node._grad))
        node._grad = None if node._n_outputs == 1 else [None] * node._n_outputs
    return taken


def _on_paths_to(order: list[Node], targets) -> tuple[list[Node], list[Node]]:
    """The nodes of ``order`` that lie on a path to one of ``targets`` (``autograd.grad`` runs
    only those, as PyTorch's engine does), and the others (whose gradients are dropped)."""
    rxgraph = order[0]._rx if order else None
    if rxgraph is None or any(node._rx is not rxgraph or node._foreign for node in order):
        return order, []
    wanted = set()
    for target in targets:
        if target._rx is rxgraph:
            wanted.add(target._index)
            wanted.update(rx.descendants(rxgraph, target._index))
    kept, dropped = [], []
    for node in order:
        (kept if node._index in wanted else dropped).append(node)
    return kept, dropped


def recorded_vjp(composite, inputs: Sequence[Tensor | None], needs: Sequence[bool], output_grad: Tensor) -> tuple:
    """For an op's backward under ``create_graph``: the gradients of ``composite(*inputs)`` (the
    op written with recorded ops) with respect to the ``inputs`` that ``needs`` names, given the
    output's gradient ``output_grad``, themselves recorded. Each input enters through an identity
    op, so the gradient taken is the partial one even when inputs share history (an input with no
    history enters as a fresh leaf)."""
    proxies = []
    for x, need in zip(inputs, needs):
        if not need or x is None:
            proxies.append(None)
        elif x._requires_grad:
            proxies.append(_Identity.apply(x))
        else:
            proxies.append(Tensor(x._data, requires_grad=True))
    out = composite(*[x if p is None else p for p, x in zip(proxies, inputs)])
    wanted = [p for p in proxies if p is not None]
    grads = iter(grad([out], wanted, [output_grad], create_graph=True, allow_unused=True) if wanted else ())
    return tuple(None if p is None else next(grads) for p in proxies)


# One backward at a time in the process: two threads running backward through one graph take
# turns (the second then finds the graph freed, unless the first retained it), and so do passes
# whose graphs are linked (an op recorded in one thread's graph on another thread's outputs): a
# pass never walks nodes that another pass is releasing, or adds into its gradient buffers.
# Reentrant: a backward inside a backward (a Function's backward, a hook, checkpointing) runs.
_BACKWARD_LOCK = threading.RLock()


def _run_plain_from(root: Node, retain_graph: bool, released: list[Node]) -> None:
    """``_run_plain(_ordered_nodes([root]), ...)`` with the chain of one-input nodes that leads
    from ``root`` run as it is walked (the order puts that chain first, each node before its
    input, and each of its nodes takes its gradient from the one before it only): no list of
    the chain is built and walked again. On an error, no partial gradient is left behind.

    A simple node hands the gradient of its input to the next iteration in ``carried`` (its
    input is the next node, whose buffer was empty) rather than through the input's buffer."""
    node = root
    carried = None
    try:
        while True:
            inputs = node._inputs
            if not inputs or (
                not node._simple  # (a simple node's input is in its graph)
                and (node._foreign or inputs[0] is None or inputs.count(None) != len(inputs) - 1)
            ):
                if carried is not None:
                    node._grad = carried
                    carried = None
                break
            if carried is not None:
                grad = carried
                carried = None
            else:
                grad = node._grad
                if grad is None:
                    if not retain_graph:
                        _release(node, released)
                    node = inputs[0]
                    continue
                node._grad = None
            shortcut = node._simple
            if shortcut:  # as in _run_plain
                if shortcut is PASSES_GRADIENT:
                    g = grad
                elif shortcut is True:
                    out = node._function.backward(node, grad)
                    g = out[0] if type(out) is tuple else out
                    out = None
                else:  # its grad_kernel
                    g = shortcut(grad, node.constant)
                grad = None
                parent = inputs[0]
                if g is not None:
                    if parent._grad is None:
                        carried = g
                    else:
                        parent._grad = _sum(parent._grad, g)
                    g = None
                if not retain_graph:
                    node._inputs = None
                    node._saved = ()
                    # Out of its graph now, rather than with the released nodes at the end: nothing
                    # holds it once the loop moves on, and it dies with no callback to run.
                    rxgraph = node._rx
                    if rxgraph is not None:
                        rxgraph.remove_node(node._index)
                        node._ref._rx = None  # in case someone else still holds the reference
                        node._rx = node._ref = None
                node = parent
                continue
            if node._tensor_hooks is not None:
                grad = run_output_hooks(node, grad)
            _backward_node(node, grad, inputs, anomaly=False)
            grad = None
            if not retain_graph:
                _release(node, released)
            node = inputs[0]
    except BaseException:
        for rest in _ordered_nodes([node]):
            rest._grad = None if rest._n_outputs == 1 else [None] * rest._n_outputs
        raise
    order = _ordered_nodes([node])
    try:
        _run_plain(order, retain_graph, released)
    except BaseException:
        for rest in order:
            rest._grad = None if rest._n_outputs == 1 else [None] * rest._n_outputs
        raise


def _run_plain(order: list[Node], retain_graph: bool, released: list[Node]) -> None:
    """The backward loop without ``autograd.grad``'s capture and without anomaly checks."""
    for node in order:
        grad = node._grad
        inputs = node._inputs
        if grad is None:
            if inputs and not retain_graph:
                _release(node, released)
            continue
        node._grad = None
        if inputs is None:
            raise RuntimeError(SECOND_BACKWARD_MESSAGE)
        shortcut = node._simple
        if shortcut:  # apply1's nodes: one input that takes the first gradient, one output
            if shortcut is PASSES_GRADIENT:
                g = grad
            elif shortcut is True:
                out = node._function.backward(node, grad)
                g = out[0] if type(out) is tuple else out
                out = None
            else:  # its grad_kernel
                g = shortcut(grad, node.constant)
            grad = None
            if g is not None:
                parent = inputs[0]
                parent._grad = g if parent._grad is None else _sum(parent._grad, g)
                g = None
            if not retain_graph:
                node._inputs = None
                node._saved = ()
                released.append(node)
            continue
        if node._tensor_hooks is not None:
            grad = run_output_hooks(node, grad)
        if not inputs:  # a leaf's accumulator
            _accumulate(node, grad)
            continue
        _backward_node(node, grad, inputs, anomaly=False)
        grad = None
        if not retain_graph:
            _release(node, released)


def _run_in_order(
    order: list[Node],
    retain_graph: bool,
    capture,
    capture_nodes,
    anomaly: bool,
    released: list[Node],
    create_graph: bool,
) -> None:
    """The backward loop of ``autograd.grad`` (``capture``), of anomaly detection and of
    ``create_graph``: every node takes the general path (``_run_plain`` is this loop without
    those checks, for speed)."""
    for node in order:
        grad = node._grad
        inputs = node._inputs
        if grad is None:
            if inputs and not retain_graph:
                _release(node, released)
            continue
        node._grad = None
        if inputs is None:
            raise RuntimeError(SECOND_BACKWARD_MESSAGE)
        if node._tensor_hooks is not None:
            grad = run_output_hooks(node, grad)
        if not inputs:  # a leaf's accumulator
            grad = _run_leaf_hooks(node, grad)
        if capture_nodes is not None and node in capture_nodes:
            _capture(node, grad, capture)
        if not inputs:
            if capture is None:
                _accumulate(node, grad, run_grad_hooks=False)
            continue
        if create_graph:
            _backward_node_recorded(node, grad, inputs, anomaly)
        else:
            _backward_node(node, grad, inputs, anomaly)
        grad = None
        if not retain_graph:
            _release(node, released)


def _backward_node(node: Node, grad, inputs: tuple, anomaly: bool) -> None:
    """Run one op node's backward and add the gradients it returns into its inputs' buffers."""
    if node._n_outputs == 1:
        out = node._function.backward(node, grad)
    else:
        out = node._function.backward(node, *_materialize(node, grad))
    if type(out) is not tuple:
        out = (out,)
    if len(out) != len(inputs):
        raise RuntimeError(
            f"function {type(node).__name__} returned an incorrect number of gradients "
            f"(expected {len(inputs)}, got {len(out)})"
        )
    if anomaly:
        _check_finite(node, out)
    if node._fixups is None and node._input_nrs is None:
        for parent, g in zip(inputs, out):
            if parent is not None and g is not None:
                parent._grad = g if parent._grad is None else _sum(parent._grad, g)
    else:
        _distribute(node, inputs, out)


def _backward_node_recorded(node: Node, grad, inputs: tuple, anomaly: bool) -> None:
    """``_backward_node`` under ``create_graph``: the node's backward runs on mt.Tensors, with
    its saved inputs and outputs given back with their history, so that what it computes is
    recorded too."""
    saved = node._saved
    if saved:
        versions = node._saved_versions
        node._saved = _unpack_saved(node)
        node._saved_versions = (None,) * len(saved)
    try:
        if node._passes_gradient:
            out = grad
        elif node._n_outputs == 1:
            out = node._function.backward(node, grad)
        else:
            out = node._function.backward(node, *_materialize(node, grad))
    finally:
        if saved:
            node._saved, node._saved_versions = saved, versions
    if type(out) is not tuple:
        out = (out,)
    if node._passes_gradient:
        out = out + (None,) * (len(inputs) - 1)
    if len(out) != len(inputs):
        raise RuntimeError(
            f"function {type(node).__name__} returned an incorrect number of gradients "
            f"(expected {len(inputs)}, got {len(out)})"
        )
    out = tuple(g if g is None or isinstance(g, Tensor) else Tensor._make(g, None) for g in out)
    if anomaly:
        _check_finite(node, tuple(None if g is None else g._data for g in out))
    _distribute(node, inputs, out)


def _unpack_saved(node: Node) -> tuple:
    """The node's saved tensors as mt.Tensors: an input or output of its op with its history
    (so gradients flow back through it), anything else as a constant."""
    saved = node.saved_tensors  # checks the version counters
    sources = getattr(node, "_saved_sources", None) or (None,) * len(saved)
    unpacked = []
    for t, source in zip(saved, sources):
        if not is_torch_data(t):
            unpacked.append(t)
        elif source is None:
            unpacked.append(Tensor._make(t, None))
        elif source < 0:
            unpacked.append(Tensor._make(t, node, -1 - source))
        else:
            unpacked.append(_input_tensor(node, source, t))
    return tuple(unpacked)


def _input_tensor(node: Node, i: int, data: torch.Tensor) -> Tensor:
    parent = node._inputs[i]
    if parent is None:
        return Tensor._make(data, None)
    if isinstance(parent, AccumulateGrad):
        leaf = parent._variable()  # what it saved is the leaf's data (the version check saw to it)
        return Tensor._make(data, None) if leaf is None else leaf
    return Tensor._make(data, parent, 0 if node._input_nrs is None else node._input_nrs[i])


def _distribute(node: Node, inputs: tuple, out: tuple) -> None:
    fixups = node._fixups
    nrs = node._input_nrs
    for i, parent in enumerate(inputs):
        if parent is None:
            continue
        g = out[i]
        if g is None:
            continue
        if fixups is not None and fixups[i] is not None:
            shape, dtype = fixups[i]
            if g.shape != shape:
                g = g.sum_to_size(shape)
            if g.dtype != dtype:
                g = g.to(dtype)
        if type(g) in OURS:  # create_graph: sums are recorded
            if nrs is None:
                parent._grad = g if parent._grad is None else parent._grad + g
            else:
                _add_grad(parent, nrs[i], g)
            continue
        if nrs is None:
            parent._grad = g if parent._grad is None else _sum(parent._grad, g)
        else:
            _add_grad(parent, nrs[i], g)


def _add_grad(node: Node, nr: int, g) -> None:
    add = _sum if is_torch_data(g) else operator.add
    if node._n_outputs == 1:
        node._grad = g if node._grad is None else add(node._grad, g)
    else:
        buffers = node._grad
        buffers[nr] = g if buffers[nr] is None else add(buffers[nr], g)


def _materialize(node: Node, grads: list) -> list:
    """Multi-output nodes get zeros for outputs that received no gradient, as in PyTorch."""
    node._grad = [None] * node._n_outputs
    recorded = state.differentiating
    zeros = []
    for g, (shape, dtype, device) in zip(grads, node._output_meta):
        if g is None:
            g = torch.zeros(shape, dtype=dtype, device=device)
            if recorded:
                g = Tensor._make(g, None)
        zeros.append(g)
    return zeros


def _release(node: Node, released: list[Node]) -> None:
    node._inputs = None
    if node._saved:
        node._saved = ()
    released.append(node)


def _run_leaf_hooks(acc: AccumulateGrad, g):
    t = acc._variable()
    if t is None or t._hooks is None or not t._hooks.grad:
        return g
    return call_hooks(t._hooks.grad, g, t._data)


def _accumulate(acc: AccumulateGrad, g, run_grad_hooks: bool = True) -> None:
    t = acc._variable()
    if t is None:
        return
    hooks = t._hooks
    if hooks is not None and run_grad_hooks and hooks.grad:
        g = call_hooks(hooks.grad, g, t._data)
    _accumulate_into(t, g)
    if hooks is not None:
        for hook in list(hooks.post_accumulate):
            hook(t)


def _accumulate_into(t: Tensor, g) -> None:
    """Add gradient ``g`` into leaf ``t``'s ``.grad``, in ``t``'s dtype and device. Out of place
    under ``create_graph`` (``.grad`` keeps its history), in place otherwise. Threads that
    share a leaf (Hogwild) take turns, so no gradient is lost."""
    data = t._data
    if type(g) in OURS:  # isinstance(g, Tensor): create_graph
        if g._data.dtype != data.dtype or g._data.device != data.device:
            g = g.to(dtype=data.dtype, device=data.device)
        with _ACCUMULATE_LOCK:
            t._grad = g if t._grad is None else t._grad + g
        return
    if g.dtype != data.dtype or g.device != data.device:
        g = g.to(dtype=data.dtype, device=data.device)
    with _ACCUMULATE_LOCK:
        if t._grad is None:
            if sys.getrefcount(g) > _UNSHARED_REFCOUNT + 1 or g._base is not None:
                g = g.clone()
            # ``g`` is the engine's alone: it becomes the ``.grad`` itself, without an alias (its
            # ``_data`` is made when first read; optimizers run on the instance, ``grads_of``)
            g.__class__ = Tensor
            g.__dict__ = {}
            t._grad = g
        else:
            t._grad._data.add_(g)


_ACCUMULATE_LOCK = threading.Lock()


def _capture(node: Node, grad, capture) -> None:
    nodes, inputs, captured = capture
    for i in nodes[node]:
        g = grad if node._n_outputs == 1 else grad[inputs[i]._out_nr]
        if g is not None:
            captured[i] = g


def _check_finite(node: Node, out: tuple) -> None:
    for i, g in enumerate(out):
        if g is not None and g.is_floating_point() and not bool(torch.isfinite(g).all()):
            kind = "nan" if bool(torch.isnan(g).any()) else "inf"
            trace = "".join(node._forward_trace or ["(created outside detect_anomaly)\n"])
            raise RuntimeError(
                f"Function '{type(node).__name__}' returned {kind} values in its {i}th output.\n"
                f"The forward call that created it:\n{trace}"
            )


class _Identity(Function):
    @staticmethod
    def forward(ctx, x):
        return x.view_as(x)

    @staticmethod
    def backward(ctx, grad):
        return grad
