"""Datasets: torchvision's MNIST, FashionMNIST and CIFAR10, and the shipped MNIST subset.

Unless a ``transform`` is given, images come as float tensors scaled to [0, 1] and normalized
with the data set's mean and standard deviation (what the model zoo's pretrained weights expect).
"""

from __future__ import annotations

import gzip
import hashlib
import os
import pickle
import shutil
import tempfile
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


class CIFAR10Samples(Dataset):
    """The first 50 CIFAR-10 test images (uint8, 3x32x32) with their labels, shipped inside the
    package so that a model trained on CIFAR-10 can be tried without the data set (see
    ``minitorch_rx/data/CIFAR10_SAMPLES.md``). Items are normalized float tensors and labels."""

    classes = ["airplane", "automobile", "bird", "cat", "deer", "dog", "frog", "horse", "ship", "truck"]

    def __init__(self) -> None:
        with resources.files(__package__).joinpath("cifar10_samples.npz").open("rb") as file:
            arrays = np.load(file)
            self.data = torch.from_numpy(arrays["images"].copy())  # (50, 3, 32, 32)
            self.targets = torch.from_numpy(arrays["labels"].astype(np.int64))
        mean, std = NORMALIZATION["cifar10"]
        self._mean, self._std = torch.tensor(mean)[:, None, None], torch.tensor(std)[:, None, None]

    def __len__(self) -> int:
        return len(self.targets)

    def __getitem__(self, index: int):
        return (self.data[index].float() / 255 - self._mean) / self._std, int(self.targets[index])


class DataFolderError(RuntimeError):
    """A data folder that lacks files, or holds files whose checksums are not torchvision's."""


