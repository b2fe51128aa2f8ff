"""``Function``: one differentiable op, its forward and backward side by side.

``forward`` and ``backward`` work on ``torch.Tensor`` data: ``apply`` unwraps the
``mt.Tensor`` arguments, runs ``forward`` without any recording, wraps the result, and
(when some input requires grad and grad mode is on) records a node in the current graph.
The node is the ``ctx`` that ``forward`` and ``backward`` receive, as in PyTorch.
"""

from __future__ import annotations

import os
import traceback
import types
from collections.abc import Callable

import torch
from torch._C import is_grad_enabled as _torch_grad_enabled

from . import graph as _graph
from .grad_mode import state
from .graph import _NodeRef, _remove_dead_node
from .node import Node, accumulator, pack_saved, pytorch_saved_names
from .node import next_seq as _next_seq
from .tensor import _TORCH_TENSOR, OURS, Tensor, complex_grad_error
from .torch_leaves import torch_operands

_new_instance = object.__new__  # an instance without an __init__ call
#: torch's kernels called on mt tensors themselves, not through ``Tensor.__torch_function__``.
_kernels_on_ours = torch._C.DisableTorchFunctionSubclass
_dtype = torch._C.TensorBase.dtype.__get__

_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _user_stack() -> list[str]:
    """The forward stack up to the caller's own line: frames inside minitorch_rx are dropped."""
    frames = traceback.extract_stack()[:-1]
    while frames and os.path.abspath(frames[-1].filename).startswith(_PACKAGE_DIR + os.sep):
        frames.pop()
    return traceback.format_list(frames)


