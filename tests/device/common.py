"""Helpers of the device suite: the same computation by minitorch_rx's engine and by torch.autograd,
on one device, outputs and gradients compared at the dtype's tolerance."""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence

import pytest
import torch

import minitorch_rx as mt

#: (atol, rtol) per dtype: float64 for exactness, float32 for the kernels a GPU run uses in practice
#: (reductions in another order, cuDNN's algorithms against im2col's matmul).
TOLERANCES = {torch.float64: (1e-9, 1e-7), torch.float32: (2e-5, 2e-4)}

#: A test that needs two devices (CUDA and the CPU): it runs under ``MTRX_TEST_DEVICE=cuda``.
cuda_only = pytest.mark.skipif(
    torch.device(os.environ.get("MTRX_TEST_DEVICE", "cpu")).type != "cuda",
    reason="needs two devices: runs under MTRX_TEST_DEVICE=cuda",
)


def _as_list(out) -> list:
    return list(out) if isinstance(out, (tuple, list)) else [out]


def assert_close(ours, theirs, dtype: torch.dtype | None = None, msg: str = "", scale: float = 1.0) -> None:
    """``ours`` (an mt.Tensor or torch.Tensor) equals ``theirs`` at the tolerance of ``dtype``
    (default: theirs'), on the same device."""
    ours = ours.torch() if isinstance(ours, mt.Tensor) else ours
    theirs = theirs.detach()
    assert ours.device == theirs.device, f"{msg}: on {ours.device}, torch's on {theirs.device}"
    atol, rtol = TOLERANCES.get(dtype or theirs.dtype, (1e-2, 1e-2))
    torch.testing.assert_close(
        ours, theirs, atol=atol * scale, rtol=rtol * scale, equal_nan=True, msg=lambda m: f"{msg}: {m}"
    )


def compare_on(
    device: torch.device,
    mt_fn: Callable,
    torch_fn: Callable,
    inputs: Sequence,
    dtype: torch.dtype = torch.float64,
    scale: float = 1.0,
    seed: int = 0,
) -> list[torch.Tensor]:
    """``mt_fn`` on mt.Tensors and ``torch_fn`` on torch tensors made from the same ``inputs`` (CPU
    torch tensors, moved to ``device``; floating ones cast to ``dtype`` and requiring grad), and
    assert that outputs, their devices and every floating input's gradient match."""
    mt_inputs, torch_inputs = [], []
    for x in inputs:
        if isinstance(x, torch.Tensor):
            grad = x.is_floating_point()
            x = x.to(device, dtype if grad else None)
            mt_inputs.append(mt.tensor(x, requires_grad=grad))
            torch_inputs.append(x.detach().clone().requires_grad_(grad))
        else:
            mt_inputs.append(x)
            torch_inputs.append(x)
    mt_out = _as_list(mt_fn(*mt_inputs))
    torch_out = _as_list(torch_fn(*torch_inputs))
    assert len(mt_out) == len(torch_out)
    for i, (ours, theirs) in enumerate(zip(mt_out, torch_out)):
        assert isinstance(ours, mt.Tensor), type(ours)
        assert ours.shape == theirs.shape and ours.dtype == theirs.dtype, (ours.shape, ours.dtype, theirs.shape)
        assert_close(ours, theirs, dtype, f"output {i}", scale)
    pairs = [(o, t) for o, t in zip(mt_out, torch_out) if t.requires_grad]
    if not pairs:
        return torch_out
    generator = torch.Generator().manual_seed(seed)
    grads = [torch.randn(t.shape, dtype=t.dtype, generator=generator).to(device) for _, t in pairs]
    wrt_mt = [m for m, t in zip(mt_inputs, torch_inputs) if isinstance(t, torch.Tensor) and t.requires_grad]
    wrt_torch = [t for t in torch_inputs if isinstance(t, torch.Tensor) and t.requires_grad]
    expected = torch.autograd.grad([t for _, t in pairs], wrt_torch, grads, allow_unused=True)
    actual = mt.autograd.grad([o for o, _ in pairs], wrt_mt, grads, allow_unused=True)
    for i, (ours, theirs) in enumerate(zip(actual, expected)):
        if theirs is None:
            assert ours is None or not bool(ours.torch().any()), f"input {i}: torch gives no gradient"
            continue
        assert ours is not None, f"input {i}: no gradient from minitorch_rx"
        assert_close(ours, theirs, dtype, f"gradient of input {i}", scale)
    return torch_out


def twin_modules(ours: mt.nn.Module, theirs: torch.nn.Module, device: torch.device, dtype=torch.float64):
    """``ours`` given ``theirs``' state, both moved to ``device`` and ``dtype``."""
    ours.load_state_dict({k: v.clone() for k, v in theirs.state_dict().items()})
    return ours.to(device, dtype), theirs.to(device, dtype)


def compare_grads(ours: mt.nn.Module, theirs: torch.nn.Module, dtype: torch.dtype, scale: float = 1.0) -> None:
    """Every parameter's gradient equal to torch's, on the parameter's device."""
    theirs_named = dict(theirs.named_parameters())
    for name, p in ours.named_parameters():
        q = theirs_named[name]
        assert p.device == q.device, name
        if q.grad is None:
            assert p.grad is None or not bool(p.grad.torch().any()), name
            continue
        assert p.grad is not None, f"{name}: no gradient"
        assert_close(p.grad, q.grad, dtype, f"{name}.grad", scale)
