"""bench/ on the suite's device (tiny sizes): the twin steps start from the same loss there, and
every timed suite that ``bench.run --device`` runs gives its rows."""

from __future__ import annotations

import math

import pytest
import torch

from bench import common, models, run


@pytest.mark.parametrize("case", list(models.CASES))
def test_twin_models_start_from_the_same_loss_on_the_device(device, case):
    mt_step, torch_step = models.training_steps(models.CASES[case], size=2, device=str(device))
    ours, theirs = mt_step(), torch_step()
    assert ours.device == theirs.device and ours.device.type == device.type
    assert math.isclose(ours.item(), theirs.item(), rel_tol=1e-4)


def test_synchronized_waits_for_the_device_and_returns_the_result(device):
    calls = []
    fn = common.synchronized(lambda: calls.append(1) or torch.ones(2, device=device).sum(), device)
    assert fn().item() == 2.0 and calls == [1]
    assert common.synchronized(len, "cpu") is len


@pytest.mark.parametrize("suite", ["ops", "conv", "optim"])
def test_the_timed_suites_give_rows_on_the_device(device, suite):
    if suite == "optim" and device.type == "cpu":
        pytest.skip("bench's optim rows on the CPU: tests/test_bench_smoke.py's sizes; ResNet-18's 11.7M here")
    rows = run.SUITE_ROWS[suite](True, None, str(device))
    assert rows and all(row.value > 0 for row in rows)


def test_cuda_without_cuda_is_a_usage_error(capsys):
    if torch.cuda.is_available():
        pytest.skip("this machine has CUDA")
    with pytest.raises(SystemExit):
        run.main(["--device", "cuda", "--quick"])
    assert "no CUDA device" in capsys.readouterr().err


def test_the_device_check_script_parses():
    """``scripts/device_check.sh`` (run whole by hand: 4 minutes on the CPU) is valid bash."""
    import subprocess
    from pathlib import Path

    script = Path(__file__).resolve().parents[2] / "scripts" / "device_check.sh"
    result = subprocess.run(["bash", "-n", str(script)], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
