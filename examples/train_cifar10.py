"""Train ResNet-20 (He et al. 2016) on CIFAR-10 with minitorch_rx.

    python examples/train_cifar10.py --data-root PATH --epochs 30

PATH holds torchvision's `cifar-10-batches-py/`. This project's test machines only have a
rebuilt subset of CIFAR-10 (10,000 training images, lossy; see shared/data/SOURCES.md) whose
files fail torchvision's checksums: pass --unverified to accept them (a few minutes per epoch
on 2 CPU cores; e.g. --epochs 2 --limit 2000 for a quick end-to-end run).
"""

from __future__ import annotations

import argparse

from minitorch_rx.cli.training import TrainConfig, train


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-root", required=True)
    parser.add_argument("--epochs", type=int, default=30)
    parser.add_argument("--batch-size", type=int, default=128)
    parser.add_argument("--lr", type=float, default=0.1)
    parser.add_argument("--limit", type=int, default=None, help="train and test on the first N images only")
    parser.add_argument(
        "--unverified", action="store_true", help="accept CIFAR-10 files whose checksums torchvision does not know"
    )
    parser.add_argument("--out", default="runs/resnet20_cifar10")
    args = parser.parse_args()
    if args.unverified:
        from torchvision.datasets import CIFAR10

        CIFAR10._check_integrity = lambda self: True
    config = TrainConfig(
        model="resnet20",
        dataset="cifar10",
        data_root=args.data_root,
        epochs=args.epochs,
        batch_size=args.batch_size,
        lr=args.lr,
        weight_decay=5e-4,
        limit=args.limit,
        out=args.out,
    )
    history = train(config)
    print(f"ResNet-20, {args.epochs} epochs: test accuracy {history.test_accuracy[-1]:.2%}")


if __name__ == "__main__":
    main()
