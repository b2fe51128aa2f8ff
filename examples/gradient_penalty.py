"""A WGAN-GP on MNIST digits: the critic's gradient penalty needs the gradient of a gradient.

    python examples/gradient_penalty.py --steps 300

The penalty of Gulrajani et al. (2017), ``lambda * (||d critic(x_hat) / d x_hat|| - 1)^2`` at points
between real and generated images, is a function of a gradient; ``mt.autograd.grad(...,
create_graph=True)`` records that gradient, so the critic's own backward differentiates it again.
Runs on the MNIST subset shipped in the package; prints the critic's Wasserstein estimate and
the penalty as training goes, and writes a grid of generated digits.
"""

from __future__ import annotations

import argparse
import time

import minitorch_rx as mt
import minitorch_rx.nn as nn
import minitorch_rx.optim as optim


def mlp(sizes: list[int], last: nn.Module | None = None) -> nn.Sequential:
    layers: list[nn.Module] = []
    for i, (a, b) in enumerate(zip(sizes[:-1], sizes[1:])):
        layers.append(nn.Linear(a, b))
        if i < len(sizes) - 2:
            layers.append(nn.LeakyReLU(0.2))
    if last is not None:
        layers.append(last)
    return nn.Sequential(*layers)


def gradient_penalty(critic: nn.Module, real: mt.Tensor, fake: mt.Tensor) -> mt.Tensor:
    alpha = mt.rand(real.shape[0], 1)
    between = (alpha * real + (1 - alpha) * fake).requires_grad_(True)
    (grad,) = mt.autograd.grad(critic(between).sum(), between, create_graph=True)
    return ((grad.norm(2, dim=1) - 1) ** 2).mean()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=300, help="generator steps (5 critic steps each)")
    parser.add_argument("--batch-size", type=int, default=64)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", default="runs/wgan_gp_samples.png")
    args = parser.parse_args()

    mt.manual_seed(args.seed)
    images = mt.data.MNIST(train=True).data.reshape(-1, 784).float() / 127.5 - 1  # [-1, 1]
    generator = mlp([32, 256, 256, 784], nn.Tanh())
    critic = mlp([784, 256, 256, 1])
    opt_g = optim.Adam(generator.parameters(), lr=1e-4, betas=(0.5, 0.9))
    opt_c = optim.Adam(critic.parameters(), lr=1e-4, betas=(0.5, 0.9))
    start = time.perf_counter()
    for step in range(1, args.steps + 1):
        for _ in range(5):
            real = mt.from_torch(images[mt.randint(0, len(images), (args.batch_size,)).torch()])
            with mt.no_grad():
                fake = generator(mt.randn(args.batch_size, 32))
            wasserstein = critic(real).mean() - critic(fake).mean()
            penalty = gradient_penalty(critic, real, fake)
            opt_c.zero_grad()
            (-wasserstein + 10 * penalty).backward()
            opt_c.step()
        opt_g.zero_grad()
        (-critic(generator(mt.randn(args.batch_size, 32))).mean()).backward()
        opt_g.step()
        if step % 50 == 0 or step == 1:
            elapsed = time.perf_counter() - start
            w, gp = wasserstein.item(), penalty.item()
            print(f"step {step:4d}  W estimate {w:7.3f}  penalty {gp:6.3f}  {elapsed:6.1f} s")
    with mt.no_grad():
        samples = generator(mt.randn(64, 32)).reshape(64, 1, 28, 28) * 0.5 + 0.5
    from pathlib import Path

    from torchvision.utils import save_image

    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    save_image(samples.torch(), args.out, nrow=8)
    print(f"wrote {args.out} ({time.perf_counter() - start:.0f} s in all)")


if __name__ == "__main__":
    main()
