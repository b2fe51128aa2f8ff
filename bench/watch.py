"""What ``mt.autograd.watch()`` costs: the same work inside a watch block (a film step per op and
per backward node, each gradient summarized) and outside any block.

    python -m bench.watch [--rounds 9]

Bar (issue 36): a LeNet-5 training step at batch 32 at most 3x inside; outside, nothing changes
(the engine's hot paths test for nothing: ``python -m bench.ops`` keeps its figures).
"""

from __future__ import annotations

import argparse

import minitorch_rx as mt

from .common import Timing, compare
from .graph_block import _chain, _lenet_step


def _watched(work, model=None):
    def run():
        with mt.autograd.watch(model):
            work()

    return run


def run(rounds: int = 9) -> list[tuple[str, Timing]]:
    """(case, timing inside a watch block against outside any block)."""
    mt.manual_seed(0)
    x = mt.randn(16, requires_grad=True)
    model = mt.models.get("lenet5")
    images, labels = mt.randn(32, 1, 28, 28), mt.randint(0, 10, (32,))
    lenet = lambda: _lenet_step(model, images, labels)  # noqa: E731
    return [
        ("LeNet-5 training step, batch 32", compare(_watched(lenet, model), lenet, rounds=rounds)),
        (
            "1000-op elementwise chain",
            compare(_watched(lambda: _chain(x, 1000)), lambda: _chain(x, 1000), rounds=rounds),
        ),
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=9)
    args = parser.parse_args()
    for name, t in run(args.rounds):
        print(
            f"{name}: inside watch() {t.round_ours * 1e3:.3f} ms, outside {t.round_theirs * 1e3:.3f} ms "
            f"(the median round), ratio {t.ratio:.2f}x (CPU time {t.cpu_ratio:.2f}x)"
        )


if __name__ == "__main__":
    main()