class _PassesGradient:
    """The backward shortcut of a node whose input's gradient is its output's, unchanged."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "PASSES_GRADIENT"


PASSES_GRADIENT = _PassesGradient()


class _InertContext:
    """The ``ctx`` of a forward that records nothing: saving is a no-op. Made by ``_inert``."""

    needs_input_grad: tuple

    def save_for_backward(self, *tensors: object) -> None:
        pass

    def mark_non_differentiable(self, *outputs: object) -> None:
        pass


_NOTHING_NEEDED = [(False,) * n for n in range(16)]


def _inert(arity: int) -> _InertContext:
    """A ``_InertContext`` for a forward of ``arity`` arguments (without an ``__init__`` call:
    every op that records nothing pays for this)."""
    ctx = _new_instance(_InertContext)
    ctx.needs_input_grad = _NOTHING_NEEDED[arity] if arity < 16 else (False,) * arity
    return ctx


class Function:
    """Base of every differentiable op; subclass it and define ``forward`` and ``backward``.

    >>> import torch, minitorch_rx as mt
    >>> class Cube(mt.autograd.Function):
    ...     @staticmethod
    ...     def forward(ctx, x):
    ...         ctx.save_for_backward(x)
    ...         return x ** 3
    ...     @staticmethod
    ...     def backward(ctx, grad):
    ...         (x,) = ctx.saved_tensors
    ...         return grad * 3 * x ** 2
    >>> x = mt.tensor([2.0], requires_grad=True)
    >>> Cube.apply(x).backward(mt.ones(1)); x.grad.tolist()
    [12.0]
    """

    #: Elementwise ops whose inputs broadcast: the engine reduces each gradient to its input's
    #: shape and dtype, so ``backward`` returns gradients of the output's shape.
    broadcasting = False
    _node_cls: type[Node]

    #: The name its nodes take, when not the class's own (``ConstantOp``s record as the op they specialize).
    _recorded_as: str | None = None
    #: Its nodes' whole name, for the one PyTorch names without "Backward0" (``CopySlices``).
    _node_name: str | None = None
    #: Whether PyTorch wraps a Python number operand into a tensor (``x * 2`` is ``mul.Tensor``),
    #: so that ``next_functions`` lists it as ``(None, 0)``, as for ``add``, ``sub``, ``mul``, ``div``.
    _wrapped_scalars = False
    #: The positions of the arguments its nodes list in ``next_functions``, where PyTorch's node
    #: lists a fixed set (a convolution's input, weight and bias, even a bias of None); default:
    #: every floating-point tensor argument.
    listed_inputs: tuple[int, ...] | None = None
    #: Slots of its nodes beyond ``Node``'s.
    _node_slots: tuple[str, ...] = ()
    #: Whether the gradient of its (one) input is its output's gradient unchanged: the backward
    #: loop then passes it on without calling ``backward``.
    _passes_gradient = False
    #: For an op of one input whose gradient is ``kernel(grad, ctx.constant)`` (a ``ConstantOp``):
    #: that torch kernel, which the first-order backward loop calls without calling ``backward``.
    grad_kernel: Callable | None = None
    #: How the first-order backward loop runs its ``apply1`` nodes (their ``_simple``):
    #: ``PASSES_GRADIENT``, its ``grad_kernel``, or True (``backward`` is called).
    _shortcut: object = True

    def __init_subclass__(cls, **kwargs: object) -> None:
        super().__init_subclass__(**kwargs)
        builtin = cls.__module__.startswith("minitorch_rx.")
        name = cls._node_name or (cls._recorded_as or cls.__name__) + ("Backward0" if builtin else "Backward")
        namespace = {
            "__slots__": cls._node_slots,
            "_function": cls,
            "_passes_gradient": cls._passes_gradient,
            # PyTorch's own nodes print as <class 'MulBackward0'> (module builtins).
            "__module__": "builtins" if builtin else cls.__module__,
            "__qualname__": name,
            "_pytorch_saved": pytorch_saved_names(name) if builtin else frozenset(),
        }
        if cls.listed_inputs is not None:
            listed = [False] * (max(cls.listed_inputs) + 1)
            for i in cls.listed_inputs:
                listed[i] = True
            namespace["_listed"] = tuple(listed)
        cls._node_cls = type(name, (Node,), namespace)
        cls._shortcut = PASSES_GRADIENT if cls._passes_gradient else cls.grad_kernel or True

    @classmethod
    def overload(cls, node_name: str, listed_inputs: tuple[int, ...] | None = None) -> type[Function]:
        """The same op, recorded under another of PyTorch's node names: PyTorch names a node
        after the overload that ran (``sum()`` records ``SumBackward0``, ``sum(dim)``
        ``SumBackward1``), so the caller picks the overload's Function."""
        namespace = {"_node_name": node_name, "__module__": cls.__module__, "__qualname__": cls.__qualname__}
        if listed_inputs is not None:
            namespace["listed_inputs"] = listed_inputs
        return type(cls.__name__, (cls,), namespace)

    @staticmethod
    def forward(ctx: Node, *args: object) -> torch.Tensor | tuple:
        raise NotImplementedError("a Function must define forward(ctx, *args)")

    @staticmethod
    def backward(ctx: Node, *grads: torch.Tensor) -> torch.Tensor | tuple | None:
        raise NotImplementedError("a Function must define backward(ctx, *grads)")

    @classmethod
    def apply(cls, *args: object) -> Tensor | tuple:
        if _torch_grad_enabled():  # the grad mode (torch's, the one mode): every op's path
            for a in args:
                if type(a) in OURS:  # isinstance(a, Tensor), see OURS
                    if a._requires_grad:
                        return _record(cls, args)
                elif isinstance(a, torch.Tensor) and a.requires_grad:
                    # a torch module's parameter: its gradient goes on into torch (``_record`` makes
                    # it a leaf of ours)
                    return _record(cls, args)
        out = cls.forward(
            _inert(len(args)),
            *[a._data if type(a) in OURS else a.detach() if isinstance(a, torch.Tensor) else a for a in args],
        )
        if type(out) is tuple:
            return tuple(Tensor._make(o, None) if isinstance(o, torch.Tensor) else o for o in out)
        return Tensor._make(out, None)

    @classmethod
    def apply1(cls, x: Tensor, *params: object) -> Tensor:
        """``apply`` for the common case of one tensor input ``x`` followed by plain parameters
        (Python values or constants that never require grad and never broadcast ``x``); single
        output. The hot path of unary ops and of ops with a scalar operand."""
        graph = state.recording
        if graph is None or type(x) is not Tensor or not x._requires_grad or not _torch_grad_enabled():
            return _apply1_general(cls, x, params)
        rxgraph = graph._rx
        node = cls._node_cls()
        node._saved = ()
        node._simple = cls._shortcut
        node._n_outputs = 1
        extra = len(params)
        parent = x._node
        if parent is None:
            parent = accumulator(x, rxgraph)
        elif parent._n_outputs != 1:
            node._input_nrs = (x._out_nr, *_NO_INPUTS[extra])
            node._simple = False
        node.needs_input_grad = _FIRST_INPUT_ONLY[extra]
        data = x._data
        out = cls.forward(node, data, *params)
        if node._saved:
            node._saved_sources = _saved_sources(node._saved, (data,), out)
        if extra:
            node._inputs = (parent, *_NO_INPUTS[extra])
            if not cls._wrapped_scalars:
                node._edges = _FIRST_INPUT_ONLY[extra]
        else:
            node._inputs = (parent,)
        node._seq = _next_seq()
        node._grad = None
        result = out.detach()  # the tensor handed out: an alias of the kernel's output, ours
        result.__class__ = Tensor
        result.__dict__ = {"_data": out, "_node": node, "_requires_grad": True}  # one store, not three
        # Record in the graph: a weak reference as the node's payload, edges from its inputs.
        ref = node._ref = _NodeRef(node, _remove_dead_node)
        ref._rx = node._rx = rxgraph
        if parent._rx is rxgraph:
            ref._index = node._index = rxgraph.add_child(parent._index, ref, None)
        else:
            ref._index = node._index = rxgraph.add_node(ref)
            node._foreign = True
            node._simple = False
        return result


