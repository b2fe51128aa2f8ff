"""``mt.autograd.watch()``: a film of what the engine does in a training step, op by op forward
and node by node backward, with the gradients each node received and sent and the memory held
for backward after each step; ``film.to_html(path)`` plays it (``autograd/film_page.py``).

>>> import minitorch_rx as mt
>>> x = mt.tensor([1.0, 2.0], requires_grad=True)
>>> with mt.autograd.watch() as film:
...     (x.exp() * x).sum().backward()
>>> [(s.kind, s.node) for s in film.steps]  # doctest: +NORMALIZE_WHITESPACE
[('forward', 'ExpBackward0'), ('forward', 'MulBackward0'), ('forward', 'SumBackward0'),
 ('backward', 'SumBackward0'), ('backward', 'MulBackward0'), ('backward', 'ExpBackward0'),
 ('backward', 'AccumulateGrad')]
>>> film.memory_curve()  # exp keeps its output (8 bytes), mul both its inputs (+ x's 8)
[8, 16, 16, 16, 8, 0, 0]

Built on the engine's observers (``autograd/observe.py``): nothing is paid outside the block.
The film holds plain values (shapes, norms, up to 1,024 numbers per gradient), never a tensor
or a node, so keeping it keeps no graph alive.
"""

from __future__ import annotations

import math
import weakref
from dataclasses import dataclass
from typing import NamedTuple

import torch

from . import observe
from .drawing import Notes, small_values
from .memory import saved_storages

VALUES = 64  # a gradient of up to this many elements keeps its values in the step
HEATMAP = 1024  # ... and of up to this many, for the page's heatmap


class TensorMeta(NamedTuple):
    shape: tuple[int, ...]
    dtype: str


class Summary(NamedTuple):
    """A gradient as the film keeps it: shape, dtype, norm, min, max, and its values (flattened)
    when it has up to 64 elements (``values``), up to 1,024 (``heatmap``)."""

    shape: tuple[int, ...]
    dtype: str
    norm: float
    min: float
    max: float
    values: tuple[float, ...] | None
    heatmap: tuple[float, ...] | None


class Sent(NamedTuple):
    """A gradient a backward step sent: to which node of ``film.nodes`` (and which of its outputs)."""

    to: int
    output_nr: int
    grad: Summary


class Step(NamedTuple):
    """One op run forward (``kind == "forward"``: its node recorded) or one node run backward.

    A tuple of plain values, so that the cycle collector stops tracking it (a film of a long
    graph holds many)."""

    index: int
    kind: str  # "forward" or "backward"
    node: str  # PyTorch's name of the node: "MmBackward0", "AccumulateGrad"
    node_index: int  # the node in film.nodes
    inputs: tuple[TensorMeta, ...]
    outputs: tuple[TensorMeta, ...]
    duration_ns: int
    saved_bytes: int  # forward: bytes its node saved for backward (new storages); backward: bytes released
    held_bytes: int  # bytes held for backward after the step, each storage once
    module: str = ""
    grads_received: tuple[Summary | None, ...] = ()  # backward: per output (None: it got none)
    grads_sent: tuple[Sent, ...] = ()  # backward: per input that gets a gradient
    hooks: tuple[str, ...] = ()  # the tensor hooks that ran on its gradients
    leaf: str | None = None  # AccumulateGrad: the leaf's name (a parameter's path, or "leaf")
    leaf_grad: Summary | None = None  # AccumulateGrad: the leaf's .grad after the step


@dataclass(slots=True)
class FilmNode:
    """A node the film saw: what the page draws."""

    name: str  # "MmBackward0", "AccumulateGrad", or a node recorded before the block
    kind: str  # "op" or "leaf"
    title: str  # the box's title: the name, or a leaf's parameter path
    inputs: tuple[tuple[int, int], ...]  # (node index, output nr) per input that has a node
    outputs: tuple[TensorMeta, ...]
    module: str
    saved: tuple[tuple[TensorMeta, int], ...]  # what it saved for backward: (meta, storage bytes)
    values: tuple[float, ...] | None  # its output's values, when it has up to 16 elements
    saved_bytes: int = 0  # what it saved, each storage once (0: nothing, or recorded before the block)
    released_at: int | None = None  # the index of the step at which what it saved was released


def summarize(t: torch.Tensor) -> Summary:
    """The film's summary of a torch tensor (a gradient)."""
    t = t.detach()
    n = t.numel()
    values = heat = None
    if n == 0:
        norm = low = high = 0.0
    elif n <= VALUES and not t.is_complex():  # in Python: cheaper than three reductions
        values = heat = tuple(t.reshape(-1).double().tolist())
        norm, low, high = math.sqrt(math.fsum(v * v for v in values)), min(values), max(values)
    else:
        flat = t.reshape(-1)
        real = flat.abs() if flat.is_complex() else flat
        low_high = torch.aminmax(real)
        stats = torch.stack([torch.linalg.vector_norm(flat).to(low_high[0].dtype), *low_high]).double()
        norm, low, high = stats.tolist()
        if n <= HEATMAP and not t.is_complex():
            heat = tuple(flat.double().tolist())
    return Summary(tuple(t.shape), _dtype(t), norm, low, high, values, heat)


