"""Convolution by im2col (1-D, 2-D, 3-D), unfold and fold, against torch.autograd in float64."""

from __future__ import annotations

import math

import pytest
import torch
import torch.nn.functional as TF
from hypothesis import given
from hypothesis import strategies as st

import minitorch_rx as mt
from minitorch_rx.ops import conv as C
from minitorch_rx.ops import correlation
from minitorch_rx.ops import linear as linear_ops
from tests.helpers import compare_with_torch
from tests.strategies import FUZZ

pytestmark = pytest.mark.filterwarnings("ignore:Using padding='same' with even kernel lengths")

MT_CONV = {1: C.conv1d, 2: C.conv2d, 3: C.conv3d}
TORCH_CONV = {1: TF.conv1d, 2: TF.conv2d, 3: TF.conv3d}
TORCH_CONV_T = {1: TF.conv_transpose1d, 2: TF.conv_transpose2d, 3: TF.conv_transpose3d}


def randn(*shape: int, seed: int = 0) -> torch.Tensor:
    return torch.randn(shape, dtype=torch.float64, generator=torch.Generator().manual_seed(seed))


def conv_inputs(nd, batch, in_channels, out_channels, size, kernel, groups, bias=True, seed=0):
    x_shape = (in_channels, *size) if batch is None else (batch, in_channels, *size)
    kernel = (kernel,) * nd if isinstance(kernel, int) else kernel
    x = randn(*x_shape, seed=seed)
    w = randn(out_channels, in_channels // groups, *kernel, seed=seed + 1)
    b = randn(out_channels, seed=seed + 2) if bias else None
    return [x, w, b] if bias else [x, w]


def compare_conv(nd, inputs, **kwargs):
    def run(conv):
        return lambda x, w, b=None: conv(x, w, b, **kwargs)

    compare_with_torch(run(MT_CONV[nd]), run(TORCH_CONV[nd]), inputs)


# ------------------------------------------------------------------ convolution against torch
CONV_CASES = [
    # nd, batch, C_in, C_out, size, kernel, kwargs
    (1, 2, 3, 4, (9,), 3, {}),
    (1, 1, 4, 6, (11,), 4, {"stride": 2, "padding": 3, "dilation": 2}),
    (1, 2, 4, 4, (8,), 3, {"padding": "same", "groups": 4}),
    (1, 3, 2, 5, (7,), 2, {"padding": "same", "dilation": 3}),
    (1, 2, 4, 6, (10,), 3, {"padding": "valid", "groups": 2, "stride": 3}),
    (2, 2, 3, 4, (7, 6), 3, {}),
    (2, 1, 3, 5, (9, 8), (3, 2), {"stride": (2, 1), "padding": (1, 2), "dilation": (1, 2)}),
    (2, 2, 4, 6, (7, 9), 3, {"groups": 2, "padding": 1}),
    (2, 3, 6, 6, (8, 7), 3, {"groups": 6, "padding": "same"}),
    (2, 2, 3, 2, (6, 7), (4, 2), {"padding": "same", "dilation": (1, 2)}),
    (2, 2, 2, 3, (5, 5), 5, {"padding": "valid"}),
    (2, 2, 2, 3, (11, 10), 3, {"stride": 3, "dilation": 2, "padding": 2}),
    (3, 2, 2, 3, (5, 6, 4), 3, {}),
    (3, 1, 3, 4, (6, 5, 7), (2, 3, 2), {"stride": (1, 2, 3), "padding": 1, "dilation": (2, 1, 1)}),
    (3, 2, 4, 4, (4, 5, 5), 3, {"groups": 4, "padding": "same"}),
    (3, 2, 4, 6, (5, 4, 6), 2, {"groups": 2, "padding": "same", "dilation": 2}),
]


@pytest.mark.parametrize("nd, batch, c_in, c_out, size, kernel, kwargs", CONV_CASES)
def test_conv_matches_torch(nd, batch, c_in, c_out, size, kernel, kwargs):
    groups = kwargs.get("groups", 1)
    compare_conv(nd, conv_inputs(nd, batch, c_in, c_out, size, kernel, groups), **kwargs)


# ------------------------------------------------------------------ the native backend (opt-in)
@pytest.fixture
def native_conv(monkeypatch):
    """``mt.backends.conv = "native"`` for one test; aten's convolution kernels then compute."""
    monkeypatch.setattr(mt.backends, "conv", "native")
    calls = []
    convolution = torch.convolution
    monkeypatch.setattr(torch, "convolution", lambda *args: calls.append(1) or convolution(*args))
    return calls


NATIVE_CASES = [*CONV_CASES, (2, None, 3, 4, (6, 5), 3, {"padding": 1}), (1, None, 2, 3, (7,), 2, {"stride": 2})]


@pytest.mark.parametrize("nd, batch, c_in, c_out, size, kernel, kwargs", NATIVE_CASES)
def test_native_conv_matches_torch(native_conv, nd, batch, c_in, c_out, size, kernel, kwargs):
    groups = kwargs.get("groups", 1)
    inputs = conv_inputs(nd, batch, c_in, c_out, size, kernel, groups)
    compare_conv(nd, inputs, **kwargs)
    as_tuple = lambda v: (v,) * nd if isinstance(v, int) else v  # noqa: E731
    dilated = [d * (k - 1) for k, d in zip(as_tuple(kernel), as_tuple(kwargs.get("dilation", 1)), strict=True)]
    odd_same = kwargs.get("padding") == "same" and any(total % 2 for total in dilated)
    assert bool(native_conv) != odd_same  # an odd total 'same' padding keeps im2col


def test_native_conv_keeps_our_graph_and_second_order(native_conv):
    x, w, b = (mt.tensor(t, requires_grad=True) for t in conv_inputs(2, 1, 2, 2, (4, 3), 2, 1))
    y = C.conv2d(x, w, b, padding=1, stride=(2, 1))
    assert native_conv and y.grad_fn is not None
    assert mt.autograd.gradcheck(lambda x, w, b: C.conv2d(x, w, b, padding=1, stride=(2, 1)), [x, w, b])
    assert mt.autograd.gradgradcheck(lambda x, w, b: C.conv2d(x, w, b, padding=1, stride=(2, 1)), [x, w, b])


def test_conv_backend_refuses_unknown_names():
    with pytest.raises(ValueError, match="mt.backends.conv must be one of 'im2col', 'native', got 'cudnn'"):
        mt.backends.conv = "cudnn"
    assert mt.backends.conv == "im2col"


@st.composite
def conv_configs(draw):
    """A random convolution that fits: rank, groups, kernel, stride, dilation, padding and sizes."""
    nd = draw(st.integers(1, 3))
    groups = draw(st.sampled_from([1, 2, 3]))
    c_in, c_out = groups * draw(st.integers(1, 2)), groups * draw(st.integers(1, 2))
    kernel = tuple(draw(st.integers(1, 3)) for _ in range(nd))
    dilation = tuple(draw(st.integers(1, 2)) for _ in range(nd))
    if draw(st.booleans()):
        stride, padding = (1,) * nd, "same"
        size = tuple(draw(st.integers(1, 5)) for _ in range(nd))
    else:
        stride = tuple(draw(st.integers(1, 3)) for _ in range(nd))
        padding = tuple(draw(st.integers(0, 2)) for _ in range(nd))
        low = [max(1, d * (k - 1) + 1 - 2 * p) for k, d, p in zip(kernel, dilation, padding, strict=True)]
        size = tuple(draw(st.integers(lo, lo + 3)) for lo in low)
    batch = draw(st.sampled_from([None, 1, 2]))
    kwargs = {"stride": stride, "padding": padding, "dilation": dilation, "groups": groups}
    return nd, conv_inputs(nd, batch, c_in, c_out, size, kernel, groups, bias=draw(st.booleans())), kwargs


@FUZZ
@given(conv_configs())
def test_generated_convs_match_torch(config):
    nd, inputs, kwargs = config
    compare_conv(nd, inputs, **kwargs)


@pytest.mark.parametrize("nd", [1, 2, 3])
def test_conv_without_bias_matches_torch(nd):
    compare_conv(nd, conv_inputs(nd, 2, 3, 4, (5,) * nd, 3, 1, bias=False), padding=1)


@pytest.mark.parametrize("nd", [1, 2, 3])
def test_unbatched_conv_matches_torch(nd):
    compare_conv(nd, conv_inputs(nd, None, 2, 3, (6,) * nd, 3, 1), padding="same")


@pytest.mark.parametrize("nd", [1, 2, 3])
def test_conv_of_an_empty_batch_matches_torch(nd):
    compare_conv(nd, conv_inputs(nd, 0, 2, 3, (5,) * nd, 3, 1))


@pytest.mark.parametrize("nd, groups", [(1, 1), (2, 1), (2, 3), (3, 1)])
def test_conv_over_several_batch_slices_matches_torch(monkeypatch, nd, groups):
    monkeypatch.setattr(correlation, "CHUNK_ELEMENTS", 64)  # a slice of one or two samples
    compare_conv(nd, conv_inputs(nd, 5, 3, 6, (6,) * nd, 3, groups), padding=1, stride=2, groups=groups)


TWO_D_CASES = [case for case in CONV_CASES if case[0] == 2]


@pytest.mark.parametrize("nd, batch, c_in, c_out, size, kernel, kwargs", TWO_D_CASES)
def test_row_shifted_columns_match_torch(monkeypatch, nd, batch, c_in, c_out, size, kernel, kwargs):
    """Every 2-D case through row-shifted columns wherever they apply (any channel count),
    over batch slices of one or two samples."""
    monkeypatch.setattr(correlation, "ROW_SHIFT_FROM", 1)
    monkeypatch.setattr(correlation, "CHUNK_ELEMENTS", 64)
    groups = kwargs.get("groups", 1)
    compare_conv(nd, conv_inputs(nd, 3 if batch else batch, c_in, c_out, size, kernel, groups), **kwargs)


def test_row_shifted_conv_over_unequal_slices_matches_torch(monkeypatch):
    """Slices of 2, 2 and 1 samples, forward and backward (C_out = C_in: the output gradient's
    columns are sliced alike): a smaller last slice reuses the one columns buffer correctly."""
    monkeypatch.setattr(correlation, "ROW_SHIFT_FROM", 1)
    rows, padded_rows = 3 * 3, (6 + 2) * 6  # C * k_w, H_padded * W_out
    monkeypatch.setattr(correlation, "CHUNK_ELEMENTS", 2 * rows * padded_rows)
    assert correlation.batch_slices(5, rows * padded_rows) == [(0, 2), (2, 4), (4, 5)]
    compare_conv(2, conv_inputs(2, 5, 3, 3, (6, 6), 3, 1), padding=1)


def test_row_shifted_conv_gradcheck(monkeypatch):
    monkeypatch.setattr(correlation, "ROW_SHIFT_FROM", 1)
    inputs = [mt.tensor(t, requires_grad=True) for t in conv_inputs(2, 2, 2, 3, (5, 4), (3, 2), 1)]
    conv = lambda x, w, b: C.conv2d(x, w, b, padding=(2, 1), dilation=(2, 1), stride=(1, 2))  # noqa: E731
    assert correlation.use_row_shift(inputs[0].torch(), 1, (3, 2), (1, 2), (3, 2))
    assert mt.autograd.gradcheck(conv, inputs)


@pytest.mark.parametrize("row_shift_from", [1, 10**9], ids=["row-shifted", "channels-first"])
@pytest.mark.parametrize("kwargs", [{"padding": 1}, {"padding": (2, 1), "dilation": (2, 1)}])
def test_stride_one_gradients_share_the_output_gradients_columns(monkeypatch, row_shift_from, kwargs):
    """Input and weight gradients from the padded output gradient's columns
    (``transposed_gradients``), against torch.autograd and by gradcheck."""
    monkeypatch.setattr(correlation, "ROW_SHIFT_FROM", row_shift_from)
    calls = []
    shared = correlation.transposed_gradients
    monkeypatch.setattr(correlation, "transposed_gradients", lambda *args: calls.append(1) or shared(*args))
    inputs = conv_inputs(2, 2, 3, 2, (6, 5), 3, 1)
    compare_conv(2, inputs, **kwargs)
    assert calls
    mt_inputs = [mt.tensor(t, requires_grad=True) for t in inputs]
    assert mt.autograd.gradcheck(lambda x, w, b: C.conv2d(x, w, b, **kwargs), mt_inputs)


# ResNet-20's layers (a smaller batch) in float32: the column layout of each forward with oneDNN's
# products (channels-first, channels-last at 8x8) and with MKL's (row-shifted from 16 channels).
RESNET_LAYERS = [
    # C_in, C_out, size, stride, path with oneDNN, path without
    (3, 16, 32, 1, "channels-first", "channels-first"),
    (16, 16, 32, 1, "channels-first", "row-shifted"),
    (16, 32, 32, 2, "channels-first", "channels-first"),
    (32, 32, 16, 1, "channels-first", "row-shifted"),
    (64, 64, 8, 1, "channels-last", "row-shifted"),
]


@pytest.mark.parametrize("onednn", [True, False], ids=["onednn", "mkl"])
@pytest.mark.parametrize("c_in, c_out, size, stride, onednn_path, mkl_path", RESNET_LAYERS)
def test_resnet_layers_in_float32_match_torch(monkeypatch, onednn, c_in, c_out, size, stride, onednn_path, mkl_path):
    if not onednn:
        monkeypatch.setattr(linear_ops, "ONEDNN", None)
    elif linear_ops.ONEDNN is None:
        pytest.skip("this torch build has no oneDNN")
    x, w, b = (t.float() for t in conv_inputs(2, 6, c_in, c_out, (size, size), 3, 1))
    out_size = ((size - 1) // stride + 1,) * 2
    row_shifted = correlation.use_row_shift(x, 1, (3, 3), (stride, stride), out_size)
    channels_last = correlation.use_channels_last(x, 1, out_size)
    path = "row-shifted" if row_shifted else "channels-last" if channels_last else "channels-first"
    assert path == (onednn_path if onednn else mkl_path)
    compare_with_torch(
        lambda x, w, b: C.conv2d(x, w, b, stride=stride, padding=1),
        lambda x, w, b: TF.conv2d(x, w, b, stride=stride, padding=1),
        [x, w, b],
        atol=2e-4,
        rtol=1e-4,
    )


def test_conv_accepts_non_contiguous_inputs():
    x = randn(3, 2, 8, 7).transpose(0, 1)  # (2, 3, 8, 7), batch not outermost in memory
    w = randn(4, 3, 3, 6, seed=1)[..., ::2]  # every other column
    assert not x.is_contiguous() and not w.is_contiguous()
    compare_conv(2, [x, w], padding=1)


@pytest.mark.parametrize("frozen", ["weight", "input"])
def test_conv_gradient_with_one_input_frozen(frozen):
    x, w, b = conv_inputs(2, 2, 3, 4, (6, 6), 3, 1)
    mx = mt.tensor(x, requires_grad=frozen != "input")
    mw = mt.tensor(w, requires_grad=frozen != "weight")
    mb = mt.tensor(b, requires_grad=True)
    tx = x.clone().requires_grad_(frozen != "input")
    tw = w.clone().requires_grad_(frozen != "weight")
    tb = b.clone().requires_grad_()
    grad = randn(2, 4, 4, 4, seed=5)
    wrt_mt = [t for t in (mx, mw, mb) if t.requires_grad]
    wrt_torch = [t for t in (tx, tw, tb) if t.requires_grad]
    ours = mt.autograd.grad(C.conv2d(mx, mw, mb), wrt_mt, grad)
    theirs = torch.autograd.grad(TF.conv2d(tx, tw, tb), wrt_torch, grad)
    for o, t in zip(ours, theirs, strict=True):
        torch.testing.assert_close(o.torch(), t)


def test_conv_in_float32_matches_torch():
    x, w, b = (t.float() for t in conv_inputs(2, 4, 3, 8, (12, 12), 5, 1))
    compare_with_torch(
        lambda x, w, b: C.conv2d(x, w, b, padding=2),
        lambda x, w, b: TF.conv2d(x, w, b, padding=2),
        [x, w, b],
        atol=1e-4,
        rtol=1e-4,
    )


def test_conv_records_one_node():
    x, w, b = (mt.tensor(t, requires_grad=True) for t in conv_inputs(2, 1, 2, 3, (5, 5), 3, 1))
    y = C.conv2d(x, w, b)
    assert type(y.grad_fn).__name__ == "ConvolutionBackward0"
    parents = [type(n).__name__ for n, _ in y.grad_fn.next_functions if n is not None]
    assert parents == ["AccumulateGrad"] * 3


def test_conv_without_grad_records_nothing():
    x, w = (mt.tensor(t) for t in conv_inputs(2, 1, 2, 3, (5, 5), 3, 1, bias=False))
    y = C.conv2d(x, w)
    assert y.grad_fn is None and not y.requires_grad


@pytest.mark.parametrize(
    "nd, kwargs",
    [
        (1, {"stride": 2, "padding": 1, "dilation": 2}),
        (2, {"padding": "same", "groups": 2}),
        (2, {"stride": (2, 1), "padding": (0, 1)}),
        (3, {"padding": 1, "stride": 2}),
    ],
)
def test_conv_gradcheck(nd, kwargs):
    groups = kwargs.get("groups", 1)
    size = {1: (7,), 2: (4, 5), 3: (3, 4, 3)}[nd]
    inputs = [mt.tensor(t, requires_grad=True) for t in conv_inputs(nd, 2, 2, 2, size, 2, groups)]
    assert mt.autograd.gradcheck(lambda x, w, b: MT_CONV[nd](x, w, b, **kwargs), inputs)


# ------------------------------------------------------------------ unfold and fold
def one_hot_weight(channels: int, kernel: tuple[int, ...]) -> torch.Tensor:
    """(C*K, 1, *kernel): output channel c*K + j picks kernel offset j of channel c. A grouped
    convolution with it is unfold; the transposed convolution is fold. Both are torch's own."""
    k = math.prod(kernel)
    eye = torch.eye(k, dtype=torch.float64).view(k, 1, *kernel)
    return eye.repeat(channels, 1, *(1,) * len(kernel))


def torch_unfold(x, kernel, dilation, padding, stride):
    nd = len(kernel)
    weight = one_hot_weight(x.shape[1], kernel)
    out = TORCH_CONV[nd](x, weight, None, stride, padding, dilation, groups=x.shape[1])
    return out.flatten(2)


def num_blocks(size, kernel, dilation, padding, stride) -> list[int]:
    params = zip(size, kernel, dilation, padding, stride, strict=True)
    return [(s + 2 * p - d * (k - 1) - 1) // st + 1 for s, k, d, p, st in params]


def torch_fold(cols, size, kernel, dilation, padding, stride):
    nd = len(kernel)
    channels = cols.shape[1] // math.prod(kernel)
    blocks = num_blocks(size, kernel, dilation, padding, stride)
    # conv_transpose's output_padding: what the blocks leave uncovered at the far end
    params = zip(size, blocks, stride, padding, dilation, kernel, strict=True)
    extra = [s - ((b - 1) * st - 2 * p + d * (k - 1) + 1) for s, b, st, p, d, k in params]
    weight = one_hot_weight(channels, kernel)
    return TORCH_CONV_T[nd](
        cols.view(cols.shape[0], -1, *blocks), weight, None, stride, padding, extra, channels, dilation
    )


UNFOLD_CASES = [
    # size, kernel, dilation, padding, stride
    ((9,), (3,), (1,), (0,), (1,)),
    ((10,), (2,), (3,), (2,), (2,)),
    ((7, 8), (2, 3), (1, 1), (0, 0), (1, 1)),
    ((9, 7), (3, 2), (2, 1), (1, 2), (2, 3)),
    ((5, 6, 7), (2, 2, 3), (1, 1, 1), (0, 0, 0), (1, 1, 1)),
    ((6, 5, 7), (3, 2, 2), (1, 2, 1), (1, 0, 2), (2, 1, 2)),
]


@pytest.mark.parametrize("size, kernel, dilation, padding, stride", UNFOLD_CASES)
def test_unfold_matches_torch(size, kernel, dilation, padding, stride):
    compare_with_torch(
        lambda x: C.unfold(x, kernel, dilation, padding, stride),
        lambda x: torch_unfold(x, kernel, dilation, padding, stride),
        [randn(2, 3, *size)],
    )


@pytest.mark.parametrize("size, kernel, dilation, padding, stride", UNFOLD_CASES)
def test_fold_matches_torch(size, kernel, dilation, padding, stride):
    blocks = num_blocks(size, kernel, dilation, padding, stride)
    cols = randn(2, 3 * math.prod(kernel), math.prod(blocks))
    compare_with_torch(
        lambda c: C.fold(c, size, kernel, dilation, padding, stride),
        lambda c: torch_fold(c, size, kernel, dilation, padding, stride),
        [cols],
    )


def test_unfold_of_an_image_matches_torch_unfold():
    compare_with_torch(
        lambda x: C.unfold(x, 3, dilation=2, padding=1, stride=(2, 1)),
        lambda x: TF.unfold(x, 3, dilation=2, padding=1, stride=(2, 1)),
        [randn(2, 3, 9, 8)],
    )


def test_unfold_reads_an_int_kernel_and_3d_input_as_an_unbatched_image_like_torch():
    compare_with_torch(lambda x: C.unfold(x, 2), lambda x: TF.unfold(x, 2), [randn(3, 5, 6)])


def test_unfold_of_an_unbatched_signal_with_a_one_tuple_kernel():
    x = randn(3, 8)
    expected = torch_unfold(x.unsqueeze(0), (3,), (1,), (0,), (1,)).squeeze(0)
    torch.testing.assert_close(C.unfold(mt.tensor(x), (3,)).torch(), expected)


def test_unfold_reads_a_5d_input_as_3d():
    x = randn(1, 2, 4, 4, 4)
    expected = torch_unfold(x, (2, 2, 2), (1, 1, 1), (0, 0, 0), (1, 1, 1))
    torch.testing.assert_close(C.unfold(mt.tensor(x), 2).torch(), expected)


def test_im2col_is_unfold():
    assert C.im2col is C.unfold


def test_fold_of_an_image_matches_torch_fold():
    compare_with_torch(
        lambda c: C.fold(c, (7, 6), 3, dilation=(1, 2), padding=1, stride=2),
        lambda c: TF.fold(c, (7, 6), 3, dilation=(1, 2), padding=1, stride=2),
        [randn(2, 18, 8)],
    )


def test_unbatched_fold_matches_torch_fold():
    compare_with_torch(lambda c: C.fold(c, (4, 5), 2), lambda c: TF.fold(c, (4, 5), 2), [randn(8, 12)])


@pytest.mark.parametrize("nd", [1, 2, 3])
def test_fold_is_the_adjoint_of_unfold(nd):
    x, y_shape = randn(2, 2, *(5,) * nd), None
    args = ((2,) * nd, (1,) * nd, (1,) * nd, (2,) * nd)
    cols = C.unfold(mt.tensor(x), *args).torch()
    y_shape = cols.shape
    y = randn(*y_shape, seed=3)
    folded = C.fold(mt.tensor(y), (5,) * nd, *args).torch()
    torch.testing.assert_close((cols * y).sum(), (x * folded).sum())


@pytest.mark.parametrize("nd", [1, 2, 3])
def test_unfold_and_fold_gradcheck(nd):
    size, kernel = (4,) * nd if nd < 3 else (3, 3, 3), (2,) * nd
    x = mt.tensor(randn(1, 2, *size), requires_grad=True)
    assert mt.autograd.gradcheck(lambda t: C.unfold(t, kernel, padding=1, stride=2), x)
    blocks = math.prod(s - 1 for s in size)
    cols = mt.tensor(randn(1, 2 * 2**nd, blocks), requires_grad=True)
    assert mt.autograd.gradcheck(lambda t: C.fold(t, size, kernel), cols)


# ------------------------------------------------------------------ errors, in PyTorch's words
def error_of(fn, *args, **kwargs) -> str:
    with pytest.raises(RuntimeError) as info:
        fn(*args, **kwargs)
    return str(info.value)


CONV_ERRORS = [
    # nd, input shape, weight shape, kwargs
    (2, (1, 2, 8, 8), (8, 3, 3, 3), {}),
    (2, (2, 8, 8), (8, 3, 3, 3), {}),
    (2, (1, 4, 8, 8), (8, 3, 3, 3), {"groups": 2}),
    (2, (1, 4, 8, 8), (9, 2, 3, 3), {"groups": 2}),
    (2, (1, 4, 8, 8), (8, 2, 3, 3), {"groups": 0}),
    (2, (2, 3), (8, 3, 3, 3), {}),
    (1, (1, 3, 4), (8, 3, 5), {}),
    (2, (1, 3, 4, 4), (8, 3, 5, 5), {}),
    (2, (1, 3, 4, 4), (8, 3, 3, 3), {"dilation": 2}),
    (3, (1, 3, 4, 4, 4), (8, 3, 5, 5, 5), {}),
    (2, (1, 4, 8, 8), (8, 4, 3, 3), {"stride": 2, "padding": "same"}),
    (2, (1, 4, 8, 8), (8, 4, 3, 3), {"padding": "foo"}),
    (2, (1, 4, 8, 8), (8, 4, 3, 3), {"stride": 0}),
    (2, (1, 4, 8, 8), (8, 4, 3, 3), {"padding": -1}),
    (2, (1, 4, 8, 8), (8, 4, 3, 3), {"dilation": 0}),
    (2, (1, 4, 8, 8), (8, 4, 3, 3), {"stride": (1, 1, 1)}),
]


@pytest.mark.parametrize("nd, x_shape, w_shape, kwargs", CONV_ERRORS)
def test_conv_errors_are_worded_as_torch(nd, x_shape, w_shape, kwargs):
    x, w = randn(*x_shape), randn(*w_shape)
    expected = error_of(TORCH_CONV[nd], x, w, **kwargs)
    assert error_of(MT_CONV[nd], mt.tensor(x), mt.tensor(w), **kwargs) == expected


def test_conv_wrong_channel_error_names_the_shapes():
    message = error_of(C.conv2d, mt.tensor(randn(1, 2, 8, 8)), mt.tensor(randn(8, 3, 3, 3)))
    assert message == (
        "Given groups=1, weight of size [8, 3, 3, 3], expected input[1, 2, 8, 8] to have 3 channels, "
        "but got 2 channels instead"
    )


def test_conv_bias_of_the_wrong_size_is_worded_as_torch():
    x, w, b = randn(1, 4, 8, 8), randn(8, 4, 3, 3), randn(3)
    expected = error_of(TF.conv2d, x, w, b)
    assert error_of(C.conv2d, mt.tensor(x), mt.tensor(w), mt.tensor(b)) == expected


def test_conv_weight_of_the_wrong_rank_is_an_error():
    message = error_of(C.conv2d, mt.tensor(randn(1, 4, 8, 8)), mt.tensor(randn(8, 4, 3)))
    assert "Expected 4-dimensional weight for 4-dimensional input [1, 4, 8, 8]" in message


def test_conv_of_mixed_dtypes_is_an_error():
    message = error_of(C.conv2d, mt.tensor(randn(1, 4, 8, 8).float()), mt.tensor(randn(8, 4, 3, 3)))
    assert message == "Input type (torch.float32) and weight type (torch.float64) should be the same"


@pytest.mark.parametrize(
    "shape, kwargs",
    [
        ((1, 2, 3, 4, 5), {"kernel_size": (2, 2)}),
        ((1, 2, 3, 3), {"kernel_size": 4}),
        ((1, 2, 3, 3), {"kernel_size": 0}),
        ((1, 2, 3, 3), {"kernel_size": 2, "stride": 0}),
        ((1, 2, 3, 3), {"kernel_size": 2, "dilation": 0}),
        ((1, 2, 3, 3), {"kernel_size": 2, "padding": -1}),
        ((1, 2, 3, 3), {"kernel_size": (2, 2), "stride": (1, 1, 1)}),
    ],
)
def test_unfold_errors_are_worded_as_torch(shape, kwargs):
    x = randn(*shape)
    with pytest.raises(RuntimeError) as theirs:
        TF.unfold(x, **kwargs)
    first_words = str(theirs.value).split(",")[0].split(" but got")[0]
    assert first_words in error_of(C.unfold, mt.tensor(x), **kwargs)


@pytest.mark.parametrize(
    "shape, args",
    [
        ((1, 7, 9), ((4, 4), 2)),
        ((1, 8, 10), ((4, 4), 2)),
        ((5,), ((4, 4), 2)),
    ],
)
def test_fold_errors_are_worded_as_torch(shape, args):
    x = randn(*shape)
    assert error_of(C.fold, mt.tensor(x), *args) == error_of(TF.fold, x, *args)
