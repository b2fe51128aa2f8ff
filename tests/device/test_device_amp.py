"""``mt.autocast`` and ``GradScaler`` on the suite's device, against ``torch.autocast`` and
``torch.amp.GradScaler`` on the same device: the dtype each op runs in follows torch's cast lists
(float16 and bfloat16), gradients come back in the leaves' dtypes, and the scaler's steps,
skips and scale are torch's."""

from __future__ import annotations

import pytest
import torch
import torch.nn.functional as TF

import minitorch_rx as mt
import minitorch_rx.nn as nn
import minitorch_rx.nn.functional as F
import minitorch_rx.optim as optim
from tests.device.common import twin_modules

G = torch.Generator().manual_seed(0)
X, W, B = torch.randn(4, 6, generator=G), torch.randn(5, 6, generator=G), torch.randn(5, generator=G)
IMG, KERNEL = torch.randn(2, 3, 6, 6, generator=G), torch.randn(4, 3, 3, 3, generator=G)
Y = torch.tensor([0, 1, 4, 2])

# name -> (ours, torch's): functions of (lib, functional, x, w, b, img, kernel, y), run under autocast.
OPS = {
    "linear": lambda lib, f, x, w, b, img, k, y: f.linear(x, w, b),
    "matmul": lambda lib, f, x, w, b, img, k, y: x @ w.t(),
    "conv2d": lambda lib, f, x, w, b, img, k, y: f.conv2d(img, k, padding=1),
    "linear_then_add": lambda lib, f, x, w, b, img, k, y: f.linear(x, w) + b,
    "relu_of_linear": lambda lib, f, x, w, b, img, k, y: f.relu(f.linear(x, w, b)),
    "cross_entropy": lambda lib, f, x, w, b, img, k, y: f.cross_entropy(f.linear(x, w, b), y),
    "mse_loss": lambda lib, f, x, w, b, img, k, y: f.mse_loss(f.linear(x, w), b.expand(4, 5)),
    "float32_ops_alone": lambda lib, f, x, w, b, img, k, y: f.softmax(x, 1) + x.exp() + f.layer_norm(x, (6,)),
    # ops of torch's float32 lists given a lower-precision product
    "softmax_of_linear": lambda lib, f, x, w, b, img, k, y: f.softmax(f.linear(x, w, b), 1),
    "log_softmax_of_linear": lambda lib, f, x, w, b, img, k, y: f.log_softmax(f.linear(x, w, b), 1),
    "layer_norm_of_linear": lambda lib, f, x, w, b, img, k, y: f.layer_norm(f.linear(x, w, b), (5,)),
    "group_norm_of_conv": lambda lib, f, x, w, b, img, k, y: f.group_norm(f.conv2d(img, k), 2),
    "exp_of_linear": lambda lib, f, x, w, b, img, k, y: f.linear(x, w, b).exp(),
    "sum_of_linear": lambda lib, f, x, w, b, img, k, y: f.linear(x, w, b).sum(1),
    "batch_norm_of_conv": lambda lib, f, x, w, b, img, k, y: f.batch_norm(f.conv2d(img, k), None, None, training=True),
    "bce_with_logits": lambda lib, f, x, w, b, img, k, y: f.binary_cross_entropy_with_logits(
        f.linear(x, w), b.sigmoid().expand(4, 5)
    ),
    "pow_prod_cumsum_of_linear": lambda lib, f, x, w, b, img, k, y: (
        f.linear(x, w, b) ** 2 + f.linear(x, w, b).prod(1, keepdim=True) + f.linear(x, w, b).cumsum(1)
    ),
    "logsumexp_softplus_norm": lambda lib, f, x, w, b, img, k, y: (
        f.linear(x, w, b).logsumexp(1) + f.softplus(f.linear(x, w, b)).sum(1) + f.linear(x, w, b).norm(dim=1)
    ),
    "not_on_the_lists": lambda lib, f, x, w, b, img, k, y: (
        f.gelu(f.linear(x, w, b)) + f.linear(x, w, b).tanh() + f.linear(x, w, b).sigmoid() * f.linear(x, w).mean()
    ),
    "interpolate_of_conv": lambda lib, f, x, w, b, img, k, y: f.interpolate(f.conv2d(img, k), scale_factor=2),
    "pointwise_losses_of_products": lambda lib, f, x, w, b, img, k, y: (
        f.smooth_l1_loss(f.linear(x, w), f.linear(x, w).flip(0))
        + f.huber_loss(f.linear(x, w), f.linear(x, w).flip(1))
        + f.l1_loss(f.linear(x, w), f.linear(x, w).flip(0))
        + f.kl_div(f.linear(x, w), f.linear(x, w).flip(0), reduction="batchmean", log_target=True)
    ),
    "attention": lambda lib, f, x, w, b, img, k, y: f.scaled_dot_product_attention(
        f.linear(x, w)[None], f.linear(x, w)[None], f.linear(x, w)[None]
    ),
}


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16], ids=["f16", "bf16"])
@pytest.mark.parametrize("name", list(OPS))
def test_autocast_output_dtypes_follow_torch_on_the_device(device, name, dtype):
    fn = OPS[name]
    args = [t.to(device) for t in (X, W, B, IMG, KERNEL, Y)]
    mt_args = [mt.tensor(t, requires_grad=t.is_floating_point()) for t in args]
    with torch.autocast(device.type, dtype=dtype):
        ref = fn(torch, TF, *[t.clone().requires_grad_(t.is_floating_point()) for t in args])
    with mt.autocast(device.type, dtype=dtype):
        out = fn(mt, F, *mt_args)
    assert out.dtype == ref.dtype, f"{name}: ours {out.dtype}, torch's autocast {ref.dtype}"
    torch.testing.assert_close(out.torch(), ref.detach(), atol=5e-2, rtol=5e-2)
    out.float().sum().backward()
    for t in mt_args:
        if t.requires_grad and t.grad is not None:
            assert t.grad.dtype == torch.float32 and t.grad.device == t.device


