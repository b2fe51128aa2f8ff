"""Every suite of bench/ in one run, one table: each figure against PyTorch, its bar, and whether
it is met. ``minitorch-rx bench [--quick]`` runs this from the repository root.

    python -m bench.run [--quick] [--skip memory,accuracy,ddp] [--data-root DIR]
                        [--kernels tuned|fixed|mkl] [--explain] [--device cuda]

Timings are interleaved with PyTorch round by round on one thread; the ratio is the median of the
per-round ratios, and the times shown are those of that median round (so they give the ratio).
``cpu ratio`` uses this thread's CPU time, steadier than wall time on a shared machine. Memory is
measured in fresh processes, accuracy over one MNIST epoch from the same initialization and order
(``--data-root``: a folder holding ``MNIST/raw/*-ubyte.gz``, default ``$MINITORCH_RX_MNIST``; else
the subset shipped in the package), DDP throughput in 2 processes. ``--quick`` shrinks every suite
(fewer rounds, smaller batches and chains, a 2,048-image epoch): it checks that the suites run,
not the bars (the "met" column says n/a). A line on stderr reports each suite as it starts.

The table's header names the CPU (model, torch's CPU capability) and the kernel choices in force:
``--kernels tuned`` (the default: ``mt.backends.autotune``, choices measured on this machine and
kept in its cache file), ``fixed`` (autotune off: the fixed rules, oneDNN's products from 2^22
multiply-adds) or ``mkl`` (fixed, and every product MKL's, as a CPU where MKL wins would choose).
``--explain`` prints every choice the tuner made, with the times behind it.

``--device cuda`` times the ops, models (both convolution backends), sequence, conv and optim
suites with every tensor on that device, waiting for its kernels after each timed call
(``torch.cuda.synchronize``); the suites that measure the CPU itself (memory's RSS, the CPU
accuracy run, DDP over gloo) are left out there. The bars were set on the CPU: on a GPU the rows
are figures to read.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import torch

import minitorch_rx as mt
from minitorch_rx.backends import tuner
from minitorch_rx.ops import linear

from . import accuracy, conv, ddp, memory, models, ops, optim, sequence
from .common import Timing, compare, median_round, synchronized

SUITES = ("ops", "models", "sequence", "conv", "optim", "memory", "accuracy", "ddp")
#: The suites that measure the CPU (RSS, a CPU training run, gloo), run only with ``--device cpu``.
CPU_SUITES = ("memory", "accuracy", "ddp")


@dataclass(frozen=True)
class Row:
    name: str
    ours: str
    theirs: str
    value: float  # the figure compared with the bar (a ratio, or accuracy points)
    cpu: float | None  # the CPU-time ratio, for timings
    bar: float | None  # None: no bar, a figure to read
    absolute: bool = False  # compare |value| with the bar (a difference, not a ratio)
    within: bool | None = None  # met by an allowance of its own (memory: +2 MiB under 20 MiB)

    @property
    def met(self) -> bool | None:
        if self.bar is None:
            return None
        return (abs(self.value) if self.absolute else self.value) <= self.bar or bool(self.within)


def _timing_row(name: str, t: Timing, bar: float | None, unit: str = "ms", scale: float = 1e3) -> Row:
    """A row showing the median round's times, which give the ratio."""
    return Row(
        name, f"{t.round_ours * scale:.2f} {unit}", f"{t.round_theirs * scale:.2f} {unit}", t.ratio, t.cpu_ratio, bar
    )


def _ops_rows(quick: bool, data_root: Path | None, device: str = "cpu") -> list[Row]:
    n_ops, rounds = (200, 3) if quick else (1000, 21)
    ((name, t),) = ops.run(n_ops, rounds, device)
    return [_timing_row(f"{name} vs torch.autograd", t, 0.50, "us", 1e6)]


