"""1-D convolution: the M5 raw-audio net learns to tell four kinds of synthetic waveforms apart.

    python examples/conv1d_waveforms.py [--epochs 3]

The data is made here: 4,000-sample clips of a sine, square, sawtooth or noise burst at random
frequency, phase and amplitude, plus noise. Runs in about 5 s on 2 CPU cores.
"""

from __future__ import annotations

import argparse
import math

import torch

import minitorch_rx as mt
import minitorch_rx.nn.functional as F

KINDS = ("sine", "square", "sawtooth", "noise")


def make_waveforms(n: int, length: int = 4000, seed: int = 0) -> tuple[torch.Tensor, torch.Tensor]:
    generator = torch.Generator().manual_seed(seed)
    labels = torch.randint(0, len(KINDS), (n,), generator=generator)
    t = torch.arange(length, dtype=torch.float32) / length
    frequency = 5 + 20 * torch.rand(n, 1, generator=generator)
    phase = 2 * math.pi * torch.rand(n, 1, generator=generator)
    cycles = frequency * t + phase / (2 * math.pi)
    waves = torch.stack(
        [
            torch.sin(2 * math.pi * cycles),
            torch.sign(torch.sin(2 * math.pi * cycles)),
            2 * (cycles % 1) - 1,
            torch.randn(n, length, generator=generator).clamp(-1, 1),
        ]
    )
    clips = waves[labels, torch.arange(n)] * (0.5 + torch.rand(n, 1, generator=generator))
    clips += 0.1 * torch.randn(n, length, generator=generator)
    return clips.unsqueeze(1), labels


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--epochs", type=int, default=3)
    args = parser.parse_args()
    mt.manual_seed(0)
    train_x, train_y = make_waveforms(1000, seed=0)
    test_x, test_y = make_waveforms(300, seed=1)
    model = mt.models.m5(num_classes=len(KINDS), channels=(32, 32, 64, 64), stride=4)
    optimizer = mt.optim.Adam(model.parameters(), lr=1e-2)
    for epoch in range(args.epochs):
        model.train()
        for start in range(0, len(train_x), 64):
            x, y = mt.from_torch(train_x[start : start + 64]), mt.from_torch(train_y[start : start + 64])
            loss = F.cross_entropy(model(x), y)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        model.eval()
        with mt.no_grad():
            accuracy = (model(mt.from_torch(test_x)).argmax(1) == mt.from_torch(test_y)).float().mean().item()
        print(f"epoch {epoch + 1}: last batch loss {loss.item():.4f}, test accuracy {accuracy:.2%}")


if __name__ == "__main__":
    main()
