"""Is data loading the bottleneck of CIFAR-10 training? Images per second of the recipe's batches
alone (crops, flips, normalization on the device) against those of the whole training step.

    python -m bench.loader --data-root DIR [--device cuda] [--conv native] [--threads N]

DIR holds ``cifar-10-batches-py`` (``shared/data/cifar10-full/build.py DIR`` writes all of it;
the 10,000-image subset works too). Prints one line per measure.
"""

from __future__ import annotations

import argparse
import time

import torch

import minitorch_rx as mt
from minitorch_rx.cli.arguments import RECIPES
from minitorch_rx.cli.training import build_optimizer
from minitorch_rx.data.batches import ImageBatches
from minitorch_rx.nn import functional as F

from .common import synchronized


def images_per_second(batches: ImageBatches, steps: int, step=None) -> float:
    """Images per second over the first ``steps`` batches of an epoch (after one warm-up batch),
    each passed to ``step`` if given."""
    run = synchronized(lambda: None, batches.device)
    iterator = batches.epoch(0)
    images, labels = next(iterator)
    if step is not None:
        step(images, labels)
    run()
    seen, start = 0, time.perf_counter()
    for _, (images, labels) in zip(range(steps), iterator):
        if step is not None:
            step(images, labels)
        seen += labels.shape[0]
    run()
    return seen / (time.perf_counter() - start)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-root", required=True, help="a folder holding cifar-10-batches-py/")
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--conv", choices=["im2col", "native"], default="native")
    parser.add_argument("--threads", type=int, default=None, help="torch CPU threads (default: torch's)")
    parser.add_argument("--steps", type=int, default=20, help="training steps timed")
    args = parser.parse_args(argv)
    if args.threads:
        torch.set_num_threads(args.threads)
    mt.backends.conv = args.conv
    recipe = RECIPES["cifar10"]
    train_set = mt.data.get_dataset("cifar10", args.data_root, train=True, verify=False)
    batches = ImageBatches(train_set, "cifar10", recipe.batch_size, shuffle=True, augment=True, device=args.device)
    loading = images_per_second(batches, len(batches) - 1)
    model = mt.models.get("resnet20").to(args.device)
    optimizer = build_optimizer("sgd", model.parameters(), recipe.lr, 0.9, recipe.weight_decay, recipe.nesterov)

    def step(images, labels) -> None:
        loss = F.cross_entropy(model(images), labels)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()

    training = images_per_second(batches, args.steps, step)
    where = f"{args.device}, {torch.get_num_threads()} CPU threads, conv {args.conv}"
    print(f"recipe batches alone (crop, flip, normalize): {loading:,.0f} images/s ({where})")
    print(f"ResNet-20 training step with them:           {training:,.0f} images/s")
    print(f"loading takes {training / loading:.1%} of the step's time")


if __name__ == "__main__":
    main()
