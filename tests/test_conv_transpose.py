"""Transposed convolution by col2im (1-D, 2-D, 3-D) and its layers, against torch in float64."""

from __future__ import annotations

import pytest
import torch
import torch.nn.functional as TF
from hypothesis import given
from hypothesis import strategies as st

import minitorch_rx as mt
import minitorch_rx.nn as nn
import minitorch_rx.nn.functional as F
from minitorch_rx.ops import correlation
from tests.helpers import compare_with_torch
from tests.strategies import FUZZ
from tests.test_layers import _twins, assert_twins_agree

MT = {1: F.conv_transpose1d, 2: F.conv_transpose2d, 3: F.conv_transpose3d}
TORCH = {1: TF.conv_transpose1d, 2: TF.conv_transpose2d, 3: TF.conv_transpose3d}


def randn(*shape: int, seed: int = 0) -> torch.Tensor:
    return torch.randn(shape, dtype=torch.float64, generator=torch.Generator().manual_seed(seed))


def inputs(nd, batch, c_in, c_out, size, kernel, groups=1, bias=True, seed=0):
    kernel = (kernel,) * nd if isinstance(kernel, int) else kernel
    x = randn(*((c_in, *size) if batch is None else (batch, c_in, *size)), seed=seed)
    w = randn(c_in, c_out // groups, *kernel, seed=seed + 1)
    return [x, w, randn(c_out, seed=seed + 2)] if bias else [x, w]


def compare(nd, tensors, **kwargs):
    def run(fn):
        return lambda x, w, b=None: fn(x, w, b, **kwargs)

    compare_with_torch(run(MT[nd]), run(TORCH[nd]), tensors)


CASES = [
    # nd, batch, C_in, C_out, size, kernel, kwargs
    (1, 2, 3, 4, (5,), 3, {}),
    (1, 2, 4, 6, (6,), 4, {"stride": 2, "padding": 1, "output_padding": 1}),
    (1, 1, 4, 4, (5,), 3, {"groups": 4, "dilation": 2, "stride": 3, "output_padding": 2}),
    (2, 2, 3, 4, (4, 5), 3, {}),
    (2, 2, 4, 6, (3, 4), (3, 2), {"stride": (2, 3), "padding": (1, 0), "output_padding": (1, 2)}),
    (2, 1, 6, 4, (4, 4), 3, {"groups": 2, "dilation": (2, 1), "padding": 2}),
    (2, 2, 2, 3, (3, 3), 4, {"stride": 2, "padding": 1}),  # DCGAN's up-sampling layer
    (2, 2, 3, 2, (4, 3), 3, {"stride": 1, "output_padding": 1, "dilation": 2}),  # output_padding >= stride
    (3, 2, 2, 3, (3, 4, 2), 3, {}),
    (3, 1, 4, 2, (2, 3, 3), (2, 3, 2), {"stride": (2, 1, 3), "padding": (0, 1, 1), "output_padding": (1, 0, 2)}),
    (3, 2, 4, 4, (3, 3, 3), 2, {"groups": 2, "dilation": 2}),
]


@pytest.mark.parametrize("nd, batch, c_in, c_out, size, kernel, kwargs", CASES)
def test_conv_transpose_matches_torch(nd, batch, c_in, c_out, size, kernel, kwargs):
    compare(nd, inputs(nd, batch, c_in, c_out, size, kernel, kwargs.get("groups", 1)), **kwargs)


@pytest.mark.parametrize("nd", [1, 2, 3])
def test_unbatched_conv_transpose_without_bias_matches_torch(nd):
    compare(nd, inputs(nd, None, 2, 3, (3,) * nd, 2, bias=False), stride=2)


@pytest.mark.parametrize("nd", [1, 2, 3])
def test_conv_transpose_of_an_empty_batch_matches_torch(nd):
    compare(nd, inputs(nd, 0, 2, 3, (3,) * nd, 2), stride=2)


@pytest.mark.parametrize("nd, groups", [(1, 1), (2, 1), (2, 2), (3, 1)])
def test_conv_transpose_over_several_batch_slices_matches_torch(monkeypatch, nd, groups):
    monkeypatch.setattr(correlation, "CHUNK_ELEMENTS", 64)  # a slice of one or two samples
    kwargs = {"stride": 2, "padding": 1, "output_padding": 1, "groups": groups}
    compare(nd, inputs(nd, 5, 4, 6, (4,) * nd, 3, groups), **kwargs)


def test_row_shifted_and_channels_last_columns_give_the_same_gradients(monkeypatch):
    """The input gradient is a correlation: through each column layout it must match torch."""
    monkeypatch.setattr(correlation, "ROW_SHIFT_FROM", 1)
    compare(2, inputs(2, 2, 3, 4, (5, 6), 3), padding=1)
    monkeypatch.setattr(correlation, "ROW_SHIFT_FROM", 10**9)
    monkeypatch.setattr(correlation, "CHANNELS_LAST_FROM", 1)
    compare(2, inputs(2, 2, 3, 20, (3, 3), 3), padding=1)


@st.composite
def configs(draw):
    nd = draw(st.integers(1, 3))
    groups = draw(st.sampled_from([1, 2]))
    c_in, c_out = groups * draw(st.integers(1, 2)), groups * draw(st.integers(1, 2))
    kernel = tuple(draw(st.integers(1, 3)) for _ in range(nd))
    stride = tuple(draw(st.integers(1, 3)) for _ in range(nd))
    dilation = tuple(draw(st.integers(1, 2)) for _ in range(nd))
    output_padding = tuple(draw(st.integers(0, max(s, d) - 1)) for s, d in zip(stride, dilation, strict=True))
    padding = tuple(draw(st.integers(0, 1)) for _ in range(nd))
    low = [max(1, -(-(2 * p - d * (k - 1)) // s) + 1) for p, d, k, s in zip(padding, dilation, kernel, stride)]
    size = tuple(draw(st.integers(lo, lo + 2)) for lo in low)
    kwargs = {"stride": stride, "padding": padding, "output_padding": output_padding, "groups": groups}
    kwargs["dilation"] = dilation
    batch = draw(st.sampled_from([None, 1, 2]))
    return nd, inputs(nd, batch, c_in, c_out, size, kernel, groups, bias=draw(st.booleans())), kwargs


@FUZZ
@given(configs())
def test_generated_conv_transposes_match_torch(config):
    nd, tensors, kwargs = config
    compare(nd, tensors, **kwargs)


@pytest.mark.parametrize("nd", [1, 2, 3])
def test_conv_transpose_passes_gradcheck(nd):
    x, w, b = (mt.tensor(t, requires_grad=True) for t in inputs(nd, 1, 2, 2, (2,) * nd, 2))
    assert mt.autograd.gradcheck(lambda x, w, b: MT[nd](x, w, b, stride=2, padding=1, output_padding=1), (x, w, b))


def test_conv_transpose_is_the_adjoint_of_conv():
    """<conv(y, w), x> == <y, conv_transpose(x, w)> for any x, y."""
    x, y, w = randn(2, 3, 4, 4), randn(2, 5, 9, 9, seed=1), randn(3, 5, 3, 3, seed=2)
    left = (F.conv2d(mt.tensor(y), mt.tensor(w), stride=2) * mt.tensor(x)).sum().item()
    right = (mt.tensor(y) * F.conv_transpose2d(mt.tensor(x), mt.tensor(w), stride=2)).sum().item()
    assert left == pytest.approx(right, rel=1e-12)


# ------------------------------------------------------------------ layers
LAYERS = [
    (lambda lib: lib.ConvTranspose1d(4, 6, 3, stride=2, padding=1, output_padding=1), (2, 4, 5)),
    (lambda lib: lib.ConvTranspose2d(4, 6, 4, 2, 1, groups=2, bias=False), (2, 4, 3, 3)),
    (lambda lib: lib.ConvTranspose2d(3, 2, (3, 2), stride=(2, 1), dilation=(1, 2)), (3, 4, 5)),
    (lambda lib: lib.ConvTranspose3d(2, 3, 2, stride=2), (1, 2, 2, 3, 2)),
]


@pytest.mark.parametrize(("factory", "shape"), LAYERS)
def test_conv_transpose_layer_matches_its_torch_twin(factory, shape):
    ours, theirs = _twins(factory)
    assert [(k, v.shape) for k, v in ours.state_dict().items()] == [
        (k, v.shape) for k, v in theirs.state_dict().items()
    ]
    assert repr(ours) == repr(theirs)
    assert_twins_agree(ours, theirs, shape, training=True)


@pytest.mark.parametrize(("factory", "shape"), LAYERS)
def test_conv_transpose_initialization_draws_what_torch_draws(factory, shape):
    torch.manual_seed(3)
    expected = factory(torch.nn).state_dict()
    mt.manual_seed(3)
    got = factory(nn).state_dict()
    assert list(got) == list(expected)
    assert all(torch.equal(got[k].torch(), expected[k]) for k in expected)


@pytest.mark.parametrize("output_size", [(8, 9), [2, 6, 8, 10], (7, 10)])
def test_output_size_picks_the_output_padding_as_torch(output_size):
    ours, theirs = _twins(lambda lib: lib.ConvTranspose2d(4, 6, 3, stride=2, padding=1))
    x = randn(2, 4, 4, 5)
    expected = theirs(x, output_size=output_size)
    got = ours(mt.tensor(x), output_size=output_size)
    assert got.shape == expected.shape
    torch.testing.assert_close(got.torch(), expected.detach())


# ------------------------------------------------------------------ Fold and Unfold layers
def test_fold_and_unfold_layers_match_torch_and_are_each_others_gradient():
    x = randn(2, 3, 5, 6)
    unfold = (nn.Unfold((2, 3), dilation=1, padding=1, stride=2), torch.nn.Unfold((2, 3), padding=1, stride=2))
    fold = (nn.Fold((5, 6), (2, 3), padding=1, stride=2), torch.nn.Fold((5, 6), (2, 3), padding=1, stride=2))
    assert repr(unfold[0]) == repr(unfold[1]) and repr(fold[0]) == repr(fold[1])
    compare_with_torch(unfold[0], unfold[1], [x])
    compare_with_torch(fold[0], fold[1], [unfold[1](x)])
    mt_x = mt.tensor(x, requires_grad=True)
    assert mt.autograd.gradcheck(lambda t: fold[0](unfold[0](t)), (mt_x,))


@pytest.mark.parametrize("groups, output_padding", [(1, 1), (2, 0)])
def test_backward_on_recorded_tensors_gives_torchs_gradients_and_second_derivatives(groups, output_padding):
    """The create_graph path of the backward (recorded convolution and unfold), called directly as the
    engine will call it: its gradients are torch's, and their own gradients torch's double backward."""
    from types import SimpleNamespace

    from minitorch_rx.ops.conv_transpose import ConvTransposeNd

    x, w = randn(2, 4, 3, 3), randn(4, 6 // groups, 3, 3, seed=1)
    kwargs = {"stride": 2, "padding": 1, "output_padding": output_padding, "groups": groups}
    out_size = 2 * 2 - 2 + 3 + output_padding
    g = randn(2, 6, out_size, out_size, seed=2)
    probes = [randn(2, 4, 3, 3, seed=3), randn(*w.shape, seed=4)]

    torch_inputs = [t.clone().requires_grad_(True) for t in (x, w, g)]
    y = TF.conv_transpose2d(torch_inputs[0], torch_inputs[1], **kwargs)
    expected = torch.autograd.grad(y, torch_inputs[:2], torch_inputs[2], create_graph=True)
    contracted = sum((d * p).sum() for d, p in zip(expected, probes, strict=True))
    second_expected = torch.autograd.grad(contracted, torch_inputs)

    mt_inputs = [mt.tensor(t, requires_grad=True) for t in (x, w, g)]
    ctx = SimpleNamespace(
        saved_tensors=tuple(mt_inputs[:2]),
        meta=((3, 3), ((1, 1), (1, 1)), (1, 1), (2, 2), groups, w.shape, True),
        needs_input_grad=(True, True, False),
    )
    got = ConvTransposeNd.backward(ctx, mt_inputs[2])[:2]
    for a, b in zip(got, expected, strict=True):
        torch.testing.assert_close(a.torch(), b.detach())
    second = mt.autograd.grad(sum((d * mt.tensor(p)).sum() for d, p in zip(got, probes, strict=True)), mt_inputs)
    for a, b in zip(second, second_expected, strict=True):
        torch.testing.assert_close(a.torch(), b)
