"""Make the small MNIST subset shipped in the package (minitorch_rx/data/mnist_subset.npz).

    python scripts/make_mnist_subset.py [--source ../shared/data/MNIST/raw] [--train 10000] [--test 2000]

It holds the first N training and the first M test images of the canonical MNIST files, as
uint8 arrays, compressed. MNIST: Yann LeCun, Corinna Cortes, Christopher J.C. Burges, CC BY-SA 3.0.
"""

from __future__ import annotations

import argparse
import gzip
from pathlib import Path

import numpy as np


def read_idx(path: Path) -> np.ndarray:
    with gzip.open(path, "rb") as file:
        data = file.read()
    ndim = data[3]
    shape = tuple(int.from_bytes(data[4 + 4 * i : 8 + 4 * i], "big") for i in range(ndim))
    return np.frombuffer(data, dtype=np.uint8, offset=4 + 4 * ndim).reshape(shape)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--source", type=Path, default=Path(__file__).resolve().parents[2] / "shared/data/MNIST/raw")
    parser.add_argument("--train", type=int, default=10000)
    parser.add_argument("--test", type=int, default=2000)
    parser.add_argument(
        "--out", type=Path, default=Path(__file__).resolve().parents[1] / "minitorch_rx/data/mnist_subset.npz"
    )
    args = parser.parse_args()
    np.savez_compressed(
        args.out,
        train_images=read_idx(args.source / "train-images-idx3-ubyte.gz")[: args.train],
        train_labels=read_idx(args.source / "train-labels-idx1-ubyte.gz")[: args.train],
        test_images=read_idx(args.source / "t10k-images-idx3-ubyte.gz")[: args.test],
        test_labels=read_idx(args.source / "t10k-labels-idx1-ubyte.gz")[: args.test],
    )
    print(f"wrote {args.out} ({args.out.stat().st_size / 1e6:.2f} MB)")


if __name__ == "__main__":
    main()
