"""Timing helpers shared by the benchmarks: interleaved rounds, one thread, medians."""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable

import torch


def interleaved(cases: dict[str, Callable[[], None]], rounds: int = 9, repeat: int = 1, warmup: int = 2) -> dict[str, float]:
    """Median seconds per call of each case, the cases run in turn within every round so that
    machine noise hits them alike."""
    torch.set_num_threads(1)
    for _ in range(warmup):
        for fn in cases.values():
            fn()
    samples: dict[str, list[float]] = {name: [] for name in cases}
    for _ in range(rounds):
        for name, fn in cases.items():
            start = time.perf_counter()
            for _ in range(repeat):
                fn()
            samples[name].append((time.perf_counter() - start) / repeat)
    return {name: statistics.median(times) for name, times in samples.items()}


def print_table(title: str, rows: list[tuple[str, float, float]], unit: str = "ms", scale: float = 1e3) -> None:
    """Rows of (case, ours, torch) seconds, printed with their ratio ours/torch."""
    print(f"\n{title}")
    print(f"{'case':<34}{'minitorch_rx':>14}{'torch':>12}{'ratio':>8}")
    for name, ours, theirs in rows:
        print(f"{name:<34}{ours * scale:>11.2f} {unit}{theirs * scale:>9.2f} {unit}{ours / theirs:>7.2f}x")