class ConstantOp(Function):
    """An op of a tensor and a constant, ``kernel(x, constant)``: the hot path of ``x * 2.0``.

    The constant is a Python number cached as a 0-dim tensor (``ops/constants.py``). Nothing
    outside the cache holds it, so nothing can modify it in place: the node keeps it in its
    ``constant`` slot without a version check, and ``apply`` does what ``apply1`` does, inlined,
    with no ``forward`` call. Subclasses set ``kernel`` (a torch method) and ``_recorded_as``
    (the op they specialize, whose name their nodes take, as PyTorch names both ``MulBackward0``),
    and define ``backward`` reading ``ctx.constant``.
    """

    _node_slots = ("constant",)
    kernel: Callable[[torch.Tensor, torch.Tensor], torch.Tensor]

    @classmethod
    def forward(cls, ctx: Node, x: torch.Tensor, constant: torch.Tensor) -> torch.Tensor:
        ctx.constant = constant
        return cls.kernel(x, constant)

    @classmethod
    def apply(cls, x: Tensor, constant: torch.Tensor) -> Tensor:
        graph = state.recording
        if graph is None or type(x) is not Tensor or not x._requires_grad or not _torch_grad_enabled():
            return _apply1_general(cls, x, (constant,))
        parent = x._node
        rxgraph = graph._rx
        if parent is None:
            parent = accumulator(x, rxgraph)
        elif parent._n_outputs != 1:
            return _record(cls, (x, constant))
        node = cls._node_cls()
        node._saved = ()
        node._simple = cls._shortcut
        node._n_outputs = 1
        node.needs_input_grad = _FIRST_INPUT_ONLY[1]
        node.constant = constant
        node._inputs = (parent, None)
        node._seq = _next_seq()
        node._grad = None
        # The kernel runs on ``x`` itself (not its ``_data``): a torch method on the instance, with
        # torch's dispatch to ``__torch_function__`` off; its output is fresh (the constant is a
        # 0-dim tensor no one else holds, and these kernels always allocate), so it becomes the
        # result itself, without an alias: its ``_data`` is made when first read (``Tensor._data``).
        with _kernels_on_ours():
            result = cls.kernel(x, constant)
        result.__class__ = Tensor
        result.__dict__ = {"_node": node, "_requires_grad": True}
        # Record in the graph, as in apply1.
        ref = node._ref = _NodeRef(node, _remove_dead_node)
        ref._rx = node._rx = rxgraph
        if parent._rx is rxgraph:
            ref._index = node._index = rxgraph.add_child(parent._index, ref, None)
        else:
            ref._index = node._index = rxgraph.add_node(ref)
            node._foreign = True
            node._simple = False
        return result

    @classmethod
    def operator(cls, constants: dict, fallback: Callable[[Tensor, object], Tensor], name: str):
        """The Tensor operator ``name`` (``__mul__``, ...) whose hot path is this op: ``x op c`` for
        a Python number ``c`` already cached in ``constants`` (``constants[dtype][c]``), recorded here
        as ``apply`` records it, inlined (the frames of ``apply`` and of the operator's own lookup
        are 3% of the op chain); anything else is ``fallback(x, c)``."""
        node_cls = cls._node_cls
        kernel = cls.kernel
        shortcut = cls._shortcut
        needs = _FIRST_INPUT_ONLY[1]
        apply = cls.apply
        get = constants.get

        def method(self: Tensor, other: object) -> Tensor:
            kind = type(other)
            if kind is float or kind is int:
                graph = state.recording
                parent = self._node
                if (
                    graph is not None
                    and type(self) is Tensor
                    and self._requires_grad
                    and (parent is None or parent._n_outputs == 1)
                    and _torch_grad_enabled()
                ):
                    with _kernels_on_ours():
                        table = get(_dtype(self))
                        constant = None if table is None else table.get(other)
                        out = None if constant is None else kernel(self, constant)
                    if out is not None:
                        rxgraph = graph._rx
                        if parent is None:
                            parent = accumulator(self, rxgraph)
                        node = node_cls()
                        node._saved = ()
                        node._simple = shortcut
                        node._n_outputs = 1
                        node.needs_input_grad = needs
                        node.constant = constant
                        node._inputs = (parent, None)
                        node._seq = _next_seq()
                        node._grad = None
                        out.__class__ = Tensor  # the kernel's fresh output is the result (see apply)
                        out.__dict__ = {"_node": node, "_requires_grad": True}
                        ref = node._ref = _NodeRef(node, _remove_dead_node)
                        ref._rx = node._rx = rxgraph
                        if parent._rx is rxgraph:
                            ref._index = node._index = rxgraph.add_child(parent._index, ref, None)
                        else:
                            ref._index = node._index = rxgraph.add_node(ref)
                            node._foreign = True
                            node._simple = False
                        return out
                else:
                    table = get(self._data.dtype)
                    constant = None if table is None else table.get(other)
                    if constant is not None:
                        return apply(self, constant)
            return fallback(self, other)

        # A code object of its own for each operator: CPython specializes an attribute access per
        # code object for one class, and each operator's nodes (and, along a chain, their inputs'
        # nodes) are of one class, while the operators together see several (MulConstantBackward0,
        # AddConstantBackward0, ...). Shared code would leave every node access unspecialized.
        code = method.__code__.replace(co_name=name, co_qualname=f"Tensor.{name}")
        return types.FunctionType(code, method.__globals__, name, None, method.__closure__)


