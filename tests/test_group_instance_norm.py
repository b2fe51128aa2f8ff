"""GroupNorm, InstanceNorm1d/2d/3d and LocalResponseNorm (layers and F.*), against torch in float64."""

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
    "shape, groups",
    [((2, 6, 5), 3), ((3, 4, 2, 3), 1), ((2, 4, 3, 3), 4), ((2, 6), 2), ((1, 4, 2, 2, 3), 2), ((0, 4, 3), 2)],
)
def test_group_norm_matches_torch(shape, groups):
    c = shape[1]
    tensors = [randn(*shape), randn(c, seed=1), randn(c, seed=2)]
    compare_with_torch(
        lambda x, w, b: F.group_norm(x, groups, w, b), lambda x, w, b: TF.group_norm(x, groups, w, b), tensors
    )
    compare_with_torch(
        lambda x: F.group_norm(x, groups, eps=0.1), lambda x: TF.group_norm(x, groups, eps=0.1), tensors[:1]
    )


@pytest.mark.parametrize("shape", [(2, 3, 5), (3, 2, 4, 3), (2, 2, 2, 3, 2)])
def test_instance_norm_matches_torch_and_updates_running_stats_as_torch(shape):
    c = shape[1]
    tensors = [randn(*shape), randn(c, seed=1), randn(c, seed=2)]
    ours_stats = [mt.zeros(c, dtype=torch.float64), mt.ones(c, dtype=torch.float64)]
    their_stats = [torch.zeros(c, dtype=torch.float64), torch.ones(c, dtype=torch.float64)]
    compare_with_torch(
        lambda x, w, b: F.instance_norm(x, *ours_stats, w, b, momentum=0.3),
        lambda x, w, b: TF.instance_norm(x, *their_stats, w, b, momentum=0.3),
        tensors,
    )
    for ours, theirs in zip(ours_stats, their_stats, strict=True):
        torch.testing.assert_close(ours.torch(), theirs)
    compare_with_torch(
        lambda x, w, b: F.instance_norm(x, *ours_stats, w, b, use_input_stats=False),
        lambda x, w, b: TF.instance_norm(x, *their_stats, w, b, use_input_stats=False),
        tensors,
    )


@pytest.mark.parametrize("shape, size", [((2, 5, 4), 3), ((2, 6, 3, 3), 2), ((1, 4, 2, 3, 2), 5)])
def test_local_response_norm_matches_torch(shape, size):
    compare_with_torch(
        lambda x: F.local_response_norm(x, size, alpha=0.5, beta=0.6, k=2.0),
        lambda x: TF.local_response_norm(x, size, alpha=0.5, beta=0.6, k=2.0),
        [randn(*shape)],
    )


def test_composed_norms_pass_gradcheck():
    x = mt.tensor(randn(2, 4, 3), requires_grad=True)
    w, b = (mt.tensor(randn(4, seed=s), requires_grad=True) for s in (1, 2))
    assert mt.autograd.gradcheck(lambda x, w, b: F.group_norm(x, 2, w, b), (x, w, b))
    assert mt.autograd.gradcheck(lambda x, w, b: F.instance_norm(x, weight=w, bias=b), (x, w, b))
    assert mt.autograd.gradcheck(lambda x: F.local_response_norm(x, 3, alpha=0.3), (x,))


LAYERS = [
    (lambda lib: lib.GroupNorm(2, 6), (3, 6, 4)),
    (lambda lib: lib.GroupNorm(3, 6, eps=1e-3, affine=False), (2, 6, 3, 3)),
    (lambda lib: lib.GroupNorm(1, 4, bias=False), (2, 4, 2, 2, 2)),
    (lambda lib: lib.InstanceNorm1d(3), (2, 3, 5)),
    (lambda lib: lib.InstanceNorm1d(3, affine=True, track_running_stats=True), (2, 3, 5)),
    (lambda lib: lib.InstanceNorm2d(3, momentum=0.4, track_running_stats=True), (2, 3, 4, 4)),
    (lambda lib: lib.InstanceNorm2d(3, affine=True), (3, 4, 5)),
    (
        lambda lib: lib.InstanceNorm3d(2, affine=True, bias=False, momentum=None, track_running_stats=True),
        (2, 2, 3, 2, 3),
    ),
    (lambda lib: lib.LocalResponseNorm(3, alpha=0.1, beta=0.5, k=2.0), (2, 5, 3, 3)),
]


@pytest.mark.parametrize("training", [True, False], ids=["train", "eval"])
@pytest.mark.parametrize(("factory", "shape"), LAYERS)
def test_norm_layer_matches_its_torch_twin(factory, shape, training):
    ours, theirs = _twins(factory)
    assert repr(ours) == repr(theirs)
    assert [(k, v.shape) for k, v in ours.state_dict().items()] == [
        (k, v.shape) for k, v in theirs.state_dict().items()
    ]
    with torch.no_grad():
        for p in theirs.parameters():  # not the default ones and zeros, so the affine step shows
            p.add_(torch.randn(p.shape, dtype=p.dtype, generator=torch.Generator().manual_seed(5)))
    ours.load_state_dict(theirs.state_dict())
    assert_twins_agree(ours, theirs, shape, training)


def test_instance_norm_warns_as_torch_when_channels_differ_without_affine():
    with pytest.warns(UserWarning, match="does not match num_features"):
        nn.InstanceNorm1d(3)(mt.randn(2, 4, 5))


@pytest.mark.parametrize("affine", [True, False])
def test_group_norm_gradients_for_create_graph_match_torchs_first_and_second_derivatives(affine):
    """The recorded-op gradients used under create_graph: their values are torch's gradients, and
    their own gradients (in x, weight and the output gradient) are torch's second derivatives."""
    from minitorch_rx.ops.norm import _group_norm_gradients

    x, w, g = randn(2, 4, 3), randn(4, seed=1), randn(2, 4, 3, seed=2)
    weights = [randn(2, 4, 3, seed=3), randn(4, seed=4), randn(4, seed=5)]

    def theirs(x, w, g):
        y = TF.group_norm(x, 2, w if affine else None, eps=1e-3)
        grads = torch.autograd.grad(y, [x, w] if affine else [x], g, create_graph=True)
        return (grads[0], grads[1] if affine else None, g.sum((0, 2)))

    def ours(x, w, g):
        return _group_norm_gradients(g, x, w if affine else None, 2, 1e-3)

    def contract(grads):
        return sum((d * v).sum() for d, v in zip(grads, weights, strict=True) if d is not None)

    torch_inputs = [t.clone().requires_grad_(True) for t in (x, w, g)]
    expected = theirs(*torch_inputs)
    second_expected = torch.autograd.grad(contract(expected), torch_inputs, allow_unused=True)
    mt_inputs = [mt.tensor(t, requires_grad=True) for t in (x, w, g)]
    got = ours(*mt_inputs)
    for a, b in zip(got, expected, strict=True):
        assert (a is None) == (b is None)
        if a is not None:
            torch.testing.assert_close(a.torch(), b.detach())
    second = mt.autograd.grad(contract(got), mt_inputs, allow_unused=True)
    for a, b in zip(second, second_expected, strict=True):
        if b is None:
            assert a is None or not a.torch().any()
        else:
            torch.testing.assert_close(a.torch(), b)
