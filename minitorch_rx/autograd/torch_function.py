"""What a torch function does when it meets an ``mt.Tensor`` (``Tensor.__torch_function__``).

While backward runs with ``create_graph=True`` (``state.differentiating``), the torch functions
that op backwards call run as their recorded equivalents (registered by ``ops/recorded.py``),
so that second and higher derivatives flow through them; one without an equivalent raises.
"""

from __future__ import annotations

from collections.abc import Callable

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


def _is_operator(func: Callable) -> bool:
    name = getattr(func, "__name__", "")
    return name.startswith("__") and name.endswith("__")


def dispatch(func: Callable, args: tuple, kwargs: dict):
    if _is_operator(func):
        # torch_tensor * mt_tensor: let Python call mt.Tensor's reflected operator, which records.
        return NotImplemented
    if state.differentiating:
        equivalent = RECORDED.get(func)
        if equivalent is None:
            raise RuntimeError(
                f"create_graph=True: a backward called {getattr(func, '__name__', func)} on an mt.Tensor, "
                "which has no recorded equivalent in minitorch_rx, so this gradient cannot be "
                "differentiated again"
            )
        return equivalent(*args, **kwargs)
    return NotImplemented
