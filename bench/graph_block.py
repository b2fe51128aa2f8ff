"""What a ``with mt.Graph()`` block costs: the same work inside a block (which records each op's
output shape and dtype and each node's gradient norm, for the drawings) and outside any block.

    python -m bench.graph_block [--rounds 9]

Outside a block nothing is recorded for the drawings and the ops keep their hot paths.
"""

from __future__ import annotations

import argparse

import minitorch_rx as mt
import minitorch_rx.nn.functional as F

from .common import Timing, compare


def _chain(x: mt.Tensor, n_ops: int) -> None:
    y = x
    for _ in range(n_ops // 2):
        y = y * 1.0001
        y = y + 0.0001
    y.sum().backward()


def _lenet_step(model, images, labels) -> None:
    loss = F.cross_entropy(model(images), labels)
    model.zero_grad()
    loss.backward()


def _in_block(work):
    def run():
        with mt.Graph():
            work()

    return run


def run(rounds: int = 9) -> list[tuple[str, Timing]]:
    """(case, timing inside a Graph block against outside any block)."""
    mt.manual_seed(0)
    x = mt.randn(16, requires_grad=True)
    model = mt.models.get("lenet5")
    images, labels = mt.randn(32, 1, 28, 28), mt.randint(0, 10, (32,))
    cases = {
        "1000-op elementwise chain": lambda: _chain(x, 1000),
        "LeNet-5 training step, batch 32": lambda: _lenet_step(model, images, labels),
    }
    return [(name, compare(_in_block(work), work, rounds=rounds)) for name, work in cases.items()]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=9)
    args = parser.parse_args()
    for name, t in run(args.rounds):
        print(
            f"{name}: inside a Graph block {t.round_ours * 1e3:.3f} ms, outside {t.round_theirs * 1e3:.3f} ms "
            f"(the median round), ratio {t.ratio:.2f}x (CPU time {t.cpu_ratio:.2f}x)"
        )


if __name__ == "__main__":
    main()