def _model_rows(quick: bool, data_root: Path | None, device: str = "cpu") -> list[Row]:
    rows = []
    cases = (("mlp", None), ("lenet5-im2col", None), ("lenet5", None), ("resnet20", None))
    if quick:
        cases = (("mlp", 16), ("lenet5-im2col", 8), ("lenet5", 8), ("resnet20", 4))
    for name, size in cases:
        rounds, reps = (3, 1) if quick else ((9, None) if name == "resnet20" else (15, None))
        ((label, timing),) = models.run([name], rounds, reps, size, device=device)
        rows.append(_timing_row(label, timing, models.CASES[name].bar))
    # The opt-in native convolution (mt.backends.conv = "native"), with a bar of its own.
    for name, size in cases[2:]:
        rounds, reps = (3, 1) if quick else ((9, None) if name == "resnet20" else (15, None))
        ((label, timing),) = models.run([name], rounds, reps, size, conv="native", device=device)
        rows.append(_timing_row(label, timing, models.NATIVE_BAR))
    return rows


#: bench/sequence.py's cases in the table, with their bars (issue 26): the gpt_char baby configuration
#: as a causal nn.TransformerEncoder step (AdamW) and a 2-layer LSTM step (Adam), each against torch.nn.
SEQUENCE_BARS = {"transformer": 1.0, "lstm": 1.2}


def _sequence_rows(quick: bool, data_root: Path | None, device: str = "cpu") -> list[Row]:
    rows = []
    for name, bar in SEQUENCE_BARS.items():
        rounds, reps, batch, steps = (3, 1, 2, 8) if quick else (9, None, None, None)
        ((label, timing),) = sequence.run([name], rounds, reps, batch, steps, device)
        ours, theirs = f"{timing.ours * 1e3:.2f} ms", f"{timing.theirs * 1e3:.2f} ms"
        rows.append(Row(label, ours, theirs, timing.ratio, timing.cpu_ratio, bar))
    return rows


def _conv_rows(quick: bool, data_root: Path | None, device: str = "cpu") -> list[Row]:
    rounds, reps = (3, 1) if quick else (9, 5)
    cases = (*conv.LENET, conv.OTHERS[2])  # LeNet-5's two layers and the 3-D case
    times = conv.measure(cases, rounds, reps, device)
    measured = {
        "LeNet-5's conv layers, forward + backward, vs native": (
            conv.lenet_layers(times, [case.name for case in conv.LENET]),
            1.6,
        ),
        f"{conv.OTHERS[2].name}, forward + backward, vs native": (times[conv.OTHERS[2].name], 2.5),
    }
    rows = []
    for name, (t, bar) in measured.items():
        ours, theirs, ratio = median_round(t["mt_wall"], t["torch_wall"])
        cpu = median_round(t["mt_cpu"], t["torch_cpu"])[2]
        rows.append(Row(name, f"{ours * 1e3:.2f} ms", f"{theirs * 1e3:.2f} ms", ratio, cpu, bar))
    return rows


def _optim_rows(quick: bool, data_root: Path | None, device: str = "cpu") -> list[Row]:
    rounds, repeat = (3, 1) if quick else (9, None)
    shapes = optim.resnet18_shapes()
    rows = []
    for name in ("SGD(momentum=0.9)", "Adam"):
        our_cls, torch_cls, kwargs = optim.CASES[name]
        ours, theirs = optim._twin_params(shapes, device)
        our_step = synchronized(our_cls(ours, **kwargs).step, device)
        timing = compare(our_step, synchronized(torch_cls(theirs, **kwargs).step, device), rounds, repeat)
        rows.append(_timing_row(f"{name} step, ResNet-18 params (11.7M), vs torch.optim", timing, 1.2))
    return rows


