"""batch_norm and layer_norm against torch in float64, gradcheck, running statistics, errors."""

from __future__ import annotations

import pytest
import torch
import torch.nn.functional as TF
from helpers import compare_with_torch

import minitorch_rx as mt
from minitorch_rx.ops.norm import batch_norm, layer_norm

F64 = torch.float64
BATCH_NORM_SHAPES = [(4, 3), (2, 3, 5), (2, 3, 4, 5), (2, 3, 2, 3, 4), (1, 3, 2)]


def _running_stats() -> tuple[torch.Tensor, torch.Tensor]:
    return torch.randn(3, dtype=F64), torch.rand(3, dtype=F64) + 0.5


@pytest.mark.parametrize("shape", BATCH_NORM_SHAPES)
@pytest.mark.parametrize("training", [True, False])
@pytest.mark.parametrize("affine", [True, False])
def test_batch_norm_matches_torch(shape, training, affine):
    running_mean, running_var = _running_stats()
    ours = (mt.tensor(running_mean), mt.tensor(running_var))
    theirs = (running_mean.clone(), running_var.clone())
    inputs = [torch.randn(shape, dtype=F64)]
    if affine:
        inputs += [torch.randn(3, dtype=F64), torch.randn(3, dtype=F64)]
    compare_with_torch(
        lambda x, *wb: batch_norm(x, *ours, *wb, training=training, momentum=0.3, eps=1e-3),
        lambda x, *wb: TF.batch_norm(x, *theirs, *wb, training=training, momentum=0.3, eps=1e-3),
        inputs,
    )


@pytest.mark.parametrize("shape", BATCH_NORM_SHAPES)
def test_batch_norm_training_updates_running_statistics_as_torch(shape):
    running_mean, running_var = _running_stats()
    mean, var = mt.tensor(running_mean), mt.tensor(running_var)
    x = torch.randn(shape, dtype=F64)
    batch_norm(mt.tensor(x), mean, var, training=True, momentum=0.2)
    TF.batch_norm(x, running_mean, running_var, training=True, momentum=0.2)
    torch.testing.assert_close(mean.torch(), running_mean)
    torch.testing.assert_close(var.torch(), running_var)


def test_batch_norm_running_var_takes_the_unbiased_batch_variance():
    mean, var = mt.zeros(2, dtype=F64), mt.ones(2, dtype=F64)
    x = torch.tensor([[0.0, 1.0], [2.0, 5.0], [4.0, 9.0]], dtype=F64)
    batch_norm(mt.tensor(x), mean, var, training=True, momentum=0.5)
    torch.testing.assert_close(mean.torch(), 0.5 * x.mean(0))
    torch.testing.assert_close(var.torch(), 0.5 + 0.5 * x.var(0, unbiased=True))


def test_batch_norm_evaluation_leaves_running_statistics_unchanged():
    mean, var = mt.zeros(3), mt.ones(3)
    batch_norm(mt.randn(4, 3), mean, var, training=False)
    assert mean.tolist() == [0.0] * 3 and var.tolist() == [1.0] * 3


def test_batch_norm_training_without_running_statistics_matches_torch():
    compare_with_torch(
        lambda x, w, b: batch_norm(x, None, None, w, b, training=True),
        lambda x, w, b: TF.batch_norm(x, None, None, w, b, training=True),
        [torch.randn(4, 3, 5, dtype=F64), torch.randn(3, dtype=F64), torch.randn(3, dtype=F64)],
    )


@pytest.mark.parametrize("training", [True, False])
def test_batch_norm_gradcheck(training):
    x = mt.tensor(torch.randn(3, 2, 2, dtype=F64), requires_grad=True)
    weight = mt.tensor(torch.randn(2, dtype=F64), requires_grad=True)
    bias = mt.tensor(torch.randn(2, dtype=F64), requires_grad=True)
    # Evaluation reads fixed statistics; training's would drift between gradcheck's calls.
    mean, var = (
        (None, None) if training else (mt.tensor(torch.randn(2, dtype=F64)), mt.tensor(torch.rand(2, dtype=F64) + 0.5))
    )
    assert mt.autograd.gradcheck(lambda *a: batch_norm(a[0], mean, var, *a[1:], training=training), [x, weight, bias])


def test_batch_norm_one_value_per_channel_in_training_raises():
    with pytest.raises(
        ValueError,
        match=r"^Expected more than 1 value per channel when training, "
        r"got input size torch.Size\(\[1, 3\]\)$",
    ):
        batch_norm(mt.randn(1, 3), mt.zeros(3), mt.ones(3), training=True)


def test_batch_norm_evaluation_without_running_statistics_raises():
    with pytest.raises(RuntimeError, match="running_mean must be defined in evaluation mode"):
        batch_norm(mt.randn(4, 3), None, None, training=False)


def test_batch_norm_running_statistics_of_wrong_size_raise():
    with pytest.raises(RuntimeError, match="running_mean should contain 3 elements not 4"):
        batch_norm(mt.randn(4, 3), mt.zeros(4), mt.ones(4), training=True)


@pytest.mark.parametrize(
    "shape, normalized_shape",
    [
        ((4, 3), (3,)),
        ((2, 3, 5), (3, 5)),
        ((2, 3, 4, 5), (5,)),
        ((2, 3, 4, 5), (3, 4, 5)),
        ((6,), 6),
    ],
)
@pytest.mark.parametrize("affine", ["both", "weight", "none"])
def test_layer_norm_matches_torch(shape, normalized_shape, affine):
    param_shape = (normalized_shape,) if isinstance(normalized_shape, int) else normalized_shape
    params = {"both": 2, "weight": 1, "none": 0}[affine]
    inputs = [torch.randn(shape, dtype=F64)] + [torch.randn(param_shape, dtype=F64) for _ in range(params)]
    compare_with_torch(
        lambda x, *wb: layer_norm(x, normalized_shape, *wb, eps=1e-3),
        lambda x, *wb: TF.layer_norm(x, param_shape, *wb, eps=1e-3),
        inputs,
    )


def test_layer_norm_gradcheck():
    x, weight, bias = (mt.tensor(torch.randn(s, dtype=F64), requires_grad=True) for s in [(2, 2, 3), (2, 3), (2, 3)])
    assert mt.autograd.gradcheck(lambda *a: layer_norm(a[0], (2, 3), *a[1:]), [x, weight, bias])


def test_layer_norm_shape_mismatch_raises():
    with pytest.raises(
        RuntimeError,
        match=r"Given normalized_shape=\[5\], expected input with shape \[\*, 5\], "
        r"but got input of size\[3, 4\]",
    ):
        layer_norm(mt.randn(3, 4), (5,))


def test_norms_without_grad_record_nothing():
    x = mt.randn(4, 3)
    assert batch_norm(x, None, None, training=True).grad_fn is None
    assert layer_norm(x, 3).grad_fn is None


def test_batch_norm_of_an_empty_batch_matches_torch():
    compare_with_torch(
        lambda x, w, b: batch_norm(x, None, None, w, b, training=True),
        lambda x, w, b: TF.batch_norm(x, None, None, w, b, training=True),
        [torch.randn(0, 3, 4, dtype=F64), torch.randn(3, dtype=F64), torch.randn(3, dtype=F64)],
    )
