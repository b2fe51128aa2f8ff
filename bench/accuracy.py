"""One epoch of LeNet-5 on MNIST in minitorch_rx and in torch.nn from the same initialization
and data order: the test accuracies must agree (speed without changed results).

    python -m bench.accuracy [--data-root DIR] [--epochs 1] [--limit N]

``--data-root`` is a folder holding ``MNIST/raw/*-ubyte.gz`` (torchvision's layout, as
``minitorch-rx train --data-root``) or those four files themselves (default: ``$MINITORCH_RX_MNIST``,
either kind of folder, else ``../shared/data/MNIST/raw`` beside the repository); without them the
10,000/2,000-image subset shipped in the package is used, and the output says so. ``--limit`` trains on the first N
images of the epoch's order only (the smoke test's setting).

Bar (issue 7): the same test accuracy as PyTorch within 0.2 points.
"""

from __future__ import annotations

import argparse
import gzip
import os
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as TF

import minitorch_rx as mt
import minitorch_rx.nn.functional as F
import minitorch_rx.optim as optim

from .models import CASES, twins

ROOT = Path(__file__).resolve().parents[1]
MEAN, STD = 0.1307, 0.3081


def _idx(path: Path) -> np.ndarray:
    """An MNIST idx file (gzipped) as an array: images (N, 28, 28) or labels (N,), uint8."""
    with gzip.open(path, "rb") as file:
        data = file.read()
    dims = data[3]
    shape = [int.from_bytes(data[4 + 4 * i : 8 + 4 * i], "big") for i in range(dims)]
    return np.frombuffer(data, dtype=np.uint8, offset=4 + 4 * dims).reshape(shape)


def default_root() -> Path | None:
    variable = os.environ.get("MINITORCH_RX_MNIST")
    candidates = [Path(variable), Path(variable) / "MNIST" / "raw"] if variable else []
    for candidate in (*candidates, ROOT.parent / "shared" / "data" / "MNIST" / "raw"):
        if (candidate / "train-images-idx3-ubyte.gz").exists():
            return candidate
    return None


def resolve_root(data_root: Path | None) -> Path | None:
    """The folder holding MNIST's ``*-ubyte.gz`` files: ``data_root`` (or its ``MNIST/raw``), else
    ``default_root()``."""
    if data_root is None:
        return default_root()
    for candidate in (Path(data_root), Path(data_root) / "MNIST" / "raw"):
        if (candidate / "train-images-idx3-ubyte.gz").exists():
            return candidate
    raise SystemExit(f"bench.accuracy: no MNIST/raw/train-images-idx3-ubyte.gz in {data_root}")


def load(root: Path | None) -> tuple[tuple[torch.Tensor, torch.Tensor], tuple[torch.Tensor, torch.Tensor], str]:
    """((train images, labels), (test images, labels), description); images normalized float32 (N, 1, 28, 28)."""
    if root is None:
        train_set, test_set = mt.data.datasets.MNISTSubset(train=True), mt.data.datasets.MNISTSubset(train=False)
        arrays = ((train_set.data, train_set.targets), (test_set.data, test_set.targets))
        source = "the MNIST subset shipped in the package (10,000 train / 2,000 test)"
    else:
        arrays = tuple(
            (
                torch.from_numpy(_idx(root / f"{split}-images-idx3-ubyte.gz").copy()),
                torch.from_numpy(_idx(root / f"{split}-labels-idx1-ubyte.gz").astype(np.int64)),
            )
            for split in ("train", "t10k")
        )
        source = f"MNIST from {root}"
    (train_x, train_y), (test_x, test_y) = (
        (((x.float() / 255 - MEAN) / STD).unsqueeze(1), y.long()) for x, y in arrays
    )
    return (train_x, train_y), (test_x, test_y), source


def train_both(
    epochs: int = 1,
    root: Path | None = None,
    limit: int | None = None,
    batch: int = 64,
    lr: float = 0.01,
    seed: int = 0,
):
    """Train the LeNet-5 twins on the same batches; return (our accuracy, torch's, data description)."""
    torch.set_num_threads(1)
    (train_x, train_y), (test_x, test_y), source = load(root)
    ours, theirs = twins(CASES["lenet5"], seed)
    our_opt = optim.SGD(ours.parameters(), lr=lr, momentum=0.9)
    their_opt = torch.optim.SGD(theirs.parameters(), lr=lr, momentum=0.9)
    generator = torch.Generator().manual_seed(seed)
    for _ in range(epochs):
        order = torch.randperm(len(train_y), generator=generator)[:limit]
        for start in range(0, len(order), batch):
            index = order[start : start + batch]
            x, y = train_x[index], train_y[index]
            our_opt.zero_grad()
            F.cross_entropy(ours(mt.from_torch(x)), mt.from_torch(y)).backward()
            our_opt.step()
            their_opt.zero_grad()
            TF.cross_entropy(theirs(x), y).backward()
            their_opt.step()
    ours.eval()
    theirs.eval()
    with mt.no_grad(), torch.no_grad():
        our_pred = torch.cat(
            [ours(mt.from_torch(test_x[i : i + 1000])).torch().argmax(1) for i in range(0, len(test_y), 1000)]
        )
        their_pred = torch.cat([theirs(test_x[i : i + 1000]).argmax(1) for i in range(0, len(test_y), 1000)])
    return _accuracy(our_pred, test_y), _accuracy(their_pred, test_y), source


def _accuracy(predicted: torch.Tensor, labels: torch.Tensor) -> float:
    return 100.0 * (predicted == labels).float().mean().item()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--data-root", "--root", type=Path, default=None, help="a folder holding MNIST/raw/*-ubyte.gz (or those files)"
    )
    parser.add_argument("--epochs", type=int, default=1)
    parser.add_argument("--limit", type=int, default=None, help="train on the first N images of each epoch")
    args = parser.parse_args()
    ours, theirs, source = train_both(args.epochs, resolve_root(args.data_root), args.limit)
    print(f"LeNet-5, {args.epochs} epoch(s) on {source}, SGD(lr=0.01, momentum=0.9), batch 64")
    print(f"test accuracy: minitorch_rx {ours:.2f}%, torch {theirs:.2f}%, difference {ours - theirs:+.2f} points")


if __name__ == "__main__":
    main()
