"""Datasets: torchvision's MNIST, FashionMNIST and CIFAR10, and the shipped MNIST subset.

Unless a ``transform`` is given, images come as float tensors scaled to [0, 1] and normalized
with the data set's mean and standard deviation (what the model zoo's pretrained weights expect).
"""

from __future__ import annotations

from collections.abc import Callable
from importlib import resources
from pathlib import Path

import numpy as np
import torch
from torch.utils.data import Dataset

#: (mean, std) per channel of each data set's training images.
NORMALIZATION = {
    "mnist": ((0.1307,), (0.3081,)),
    "fashion_mnist": ((0.2860,), (0.3530,)),
    "cifar10": ((0.4914, 0.4822, 0.4465), (0.2470, 0.2435, 0.2616)),
}


def normalization(name: str) -> tuple[tuple[float, ...], tuple[float, ...]]:
    """The (mean, std) used to normalize data set ``name``."""
    return NORMALIZATION[name]


def default_transform(name: str, augment: bool = False) -> Callable:
    """ToTensor + Normalize for data set ``name`` (plus crop/flip augmentation for CIFAR-10 if ``augment``)."""
    from torchvision import transforms

    mean, std = NORMALIZATION[name]
    steps = [transforms.ToTensor(), transforms.Normalize(mean, std)]
    if augment:
        steps = [transforms.RandomCrop(32, padding=4), transforms.RandomHorizontalFlip(), *steps]
    return transforms.Compose(steps)


class MNISTSubset(Dataset):
    """The first 10,000 training / 2,000 test images of MNIST, shipped inside the package
    (CC BY-SA 3.0; see ``minitorch_rx/data/MNIST_SUBSET.md``). Needs no download."""

    def __init__(
        self, train: bool = True, transform: Callable | None = None, target_transform: Callable | None = None
    ) -> None:
        with resources.files(__package__).joinpath("mnist_subset.npz").open("rb") as file:
            arrays = np.load(file)
            split = "train" if train else "test"
            self.data = torch.from_numpy(arrays[f"{split}_images"].copy())
            self.targets = torch.from_numpy(arrays[f"{split}_labels"].astype(np.int64))
        self.train = train
        self.transform = transform
        self.target_transform = target_transform
        self._mean, self._std = NORMALIZATION["mnist"]

    def __len__(self) -> int:
        return len(self.targets)

    def __getitem__(self, index: int):
        target = int(self.targets[index])
        if self.transform is None:
            image = (self.data[index].unsqueeze(0).float() / 255 - self._mean[0]) / self._std[0]
        else:
            from PIL import Image

            image = self.transform(Image.fromarray(self.data[index].numpy(), mode="L"))
        if self.target_transform is not None:
            target = self.target_transform(target)
        return image, target


def MNIST(
    root: str | Path | None = None,
    train: bool = True,
    download: bool = False,
    transform: Callable | None = None,
    target_transform: Callable | None = None,
) -> Dataset:
    """MNIST through torchvision from ``root``; with no ``root``, the subset shipped in the package."""
    if root is None:
        return MNISTSubset(train, transform, target_transform)
    from torchvision import datasets

    return datasets.MNIST(
        str(root),
        train=train,
        download=download,
        transform=transform or default_transform("mnist"),
        target_transform=target_transform,
    )


def FashionMNIST(
    root: str | Path,
    train: bool = True,
    download: bool = False,
    transform: Callable | None = None,
    target_transform: Callable | None = None,
) -> Dataset:
    """Fashion-MNIST through torchvision."""
    from torchvision import datasets

    return datasets.FashionMNIST(
        str(root),
        train=train,
        download=download,
        transform=transform or default_transform("fashion_mnist"),
        target_transform=target_transform,
    )


def CIFAR10(
    root: str | Path,
    train: bool = True,
    download: bool = False,
    transform: Callable | None = None,
    target_transform: Callable | None = None,
) -> Dataset:
    """CIFAR-10 through torchvision (``root`` holds ``cifar-10-batches-py``)."""
    from torchvision import datasets

    return datasets.CIFAR10(
        str(root),
        train=train,
        download=download,
        transform=transform or default_transform("cifar10"),
        target_transform=target_transform,
    )


_DATASETS = {"mnist": MNIST, "fashion_mnist": FashionMNIST, "fashion-mnist": FashionMNIST, "cifar10": CIFAR10}


def get_dataset(
    name: str,
    root: str | Path | None = None,
    train: bool = True,
    download: bool = False,
    transform: Callable | None = None,
) -> Dataset:
    """A data set by name: ``mnist`` (the shipped subset when ``root`` is None), ``fashion_mnist``, ``cifar10``."""
    if not isinstance(name, str):
        raise TypeError(f"dataset name must be a string, got {type(name).__name__}")
    key = name.lower()
    if key not in _DATASETS:
        raise ValueError(f"unknown dataset '{name}'; choose one of {sorted(set(_DATASETS))}")
    if root is None and key != "mnist":
        raise ValueError(
            f"dataset '{name}' needs a data root (--data-root); only MNIST has a subset shipped in the package"
        )
    return _DATASETS[key](root, train=train, download=download, transform=transform)
