"""Losses against torch.nn.functional in float64, gradcheck, stability at +-1e4, error messages."""

from __future__ import annotations

import pytest
import torch
import torch.nn.functional as TF
from helpers import compare_with_torch

import minitorch_rx as mt
from minitorch_rx.ops.loss import (
    binary_cross_entropy_with_logits,
    cross_entropy,
    l1_loss,
    mse_loss,
    nll_loss,
)

F64 = torch.float64
REDUCTIONS = ["none", "mean", "sum"]
# (input shape, target shape) for class-index targets: unbatched, batched, and 1..3 extra dims.
CLASS_SHAPES = [
    ((5,), ()),
    ((4, 5), (4,)),
    ((3, 5, 4), (3, 4)),
    ((2, 5, 3, 2), (2, 3, 2)),
    ((2, 5, 2, 2, 3), (2, 2, 2, 3)),
]


def _targets(shape: tuple, classes: int, ignore_index: int, seed: int = 0) -> torch.Tensor:
    """Class indices, with ``ignore_index`` placed in some entries when it is a class."""
    generator = torch.Generator().manual_seed(seed)
    target = torch.randint(0, classes, shape, generator=generator)
    if ignore_index >= 0 and target.numel() > 1:
        target.view(-1)[::3] = ignore_index
    return target


def _probabilities(shape: tuple, class_dim: int) -> torch.Tensor:
    return torch.randn(shape, dtype=F64).softmax(class_dim)


@pytest.mark.parametrize("shapes", CLASS_SHAPES)
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("label_smoothing", [0.0, 0.2])
@pytest.mark.parametrize("ignore_index", [-100, 2])
def test_cross_entropy_class_indices_match_torch(shapes, reduction, weighted, label_smoothing, ignore_index):
    input_shape, target_shape = shapes
    target = _targets(target_shape, 5, ignore_index)
    weight = torch.rand(5, dtype=F64) + 0.5 if weighted else None
    options = dict(ignore_index=ignore_index, reduction=reduction, label_smoothing=label_smoothing)
    compare_with_torch(
        lambda x, t: cross_entropy(x, t, None if weight is None else mt.tensor(weight), **options),
        lambda x, t: TF.cross_entropy(x, t, weight, **options),
        [torch.randn(input_shape, dtype=F64), target],
    )


@pytest.mark.parametrize("input_shape", [(5,), (4, 5), (3, 5, 4), (2, 5, 3, 2)])
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("label_smoothing", [0.0, 0.3])
def test_cross_entropy_probabilities_match_torch_in_input_target_and_weight(
    input_shape, reduction, weighted, label_smoothing
):
    class_dim = 0 if len(input_shape) == 1 else 1
    inputs = [torch.randn(input_shape, dtype=F64), _probabilities(input_shape, class_dim)]
    if weighted:
        inputs.append(torch.rand(5, dtype=F64) + 0.5)
    compare_with_torch(
        lambda *a: cross_entropy(*a, reduction=reduction, label_smoothing=label_smoothing),
        lambda *a: TF.cross_entropy(*a, reduction=reduction, label_smoothing=label_smoothing),
        inputs,
    )


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_cross_entropy_with_every_target_ignored_matches_torch(reduction):
    target = torch.full((3,), -100)
    compare_with_torch(
        lambda x, t: cross_entropy(x, t, reduction=reduction, label_smoothing=0.1),
        lambda x, t: TF.cross_entropy(x, t, reduction=reduction, label_smoothing=0.1),
        [torch.randn(3, 4, dtype=F64), target],
    )


@pytest.mark.parametrize("shapes", CLASS_SHAPES)
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("ignore_index", [-100, 1])
def test_nll_loss_matches_torch(shapes, reduction, weighted, ignore_index):
    input_shape, target_shape = shapes
    target = _targets(target_shape, 5, ignore_index, seed=1)
    weight = torch.rand(5, dtype=F64) + 0.5 if weighted else None
    class_dim = 0 if len(input_shape) == 1 else 1
    compare_with_torch(
        lambda x, t: nll_loss(x, t, None if weight is None else mt.tensor(weight), ignore_index, reduction),
        lambda x, t: TF.nll_loss(x, t, weight, ignore_index=ignore_index, reduction=reduction),
        [torch.randn(input_shape, dtype=F64).log_softmax(class_dim), target],
    )


