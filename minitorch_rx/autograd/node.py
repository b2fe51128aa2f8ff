"""``Node``: a recorded op, the ``ctx`` its Function's forward and backward receive, and a node
of the graph; ``AccumulateGrad``, the node of a leaf. What backward reads of a node, and how an
op's saved tensors are kept, checked against in-place changes and packed by
``autograd.graph.saved_tensors_hooks``. Recording (``Function.apply``) is ``function.py``'s.
"""

from __future__ import annotations

import itertools
import weakref
from collections.abc import Callable

import torch

from .graph import _NodeRef, _remove_dead_node
from .tensor import _TORCH_TENSOR, Tensor, is_torch_data

#: The creation sequence of nodes: backward runs them in its reverse order.
next_seq = itertools.count().__next__

SECOND_BACKWARD_MESSAGE = (
    "Trying to backward through the graph a second time (or directly access saved tensors after "
    "they have already been freed). Saved intermediate values of the graph are freed when you call "
    ".backward() or autograd.grad(). Specify retain_graph=True if you need to backward through the "
    "graph a second time or if you need to access saved tensors after calling backward."
)


class Node:
    """A recorded op: the ``ctx`` of its Function, and a node of the graph.

    It holds the nodes of its inputs strongly and nothing that points forward, so an
    output's whole history dies with the output. Attributes that few nodes set are class
    defaults and land in the instance ``__dict__`` only when set. ``_simple`` marks the nodes
    of ``apply1`` (one input from a single-output node of the same graph, one output, no
    broadcasting, no retained output): backward takes a shorter path for them, which
    ``_simple`` names (``Function._shortcut``); False for every other node. What the backward
    loop and recording read on every node is a slot (``_n_outputs``, ``_simple``): CPython 3.11
    specializes no read of a class attribute through an instance.
    """

    # The engine's own state is underscored, so that it never collides with what an op stores
    # on its ctx (ctx.index, ctx.shape, ...).
    __slots__ = (
        "_inputs",
        "needs_input_grad",
        "_seq",
        "_rx",
        "_index",
        "_ref",
        "_grad",
        "_saved",
        "_saved_versions",
        "_saved_sources",
        "_simple",
        "_n_outputs",
        "__dict__",
        "__weakref__",
    )

    _function: type | None = None  # the Function this node records (set on each per-Function subclass)
    dot_shape = "box"
    _fixups: tuple | None = None  # per input: (shape, dtype) its gradient must be reduced/cast to
    _input_nrs: tuple | None = None  # per input: which output of a multi-output node it is
    # Per input: whether ``next_functions`` lists it (None: every input). PyTorch lists the tensor
    # inputs an op differentiates, never its plain arguments (dims, sizes, flags) nor its index,
    # mask and target tensors; a Python number that it wraps into a tensor (``x * 2``) is listed.
    _edges: tuple | None = None
    _listed: tuple | None = None  # the same, fixed for every node of a Function (``Function.listed_inputs``)
    _tensor_hooks = None  # hooks.OutputHooks: register_hook()/retain_grad() on its outputs
    _non_differentiable: frozenset = frozenset()
    _foreign = False  # some input lives in another graph
    _forward_trace: list | None = None  # recorded under detect_anomaly()
    _output_meta: tuple = ()  # (shape, dtype, device) per output: multi-output nodes, and nodes a Graph block drew
    _unpack = None  # the unpack hook of what it saved under autograd.graph.saved_tensors_hooks

    def save_for_backward(self, *tensors: torch.Tensor | None) -> None:
        """Keep ``tensors`` for backward; an in-place change to any of them is caught there.
        Python scalars pass through (ops on them save the scalar operand)."""
        self._saved = tensors
        # A tuple, not a list: the cycle collector stops tracking a tuple of ints after one look,
        # while a list per op would stay tracked, and traversed, for as long as the graph lives.
        if len(tensors) == 2:  # binary ops, and unary ones that keep (input, output): no loop
            a, b = tensors
            self._saved_versions = (  # (torch data mostly: its exact type first, no call)
                a._version if type(a) is _TORCH_TENSOR or is_torch_data(a) else None,
                b._version if type(b) is _TORCH_TENSOR or is_torch_data(b) else None,
            )
        else:
            versions = []
            for t in tensors:  # a loop, not map() or a comprehension: no Python frame per tensor
                versions.append(t._version if type(t) is _TORCH_TENSOR or is_torch_data(t) else None)
            self._saved_versions = tuple(versions)

    def mark_non_differentiable(self, *outputs: torch.Tensor) -> None:
        """Declare outputs (e.g. indices) that never carry a gradient."""
        self._non_differentiable = frozenset(id(t) for t in outputs)

    @property
    def saved_tensors(self) -> tuple:
        if self._inputs is None:
            raise RuntimeError(SECOND_BACKWARD_MESSAGE)
        saved = self._saved
        if self._unpack is not None:
            return _unpacked(self._unpack, saved)
        if saved:
            for t, version in zip(saved, self._saved_versions):
                if version is not None and t._version != version:
                    raise RuntimeError(_modified_message(self, t, version))
        return saved

    @classmethod
    def name(cls) -> str:
        return cls.__name__

    def label(self) -> str:
        return type(self).__name__

    @property
    def next_functions(self) -> tuple:
        """``(node, input_nr)`` per tensor input, as PyTorch's: the node that made the input (an
        ``AccumulateGrad`` for a leaf) and which of its outputs the input is; ``(None, 0)`` for
        a tensor input that needs no gradient. Plain arguments (a dim, a size) get no entry."""
        inputs = self._inputs
        if inputs is None:
            return ()
        nrs = self._input_nrs or (0,) * len(inputs)
        edges = self._listed or self._edges or (True,) * len(inputs)
        return tuple((node, nr if node is not None else 0) for node, nr, edge in zip(inputs, nrs, edges) if edge)

    def __repr__(self) -> str:
        return f"<{type(self).__name__} object at {id(self):#x}>"

    # PyTorch's names for what a node saved, where PyTorch's node of the same name has them
    # (``_pytorch_saved``): torchviz's ``show_saved`` lists them through ``dir``.
    _pytorch_saved: frozenset = frozenset()

    _saved_self = property(lambda self: _saved_named(self, "_saved_self"))
    _saved_other = property(lambda self: _saved_named(self, "_saved_other"))
    _saved_result = property(lambda self: _saved_named(self, "_saved_result"))

    def __dir__(self) -> list[str]:
        # Only PyTorch's ``_saved_`` names: torchviz reads every attribute with that prefix.
        names = super().__dir__()
        return [name for name in names if not name.startswith("_saved_") or _has_saved(self, name)]