def test_autocast_training_step_matches_torch_on_the_device(device):
    torch.manual_seed(0)
    kind = device.type
    ours, theirs = twin_modules(
        nn.Sequential(nn.Conv2d(3, 4, 3), nn.ReLU(), nn.Flatten(), nn.Linear(64, 5)),
        torch.nn.Sequential(torch.nn.Conv2d(3, 4, 3), torch.nn.ReLU(), torch.nn.Flatten(), torch.nn.Linear(64, 5)),
        device,
        torch.float32,
    )
    img, y = IMG.to(device), Y[:2].to(device)
    with mt.autocast(kind, dtype=torch.bfloat16):
        loss = F.cross_entropy(ours(mt.tensor(img)), mt.tensor(y))
    with torch.autocast(kind, dtype=torch.bfloat16):
        ref = TF.cross_entropy(theirs(img), y)
    assert loss.dtype == ref.dtype == torch.float32
    torch.testing.assert_close(loss.torch(), ref.detach(), atol=2e-2, rtol=2e-2)
    loss.backward()
    ref.backward()
    for (name, p), q in zip(ours.named_parameters(), theirs.parameters()):
        assert p.grad.dtype == q.grad.dtype == torch.float32 and p.grad.device == q.grad.device, name
        torch.testing.assert_close(p.grad.torch(), q.grad, atol=5e-2, rtol=5e-2)


def test_grad_scaler_steps_as_torchs_on_the_device(device):
    """Four steps of a float16-scaled loss, the second with an inf gradient (skipped, scale backed
    off), a growth interval of 2: parameters, scale and growth tracker equal torch's."""
    kind = device.type
    torch.manual_seed(0)
    ours, theirs = twin_modules(nn.Linear(6, 3), torch.nn.Linear(6, 3), device, torch.float32)
    opt = optim.SGD(ours.parameters(), lr=0.1, momentum=0.9)
    ref_opt = torch.optim.SGD(theirs.parameters(), lr=0.1, momentum=0.9)
    scaler = mt.amp.GradScaler(kind, init_scale=2.0**10, growth_interval=2)
    ref_scaler = torch.amp.GradScaler(kind, init_scale=2.0**10, growth_interval=2)
    x = X.to(device)
    for step in range(4):
        bad = float("inf") if step == 1 else 1.0
        for model, optimizer, grad_scaler, inp in ((ours, opt, scaler, mt.tensor(x)), (theirs, ref_opt, ref_scaler, x)):
            optimizer.zero_grad()
            loss = (model(inp) * bad).pow(2).mean()
            grad_scaler.scale(loss).backward()
            grad_scaler.unscale_(optimizer)
            grad_scaler.step(optimizer)
            grad_scaler.update()
        assert scaler.get_scale() == ref_scaler.get_scale(), step
        for p, q in zip(ours.parameters(), theirs.parameters()):
            torch.testing.assert_close(p.torch(), q.detach(), atol=1e-6, rtol=1e-5)
    assert scaler.state_dict() == ref_scaler.state_dict()
    assert scaler._scale.device == ref_scaler._scale.device


