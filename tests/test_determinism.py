"""Determinism (issues 6 and 37): the same seed and data give bit-identical losses and weights on
the CPU, in every process and every thread, with ``mt.backends.autotune`` on or off.

A short training run (convolution, batch norm, dropout, a shuffled loader, Adam) runs in fresh
interpreters and the runs are compared bit for bit: losses as ``float.hex`` and a hash of the
final weights. With the tuner on, each run starts from an empty cache folder of its own, or from
the one an earlier run left (its choices read, not measured). By default the tuner only picks
among kernels whose results are the fixed rules' bit for bit, so every run equals the tuner-off
run; with ``mt.backends.autotune_bitwise = False`` a run equals the later runs that read its
choices (each choice is made before the first call it serves). A run with another seed must
differ, so the comparisons cannot pass vacuously.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest
import torch

import minitorch_rx as mt
import minitorch_rx.nn as nn
import minitorch_rx.nn.functional as F
from minitorch_rx.backends import tuner

STEPS = 12


def weights_digest(model: nn.Module) -> str:
    digest = hashlib.sha256()
    for name, tensor in model.state_dict().items():
        digest.update(name.encode())
        digest.update(tensor.torch().contiguous().numpy().tobytes())
    return digest.hexdigest()


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
    return {"losses": losses, "weights": weights_digest(model)}


def train_in_fresh_interpreters(runs: list[tuple[int, str, Path | None]]) -> list[dict]:
    """``train(seed)`` for each (seed, tuner, cache folder), each in its own new Python process,
    all at once; tuner ``"off"``, ``"bitwise"`` (on, the default) or ``"any-bits"``."""
    processes = []
    for seed, mode, cache in runs:
        # one thread each (several processes share the cores; torch's idle threads spin)
        env = {**os.environ, "MINITORCH_RX_AUTOTUNE": "0" if mode == "off" else "1", "OMP_NUM_THREADS": "1"}
        if cache is not None:
            env["MINITORCH_RX_CACHE_DIR"] = str(cache)
        processes.append(
            subprocess.Popen(
                [sys.executable, __file__, str(seed), mode],
                cwd=Path(__file__).resolve().parents[1],
                env=env,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            )
        )
    results = []
    for process in processes:
        out, err = process.communicate(timeout=600)
        assert process.returncode == 0, err
        results.append(json.loads(out.splitlines()[-1]))
    return results


@pytest.fixture(scope="module")
def runs_with_seed_zero(tmp_path_factory) -> dict[str, dict]:
    """Seed 0 trained in fresh processes: tuner off; on with an empty cache folder each (twice)
    and again with the first one's cache; any-bits with an empty cache, then with it."""
    folder = tmp_path_factory.mktemp("tuner caches")
    names = ["off", "cold", "cold elsewhere", "any-bits cold"]
    first = train_in_fresh_interpreters(
        [(0, "off", None), (0, "bitwise", folder / "a"), (0, "bitwise", folder / "b"), (0, "any-bits", folder / "c")]
    )
    second = train_in_fresh_interpreters([(0, "bitwise", folder / "a"), (0, "any-bits", folder / "c")])
    assert all(any((folder / name).glob("autotune-*.json")) for name in "abc")  # the tuner measured and saved
    return dict(zip([*names, "warm", "any-bits warm"], first + second, strict=True))


@pytest.mark.parametrize("run", ["cold", "cold elsewhere", "warm"])
def test_same_seed_gives_bit_identical_losses_and_weights_in_every_process(runs_with_seed_zero, run):
    """Tuner off, and on with an empty or a full cache: the fixed rules' very results."""
    first = runs_with_seed_zero["off"]
    assert len(first["losses"]) == STEPS
    assert len(set(first["losses"])) > 1  # the model trains: the losses change
    assert runs_with_seed_zero[run] == first


def test_choices_of_any_bits_read_from_the_cache_give_the_run_that_measured_them(runs_with_seed_zero):
    assert runs_with_seed_zero["any-bits warm"] == runs_with_seed_zero["any-bits cold"]


def test_another_seed_gives_other_losses_and_weights(runs_with_seed_zero):
    other = train(seed=1)
    assert other["losses"] != runs_with_seed_zero["off"]["losses"]
    assert other["weights"] != runs_with_seed_zero["off"]["weights"]


def lenet5_training(initial: dict, batches: list) -> str:
    """SGD steps of a LeNet-5 from ``initial`` weights over ``batches``: the weights' hash."""
    model = mt.models.lenet5()
    model.load_state_dict(initial)
    optimizer = mt.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    for images, labels in batches:
        optimizer.zero_grad()
        F.cross_entropy(model(images), labels).backward()
        optimizer.step()
    return weights_digest(model)


@pytest.mark.parametrize("bitwise", [True, False], ids=["bitwise", "any-bits"])
def test_eight_threads_training_at_once_each_end_on_a_lone_runs_weights(monkeypatch, tmp_path, bitwise):
    """8 threads x 25 LeNet-5 steps, started with no choice made (they race to the first ones)."""
    monkeypatch.setenv("MINITORCH_RX_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(mt.backends, "autotune", True)
    monkeypatch.setattr(mt.backends, "autotune_bitwise", bitwise)
    tuner.clear()
    generator = torch.Generator().manual_seed(0)
    batches = [
        (mt.from_torch(torch.randn(8, 1, 28, 28, generator=generator)), mt.from_torch(torch.randint(10, (8,))))
        for _ in range(25)
    ]
    mt.manual_seed(0)
    initial = {name: tensor.clone() for name, tensor in mt.models.lenet5().state_dict().items()}
    digests, errors = [], []

    def work():
        try:
            digests.append(lenet5_training(initial, batches))
        except Exception as error:  # noqa: BLE001 (any error fails the test below)
            errors.append(error)

    try:
        workers = [threading.Thread(target=work) for _ in range(8)]
        for worker in workers:
            worker.start()
        for worker in workers:
            worker.join()
        assert not errors and tuner.choices()  # the threads made the choices
        alone = lenet5_training(initial, batches)
        mt.backends.autotune = False
        fixed = lenet5_training(initial, batches)
    finally:
        tuner.clear()
    assert digests == [alone] * 8
    assert alone == fixed or not bitwise


if __name__ == "__main__":
    mt.backends.autotune_bitwise = sys.argv[2] != "any-bits"
    print(json.dumps(train(int(sys.argv[1]))))