#: ``_saved_*`` name -> the source of the saved tensor it names (``Node._saved_sources``).
_SAVED_SOURCES = {"_saved_self": 0, "_saved_other": 1, "_saved_result": -1}


def _has_saved(node: Node, name: str) -> bool:
    if name not in node._pytorch_saved:
        return False
    return _SAVED_SOURCES[name] in (getattr(node, "_saved_sources", None) or ())


def _saved_named(node: Node, name: str) -> Tensor:
    """``node._saved_self`` (and ``_other``, ``_result``): the saved input or output of that name."""
    if not _has_saved(node, name):
        raise AttributeError(f"'{type(node).__name__}' object has no attribute '{name}'")
    source = _SAVED_SOURCES[name]
    saved = node.saved_tensors  # (raises once backward has freed them, as PyTorch does)
    data = saved[node._saved_sources.index(source)]
    return _saved_tensor(node, source, data)


def _saved_tensor(node: Node, source: int, data: torch.Tensor) -> Tensor:
    """A saved input or output as PyTorch gives it back: the leaf itself, or a tensor with its history."""
    if source < 0:
        return Tensor._make(data, node, -1 - source)
    parent = node._inputs[source]
    if parent is None:
        return Tensor._make(data, None)
    if isinstance(parent, AccumulateGrad):
        leaf = parent._variable()
        return Tensor._make(data, None) if leaf is None else leaf
    return Tensor._make(data, parent, 0 if node._input_nrs is None else node._input_nrs[source])


