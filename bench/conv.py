"""Convolution forward + backward: minitorch_rx's im2col + matmul against torch's native convolution.

Both run in this process on one thread, interleaved round by round (so a noisy neighbour slows
both alike), in float32. Each round times ``reps`` calls of forward + backward for every case;
the figure is the median over rounds. Two clocks: wall time, and this thread's CPU time (which
leaves out the time the thread waited for a CPU on a shared machine).

    python bench/conv.py [--rounds 9] [--reps 5]

Bar (issue 3): LeNet-5's conv layers at most 1.6x native, the 3-D case at most 2.5x.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass

import torch
import torch.nn.functional as torch_functional

import minitorch_rx as mt
from minitorch_rx.ops import conv as mt_conv

from .common import synchronized

try:
    from .common import median_round
except ImportError:  # run as a script: python bench/conv.py
    from common import median_round


@dataclass(frozen=True)
class Case:
    name: str
    batch: int
    in_channels: int
    out_channels: int
    size: tuple[int, ...]
    kernel: int
    padding: int
    input_grad: bool  # False for a first layer, whose input (the images) needs no gradient


LENET = (
    Case("lenet conv1 1->6 k5 28x28 pad 2", 64, 1, 6, (28, 28), 5, 2, False),
    Case("lenet conv2 6->16 k5 14x14", 64, 6, 16, (14, 14), 5, 0, True),
)
OTHERS = (
    Case("lenet conv1 1->6 k5 28x28 no pad", 64, 1, 6, (28, 28), 5, 0, False),
    Case("conv1d 32->32 k3 L=500 pad 1", 16, 32, 32, (500,), 3, 1, True),
    Case("conv3d 4->8 k3 16^3 pad 1", 8, 4, 8, (16, 16, 16), 3, 1, True),
)
MT_CONV = {1: mt_conv.conv1d, 2: mt_conv.conv2d, 3: mt_conv.conv3d}
TORCH_CONV = {1: torch_functional.conv1d, 2: torch_functional.conv2d, 3: torch_functional.conv3d}


def _step_functions(case: Case, device: str = "cpu") -> tuple[Callable[[], None], Callable[[], None]]:
    """(minitorch_rx step, torch step) on ``device``: forward, then backward with the same output gradient."""
    dims = len(case.size)
    generator = torch.Generator().manual_seed(0)
    x = torch.randn(case.batch, case.in_channels, *case.size, generator=generator)
    w = torch.randn(case.out_channels, case.in_channels, *(case.kernel,) * dims, generator=generator)
    b = torch.randn(case.out_channels, generator=generator)
    out = TORCH_CONV[dims](x, w, b, padding=case.padding)
    grad = torch.randn(out.shape, generator=generator)
    x, w, b, grad = (t.to(device) for t in (x, w, b, grad))

    mt_x = mt.tensor(x, requires_grad=case.input_grad)
    mt_w, mt_b = mt.tensor(w, requires_grad=True), mt.tensor(b, requires_grad=True)
    mt_grad = mt.tensor(grad)
    t_x = x.clone().requires_grad_(case.input_grad)
    t_w, t_b = w.clone().requires_grad_(), b.clone().requires_grad_()
    mt_leaves, t_leaves = (mt_x, mt_w, mt_b), (t_x, t_w, t_b)

    def mt_step() -> None:
        for t in mt_leaves:
            t.grad = None
        MT_CONV[dims](mt_x, mt_w, mt_b, padding=case.padding).backward(mt_grad)

    def torch_step() -> None:
        for t in t_leaves:
            t.grad = None
        TORCH_CONV[dims](t_x, t_w, t_b, padding=case.padding).backward(grad)

    return synchronized(mt_step, device), synchronized(torch_step, device)


def _time(step: Callable[[], None], reps: int) -> tuple[float, float]:
    """Seconds per call: (wall, this thread's CPU)."""
    wall, cpu = time.perf_counter(), time.thread_time()
    for _ in range(reps):
        step()
    return (time.perf_counter() - wall) / reps, (time.thread_time() - cpu) / reps


def measure(cases: tuple[Case, ...], rounds: int, reps: int, device: str = "cpu") -> dict[str, dict[str, list[float]]]:
    """Per case and clock, the per-round times of both implementations on ``device``, interleaved."""
    steps = {case.name: _step_functions(case, device) for case in cases}
    for mt_step, torch_step in steps.values():  # warm up allocator, kernels and caches
        mt_step()
        torch_step()
    times = {name: {k: [] for k in ("mt_wall", "torch_wall", "mt_cpu", "torch_cpu")} for name in steps}
    for round_nr in range(rounds):
        for name, (mt_step, torch_step) in steps.items():
            order = [("mt", mt_step), ("torch", torch_step)]
            if round_nr % 2:
                order.reverse()
            for label, step in order:
                wall, cpu = _time(step, reps)
                times[name][f"{label}_wall"].append(wall)
                times[name][f"{label}_cpu"].append(cpu)
    return times


def _ratio(times: dict[str, list[float]], clock: str) -> float:
    """Median over rounds of the per-round ratio (both timed in the same round)."""
    return statistics.median(m / t for m, t in zip(times[f"mt_{clock}"], times[f"torch_{clock}"], strict=True))


def lenet_layers(times: dict[str, dict[str, list[float]]], lenet_names: list[str]) -> dict[str, list[float]]:
    """Per-round times of LeNet-5's conv layers together (the sum of their cases)."""
    return {
        key: [sum(values) for values in zip(*(times[name][key] for name in lenet_names), strict=True)]
        for key in ("mt_wall", "torch_wall", "mt_cpu", "torch_cpu")
    }


def report(times: dict[str, dict[str, list[float]]], lenet_names: list[str]) -> None:
    """One line per case: the times of the median round (the round that gave the ratio), the ratio
    and the CPU-time ratio."""
    print(f"{'case':40} {'mt ms':>8} {'torch ms':>9} {'ratio':>6} {'cpu ratio':>10}")
    rows = {**times, "lenet conv layers (conv1 pad 2 + conv2)": lenet_layers(times, lenet_names)}
    for name, t in rows.items():
        ours, theirs, ratio = median_round(t["mt_wall"], t["torch_wall"])
        print(f"{name:40} {ours * 1e3:8.2f} {theirs * 1e3:9.2f} {ratio:6.2f} {_ratio(t, 'cpu'):10.2f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=9)
    parser.add_argument("--reps", type=int, default=5)
    args = parser.parse_args()
    torch.set_num_threads(1)
    cases = LENET + OTHERS
    print(f"torch {torch.__version__}, 1 thread, float32, median of {args.rounds} rounds x {args.reps} calls")
    report(measure(cases, args.rounds, args.reps), [case.name for case in LENET])


if __name__ == "__main__":
    main()
