"""Dimension arguments checked and normalized once, with PyTorch's error wording."""

from __future__ import annotations

import torch


def int_tuple(value: object, function: str, argument: str, position: int) -> tuple[int, ...]:
    """A sequence of ints as a tuple, or PyTorch's TypeError: ``pad(): argument 'pad' (position 2)
    must be tuple of ints, not float``."""
    expected = f"{function}(): argument '{argument}' (position {position}) must be tuple of ints"
    if isinstance(value, (tuple, list, torch.Size)):
        if all(isinstance(v, int) and not isinstance(v, bool) for v in value):
            return tuple(value)
        kind = next(type(v).__name__ for v in value if not isinstance(v, int) or isinstance(v, bool))
        raise TypeError(f"{expected}, but found element of type {kind}")
    raise TypeError(f"{expected}, not {type(value).__name__}")


def normalize_dim(dim: int, ndim: int) -> int:
    """``dim`` as a non-negative index into ``ndim`` dims (a 0-dim tensor accepts 0 and -1)."""
    if not isinstance(dim, int) or isinstance(dim, bool):
        raise TypeError(f"dim must be an int, got {type(dim).__name__}")
    size = max(ndim, 1)
    if not -size <= dim < size:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-size}, {size - 1}], but got {dim})")
    return dim % size


def normalize_dims(dim: int | tuple | list | None, ndim: int) -> tuple[int, ...] | None:
    """An int or a sequence of dims as a sorted tuple of non-negative ints; ``None`` means all."""
    if dim is None:
        return None
    if isinstance(dim, int):
        return (normalize_dim(dim, ndim),)
    if not isinstance(dim, (tuple, list, torch.Size)):
        raise TypeError(f"argument 'dim' must be an int or a tuple of ints, not {type(dim).__name__}")
    dims = tuple(normalize_dim(d, ndim) for d in dim)
    if len(set(dims)) != len(dims):
        raise RuntimeError(
            f"dim {next(d for d in dims if dims.count(d) > 1)} appears multiple times in the list of dims"
        )
    return tuple(sorted(dims)) if dims else None
