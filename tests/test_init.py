"""minitorch_rx.init against torch.nn.init: formulas, fans, bounds, statistics, no graph."""

from __future__ import annotations

import math

import pytest
import torch

import minitorch_rx as mt
import minitorch_rx.init as init
import minitorch_rx.nn as nn

FAN_MESSAGE = "Fan in and fan out can not be computed for tensor with fewer than 2 dimensions"


@pytest.mark.parametrize(
    ("nonlinearity", "param"),
    [
        ("linear", None),
        ("conv1d", None),
        ("conv2d", None),
        ("conv3d", None),
        ("sigmoid", None),
        ("tanh", None),
        ("relu", None),
        ("leaky_relu", None),
        ("leaky_relu", 0.2),
        ("leaky_relu", 3),
        ("selu", None),
    ],
)
def test_calculate_gain_matches_torch(nonlinearity, param):
    assert init.calculate_gain(nonlinearity, param) == torch.nn.init.calculate_gain(nonlinearity, param)


def test_calculate_gain_rejects_unknown_nonlinearity():
    with pytest.raises(ValueError, match="Unsupported nonlinearity softsign"):
        init.calculate_gain("softsign")


def test_calculate_gain_rejects_non_numeric_slope():
    with pytest.raises(ValueError, match="negative_slope True not a valid number"):
        init.calculate_gain("leaky_relu", True)


# Each initializer draws from torch's generator in the same order as torch.nn.init, so one seed
# gives the same values: this checks the formulas, the fans and the gains all at once.
SAME_DRAWS = [
    ("uniform_", (8, 5), {"a": -0.3, "b": 0.7}),
    ("normal_", (8, 5), {"mean": 1.0, "std": 0.5}),
    ("xavier_uniform_", (16, 8, 3, 3), {"gain": 2.0}),
    ("xavier_normal_", (16, 8, 3), {"gain": 0.5}),
    ("kaiming_uniform_", (16, 8, 3, 3), {"a": math.sqrt(5)}),
    ("kaiming_uniform_", (16, 8, 5), {"mode": "fan_out", "nonlinearity": "relu"}),
    ("kaiming_normal_", (16, 8, 2, 2, 2), {"a": 0.1, "mode": "fan_in"}),
    ("kaiming_normal_", (32, 8), {"mode": "fan_out", "nonlinearity": "tanh"}),
    ("orthogonal_", (6, 10), {"gain": 1.5}),
    ("orthogonal_", (10, 3, 2), {}),
    ("trunc_normal_", (40, 30), {"std": 0.02}),
    ("trunc_normal_", (500,), {"mean": 0.5, "std": 2.0, "a": -1.0, "b": 3.0}),
    ("trunc_normal_", (500,), {"mean": 2.0, "std": 1.0, "a": -1.0, "b": 0.5}),  # torch's other sampler
]


@pytest.mark.parametrize(("name", "shape", "kwargs"), SAME_DRAWS)
def test_initializer_draws_what_torch_draws_under_one_seed(name, shape, kwargs):
    expected = torch.empty(shape, dtype=torch.float64)
    torch.manual_seed(7)
    getattr(torch.nn.init, name)(expected, **kwargs)
    ours = mt.empty(*shape, dtype=torch.float64)
    mt.manual_seed(7)
    getattr(init, name)(ours, **kwargs)
    torch.testing.assert_close(ours.torch(), expected, rtol=1e-12, atol=1e-12)


def test_initializer_returns_the_tensor_it_was_given():
    w = mt.empty(3, 4)
    assert init.xavier_uniform_(w) is w
    assert init.zeros_(w) is w


def test_initializer_accepts_a_torch_tensor():
    w = torch.empty(3, 4)
    assert init.ones_(w) is w
    assert bool((w == 1).all())


def test_uniform_stays_within_its_exact_bounds():
    w = init.uniform_(mt.empty(200_000), -0.25, 0.5)
    data = w.torch()
    assert data.min() >= -0.25 and data.max() <= 0.5
    assert data.min() < -0.249 and data.max() > 0.499


def test_kaiming_uniform_bound_is_one_over_sqrt_fan_in_for_a_sqrt5():
    w = init.kaiming_uniform_(mt.empty(128, 32, 3, 3), a=math.sqrt(5))
    bound = 1 / math.sqrt(32 * 9)
    largest = w.torch().abs().max().item()
    assert largest <= bound and largest > 0.99 * bound


def test_kaiming_uniform_fan_out_uses_out_channels_times_kernel():
    w = init.kaiming_uniform_(mt.empty(64, 16, 5), mode="fan_out", nonlinearity="relu")
    bound = math.sqrt(2.0) * math.sqrt(3.0 / (64 * 5))
    largest = w.torch().abs().max().item()
    assert largest <= bound and largest > 0.99 * bound


