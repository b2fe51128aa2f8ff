"""A chain of 1,000 elementwise ops on a 16-element tensor, forward and backward, against torch.autograd.

    python -m bench.ops [--ops 1000] [--rounds 15]

Bar (issue 7): at most 0.7x torch.autograd.
"""

from __future__ import annotations

import argparse

import torch

import minitorch_rx as mt

from .common import Timing, compare, synchronized


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


def run(n_ops: int = 1000, rounds: int = 15, device: str = "cpu") -> list[tuple[str, Timing]]:
    """(case, timing per op against torch.autograd), the tensor on ``device``."""
    x_mt = mt.randn(16, requires_grad=True, device=device)
    x_torch = x_mt.torch().clone().requires_grad_(True)
    timing = compare(
        synchronized(lambda: chain_minitorch(n_ops, x_mt), device),
        synchronized(lambda: chain_torch(n_ops, x_torch), device),
        rounds=rounds,
    )
    per_op = Timing(
        timing.ours / n_ops,
        timing.theirs / n_ops,
        timing.ratio,
        timing.ours_cpu / n_ops,
        timing.theirs_cpu / n_ops,
        timing.cpu_ratio,
        timing.repeat,
        timing.round_ours / n_ops,
        timing.round_theirs / n_ops,
    )
    return [(f"{n_ops}-op elementwise chain (per op)", per_op)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ops", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=15)
    args = parser.parse_args()
    ((name, t),) = run(args.ops, args.rounds)
    print(
        f"{name}: minitorch_rx {t.round_ours * 1e6:.2f} us/op, torch.autograd {t.round_theirs * 1e6:.2f} us/op "
        f"(the median round), ratio {t.ratio:.2f}x (CPU time {t.cpu_ratio:.2f}x)"
    )


if __name__ == "__main__":
    main()
