"""Datasets through torchvision, a small real MNIST subset shipped in the package, and a loader
that yields ``mt.Tensor`` batches on top of ``torch.utils.data.DataLoader``."""

from .datasets import (
    CIFAR10,
    MNIST,
    CIFAR10Samples,
    DataFolderError,
    FashionMNIST,
    MNISTSubset,
    get_dataset,
    normalization,
)
from .loader import DataLoader
from .text import TinyShakespeare

__all__ = [
    "CIFAR10",
    "CIFAR10Samples",
    "DataFolderError",
    "DataLoader",
    "FashionMNIST",
    "MNIST",
    "MNISTSubset",
    "TinyShakespeare",
    "get_dataset",
    "normalization",
]