#: bench/memory.py's row labels. Bar (issue 26): each step's peak anonymous memory (the peak's rise
#: less the library code pages it brought in) at most 1.0x PyTorch's, or at most ``MEMORY_SLACK_MIB``
#: above it where PyTorch's is under ``MEMORY_SMALL_MIB``.
MEMORY_LABELS = {
    "mlp": "MLP 784-128-10 step, batch 64",
    "lenet5": "LeNet-5 step, batch 64",
    "resnet20": "ResNet-20 step, batch 128",
    "transformer": "causal Transformer step, batch 12 x 64",
    "lstm": "2-layer LSTM step, batch 32 x 64",
}
MEMORY_SLACK_MIB = 2.0
MEMORY_SMALL_MIB = 20.0


def _memory_rows(quick: bool, data_root: Path | None, device: str = "cpu") -> list[Row]:
    steps, size = (2, 4) if quick else (10, None)
    rows = []
    for model, ours, theirs, our_code, their_code in memory.run(list(memory.MODELS), steps, size, code=True):
        ours, theirs = ours - our_code, theirs - their_code  # anonymous: less the code pages
        ratio = ours / theirs if theirs > 0 else float("inf")
        label = MEMORY_LABELS[model]
        if quick:
            label = label.split(", batch")[0] + f", batch {size}"
        within = theirs < MEMORY_SMALL_MIB and ours <= theirs + MEMORY_SLACK_MIB
        name = f"{label}: peak anonymous ({steps} steps)"
        rows.append(Row(name, f"{ours:.1f} MiB", f"{theirs:.1f} MiB", ratio, None, memory.BAR, within=within))
    return rows


def _accuracy_rows(quick: bool, data_root: Path | None, device: str = "cpu") -> list[Row]:
    root = None if quick else accuracy.resolve_root(data_root)
    ours, theirs, source = accuracy.train_both(1, root, 2048 if quick else None)
    label = "LeNet-5 1 MNIST epoch: test accuracy" + (" (2048 images)" if quick else "" if root else " (subset)")
    return [Row(label, f"{ours:.2f}%", f"{theirs:.2f}%", ours - theirs, None, 0.2, absolute=True)]


def _ddp_rows(quick: bool, data_root: Path | None, device: str = "cpu") -> list[Row]:
    settings = argparse.Namespace(batch_size=64, steps=5 if quick else 40, warmup=1 if quick else 5)
    rounds = 1 if quick else 3
    rates = {
        engine: statistics.median(ddp.throughput(engine, 2, 1, settings)[0] for _ in range(rounds))
        for engine in ddp.STEPS
    }
    ours, theirs = rates["minitorch_rx"], rates["torch"]
    name = "LeNet-5 DDP, 2 processes x 1 thread: images/s (ratio: time)"
    return [Row(name, f"{ours:.0f}/s", f"{theirs:.0f}/s", theirs / ours, None, None)]


SUITE_ROWS = {
    "ops": _ops_rows,
    "models": _model_rows,
    "sequence": _sequence_rows,
    "conv": _conv_rows,
    "optim": _optim_rows,
    "memory": _memory_rows,
    "accuracy": _accuracy_rows,
    "ddp": _ddp_rows,
}


def print_rows(rows: list[Row], quick: bool = False) -> None:
    """The table; under ``quick`` the "met" column says n/a (the sizes cannot judge the bars)."""
    print(f"{'measure':<64}{'minitorch_rx':>14}{'torch':>12}{'ratio':>8}{'cpu ratio':>11}{'bar':>8}  met")
    for row in rows:
        value = f"{row.value:+.2f}pt" if row.absolute else f"{row.value:.2f}x"
        cpu = "" if row.cpu is None else f"{row.cpu:.2f}x"
        if row.bar is None:
            bar, met = "-", "-"
        else:
            bar = f"{row.bar:.1f}pt" if row.absolute else f"{row.bar:.2f}x"
            met = "n/a" if quick else "yes" if row.met else "NO"
        print(f"{row.name:<64}{row.ours:>14}{row.theirs:>12}{value:>8}{cpu:>11}{bar:>8}  {met}")