def test_xavier_uniform_bound_uses_both_fans():
    w = init.xavier_uniform_(mt.empty(64, 32, 3, 3), gain=init.calculate_gain("relu"))
    bound = math.sqrt(2.0) * math.sqrt(6.0 / (32 * 9 + 64 * 9))
    largest = w.torch().abs().max().item()
    assert largest <= bound and largest > 0.99 * bound


@pytest.mark.parametrize(
    ("fill", "expected_std"),
    [
        (lambda w: init.normal_(w, 0.0, 0.02), 0.02),
        (lambda w: init.xavier_normal_(w), math.sqrt(2.0 / (250 + 4000))),
        (lambda w: init.kaiming_normal_(w, nonlinearity="relu"), math.sqrt(2.0 / 250)),
        (
            lambda w: init.kaiming_normal_(w, mode="fan_out", nonlinearity="relu"),
            math.sqrt(2.0 / 4000),
        ),
        (lambda w: init.kaiming_uniform_(w, nonlinearity="relu"), math.sqrt(2.0 / 250)),
    ],
)
def test_standard_deviation_matches_the_formula_on_a_large_tensor(fill, expected_std):
    # 1M samples: the std estimate's relative error is about 0.07%; 1.5% leaves a wide margin.
    w = fill(mt.empty(4000, 250, dtype=torch.float64))
    data = w.torch()
    assert abs(data.std().item() / expected_std - 1) < 0.015
    assert abs(data.mean().item()) < 0.01 * expected_std


def test_trunc_normal_stays_within_bounds_with_the_truncated_moments():
    mean, std, a, b = 0.5, 2.0, -1.0, 3.0
    w = init.trunc_normal_(mt.empty(300_000, dtype=torch.float64), mean, std, a, b).torch()
    assert w.min() >= a and w.max() <= b
    reference = torch.nn.init.trunc_normal_(torch.empty(300_000, dtype=torch.float64), mean, std, a, b)
    assert abs(w.mean().item() - reference.mean().item()) < 0.01
    assert abs(w.std().item() - reference.std().item()) < 0.01


def test_orthogonal_rows_are_orthonormal_when_wide():
    w = init.orthogonal_(mt.empty(20, 50, dtype=torch.float64), gain=2.0).torch()
    torch.testing.assert_close(w @ w.T, 4.0 * torch.eye(20, dtype=torch.float64))


def test_orthogonal_columns_are_orthonormal_when_tall_with_trailing_dims_flattened():
    w = init.orthogonal_(mt.empty(60, 4, 3, 2, dtype=torch.float64)).torch().reshape(60, 24)
    torch.testing.assert_close(w.T @ w, torch.eye(24, dtype=torch.float64))


def test_orthogonal_rejects_one_dimensional_tensors():
    with pytest.raises(ValueError, match="Only tensors with 2 or more dimensions are supported"):
        init.orthogonal_(mt.empty(5))


def test_eye_fills_the_identity():
    w = init.eye_(mt.empty(3, 5))
    assert torch.equal(w.torch(), torch.eye(3, 5))


def test_eye_rejects_non_matrices():
    with pytest.raises(ValueError, match="Only tensors with 2 dimensions are supported"):
        init.eye_(mt.empty(2, 2, 2))


def test_constant_ones_and_zeros_fill():
    w = mt.empty(2, 3)
    assert bool((init.constant_(w, 0.25).torch() == 0.25).all())
    assert bool((init.ones_(w).torch() == 1).all())
    assert bool((init.zeros_(w).torch() == 0).all())


@pytest.mark.parametrize(
    "fill",
    [init.xavier_uniform_, init.xavier_normal_, init.kaiming_uniform_, init.kaiming_normal_],
)
@pytest.mark.parametrize("shape", [(5,), ()])
def test_fans_are_undefined_below_two_dimensions(fill, shape):
    with pytest.raises(ValueError, match=FAN_MESSAGE):
        fill(mt.empty(shape))


def test_kaiming_rejects_an_unknown_mode():
    with pytest.raises(ValueError, match=r"Mode fan_avg not supported, please use one of \['fan_in', 'fan_out'\]"):
        init.kaiming_uniform_(mt.empty(3, 3), mode="fan_avg")


def test_kaiming_on_a_zero_element_tensor_warns_and_does_nothing():
    w = mt.empty(0, 3)
    with pytest.warns(UserWarning, match="Initializing zero-element tensors is a no-op"):
        assert init.kaiming_uniform_(w) is w


def test_initializing_a_parameter_records_no_graph():
    p = nn.Parameter(mt.empty(4, 3))
    version = p.torch()._version
    with mt.Graph() as g:
        init.kaiming_normal_(p)
        init.trunc_normal_(p, std=0.02)
        init.orthogonal_(p)
        init.eye_(p)
    assert g.num_nodes() == 0
    assert p.is_leaf and p.grad_fn is None and p.requires_grad
    assert p.torch()._version > version  # in place on the data, as torch's