def pytorch_saved_names(node_name: str) -> frozenset:
    """The ``_saved_self``/``_saved_other``/``_saved_result`` that PyTorch's node ``node_name`` has."""
    pytorch_node = getattr(torch._C._functions, node_name, None)
    return frozenset(name for name in _SAVED_SOURCES if hasattr(pytorch_node, name))


def _modified_message(node: Node, t: torch.Tensor, version: int) -> str:
    owner = _owner_description(t)
    return (
        "one of the variables needed for gradient computation has been modified by an inplace "
        f"operation: [{t.type()} {list(t.shape)}]{owner}, is at version {t._version}; expected "
        f"version {version} instead. Hint: the op that saved it is {type(node).__name__}; "
        "enable mt.autograd.detect_anomaly() to see the forward line that created it."
    )


def _owner_description(t: torch.Tensor) -> str:
    """', which is output 0 of XBackward0' for the live mt.Tensor wrapping ``t``, if any.

    Only used to word an error, so it may afford a scan of the objects referring to ``t``.
    """
    import gc

    # ``t`` is the ``_data`` of its owner's instance dict
    owners = [o for d in gc.get_referrers(t) if type(d) is dict for o in gc.get_referrers(d)]
    for owner in owners:
        if isinstance(owner, Tensor) and owner._data is t:
            if owner._node is None:
                return ""
            return f", which is output {owner._out_nr} of {type(owner._node).__name__}"
    return ""


class AccumulateGrad(Node):
    """The graph node of a leaf: gradients arriving here accumulate into the leaf's ``.grad``.

    It holds its leaf weakly (the leaf holds it weakly too; the consumers' nodes own it).
    """

    __slots__ = ("_variable",)
    dot_shape = "ellipse"

    @property
    def variable(self) -> Tensor | None:
        """The leaf this node accumulates into (``None`` once the leaf is gone)."""
        return self._variable()

    @classmethod
    def name(cls) -> str:
        return "torch::autograd::AccumulateGrad"

    def label(self) -> str:
        t = self._variable()
        shape = "" if t is None else f"\\n{list(t._data.shape)}"
        return f"AccumulateGrad{shape}"


def accumulator(t: Tensor, rxgraph) -> AccumulateGrad:
    """The accumulator of leaf ``t`` in ``rxgraph``, created on first use in that graph."""
    ref = t._acc
    if ref is not None:
        acc = ref()
        if acc is not None and acc._rx is rxgraph:
            return acc
    acc = AccumulateGrad()
    acc._variable = weakref.ref(t)
    acc._inputs = acc._saved = ()
    acc._simple = False
    acc._n_outputs = 1
    acc.needs_input_grad = ()
    acc._seq = next_seq()
    acc._grad = None
    ref = acc._ref = _NodeRef(acc, _remove_dead_node)  # its graph node (a weak reference), no edges
    ref._rx = acc._rx = rxgraph
    ref._index = acc._index = rxgraph.add_node(ref)
    t._acc = weakref.ref(acc)
    return acc


def pack_saved(node: Node, pack: Callable, unpack: Callable) -> None:
    """Replace what ``node`` saved by what ``pack`` makes of it (``saved_tensors_hooks``)."""
    packed = []
    for t in node._saved:
        packed.append(pack(Tensor._make(t, None)) if is_torch_data(t) else _NotATensor(t))
    node._saved = tuple(packed)
    node._saved_versions = (None,) * len(packed)
    node._unpack = unpack


class _NotATensor:
    """A saved Python value (or None) that the pack hook does not see."""

    __slots__ = ("value",)

    def __init__(self, value: object) -> None:
        self.value = value


def _unpacked(unpack: Callable, packed: tuple) -> tuple:
    tensors = []
    for p in packed:
        if type(p) is _NotATensor:
            tensors.append(p.value)
            continue
        t = unpack(p)
        if isinstance(t, Tensor):
            t = t._data
        if not is_torch_data(t):
            raise TypeError(f"the unpack hook of saved_tensors_hooks must return a Tensor, got {type(t).__name__}")
        tensors.append(t)
    return tuple(tensors)