def _md5(path: Path) -> str:
    digest = hashlib.md5()
    with open(path, "rb") as file:
        for block in iter(lambda: file.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _cache_folder(root: Path) -> Path:
    """Where the unpacked files of a read-only data folder ``root`` go."""
    base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "minitorch_rx" / "data"
    return base / hashlib.sha1(str(root.resolve()).encode()).hexdigest()[:16]


def _writable(folder: Path) -> bool:
    try:
        with tempfile.NamedTemporaryFile(dir=folder):
            return True
    except OSError:
        return False


def _gunzip(source: Path, target: Path) -> None:
    """Unpack ``source`` to ``target`` through a temporary file (processes unpacking at once never
    see a partial file)."""
    target.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.NamedTemporaryFile(dir=target.parent, prefix=f".{target.name}.", delete=False) as partial:
        with gzip.open(source, "rb") as packed:
            shutil.copyfileobj(packed, partial, 1 << 20)
    os.replace(partial.name, target)


def _mnist_root(root: str | Path, folder: str, resources, mirror: str, verify: bool) -> Path:
    """The root torchvision should read ``folder`` (MNIST, FashionMNIST) from, with its files unpacked.

    As ``torchvision.datasets.MNIST(root, download=True)`` does with files already there: each
    ``raw/*-ubyte.gz`` is checked against torchvision's md5 (unless not ``verify``) and unpacked
    beside itself, or, if the folder is read-only, into a cache folder. ``root`` may also name the
    ``MNIST`` or ``MNIST/raw`` folder itself.
    """
    root = Path(root).expanduser()
    if root.name == "raw" and root.parent.name == folder:
        root = root.parent.parent
    elif root.name == folder and not (root / folder).is_dir():
        root = root.parent
    if not root.is_dir():
        raise DataFolderError(f"data folder {root} does not exist (it should hold {folder}/raw/*-ubyte.gz)")
    raw = root / folder / "raw"
    to_unpack = [
        raw / archive_name
        for archive_name, _ in resources
        if not ((unpacked := raw / archive_name[: -len(".gz")]).is_file() and unpacked.stat().st_size > 0)
    ]
    missing = [archive.name for archive in to_unpack if not archive.is_file()]
    if missing:
        raise DataFolderError(
            f"{folder} files missing in {raw}: {', '.join(missing)}. Put them there "
            f"(from {mirror}), or let torchvision download all four: "
            f"python -c \"import torchvision; torchvision.datasets.{folder}('{root}', download=True)\""
        )
    md5s = dict(resources)
    for archive in to_unpack if verify else ():
        if (found := _md5(archive)) != md5s[archive.name]:
            raise DataFolderError(
                f"{archive}: md5 {found}, not torchvision's {md5s[archive.name]} (a partial or corrupt download?); "
                "download it again, or pass --no-verify (verify=False) to use it as it is"
            )
    if not to_unpack:
        return root
    if raw.is_dir() and _writable(raw):
        for archive in to_unpack:
            _gunzip(archive, archive.with_suffix(""))
        return root
    cache = _cache_folder(root)
    for archive_name, _ in resources:
        source, target = raw / archive_name, cache / folder / "raw" / archive_name[: -len(".gz")]
        if target.is_file():
            continue
        if source in to_unpack:
            _gunzip(source, target)
        else:  # unpacked in the read-only folder already
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(source.with_suffix(""), target)
    return cache


def MNIST(
    root: str | Path | None = None,
    train: bool = True,
    download: bool = False,
    transform: Callable | None = None,
    target_transform: Callable | None = None,
    verify: bool = True,
) -> Dataset:
    """MNIST through torchvision from ``root`` (holding ``MNIST/raw/*-ubyte.gz``, unpacked on first
    use; ``verify=False`` skips the md5 check); with no ``root``, the subset shipped in the package."""
    if root is None:
        return MNISTSubset(train, transform, target_transform)
    return _torchvision_mnist("MNIST", "mnist", root, train, download, transform, target_transform, verify)


def FashionMNIST(
    root: str | Path,
    train: bool = True,
    download: bool = False,
    transform: Callable | None = None,
    target_transform: Callable | None = None,
    verify: bool = True,
) -> Dataset:
    """Fashion-MNIST through torchvision from ``root`` (holding ``FashionMNIST/raw/*-ubyte.gz``)."""
    return _torchvision_mnist(
        "FashionMNIST", "fashion_mnist", root, train, download, transform, target_transform, verify
    )


def _torchvision_mnist(folder, name, root, train, download, transform, target_transform, verify) -> Dataset:
    from torchvision import datasets

    cls = getattr(datasets, folder)
    if download:
        cls(str(root), train=train, download=True)  # fetches what is missing (and unpacks it)
    root = _mnist_root(root, folder, cls.resources, cls.mirrors[0], verify)
    return cls(
        str(root),
        train=train,
        transform=transform or default_transform(name),
        target_transform=target_transform,
    )


#: CIFAR-10's folder inside a data root, and its files with torchvision's md5s.
_CIFAR_FOLDER = "cifar-10-batches-py"


def _cifar_root(root: str | Path, verify: bool) -> Path:
    """The root holding ``cifar-10-batches-py``, checked: every file there, and (if ``verify``)
    with torchvision's md5s. ``root`` may also name ``cifar-10-batches-py`` itself."""
    from torchvision import datasets

    root = Path(root).expanduser()
    if root.name == _CIFAR_FOLDER:
        root = root.parent
    if not root.is_dir():
        raise DataFolderError(f"data folder {root} does not exist (it should hold {_CIFAR_FOLDER}/)")
    cls = datasets.CIFAR10
    files = [*cls.train_list, *cls.test_list, [cls.meta["filename"], cls.meta["md5"]]]
    folder = root / _CIFAR_FOLDER
    missing = [name for name, _ in files if not (folder / name).is_file()]
    if missing:
        raise DataFolderError(
            f"CIFAR-10 files missing in {folder}: {', '.join(missing)}. Unpack {cls.url} into {root} "
            f'(or let torchvision download it: python -c "import torchvision; '
            f"torchvision.datasets.CIFAR10('{root}', download=True)\")"
        )
    if verify:
        for name, md5 in files:
            path = folder / name
            key = (str(path.resolve()), path.stat().st_size, path.stat().st_mtime_ns)
            if key in _VERIFIED:
                continue
            if (found := _md5(path)) != md5:
                raise DataFolderError(
                    f"{path}: md5 {found}, not torchvision's {md5} for CIFAR-10 (a re-encoded copy, a subset, or a "
                    "partial download?); pass --no-verify (verify=False) to use these files as they are"
                )
            _VERIFIED.add(key)
    return root


#: CIFAR-10 files that passed their md5 check in this process: (path, size, mtime).
_VERIFIED: set[tuple[str, int, int]] = set()


def CIFAR10(
    root: str | Path,
    train: bool = True,
    download: bool = False,
    transform: Callable | None = None,
    target_transform: Callable | None = None,
    verify: bool = True,
) -> Dataset:
    """CIFAR-10 through torchvision (``root`` holds ``cifar-10-batches-py``). ``verify=False``
    accepts files whose md5s are not torchvision's (a re-encoded copy, a subset)."""
    from torchvision import datasets

    class CheckedCIFAR10(datasets.CIFAR10):
        """torchvision's CIFAR10 reading files ``_cifar_root`` has checked (or was told not to)."""

        def _check_integrity(self) -> bool:
            return True

        def _load_meta(self) -> None:
            with open(os.path.join(self.root, self.base_folder, self.meta["filename"]), "rb") as file:
                self.classes = pickle.load(file, encoding="latin1")[self.meta["key"]]
            self.class_to_idx = {name: i for i, name in enumerate(self.classes)}

    if download:
        datasets.CIFAR10(str(root), train=train, download=True)
    return CheckedCIFAR10(
        str(_cifar_root(root, verify)),
        train=train,
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
    verify: bool = True,
) -> Dataset:
    """A data set by name: ``mnist`` (the shipped subset when ``root`` is None), ``fashion_mnist``, ``cifar10``.
    ``verify=False`` accepts files whose md5s are not torchvision's."""
    if not isinstance(name, str):
        raise TypeError(f"dataset name must be a string, got {type(name).__name__}")
    key = name.lower()
    if key not in _DATASETS:
        raise ValueError(f"unknown dataset '{name}'; choose one of {sorted(set(_DATASETS))}")
    if root is None and key != "mnist":
        raise ValueError(
            f"dataset '{name}' needs a data root (--data-root); only MNIST has a subset shipped in the package"
        )
    return _DATASETS[key](root, train=train, download=download, transform=transform, verify=verify)
