"""What a torch function does when it meets an ``mt.Tensor`` (``Tensor.__torch_function__``).

While backward runs with ``create_graph=True`` (``state.differentiating``), the torch functions
that op backwards call run as their recorded equivalents (registered by ``ops/recorded.py``),
so that second and higher derivatives flow through them; one without an equivalent raises.
"""

from __future__ import annotations

from collections.abc import Callable

import torch

from .grad_mode import state

#: torch function -> the minitorch_rx function that computes it with recording.
RECORDED: dict[Callable, Callable] = {}


def recorded_equivalent(*torch_functions: Callable) -> Callable:
    """Register the decorated function as what ``torch_functions`` run as under ``create_graph``."""

    def register(fn: Callable) -> Callable:
        for torch_function in torch_functions:
            RECORDED[torch_function] = fn
        return fn

    return register


def dispatch(func: Callable, args: tuple, kwargs: dict):
    if not state.differentiating:
        if func in _OPERATORS and args and isinstance(args[0], torch.Tensor):
            # torch_tensor * mt_tensor: torch gives up, and Python calls mt.Tensor's reflected
            # operator, which records.
            return NotImplemented
        return func(*unwrap(args), **unwrap(kwargs))
    equivalent = RECORDED.get(func)
    if equivalent is not None:
        return equivalent(*args, **kwargs)
    name = getattr(func, "__name__", "")
    if getattr(func, "__objclass__", None) is torch._C.TensorBase and hasattr(_tensor_class(), name):
        # A torch.Tensor method called on torch data with mt.Tensor arguments (``zeros.scatter_(d,
        # i, grad)``, ``mask * grad``): the same method of the data as a constant mt.Tensor.
        Tensor = _tensor_class()
        self = args[0] if isinstance(args[0], Tensor) else Tensor._make(args[0], None)
        return getattr(self, name)(*args[1:], **kwargs)
    raise RuntimeError(
        f"create_graph=True: a backward called {name or func} on an mt.Tensor, which has no recorded "
        "equivalent in minitorch_rx, so this gradient cannot be differentiated again"
    )


# torch.Tensor's operator methods, as ``torch_tensor OP mt_tensor`` calls them.
_OPERATORS = frozenset(
    getattr(torch.Tensor, name)
    for name in (
        "add sub mul div remainder matmul eq ne lt le gt ge bitwise_and bitwise_or bitwise_xor "
        "__and__ __or__ __xor__ __lshift__ __rshift__ __rlshift__ __rrshift__ __rsub__ __rdiv__ "
        "__floordiv__ __rfloordiv__ __rmod__ __pow__ __rpow__ __rmatmul__"
    ).split()
)


def unwrap(value: object) -> object:
    """``value`` with every ``mt.Tensor`` in it (also inside lists, tuples and dicts) replaced by its torch data."""
    if isinstance(value, _tensor_class()):
        return value._data
    if type(value) in (list, tuple):
        return type(value)(unwrap(v) for v in value)
    if type(value) is dict:
        return {k: unwrap(v) for k, v in value.items()}
    return value


def _tensor_class():
    from .tensor import Tensor

    return Tensor