def main(argv: list[str] | None = None) -> list[Row]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="tiny suites: check that they run, not the bars")
    parser.add_argument("--skip", default="", help="comma-separated suites to leave out: " + ", ".join(SUITES))
    parser.add_argument(
        "--data-root", type=Path, default=None, help="for the accuracy suite: a folder holding MNIST/raw/*-ubyte.gz"
    )
    parser.add_argument("--kernels", choices=KERNELS, default="tuned", help="the kernel choices in force")
    parser.add_argument("--explain", action="store_true", help="print every choice the tuner made, and why")
    parser.add_argument("--device", default="cpu", help="cpu, cuda or cuda:N: where the timed tensors live")
    args = parser.parse_args(argv)
    skip = {name for name in args.skip.split(",") if name}
    unknown = skip - set(SUITES)
    if unknown:
        parser.error(f"unknown suite(s) in --skip: {', '.join(sorted(unknown))}; the suites: {', '.join(SUITES)}")
    device = torch.device(args.device)
    if device.type == "cuda" and not torch.cuda.is_available():
        parser.error(f"--device {args.device}: torch sees no CUDA device on this machine")
    if device.type != "cpu":
        left_out = [name for name in CPU_SUITES if name not in skip]
        if left_out:
            print(f"bench: {', '.join(left_out)} measure the CPU: left out on {device}", file=sys.stderr)
        skip |= set(CPU_SUITES)
    torch.set_num_threads(1)
    use_kernels(args.kernels)
    start = time.perf_counter()
    rows: list[Row] = []
    chosen = [name for name in SUITES if name not in skip]
    for number, name in enumerate(chosen, 1):
        began = time.perf_counter()
        print(f"bench: [{number}/{len(chosen)}] {name} ...", file=sys.stderr, flush=True)
        rows += SUITE_ROWS[name](args.quick, args.data_root, str(device))
        print(f"bench: [{number}/{len(chosen)}] {name} done ({time.perf_counter() - began:.0f} s)", file=sys.stderr)
    note = " (--quick: sizes too small for the bars)" if args.quick else ""
    where = f" on {torch.cuda.get_device_name(device)} ({device})" if device.type == "cuda" else ""
    print(f"\nminitorch_rx against PyTorch {torch.__version__}{where}, one thread{note}; times: the median round's")
    print(f"CPU: {tuner.cpu_model()}, torch CPU capability {torch.backends.cpu.get_cpu_capability()}")
    print(f"kernels: {describe_kernels(args.kernels)}")
    print_rows(rows, args.quick)
    print(f"({time.perf_counter() - start:.0f} s)")
    if args.explain:
        print("\n" + tuner.report())
    return rows


#: ``--kernels``: how products and column layouts are chosen during the run.
KERNELS = ("tuned", "fixed", "mkl")


def use_kernels(kernels: str) -> None:
    """Set the kernel choices for this process and the worker processes it starts (memory, DDP)."""
    tuned = kernels == "tuned"
    mt.backends.autotune = tuned
    os.environ["MINITORCH_RX_AUTOTUNE"] = "1" if tuned else "0"
    if kernels == "mkl":
        linear.ONEDNN = None
        os.environ["BENCH_PRODUCTS"] = "mkl"  # read by bench.memory's workers


def describe_kernels(kernels: str) -> str:
    """One line: the choices in force, and for ``tuned`` how many of each kind the tuner made."""
    if kernels == "fixed":
        return "fixed rules (autotune off): oneDNN's products from 2^22 multiply-adds, the layouts' thresholds"
    if kernels == "mkl":
        return "fixed rules (autotune off), every product MKL's (oneDNN off)"
    counts: dict[str, dict[str, int]] = {}
    for choice in tuner.choices():
        picked = counts.setdefault(choice.kind, {})
        picked[choice.picked] = picked.get(choice.picked, 0) + 1
    made = "; ".join(
        f"{kind}: " + ", ".join(f"{name} x{count}" for name, count in sorted(picked.items()))
        for kind, picked in counts.items()
    )
    return f"tuned on this machine (mt.backends.autotune; --explain lists them): {made or 'none made'}"


if __name__ == "__main__":
    main()
