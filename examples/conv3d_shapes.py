"""3-D convolution: a small C3D net learns to tell solid spheres, cubes and rods apart in noisy 16³ volumes.

    python examples/conv3d_shapes.py [--epochs 4]

The volumes are made here (random size, position and noise). Runs in about 50 s on 2 busy CPU cores.
"""

from __future__ import annotations

import argparse

import torch

import minitorch_rx as mt
import minitorch_rx.nn.functional as F

SHAPES = ("sphere", "cube", "rod")


def make_volumes(n: int, size: int = 16, seed: int = 0) -> tuple[torch.Tensor, torch.Tensor]:
    generator = torch.Generator().manual_seed(seed)
    labels = torch.randint(0, len(SHAPES), (n,), generator=generator)
    axis = torch.arange(size, dtype=torch.float32)
    z, y, x = torch.meshgrid(axis, axis, axis, indexing="ij")
    volumes = torch.empty(n, 1, size, size, size)
    for i in range(n):
        radius = 2.5 + 2.5 * torch.rand(1, generator=generator).item()
        cz, cy, cx = (radius + (size - 2 * radius) * torch.rand(3, generator=generator)).tolist()
        dz, dy, dx = (z - cz).abs(), (y - cy).abs(), (x - cx).abs()
        if labels[i] == 0:
            solid = dz**2 + dy**2 + dx**2 <= radius**2
        elif labels[i] == 1:
            solid = (dz <= radius * 0.8) & (dy <= radius * 0.8) & (dx <= radius * 0.8)
        else:
            solid = (dy <= 1.2) & (dx <= 1.2) & (dz <= radius * 1.5)
        volumes[i, 0] = solid.float()
    volumes += 0.3 * torch.randn(volumes.shape, generator=generator)
    return volumes, labels


def recalibrate_batch_norm(model: mt.nn.Module, volumes: torch.Tensor) -> None:
    """Recompute the batch-norm running statistics of the final weights over the training set
    ("precise BN"): on a run this short, the running averages still mix in early-training
    statistics, and eval-mode accuracy swings with them."""
    for module in model.modules():
        if isinstance(module, mt.nn.BatchNorm3d):
            module.reset_running_stats()
            module.momentum = None  # a cumulative average over the batches below
    model.train()
    with mt.no_grad():
        for start in range(0, len(volumes), 64):
            model(mt.from_torch(volumes[start : start + 64]))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--epochs", type=int, default=4)
    args = parser.parse_args()
    mt.manual_seed(0)
    train_x, train_y = make_volumes(600, seed=0)
    test_x, test_y = make_volumes(200, seed=1)
    model = mt.models.c3d_small(num_classes=len(SHAPES))
    optimizer = mt.optim.Adam(model.parameters(), lr=1e-3)
    for epoch in range(args.epochs):
        model.train()
        for start in range(0, len(train_x), 32):
            x, y = mt.from_torch(train_x[start : start + 32]), mt.from_torch(train_y[start : start + 32])
            loss = F.cross_entropy(model(x), y)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        recalibrate_batch_norm(model, train_x)
        model.eval()
        with mt.no_grad():
            accuracy = (model(mt.from_torch(test_x)).argmax(1) == mt.from_torch(test_y)).float().mean().item()
        print(f"epoch {epoch + 1}: last batch loss {loss.item():.4f}, test accuracy {accuracy:.2%}")


if __name__ == "__main__":
    main()
