"""Every op family on the suite's device against torch on the same device: forward values and
gradients (float64, and float32 at its tolerances), both convolution backends, ops whose Python
numbers become constants, random masks drawn on the device, and gradcheck/gradgradcheck there."""

from __future__ import annotations

import pytest
import torch
import torch.nn.functional as TF

import minitorch_rx as mt
import minitorch_rx.nn.functional as F
from tests.device.common import compare_on

G = torch.Generator().manual_seed(0)


def randn(*shape: int) -> torch.Tensor:
    return torch.randn(*shape, generator=G, dtype=torch.float64)


def positive(*shape: int) -> torch.Tensor:
    return torch.rand(*shape, generator=G, dtype=torch.float64) + 0.5


def labels(n: int, classes: int) -> torch.Tensor:
    return torch.randint(0, classes, (n,), generator=G)


# name -> (ours, torch's, inputs): ``mt``/``F`` and ``torch``/``TF`` spell the same call.
CASES = {
    # elementwise, with Python numbers (cached constants on the CPU) and broadcasting
    "arith_constants": (
        lambda x, y: (x * 2.5 + 1.5) / 3.0 - 0.25 * y + x**2 - 2.0**x,
        lambda x, y: (x * 2.5 + 1.5) / 3.0 - 0.25 * y + x**2 - 2.0**x,
        [randn(3, 4), randn(4)],
    ),
    "unary": (
        lambda x: x.exp() + x.abs().sqrt() + x.tanh() + x.sigmoid() + (x.abs() + 1).log() + x.sin() * x.cos(),
        lambda x: x.exp() + x.abs().sqrt() + x.tanh() + x.sigmoid() + (x.abs() + 1).log() + x.sin() * x.cos(),
        [randn(5, 3)],
    ),
    "where_scalar": (
        lambda x, y: mt.where(x > 0, x, 0.5) + mt.where(y > 0, 2.0, y),
        lambda x, y: torch.where(x > 0, x, 0.5) + torch.where(y > 0, 2.0, y),
        [randn(4, 3), randn(4, 3)],
    ),
    "lerp_clamp_max": (
        lambda x, y: mt.lerp(x, y, 0.3) + x.clamp(-0.5, 0.5) + mt.maximum(x, y) + mt.minimum(x, y),
        lambda x, y: torch.lerp(x, y, 0.3) + x.clamp(-0.5, 0.5) + torch.maximum(x, y) + torch.minimum(x, y),
        [randn(4, 3), randn(4, 3)],
    ),
    "fmod_atan2": (
        lambda x, y: x.fmod(0.7) + x.remainder(0.9) + mt.atan2(x, y),
        lambda x, y: x.fmod(0.7) + x.remainder(0.9) + torch.atan2(x, y),
        [randn(6), positive(6)],
    ),
    # reductions
    "reduce": (
        lambda x: (x.sum(1), x.mean(0), x.var(1), x.std(0), x.amax(1), x.max(0)[0], x.logsumexp(1), x.norm()),
        lambda x: (x.sum(1), x.mean(0), x.var(1), x.std(0), x.amax(1), x.max(0)[0], x.logsumexp(1), x.norm()),
        [randn(4, 5)],
    ),
    "prod_cumsum": (
        lambda x: (x.prod(1), x.cumsum(0), x.cumprod(1)),
        lambda x: (x.prod(1), x.cumsum(0), x.cumprod(1)),
        [positive(3, 4)],
    ),
    # shape and indexing
    "shape": (
        lambda x: mt.cat([x.t().reshape(2, -1), x.flip(0).reshape(2, -1)], 1).permute(1, 0)[1:5].repeat(2, 1),
        lambda x: torch.cat([x.t().reshape(2, -1), x.flip(0).reshape(2, -1)], 1).permute(1, 0)[1:5].repeat(2, 1),
        [randn(4, 3)],
    ),
    "stack_split_expand": (
        lambda x: mt.stack([*x.split(2, 1), x[:, :2] * 2], 0).expand(2, 3, 4, 2).sum(0),
        lambda x: torch.stack([*x.split(2, 1), x[:, :2] * 2], 0).expand(2, 3, 4, 2).sum(0),
        [randn(4, 4)],
    ),
    "index_gather_scatter": (
        lambda x, i, j: (x[i], x.gather(1, j), x.index_select(0, i), x.masked_fill(x > 0.5, 0.0)),
        lambda x, i, j: (x[i], x.gather(1, j), x.index_select(0, i), x.masked_fill(x > 0.5, 0.0)),
        [randn(5, 4), torch.tensor([4, 0, 2, 2]), torch.tensor([[0, 1], [3, 3], [2, 0], [1, 1], [0, 0]])],
    ),
    "index_add_scatter_add": (
        lambda x, v, i: (x.index_add(0, i, v[:3]), x.scatter_add(0, i, v[:3]), x.index_copy(0, i[:2], v[:2])),
        lambda x, v, i: (x.index_add(0, i, v[:3]), x.scatter_add(0, i, v[:3]), x.index_copy(0, i[:2], v[:2])),
        [randn(6), randn(4), torch.tensor([1, 5, 1])],
    ),
    "sort_topk": (
        lambda x: (x.sort(1)[0], x.topk(2, 1)[0], x.argsort(0)),
        lambda x: (x.sort(1)[0], x.topk(2, 1)[0], x.argsort(0)),
        [randn(4, 5)],
    ),
    "triu_diag_tile": (
        lambda x: (x.triu(1), x.diagonal(), x.tile((2, 1)), x.roll(1, 0)),
        lambda x: (x.triu(1), x.diagonal(), x.tile((2, 1)), x.roll(1, 0)),
        [randn(4, 4)],
    ),
    # linear algebra
    "matmul": (
        lambda a, b, c: (a @ b, mt.einsum("bij,bjk->bik", a, b), mt.addmm(c, a[0], b[0], beta=0.5, alpha=2.0)),
        lambda a, b, c: (a @ b, torch.einsum("bij,bjk->bik", a, b), torch.addmm(c, a[0], b[0], beta=0.5, alpha=2.0)),
        [randn(2, 3, 4), randn(2, 4, 5), randn(3, 5)],
    ),
    "addmm_beta0_linear": (
        lambda c, a, b, w: (mt.addmm(c, a, b, beta=0), F.linear(a, w, c[0, :2])),
        lambda c, a, b, w: (torch.addmm(c, a, b, beta=0), TF.linear(a, w, c[0, :2])),
        [randn(3, 5), randn(3, 4), randn(4, 5), randn(2, 4)],
    ),
    # activations
    "activations": (
        lambda x: (F.relu(x), F.gelu(x), F.silu(x), F.elu(x), F.leaky_relu(x, 0.1), F.softplus(x), F.hardtanh(x)),
        lambda x: (
            TF.relu(x),
            TF.gelu(x),
            TF.silu(x),
            TF.elu(x),
            TF.leaky_relu(x, 0.1),
            TF.softplus(x),
            TF.hardtanh(x),
        ),
        [randn(3, 5)],
    ),
    "softmax": (
        lambda x: (F.softmax(x, 1), F.log_softmax(x, 0), F.gelu(x, approximate="tanh"), F.mish(x)),
        lambda x: (TF.softmax(x, 1), TF.log_softmax(x, 0), TF.gelu(x, approximate="tanh"), TF.mish(x)),
        [randn(3, 5)],
    ),
    # convolutions and pooling
    "conv1d": (
        lambda x, w, b: F.conv1d(x, w, b, stride=2, padding=1),
        lambda x, w, b: TF.conv1d(x, w, b, stride=2, padding=1),
        [randn(2, 3, 9), randn(4, 3, 3), randn(4)],
    ),
    "conv2d": (
        lambda x, w, b: F.conv2d(x, w, b, padding=1) + F.conv2d(x, w, b, padding=1, stride=2).mean(),
        lambda x, w, b: TF.conv2d(x, w, b, padding=1) + TF.conv2d(x, w, b, padding=1, stride=2).mean(),
        [randn(2, 3, 7, 7), randn(4, 3, 3, 3), randn(4)],
    ),
    "conv2d_groups_dilation": (
        lambda x, w: F.conv2d(x, w, groups=2, dilation=2, padding="same"),
        lambda x, w: TF.conv2d(x, w, groups=2, dilation=2, padding="same"),
        [randn(2, 4, 8, 8), randn(6, 2, 3, 3)],
    ),
    "conv3d": (
        lambda x, w: F.conv3d(x, w, stride=(1, 2, 1), padding=1),
        lambda x, w: TF.conv3d(x, w, stride=(1, 2, 1), padding=1),
        [randn(1, 2, 5, 6, 5), randn(3, 2, 3, 3, 3)],
    ),
    "conv_transpose2d": (
        lambda x, w, b: F.conv_transpose2d(x, w, b, stride=2, padding=1, output_padding=1),
        lambda x, w, b: TF.conv_transpose2d(x, w, b, stride=2, padding=1, output_padding=1),
        [randn(2, 3, 4, 4), randn(3, 2, 3, 3), randn(2)],
    ),
    "unfold_fold": (
        lambda x: F.fold(F.unfold(x, 2, stride=1), (5, 5), 2),
        lambda x: TF.fold(TF.unfold(x, 2, stride=1), (5, 5), 2),
        [randn(2, 3, 5, 5)],
    ),
    "pool": (
        lambda x: (F.max_pool2d(x, 2), F.avg_pool2d(x, 3, 2, 1), F.adaptive_avg_pool2d(x, 3), F.max_pool1d(x[0], 2)),
        lambda x: (
            TF.max_pool2d(x, 2),
            TF.avg_pool2d(x, 3, 2, 1),
            TF.adaptive_avg_pool2d(x, 3),
            TF.max_pool1d(x[0], 2),
        ),
        [randn(2, 3, 6, 6)],
    ),
    "pad_upsample": (
        lambda x: (F.pad(x, (1, 2, 2, 1), mode="reflect"), F.interpolate(x, scale_factor=2, mode="bilinear")),
        lambda x: (TF.pad(x, (1, 2, 2, 1), mode="reflect"), TF.interpolate(x, scale_factor=2, mode="bilinear")),
        [randn(1, 2, 4, 4)],
    ),
    "nearest_pixel_shuffle": (
        lambda x: (F.interpolate(x, size=(5, 7), mode="nearest"), F.pixel_shuffle(x, 2)),
        lambda x: (TF.interpolate(x, size=(5, 7), mode="nearest"), TF.pixel_shuffle(x, 2)),
        [randn(1, 4, 3, 3)],
    ),
    "grid_sample": (
        lambda x, theta: F.grid_sample(x, F.affine_grid(theta, (2, 1, 4, 4), align_corners=False), align_corners=False),
        lambda x, theta: TF.grid_sample(
            x, TF.affine_grid(theta, (2, 1, 4, 4), align_corners=False), align_corners=False
        ),
        [randn(2, 1, 5, 5), randn(2, 2, 3) * 0.5],
    ),
    # normalization (functional; the layers' running statistics are in test_device_nn)
    "norms": (
        lambda x, w, b: (
            F.batch_norm(x, None, None, w, b, training=True),
            F.layer_norm(x, (5,), None, None),
            F.group_norm(x, 2, w, b),
            F.instance_norm(x),
        ),
        lambda x, w, b: (
            TF.batch_norm(x, None, None, w, b, training=True),
            TF.layer_norm(x, (5,), None, None),
            TF.group_norm(x, 2, w, b),
            TF.instance_norm(x),
        ),
        [randn(3, 4, 5), positive(4), randn(4)],
    ),
    # losses
    "classification_losses": (
        lambda x, y, w: (
            F.cross_entropy(x, y),
            F.cross_entropy(x, y, weight=w.detach(), label_smoothing=0.1),
            F.nll_loss(F.log_softmax(x, 1), y, reduction="sum"),
            F.multi_margin_loss(x, y),
        ),
        lambda x, y, w: (
            TF.cross_entropy(x, y),
            TF.cross_entropy(x, y, weight=w.detach(), label_smoothing=0.1),
            TF.nll_loss(TF.log_softmax(x, 1), y, reduction="sum"),
            TF.multi_margin_loss(x, y),
        ),
        [randn(6, 4), labels(6, 4), positive(4)],
    ),
    "regression_losses": (
        lambda x, t: (
            F.mse_loss(x, t),
            F.l1_loss(x, t),
            F.smooth_l1_loss(x, t),
            F.huber_loss(x, t, delta=0.5),
            F.binary_cross_entropy_with_logits(x, t.sigmoid()),
            F.binary_cross_entropy(x.sigmoid(), t.sigmoid()),
            F.kl_div(F.log_softmax(x, 1), F.softmax(t, 1), reduction="batchmean"),
        ),
        lambda x, t: (
            TF.mse_loss(x, t),
            TF.l1_loss(x, t),
            TF.smooth_l1_loss(x, t),
            TF.huber_loss(x, t, delta=0.5),
            TF.binary_cross_entropy_with_logits(x, t.sigmoid()),
            TF.binary_cross_entropy(x.sigmoid(), t.sigmoid()),
            TF.kl_div(TF.log_softmax(x, 1), TF.softmax(t, 1), reduction="batchmean"),
        ),
        [randn(4, 3), randn(4, 3)],
    ),
    "ctc": (
        lambda x, t: F.ctc_loss(F.log_softmax(x, 2), t, [6, 5], [3, 2]),
        lambda x, t: TF.ctc_loss(TF.log_softmax(x, 2), t, [6, 5], [3, 2]),
        [randn(6, 2, 5), torch.tensor([[1, 2, 2], [3, 4, 0]])],
    ),
    # embedding, attention
    "embedding": (
        lambda w, i: (F.embedding(i, w), F.embedding(i, w, padding_idx=2), F.one_hot(i, 5).sum()),
        lambda w, i: (TF.embedding(i, w), TF.embedding(i, w, padding_idx=2), TF.one_hot(i, 5).sum()),
        [randn(5, 3), torch.tensor([[0, 2, 4], [2, 2, 1]])],
    ),
    # masks that leave every query a key: a fully masked row is NaN or 0 by torch's kernel of choice
    "attention": (
        lambda q, k, v: (
            F.scaled_dot_product_attention(q, k, v, is_causal=True),
            F.scaled_dot_product_attention(
                q, k, v, attn_mask=(k[0, 0, :, 0] > 0) | mt.eye(5, dtype=torch.bool, device=q.device)
            ),
            F.scaled_dot_product_attention(q, k, v, attn_mask=q[0, 0, :, :1].detach() * 0.5 + k[0, 0, :, 0].detach()),
        ),
        lambda q, k, v: (
            TF.scaled_dot_product_attention(q, k, v, is_causal=True),
            TF.scaled_dot_product_attention(
                q, k, v, attn_mask=(k[0, 0, :, 0] > 0) | torch.eye(5, dtype=torch.bool, device=q.device)
            ),
            TF.scaled_dot_product_attention(q, k, v, attn_mask=q[0, 0, :, :1].detach() * 0.5 + k[0, 0, :, 0].detach()),
        ),
        [randn(2, 2, 5, 4), randn(2, 2, 5, 4), randn(2, 2, 5, 4)],
    ),
    "distance": (
        lambda a, b: (F.cosine_similarity(a, b), F.normalize(a), F.pairwise_distance(a, b)),
        lambda a, b: (TF.cosine_similarity(a, b), TF.normalize(a), TF.pairwise_distance(a, b)),
        [randn(3, 4), randn(3, 4)],
    ),
}

