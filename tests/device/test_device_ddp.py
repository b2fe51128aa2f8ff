"""``DistributedDataParallel`` on a GPU: a one-process NCCL group gives the plain gradients (NCCL's
all-reduce driven by our engine's hooks). In a subprocess with a time limit, so that a stuck NCCL
start fails this test only; CUDA only (the CPU's gloo groups are tests/test_distributed.py's)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.device.common import cuda_only

ROOT = Path(__file__).resolve().parents[2]

SCRIPT = """
import datetime, sys, torch, torch.distributed as dist
import minitorch_rx as mt, minitorch_rx.nn as nn, minitorch_rx.nn.functional as F
from minitorch_rx.nn.parallel import DistributedDataParallel

device = torch.device(sys.argv[1])
group = dist.ProcessGroupNCCL(dist.HashStore(), 0, 1)
mt.manual_seed(0)
module = nn.Sequential(nn.Conv2d(1, 4, 3), nn.ReLU(), nn.Flatten(), nn.Linear(4 * 6 * 6, 3)).to(device)
model = DistributedDataParallel(module, device_ids=[device.index], process_group=group, bucket_cap_mb=0.001)
images, labels = mt.randn(5, 1, 8, 8, device=device), mt.tensor([0, 1, 2, 0, 1], device=device)
F.cross_entropy(model(images), labels).backward()
ddp = {name: p.grad.torch().clone() for name, p in module.named_parameters()}
module.zero_grad()
F.cross_entropy(module(images), labels).backward()
for name, p in module.named_parameters():
    assert ddp[name].device == device, name
    torch.testing.assert_close(ddp[name], p.grad.torch(), msg=name)
print("ok", len(ddp))
"""


@cuda_only
def test_one_process_nccl_group_gives_the_plain_gradients(device):
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
    result = subprocess.run(
        [sys.executable, "-c", SCRIPT, str(device)], env=env, capture_output=True, text=True, timeout=180
    )
    assert result.returncode == 0 and "ok 4" in result.stdout, result.stdout + result.stderr
