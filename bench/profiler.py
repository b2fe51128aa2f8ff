"""What ``mt.autograd.profile()`` costs while it records: forward + backward with the profiler on
against the same step with it off, interleaved (off, the engine checks nothing for it).

    python -m bench.profiler [--rounds 15]

Cases: the 1,000-op elementwise chain of ``bench.ops`` (the worst case: every op is tiny) and an
MLP 784-128-10 step, batch 64.
"""

from __future__ import annotations

import argparse

import minitorch_rx as mt
import minitorch_rx.nn.functional as F

from .common import compare
from .ops import chain_minitorch


def _profiled(step):
    def run() -> None:
        with mt.autograd.profile():
            step()

    return run


def run(rounds: int = 15) -> list[tuple]:
    """(case, Timing of the step profiled against the step alone)."""
    x = mt.randn(16, requires_grad=True)
    mt.manual_seed(0)
    model = mt.models.get("mlp")
    images, labels = mt.randn(64, 1, 28, 28), mt.randint(0, 10, (64,))

    def chain() -> None:
        chain_minitorch(1000, x)

    def mlp() -> None:
        model.zero_grad()
        F.cross_entropy(model(images), labels).backward()

    return [
        ("1,000-op chain, forward + backward", compare(_profiled(chain), chain, rounds=rounds)),
        ("MLP 784-128-10 step, batch 64", compare(_profiled(mlp), mlp, rounds=rounds)),
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=15)
    args = parser.parse_args()
    rows = run(args.rounds)
    print("\nprofiler on (first column) against off (second column)")
    for name, t in rows:
        print(f"{name:<40}{t.ours * 1e3:>9.3f} ms{t.theirs * 1e3:>9.3f} ms{t.ratio:>7.2f}x")


if __name__ == "__main__":
    main()
