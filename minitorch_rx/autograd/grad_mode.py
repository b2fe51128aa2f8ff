"""Thread-local recording state: whether ops record a graph, and into which one."""

from __future__ import annotations

import functools
import threading


class _State(threading.local):
    """Per-thread engine state, read by every op.

    ``recording`` is what an op's hot path reads, once: the Graph to record into when grad mode
    is on, anomaly detection off and no observer (``autograd/observe.py``: the profiler, a
    detailed Graph) watches, else None (ops then take the general path, which checks the mode,
    keeps anomaly traces and is the one observers see). It follows the settings through their setters.
    """

    def __init__(self) -> None:
        self._grad_enabled = True
        self._anomaly = False
        self._graph = None  # the Graph ops record into; set lazily by autograd.graph
        self._observers: tuple = ()
        self.recording = None
        # True while backward runs with create_graph=True: torch functions that op backwards call
        # on mt.Tensors then run as their recorded minitorch_rx equivalents (autograd/tensor.py).
        self.differentiating = False
        self.backward_depth = 0  # backward passes running in this thread (one inside another's)
        # (pack, unpack) pairs of autograd.graph.saved_tensors_hooks, innermost last; while any is
        # active, ops take the general recording path, which packs what they save.
        self.saved_tensors_hooks: list = []

    def _refresh(self) -> None:
        watched = self._anomaly or self._observers or self.saved_tensors_hooks
        self.recording = self._graph if self._grad_enabled and not watched else None

    @property
    def observers(self) -> tuple:
        return self._observers

    @observers.setter
    def observers(self, observers: tuple) -> None:
        self._observers = observers
        self._refresh()

    @property
    def grad_enabled(self) -> bool:
        return self._grad_enabled

    @grad_enabled.setter
    def grad_enabled(self, enabled: bool) -> None:
        self._grad_enabled = enabled
        self._refresh()

    @property
    def anomaly(self) -> bool:
        return self._anomaly

    @anomaly.setter
    def anomaly(self, enabled: bool) -> None:
        self._anomaly = enabled
        self._refresh()

    @property
    def graph(self):
        return self._graph

    @graph.setter
    def graph(self, graph) -> None:
        self._graph = graph
        self._refresh()


state = _State()


def is_grad_enabled() -> bool:
    """Whether ops record into the graph in this thread."""
    return state.grad_enabled


class _GradModeContext:
    """Base of the grad-mode switches: a context manager and a function decorator."""

    enabled: bool

    def __enter__(self) -> None:
        self._previous = state.grad_enabled
        state.grad_enabled = self.enabled

    def __exit__(self, *exc: object) -> None:
        state.grad_enabled = self._previous

    def __call__(self, fn):
        enabled = self.enabled

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            previous = state.grad_enabled
            state.grad_enabled = enabled
            try:
                return fn(*args, **kwargs)
            finally:
                state.grad_enabled = previous

        return wrapper


class no_grad(_GradModeContext):
    """Context (or decorator) in which ops record nothing, as ``torch.no_grad``."""

    enabled = False


class enable_grad(_GradModeContext):
    """Context (or decorator) that turns recording back on, as ``torch.enable_grad``."""

    enabled = True


class set_grad_enabled(_GradModeContext):
    """Set recording on or off: as a call, or as a context that restores the old mode."""

    def __init__(self, mode: bool) -> None:
        self.enabled = bool(mode)
        self._previous = state.grad_enabled
        state.grad_enabled = self.enabled

    def __enter__(self) -> None:
        pass

    def __exit__(self, *exc: object) -> None:
        state.grad_enabled = self._previous
