"""Where a training step's time goes: zero_grad, forward, backward and the optimizer step, ours
against PyTorch's, in one process, interleaved round by round, one thread.

    python -m bench.phases [--model mlp] [--steps 200] [--rounds 15]

Each phase is timed by this thread's CPU time around it, summed over ``steps`` steps; the figure
per phase is the median over rounds (the first two rounds are warm-up). ``bench.models`` times the
whole step; this splits it, to show which phase a gap is in.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable

import torch
import torch.nn.functional as TF

import minitorch_rx as mt
import minitorch_rx.nn.functional as F

from . import models

PHASES = ("zero_grad", "forward", "backward", "step")
WARM_UP_ROUNDS = 2


def _timed_step(model, optimizer, x, y, loss_fn: Callable) -> list[float]:
    """One training step; the CPU seconds of each of ``PHASES``."""
    clock = time.thread_time
    start = clock()
    optimizer.zero_grad()
    zeroed = clock()
    loss = loss_fn(model(x), y)
    forward = clock()
    loss.backward()
    backward = clock()
    optimizer.step()
    return [zeroed - start, forward - zeroed, backward - forward, clock() - backward]


def run(model: str = "mlp", steps: int = 200, rounds: int = 15) -> dict[str, tuple[float, float]]:
    """Per phase: (ours, torch's) CPU seconds per step, medians over the rounds after warm-up."""
    torch.set_num_threads(1)
    case = models.CASES[model]
    ours, theirs = models.twins(case)
    x, y = models.batch(case)
    sides = {
        "ours": (ours, mt.optim.SGD(ours.parameters(), lr=0.01, momentum=case.momentum),
                 mt.from_torch(x.clone()), mt.from_torch(y.clone()), F.cross_entropy),
        "torch": (theirs, torch.optim.SGD(theirs.parameters(), lr=0.01, momentum=case.momentum), x, y,
                  TF.cross_entropy),
    }  # fmt: skip
    per_round: dict[str, list[list[float]]] = {"ours": [], "torch": []}
    order = list(sides)
    for number in range(rounds + WARM_UP_ROUNDS):
        for side in order if number % 2 == 0 else order[::-1]:
            totals = [0.0] * len(PHASES)
            for _ in range(steps):
                totals = [a + b for a, b in zip(totals, _timed_step(*sides[side]))]
            if number >= WARM_UP_ROUNDS:
                per_round[side].append([total / steps for total in totals])
    return {
        phase: tuple(statistics.median(r[i] for r in per_round[side]) for side in order)
        for i, phase in enumerate(PHASES)
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default="mlp", choices=list(models.CASES))
    parser.add_argument("--steps", type=int, default=200, help="steps per round and side")
    parser.add_argument("--rounds", type=int, default=15)
    args = parser.parse_args()
    print(f"{args.model}: CPU time per step, {args.rounds} rounds x {args.steps} steps, one thread")
    times = run(args.model, args.steps, args.rounds)
    for phase, (ours, theirs) in times.items():
        print(f"{phase:<10} minitorch_rx {ours * 1e6:8.1f} us   torch {theirs * 1e6:8.1f} us")
    ours, theirs = (sum(t[i] for t in times.values()) for i in (0, 1))
    ratio = ours / theirs
    print(f"{'total':<10} minitorch_rx {ours * 1e6:8.1f} us   torch {theirs * 1e6:8.1f} us   ratio {ratio:.3f}x")


if __name__ == "__main__":
    main()
