"""Train ResNet-20 (He et al. 2016) on CIFAR-10 with minitorch_rx.

    python examples/train_cifar10.py --data-root DIR --epochs 30

DIR holds torchvision's `cifar-10-batches-py/`, whose files are checked against torchvision's
md5s. A copy whose files differ (a subset, a re-encoded copy: e.g. this project's rebuilt
10,000-image subset, see shared/data/SOURCES.md) needs --no-verify, as `minitorch-rx train` does.
On 2 CPU cores an epoch over 10,000 images takes about 2 minutes; `--epochs 2 --limit 2000` runs
end to end in about a minute.
"""

from __future__ import annotations

import argparse
import time

from minitorch_rx.cli.training import TrainConfig, train
from minitorch_rx.data import DataFolderError


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-root", required=True, help="a folder holding cifar-10-batches-py/")
    parser.add_argument("--epochs", type=int, default=30)
    parser.add_argument("--batch-size", type=int, default=128)
    parser.add_argument("--lr", type=float, default=0.1)
    parser.add_argument("--limit", type=int, default=None, help="train and test on the first N images only")
    parser.add_argument(
        "--no-verify",
        dest="verify",
        action="store_false",
        help="use CIFAR-10 files whose checksums differ from torchvision's (a subset, a re-encoded copy)",
    )
    parser.add_argument("--out", default=None, help="the run folder (default: a new runs/resnet20_cifar10_<time>)")
    args = parser.parse_args()
    started = time.perf_counter()
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
        verify=args.verify,
    )
    try:
        history = train(config)
    except DataFolderError as error:  # files missing, or checksums not torchvision's
        parser.error(str(error))
    epochs = f"{args.epochs} epoch{'' if args.epochs == 1 else 's'}"
    minutes = (time.perf_counter() - started) / 60
    print(f"ResNet-20, {epochs}, {minutes:.1f} min: test accuracy {history.test_accuracy[-1]:.2%}")


if __name__ == "__main__":
    main()