@pytest.mark.parametrize("loss", ["mse_loss", "l1_loss"])
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("shape", [(), (7,), (3, 4), (2, 3, 4)])
def test_regression_losses_match_torch_in_input_and_target(loss, reduction, shape):
    ours = {"mse_loss": mse_loss, "l1_loss": l1_loss}[loss]
    compare_with_torch(
        lambda x, t: ours(x, t, reduction),
        lambda x, t: getattr(TF, loss)(x, t, reduction=reduction),
        [torch.randn(shape, dtype=F64), torch.randn(shape, dtype=F64)],
    )


@pytest.mark.parametrize("loss", ["mse_loss", "l1_loss"])
@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_regression_losses_broadcast_target_with_torch_warning(loss, reduction):
    ours = {"mse_loss": mse_loss, "l1_loss": l1_loss}[loss]
    with pytest.warns(UserWarning, match="Using a target size"):
        compare_with_torch(
            lambda x, t: ours(x, t, reduction),
            lambda x, t: getattr(TF, loss)(x, t, reduction=reduction),
            [torch.randn(3, 4, dtype=F64), torch.randn(1, 4, dtype=F64)],
        )


def test_l1_loss_gradient_is_zero_where_input_equals_target():
    x = mt.tensor([1.0, 2.0, 3.0], dtype=F64, requires_grad=True)
    l1_loss(x, mt.tensor([1.0, 0.0, 5.0], dtype=F64), "sum").backward()
    assert x.grad.tolist() == [0.0, 1.0, -1.0]


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("weight_shape", [None, (3, 4), (4,)])
@pytest.mark.parametrize("pos_weight_shape", [None, (4,), (3, 4)])
def test_bce_with_logits_matches_torch_in_input_and_target(reduction, weight_shape, pos_weight_shape):
    weight = None if weight_shape is None else torch.rand(weight_shape, dtype=F64) + 0.5
    pos_weight = None if pos_weight_shape is None else torch.rand(pos_weight_shape, dtype=F64) * 3
    compare_with_torch(
        lambda x, t: binary_cross_entropy_with_logits(
            x,
            t,
            None if weight is None else mt.tensor(weight),
            reduction,
            None if pos_weight is None else mt.tensor(pos_weight),
        ),
        lambda x, t: TF.binary_cross_entropy_with_logits(x, t, weight, reduction=reduction, pos_weight=pos_weight),
        [torch.randn(3, 4, dtype=F64) * 3, torch.rand(3, 4, dtype=F64)],
    )


# ------------------------------------------------------------------------------ gradcheck
def _leaf(t: torch.Tensor) -> mt.Tensor:
    return mt.tensor(t, requires_grad=True)


@pytest.mark.parametrize("label_smoothing", [0.0, 0.25])
def test_cross_entropy_class_indices_gradcheck(label_smoothing):
    target = mt.tensor([[0, 2], [1, 2]])
    weight = mt.tensor([0.5, 1.0, 2.0], dtype=F64)
    x = _leaf(torch.randn(2, 3, 2, dtype=F64))
    assert mt.autograd.gradcheck(lambda x: cross_entropy(x, target, weight, label_smoothing=label_smoothing), [x])


def test_cross_entropy_probabilities_gradcheck_in_input_target_and_weight():
    x, target, weight = (
        _leaf(torch.randn(3, 4, dtype=F64)),
        _leaf(torch.rand(3, 4, dtype=F64)),
        _leaf(torch.rand(4, dtype=F64)),
    )
    assert mt.autograd.gradcheck(
        lambda *a: cross_entropy(*a, reduction="sum", label_smoothing=0.1), [x, target, weight]
    )


def test_nll_loss_gradcheck():
    x = _leaf(torch.randn(2, 3, 2, dtype=F64))
    target = mt.tensor([[0, 1], [2, -100]])
    assert mt.autograd.gradcheck(lambda x: nll_loss(x, target, reduction="none"), [x])


