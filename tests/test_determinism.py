"""Determinism (issue 6): the same seed and data give bit-identical losses on the CPU, run to run.

A short training run (convolution, batch norm, dropout, a shuffled loader, Adam) runs in two
fresh interpreters and the two are compared bit for bit: losses as ``float.hex`` and a hash
of the final weights. A run with another seed must differ, so the comparison cannot pass
vacuously.
"""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from pathlib import Path

import pytest

import minitorch_rx as mt
import minitorch_rx.nn as nn
import minitorch_rx.nn.functional as F

STEPS = 12


def train(seed: int, steps: int = STEPS) -> dict:
    """``steps`` Adam steps on shuffled MNIST batches: each loss (hex) and a hash of the weights."""
    mt.manual_seed(seed)
    model = nn.Sequential(
        nn.Conv2d(1, 6, 5), nn.BatchNorm2d(6), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(6, 16, 5), nn.ReLU(), nn.MaxPool2d(2),
        nn.Flatten(), nn.Dropout(0.2), nn.Linear(256, 10),
    )  # fmt: skip
    optimizer = mt.optim.Adam(model.parameters(), lr=1e-3)
    loader = mt.data.DataLoader(mt.data.MNIST(train=False), batch_size=32, shuffle=True, seed=seed)
    losses = []
    for step, (images, labels) in enumerate(loader):
        if step == steps:
            break
        optimizer.zero_grad()
        loss = F.cross_entropy(model(images), labels)
        loss.backward()
        optimizer.step()
        losses.append(loss.item().hex())
    digest = hashlib.sha256()
    for name, tensor in model.state_dict().items():
        digest.update(name.encode())
        digest.update(tensor.torch().contiguous().numpy().tobytes())
    return {"losses": losses, "weights": digest.hexdigest()}


def train_in_fresh_interpreters(seeds: list[int]) -> list[dict]:
    """``train(seed)`` for each seed, each in its own new Python process, all at once."""
    processes = [
        subprocess.Popen(
            [sys.executable, __file__, str(seed)],
            cwd=Path(__file__).resolve().parents[1],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for seed in seeds
    ]
    results = []
    for process in processes:
        out, err = process.communicate(timeout=600)
        assert process.returncode == 0, err
        results.append(json.loads(out.splitlines()[-1]))
    return results


@pytest.fixture(scope="module")
def two_runs_with_seed_zero() -> list[dict]:
    return train_in_fresh_interpreters([0, 0])


def test_same_seed_gives_bit_identical_losses_and_weights_run_to_run(two_runs_with_seed_zero):
    first, second = two_runs_with_seed_zero
    assert len(first["losses"]) == STEPS
    assert len(set(first["losses"])) > 1  # the model trains: the losses change
    assert first == second


def test_another_seed_gives_other_losses_and_weights(two_runs_with_seed_zero):
    other = train(seed=1)
    assert other["losses"] != two_runs_with_seed_zero[0]["losses"]
    assert other["weights"] != two_runs_with_seed_zero[0]["weights"]


if __name__ == "__main__":
    print(json.dumps(train(int(sys.argv[1]))))
