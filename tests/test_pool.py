"""Max, average and adaptive pooling (1-D, 2-D, 3-D) against torch.autograd in float64."""

from __future__ import annotations

import pytest
import torch
import torch.nn.functional as TF

import minitorch_rx as mt
from minitorch_rx.ops import pool as P
from tests.helpers import compare_with_torch


def randn(*shape: int, seed: int = 0) -> torch.Tensor:
    return torch.randn(shape, dtype=torch.float64, generator=torch.Generator().manual_seed(seed))


def compare(name: str, x: torch.Tensor, *args, **kwargs):
    """``name`` from minitorch_rx's pool module and from torch.nn.functional, same arguments."""
    mine, theirs = getattr(P, name), getattr(TF, name)
    compare_with_torch(lambda t: mine(t, *args, **kwargs), lambda t: theirs(t, *args, **kwargs), [x])


# ------------------------------------------------------------------ max pooling
MAX_CASES = [
    # name, input shape, kwargs
    ("max_pool1d", (2, 3, 9), {"kernel_size": 3}),
    ("max_pool1d", (1, 2, 10), {"kernel_size": 3, "stride": 2, "padding": 1, "dilation": 2}),
    ("max_pool1d", (2, 2, 9), {"kernel_size": (2,), "stride": (2,), "ceil_mode": True}),
    ("max_pool1d", (3, 11), {"kernel_size": 4, "stride": 3, "padding": 2}),
    ("max_pool2d", (2, 3, 8, 8), {"kernel_size": 2}),
    ("max_pool2d", (1, 2, 9, 7), {"kernel_size": (3, 2), "stride": (2, 1), "padding": (1, 1)}),
    ("max_pool2d", (2, 2, 9, 10), {"kernel_size": 3, "stride": 2, "dilation": 2, "ceil_mode": True}),
    ("max_pool2d", (3, 7, 7), {"kernel_size": 3, "stride": 2, "padding": 1}),
    # From 6 channels the forward runs on a channels-last copy (pool.CHANNELS_LAST_MAX_POOL_FROM).
    ("max_pool2d", (2, 6, 8, 8), {"kernel_size": 2}),
    ("max_pool2d", (2, 9, 9, 10), {"kernel_size": 3, "stride": 2, "dilation": 2, "ceil_mode": True}),
    ("max_pool2d", (1, 16, 9, 7), {"kernel_size": (3, 2), "stride": (2, 1), "padding": (1, 1)}),
    ("max_pool3d", (2, 2, 4, 6, 5), {"kernel_size": 2}),
    ("max_pool3d", (1, 2, 5, 6, 7), {"kernel_size": (2, 3, 2), "stride": (1, 2, 2), "padding": (1, 1, 0)}),
    ("max_pool3d", (2, 5, 5, 5), {"kernel_size": 2, "dilation": 2, "ceil_mode": True}),
]


@pytest.mark.parametrize("name, shape, kwargs", MAX_CASES)
def test_max_pool_matches_torch(name, shape, kwargs):
    compare(name, randn(*shape), **kwargs)


@pytest.mark.parametrize(
    "name, shape", [("max_pool1d", (2, 3, 8)), ("max_pool2d", (2, 3, 6, 6)), ("max_pool3d", (1, 2, 4, 4, 4))]
)
def test_max_pool_returns_the_indices_of_torch(name, shape):
    compare(name, randn(*shape), 2, return_indices=True)


def test_max_pool_indices_carry_no_gradient():
    x = mt.tensor(randn(1, 2, 4, 4), requires_grad=True)
    out, indices = P.max_pool2d(x, 2, return_indices=True)
    assert out.requires_grad and not indices.requires_grad
    assert indices.dtype == torch.int64


@pytest.mark.parametrize(
    "name, shape", [("max_pool1d", (1, 2, 6)), ("max_pool2d", (1, 2, 4, 6)), ("max_pool3d", (1, 1, 4, 4, 4))]
)
def test_max_pool_gradient_of_ties_goes_to_the_arg_max_torch_picks(name, shape):
    x = torch.ones(shape, dtype=torch.float64)  # every element ties in every window
    compare(name, x, 3, stride=1, padding=1)


