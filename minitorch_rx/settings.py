"""Process-wide settings, under PyTorch's names: they are torch's own (our ops run torch kernels),
and ``compile``, which has nothing to compile for an eager engine. ``use_deterministic_algorithms(True)``
acts on our ops as on torch's (torch's kernels raise or fill as they do for torch), and makes
``mt.backends.autotune`` keep the fixed rules' kernels (``backends/tuner.py``)."""

from __future__ import annotations

import warnings
from collections.abc import Callable

from torch import (
    are_deterministic_algorithms_enabled,
    get_default_dtype,
    get_deterministic_debug_mode,
    get_num_interop_threads,
    get_num_threads,
    is_deterministic_algorithms_warn_only_enabled,
    set_default_dtype,
    set_deterministic_debug_mode,
    set_num_interop_threads,
    set_num_threads,
    set_printoptions,
    use_deterministic_algorithms,
)

__all__ = [
    "are_deterministic_algorithms_enabled",
    "compile",
    "get_default_dtype",
    "get_deterministic_debug_mode",
    "get_num_interop_threads",
    "get_num_threads",
    "is_deterministic_algorithms_warn_only_enabled",
    "set_default_dtype",
    "set_deterministic_debug_mode",
    "set_num_interop_threads",
    "set_num_threads",
    "set_printoptions",
    "use_deterministic_algorithms",
]

_compile_noted = False


def compile(
    model: Callable | None = None,
    *,
    fullgraph: bool = False,
    dynamic: bool | None = None,
    backend: str | Callable = "inductor",
    mode: str | None = None,
    options: dict | None = None,
    disable: bool = False,
) -> Callable:
    """``torch.compile``'s signature; returns ``model`` (a module or function) unchanged, since
    minitorch_rx records its own graph eagerly and has no compiler. The first call says so once.
    Used bare or as a decorator, with or without arguments.

    >>> import minitorch_rx as mt, warnings
    >>> warnings.simplefilter("ignore")
    >>> f = lambda x: x * 2
    >>> mt.compile(f) is f
    True
    """
    if mode is not None and options is not None:
        raise RuntimeError("Either mode or options can be specified, but both can't be specified at the same time.")
    if model is None:

        def decorate(model: Callable) -> Callable:
            if model is None:
                raise RuntimeError("Model can't be None")
            return compile(model)

        return decorate
    if not callable(model):
        raise RuntimeError(f"compile expects a module or a function, got {type(model).__name__}")
    global _compile_noted
    if not _compile_noted and not disable:
        _compile_noted = True
        warnings.warn(
            "mt.compile returns the model unchanged: minitorch_rx runs eagerly on its own engine "
            "(this note is shown once)",
            UserWarning,
            stacklevel=2,
        )
    return model
