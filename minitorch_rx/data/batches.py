"""A whole image data set held in memory as one uint8 tensor, served as shuffled, augmented,
normalized batches on the training device.

MNIST and CIFAR-10 fit in memory many times over (CIFAR-10's 50,000 training images are 150 MB
as uint8), so batches are cut from one tensor by index instead of decoding images one by one in
loader processes: on a 2-core machine that leaves both cores to the training step, and on a GPU
the crop, flip and normalization run there. Everything random in an epoch (the order, each
image's crop offsets and flip) comes from one generator seeded by ``(seed, epoch)``, so an epoch
is the same whether or not the run was interrupted and resumed before it.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import torch
from torch.utils.data import Dataset, Subset

from ..autograd.tensor import Tensor, is_torch_data
from .datasets import NORMALIZATION


def images_and_labels(dataset: Dataset) -> tuple[torch.Tensor, torch.Tensor]:
    """The images of a torchvision-style data set (one with ``data`` and ``targets``, or a
    ``Subset`` of one) as a uint8 tensor (N, C, H, W) and its labels as int64 (N,)."""
    if isinstance(dataset, Subset):
        images, labels = images_and_labels(dataset.dataset)
        indices = torch.as_tensor(list(dataset.indices), dtype=torch.int64)
        return images[indices], labels[indices]
    data, targets = getattr(dataset, "data", None), getattr(dataset, "targets", None)
    if data is None or targets is None:
        raise TypeError(f"{type(dataset).__name__} has no 'data' and 'targets' to hold in memory")
    images = torch.as_tensor(np.asarray(data)) if not is_torch_data(data) else data
    if images.dtype != torch.uint8:
        raise TypeError(f"expected uint8 images, got {images.dtype}")
    if images.dim() == 3:  # MNIST: (N, H, W)
        images = images.unsqueeze(1)
    elif images.shape[-1] in (1, 3) and images.shape[1] not in (1, 3):  # torchvision's CIFAR-10: (N, H, W, C)
        images = images.permute(0, 3, 1, 2)
    return images.contiguous(), torch.as_tensor(targets, dtype=torch.int64)


def class_names(dataset: Dataset, classes: int) -> list[str]:
    """The names of a data set's ``classes`` classes (torchvision's ``classes``; else "0", "1", ...)."""
    while isinstance(dataset, Subset):
        dataset = dataset.dataset
    names = list(getattr(dataset, "classes", None) or [])
    return names if len(names) == classes else [str(i) for i in range(classes)]


class ImageBatches:
    """Batches of ``dataset`` (see ``images_and_labels``) as ``mt.Tensor`` s on ``device``:
    float32 images scaled to [0, 1] and normalized with data set ``name``'s mean and std, and
    int64 labels.

    ``shuffle`` draws a new order each epoch; ``augment`` crops each image at a random offset
    after padding it with ``padding`` black pixels on every side and flips half of them left to
    right (the standard CIFAR augmentation). Under data parallelism rank ``rank`` of
    ``world_size`` takes every ``world_size``-th image of the epoch's order, the order padded by
    wrapping around so that every rank runs the same number of equal steps (as
    ``DistributedSampler``).

    >>> import minitorch_rx as mt
    >>> batches = ImageBatches(mt.data.MNIST(train=False), "mnist", batch_size=500)
    >>> images, labels = next(batches.epoch(0))
    >>> images.shape, images.dtype, labels.shape
    (torch.Size([500, 1, 28, 28]), torch.float32, torch.Size([500]))
    """

    def __init__(
        self,
        dataset: Dataset,
        name: str,
        batch_size: int,
        *,
        shuffle: bool = False,
        augment: bool = False,
        padding: int = 4,
        seed: int = 0,
        device: str | torch.device = "cpu",
        rank: int = 0,
        world_size: int = 1,
    ) -> None:
        images, labels = images_and_labels(dataset)
        self.dataset = dataset
        self.device = torch.device(device)
        self.images = images.to(self.device)
        self.labels = labels.to(self.device)
        mean, std = NORMALIZATION[name]
        shape = (1, len(mean), 1, 1)
        self._scale = (1 / (255 * torch.tensor(std))).reshape(shape).to(self.device)
        self._shift = (-torch.tensor(mean) / torch.tensor(std)).reshape(shape).to(self.device)
        self.name = name
        self.batch_size = batch_size
        self.shuffle, self.augment, self.padding, self.seed = shuffle, augment, padding, seed
        self.rank, self.world_size = rank, world_size

    @property
    def per_rank(self) -> int:
        """Images each rank sees in an epoch."""
        return -(-len(self.labels) // self.world_size)

    def __len__(self) -> int:
        return -(-self.per_rank // self.batch_size)

    def epoch(self, epoch: int) -> Iterator[tuple[Tensor, Tensor]]:
        """The batches of epoch ``epoch`` (counted from 0), the same on every call."""
        count = len(self.labels)
        generator = torch.Generator().manual_seed(self.seed * 1000 + epoch)
        order = torch.randperm(count, generator=generator) if self.shuffle else torch.arange(count)
        reach = 2 * self.padding + 1
        offsets = torch.randint(0, reach, (count, 2), generator=generator) if self.augment else None
        flips = torch.rand(count, generator=generator) < 0.5 if self.augment else None
        positions = torch.arange(self.rank, self.per_rank * self.world_size, self.world_size) % count
        for start in range(0, len(positions), self.batch_size):
            chosen = positions[start : start + self.batch_size]
            index = order[chosen].to(self.device)
            images = self.images[index]
            if self.augment:
                images = self._crop_and_flip(images, offsets[chosen].to(self.device), flips[chosen].to(self.device))
            images = images.to(torch.float32) * self._scale + self._shift
            yield Tensor._make(images, None), Tensor._make(self.labels[index], None)

    def _crop_and_flip(self, images: torch.Tensor, offsets: torch.Tensor, flips: torch.Tensor) -> torch.Tensor:
        """Each image cropped to its own size at ``offsets`` (rows, columns) in its zero-padded
        copy, then mirrored where ``flips``: one gather for the whole batch."""
        n, channels, height, width = images.shape
        padded = torch.nn.functional.pad(images, (self.padding,) * 4)
        rows = offsets[:, :1] + torch.arange(height, device=images.device)  # (n, height)
        columns = offsets[:, 1:] + torch.arange(width, device=images.device)  # (n, width)
        columns = torch.where(flips[:, None], columns.flip(1), columns)
        batch = torch.arange(n, device=images.device)[:, None, None, None]
        channel = torch.arange(channels, device=images.device)[None, :, None, None]
        return padded[batch, channel, rows[:, None, :, None], columns[:, None, None, :]]
