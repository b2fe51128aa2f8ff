"""Memory held for backward: the storages that recorded nodes keep alive.

A node keeps what its op saved (``ctx.save_for_backward``) and any tensor its op stored on the
ctx (an index tensor, a mask). Bytes are counted per storage, not per tensor: a view counts its
base's whole storage, and a storage that several tensors (or several nodes) share counts once,
because that is the memory that freeing the graph gives back.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

import torch

from .tensor import is_torch_data

# Tensors nested this deep in a ctx attribute still count (``ctx.key = (index_tensor, slice)``).
_NESTED = (tuple, list)


def _tensors_in(value: object) -> Iterator[torch.Tensor]:
    if is_torch_data(value):
        yield value
    elif isinstance(value, _NESTED):
        for item in value:
            if is_torch_data(item):
                yield item
    else:
        data = getattr(value, "_data", None)  # an mt.Tensor (saved under create_graph)
        if is_torch_data(data):
            yield data


def saved_storages(node) -> dict[tuple, int]:
    """``{storage key: bytes}`` of the storages ``node`` keeps for its backward (empty once released)."""
    storages: dict[tuple, int] = {}
    if node._inputs is None:  # released by backward
        return storages
    values = list(node._saved or ())
    values.extend(getattr(node, "__dict__", {}).values())
    for value in values:
        for t in _tensors_in(value):
            storage = t.untyped_storage()
            storages[(t.device, storage.data_ptr())] = storage.nbytes()
    return storages


def node_saved_bytes(node) -> int:
    """Bytes of the storages one node keeps for backward, each storage once."""
    return sum(saved_storages(node).values())


def saved_bytes(nodes: Iterable) -> int:
    """Bytes that ``nodes`` keep for backward together: a storage shared by several counts once."""
    storages: dict[tuple, int] = {}
    for node in nodes:
        storages.update(saved_storages(node))
    return sum(storages.values())


def format_bytes(n: int) -> str:
    """``1536`` -> ``'1.5 KiB'``."""
    if n < 1024:
        return f"{n} B"
    value = float(n)
    for unit in ("KiB", "MiB"):
        value /= 1024
        if value < 1024:
            return f"{value:.1f} {unit}"
    return f"{value / 1024:.1f} GiB"