#: Cases whose float32 results (cuDNN's or a long reduction's order) need a looser float32 bound.
LOOSE_FLOAT32 = {"conv3d": 10.0, "ctc": 10.0, "grid_sample": 10.0, "unary": 5.0}


@pytest.mark.parametrize("dtype", [torch.float64, torch.float32], ids=["f64", "f32"])
@pytest.mark.parametrize("name", list(CASES))
def test_op_family_matches_torch_on_the_device(device, name, dtype):
    ours, theirs, inputs = CASES[name]
    scale = LOOSE_FLOAT32.get(name, 1.0) if dtype == torch.float32 else 1.0
    compare_on(device, ours, theirs, inputs, dtype, scale)


@pytest.mark.parametrize("backend", ["im2col", "native"])
@pytest.mark.parametrize("dtype", [torch.float64, torch.float32], ids=["f64", "f32"])
def test_both_convolution_backends_on_the_device(device, backend, dtype):
    default, mt.backends.conv = mt.backends.conv, backend
    try:
        for stride, padding in ((1, 2), (2, 1)):
            compare_on(
                device,
                lambda x, w, b, s=stride, p=padding: F.conv2d(x, w, b, stride=s, padding=p),
                lambda x, w, b, s=stride, p=padding: TF.conv2d(x, w, b, stride=s, padding=p),
                [randn(4, 3, 10, 10), randn(5, 3, 5, 5), randn(5)],
                dtype,
            )
    finally:
        mt.backends.conv = default


