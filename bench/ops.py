"""A chain of 1,000 elementwise ops on a 16-element tensor, forward and backward, against torch.autograd.

    python -m bench.ops [--ops 1000] [--rounds 9]
"""

from __future__ import annotations

import argparse

import torch

import minitorch_rx as mt

from .common import interleaved


def chain_minitorch(n_ops: int, x: mt.Tensor) -> None:
    y = x
    for _ in range(n_ops // 2):
        y = y * 1.0001
        y = y + 0.0001
    y.sum().backward()


def chain_torch(n_ops: int, x: torch.Tensor) -> None:
    y = x
    for _ in range(n_ops // 2):
        y = y * 1.0001
        y = y + 0.0001
    y.sum().backward()


def run(n_ops: int = 1000, rounds: int = 9) -> list[tuple[str, float, float]]:
    x_mt = mt.randn(16, requires_grad=True)
    x_torch = x_mt.torch().clone().requires_grad_(True)
    times = interleaved(
        {"minitorch_rx": lambda: chain_minitorch(n_ops, x_mt), "torch": lambda: chain_torch(n_ops, x_torch)},
        rounds=rounds,
    )
    return [(f"{n_ops}-op elementwise chain (per op)", times["minitorch_rx"] / n_ops, times["torch"] / n_ops)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ops", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=9)
    args = parser.parse_args()
    ((name, ours, theirs),) = run(args.ops, args.rounds)
    print(f"{name}: minitorch_rx {ours * 1e6:.2f} us/op, torch.autograd {theirs * 1e6:.2f} us/op, ratio {ours / theirs:.2f}x")


if __name__ == "__main__":
    main()