def call(fn: type[Function], *args: object):
    """Run Function ``fn`` inside another op's backward: on torch data without recording (the
    first-order path), or recorded through ``apply`` when some argument is an ``mt.Tensor``
    (under ``create_graph``). So a backward can be built from Functions, and stay differentiable."""
    for a in args:
        if isinstance(a, Tensor):
            return fn.apply(*args)
    return fn.forward(_inert(len(args)), *args)


class LinearMap(Function):
    """A backward kernel that is linear in the gradient, as a recorded op (under ``create_graph``):
    ``kernel(grad)``, whose own backward is ``adjoint`` (for example: the gradient of a pooling is
    linear in the output's gradient; its adjoint is the pooling itself). ``adjoint`` must accept
    torch data and mt.Tensors alike (build it from ``call``)."""

    @staticmethod
    def forward(ctx, grad, kernel, adjoint):
        ctx.adjoint = adjoint
        return kernel(grad)

    @staticmethod
    def backward(ctx, grad):
        return ctx.adjoint(grad), None, None


def _apply1_general(cls: type[Function], x: Tensor, params: tuple) -> Tensor:
    """``apply1`` off its hot path: grad mode off, anomaly detection on, no graph yet, an input
    that needs no gradient, or a Tensor subclass."""
    if not isinstance(x, Tensor):
        raise TypeError(f"{cls.__name__}: expected a Tensor, got {type(x).__name__}")
    if x._requires_grad and _torch_grad_enabled():
        return _record(cls, (x, *params))
    return Tensor._make(cls.forward(_inert(len(params) + 1), x._data, *params), None)


