"""Every op in float16 and bfloat16 against torch: forward and gradients (issue 13.8).

A backward formula can overflow (or underflow) in half precision where torch's does not when it
orders its products differently: ``Div`` computed ``b * b`` (inf in float16 from |b| = 256), so
``grad_b`` was -0 for ``b = 300`` where torch gives -1.1e-5. Each op runs on ordinary values, on
values near the format's limits, and under a large upstream gradient (``op(x) * 1000``), and
must match torch's values and gradients (loosely: half-precision rounding differs with the order
of operations) wherever torch's are finite; where torch's overflow and ours do not, ours stand.
"""

from __future__ import annotations

import pytest
import torch
import torch.nn.functional as TF

import minitorch_rx as mt
import minitorch_rx.nn.functional as MF


def G(seed: int, *shape: int, lo: float = -2.0, hi: float = 2.0) -> torch.Tensor:
    generator = torch.Generator().manual_seed(seed)
    return torch.rand(*shape, generator=generator, dtype=torch.float64) * (hi - lo) + lo


# name: (fn(module, functional, *inputs), float64 inputs); module is torch or mt.
OPS = {
    "add": (lambda m, F, a, b: a + b, [G(0, 3, 4), G(1, 4)]),
    "sub": (lambda m, F, a, b: a - b, [G(0, 3, 4), G(1, 4)]),
    "mul": (lambda m, F, a, b: a * b, [G(0, 3, 4), G(1, 4)]),
    "div": (lambda m, F, a, b: a / b, [G(0, 3, 4), G(1, 4, lo=1, hi=3)]),
    "div big": (lambda m, F, a, b: a / b, [G(0, 3, 4), G(1, 4, lo=250, hi=400)]),
    "div small": (lambda m, F, a, b: a / b, [G(0, 3, 4, lo=100, hi=200), G(1, 4, lo=0.01, hi=0.05)]),
    "pow 2": (lambda m, F, a: a**2, [G(0, 3, 4)]),
    "pow 3 big": (lambda m, F, a: a**3, [G(0, 3, 4, lo=20, hi=30)]),
    "pow tensor": (lambda m, F, a, b: a**b, [G(0, 3, 4, lo=0.5, hi=2), G(1, 4, lo=-2, hi=2)]),
    "rpow": (lambda m, F, a: 2.0**a, [G(0, 3, 4)]),
    "neg": (lambda m, F, a: -a, [G(0, 3, 4)]),
    "abs": (lambda m, F, a: a.abs(), [G(0, 3, 4)]),
    "exp": (lambda m, F, a: a.exp(), [G(0, 3, 4)]),
    "log": (lambda m, F, a: a.log(), [G(0, 3, 4, lo=0.1, hi=3)]),
    "log big": (lambda m, F, a: a.log(), [G(0, 3, 4, lo=1000, hi=60000)]),
    "sqrt": (lambda m, F, a: a.sqrt(), [G(0, 3, 4, lo=0.1, hi=3)]),
    "sqrt big": (lambda m, F, a: a.sqrt(), [G(0, 3, 4, lo=30000, hi=60000)]),
    "sin": (lambda m, F, a: a.sin(), [G(0, 3, 4)]),
    "cos": (lambda m, F, a: a.cos(), [G(0, 3, 4)]),
    "tanh": (lambda m, F, a: a.tanh(), [G(0, 3, 4)]),
    "sigmoid": (lambda m, F, a: a.sigmoid(), [G(0, 3, 4, lo=-10, hi=10)]),
    "relu": (lambda m, F, a: F.relu(a), [G(0, 3, 4)]),
    "leaky_relu": (lambda m, F, a: F.leaky_relu(a, 0.1), [G(0, 3, 4)]),
    "elu": (lambda m, F, a: F.elu(a), [G(0, 3, 4)]),
    "gelu": (lambda m, F, a: F.gelu(a), [G(0, 3, 4, lo=-5, hi=5)]),
    "gelu tanh": (lambda m, F, a: F.gelu(a, approximate="tanh"), [G(0, 3, 4, lo=-5, hi=5)]),
    "silu": (lambda m, F, a: F.silu(a), [G(0, 3, 4, lo=-10, hi=10)]),
    "softplus": (lambda m, F, a: F.softplus(a), [G(0, 3, 4, lo=-10, hi=30)]),
    "clamp": (lambda m, F, a: a.clamp(-1, 1), [G(0, 3, 4)]),
    "maximum": (lambda m, F, a, b: m.maximum(a, b), [G(0, 3, 4), G(1, 3, 4)]),
    "where": (lambda m, F, a, b: m.where(a > 0, a, b), [G(0, 3, 4), G(1, 3, 4)]),
    "sum": (lambda m, F, a: a.sum(1), [G(0, 3, 400)]),
    "mean": (lambda m, F, a: a.mean(1), [G(0, 3, 400)]),
    "var": (lambda m, F, a: a.var(1), [G(0, 3, 40, lo=-100, hi=100)]),
    "std": (lambda m, F, a: a.std(1), [G(0, 3, 40, lo=-100, hi=100)]),
    "std small": (lambda m, F, a: a.std(1), [G(0, 3, 40, lo=-0.01, hi=0.01)]),
    "var big": (lambda m, F, a: a.var(1), [G(0, 3, 40, lo=-200, hi=200)]),
    "amax": (lambda m, F, a: a.amax(1), [G(0, 3, 40)]),
    "max": (lambda m, F, a: a.max(), [G(0, 3, 40)]),
    "max dim": (lambda m, F, a: a.max(1)[0], [G(0, 3, 40)]),
    "logsumexp": (lambda m, F, a: a.logsumexp(1), [G(0, 3, 40, lo=-20, hi=20)]),
    "softmax": (lambda m, F, a: F.softmax(a, 1), [G(0, 3, 40, lo=-20, hi=20)]),
    "log_softmax": (lambda m, F, a: F.log_softmax(a, 1), [G(0, 3, 40, lo=-20, hi=20)]),
    "matmul": (lambda m, F, a, b: a @ b, [G(0, 3, 40), G(1, 40, 5)]),
    "dot": (lambda m, F, a, b: m.dot(a, b), [G(0, 40), G(1, 40)]),
    "linear": (lambda m, F, a, w, b: F.linear(a, w, b), [G(0, 3, 40), G(1, 5, 40), G(2, 5)]),
    "conv1d": (lambda m, F, a, w: F.conv1d(a, w, padding=1), [G(0, 2, 3, 10), G(1, 4, 3, 3)]),
    "conv2d": (
        lambda m, F, a, w, b: F.conv2d(a, w, b, stride=2, padding=1),
        [G(0, 2, 3, 8, 8), G(1, 4, 3, 3, 3), G(2, 4)],
    ),
    "conv3d": (lambda m, F, a, w: F.conv3d(a, w), [G(0, 1, 2, 5, 5, 5), G(1, 3, 2, 2, 2, 2)]),
    "max_pool2d": (lambda m, F, a: F.max_pool2d(a, 2), [G(0, 2, 3, 8, 8)]),
    "avg_pool2d": (lambda m, F, a: F.avg_pool2d(a, 2), [G(0, 2, 3, 8, 8)]),
    "adaptive_avg_pool2d": (lambda m, F, a: F.adaptive_avg_pool2d(a, (3, 3)), [G(0, 2, 3, 8, 8)]),
    "adaptive_max_pool2d": (lambda m, F, a: F.adaptive_max_pool2d(a, (3, 3)), [G(0, 2, 3, 8, 8)]),
    "max_pool1d": (lambda m, F, a: F.max_pool1d(a, 2), [G(0, 2, 3, 8)]),
    "batch_norm": (
        lambda m, F, a, w, b: F.batch_norm(a, None, None, w, b, training=True),
        [G(0, 8, 3, 4, 4, lo=-50, hi=50), G(1, 3), G(2, 3)],
    ),
    "batch_norm small": (
        lambda m, F, a, w, b: F.batch_norm(a, None, None, w, b, training=True),
        [G(0, 8, 3, 4, 4, lo=-0.01, hi=0.01), G(1, 3), G(2, 3)],
    ),
    "layer_norm": (
        lambda m, F, a, w, b: F.layer_norm(a, (40,), w, b),
        [G(0, 3, 40, lo=-50, hi=50), G(1, 40), G(2, 40)],
    ),
    "layer_norm small": (
        lambda m, F, a, w, b: F.layer_norm(a, (40,), w, b),
        [G(0, 3, 40, lo=-0.01, hi=0.01), G(1, 40), G(2, 40)],
    ),
    "mse_loss": (lambda m, F, a, b: F.mse_loss(a, b), [G(0, 3, 40, lo=-100, hi=100), G(1, 3, 40)]),
    "mse_loss sum": (lambda m, F, a, b: F.mse_loss(a, b, reduction="sum"), [G(0, 3, 40, lo=-10, hi=10), G(1, 3, 40)]),
    "l1_loss": (lambda m, F, a, b: F.l1_loss(a, b), [G(0, 3, 40), G(1, 3, 40)]),
    "bce_logits": (
        lambda m, F, a, b: F.binary_cross_entropy_with_logits(a, b),
        [G(0, 3, 40, lo=-20, hi=20), G(1, 3, 40, lo=0, hi=1)],
    ),
    "cross_entropy": (lambda m, F, a: F.cross_entropy(a, m.tensor([0, 3, 7])), [G(0, 3, 10, lo=-20, hi=20)]),
    "cross_entropy probs": (
        lambda m, F, a, b: F.cross_entropy(a, b.softmax(1)),
        [G(0, 3, 10, lo=-20, hi=20), G(1, 3, 10)],
    ),
    "cross_entropy smooth": (
        lambda m, F, a: F.cross_entropy(a, m.tensor([0, 3, 7]), label_smoothing=0.1),
        [G(0, 3, 10, lo=-20, hi=20)],
    ),
    "nll_loss": (lambda m, F, a: F.nll_loss(a, m.tensor([0, 3, 7])), [G(0, 3, 10)]),
    "cat": (lambda m, F, a, b: m.cat([a, b]), [G(0, 3, 4), G(1, 2, 4)]),
    "stack": (lambda m, F, a, b: m.stack([a, b]), [G(0, 3, 4), G(1, 3, 4)]),
    "reshape/transpose": (lambda m, F, a: a.reshape(4, 3).transpose(0, 1).unsqueeze(0).squeeze(0), [G(0, 3, 4)]),
    "getitem": (lambda m, F, a: a[1:, ::2], [G(0, 3, 4)]),
    "expand": (lambda m, F, a: a.expand(5, 3, 4), [G(0, 3, 4)]),
    "pad reflect": (lambda m, F, a: F.pad(a, (1, 2), mode="reflect"), [G(0, 2, 3, 5)]),
    "pad const": (lambda m, F, a: F.pad(a, (1, 2, 0, 1)), [G(0, 2, 3, 5)]),
    "unfold": (lambda m, F, a: F.unfold(a, 2), [G(0, 1, 2, 4, 4)]),
    "fold": (lambda m, F, a: F.fold(a, (3, 3), 2), [G(0, 1, 8, 4)]),
    "swish": (lambda m, F, a: m.swish(a, 1.5) if m is mt else a * (1.5 * a).sigmoid(), [G(0, 3, 4, lo=-10, hi=10)]),
    "div by a scalar": (lambda m, F, a: a / 300.0, [G(0, 3, 4)]),
    "scalar divided": (lambda m, F, a: 300.0 / a, [G(0, 3, 4, lo=250, hi=400)]),
    "setitem": (lambda m, F, a, b: _set_row(a * 1, b), [G(0, 3, 4), G(1, 4)]),
    "in place on a view": (lambda m, F, a: _scale_rows(a * 1), [G(0, 3, 4)]),
    "copy_": (lambda m, F, a, b: (a * 1).copy_(b * 2), [G(0, 3, 4), G(1, 3, 4)]),
    "fill_ of a view": (lambda m, F, a: _fill_row(a * 1), [G(0, 3, 4)]),
    "to float32": (lambda m, F, a: a.float() * 2, [G(0, 3, 4)]),
    "layer_norm huge": (
        lambda m, F, a, w, b: F.layer_norm(a, (40,), w, b),
        [G(0, 3, 40, lo=-2000, hi=2000), G(1, 40), G(2, 40)],
    ),
    "batch_norm huge": (
        lambda m, F, a, w, b: F.batch_norm(a, None, None, w, b, training=True),
        [G(0, 8, 3, 4, 4, lo=-2000, hi=2000), G(1, 3), G(2, 3)],
    ),
    "var huge": (lambda m, F, a: a.var(1), [G(0, 3, 40, lo=-250, hi=250)]),
    "std huge": (lambda m, F, a: a.std(1), [G(0, 3, 40, lo=-2000, hi=2000)]),
    "mean long": (lambda m, F, a: a.mean(), [G(0, 70000, lo=0, hi=2)]),
    "softmax huge": (lambda m, F, a: F.softmax(a, 1), [G(0, 3, 40, lo=-60000, hi=60000)]),
    "log_softmax huge": (lambda m, F, a: F.log_softmax(a, 1), [G(0, 3, 40, lo=-60000, hi=60000)]),
    "logsumexp huge": (lambda m, F, a: a.logsumexp(1), [G(0, 3, 40, lo=-60000, hi=60000)]),
    "cross_entropy huge": (lambda m, F, a: F.cross_entropy(a, m.tensor([0, 3, 7])), [G(0, 3, 10, lo=-60000, hi=60000)]),
    "bce huge": (
        lambda m, F, a, b: F.binary_cross_entropy_with_logits(a, b),
        [G(0, 3, 40, lo=-60000, hi=60000), G(1, 3, 40, lo=0, hi=1)],
    ),
    "sigmoid huge": (lambda m, F, a: a.sigmoid(), [G(0, 3, 4, lo=-60000, hi=60000)]),
    "tanh huge": (lambda m, F, a: a.tanh(), [G(0, 3, 4, lo=-60000, hi=60000)]),
    "silu huge": (lambda m, F, a: F.silu(a), [G(0, 3, 4, lo=-60000, hi=60000)]),
    "gelu huge": (lambda m, F, a: F.gelu(a), [G(0, 3, 4, lo=-60000, hi=60000)]),
    "gelu tanh huge": (lambda m, F, a: F.gelu(a, approximate="tanh"), [G(0, 3, 4, lo=-300, hi=300)]),
    "softplus huge": (lambda m, F, a: F.softplus(a), [G(0, 3, 4, lo=-60000, hi=60000)]),
    "elu huge": (lambda m, F, a: F.elu(a), [G(0, 3, 4, lo=-60000, hi=60000)]),
    "pow 2 huge": (lambda m, F, a: a**2, [G(0, 3, 4, lo=100, hi=250)]),
    "pow 0.5": (lambda m, F, a: a**0.5, [G(0, 3, 4, lo=1000, hi=60000)]),
    "pow -1": (lambda m, F, a: a**-1, [G(0, 3, 4, lo=250, hi=400)]),
    "pow -2": (lambda m, F, a: a**-2, [G(0, 3, 4, lo=10, hi=20)]),
    "rdiv": (lambda m, F, a: 1.0 / a, [G(0, 3, 4, lo=250, hi=400)]),
    "sqrt tiny": (lambda m, F, a: a.sqrt(), [G(0, 3, 4, lo=1e-4, hi=1e-3)]),
    "exp big": (lambda m, F, a: a.exp(), [G(0, 3, 4, lo=5, hi=10)]),
    "log tiny": (lambda m, F, a: a.log(), [G(0, 3, 4, lo=1e-4, hi=1e-3)]),
    "mse huge": (lambda m, F, a, b: F.mse_loss(a, b), [G(0, 3, 40, lo=-150, hi=150), G(1, 3, 40)]),
    "l1 huge": (lambda m, F, a, b: F.l1_loss(a, b, reduction="sum"), [G(0, 3, 400, lo=-150, hi=150), G(1, 3, 400)]),
    "matmul big": (lambda m, F, a, b: a @ b, [G(0, 3, 40, lo=-30, hi=30), G(1, 40, 5, lo=-30, hi=30)]),
    "avg_pool big": (lambda m, F, a: F.adaptive_avg_pool2d(a, 1), [G(0, 1, 1, 300, 300, lo=0, hi=1)]),
    "sum big": (lambda m, F, a: a.sum(), [G(0, 1000, lo=0, hi=100)]),
    "var scaled": (lambda m, F, a: a.var(1) * 100, [G(0, 3, 40, lo=-2000, hi=2000)]),
    "std scaled": (lambda m, F, a: a.std(1) * 1000, [G(0, 3, 40, lo=-2000, hi=2000)]),
    "pow exp scaled": (lambda m, F, a: (a**1000.0) * 100, [G(0, 3, 4, lo=0.99, hi=0.995)]),
    "mse scaled": (lambda m, F, a, b: F.mse_loss(a, b) * 1000, [G(0, 3, 40, lo=-100, hi=100), G(1, 3, 40)]),
    "layer_norm scaled": (
        lambda m, F, a, w, b: F.layer_norm(a, (40,), w, b) * 1000,
        [G(0, 3, 40, lo=-2000, hi=2000), G(1, 40), G(2, 40)],
    ),
    "batch_norm scaled": (
        lambda m, F, a, w, b: F.batch_norm(a, None, None, w, b, training=True) * 1000,
        [G(0, 8, 3, 4, 4, lo=-2000, hi=2000), G(1, 3), G(2, 3)],
    ),
    "logsumexp scaled": (lambda m, F, a: a.logsumexp(1) * 1000, [G(0, 3, 40, lo=-20, hi=20)]),
    "softmax scaled": (lambda m, F, a: F.softmax(a, 1) * 1000, [G(0, 3, 40, lo=-20, hi=20)]),
    "log_softmax scaled": (lambda m, F, a: F.log_softmax(a, 1) * 1000, [G(0, 3, 40, lo=-20, hi=20)]),
    "sigmoid scaled": (lambda m, F, a: a.sigmoid() * 10000, [G(0, 3, 4, lo=-10, hi=10)]),
    "tanh scaled": (lambda m, F, a: a.tanh() * 10000, [G(0, 3, 4, lo=-3, hi=3)]),
    "gelu scaled": (lambda m, F, a: F.gelu(a) * 10000, [G(0, 3, 4, lo=-5, hi=5)]),
    "gelu tanh scaled": (lambda m, F, a: F.gelu(a, approximate="tanh") * 10000, [G(0, 3, 4, lo=-5, hi=5)]),
    "silu scaled": (lambda m, F, a: F.silu(a) * 10000, [G(0, 3, 4, lo=-10, hi=10)]),
    "elu scaled": (lambda m, F, a: F.elu(a) * 10000, [G(0, 3, 4, lo=-10, hi=10)]),
    "softplus scaled": (lambda m, F, a: F.softplus(a) * 10000, [G(0, 3, 4, lo=-10, hi=10)]),
    "bce scaled": (
        lambda m, F, a, b: F.binary_cross_entropy_with_logits(a, b) * 10000,
        [G(0, 3, 40, lo=-20, hi=20), G(1, 3, 40, lo=0, hi=1)],
    ),
    "ce scaled": (
        lambda m, F, a: F.cross_entropy(a, m.tensor([0, 3, 7]), label_smoothing=0.1) * 10000,
        [G(0, 3, 10, lo=-20, hi=20)],
    ),
    "div scaled": (lambda m, F, a, b: (a / b) * 1000, [G(0, 3, 4, lo=50, hi=100), G(1, 4, lo=20, hi=40)]),
    "sqrt scaled": (lambda m, F, a: a.sqrt() * 10000, [G(0, 3, 4, lo=0.01, hi=1)]),
    "exp scaled": (lambda m, F, a: a.exp() * 1000, [G(0, 3, 4, lo=-5, hi=3)]),
    "log scaled": (lambda m, F, a: a.log() * 10000, [G(0, 3, 4, lo=1, hi=100)]),
}


