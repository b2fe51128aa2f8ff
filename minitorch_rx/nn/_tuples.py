"""Size arguments given as an int or a tuple, turned into tuples of a layer's rank."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from itertools import repeat
from typing import Any


def _ntuple(n: int) -> Callable[[Any], tuple]:
    def parse(x: Any) -> tuple:
        if isinstance(x, Iterable) and not isinstance(x, str):
            return tuple(x)
        return tuple(repeat(x, n))

    return parse


_single = _ntuple(1)
_pair = _ntuple(2)
_triple = _ntuple(3)


def _reverse_repeat_tuple(t: tuple, n: int) -> tuple:
    """``(a, b)`` to ``(b, b, a, a)`` for n=2: per-dim padding in the order ``pad`` expects."""
    return tuple(x for x in reversed(t) for _ in range(n))