@pytest.mark.parametrize("channels", [2, 8])  # NCHW and channels-last kernels
def test_max_pool_picks_what_torch_picks_among_ties_nan_and_infinities(channels):
    x = torch.tensor([0.0, 1.0, 1.0, float("nan"), -float("inf"), float("inf"), 1.0, 0.0], dtype=torch.float64)
    x = x[torch.randint(0, 8, (2, channels, 7, 9), generator=torch.Generator().manual_seed(0))]
    mine = mt.tensor(x, requires_grad=True)
    out, indices = P.max_pool2d(mine, 3, stride=2, padding=1, return_indices=True)
    expected, expected_indices = TF.max_pool2d(x, 3, stride=2, padding=1, return_indices=True)
    torch.testing.assert_close(out.torch(), expected, equal_nan=True)
    assert torch.equal(indices.torch(), expected_indices)
    compare("max_pool2d", x, 3, stride=2, padding=1)


def test_max_pool_gradient_accumulates_where_windows_share_the_max():
    x = torch.zeros(1, 1, 5, 5, dtype=torch.float64)
    x[0, 0, 2, 2] = 1.0  # the max of all nine overlapping 3x3 windows
    mx = mt.tensor(x, requires_grad=True)
    P.max_pool2d(mx, 3, stride=1).sum().backward()
    assert mx.grad.torch()[0, 0, 2, 2].item() == 9.0
    assert mx.grad.torch().sum().item() == 9.0


def test_max_pool_without_grad_records_nothing():
    y = P.max_pool2d(mt.tensor(randn(1, 2, 4, 4)), 2)
    assert y.grad_fn is None and not y.requires_grad


# ------------------------------------------------------------------ average pooling
AVG_CASES = [
    ("avg_pool1d", (2, 3, 9), {"kernel_size": 3}),
    ("avg_pool1d", (1, 2, 10), {"kernel_size": 3, "stride": 2, "padding": 1, "count_include_pad": False}),
    ("avg_pool1d", (3, 9), {"kernel_size": 4, "stride": 3, "padding": 2, "ceil_mode": True}),
    ("avg_pool2d", (2, 3, 8, 8), {"kernel_size": 2}),
    (
        "avg_pool2d",
        (1, 2, 9, 7),
        {"kernel_size": (3, 2), "stride": (2, 1), "padding": (1, 1), "count_include_pad": False},
    ),
    ("avg_pool2d", (2, 2, 9, 10), {"kernel_size": 3, "stride": 2, "padding": 1, "ceil_mode": True}),
    ("avg_pool2d", (3, 7, 7), {"kernel_size": 3, "padding": 1, "divisor_override": 5}),
    ("avg_pool3d", (2, 2, 4, 6, 5), {"kernel_size": 2}),
    ("avg_pool3d", (1, 2, 5, 6, 7), {"kernel_size": (2, 3, 2), "stride": 2, "padding": 1, "ceil_mode": True}),
    ("avg_pool3d", (2, 5, 5, 5), {"kernel_size": 3, "padding": 1, "count_include_pad": False, "divisor_override": 4}),
]


@pytest.mark.parametrize("name, shape, kwargs", AVG_CASES)
def test_avg_pool_matches_torch(name, shape, kwargs):
    compare(name, randn(*shape), **kwargs)


# ------------------------------------------------------------------ adaptive pooling
ADAPTIVE_CASES = [
    ("adaptive_avg_pool1d", (2, 3, 10), 4),
    ("adaptive_avg_pool1d", (3, 7), (3,)),
    ("adaptive_avg_pool2d", (2, 3, 10, 7), (3, 4)),
    ("adaptive_avg_pool2d", (3, 10, 7), (3, None)),
    ("adaptive_avg_pool2d", (1, 2, 6, 6), 1),
    ("adaptive_avg_pool3d", (1, 3, 5, 6, 7), (2, 3, 1)),
    ("adaptive_avg_pool3d", (2, 4, 5, 6), (None, 2, 4)),
    ("adaptive_max_pool2d", (2, 3, 10, 7), (3, 4)),
    ("adaptive_max_pool2d", (3, 9, 8), (None, 3)),
]


