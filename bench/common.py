"""Timing helpers shared by the benchmarks: interleaved rounds, one thread, medians.

Two clocks: wall time (what a user waits) and this thread's CPU time, which leaves out the time
the thread waited for a core. On a shared machine the CPU-time ratio is the steadier estimate of
what the wall-time ratio would be on an idle one; both are reported.
"""

from __future__ import annotations

import math
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass

import torch


@dataclass(frozen=True)
class Timing:
    """Medians over rounds: seconds per call of ours and of the reference on each clock, and the
    median of the per-round ratios (both measured within the same round). ``round_ours`` and
    ``round_theirs`` are the wall times of the round whose ratio is that median: the times that
    produced ``ratio`` (``round_ours / round_theirs == ratio``)."""

    ours: float
    theirs: float
    ratio: float
    ours_cpu: float
    theirs_cpu: float
    cpu_ratio: float
    repeat: int  # calls per timed sample
    round_ours: float = math.nan
    round_theirs: float = math.nan


def synchronized(fn: Callable[[], object], device: str | torch.device = "cpu") -> Callable[[], object]:
    """``fn``, followed on a CUDA device by a wait for the kernels it queued: CUDA runs them
    asynchronously, so a timing without the wait would measure their launches only."""
    if torch.device(device).type != "cuda":
        return fn

    def call() -> object:
        out = fn()
        torch.cuda.synchronize(device)
        return out

    return call


def median_round(ours: list[float], theirs: list[float]) -> tuple[float, float, float]:
    """(ours, theirs, ours / theirs) of the round whose ratio is the median of the per-round ratios
    (the lower middle one for an even number of rounds)."""
    ratios = [a / b for a, b in zip(ours, theirs, strict=True)]
    middle = sorted(range(len(ratios)), key=ratios.__getitem__)[(len(ratios) - 1) // 2]
    return ours[middle], theirs[middle], ratios[middle]


#: With ``repeat=None``, each timed sample makes enough calls of its case to last about this long
#: (at the slowest case's speed): one 1 ms MLP step varies 2x on this machine, 150 of them do not.
SAMPLE_SECONDS = 0.2


def _calibrated_repeat(cases: dict[str, Callable[[], object]]) -> int:
    """Calls per sample for ``SAMPLE_SECONDS``, from one timed call of each (warm) case."""
    slowest = 0.0
    for fn in cases.values():
        start = time.perf_counter()
        fn()
        slowest = max(slowest, time.perf_counter() - start)
    return max(1, math.ceil(SAMPLE_SECONDS / slowest))


def _samples(
    cases: dict[str, Callable[[], object]], rounds: int, repeat: int | None, warmup: int
) -> tuple[dict[str, list[tuple[float, float]]], int]:
    """(wall, CPU) seconds per call of each case in every round, and the calls per sample
    (``repeat``, or calibrated when None). The cases run in turn within a round (in reversed
    order every other round), so that machine noise hits them alike."""
    torch.set_num_threads(1)
    for _ in range(warmup):
        for fn in cases.values():
            fn()
    if repeat is None:
        repeat = _calibrated_repeat(cases)
    samples: dict[str, list[tuple[float, float]]] = {name: [] for name in cases}
    order = list(cases.items())
    for round_nr in range(rounds):
        for name, fn in order if round_nr % 2 == 0 else reversed(order):
            wall, cpu = time.perf_counter(), time.thread_time()
            for _ in range(repeat):
                fn()
            samples[name].append(((time.perf_counter() - wall) / repeat, (time.thread_time() - cpu) / repeat))
    return samples, repeat


def interleaved(
    cases: dict[str, Callable[[], object]], rounds: int = 9, repeat: int | None = None, warmup: int = 2
) -> dict[str, float]:
    """Median wall seconds per call of each case over interleaved rounds."""
    samples, _ = _samples(cases, rounds, repeat, warmup)
    return {name: statistics.median(wall for wall, _ in times) for name, times in samples.items()}


def compare(
    ours: Callable[[], object],
    theirs: Callable[[], object],
    rounds: int = 9,
    repeat: int | None = None,
    warmup: int = 2,
) -> Timing:
    """Ours against a reference, interleaved round by round."""
    samples, repeat = _samples({"ours": ours, "theirs": theirs}, rounds, repeat, warmup)
    a, b = samples["ours"], samples["theirs"]
    round_ours, round_theirs, ratio = median_round([wall for wall, _ in a], [wall for wall, _ in b])
    return Timing(
        ours=statistics.median(wall for wall, _ in a),
        theirs=statistics.median(wall for wall, _ in b),
        ratio=ratio,
        ours_cpu=statistics.median(cpu for _, cpu in a),
        theirs_cpu=statistics.median(cpu for _, cpu in b),
        cpu_ratio=median_round([cpu for _, cpu in a], [cpu for _, cpu in b])[2],
        repeat=repeat,
        round_ours=round_ours,
        round_theirs=round_theirs,
    )


def print_table(title: str, rows: list[tuple], unit: str = "ms", scale: float = 1e3) -> None:
    """Rows of (case, ours, torch) seconds (ratio ours/torch), or of (case, Timing): the times shown
    for a Timing are those of its median round, the round that gave the ratio."""
    print(f"\n{title}")
    print(f"{'case':<44}{'minitorch_rx':>14}{'torch':>12}{'ratio':>8}{'cpu ratio':>11}")
    for name, *values in rows:
        if isinstance(values[0], Timing):
            t = values[0]
            times = f"{t.round_ours * scale:>11.2f} {unit}{t.round_theirs * scale:>9.2f} {unit}"
            print(f"{name:<44}{times}{t.ratio:>7.2f}x{t.cpu_ratio:>10.2f}x")
        else:
            ours, theirs = values
            print(f"{name:<44}{ours * scale:>11.2f} {unit}{theirs * scale:>9.2f} {unit}{ours / theirs:>7.2f}x")
