"""Mixed-device mistakes (a CPU weight with a CUDA input, a CPU target, a model left on the CPU)
raise what PyTorch raises for the same call: the same exception type, naming the devices. Needs
two devices, so it runs under ``MTRX_TEST_DEVICE=cuda`` only (skipped on the CPU)."""

from __future__ import annotations

import pytest
import torch
import torch.nn.functional as TF

import minitorch_rx as mt
import minitorch_rx.nn as nn
import minitorch_rx.nn.functional as F
from tests.device.common import cuda_only

pytestmark = cuda_only

# name -> (ours, torch's): the first argument is on the device, the other tensors on the CPU.
MISTAKES = {
    "add": (lambda x, w: x + w, lambda x, w: x + w),
    "mul": (lambda x, w: x * w, lambda x, w: x * w),
    "matmul": (lambda x, w: x @ w.t(), lambda x, w: x @ w.t()),
    "linear": (lambda x, w: F.linear(x, w), lambda x, w: TF.linear(x, w)),
    "cat": (lambda x, w: mt.cat([x, w]), lambda x, w: torch.cat([x, w])),
    "where": (lambda x, w: mt.where(x > 0, x, w), lambda x, w: torch.where(x > 0, x, w)),
    "layer_norm": (lambda x, w: F.layer_norm(x, (4,), w[0]), lambda x, w: TF.layer_norm(x, (4,), w[0])),
    "cross_entropy_target": (
        lambda x, w: F.cross_entropy(x, mt.tensor([0, 1, 2])),
        lambda x, w: TF.cross_entropy(x, torch.tensor([0, 1, 2])),
    ),
    "embedding_indices": (
        lambda x, w: F.embedding(mt.tensor([0, 1]), x),
        lambda x, w: TF.embedding(torch.tensor([0, 1]), x),
    ),
}


def _error(fn, *args) -> BaseException:
    with pytest.raises(Exception) as caught:
        fn(*args)
    return caught.value


def _assert_same_kind(ours: BaseException, theirs: BaseException) -> None:
    assert type(ours) is type(theirs), (type(ours), ours, type(theirs), theirs)
    assert "cuda" in str(ours) and ("cpu" in str(ours).lower() or "torch.FloatTensor" in str(ours)), str(ours)


@pytest.mark.parametrize("name", list(MISTAKES))
def test_a_cpu_operand_with_a_device_tensor_is_torchs_error(device, name):
    ours, theirs = MISTAKES[name]
    x, w = torch.randn(3, 4, device=device), torch.randn(3, 4)
    expected = _error(theirs, x, w)
    actual = _error(ours, mt.tensor(x, requires_grad=True), mt.tensor(w, requires_grad=True))
    _assert_same_kind(actual, expected)


@pytest.mark.parametrize("backend", ["im2col", "native"])
def test_a_model_left_on_the_cpu_is_torchs_error(device, backend):
    torch.manual_seed(0)
    theirs = torch.nn.Conv2d(2, 3, 3)
    ours = nn.Conv2d(2, 3, 3)
    x = torch.randn(1, 2, 5, 5, device=device)
    default, mt.backends.conv = mt.backends.conv, backend
    try:
        actual = _error(ours, mt.tensor(x))
    finally:
        mt.backends.conv = default
    _assert_same_kind(actual, _error(theirs, x))


def test_lstm_and_batch_norm_left_on_the_cpu_are_torchs_errors(device):
    x = torch.randn(4, 2, 3, device=device)
    _assert_same_kind(_error(nn.LSTM(3, 5), mt.tensor(x)), _error(torch.nn.LSTM(3, 5), x))
    _assert_same_kind(_error(nn.BatchNorm1d(2), mt.tensor(x[..., 0])), _error(torch.nn.BatchNorm1d(2), x[..., 0]))


def test_a_cpu_gradient_for_a_device_output_is_torchs_error(device):
    x = mt.randn(3, device=device, requires_grad=True)
    with pytest.raises(RuntimeError, match=f"invalid gradient at index 0 - expected device {device} but got cpu"):
        (x * 2).backward(torch.ones(3))
    (x * 2).sum().backward(torch.ones(()))  # a 0-dim gradient moves, as torch's does
    assert x.grad.device == x.device


def test_an_optimizer_over_parameters_on_two_devices_steps_each_on_its_own(device):
    """Not a mistake: torch's optimizers group the parameters by device; so do ours."""
    a, b = mt.randn(3, requires_grad=True), mt.randn(3, device=device, requires_grad=True)
    opt = mt.optim.Adam([a, b], lr=0.1)
    (a.sum() + b.sum()).backward()
    opt.step()
    assert opt.state[a]["exp_avg"].device.type == "cpu" and opt.state[b]["exp_avg"].device == b.device
