"""Every suite of issue 7 in one run, one table: each figure against PyTorch, its bar, and whether
it is met. ``minitorch-rx bench [--quick]`` runs this from the repository root.

    python -m bench.run [--quick] [--skip memory,accuracy]

Timings are interleaved with PyTorch round by round on one thread (medians of per-round ratios);
``cpu ratio`` uses this thread's CPU time, steadier than wall time on a shared machine. Memory is
measured in fresh processes, accuracy over one MNIST epoch from the same initialization and order.
``--quick`` shrinks every suite (fewer rounds, smaller batches and chains, a 2,048-image epoch): it
checks that the suites run, not the bars.
"""

from __future__ import annotations

import argparse
import time
from dataclasses import dataclass

import torch

from . import accuracy, memory, models, ops, sequence

SUITES = ("ops", "models", "sequence", "memory", "accuracy")


@dataclass(frozen=True)
class Row:
    name: str
    ours: str
    theirs: str
    value: float  # the figure compared with the bar (a ratio, or accuracy points)
    cpu: float | None  # the CPU-time ratio, for timings
    bar: float
    absolute: bool = False  # compare |value| with the bar (a difference, not a ratio)

    @property
    def met(self) -> bool:
        return (abs(self.value) if self.absolute else self.value) <= self.bar


def _ops_rows(quick: bool) -> list[Row]:
    n_ops, rounds = (200, 3) if quick else (1000, 21)
    ((name, t),) = ops.run(n_ops, rounds)
    return [
        Row(
            f"{name} vs torch.autograd", f"{t.ours * 1e6:.2f} us", f"{t.theirs * 1e6:.2f} us", t.ratio, t.cpu_ratio, 0.7
        )
    ]


def _model_rows(quick: bool) -> list[Row]:
    rows = []
    cases = (("mlp", None), ("lenet5-im2col", None), ("lenet5", None), ("resnet20", None))
    if quick:
        cases = (("mlp", 16), ("lenet5-im2col", 8), ("lenet5", 8), ("resnet20", 4))
    for name, size in cases:
        rounds, reps = (3, 1) if quick else ((9, None) if name == "resnet20" else (15, None))
        ((label, timing),) = models.run([name], rounds, reps, size)
        rows.append(
            Row(
                label,
                f"{timing.ours * 1e3:.2f} ms",
                f"{timing.theirs * 1e3:.2f} ms",
                timing.ratio,
                timing.cpu_ratio,
                models.CASES[name].bar,
            )
        )
    return rows


#: bench/sequence.py's cases in the table, with their bars (issue 19): the gpt_char baby configuration
#: as a causal nn.TransformerEncoder step (AdamW) and a 2-layer LSTM step (Adam), each against torch.nn.
SEQUENCE_BARS = {"transformer": 1.15, "lstm": 1.5}


def _sequence_rows(quick: bool) -> list[Row]:
    rows = []
    for name, bar in SEQUENCE_BARS.items():
        rounds, reps, batch, steps = (3, 1, 2, 8) if quick else (9, None, None, None)
        ((label, timing),) = sequence.run([name], rounds, reps, batch, steps)
        ours, theirs = f"{timing.ours * 1e3:.2f} ms", f"{timing.theirs * 1e3:.2f} ms"
        rows.append(Row(label, ours, theirs, timing.ratio, timing.cpu_ratio, bar))
    return rows


def _memory_rows(quick: bool) -> list[Row]:
    models_, steps = (["lenet5"], 2) if quick else (["lenet5", "resnet20"], 10)
    rows = []
    for model, ours, theirs in memory.run(models_, steps):
        ratio = ours / theirs if theirs > 0 else float("inf")
        rows.append(
            Row(
                f"{model} training peak memory ({steps} steps)",
                f"{ours:.1f} MiB",
                f"{theirs:.1f} MiB",
                ratio,
                None,
                1.1,
            )
        )
    return rows


def _accuracy_rows(quick: bool) -> list[Row]:
    root = None if quick else accuracy.default_root()
    ours, theirs, source = accuracy.train_both(1, root, 2048 if quick else None)
    label = "LeNet-5 1 MNIST epoch: test accuracy" + (" (2048 images)" if quick else "" if root else " (subset)")
    return [Row(label, f"{ours:.2f}%", f"{theirs:.2f}%", ours - theirs, None, 0.2, absolute=True)]


def print_rows(rows: list[Row]) -> None:
    print(f"{'measure':<56}{'minitorch_rx':>14}{'torch':>12}{'ratio':>8}{'cpu ratio':>11}{'bar':>8}  met")
    for row in rows:
        value = f"{row.value:+.2f}pt" if row.absolute else f"{row.value:.2f}x"
        cpu = "" if row.cpu is None else f"{row.cpu:.2f}x"
        bar = f"{row.bar:.1f}pt" if row.absolute else f"{row.bar:.2f}x"
        print(f"{row.name:<56}{row.ours:>14}{row.theirs:>12}{value:>8}{cpu:>11}{bar:>8}  {'yes' if row.met else 'NO'}")


def main(argv: list[str] | None = None) -> list[Row]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="tiny suites: check that they run, not the bars")
    parser.add_argument("--skip", default="", help="comma-separated suites to leave out: " + ", ".join(SUITES))
    args = parser.parse_args(argv)
    skip = {name for name in args.skip.split(",") if name}
    torch.set_num_threads(1)
    start = time.perf_counter()
    rows: list[Row] = []
    suites = {
        "ops": _ops_rows,
        "models": _model_rows,
        "sequence": _sequence_rows,
        "memory": _memory_rows,
        "accuracy": _accuracy_rows,
    }
    for name, suite in suites.items():
        if name not in skip:
            rows += suite(args.quick)
    note = " (--quick: sizes too small for the bars)" if args.quick else ""
    print(f"\nminitorch_rx against PyTorch {torch.__version__}, one thread{note}")
    print_rows(rows)
    print(f"({time.perf_counter() - start:.0f} s)")
    return rows


if __name__ == "__main__":
    main()
