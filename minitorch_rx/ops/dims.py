"""Dimension arguments checked and normalized once, with PyTorch's error wording."""

from __future__ import annotations


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
    dims = tuple(normalize_dim(d, ndim) for d in dim)
    if len(set(dims)) != len(dims):
        raise RuntimeError(
            f"dim {next(d for d in dims if dims.count(d) > 1)} appears multiple times in the list of dims"
        )
    return tuple(sorted(dims)) if dims else None