def _dtype(t: torch.Tensor) -> str:
    return _dtype_name(t.dtype)


def _data(value) -> torch.Tensor | None:
    data = getattr(value, "_data", value)
    return data if isinstance(data, torch.Tensor) else None


def _metas(values) -> tuple[TensorMeta, ...]:
    metas = []
    for value in values:
        data = _data(value)
        if data is not None:
            metas.append(TensorMeta(tuple(data.shape), _dtype(data)))
    return tuple(metas)


class Film:
    """What ``watch()`` recorded: ``steps`` in the order they ran, ``nodes`` they ran on."""

    def __init__(self) -> None:
        self.steps: list[Step] = []
        self.nodes: list[FilmNode] = []

    def memory_curve(self) -> list[int]:
        """Bytes held for backward after each step."""
        return [step.held_bytes for step in self.steps]

    def to_html(self, path=None) -> str:
        """The page that plays the film (one self-contained file); written to ``path`` if given."""
        from .film_page import page

        text = page(self)
        if path is not None:
            from pathlib import Path

            Path(path).write_text(text)
        return text

    def _repr_html_(self) -> str:
        from .film_page import inline

        return inline(self.to_html())

    def __repr__(self) -> str:
        forward = sum(step.kind == "forward" for step in self.steps)
        return f"Film(steps={len(self.steps)}, forward={forward}, backward={len(self.steps) - forward})"


class _Watched(weakref.ref):
    """A weak reference to a node the film holds memory for: when the node dies, what it saved
    is released (a ``weakref.ref`` to the watch, so no cycle)."""

    __slots__ = ("index", "watcher")


def _died(ref: _Watched) -> None:
    watcher = ref.watcher()
    if watcher is not None:
        watcher._release(ref.index)