_NO_INPUTS = [(None,) * n for n in range(16)]
_FIRST_INPUT_ONLY = [(True,) + (False,) * n for n in range(16)]


def _record(cls: type[Function], args: tuple) -> Tensor | tuple:
    """Run ``cls.forward`` on the data of ``args`` and record its node (some arg requires grad).

    Every op that is not ``apply1``'s or a ``ConstantOp`` records here, so it is written for
    speed: locals, no helper call for a leaf whose accumulator exists, and the checks of anomaly
    detection and saved-tensor hooks only when ``state.recording`` says one may be on."""
    state_ = state
    graph = state_.recording
    watched = graph is None  # grad mode on, but anomaly detection, an observer or hooks, or no graph yet
    rxgraph = (graph or _graph.current_graph())._rx
    node = cls._node_cls()
    node._saved = ()
    node._simple = False
    node._n_outputs = 1
    datas = []
    parents = []
    needs = []
    listed = []  # per argument: whether ``next_functions`` lists it (PyTorch's rule, see ``Node._edges``)
    multi_output_input = False
    plain = False  # some argument is not listed
    for a in args:
        kind = type(a)
        if kind in OURS:  # isinstance(a, Tensor), see OURS
            data = a._data
            datas.append(data)
            if a._requires_grad:
                parent = a._node
                if parent is None:
                    ref = a._acc
                    parent = None if ref is None else ref()
                    if parent is None or parent._rx is not rxgraph:
                        parent = accumulator(a, rxgraph)
                elif parent._n_outputs != 1:
                    multi_output_input = True
                parents.append(parent)
                needs.append(True)
                listed.append(True)
                continue
            dtype = data.dtype
            if dtype.is_floating_point or dtype.is_complex:
                listed.append(True)
            else:
                listed.append(False)
                plain = True
        elif kind is _TORCH_TENSOR or (kind not in _PLAIN_VALUES and isinstance(a, torch.Tensor)):
            if a.requires_grad:  # as a leaf whose gradient goes on into torch
                return _record(cls, torch_operands(args))
            datas.append(a)
            dtype = a.dtype
            if dtype.is_floating_point or dtype.is_complex:
                listed.append(True)
            else:
                listed.append(False)
                plain = True
        else:
            datas.append(a)
            if cls._wrapped_scalars and kind in _WRAPPED_NUMBERS:  # a number the op wraps into a tensor
                listed.append(True)
            else:
                listed.append(False)
                plain = True
        parents.append(None)
        needs.append(False)
    if multi_output_input:  # which output of its node each input is
        node._input_nrs = tuple(a._out_nr if type(a) in OURS else 0 for a in args)
    node.needs_input_grad = tuple(needs)
    if plain:
        node._edges = tuple(listed)
    out = cls.forward(node, *datas)
    node._inputs = parents = tuple(parents)
    node._seq = _next_seq()
    node._grad = None
    if type(out) is tuple:
        if node._saved:
            node._saved_sources = _saved_sources(node._saved, datas, out)
        result = _wrap_outputs(node, out)
    else:
        if out.dtype.is_complex:
            raise complex_grad_error(f"{cls.__name__} would give a complex tensor that requires grad")
        if node._saved:
            node._saved_sources = _saved_sources(node._saved, datas, out)
        result = out.detach()  # the tensor handed out: an alias of the kernel's output, ours
        result.__class__ = Tensor
        result.__dict__ = {"_data": out, "_node": node, "_requires_grad": True}  # one store, not three
        if cls.broadcasting:
            _record_fixups(node, args, out)
    if watched:
        if state_._anomaly:
            node._forward_trace = _user_stack()
        if state_.saved_tensors_hooks and node._saved:
            pack_saved(node, *state_.saved_tensors_hooks[-1])
    # Record in the graph: a weak reference as the node's payload, edges from its inputs.
    ref = node._ref = _NodeRef(node, _remove_dead_node)
    ref._rx = node._rx = rxgraph
    index = ref._index = node._index = rxgraph.add_node(ref)
    for parent in parents:
        if parent is not None:
            if parent._rx is rxgraph:
                rxgraph.add_edge(parent._index, index, None)
            else:
                node._foreign = True
    return result


