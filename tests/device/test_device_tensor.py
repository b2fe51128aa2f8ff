"""The Tensor's device API on the suite's device, as torch's: ``device``, ``is_cuda``, ``to``
(a device, another tensor, non-blocking), ``cpu``/``cuda``, ``new_*``, ``repr``, ``item``/``tolist``."""

from __future__ import annotations

import pytest
import torch

import minitorch_rx as mt


def test_device_attributes_match_torch(device):
    x = torch.randn(2, 3, device=device)
    t = mt.tensor(x)
    assert t.device == x.device and t.is_cuda == x.is_cuda and t.get_device() == x.get_device()
    assert repr(t) == repr(x)
    assert t.tolist() == x.tolist() and t.sum().item() == x.sum().item()


def test_to_a_device_a_tensor_and_back_keeps_the_graph(device):
    x = mt.randn(3, requires_grad=True)
    y = x.to(device, non_blocking=True) * 2.0
    z = y.to(mt.zeros(1)).sum()  # .to(tensor): that tensor's device (the CPU)
    assert y.device.type == device.type and z.device.type == "cpu"
    z.backward()
    assert x.grad.device.type == "cpu" and x.grad.tolist() == [2.0, 2.0, 2.0]
    if device.type == "cuda":
        assert x.cuda().device.type == "cuda" and x.cuda().cpu().device.type == "cpu"
    else:
        with pytest.raises(RuntimeError, match="Invalid device, must be cuda device"):
            x.cuda("cpu")


def test_new_tensors_follow_their_source(device):
    t = mt.randn(2, device=device, dtype=torch.float64)
    for made in (t.new_zeros(3), t.new_ones(3), t.new_full((3,), 2.0), t.new_empty(3), t.new_tensor([1.0])):
        assert made.device == t.device and made.dtype == torch.float64
