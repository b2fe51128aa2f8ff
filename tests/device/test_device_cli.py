"""The command line on the GPU: ``train --device cuda`` writes a checkpoint that ``eval`` reads on
the CPU, and ``eval --device cuda`` scores the shipped weights as on the CPU. CUDA only: the CPU's
runs are tests/test_cli.py's."""

from __future__ import annotations

import json
import re

from minitorch_rx.cli import main
from tests.device.common import cuda_only

TINY = ["--limit", "512", "--batch-size", "64", "--quiet"]


def _accuracy(text: str) -> float:
    return float(re.search(r"accuracy ([0-9.]+)%", text).group(1))


@cuda_only
def test_a_checkpoint_trained_on_the_gpu_evaluates_alike_on_the_cpu(device, tmp_path, capsys):
    assert main(["train", "--epochs", "1", "--device", str(device), "--out", str(tmp_path), *TINY]) == 0
    assert json.loads((tmp_path / "metrics.json").read_text())["config"]["device"] == str(device)
    scores = []
    for where in (str(device), "cpu"):
        capsys.readouterr()
        assert main(["eval", "--checkpoint", str(tmp_path / "checkpoint.pt"), "--device", where, "--quiet"]) == 0
        scores.append(_accuracy(capsys.readouterr().out))
    assert abs(scores[0] - scores[1]) <= 0.1, scores


@cuda_only
def test_eval_of_the_shipped_weights_on_the_gpu_matches_the_cpu(device, capsys):
    scores = []
    for where in (str(device), "cpu"):
        assert main(["eval", "--model", "lenet5", "--device", where, "--quiet"]) == 0
        scores.append(_accuracy(capsys.readouterr().out))
    assert scores[0] > 98 and abs(scores[0] - scores[1]) <= 0.1, scores


@cuda_only
def test_training_on_the_gpu_takes_the_cpus_steps(device, tmp_path):
    """The same initial weights, batches and updates on both devices: the step losses of a short
    LeNet-5 run agree at float32's precision, drifting only as rounding compounds (a different
    initialisation, data order or a wrong kernel would differ from the first step)."""
    losses = {}
    for where in (str(device), "cpu"):
        run = tmp_path / where.replace(":", "_")
        assert main(["train", "--epochs", "1", "--device", where, "--out", str(run), *TINY]) == 0
        losses[where] = json.loads((run / "metrics.json").read_text())["step_losses"]
    gpu, cpu = losses[str(device)], losses["cpu"]
    assert len(gpu) == len(cpu) == 8
    assert abs(gpu[0] - cpu[0]) <= 1e-5 * abs(cpu[0]), (gpu, cpu)
    assert all(abs(g - c) <= 2e-3 * abs(c) for g, c in zip(gpu, cpu)), (gpu, cpu)
