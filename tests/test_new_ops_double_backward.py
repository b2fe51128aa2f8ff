"""The backward formulas of this family's ops (piecewise and smooth activations, the p-norm, binary
cross entropy) are written with tensor methods, so that under ``create_graph=True`` they run on
recorded tensors. Here each backward is called by hand on ``mt.Tensor``s, as the engine will call
it then (saved inputs and outputs connected to their history), and differentiated again: the
result must be torch's double backward."""

from __future__ import annotations

import types

import pytest
import torch
import torch.nn.functional as F

import minitorch_rx as mt
from minitorch_rx.ops import activation, distance, loss_pointwise, piecewise

D = torch.float64


def _inputs(shape=(3, 4)):
    return torch.randn(*shape, dtype=D, generator=torch.Generator().manual_seed(0)) * 2


def _double_backward_matches_torch(function, tensors, params, torch_fn, saved):
    """Run ``function``'s backward on mt tensors and differentiate it; compare with torch."""
    leaves = [t.clone().requires_grad_(True) for t in tensors]
    out = torch_fn(*leaves, *params)
    grad = torch.randn(out.shape, dtype=D, generator=torch.Generator().manual_seed(1)).requires_grad_(True)
    first = torch.autograd.grad(out, leaves, grad, create_graph=True)
    vectors = [torch.randn(f.shape, dtype=D, generator=torch.Generator().manual_seed(2)) for f in first]
    second = torch.autograd.grad(first, [*leaves, grad], vectors, allow_unused=True)

    ctx = types.SimpleNamespace(needs_input_grad=(True,) * (len(tensors) + len(params)))
    ctx.save_for_backward = lambda *ts: None
    function.forward(ctx, *[t.clone() for t in tensors], *params)
    ours_in = [mt.tensor(t, requires_grad=True) for t in tensors]
    ours_grad = mt.tensor(grad.detach(), requires_grad=True)
    ctx.saved_tensors = saved(ours_in)
    grads = function.backward(ctx, ours_grad)
    grads = grads if isinstance(grads, tuple) else (grads,)
    grads = [g if g.shape == t.shape else g.sum(0) for g, t in zip(grads[: len(tensors)], tensors, strict=True)]
    for ours, theirs in zip(grads, first, strict=True):
        torch.testing.assert_close(ours.torch(), theirs.detach())
    ours_second = mt.autograd.grad(grads, [*ours_in, ours_grad], vectors, allow_unused=True)
    for ours, theirs in zip(ours_second, second, strict=True):
        if theirs is None or not bool(theirs.any()):  # no dependence (torch may give zeros)
            assert ours is None or float(ours.torch().abs().max()) < 1e-12
        else:
            torch.testing.assert_close(ours.torch(), theirs)


def _input_only(ours):
    return (ours[0],)


CASES = {
    "hardtanh": (piecewise.Hardtanh, [-0.5, 0.7], F.hardtanh, _input_only),
    "hardswish": (piecewise.Hardswish, [], F.hardswish, _input_only),
    "threshold": (piecewise.Threshold, [0.1, 2.0], F.threshold, _input_only),
    "softshrink": (piecewise.Shrink, [0.5, True], lambda x, lambd, _: F.softshrink(x, lambd), _input_only),
    "hardshrink": (piecewise.Shrink, [0.5, False], lambda x, lambd, _: F.hardshrink(x, lambd), _input_only),
    "selu": (activation.SELU, [], F.selu, _input_only),
    "celu": (activation.CELU, [0.7], F.celu, _input_only),
    "mish": (activation.Mish, [], F.mish, _input_only),
    "logsigmoid": (activation.LogSigmoid, [], F.logsigmoid, _input_only),
    "softsign": (activation.Softsign, [], F.softsign, _input_only),
}


@pytest.mark.parametrize("name", CASES)
def test_activation_backward_is_differentiable_like_torchs(name):
    function, params, torch_fn, saved = CASES[name]
    _double_backward_matches_torch(function, [_inputs()], params, torch_fn, saved)


def test_prelu_backward_is_differentiable_like_torchs():
    weight = torch.rand(4, dtype=D) - 0.5
    _double_backward_matches_torch(
        piecewise.PReLU, [_inputs(), weight], [], lambda x, w: torch.where(x > 0, x, w * x), lambda ours: tuple(ours)
    )


@pytest.mark.parametrize("p", [1.0, 2.0, 3.0, float("inf")])
def test_vector_norm_backward_is_differentiable_like_torchs(p):
    _double_backward_matches_torch(
        distance.VectorNorm,
        [_inputs()],
        [p, 1, False],
        lambda x, p_, dim, keepdim: torch.linalg.vector_norm(x, p_, dim, keepdim),
        lambda ours: (ours[0], distance.vector_norm(ours[0], p, 1)),
    )


def test_binary_cross_entropy_backward_is_differentiable_like_torchs():
    generator = torch.Generator().manual_seed(3)
    x, target = (torch.rand(3, 4, dtype=D, generator=generator) * 0.8 + 0.1 for _ in range(2))
    _double_backward_matches_torch(
        loss_pointwise.BinaryCrossEntropy,
        [x, target],
        [None, 1],
        lambda a, b, weight, reduction: F.binary_cross_entropy(a, b),
        lambda ours: (ours[0], ours[1], None),
    )
