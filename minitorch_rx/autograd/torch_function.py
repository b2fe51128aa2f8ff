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
        # torch_tensor * mt_tensor: torch gives up, and Python calls mt.Tensor's reflected
        # operator, which records.
        return NotImplemented
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


def _tensor_class():
    from .tensor import Tensor

    return Tensor
