"""Checkpoints of device tensors: ``mt.save`` of a model and optimizer on the device, loaded back
there, onto the CPU with ``map_location``, and on a machine without the device (a CPU-only process,
or on the CPU a file whose storages are tagged ``cuda:0``, as a GPU's save writes them)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from unittest import mock

import pytest
import torch

import minitorch_rx as mt
import minitorch_rx.nn as nn
import minitorch_rx.optim as optim
from tests.device.common import cuda_only

ROOT = Path(__file__).resolve().parents[2]


def trained(device: torch.device) -> tuple[nn.Module, optim.Optimizer]:
    mt.manual_seed(0)
    model = nn.Sequential(nn.Linear(4, 8), nn.BatchNorm1d(8), nn.Linear(8, 2)).to(device)
    opt = optim.Adam(model.parameters(), lr=0.01)
    for _ in range(2):
        opt.zero_grad()
        model(mt.randn(6, 4, device=device)).pow(2).mean().backward()
        opt.step()
    return model, opt


def test_checkpoint_round_trip_on_the_device(device, tmp_path):
    model, opt = trained(device)
    path = tmp_path / "checkpoint.pt"
    mt.save({"model": model.state_dict(), "optimizer": opt.state_dict(), "epoch": 2}, path)
    state = mt.load(path)
    assert all(v.device == device for v in state["model"].values())
    on_cpu = mt.load(path, map_location="cpu")
    assert all(v.device.type == "cpu" for v in on_cpu["model"].values())
    for name, value in state["model"].items():
        torch.testing.assert_close(value.torch().cpu(), on_cpu["model"][name].torch())
    # a fresh model on the CPU takes the CPU copy; an optimizer loads it onto its parameters' device
    fresh = nn.Sequential(nn.Linear(4, 8), nn.BatchNorm1d(8), nn.Linear(8, 2))
    fresh.load_state_dict(on_cpu["model"])
    fresh_opt = optim.Adam(fresh.parameters(), lr=0.01)
    fresh_opt.load_state_dict(on_cpu["optimizer"])
    assert all(s["exp_avg"].device.type == "cpu" for s in fresh_opt.state.values())
    x = mt.randn(3, 4, device=device)
    model.eval()
    fresh.eval()
    torch.testing.assert_close(model(x).torch().cpu(), fresh(x.cpu()).torch(), rtol=1e-5, atol=1e-6)


def test_map_location_takes_torchs_forms(device, tmp_path):
    path = tmp_path / "w.pt"
    mt.save({"w": mt.randn(3, device=device)}, path)
    tag = "cuda:0" if device.type == "cuda" else "cpu"
    for where in ("cpu", torch.device("cpu"), {tag: "cpu"}, lambda storage, location: storage):
        assert mt.load(path, map_location=where)["w"].device.type == "cpu"
    assert mt.load(path, map_location=device)["w"].device == device


def test_a_gpu_checkpoint_loads_on_a_cpu_only_machine_with_map_location(tmp_path):
    """Storages tagged ``cuda:0`` (what ``mt.save`` of CUDA tensors writes), read where torch sees no
    GPU: without ``map_location`` torch's RuntimeError saying what to pass, not "corrupted"; with
    ``map_location="cpu"`` the tensors."""
    if torch.cuda.is_available():
        pytest.skip("the CUDA machine's case is test_cuda_checkpoint_loads_in_a_process_without_cuda")
    path = tmp_path / "gpu.pt"
    with mock.patch.object(torch.serialization, "location_tag", lambda storage: "cuda:0"):
        mt.save({"w": mt.arange(3.0)}, path)
    with pytest.raises(RuntimeError, match="map_location") as caught:
        mt.load(path)
    assert not isinstance(caught.value, mt.serialization.CheckpointError)
    assert mt.load(path, map_location="cpu")["w"].tolist() == [0.0, 1.0, 2.0]


@cuda_only
def test_cuda_checkpoint_loads_in_a_process_without_cuda(device, tmp_path):
    model, opt = trained(device)
    path = tmp_path / "checkpoint.pt"
    mt.save({"model": model.state_dict(), "optimizer": opt.state_dict()}, path)
    script = (
        "import sys, torch, minitorch_rx as mt\n"
        "assert not torch.cuda.is_available()\n"
        "try:\n    mt.load(sys.argv[1])\nexcept RuntimeError as e:\n    assert 'map_location' in str(e), e\n"
        "else:\n    raise AssertionError('loaded CUDA tensors without CUDA')\n"
        "state = mt.load(sys.argv[1], map_location='cpu')\n"
        "assert all(v.device.type == 'cpu' for v in state['model'].values())\n"
        "print(sum(float(v.float().sum()) for v in state['model'].values()))\n"
    )
    env = {
        **os.environ,
        "CUDA_VISIBLE_DEVICES": "",
        "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])),
    }
    result = subprocess.run([sys.executable, "-c", script, str(path)], env=env, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    expected = sum(float(v.float().sum()) for v in model.state_dict().values())
    assert abs(float(result.stdout.strip().splitlines()[-1]) - expected) < 1e-3