class watch(Notes):
    """Context that records a film of everything the engine does inside it (returned by ``with``):
    one step per op recorded forward and per node run backward. ``model`` (optional) names the
    parameters and the module that ran each op.

    Inside the block ops take the engine's general path and each step costs some microseconds
    (more for gradients of up to 1,024 elements, whose values it keeps); outside it nothing."""

    wants_returned = True

    def __init__(self, model=None) -> None:
        super().__init__(model)
        self.film = Film()
        self._index: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # node -> film index
        self._held: dict[tuple, list[int]] = {}  # storage key -> [bytes, nodes holding it]
        self._held_bytes = 0
        self._storages: dict[int, dict] = {}  # film index -> storages of a node not yet released
        self._refs: dict[int, _Watched] = {}
        self._returned: tuple = ()
        self._active = False

    def __enter__(self) -> Film:
        if self._active:
            raise RuntimeError("watch context manager is not reentrant")
        self._active = True
        self.start(None)
        return self.film

    def __exit__(self, *exc: object) -> None:
        self.stop()
        self._active = False
        self._refs.clear()

    # ------------------------------------------------------------------ nodes and memory
    def _node_index(self, node, follow: bool = True) -> int:
        """The node's index in ``film.nodes``, adding it (and, with ``follow``, its inputs' nodes,
        those not seen yet without their own inputs: recorded before the block) when new."""
        index = self._index.get(node)
        if index is not None:
            return index
        name = type(node).__name__
        leaf = name == "AccumulateGrad"
        inputs = []
        if follow and not leaf:
            nrs = node._input_nrs or (0,) * len(node._inputs or ())
            for parent, nr in zip(node._inputs or (), nrs):
                if parent is not None:
                    inputs.append((self._node_index(parent, follow=False), nr))
        index = self._index[node] = len(self.film.nodes)
        title, module, outputs, values = name, self.module_of.get(node, ""), (), None
        if leaf:
            t = node._variable()
            title = (None if t is None else self.name_of(t)) or "leaf"
            module = title.rpartition(".")[0] if title != "leaf" else ""
            if t is not None:
                outputs, values = _metas([t]), small_values(_data(t))
        else:
            outputs = tuple(TensorMeta(tuple(shape), _dtype_name(dtype)) for shape, dtype, _ in node._output_meta)
        saved = tuple(
            (TensorMeta(tuple(t.shape), _dtype(t)), t.untyped_storage().nbytes())
            for t in (node._saved or ())
            if isinstance(t, torch.Tensor)
        )
        kind = "leaf" if leaf else "op"
        self.film.nodes.append(FilmNode(name, kind, title, tuple(inputs), outputs, module, saved, values))
        return index

    def _hold(self, index: int, node) -> int:
        """Count what ``node`` saved as held; returns the bytes that were not held already."""
        storages = saved_storages(node)
        added = 0
        for key, nbytes in storages.items():
            entry = self._held.get(key)
            if entry is None:
                self._held[key] = [nbytes, 1]
                added += nbytes
            else:
                entry[1] += 1
        if storages:
            self.film.nodes[index].saved_bytes = sum(storages.values())
            self._storages[index] = storages
            ref = self._refs[index] = _Watched(node, _died)
            ref.index, ref.watcher = index, weakref.ref(self)
        self._held_bytes += added
        return added

    def _release(self, index: int, at: int | None = None) -> int:
        """Stop counting what node ``index`` saved; returns the bytes no other node holds."""
        storages = self._storages.pop(index, None)
        self._refs.pop(index, None)
        if storages is None:
            return 0
        self.film.nodes[index].released_at = len(self.film.steps) if at is None else at
        freed = 0
        for key in storages:
            entry = self._held[key]
            entry[1] -= 1
            if entry[1] == 0:
                del self._held[key]
                freed += entry[0]
        self._held_bytes -= freed
        return freed

    def _released_unseen(self, node=None, at: int | None = None) -> int:
        """Release the nodes backward let go without running them (no gradient reached them): at
        a step, those before ``node`` in backward's order, so among those created after it; at the
        end of a backward (``node`` None), any."""
        gone = []
        for index in reversed(self._refs):
            other = self._refs[index]()
            if other is None:
                continue
            if node is not None and other._seq < node._seq:
                break
            if other._inputs is None:
                gone.append(index)
        return sum(self._release(index, at) for index in gone)

    # ------------------------------------------------------------------ the observer
    def on_forward(self, node, args: tuple, result, start_ns: int, end_ns: int) -> None:
        super().on_forward(node, args, result, start_ns, end_ns)
        outputs = result if type(result) is tuple else (result,)
        index = self._node_index(node)
        self.film.nodes[index].values = self.output_values(node)
        added = self._hold(index, node)
        self.film.steps.append(
            Step(
                len(self.film.steps),
                "forward",
                type(node).__name__,
                index,
                _metas(args),
                _metas(outputs),
                end_ns - start_ns,
                added,
                self._held_bytes,
                self.module_of.get(node, ""),
            )
        )

    def on_returned(self, node, grads: tuple) -> None:
        self._returned = grads

    def on_backward(self, node, grads: tuple, start_ns: int, end_ns: int) -> None:
        index = self._node_index(node)
        film_node = self.film.nodes[index]
        received = tuple(None if g is None else summarize(_data(g)) for g in grads)
        sent, returned = [], self._returned
        self._returned = ()
        fixups = node._fixups
        nrs = node._input_nrs
        for i, (parent, g) in enumerate(zip(node._inputs or (), returned)):
            g = _data(g)
            if parent is None or g is None:
                continue
            if fixups is not None and fixups[i] is not None:
                shape, dtype = fixups[i]
                g = g.sum_to_size(shape) if g.shape != shape else g
                g = g.to(dtype) if g.dtype != dtype else g
            sent.append(Sent(self._node_index(parent), 0 if nrs is None else nrs[i], summarize(g)))
        leaf = leaf_grad = None
        hooks: list[str] = []
        if film_node.kind == "leaf":
            leaf = film_node.title
            t = node._variable()
            if t is not None:
                if t._hooks is not None:
                    hooks = [_hook_name(h) for h in (*t._hooks.grad, *t._hooks.post_accumulate)]
                if t._grad is not None:
                    leaf_grad = summarize(_data(t._grad))
        elif node._tensor_hooks is not None:
            hooks = [_hook_name(h) for fns in node._tensor_hooks.by_output.values() for h in fns]
            hooks += ["retain_grad"] * len(node._tensor_hooks.retained)
        freed = 0
        if not observe.retaining_graph():
            freed = (self._release(index) if film_node.kind == "op" else 0) + self._released_unseen(node)
        self.film.steps.append(
            Step(
                len(self.film.steps),
                "backward",
                film_node.name,
                index,
                film_node.outputs if film_node.kind == "leaf" else self._forward_inputs(film_node),
                film_node.outputs,
                end_ns - start_ns,
                freed,
                self._held_bytes,
                film_node.module,
                received,
                tuple(sent),
                tuple(hooks),
                leaf,
                leaf_grad,
            )
        )

    def on_backward_end(self) -> None:
        # Nodes at the end of backward's order that no gradient reached were released after the
        # last step (and may have died since): the last step gives their bytes back, so the curve
        # ends where the engine did.
        steps = self.film.steps
        if not steps or steps[-1].kind != "backward":
            return
        self._released_unseen(at=len(steps) - 1)
        last = steps[-1]
        if self._held_bytes < last.held_bytes:
            freed = last.held_bytes - self._held_bytes
            steps[-1] = last._replace(saved_bytes=last.saved_bytes + freed, held_bytes=self._held_bytes)

    def _forward_inputs(self, film_node: FilmNode) -> tuple[TensorMeta, ...]:
        metas = []
        for parent, nr in film_node.inputs:
            outputs = self.film.nodes[parent].outputs
            if nr < len(outputs):
                metas.append(outputs[nr])
        return tuple(metas)


def _dtype_name(dtype) -> str:
    return str(dtype).removeprefix("torch.")


def _hook_name(hook) -> str:
    return getattr(hook, "__qualname__", None) or getattr(hook, "__name__", None) or type(hook).__name__
