"""``torch.utils.data`` under our name: torch's datasets, samplers and ``random_split`` as they are,
and a ``DataLoader`` that yields ``mt.Tensor`` batches.

``mt.utils.data.DataLoader`` is torch's (every option, ``isinstance(loader, torch.utils.data.DataLoader)``
holds); each batch's torch tensors are wrapped (no copy) as ``mt.Tensor`` s that need no gradient,
so every op takes them. ``default_collate`` (torch's, whichever loader calls it) stacks ``mt.Tensor``
samples too: importing minitorch_rx registers them in ``default_collate_fn_map``, the extension point
torch documents for it, and the batch is an ``mt.Tensor`` (from worker processes too).

>>> import minitorch_rx as mt
>>> dataset = mt.utils.data.TensorDataset(mt.arange(6.0).reshape(3, 2), mt.tensor([0, 1, 0]))
>>> x, y = next(iter(mt.utils.data.DataLoader(dataset, batch_size=2)))
>>> type(x).__name__, x.shape, y.tolist()
('Tensor', torch.Size([2, 2]), [0, 1])
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping

import torch
import torch.utils.data
from torch.utils.data import (
    BatchSampler,
    ChainDataset,
    ConcatDataset,
    Dataset,
    DistributedSampler,
    IterableDataset,
    RandomSampler,
    Sampler,
    SequentialSampler,
    StackDataset,
    Subset,
    SubsetRandomSampler,
    TensorDataset,
    WeightedRandomSampler,
    default_collate,
    default_convert,
    distributed,
    get_worker_info,
    random_split,
)
from torch.utils.data._utils.collate import collate_tensor_fn, default_collate_fn_map

from ..autograd.tensor import Tensor, is_torch_data

__all__ = [
    "BatchSampler",
    "ChainDataset",
    "ConcatDataset",
    "DataLoader",
    "Dataset",
    "DistributedSampler",
    "IterableDataset",
    "RandomSampler",
    "Sampler",
    "SequentialSampler",
    "StackDataset",
    "Subset",
    "SubsetRandomSampler",
    "TensorDataset",
    "WeightedRandomSampler",
    "default_collate",
    "default_convert",
    "distributed",
    "get_worker_info",
    "random_split",
]


def as_mt(batch: object) -> object:
    """``batch`` with every torch tensor in it (nested in tuples, named tuples, lists and mappings)
    wrapped as an ``mt.Tensor`` sharing its memory."""
    if is_torch_data(batch):
        return Tensor._make(batch if type(batch) is torch.Tensor else batch.as_subclass(torch.Tensor), None)
    if isinstance(batch, Mapping):
        return {key: as_mt(value) for key, value in batch.items()}
    if isinstance(batch, tuple) and hasattr(batch, "_fields"):
        return type(batch)(*(as_mt(item) for item in batch))
    if isinstance(batch, (list, tuple)):
        return type(batch)(as_mt(item) for item in batch)
    return batch


class DataLoader(torch.utils.data.DataLoader):
    """``torch.utils.data.DataLoader`` (same arguments: workers, samplers, ``collate_fn``,
    ``pin_memory``, ...) whose batches come as ``mt.Tensor`` s."""

    def __iter__(self) -> Iterator:
        return map(as_mt, super().__iter__())


def _collate_mt_tensors(batch: list[Tensor], *, collate_fn_map: dict | None = None) -> Tensor:
    """The samples stacked as torch's ``collate_tensor_fn`` stacks them (into shared memory in a
    worker process), as a new ``mt.Tensor``: a torch ``DataLoader`` hands back our batches."""
    return Tensor._make(collate_tensor_fn([t._data for t in batch], collate_fn_map=collate_fn_map), None)


default_collate_fn_map[Tensor] = _collate_mt_tensors
