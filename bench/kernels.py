"""Kernel settings A/B: one model's training step under each setting against PyTorch's, in one process.

    python -m bench.kernels --model mlp [--settings tuned,fixed,mkl] [--reps 100] [--rounds 11]

Settings: ``tuned`` (``mt.backends.autotune``: choices measured on this machine among kernels
whose results are the fixed rules' bit for bit), ``fastest`` (``mt.backends.autotune_bitwise =
False``: among all candidates), ``fixed``
(autotune off: the fixed rules), ``mkl`` (fixed, every product MKL's), and ``native``,
``native_mkl`` (``mt.backends.conv = "native"``, fixed / MKL products). Each round times ``reps``
steps of torch's and of every setting's in turn (reversed every other round), on one thread; the
figure per setting is the median over rounds of the ratio of thread CPU times, ours to torch's
(steadier than wall time on a shared machine), then of wall times. Models: ``bench.models``'
cases (SGD) and ``bench.sequence``'s (``transformer``, ``lstm``), at their bench sizes. The
tuner makes its choices in the warm-up (each before the first call it serves).
"""

from __future__ import annotations

import argparse
import statistics
import time

import torch

import minitorch_rx as mt
from minitorch_rx.ops import linear

from . import models, sequence

#: Per setting: (mt.backends.autotune, mt.backends.autotune_bitwise, oneDNN's products allowed,
#: mt.backends.conv).
SETTINGS = {
    "tuned": (True, True, True, "im2col"),
    "fastest": (True, False, True, "im2col"),
    "fixed": (False, True, True, "im2col"),
    "mkl": (False, True, False, "im2col"),
    "native": (False, True, True, "native"),
    "native_mkl": (False, True, False, "native"),
}


def training_steps(model: str):
    """(minitorch_rx step, torch step) of ``model`` at its bench size."""
    if model in models.CASES:
        return models.training_steps(models.CASES[model])
    batch, steps = sequence.DEFAULT_SIZES[model]
    return sequence.training_steps(model, batch, steps)


def run(model: str, settings: list[str], reps: int, rounds: int) -> dict[str, tuple[float, float]]:
    """Per setting: (CPU-time ratio, wall-time ratio) to torch's step, medians over ``rounds``."""
    torch.set_num_threads(1)
    ours_step, torch_step = training_steps(model)
    onednn = linear.ONEDNN
    saved = (mt.backends.autotune, mt.backends.autotune_bitwise, mt.backends.conv)

    def step_with(setting):
        tuned, bitwise, with_onednn, conv = SETTINGS[setting]

        def step():
            mt.backends.autotune, mt.backends.autotune_bitwise, mt.backends.conv = tuned, bitwise, conv
            linear.ONEDNN = onednn if with_onednn else None
            ours_step()

        return step

    cases = {"torch": torch_step, **{setting: step_with(setting) for setting in settings}}
    try:
        for _ in range(2):
            for fn in cases.values():
                fn()
        times: dict[str, list[tuple[float, float]]] = {name: [] for name in cases}
        order = list(cases.items())
        for number in range(rounds):
            for name, fn in order if number % 2 == 0 else reversed(order):
                wall, cpu = time.perf_counter(), time.thread_time()
                for _ in range(reps):
                    fn()
                times[name].append((time.thread_time() - cpu, time.perf_counter() - wall))
    finally:
        linear.ONEDNN = onednn
        mt.backends.autotune, mt.backends.autotune_bitwise, mt.backends.conv = saved
    theirs = times["torch"]
    return {
        setting: tuple(statistics.median(a[i] / b[i] for a, b in zip(times[setting], theirs)) for i in (0, 1))
        for setting in settings
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default="mlp", choices=[*models.CASES, "transformer", "lstm"])
    parser.add_argument("--settings", default="tuned,fixed,mkl", help="comma-separated: " + ", ".join(SETTINGS))
    parser.add_argument("--reps", type=int, default=10, help="steps per timed sample")
    parser.add_argument("--rounds", type=int, default=9)
    args = parser.parse_args()
    settings = args.settings.split(",")
    unknown = set(settings) - set(SETTINGS)
    if unknown:
        parser.error(f"unknown setting(s): {', '.join(sorted(unknown))}; the settings: {', '.join(SETTINGS)}")
    print(f"{args.model}, {args.rounds} rounds x {args.reps} steps, one thread; ratio to torch's step")
    for setting, (cpu, wall) in run(args.model, settings, args.reps, args.rounds).items():
        print(f"{setting:<12} CPU time {cpu:.2f}x   wall time {wall:.2f}x")


if __name__ == "__main__":
    main()
