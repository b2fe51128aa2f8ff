"""pad, dropout and linear against torch.nn.functional in float64, gradcheck, error messages."""

from __future__ import annotations

import pytest
import torch
import torch.nn.functional as TF
from helpers import compare_with_torch

import minitorch_rx as mt
from minitorch_rx.ops.dropout import dropout
from minitorch_rx.ops.linear import linear
from minitorch_rx.ops.pad import pad

F64 = torch.float64

# (input shape, padding): 1, 2 and 3 padded dims, batched and unbatched, with crops (negative).
PAD_CASES = [
    ((2, 3, 5), (2, 1)),
    ((3, 5), (0, 3)),
    ((2, 3, 5), (-1, 2)),
    ((2, 3, 4, 5), (1, 2, 2, 1)),
    ((3, 4, 5), (1, 2, 0, 3)),
    ((2, 3, 4, 5), (1, 2, -1, 2)),
    ((2, 2, 3, 4, 5), (1, 1, 2, 0, 1, 2)),
    ((2, 3, 4, 5), (3, 4, 2, 2, 0, 0)),
]


@pytest.mark.parametrize("mode", ["constant", "reflect", "replicate", "circular"])
@pytest.mark.parametrize("shape, padding", PAD_CASES)
def test_pad_matches_torch(mode, shape, padding):
    x = torch.randn(shape, dtype=F64)
    compare_with_torch(lambda t: pad(t, padding, mode), lambda t: TF.pad(t, padding, mode), [x])


def test_pad_circular_by_the_whole_dim_matches_torch():
    compare_with_torch(
        lambda t: pad(t, (5, 5, 1, 3), "circular"),
        lambda t: TF.pad(t, (5, 5, 1, 3), "circular"),
        [torch.randn(2, 3, 5, dtype=F64)],
    )


@pytest.mark.parametrize("padding", [(1, 2, -1, 0, 2, 2, 1, 1), (-2, -1), (0, 0, 3, -3)])
def test_pad_constant_value_and_crops_match_torch(padding):
    compare_with_torch(
        lambda t: pad(t, padding, value=2.5),
        lambda t: TF.pad(t, padding, value=2.5),
        [torch.randn(2, 3, 4, 5, dtype=F64)],
    )


@pytest.mark.parametrize("mode", ["constant", "reflect", "replicate", "circular"])
def test_pad_gradcheck(mode):
    x = mt.tensor(torch.randn(1, 2, 3, 3, dtype=F64), requires_grad=True)
    assert mt.autograd.gradcheck(lambda t: pad(t, (2, 1, -1, 2), mode), [x])


@pytest.mark.parametrize(
    "shape, padding, mode, error, message",
    [
        ((2, 3), (1,), "constant", RuntimeError, "Padding length must be divisible by 2"),
        (
            (2, 3),
            (1, 1, 1, 1, 1, 1),
            "constant",
            RuntimeError,
            "Padding length should be less than or equal to two times",
        ),
        (
            (1, 1, 3),
            (3, 3),
            "reflect",
            RuntimeError,
            r"Padding size should be less than the corresponding input dimension",
        ),
        (
            (1, 1, 5),
            (6, 2),
            "circular",
            RuntimeError,
            "Padding value causes wrapping around more than once.",
        ),
        ((1, 1, 5), (1, 1), "wrap", NotImplementedError, "Unrecognised padding mode wrap"),
        (
            (1, 1, 5),
            (1, 1),
            "reflect",
            RuntimeError,
            'Padding mode "reflect" doesn\'t take in value argument',
        ),
    ],
)
def test_pad_invalid_arguments_raise_torch_errors(shape, padding, mode, error, message):
    value = 1.0 if "value argument" in message else 0.0
    with pytest.raises(error, match=message):
        pad(mt.randn(*shape), padding, mode, value)


# -------------------------------------------------------------------------------- dropout
@pytest.mark.parametrize("p", [0.1, 0.5, 0.9, 1.0])
def test_dropout_after_manual_seed_matches_torch(p):
    compare_with_torch(
        lambda t: (mt.manual_seed(7), dropout(t, p))[1],
        lambda t: (torch.manual_seed(7), TF.dropout(t, p))[1],
        [torch.randn(6, 7, dtype=F64)],
    )


def test_dropout_backward_uses_the_forward_mask():
    x = mt.ones(1000, dtype=F64, requires_grad=True)
    y = dropout(x, 0.25)
    y.backward(mt.ones(1000, dtype=F64))
    torch.testing.assert_close(x.grad.torch(), y.torch())
    kept = (y.torch() != 0).double().mean().item()
    assert 0.65 < kept < 0.85
    assert set(y.torch().unique().tolist()) <= {0.0, 1 / 0.75}


@pytest.mark.parametrize("p, training", [(0.5, False), (0.0, True)])
def test_dropout_is_identity_when_off(p, training):
    x = mt.randn(3, 4, requires_grad=True)
    assert dropout(x, p, training) is x


def test_dropout_gradcheck():
    x = mt.tensor(torch.randn(3, 4, dtype=F64), requires_grad=True)
    assert mt.autograd.gradcheck(lambda t: (mt.manual_seed(0), dropout(t, 0.4))[1], [x])


@pytest.mark.parametrize("p", [1.5, -0.1])
def test_dropout_probability_out_of_range_raises(p):
    with pytest.raises(ValueError, match=f"^dropout probability has to be between 0 and 1, but got {p}$"):
        dropout(mt.randn(3), p)


# --------------------------------------------------------------------------------- linear
@pytest.mark.parametrize("input_shape", [(5,), (3, 5), (2, 3, 5), (2, 1, 3, 5), (0, 5)])
@pytest.mark.parametrize("with_bias", [True, False])
def test_linear_matches_torch(input_shape, with_bias):
    inputs = [torch.randn(input_shape, dtype=F64), torch.randn(4, 5, dtype=F64)]
    if with_bias:
        inputs.append(torch.randn(4, dtype=F64))
    compare_with_torch(linear, TF.linear, inputs)


def test_linear_with_vector_weight_matches_torch():
    compare_with_torch(linear, TF.linear, [torch.randn(3, 5, dtype=F64), torch.randn(5, dtype=F64)])


def test_linear_is_one_recorded_op():
    x, weight, bias = (
        mt.randn(2, 3, 5),
        mt.randn(4, 5, requires_grad=True),
        mt.randn(4, requires_grad=True),
    )
    y = linear(x, weight, bias)
    assert type(y.grad_fn).__name__ == "LinearBackward0"
    assert all(type(n).__name__ == "AccumulateGrad" for n, _ in y.grad_fn.next_functions if n is not None)


def test_linear_gradcheck():
    x, weight, bias = (mt.tensor(torch.randn(s, dtype=F64), requires_grad=True) for s in [(2, 2, 3), (4, 3), (4,)])
    assert mt.autograd.gradcheck(linear, [x, weight, bias])


@pytest.mark.parametrize(
    "input_shape, message",
    [
        ((3, 4), r"mat1 and mat2 shapes cannot be multiplied \(3x4 and 5x6\)"),
        ((2, 3, 4), r"\(6x4 and 5x6\)"),
    ],
)
def test_linear_feature_mismatch_raises(input_shape, message):
    with pytest.raises(RuntimeError, match=message):
        linear(mt.randn(*input_shape), mt.randn(6, 5))


def test_linear_scalar_input_raises():
    with pytest.raises(
        RuntimeError,
        match="both arguments to linear need to be at least 1D, but they are 0D and 2D",
    ):
        linear(mt.tensor(1.0), mt.randn(6, 5))
