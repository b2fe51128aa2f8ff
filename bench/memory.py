"""Peak resident memory of training runs against PyTorch, each run in a fresh process.

A worker process imports everything, builds the model, optimizer and batch, resets the kernel's
high-water mark of its resident set (``/proc/self/clear_refs``) and notes its resident set as the
baseline, runs the training steps, and reports how far the high-water mark (``VmHWM``) rose above
that baseline: the memory the training itself needed (activations, saved tensors, gradients,
optimizer state, workspaces), and the pages of library code its kernels first ran (file-backed,
``RssFile``: shown apart as "code", part of the figure). The same for torch.nn in its own process.
(``ru_maxrss`` cannot be reset, and the imports' transient peak can hide a training run's.)
Before ours is measured, a process of its own runs one step, in which ``mt.backends.autotune``
makes every choice (the choices go to the per-machine cache file): the measured process then
starts from those choices, as a user's later runs do, and its peak holds no trial's buffers (the
trials' oneDNN and largest slice buffers raised LeNet-5's figure from about 12 to 15-20 MiB).

    python -m bench.memory [--models mlp,lenet5,resnet20,transformer,lstm] [--steps 10] [--batch B]

The steps are those timed by ``bench.models`` (``mlp``, ``lenet5``, ``resnet20``: SGD on twin
models and one fixed batch) and ``bench.sequence`` (``transformer``: AdamW, ``lstm``: Adam), built
by their own ``training_steps``. Bar (issue 19): at most 1.0x PyTorch's peak for each (goal 0.9x).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _status_kib(field: str) -> int:
    """A ``/proc/self/status`` field in KiB (Linux)."""
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    raise RuntimeError(f"no {field} in /proc/self/status")


def _reset_peak() -> None:
    with open("/proc/self/clear_refs", "w") as clear_refs:
        clear_refs.write("5")  # reset VmHWM to the current resident set


#: The steps measured, each with its bar (issue 19): bench.models' cases, then bench.sequence's.
MODELS = ("mlp", "lenet5", "resnet20", "transformer", "lstm")
BAR = 1.0


def training_steps(model: str, size: int | None = None) -> tuple[object, object]:
    """(minitorch_rx step, torch step) of ``model``, from ``bench.models`` or ``bench.sequence``;
    ``size`` overrides the batch size."""
    from . import models, sequence

    if model in models.CASES:
        return models.training_steps(models.CASES[model], size)
    batch, steps = sequence.DEFAULT_SIZES[model]
    return sequence.training_steps(model, size or batch, steps)


def worker(model: str, impl: str, steps: int, size: int | None) -> dict[str, float]:
    """Run ``steps`` training steps of ``model`` with ``impl`` ('minitorch_rx' or 'torch') in this
    process; return the baseline and the rise of the peak resident set, in MiB."""
    import torch

    from minitorch_rx.ops import linear

    torch.set_num_threads(1)
    if os.environ.get("BENCH_PRODUCTS") == "mkl":  # bench.run --kernels mkl
        linear.ONEDNN = None
    mt_step, torch_step = training_steps(model, size)
    if impl == "settle":  # make the tuner's choices (written to its cache file); nothing measured
        from minitorch_rx.backends import tuner

        mt_step()  # (each choice is made before the first call it serves)
        return {"choices": len(tuner.choices())}
    step = mt_step if impl == "minitorch_rx" else torch_step
    del mt_step, torch_step  # the other twin's model stays alive in the closure: same baseline for both
    _reset_peak()
    baseline, code = _status_kib("VmRSS"), _status_kib("RssFile")
    for _ in range(steps):
        loss = step()
        del loss
    return {
        "baseline_mib": baseline / 1024,
        "peak_rise_mib": (_status_kib("VmHWM") - baseline) / 1024,
        "code_rise_mib": (_status_kib("RssFile") - code) / 1024,
    }


def measure(model: str, impl: str, steps: int, size: int | None = None) -> dict[str, float]:
    """``worker`` in a fresh Python process."""
    command = [sys.executable, "-m", "bench.memory", "--worker", model, impl, "--steps", str(steps)]
    if size is not None:
        command += ["--batch", str(size)]
    out = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, check=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def run(models: list[str] | None = None, steps: int = 10, size: int | None = None, code: bool = False) -> list[tuple]:
    """(model, our peak rise, torch's) in MiB for each model (default: all of ``MODELS``); with
    ``code``, each row also gives the code pages in ours and in torch's."""
    rows = []
    for model in models or MODELS:
        measure(model, "settle", steps, size)
        ours, theirs = measure(model, "minitorch_rx", steps, size), measure(model, "torch", steps, size)
        row = (model, ours["peak_rise_mib"], theirs["peak_rise_mib"])
        rows.append((*row, ours["code_rise_mib"], theirs["code_rise_mib"]) if code else row)
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", default=",".join(MODELS), help="comma-separated: " + ",".join(MODELS))
    parser.add_argument("--steps", type=int, default=10)
    parser.add_argument("--batch", type=int, default=None, help="override the models' batch size")
    parser.add_argument("--worker", nargs=2, metavar=("MODEL", "IMPL"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        print(json.dumps(worker(*args.worker, args.steps, args.batch)))
        return
    print(f"\npeak resident memory of {args.steps} training steps above the process's baseline, fresh processes")
    print(f"{'model':<12}{'minitorch_rx':>14}{'torch':>12}{'ratio':>8}{'bar':>8}   code pages (ours, torch's)")
    for model, ours, theirs, our_code, their_code in run(args.models.split(","), args.steps, args.batch, True):
        ratio = f"{ours:>10.1f} MiB{theirs:>8.1f} MiB{ours / theirs:>7.2f}x{BAR:>7.2f}x"
        print(f"{model:<12}{ratio}   {our_code:.1f}, {their_code:.1f} MiB")


if __name__ == "__main__":
    main()