@pytest.mark.parametrize("loss", [mse_loss, l1_loss])
def test_regression_losses_gradcheck(loss):
    x, target = _leaf(torch.randn(3, 2, dtype=F64)), _leaf(torch.randn(3, 2, dtype=F64))
    assert mt.autograd.gradcheck(lambda x, t: loss(x, t, "none"), [x, target])


def test_bce_with_logits_gradcheck_with_weights():
    x, target = _leaf(torch.randn(2, 3, dtype=F64)), _leaf(torch.rand(2, 3, dtype=F64))
    weight, pos_weight = (
        mt.tensor(torch.rand(3, dtype=F64)),
        mt.tensor(torch.rand(3, dtype=F64) * 2),
    )
    assert mt.autograd.gradcheck(
        lambda x, t: binary_cross_entropy_with_logits(x, t, weight, "none", pos_weight), [x, target]
    )


# ------------------------------------------------------------------------------ stability
LARGE_LOGITS = [[1e4, -1e4, 0.0], [-1e4, 1e4, 1e4]]


@pytest.mark.parametrize("dtype", [torch.float32, F64])
def test_cross_entropy_is_finite_for_logits_of_1e4(dtype):
    x = mt.tensor(LARGE_LOGITS, dtype=dtype, requires_grad=True)
    loss = cross_entropy(x, mt.tensor([1, 0]), label_smoothing=0.1)
    loss.backward()
    expected = TF.cross_entropy(torch.tensor(LARGE_LOGITS, dtype=dtype), torch.tensor([1, 0]), label_smoothing=0.1)
    assert torch.isfinite(loss.torch()) and torch.isfinite(x.grad.torch()).all()
    torch.testing.assert_close(loss.torch(), expected)


def test_cross_entropy_with_probabilities_is_finite_for_logits_of_1e4():
    x = mt.tensor(LARGE_LOGITS, requires_grad=True)
    target = mt.tensor([[0.0, 0.5, 0.5], [1.0, 0.0, 0.0]], requires_grad=True)
    cross_entropy(x, target).backward()
    assert torch.isfinite(x.grad.torch()).all() and torch.isfinite(target.grad.torch()).all()


@pytest.mark.parametrize("pos_weight", [None, [2.0, 0.5, 1.0]])
def test_bce_with_logits_is_finite_for_logits_of_1e4(pos_weight):
    logits = LARGE_LOGITS
    targets = [[0.0, 1.0, 0.5], [1.0, 0.0, 1.0]]
    pos = None if pos_weight is None else mt.tensor(pos_weight)
    x, target = mt.tensor(logits, requires_grad=True), mt.tensor(targets, requires_grad=True)
    loss = binary_cross_entropy_with_logits(x, target, pos_weight=pos, reduction="sum")
    loss.backward()
    expected = TF.binary_cross_entropy_with_logits(
        torch.tensor(logits),
        torch.tensor(targets),
        reduction="sum",
        pos_weight=None if pos_weight is None else torch.tensor(pos_weight),
    )
    assert torch.isfinite(x.grad.torch()).all() and torch.isfinite(target.grad.torch()).all()
    torch.testing.assert_close(loss.torch(), expected)


# ------------------------------------------------------------------------------ errors
@pytest.mark.parametrize(
    "input_shape, target",
    [((3, 5), [1, 7, 2]), ((5,), 7), ((1, 5, 3), [[0, 7, 1]]), ((1, 5, 1, 2), [[[7, 0]]])],
)
@pytest.mark.parametrize("loss", [cross_entropy, nll_loss])
def test_target_class_out_of_range_raises(loss, input_shape, target):
    with pytest.raises(IndexError, match="^Target 7 is out of bounds.$"):
        loss(mt.randn(*input_shape), mt.tensor(target))


def test_ignored_target_may_be_out_of_range():
    loss = cross_entropy(mt.randn(2, 5), mt.tensor([7, 1]), ignore_index=7)
    assert torch.isfinite(loss.torch())


