"""Adaptive max pooling (1-D, 3-D), max unpooling and LP pooling, against torch in float64."""

from __future__ import annotations

import pytest
import torch
import torch.nn.functional as TF

import minitorch_rx as mt
import minitorch_rx.nn as nn
import minitorch_rx.nn.functional as F
from tests.helpers import compare_with_torch
from tests.test_layers import _twins, assert_twins_agree


def randn(*shape: int, seed: int = 0) -> torch.Tensor:
    return torch.randn(shape, dtype=torch.float64, generator=torch.Generator().manual_seed(seed))


@pytest.mark.parametrize(
    "name, shape, output_size",
    [
        ("adaptive_max_pool1d", (2, 3, 9), 4),
        ("adaptive_max_pool1d", (3, 7), 3),
        ("adaptive_max_pool2d", (2, 3, 7, 5), (3, None)),
        ("adaptive_max_pool3d", (2, 2, 5, 4, 6), (2, 3, 4)),
        ("adaptive_max_pool3d", (2, 5, 4, 6), (None, 2, 2)),
    ],
)
def test_adaptive_max_pool_matches_torch_with_indices(name, shape, output_size):
    ours, theirs = getattr(F, name), getattr(TF, name)
    compare_with_torch(
        lambda x: ours(x, output_size, return_indices=True), lambda x: theirs(x, output_size, True), [randn(*shape)]
    )


@pytest.mark.parametrize(
    "nd, shape, kwargs",
    [
        (1, (2, 3, 8), {"kernel_size": 2}),
        (2, (2, 3, 6, 5), {"kernel_size": 2, "stride": 2}),
        (2, (3, 7, 7), {"kernel_size": 3, "stride": 2, "padding": 1}),
        (3, (1, 2, 4, 4, 6), {"kernel_size": 2}),
    ],
)
def test_max_unpool_undoes_max_pool_as_torch(nd, shape, kwargs):
    pool = getattr(TF, f"max_pool{nd}d")
    pooled, indices = pool(randn(*shape), return_indices=True, **kwargs)
    size = list(shape[-nd:])
    compare_with_torch(
        lambda x: getattr(F, f"max_unpool{nd}d")(x, mt.tensor(indices), output_size=size, **kwargs),
        lambda x: getattr(TF, f"max_unpool{nd}d")(x, indices, output_size=size, **kwargs),
        [pooled],
    )


def test_max_unpool_after_our_max_pool_passes_gradcheck():
    x = mt.tensor(randn(1, 2, 4, 4), requires_grad=True)

    def round_trip(t):
        pooled, indices = F.max_pool2d(t, 2, return_indices=True)
        return F.max_unpool2d(pooled * 3, indices, 2)

    assert mt.autograd.gradcheck(round_trip, (x,))


@pytest.mark.parametrize(
    "nd, shape, norm_type, kwargs",
    [
        (1, (2, 3, 9), 2.0, {"kernel_size": 3}),
        (1, (2, 3, 9), 1.5, {"kernel_size": 2, "stride": 1, "ceil_mode": True}),
        (2, (2, 3, 6, 5), 3.0, {"kernel_size": (2, 3), "stride": 2}),
        (3, (1, 2, 4, 4, 6), 2.0, {"kernel_size": 2}),
    ],
)
def test_lp_pool_matches_torch(nd, shape, norm_type, kwargs):
    x = randn(*shape).abs() + 0.1  # positive windows: the p-th root is smooth there
    compare_with_torch(
        lambda t: getattr(F, f"lp_pool{nd}d")(t, norm_type, **kwargs),
        lambda t: getattr(TF, f"lp_pool{nd}d")(t, norm_type, **kwargs),
        [x],
    )


LAYERS = [
    (lambda lib: lib.AdaptiveMaxPool1d(3), (2, 3, 8)),
    (lambda lib: lib.AdaptiveMaxPool3d((2, None, 3)), (1, 2, 5, 4, 6)),
    (lambda lib: lib.LPPool1d(2, 3, stride=2), (2, 3, 9)),
    (lambda lib: lib.LPPool2d(1, (2, 2), ceil_mode=True), (2, 3, 5, 5)),
    (lambda lib: lib.LPPool3d(2, 2), (1, 2, 4, 4, 4)),
]


@pytest.mark.parametrize(("factory", "shape"), LAYERS)
def test_pool_layer_matches_its_torch_twin(factory, shape):
    ours, theirs = _twins(factory)
    assert repr(ours) == repr(theirs)
    assert_twins_agree(ours, theirs, shape, training=True)


def test_max_unpool_layer_matches_torch_and_takes_an_output_size():
    ours, theirs = nn.MaxUnpool2d(2), torch.nn.MaxUnpool2d(2)
    assert repr(ours) == repr(theirs)
    pooled, indices = TF.max_pool2d(randn(2, 3, 5, 5), 2, return_indices=True)
    expected = theirs(pooled, indices, output_size=(5, 5))
    got = ours(mt.tensor(pooled), mt.tensor(indices), output_size=(5, 5))
    assert torch.equal(got.torch(), expected)


def test_unpool_pair_backward_on_recorded_tensors_is_the_adjoint_and_differentiable():
    """MaxUnpool's and GatherAt's create_graph paths, called as the engine will call them."""
    from types import SimpleNamespace

    from minitorch_rx.ops.unpool import GatherAt, MaxUnpool

    pooled, indices = TF.max_pool2d(randn(1, 2, 4, 4), 2, return_indices=True)
    g = randn(1, 2, 4, 4, seed=1)
    grad = mt.tensor(g, requires_grad=True)
    gathered = MaxUnpool.backward(SimpleNamespace(args=(indices, 2, (2, None, 0, None))), grad)[0]
    expected = g.flatten(2).gather(2, indices.flatten(2)).view(pooled.shape)
    torch.testing.assert_close(gathered.torch(), expected)
    (again,) = mt.autograd.grad((gathered * mt.tensor(pooled)).sum(), [grad])
    torch.testing.assert_close(again.torch(), TF.max_unpool2d(pooled, indices, 2))
    grad = mt.tensor(pooled, requires_grad=True)
    unpooled = GatherAt.backward(SimpleNamespace(args=(indices, 2, g.shape, (2, None, 0, None))), grad)[0]
    torch.testing.assert_close(unpooled.torch(), TF.max_unpool2d(pooled, indices, 2))