_WRAPPED_NUMBERS = (int, float, bool, complex)
#: Argument types that are never a tensor: ``_record`` skips ``isinstance`` for them (see ``OURS``).
_PLAIN_VALUES = frozenset((type(None), int, float, bool, complex, str, tuple, list, torch.dtype))


def _saved_sources(saved: tuple, inputs: list, out) -> tuple:
    """Per saved tensor: the index of the input it is (``i``), the output it is (``-1 - nr``), or
    ``None``; so that under ``create_graph`` a saved input or output comes back with its history.
    (Identity by ``id``: every object compared is alive here. A non-tensor's entry is never read.)"""
    ids = list(map(id, inputs))
    if type(out) is tuple:
        out_ids = list(map(id, out))
    else:
        out_ids = (id(out),)
    sources = []
    for t in saved:
        key = id(t)
        if key in ids:
            sources.append(ids.index(key))
        elif key in out_ids:
            sources.append(-1 - out_ids.index(key))
        else:
            sources.append(None)
    return tuple(sources)


def _record_fixups(node: Node, args: tuple, out: torch.Tensor) -> None:
    """Note the inputs whose gradient must be summed or cast back to their own shape/dtype."""
    fixups = None
    shape, dtype = out.shape, out.dtype
    i = 0
    for a in args:
        if isinstance(a, Tensor) and a._requires_grad:
            data = a._data
            if data.shape != shape or data.dtype != dtype:
                if fixups is None:
                    fixups = [None] * len(args)
                fixups[i] = (data.shape, data.dtype)
        i += 1
    if fixups is not None:
        node._fixups = tuple(fixups)


def _wrap_outputs(node: Node, outs: tuple) -> tuple:
    node._n_outputs = len(outs)
    node._grad = [None] * len(outs) if len(outs) != 1 else None  # one output: the single-output path
    node._output_meta = tuple(
        (o.shape, o.dtype, o.device) if isinstance(o, torch.Tensor) else ((), None, None) for o in outs
    )
    skip = node._non_differentiable
    wrapped = []
    for nr, o in enumerate(outs):
        if not isinstance(o, torch.Tensor):
            wrapped.append(o)
        elif id(o) in skip or not o.is_floating_point():
            if o.is_complex() and id(o) not in skip:
                raise complex_grad_error(f"{node._function.__name__} would give a complex tensor that requires grad")
            wrapped.append(Tensor._make(o, None))
        else:
            wrapped.append(Tensor._make(o, node, nr))
    return tuple(wrapped)
