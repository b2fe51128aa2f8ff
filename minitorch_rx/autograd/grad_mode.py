"""Thread-local recording state: whether ops record a graph, and into which one."""

from __future__ import annotations

import functools
import inspect
import sys
import threading
import warnings
from collections.abc import Callable

import torch


class _State(threading.local):
    """Per-thread engine state, read by every op.

    ``recording`` is what an op's hot path reads, once: the Graph to record into when anomaly
    detection is off and no observer (``autograd/observe.py``: the profiler, a detailed Graph)
    watches, else None (ops then take the general path, which keeps anomaly traces and is the one
    observers see). It follows the settings through their setters. Grad mode is torch's own
    (thread-local too): PyTorch has one mode, so ``torch.no_grad()`` in a library and our
    ``no_grad()`` are the same switch, and every op reads it.
    """

    def __init__(self) -> None:
        self._anomaly = False
        self._graph = None  # the Graph ops record into; set lazily by autograd.graph
        self._observers: tuple = ()
        self.recording = None
        # True while backward runs with create_graph=True: torch functions that op backwards call
        # on mt.Tensors then run as their recorded minitorch_rx equivalents (autograd/tensor.py).
        self.differentiating = False
        self.backward_depth = 0  # backward passes running in this thread (one inside another's)
        # The torch functions whose minitorch_rx function runs now in this thread, called on mt
        # tensors (autograd/torch_function.py): one called again from inside it is ours to unwrap.
        self.dispatching: set = set()
        # (pack, unpack) pairs of autograd.graph.saved_tensors_hooks, innermost last; while any is
        # active, ops take the general recording path, which packs what they save.
        self.saved_tensors_hooks: list = []

    def _refresh(self) -> None:
        watched = self._anomaly or self._observers or self.saved_tensors_hooks
        self.recording = None if watched else self._graph

    @property
    def observers(self) -> tuple:
        return self._observers

    @observers.setter
    def observers(self, observers: tuple) -> None:
        self._observers = observers
        self._refresh()

    @property
    def grad_enabled(self) -> bool:
        return torch.is_grad_enabled()

    @grad_enabled.setter
    def grad_enabled(self, enabled: bool) -> None:
        torch._C._set_grad_enabled(enabled)

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
    """Whether ops record into the graph in this thread: torch's grad mode, the one mode (a
    library's ``torch.no_grad()`` turns our recording off too)."""
    return torch.is_grad_enabled()


class _DecoratorContextManager:
    """A context manager that also decorates functions, as PyTorch's grad-mode switches do: each
    call of the decorated function runs in a fresh copy of the context, and a generator function's
    body runs in it at each step (the caller's code between steps runs in the caller's mode)."""

    def __call__(self, fn: Callable) -> Callable:
        if inspect.isclass(fn):
            warnings.warn(
                "Decorating classes is deprecated and will be disabled in future versions. You should only "
                "decorate functions or methods. To preserve the current behavior of class decoration, you can "
                "directly decorate the `__init__` method and nothing else.",
                FutureWarning,
                stacklevel=2,
            )
            cls = fn

            def fn(*args, **kwargs):
                return cls(*args, **kwargs)

        if not callable(fn):
            raise TypeError(f"{type(self).__name__}() decorates a function, got {type(fn).__name__}")
        return _context_decorator(self.clone, fn)

    def clone(self) -> _DecoratorContextManager:
        return type(self)()

    def __enter__(self) -> None:
        raise NotImplementedError

    def __exit__(self, *exc: object) -> None:
        raise NotImplementedError


def _context_decorator(factory: Callable, fn: Callable) -> Callable:
    if inspect.isgeneratorfunction(fn):
        return _wrap_generator(factory, fn)

    @functools.wraps(fn)
    def decorated(*args, **kwargs):
        with factory():
            return fn(*args, **kwargs)

    return decorated


def _wrap_generator(factory: Callable, fn: Callable) -> Callable:
    """Run each step of the generator ``fn`` returns (start, send, throw, close) in the context."""

    @functools.wraps(fn)
    def generator(*args, **kwargs):
        gen = fn(*args, **kwargs)
        try:
            with factory():
                response = gen.send(None)
            while True:
                try:
                    request = yield response
                except GeneratorExit:
                    with factory():
                        gen.close()
                    raise
                except BaseException:
                    with factory():
                        response = gen.throw(*sys.exc_info())
                else:
                    with factory():
                        response = gen.send(request)
        except StopIteration as stop:
            return stop.value

    return generator


class _NoParameterContextManager(_DecoratorContextManager):
    """One that decorates with or without parentheses: ``@no_grad()`` and ``@no_grad``."""

    def __new__(cls, fn: Callable | None = None):
        if fn is None:
            return super().__new__(cls)
        return cls()(fn)


class _SetGrad(_NoParameterContextManager):
    enabled: bool

    def __enter__(self) -> None:
        self._previous = state.grad_enabled
        state.grad_enabled = self.enabled

    def __exit__(self, *exc: object) -> None:
        state.grad_enabled = self._previous


class no_grad(_SetGrad):
    """Context (or decorator, of functions, methods and generators) in which ops record nothing,
    as ``torch.no_grad``."""

    enabled = False


class enable_grad(_SetGrad):
    """Context (or decorator) that turns recording back on, as ``torch.enable_grad``."""

    enabled = True


class set_grad_enabled(_DecoratorContextManager):
    """Set recording on or off, as ``torch.set_grad_enabled``: called, it sets the mode at once;
    as a context it restores the old mode on exit; as a decorator it leaves the caller's mode as
    it was and runs each call of the function in ``mode``."""

    def __init__(self, mode: bool) -> None:
        if not isinstance(mode, bool):
            raise TypeError(
                f"set_grad_enabled(): argument 'enabled' (position 1) must be bool, not {type(mode).__name__}"
            )
        self.mode = mode
        self._previous = state.grad_enabled
        state.grad_enabled = mode

    def __call__(self, fn: Callable) -> Callable:
        state.grad_enabled = self._previous
        return super().__call__(fn)

    def __enter__(self) -> None:
        state.grad_enabled = self.mode

    def __exit__(self, *exc: object) -> None:
        state.grad_enabled = self._previous

    def clone(self) -> set_grad_enabled:
        return type(self)(self.mode)

    def __repr__(self) -> str:
        return f"minitorch_rx.set_grad_enabled(mode={self.mode})"


class inference_mode(_DecoratorContextManager):
    """Context (or decorator, with or without parentheses) for code whose results never take part
    in a backward pass, as ``torch.inference_mode``: here it turns recording off as ``no_grad``
    does, and ``inference_mode(False)`` turns it on (as PyTorch's does, even inside ``no_grad``).
    PyTorch's extra restrictions on inference tensors do not apply."""

    def __new__(cls, mode: bool | Callable = True):
        if isinstance(mode, bool):
            return super().__new__(cls)
        if not callable(mode):
            raise TypeError(f"inference_mode() takes a bool mode or a function to decorate, got {type(mode).__name__}")
        return cls()(mode)

    def __init__(self, mode: bool = True) -> None:
        self.mode = mode

    def __enter__(self) -> None:
        self._previous = state.grad_enabled
        state.grad_enabled = not self.mode

    def __exit__(self, *exc: object) -> None:
        state.grad_enabled = self._previous

    def clone(self) -> inference_mode:
        return type(self)(self.mode)