def test_second_order_through_convolution_and_softmax_on_the_device(device):
    compare_on(
        device,
        lambda x, w: mt.autograd.grad(F.softmax(F.conv2d(x, w, padding=1), 1).pow(2).sum(), x, create_graph=True)[0],
        lambda x, w: torch.autograd.grad(TF.softmax(TF.conv2d(x, w, padding=1), 1).pow(2).sum(), x, create_graph=True)[
            0
        ],
        [randn(2, 2, 5, 5), randn(3, 2, 3, 3)],
    )


@pytest.mark.parametrize("p", [0.0, 0.5, 1.0])
def test_dropout_draws_its_mask_on_the_device(device, p):
    x = mt.ones(2000, device=device, requires_grad=True)
    y = F.dropout(x, p)
    assert y.device == x.device
    kept = y.torch() != 0
    assert abs(kept.double().mean().item() - (1 - p)) < 0.06
    if p < 1:
        assert torch.all(y.torch()[kept] == 1 / (1 - p))
    y.sum().backward()
    assert x.grad.device == x.device
    torch.testing.assert_close(x.grad.torch(), y.torch().detach())


def test_seeded_dropout_on_the_device_is_torchs_mask(device):
    """Same seed, same generator (the device's): the same mask as ``torch.nn.functional.dropout``."""
    x = torch.ones(64, 32, device=device)
    torch.manual_seed(3)
    ours = F.dropout(mt.tensor(x), 0.3)
    torch.manual_seed(3)
    theirs = TF.dropout(x, 0.3)
    torch.testing.assert_close(ours.torch(), theirs)


