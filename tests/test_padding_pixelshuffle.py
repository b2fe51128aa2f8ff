"""Padding layers and pixel (un)shuffle, against torch in float64."""

from __future__ import annotations

import pytest
import torch
import torch.nn.functional as TF

import minitorch_rx as mt
import minitorch_rx.nn.functional as F
from tests.helpers import compare_with_torch
from tests.test_layers import _twins, assert_twins_agree

LAYERS = [
    (lambda lib: lib.ZeroPad1d(2), (2, 3, 4)),
    (lambda lib: lib.ZeroPad2d((1, 2, 0, 3)), (2, 3, 4, 4)),
    (lambda lib: lib.ZeroPad2d((-1, 2, 1, -2)), (3, 4, 4)),
    (lambda lib: lib.ZeroPad3d(1), (1, 2, 2, 3, 2)),
    (lambda lib: lib.ConstantPad1d((3, 1), 2.5), (3, 4)),
    (lambda lib: lib.ConstantPad2d(1, -1.0), (2, 3, 3, 2)),
    (lambda lib: lib.ConstantPad3d((1, 0, 0, 2, 1, 1), 0.5), (2, 2, 2, 3)),
    (lambda lib: lib.ReflectionPad1d((2, 3)), (2, 3, 5)),
    (lambda lib: lib.ReflectionPad2d(2), (2, 3, 4, 5)),
    (lambda lib: lib.ReflectionPad2d((1, 0, 2, 1)), (3, 4, 4)),
    (lambda lib: lib.ReflectionPad3d(1), (1, 2, 3, 3, 4)),
    (lambda lib: lib.ReplicationPad1d(3), (2, 3, 4)),
    (lambda lib: lib.ReplicationPad2d((0, 2, 3, 1)), (2, 3, 4, 5)),
    (lambda lib: lib.ReplicationPad3d((1, 2, 0, 1, 2, 0)), (2, 2, 3, 3)),
    (lambda lib: lib.CircularPad1d(2), (2, 3, 4)),
    (lambda lib: lib.CircularPad2d((1, 2, 2, 0)), (2, 3, 4, 5)),
    (lambda lib: lib.CircularPad3d(1), (1, 2, 3, 3, 4)),
    (lambda lib: lib.PixelShuffle(2), (2, 8, 3, 2)),
    (lambda lib: lib.PixelShuffle(3), (9, 2, 2)),
    (lambda lib: lib.PixelUnshuffle(2), (2, 3, 4, 6)),
    (lambda lib: lib.PixelUnshuffle(3), (2, 2, 2, 3, 6)),
]


@pytest.mark.parametrize(("factory", "shape"), LAYERS, ids=[repr(c[0](torch.nn)) for c in LAYERS])
def test_layer_matches_its_torch_twin(factory, shape):
    ours, theirs = _twins(factory)
    assert repr(ours) == repr(theirs)
    assert_twins_agree(ours, theirs, shape, training=True)


@pytest.mark.parametrize("r, shape", [(2, (3, 8, 2, 3)), (1, (2, 3, 2, 2)), (2, (1, 4, 1, 1))])
def test_pixel_shuffle_and_unshuffle_match_torch_and_undo_each_other(r, shape):
    x = torch.randn(shape, dtype=torch.float64)
    compare_with_torch(lambda t: F.pixel_shuffle(t, r), lambda t: TF.pixel_shuffle(t, r), [x])
    shuffled = TF.pixel_shuffle(x, r)
    compare_with_torch(lambda t: F.pixel_unshuffle(t, r), lambda t: TF.pixel_unshuffle(t, r), [shuffled])
    assert torch.equal(F.pixel_unshuffle(F.pixel_shuffle(mt.tensor(x), r), r).torch(), x)


def test_pixel_shuffle_passes_gradcheck():
    x = mt.randn(1, 4, 2, 3, dtype=torch.float64, requires_grad=True)
    assert mt.autograd.gradcheck(lambda t: F.pixel_unshuffle(F.pixel_shuffle(t, 2) * 2, 2), (x,))
