"""Train LeNet-5 on the full MNIST (60,000 images) and save the weights the model zoo ships.

    python examples/train_mnist.py --data-root ../shared/data --epochs 8 --out runs/lenet5_mnist
    # then, to ship them:
    python examples/train_mnist.py ... --export minitorch_rx/models/weights/lenet5_mnist.pt

Inputs are 1x28x28 images scaled to [0, 1] and normalized with mean 0.1307, std 0.3081.
torchvision's MNIST(download=True) finds the canonical files in --data-root and only unpacks them.
"""

from __future__ import annotations

import argparse
import shutil
import tempfile
import time
from pathlib import Path

import minitorch_rx as mt
from minitorch_rx.cli.training import TrainConfig, train


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-root", required=True, help="a folder holding MNIST/raw/*.gz")
    parser.add_argument("--epochs", type=int, default=8)
    parser.add_argument("--batch-size", type=int, default=64)
    parser.add_argument("--lr", type=float, default=0.05)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", default="runs/lenet5_mnist")
    parser.add_argument("--export", default=None, help="also write the bare state dict here")
    args = parser.parse_args()

    # torchvision unpacks the .gz files next to them: work on a copy of a read-only data folder.
    with tempfile.TemporaryDirectory() as scratch:
        root = Path(scratch)
        shutil.copytree(Path(args.data_root) / "MNIST", root / "MNIST")
        mt.data.MNIST(root, train=True, download=True)
        mt.data.MNIST(root, train=False, download=True)
        started = time.perf_counter()
        history = train(TrainConfig(model="lenet5", dataset="mnist", data_root=str(root), epochs=args.epochs, batch_size=args.batch_size, lr=args.lr, seed=args.seed, out=args.out))
        minutes = (time.perf_counter() - started) / 60
    print(f"LeNet-5, {args.epochs} epochs, {minutes:.1f} min: test accuracy {history.test_accuracy[-1]:.2%} on the 10,000 MNIST test images")
    if args.export:
        checkpoint = mt.load(Path(args.out) / "checkpoint.pt")
        mt.save(checkpoint["model"], args.export)
        print(f"wrote {args.export}")


if __name__ == "__main__":
    main()