def test_the_cuda_float32_list_where_it_applies(monkeypatch):
    """torch's CUDA float32 lists, checked on the CPU by applying them to CPU autocast meanwhile:
    the listed ops of a float16 input run in float32, the others stay in float16."""
    from minitorch_rx.ops import autocast

    monkeypatch.setattr(autocast, "FLOAT32_LIST_DEVICES", ("cpu",))
    x = mt.randn(4, 5).half()
    img = mt.randn(1, 4, 3, 3).half()
    with mt.autocast("cpu", dtype=torch.float16):
        listed = {
            "exp": x.exp(),
            "log": x.abs().log(),
            "pow": x**2,
            "rsqrt": mt.rsqrt(x.abs() + 1),
            "softmax": F.softmax(x, 1),
            "softmin": F.softmin(x, 1),
            "normalize": F.normalize(x),
            "cosine_similarity": F.cosine_similarity(x, x.flip(0)),
            "log_softmax": F.log_softmax(x, 1),
            "sum": x.sum(1),
            "prod": x.prod(1),
            "cumsum": x.cumsum(1),
            "logsumexp": x.logsumexp(1),
            "softplus": F.softplus(x),
            "layer_norm": F.layer_norm(x, (5,)),
            "group_norm": F.group_norm(img, 2),
            "vector_norm": mt.linalg.vector_norm(x, dim=1),
            "smooth_l1_loss": F.smooth_l1_loss(x, x.flip(0)),
            "kl_div": F.kl_div(x, x.flip(0), reduction="sum"),
            "interpolate": F.interpolate(img, scale_factor=2, mode="bilinear"),
        }
        unlisted = {
            "relu": F.relu(x),
            "gelu": F.gelu(x),
            "tanh": x.tanh(),
            "mean": x.mean(),
            "var_std": x.var(1) + x.std(1),
            "amax_max": x.amax(1) + x.max(1)[0],
            "mish_softsign": F.mish(x) + F.softsign(x),
            "dropout": F.dropout(x, 0.5),
            "mul": x * 2,
            "silu": F.silu(x),
            "explicit_dtype": x.sum(1, dtype=torch.float16),
        }
    assert {name: t.dtype for name, t in listed.items()} == dict.fromkeys(listed, torch.float32)
    assert {name: t.dtype for name, t in unlisted.items()} == dict.fromkeys(unlisted, torch.float16)


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16], ids=["f16", "bf16"])
def test_binary_cross_entropy_under_autocast_is_torchs(device, dtype):
    """In float32 under the CPU's autocast; refused under CUDA's (torch's error, naming the fix)."""
    p = (torch.rand(4, generator=G) * 0.8 + 0.1).to(device, dtype)
    t = torch.rand(4, generator=G).to(device, dtype)
    with torch.autocast(device.type, dtype=dtype):
        try:
            expected, error = TF.binary_cross_entropy(p, t), None
        except RuntimeError as caught:
            expected, error = None, caught
    with mt.autocast(device.type, dtype=dtype):
        if error is not None:
            with pytest.raises(RuntimeError) as ours:
                F.binary_cross_entropy(mt.tensor(p), mt.tensor(t))
            assert str(ours.value).splitlines()[:5] == str(error).splitlines()[:5]
            return
        out = F.binary_cross_entropy(mt.tensor(p), mt.tensor(t))
    assert out.dtype == expected.dtype
    torch.testing.assert_close(out.torch(), expected, atol=1e-2, rtol=1e-2)