def _set_row(y, row):
    y[0] = row * 300
    return y


def _scale_rows(y):
    y[1:].mul_(300.0)
    return y


def _fill_row(y):
    y[1].fill_(2.0)
    return y


TOLERANCE = {torch.float16: 2e-2, torch.bfloat16: 8e-2}


def assert_close_where_torch_is_finite(ours: torch.Tensor, theirs: torch.Tensor, dtype, what: str) -> None:
    assert ours.dtype == theirs.dtype, (what, ours.dtype, theirs.dtype)
    ours, theirs = ours.double(), theirs.double()
    finite = theirs.isfinite()
    assert bool(ours[finite].isfinite().all()), f"{what}: ours overflows where torch's does not"
    magnitude = theirs[finite].abs().max() if bool(finite.any()) else torch.tensor(1.0, dtype=torch.float64)
    scale = magnitude if magnitude > 0 else 1.0
    tolerance = TOLERANCE[dtype]
    torch.testing.assert_close(ours[finite] / scale, theirs[finite] / scale, rtol=tolerance, atol=tolerance, msg=what)


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16], ids=["float16", "bfloat16"])
@pytest.mark.parametrize("name", list(OPS))
def test_op_in_half_precision_matches_torch(name, dtype):
    fn, inputs = OPS[name]
    theirs_in = [x.to(dtype).requires_grad_() for x in inputs]
    ours_in = [mt.tensor(x.to(dtype), requires_grad=True) for x in inputs]
    theirs = fn(torch, TF, *theirs_in)
    ours = fn(mt, MF, *ours_in)
    assert_close_where_torch_is_finite(ours.torch(), theirs.detach(), dtype, "forward")
    upstream = (torch.rand(theirs.shape, generator=torch.Generator().manual_seed(5), dtype=torch.float64) + 0.5).to(
        dtype
    )
    expected = torch.autograd.grad(theirs, theirs_in, upstream, allow_unused=True)
    actual = mt.autograd.grad(ours, ours_in, mt.tensor(upstream), allow_unused=True)
    for i, (a, e) in enumerate(zip(actual, expected, strict=True)):
        assert (a is None) == (e is None), f"input {i}"
        if e is not None:
            assert_close_where_torch_is_finite(a.torch(), e, dtype, f"gradient of input {i}")


def test_division_gradient_does_not_overflow_in_float16():
    b = mt.tensor([300.0], dtype=torch.float16, requires_grad=True)
    (mt.tensor([1.0], dtype=torch.float16) / b).backward()
    assert b.grad.item() == pytest.approx(-1 / 300**2, rel=1e-2)
