"""``minitorch-rx train --resume`` after SIGKILLs at random moments (issue 37): the run killed
several times, each time resumed from the checkpoint it left, ends on the uninterrupted run's
weights, optimizer and scheduler state, random state and metrics, with the tuner on (its choices
measured in the killed runs, read from the cache file by the later ones), and no temporary of a
killed save is left on disk. The kills fall a random moment after a checkpoint was written, so
that they hit training steps, evaluation and saves alike."""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import torch

import minitorch_rx as mt

EPOCHS = 4
KILLS = 3
#: Kills fall up to this long after a checkpoint was written (an epoch here takes 0.1-0.5 s).
KILL_WITHIN = 0.4
COMMAND = ["-m", "minitorch_rx", "train", "--model", "lenet5", "--limit", "128", "--batch-size", "32"]
COMMAND += ["--epochs", str(EPOCHS), "--seed", "3", "--quiet"]


def start(out: Path, env: dict) -> subprocess.Popen:
    resume = ["--resume", str(out / "checkpoint.pt")] if (out / "checkpoint.pt").exists() else []
    return subprocess.Popen(
        [sys.executable, *COMMAND, "--out", str(out), *resume],
        cwd=Path(__file__).resolve().parents[1],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )


def finish(process: subprocess.Popen) -> None:
    """Wait for ``process``, which must succeed."""
    _, err = process.communicate(timeout=600)
    assert process.returncode == 0, err


def written(path: Path) -> int:
    return path.stat().st_mtime_ns if path.exists() else 0


def without_timings(metrics: dict) -> dict:
    """Metrics less what depends on the clock or on how the run was started (``--resume``, ``--out``)."""
    metrics = {**metrics, "config": {**metrics["config"], "resume": None, "out": None}}
    metrics.pop("images_per_second")
    return metrics


def run_state(out: Path) -> dict:
    checkpoint = mt.load(out / "checkpoint.pt")
    history = json.loads(checkpoint.pop("history"))
    history.pop("images_per_second")
    checkpoint.pop("config")
    metrics = without_timings(json.loads((out / "metrics.json").read_text()))
    return {**checkpoint, "history": history, "metrics": metrics}


def assert_same(a, b, where="") -> None:
    if isinstance(a, dict):
        assert isinstance(b, dict) and a.keys() == b.keys(), where
        for key in a:
            assert_same(a[key], b[key], f"{where}/{key}")
    elif isinstance(a, list | tuple):
        assert len(a) == len(b), where
        for index, (x, y) in enumerate(zip(a, b, strict=True)):
            assert_same(x, y, f"{where}[{index}]")
    elif isinstance(a, torch.Tensor | mt.Tensor):
        x, y = (t.torch() if isinstance(t, mt.Tensor) and hasattr(t, "torch") else t for t in (a, b))
        assert x.dtype == y.dtype and x.shape == y.shape and torch.equal(x, y), where
    else:
        assert a == b, where


def test_a_run_killed_at_random_moments_and_resumed_ends_on_the_uninterrupted_runs_state(tmp_path):
    env = {**os.environ, "MINITORCH_RX_AUTOTUNE": "1", "OMP_NUM_THREADS": "1", "MPLBACKEND": "Agg"}
    straight = tmp_path / "straight"
    uninterrupted = start(straight, {**env, "MINITORCH_RX_CACHE_DIR": str(tmp_path / "cache straight")})
    env["MINITORCH_RX_CACHE_DIR"] = str(tmp_path / "cache killed")  # its own, empty: choices measured anew
    killed, rng, kills = tmp_path / "killed", random.Random(37), 0
    while kills < KILLS:
        before = written(killed / "checkpoint.pt")
        process = start(killed, env)
        deadline = time.monotonic() + 300
        while written(killed / "checkpoint.pt") == before and process.poll() is None:
            assert time.monotonic() < deadline, "no checkpoint written"
            time.sleep(0.005)
        time.sleep(rng.uniform(0, KILL_WITHIN))  # into the next epoch: a step, the evaluation or a save
        if process.poll() is None:
            process.send_signal(signal.SIGKILL)
        _, err = process.communicate()
        assert process.returncode in (0, -signal.SIGKILL), err
        if mt.load(killed / "checkpoint.pt")["epoch"] == EPOCHS:  # it finished first: start over, kill earlier
            for path in killed.iterdir():
                path.unlink()
            continue
        kills += 1
    finish(start(killed, env))
    finish(uninterrupted)
    assert mt.load(killed / "checkpoint.pt")["epoch"] == EPOCHS
    assert_same(run_state(killed), run_state(straight))
    assert not [path.name for path in killed.iterdir() if path.name.endswith(".tmp")]
