"""The device the device suite runs on: ``MTRX_TEST_DEVICE`` (``cuda``, ``cuda:1``, default ``cpu``).

``scripts/device_check.sh`` sets it to ``cuda`` on a GPU machine; the normal test run leaves it
unset, so the same tests run on the CPU in seconds. Asking for CUDA on a machine without it is an
error, not a skip: a device check that silently ran on the CPU would prove nothing. On CUDA, TF32
is off meanwhile (cuDNN allows it by default), so that float32 comparisons with torch hold at
float32's tolerances whichever kernel (im2col's matmul or cuDNN's convolution) computes a result.
"""

from __future__ import annotations

import os

import pytest
import torch

DEVICE = torch.device(os.environ.get("MTRX_TEST_DEVICE", "cpu"))


@pytest.fixture(scope="session")
def device() -> torch.device:
    """The device, with its index (``cuda`` is ``cuda:0``: what tensors report as their device)."""
    if DEVICE.type == "cuda" and not torch.cuda.is_available():
        pytest.fail(f"MTRX_TEST_DEVICE={DEVICE} but torch sees no CUDA device")
    return torch.empty(0, device=DEVICE).device


@pytest.fixture(autouse=True, scope="session")
def _no_tf32():
    if DEVICE.type != "cuda":
        yield
        return
    matmul, cudnn = torch.backends.cuda.matmul.allow_tf32, torch.backends.cudnn.allow_tf32
    torch.backends.cuda.matmul.allow_tf32 = torch.backends.cudnn.allow_tf32 = False
    yield
    torch.backends.cuda.matmul.allow_tf32, torch.backends.cudnn.allow_tf32 = matmul, cudnn


def pytest_report_header(config: pytest.Config) -> str:
    name = torch.cuda.get_device_name(DEVICE) if DEVICE.type == "cuda" and torch.cuda.is_available() else ""
    return f"device suite: MTRX_TEST_DEVICE={DEVICE} {name}".rstrip()