@pytest.mark.parametrize(
    "input_shape, target_shape, error, message",
    [
        (
            (3, 5),
            (2,),
            ValueError,
            r"Expected input batch_size \(3\) to match target batch_size \(2\)\.",
        ),
        ((2, 5, 4), (2, 3), RuntimeError, r"Expected target size \[2, 4\], got \[2, 3\]"),
        (
            (2, 5),
            (2, 3),
            RuntimeError,
            "0D or 1D target tensor expected, multi-target not supported",
        ),
    ],
)
@pytest.mark.parametrize("loss", [cross_entropy, nll_loss])
def test_class_target_of_wrong_shape_raises(loss, input_shape, target_shape, error, message):
    with pytest.raises(error, match=message):
        loss(mt.randn(*input_shape), mt.zeros(*target_shape, dtype=mt.int64))


def test_cross_entropy_integer_target_of_input_shape_raises():
    with pytest.raises(
        RuntimeError,
        match="Expected floating point type for target with class probabilities, got Long",
    ):
        cross_entropy(mt.randn(3, 5), mt.zeros(3, 5, dtype=mt.int64))


def test_cross_entropy_probabilities_with_ignore_index_raises():
    with pytest.raises(RuntimeError, match="ignore_index is not supported for floating point target"):
        cross_entropy(mt.randn(3, 5), mt.rand(3, 5), ignore_index=1)


@pytest.mark.parametrize("target", [mt.tensor([1, 2, 2]), mt.rand(3, 5)])
def test_cross_entropy_weight_of_wrong_size_raises(target):
    with pytest.raises(RuntimeError, match=r"weight tensor should be defined either for all 5 classes"):
        cross_entropy(mt.randn(3, 5), target, weight=mt.ones(4))


def test_cross_entropy_label_smoothing_out_of_range_raises():
    with pytest.raises(RuntimeError, match=r"label_smoothing must be between 0.0 and 1.0. Got: 1.5"):
        cross_entropy(mt.randn(3, 5), mt.tensor([1, 2, 2]), label_smoothing=1.5)


@pytest.mark.parametrize(
    "call",
    [
        lambda: cross_entropy(mt.randn(3, 5), mt.tensor([1, 2, 2]), reduction="average"),
        lambda: nll_loss(mt.randn(3, 5), mt.tensor([1, 2, 2]), reduction="average"),
        lambda: mse_loss(mt.randn(3), mt.randn(3), "average"),
        lambda: l1_loss(mt.randn(3), mt.randn(3), "average"),
        lambda: binary_cross_entropy_with_logits(mt.randn(3), mt.rand(3), reduction="average"),
    ],
)
def test_unknown_reduction_raises(call):
    with pytest.raises(ValueError, match="average is not a valid value for reduction"):
        call()


@pytest.mark.parametrize("loss", [mse_loss, l1_loss])
def test_regression_loss_target_that_does_not_broadcast_raises(loss):
    with pytest.warns(UserWarning, match="Using a target size"):
        with pytest.raises(RuntimeError, match=r"The size of tensor a \(5\) must match the size of tensor b \(4\)"):
            loss(mt.randn(3, 5), mt.randn(3, 4))


def test_bce_with_logits_target_of_other_shape_raises():
    with pytest.raises(ValueError, match=r"Target size \(torch.Size\(\[3, 4\]\)\) must be the same as input size"):
        binary_cross_entropy_with_logits(mt.randn(3, 5), mt.rand(3, 4))


@pytest.mark.parametrize(
    "call, function",
    [
        (
            lambda w: cross_entropy(mt.randn(3, 5), mt.tensor([1, 2, 2]), weight=w),
            "nll_loss_forward",
        ),
        (lambda w: nll_loss(mt.randn(3, 5), mt.tensor([1, 2, 2]), weight=w), "nll_loss_forward"),
        (
            lambda w: binary_cross_entropy_with_logits(mt.randn(3, 5), mt.rand(3, 5), weight=w),
            "binary_cross_entropy_with_logits",
        ),
    ],
)
def test_weight_that_requires_grad_raises_as_in_torch(call, function):
    with pytest.raises(
        RuntimeError,
        match=f"The function '{function}' is not differentiable with respect to argument 'weight'",
    ):
        call(mt.ones(5, requires_grad=True))
