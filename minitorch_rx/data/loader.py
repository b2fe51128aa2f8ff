"""A loader yielding ``mt.Tensor`` batches: torch's ``DataLoader`` does the work (workers,
shuffling, samplers such as ``DistributedSampler``, pinned memory); batches are wrapped, not copied."""

from __future__ import annotations

import random

import numpy as np
import torch
from torch.utils.data import Dataset, Sampler

from ..autograd.tensor import Tensor, is_torch_data


def _seed_worker(worker_id: int) -> None:
    seed = torch.initial_seed() % 2**32
    np.random.seed(seed)
    random.seed(seed)


def _wrap(batch):
    if is_torch_data(batch):
        return Tensor._make(batch, None)
    if isinstance(batch, (list, tuple)):
        return type(batch)(_wrap(b) for b in batch)
    if isinstance(batch, dict):
        return {k: _wrap(v) for k, v in batch.items()}
    return batch


class DataLoader:
    """Batches of a dataset as ``mt.Tensor`` s, with ``torch.utils.data.DataLoader``'s options.

    ``seed`` makes shuffling (and workers' random state) reproducible run to run; ``device``
    moves each batch there (non-blocking from pinned memory).

    >>> import minitorch_rx as mt
    >>> loader = mt.data.DataLoader(mt.data.MNIST(train=False), batch_size=64)
    >>> images, labels = next(iter(loader))
    >>> images.shape, labels.shape
    (torch.Size([64, 1, 28, 28]), torch.Size([64]))
    """

    def __init__(
        self,
        dataset: Dataset,
        batch_size: int = 1,
        shuffle: bool = False,
        num_workers: int = 0,
        seed: int | None = None,
        pin_memory: bool = False,
        drop_last: bool = False,
        sampler: Sampler | None = None,
        device: str | torch.device | None = None,
    ) -> None:
        generator = None if seed is None else torch.Generator().manual_seed(seed)
        self.dataset = dataset
        self.batch_size = batch_size
        self.sampler = sampler
        self.device = None if device is None else torch.device(device)
        self._loader = torch.utils.data.DataLoader(
            dataset,
            batch_size=batch_size,
            shuffle=shuffle if sampler is None else False,
            sampler=sampler,
            num_workers=num_workers,
            pin_memory=pin_memory,
            drop_last=drop_last,
            generator=generator,
            worker_init_fn=_seed_worker if num_workers else None,
            persistent_workers=num_workers > 0,
        )

    def __len__(self) -> int:
        return len(self._loader)

    def __iter__(self):
        device = self.device
        for batch in self._loader:
            if device is not None:
                batch = _to_device(batch, device)
            yield _wrap(batch)


def _to_device(batch, device: torch.device):
    if is_torch_data(batch):
        return batch.to(device, non_blocking=True)
    if isinstance(batch, (list, tuple)):
        return type(batch)(_to_device(b, device) for b in batch)
    return batch
