"""Train LeNet-5 on the full MNIST (or Fashion-MNIST: 60,000 images) and save the weights the model zoo ships.

    python examples/train_mnist.py --data-root ../shared/data --epochs 10 \
        --export minitorch_rx/models/weights/lenet5_mnist.pt
    python examples/train_mnist.py --dataset fashion_mnist --data-root ../shared/data --epochs 10 \
        --export minitorch_rx/models/weights/lenet5_fashion_mnist.pt

Inputs are 1x28x28 images scaled to [0, 1] and normalized with mean 0.1307, std 0.3081
(Fashion-MNIST: mean 0.2860, std 0.3530).
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
    parser.add_argument("--data-root", required=True, help="a folder holding MNIST/raw/*.gz (FashionMNIST/raw/*.gz)")
    parser.add_argument("--dataset", default="mnist", choices=["mnist", "fashion_mnist"])
    parser.add_argument("--epochs", type=int, default=8)
    parser.add_argument("--batch-size", type=int, default=64)
    parser.add_argument("--lr", type=float, default=0.05)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", default=None, help="default: runs/lenet5_<dataset>")
    parser.add_argument("--export", default=None, help="also write the bare state dict here")
    args = parser.parse_args()
    args.out = args.out or f"runs/lenet5_{args.dataset}"
    folder, dataset = ("MNIST", mt.data.MNIST) if args.dataset == "mnist" else ("FashionMNIST", mt.data.FashionMNIST)

    # torchvision unpacks the .gz files next to them: work on a copy of a read-only data folder.
    with tempfile.TemporaryDirectory() as scratch:
        root = Path(scratch)
        shutil.copytree(Path(args.data_root) / folder, root / folder)
        dataset(root, train=True, download=True)
        dataset(root, train=False, download=True)
        started = time.perf_counter()
        config = TrainConfig(
            model="lenet5",
            dataset=args.dataset,
            data_root=str(root),
            epochs=args.epochs,
            batch_size=args.batch_size,
            lr=args.lr,
            seed=args.seed,
            out=args.out,
            progress=False,
        )
        history = train(config)
        minutes = (time.perf_counter() - started) / 60
    print(
        f"LeNet-5 on {args.dataset}, {args.epochs} epochs, {minutes:.1f} min: "
        f"test accuracy {history.test_accuracy[-1]:.2%} on the 10,000 test images"
    )
    if args.export:
        checkpoint = mt.load(Path(args.out) / "checkpoint.pt")
        mt.save(checkpoint["model"], args.export)
        print(f"wrote {args.export}")


if __name__ == "__main__":
    main()
