"""Shared test helpers: the same op run by minitorch_rx's engine and by torch.autograd."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import torch

import minitorch_rx as mt


def _as_list(out) -> list:
    return list(out) if isinstance(out, (tuple, list)) else [out]


def compare_with_torch(
    mt_fn: Callable,
    torch_fn: Callable,
    inputs: Sequence,
    *,
    atol: float = 1e-9,
    rtol: float = 1e-7,
    seed: int = 0,
) -> list[torch.Tensor]:
    """Run ``mt_fn`` on mt.Tensors and ``torch_fn`` on torch tensors made from the same ``inputs``
    (torch tensors; floating ones require grad, anything else passes unchanged), and assert the
    outputs and every floating input's gradient match. Returns the torch outputs."""
    mt_inputs, torch_inputs = [], []
    for x in inputs:
        if isinstance(x, torch.Tensor):
            grad = x.is_floating_point()
            mt_inputs.append(mt.tensor(x, requires_grad=grad))
            torch_inputs.append(x.detach().clone().requires_grad_(grad))
        else:
            mt_inputs.append(x)
            torch_inputs.append(x)
    mt_out = _as_list(mt_fn(*mt_inputs))
    torch_out = _as_list(torch_fn(*torch_inputs))
    assert len(mt_out) == len(torch_out)
    for ours, theirs in zip(mt_out, torch_out):
        assert isinstance(ours, mt.Tensor), type(ours)
        assert ours.shape == theirs.shape, (ours.shape, theirs.shape)
        assert ours.dtype == theirs.dtype, (ours.dtype, theirs.dtype)
        torch.testing.assert_close(ours.torch(), theirs.detach(), atol=atol, rtol=rtol, equal_nan=True)
    generator = torch.Generator().manual_seed(seed)
    pairs = [(o, t) for o, t in zip(mt_out, torch_out) if t.requires_grad]
    if not pairs:
        return torch_out
    grads = [torch.randn(t.shape, dtype=t.dtype, generator=generator) for _, t in pairs]
    wrt_mt = [m for m, t in zip(mt_inputs, torch_inputs) if isinstance(t, torch.Tensor) and t.requires_grad]
    wrt_torch = [t for t in torch_inputs if isinstance(t, torch.Tensor) and t.requires_grad]
    expected = torch.autograd.grad([t for _, t in pairs], wrt_torch, grads, allow_unused=True)
    actual = mt.autograd.grad([o for o, _ in pairs], wrt_mt, grads, allow_unused=True)
    for i, (ours, theirs) in enumerate(zip(actual, expected)):
        if theirs is None:
            assert ours is None or not bool(ours.torch().any()), f"input {i}: torch gives no gradient"
            continue
        assert ours is not None, f"input {i}: no gradient from minitorch_rx"
        assert ours.shape == theirs.shape, (i, ours.shape, theirs.shape)
        torch.testing.assert_close(
            ours.torch(), theirs, atol=atol, rtol=rtol, equal_nan=True, msg=lambda m, i=i: f"input {i}: {m}"
        )
    return torch_out
