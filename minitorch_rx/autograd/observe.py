"""Observers of the engine: see every op it records and every node backward runs, at no cost
when nobody watches.

How it costs nothing when off: nothing on the hot paths checks for observers. Attaching one
(``attach``) sets the thread state's ``observers``, which makes ``state.recording`` None, so ops
leave their hot paths for the general one (``function._record``), as under anomaly detection,
and backward takes its general loop (``engine._run_in_order``). While any observer is attached,
in any thread, those general functions (``_record``, ``_backward_node``, ``_accumulate``) are
replaced by timed wrappers that report to the observers of the calling thread, and ``engine.run``
by one that notes whether the backward keeps its graph (``retaining_graph``); detaching the last
observer puts the originals back.
"""

from __future__ import annotations

import threading
import time

from . import engine as _engine
from . import function as _function
from .grad_mode import state


class Observer:
    """Base of an engine observer; override what you need."""

    def on_forward(self, node, args: tuple, result, start_ns: int, end_ns: int) -> None:
        """``node`` was recorded from ``args``, giving ``result`` (a Tensor or a tuple); its forward
        ran from ``start_ns`` to ``end_ns`` (``time.perf_counter_ns`` clock)."""

    def on_backward(self, node, grads: tuple, start_ns: int, end_ns: int) -> None:
        """Backward ran ``node`` (an op's backward, or a leaf's accumulation) on ``grads``, the
        gradients of its outputs (``None`` for an output that received none)."""

    def on_backward_end(self) -> None:
        """A backward pass (``backward`` or ``autograd.grad``) of this thread has ended."""

    #: Whether it reads what backward nodes return (``on_returned``): keeping it costs every node.
    wants_returned = False

    def on_returned(self, node, grads: tuple) -> None:
        """``node``'s backward returned ``grads``, one per input (``None``: no gradient), before
        the engine reduced each to its input's shape and dtype (``node._fixups``) and added it
        into that input's gradient; called just before ``on_backward``, for observers whose
        ``wants_returned`` is True."""


_lock = threading.Lock()
_attached = 0  # observers attached in all threads
_returning = 0  # ... of which want what backward nodes return
_originals: dict[str, object] = {}


def attach(observer: Observer) -> None:
    """Start reporting this thread's ops and backward nodes to ``observer``."""
    global _attached, _returning
    with _lock:
        if _attached == 0:
            _install()
        _attached += 1
        _returning += observer.wants_returned
    state.observers = (*state.observers, observer)


def detach(observer: Observer) -> None:
    """Stop reporting to ``observer`` (attached earlier in this thread)."""
    global _attached, _returning
    state.observers = tuple(o for o in state.observers if o is not observer)
    with _lock:
        _attached -= 1
        _returning -= observer.wants_returned
        if _attached == 0:
            _uninstall()


def retaining_graph() -> bool:
    """Whether the backward this thread runs keeps its graph (``retain_graph=True``)."""
    return getattr(_retaining, "flag", False)


_retaining = threading.local()  # .flag: set while an observed backward runs in this thread


def _install() -> None:
    _originals["_record"] = _function._record
    _originals["_backward_node"] = _engine._backward_node
    _originals["_accumulate"] = _engine._accumulate
    _originals["run"] = _engine.run
    _function._record = _observed_record
    _engine._backward_node = _observed_backward_node
    _engine._accumulate = _observed_accumulate
    _engine.run = _observed_run


def _uninstall() -> None:
    _function._record = _originals.pop("_record")
    _engine._backward_node = _originals.pop("_backward_node")
    _engine._accumulate = _originals.pop("_accumulate")
    _engine.run = _originals.pop("run")


def _observed_run(roots, grads, retain_graph, *args, **kwargs):
    previous = getattr(_retaining, "flag", False)
    _retaining.flag = bool(retain_graph)
    try:
        return _originals["run"](roots, grads, retain_graph, *args, **kwargs)
    finally:
        _retaining.flag = previous
        for observer in state.observers:
            observer.on_backward_end()


def _recorded_node(result):
    if type(result) is tuple:
        for out in result:
            node = getattr(out, "_node", None)
            if node is not None:
                return node
        return None
    return result._node


def _observed_record(cls, args, *rest, **kwargs):
    record = _originals["_record"]
    observers = state.observers
    if not observers:
        return record(cls, args, *rest, **kwargs)
    start = time.perf_counter_ns()
    result = record(cls, args, *rest, **kwargs)
    end = time.perf_counter_ns()
    node = _recorded_node(result)
    if node is not None:
        for observer in observers:
            observer.on_forward(node, args, result, start, end)
    return result


class _Returning:
    """Stands in for a node's Function (``node._function``, set on the node itself while its
    backward runs) to keep what its ``backward`` returns."""

    __slots__ = ("function", "returned")

    def __init__(self, function) -> None:
        self.function = function
        self.returned = None

    def backward(self, ctx, *grads):
        self.returned = self.function.backward(ctx, *grads)
        return self.returned

    def __getattr__(self, name: str):
        return getattr(self.function, name)


def _observed_backward_node(node, grad, *args, **kwargs):
    run = _originals["_backward_node"]
    observers = state.observers
    if not observers:
        return run(node, grad, *args, **kwargs)
    grads = tuple(grad) if node._n_outputs != 1 else (grad,)  # (the engine refills a list of several)
    if not _returning:
        start = time.perf_counter_ns()
        run(node, grad, *args, **kwargs)
        end = time.perf_counter_ns()
        for observer in observers:
            observer.on_backward(node, grads, start, end)
        return
    returning = node._function = _Returning(node._function)
    start = time.perf_counter_ns()
    try:
        run(node, grad, *args, **kwargs)
    finally:
        del node._function
    end = time.perf_counter_ns()
    returned = returning.returned
    returned = returned if type(returned) is tuple else (returned,)
    for observer in observers:
        if observer.wants_returned:
            observer.on_returned(node, returned)
        observer.on_backward(node, grads, start, end)


def _observed_accumulate(acc, grad, *args, **kwargs):
    run = _originals["_accumulate"]
    observers = state.observers
    if not observers:
        return run(acc, grad, *args, **kwargs)
    start = time.perf_counter_ns()
    run(acc, grad, *args, **kwargs)
    end = time.perf_counter_ns()
    for observer in observers:
        observer.on_backward(acc, (grad,), start, end)
