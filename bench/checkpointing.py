"""What activation checkpointing saves: bytes held for backward after forward, and the peak
resident memory of a training step, with and without ``mt.utils.checkpoint``, each in a fresh
process (as ``bench.memory`` measures peaks).

    python -m bench.checkpointing [--steps 3]

The peak is the rise of the resident set over what the model and batch take, over the first
steps (the allocator keeps freed pages afterwards, so later steps show less). Models: a deep
MLP (16 blocks of Linear(512, 512) + Tanh, batch 4096), checkpointed every 4 blocks; ResNet-20
(batch 128), checkpointed per residual stage.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

from bench.memory import _reset_peak, _status_kib

ROOT = Path(__file__).resolve().parents[1]


def _model(name: str):
    import minitorch_rx as mt
    import minitorch_rx.nn as nn

    mt.manual_seed(0)
    if name == "mlp":
        blocks = [nn.Sequential(nn.Linear(512, 512), nn.Tanh()) for _ in range(16)]
        segments = [nn.Sequential(*blocks[i : i + 4]) for i in range(0, 16, 4)]
        return nn.Sequential(*segments), mt.randn(4096, 512), segments
    model = mt.models.get("resnet20")
    return model, mt.randn(128, 3, 32, 32), [model.layer1, model.layer2, model.layer3]


def worker(name: str, checkpointed: bool, steps: int) -> dict:
    import minitorch_rx as mt
    from minitorch_rx.utils.checkpoint import checkpoint

    model, batch, segments = _model(name)
    if checkpointed:
        for segment in segments:

            def forward(x, plain=segment.forward, segment=segment):
                segment._checkpoint_input = x
                return checkpoint(plain, x)

            segment.forward = forward
    baseline = _status_kib("VmRSS")
    _reset_peak()
    held = 0
    for _ in range(steps):
        with mt.Graph() as graph:
            out = model(batch)
        # what the graph's nodes keep, plus the segments' inputs that checkpointing keeps to recompute
        inputs = 0
        if checkpointed:
            inputs = sum(s._checkpoint_input.numel() * s._checkpoint_input.element_size() for s in segments)
        held = max(held, graph.saved_bytes() + inputs)
        out.sum().backward()
        del out
    return {"held_mib": held / 2**20, "peak_mib": (_status_kib("VmHWM") - baseline) / 1024}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=3)
    parser.add_argument("--worker", nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        print(json.dumps(worker(args.worker[0], args.worker[1] == "1", args.steps)))
        return
    print(f"{'model':<10} {'held for backward':>34} {'peak RSS of a step':>34}")
    for name in ("mlp", "resnet20"):
        results = []
        for checkpointed in ("0", "1"):
            command = [sys.executable, "-m", "bench.checkpointing", "--steps", str(args.steps), "--worker", name]
            out = subprocess.run([*command, checkpointed], cwd=ROOT, capture_output=True, text=True, check=True)
            results.append(json.loads(out.stdout.strip().splitlines()[-1]))
        plain, ckpt = results
        print(
            f"{name:<10} {plain['held_mib']:9.1f} MiB -> {ckpt['held_mib']:7.1f} MiB checkpointed "
            f"{plain['peak_mib']:9.1f} MiB -> {ckpt['peak_mib']:7.1f} MiB checkpointed"
        )


if __name__ == "__main__":
    main()