@pytest.mark.parametrize("name, shape, output_size", ADAPTIVE_CASES)
def test_adaptive_pool_matches_torch(name, shape, output_size):
    compare(name, randn(*shape), output_size)


def test_adaptive_max_pool_returns_the_indices_of_torch():
    compare("adaptive_max_pool2d", randn(2, 3, 9, 7), (4, 3), return_indices=True)


# ------------------------------------------------------------------ finite differences
GRADCHECK_CASES = [
    ("max_pool1d", (1, 2, 7), (3,), {"stride": 2, "padding": 1}),
    ("max_pool2d", (1, 2, 5, 5), (2,), {"stride": 1, "ceil_mode": True}),
    ("max_pool3d", (1, 1, 3, 4, 4), (2,), {"padding": 1}),
    ("avg_pool1d", (1, 2, 7), (3,), {"stride": 2, "padding": 1, "count_include_pad": False}),
    ("avg_pool2d", (1, 2, 5, 5), (3,), {"stride": 2, "padding": 1, "divisor_override": 2}),
    ("avg_pool3d", (1, 1, 3, 4, 4), (2,), {"ceil_mode": True}),
    ("adaptive_avg_pool1d", (1, 2, 7), (3,), {}),
    ("adaptive_avg_pool2d", (1, 2, 5, 5), ((2, 3),), {}),
    ("adaptive_avg_pool3d", (1, 1, 3, 4, 5), ((2, 2, 3),), {}),
    ("adaptive_max_pool2d", (1, 2, 5, 5), ((3, 2),), {}),
]


@pytest.mark.parametrize("name, shape, args, kwargs", GRADCHECK_CASES)
def test_pool_gradcheck(name, shape, args, kwargs):
    # A permutation of distinct values: no max-pool window has a tie that a step of eps could flip.
    values = torch.randperm(int(torch.tensor(shape).prod()), generator=torch.Generator().manual_seed(0))
    x = mt.tensor(values.to(torch.float64).view(shape) / 10, requires_grad=True)
    pool = getattr(P, name)
    assert mt.autograd.gradcheck(lambda t: pool(t, *args, **kwargs), x)


# ------------------------------------------------------------------ errors, in PyTorch's words
ERROR_CASES = [
    ("max_pool1d", (2, 3, 8), (0,), {}),
    ("max_pool1d", (2, 3, 8), (3,), {"padding": 2}),
    ("max_pool1d", (2, 3, 8), (10,), {}),
    ("max_pool1d", (8,), (2,), {}),
    ("max_pool2d", (2, 3, 8, 8), (3,), {"padding": 2}),
    ("max_pool2d", (8, 8), (3,), {}),
    ("max_pool3d", (1, 1, 2, 2, 2), (3,), {}),
    ("avg_pool1d", (2, 3, 8), (3,), {"stride": 0}),
    ("avg_pool1d", (2, 3, 8), (10,), {}),
    ("avg_pool2d", (2, 3, 8, 8), (3,), {"padding": 2}),
    ("avg_pool3d", (1, 1, 2, 2, 2), (3,), {}),
    ("adaptive_avg_pool1d", (8,), (3,), {}),
    ("adaptive_avg_pool2d", (8, 8), (3,), {}),
    ("adaptive_max_pool2d", (8,), (3,), {}),
]


@pytest.mark.parametrize("name, shape, args, kwargs", ERROR_CASES)
def test_pool_errors_are_worded_as_torch(name, shape, args, kwargs):
    x = randn(*shape)
    with pytest.raises(RuntimeError) as theirs:
        getattr(TF, name)(x, *args, **kwargs)
    with pytest.raises(RuntimeError) as ours:
        getattr(P, name)(mt.tensor(x, requires_grad=True), *args, **kwargs)
    assert str(ours.value) == str(theirs.value)