def test_random_creation_lands_on_the_device(device):
    for t in (
        mt.randn(3, device=device),
        mt.rand(3, device=device),
        mt.randint(0, 5, (3,), device=device),
        mt.zeros(2, device=device),
        mt.ones(2, device=device),
        mt.full((2,), 1.5, device=device),
        mt.arange(4, device=device),
        mt.eye(2, device=device),
        mt.empty(2, device=device),
        mt.linspace(0, 1, 3, device=device),
        mt.zeros_like(mt.ones(2, device=device)),
        mt.randn_like(mt.ones(2, device=device)),
        mt.tensor([1.0, 2.0], device=device),
    ):
        assert t.device.type == device.type


def test_gradcheck_and_gradgradcheck_on_the_device(device):
    x = mt.randn(2, 3, dtype=torch.float64, device=device, requires_grad=True)
    w = mt.randn(4, 3, dtype=torch.float64, device=device, requires_grad=True)
    assert mt.autograd.gradcheck(lambda x, w: F.gelu(F.linear(x, w)).sum(1), (x, w))
    assert mt.autograd.gradgradcheck(lambda x, w: F.softplus(x @ w.t()), (x, w))


def test_python_numbers_stay_numbers_for_ops_off_the_cpu():
    """The cached 0-dim constants are CPU tensors: an op on another device (meta here, CUDA on a
    GPU) gets the Python number, as torch would, since not every CUDA kernel takes a CPU scalar
    (``torch.lerp`` refuses one)."""
    from minitorch_rx.ops.constants import operand

    assert isinstance(operand(0.3, torch.empty(2)), torch.Tensor)
    assert operand(0.3, torch.empty(2, device="meta")) == 0.3
    assert type(operand(0.3, torch.empty(2, device="meta"))) is float
