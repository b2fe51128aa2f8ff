"""Convolution as im2col + matmul, and ``unfold``/``fold`` (im2col/col2im), for 1, 2 and 3 spatial dims.

This file holds the differentiable ops, their argument checks (in PyTorch's words) and the batch
slicing; the columns are built in ``ops/im2col.py`` and multiplied in ``ops/correlation.py``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import torch

from .. import backends
from ..autograd.engine import recorded_vjp
from ..autograd.function import Function, call
from ..autograd.tensor import Tensor
from . import correlation
from . import im2col as columns  # conv's own ``im2col`` is ``unfold``
from .autocast import state as autocast_state
from .autocast import to_autocast_dtype
from .constants import tensor_arg
from .dims import int_tuple

IntOrTuple = int | Sequence[int]


# ------------------------------------------------------------------ shared helpers
def _expand_param(value: IntOrTuple, n: int, name: str) -> tuple[int, ...]:
    """``value`` as an ``n``-tuple of ints (an int is repeated), in PyTorch's wording on a mismatch."""
    if isinstance(value, int) and not isinstance(value, bool):
        return (value,) * n
    if not isinstance(value, (tuple, list, torch.Size)):
        raise TypeError(f"argument '{name}' must be an int or a tuple of ints, not {type(value).__name__}")
    values = tuple(value)
    if len(values) == 1:
        values *= n
    if len(values) != n or not all(isinstance(v, int) and not isinstance(v, bool) for v in values):
        raise RuntimeError(
            f"expected {name} to be a single integer value or a list of {n} values to match the "
            f"convolution dimensions, but got {name}={list(values)}"
        )
    return values


def _num_blocks(
    padded: Sequence[int], kernel: Sequence[int], dilation: Sequence[int], stride: Sequence[int]
) -> tuple[int, ...]:
    """The number of windows along each spatial dim (may be <= 0 when the kernel does not fit)."""
    return tuple((p - d * (k - 1) - 1) // s + 1 for p, k, d, s in zip(padded, kernel, dilation, stride, strict=True))


def _im2col_rows(
    x: torch.Tensor, kernel: tuple, dilation: tuple, pads: tuple, stride: tuple, out_size: tuple
) -> torch.Tensor:
    """``unfold``'s result (N, C*prod(kernel), L) for a batched ``x``."""
    blocks = columns.windows(columns.pad(x, pads), kernel, dilation, stride, out_size, channels_first=False)
    return blocks.reshape(x.shape[0], x.shape[1] * math.prod(kernel), math.prod(out_size))


def _col2im_rows(
    cols: torch.Tensor, size: tuple, kernel: tuple, dilation: tuple, pads: tuple, stride: tuple
) -> torch.Tensor:
    """``fold``'s result (N, C, *size) for batched columns ``cols`` (N, C*prod(kernel), L), a batch
    slice at a time (``Col2im``'s work buffers are a slice's)."""
    n = cols.shape[0]
    padded = tuple(s + before + after for s, (before, after) in zip(size, pads, strict=True))
    out_size = _num_blocks(padded, kernel, dilation, stride)
    channels = cols.shape[1] // math.prod(kernel)
    out = cols.new_zeros(n, channels, *padded)
    blocks = cols.reshape(n, channels, *kernel, *out_size)
    scatter = columns.Col2im(kernel, dilation, stride, out_size, padded)
    for start, stop in correlation.batch_slices(n, math.prod(cols.shape[1:])):
        scatter(blocks[start:stop], out[start:stop])
    return columns.crop(out, pads)


# ------------------------------------------------------------------ Functions
class Unfold(Function):
    @staticmethod
    def forward(ctx, x, kernel, dilation, pads, stride, out_size, batched):
        ctx.args = (x.shape[-len(kernel) :], kernel, dilation, pads, stride, tuple(out_size), batched)
        cols = _im2col_rows(x if batched else x.unsqueeze(0), kernel, dilation, pads, stride, out_size)
        return cols if batched else cols.squeeze(0)

    @staticmethod
    def backward(ctx, grad):
        size, kernel, dilation, pads, stride, out_size, batched = ctx.args
        padded = [s + before + after for s, (before, after) in zip(size, pads, strict=True)]
        fitting = tuple(_num_blocks(padded, kernel, dilation, stride))
        if out_size != fitting:  # fewer windows than fit (conv_transpose's output_padding): the rest get none
            lead = grad.shape[:-1]
            widths = [w for have, want in reversed(list(zip(out_size, fitting))) for w in (0, want - have)]
            grad = torch.nn.functional.pad(grad.reshape(*lead, *out_size), widths).reshape(*lead, -1)
        return call(Fold, grad, size, kernel, dilation, pads, stride, batched), None, None, None, None, None, None


class Fold(Function):
    @staticmethod
    def forward(ctx, cols, size, kernel, dilation, pads, stride, batched):
        out_size = _num_blocks(
            [s + before + after for s, (before, after) in zip(size, pads, strict=True)], kernel, dilation, stride
        )
        ctx.args = (kernel, dilation, pads, stride, out_size, batched)
        out = _col2im_rows(cols if batched else cols.unsqueeze(0), size, kernel, dilation, pads, stride)
        return out if batched else out.squeeze(0)

    @staticmethod
    def backward(ctx, grad):
        kernel, dilation, pads, stride, out_size, batched = ctx.args
        return call(Unfold, grad, kernel, dilation, pads, stride, out_size, batched), None, None, None, None, None, None


class ConvNd(Function):
    """``y[n, o] = b[o] + sum_{c, k} w[o, c, k] * x_padded[n, c, window(k)]`` by im2col + one
    matmul per batch slice (``ops/correlation.py``).

    Backward rebuilds columns a slice at a time rather than keeping the forward's (K times the
    input's size) alive between forward and backward: PyTorch keeps the input too. (Keeping even
    LeNet-5's 5 MB of columns was slower: a fresh buffer per step page-faults.) With stride 1 the
    input gradient is itself a correlation, of the padded output gradient with the flipped kernel,
    and the columns of that output gradient give the weight gradient as well
    (``correlation.transposed_gradients``); otherwise the weight gradient comes from the input's
    columns and the input gradient is col2im of ``w.T @ grad``.
    """

    _node_name = "ConvolutionBackward0"  # PyTorch's name for this node
    listed_inputs = (0, 1, 2)  # input, weight, bias (None too), as PyTorch's

    @staticmethod
    def forward(ctx, x, weight, bias, stride, pads, dilation, groups, batched):
        need_x, need_w = ctx.needs_input_grad[:2]
        native = backends.conv == "native" and all(before == after for before, after in pads)
        if native:  # aten's backward kernel reads both, as PyTorch's ConvolutionBackward saves both
            ctx.save_for_backward(*((x, weight) if need_x or need_w else (None, None)))
        else:
            ctx.save_for_backward(x if need_w else None, weight if need_x else None)
        if not batched:
            x = x.unsqueeze(0)
        kernel = tuple(weight.shape[2:])
        padded_size = [s + before + after for s, (before, after) in zip(x.shape[2:], pads, strict=True)]
        out_size = _num_blocks(padded_size, kernel, dilation, stride)
        if native:
            padding = [before for before, _ in pads]
            y = torch.convolution(x, weight, bias, stride, padding, dilation, False, [0] * len(kernel), groups)
        else:
            y = correlation.correlate(x, pads, weight, bias, dilation, stride, out_size, groups)
        ctx.meta = (x.shape, pads, dilation, stride, out_size, groups, weight.shape, batched, native)
        return y if batched else y.squeeze(0)

    @staticmethod
    def backward(ctx, grad):
        x, weight = ctx.saved_tensors
        x_shape, pads, dilation, stride, out_size, groups, weight_shape, batched, native = ctx.meta
        need_x, need_w, need_b = ctx.needs_input_grad[:3]
        if isinstance(grad, Tensor):
            return _conv_backward_recorded(ctx, x, weight, grad)
        if x is not None and not batched:
            x = x.unsqueeze(0)
        if native:
            grads = torch.ops.aten.convolution_backward(
                grad if batched else grad.unsqueeze(0),
                x,
                weight,
                [weight_shape[0]] if need_b else None,
                stride,
                [before for before, _ in pads],
                dilation,
                False,
                [0] * len(pads),
                groups,
                [need_x, need_w, need_b],
            )
            grad_x = grads[0] if need_x and batched else grads[0].squeeze(0) if need_x else None
            return grad_x, grads[1], grads[2], None, None, None, None, None
        n, channels = x_shape[:2]
        out_channels = weight_shape[0]
        kernel = tuple(weight_shape[2:])
        positions = math.prod(out_size)
        g = (grad if batched else grad.unsqueeze(0)).reshape(n, out_channels, positions)
        grad_x = grad_w = grad_b = None
        if need_b:
            grad_b = g.sum((0, 2))
        if not (need_x or need_w):
            return grad_x, grad_w, grad_b, None, None, None, None, None
        # With stride 1 the input gradient is the correlation of the padded output gradient with
        # the flipped kernel, whose columns (out_channels * prod(x's size) per sample) also give
        # the weight gradient; where they exceed the forward's, col2im moves less data.
        g_pads = correlation.transposed_padding(kernel, dilation, stride, pads) if need_x else None
        if g_pads is not None and out_channels * math.prod(x_shape[2:]) > channels * positions:
            g_pads = None
        g_full = g.view(n, out_channels, *out_size)
        if g_pads is not None and need_w and groups == 1:
            grad_x, grad_w = correlation.transposed_gradients(x, g_full, g_pads, weight, dilation)
        else:
            if need_w:
                grad_w = correlation.weight_gradient(x, pads, g, weight_shape, dilation, stride, out_size, groups)
            if g_pads is not None:
                spatial = tuple(range(2, 2 + len(kernel)))
                flipped = weight.flip(spatial).view(groups, out_channels // groups, channels // groups, *kernel)
                flipped = flipped.transpose(1, 2).reshape(channels, out_channels // groups, *kernel)
                size = tuple(x_shape[2:])
                grad_x = correlation.correlate(g_full, g_pads, flipped, None, dilation, stride, size, groups)
            elif need_x:
                slices = correlation.batch_slices(n, channels * math.prod(kernel) * positions)
                grad_x = correlation.input_gradient_by_col2im(
                    weight, g, x_shape, pads, dilation, stride, out_size, groups, slices
                )
        if need_x and not batched:
            grad_x = grad_x.squeeze(0)
        return grad_x, grad_w, grad_b, None, None, None, None, None


def _conv_backward_recorded(ctx, x, weight, grad) -> tuple:
    """ConvNd's backward under ``create_graph``: the gradients of the convolution written as
    ``Unfold`` and a product (both recorded, and differentiable again). An input that was not
    saved is not needed (its own gradient does not depend on it): zeros stand in."""
    x_shape, pads, dilation, stride, out_size, groups, weight_shape, batched, _ = ctx.meta
    need_x, need_w, need_b = ctx.needs_input_grad[:3]
    g = grad if batched else grad.unsqueeze(0)
    n, channels = x_shape[:2]
    out_channels, kernel = weight_shape[0], tuple(weight_shape[2:])
    like = g._data
    if x is None:
        x = Tensor._make(torch.zeros(x_shape, dtype=like.dtype, device=like.device), None)
    elif not batched:
        x = x.unsqueeze(0)
    if weight is None:
        weight = Tensor._make(torch.zeros(weight_shape, dtype=like.dtype, device=like.device), None)

    def convolution(x, weight):
        cols = Unfold.apply(x, kernel, dilation, pads, stride, out_size, True)
        cols = cols.reshape(n, groups, channels // groups * math.prod(kernel), math.prod(out_size))
        out = weight.reshape(groups, out_channels // groups, -1) @ cols
        return out.reshape(n, out_channels, *out_size)

    grad_x, grad_w = recorded_vjp(convolution, (x, weight), (need_x, need_w), g)
    if grad_x is not None and not batched:
        grad_x = grad_x.squeeze(0)
    grad_b = g.sum((0, *range(2, g.dim()))) if need_b else None
    return grad_x, grad_w, grad_b, None, None, None, None, None


# ------------------------------------------------------------------ argument checks
def _fmt(values: Sequence[int], sep: str = ", ") -> str:
    return "(" + sep.join(str(v) for v in values) + ")"


def _spatial_rank(params: Sequence[object], default: int) -> int:
    """The number of spatial dims: the length of the first sequence among ``params``, else ``default``."""
    for value in params:
        if isinstance(value, (tuple, list, torch.Size)):
            return len(value)
    return default


def _window_params(
    kernel_size: IntOrTuple, dilation: IntOrTuple, padding: IntOrTuple, stride: IntOrTuple, nd: int
) -> tuple[tuple[int, ...], ...]:
    """``unfold``/``fold``'s int-or-tuple arguments as ``nd``-tuples, checked as PyTorch's ``F.unfold``."""
    params = {"kernel_size": kernel_size, "dilation": dilation, "padding": padding, "stride": stride}
    for position, (name, value) in enumerate(params.items(), 2):
        if isinstance(value, int) and not isinstance(value, bool):
            params[name] = (value,) * nd
            continue
        params[name] = int_tuple(value, "im2col", name, position)
        if len(params[name]) != nd:
            raise RuntimeError(f"It is expected {name} equals to {nd}, but got size {len(params[name])}")
    for name, label in (("kernel_size", "kernel size"), ("stride", "stride"), ("dilation", "dilation")):
        if any(v <= 0 for v in params[name]):
            raise RuntimeError(f"{label} should be greater than zero, but got {name}={_fmt(params[name])}")
    if any(p < 0 for p in params["padding"]):
        raise RuntimeError(f"padding should be non-negative, but got padding={_fmt(params['padding'])}")
    return params["kernel_size"], params["dilation"], params["padding"], params["stride"]


def _conv_padding(
    padding: str | IntOrTuple, kernel: Sequence[int], dilation: tuple, stride: tuple
) -> tuple[tuple[int, int], ...]:
    """``(before, after)`` per spatial dim; 'same' puts the odd unit after, as PyTorch does."""
    nd = len(kernel)
    if isinstance(padding, str):
        if padding == "valid":
            return ((0, 0),) * nd
        if padding != "same":
            raise RuntimeError(f"Invalid padding string: '{padding}'")
        if any(s != 1 for s in stride):
            raise RuntimeError("padding='same' is not supported for strided convolutions")
        totals = [d * (k - 1) for k, d in zip(kernel, dilation, strict=True)]
        return tuple((total // 2, total - total // 2) for total in totals)
    amounts = _expand_param(padding, nd, "padding")
    if any(p < 0 for p in amounts):
        raise RuntimeError("negative padding is not supported")
    return tuple((p, p) for p in amounts)


def _check_conv(name: str, nd: int, x: torch.Tensor, w: torch.Tensor, b: torch.Tensor | None, groups: int) -> None:
    if x.dim() not in (nd + 1, nd + 2):
        raise RuntimeError(
            f"Expected {nd + 1}D (unbatched) or {nd + 2}D (batched) input to {name}, "
            f"but got input of size: {list(x.shape)}"
        )
    shape = list(x.shape) if x.dim() == nd + 2 else [1, *x.shape]
    if w.dim() != nd + 2:
        raise RuntimeError(
            f"Expected {nd + 2}-dimensional weight for {nd + 2}-dimensional input {shape}, but got "
            f"{w.dim()}-dimensional weight of size {list(w.shape)} instead"
        )
    if not isinstance(groups, int) or groups <= 0:
        raise RuntimeError("non-positive groups is not supported")
    if w.shape[0] % groups:
        raise RuntimeError(
            f"Given groups={groups}, expected weight to be divisible by {groups} at dimension 0, "
            f"but got weight of size [{list(w.shape)}] instead"
        )
    if shape[1] != w.shape[1] * groups:
        raise RuntimeError(
            f"Given groups={groups}, weight of size {list(w.shape)}, expected input{shape} to have "
            f"{w.shape[1] * groups} channels, but got {shape[1]} channels instead"
        )
    if b is not None and (b.dim() != 1 or b.shape[0] != w.shape[0]):
        raise RuntimeError(
            f"Given weight of size {list(w.shape)}, expected bias to be 1-dimensional with "
            f"{w.shape[0]} elements, but got bias of size {list(b.shape)} instead"
        )
    for other, label in ((w, "weight"), (b, "bias")):
        if other is not None and other.dtype != x.dtype:
            raise RuntimeError(f"Input type ({x.dtype}) and {label} type ({other.dtype}) should be the same")


# ------------------------------------------------------------------ public functions
def unfold(
    input: Tensor,
    kernel_size: IntOrTuple,
    dilation: IntOrTuple = 1,
    padding: IntOrTuple = 0,
    stride: IntOrTuple = 1,
) -> Tensor:
    """Sliding local blocks (im2col), as ``torch.nn.functional.unfold`` but for 1, 2 or 3 spatial dims.

    ``input`` is (N, C, *spatial) or unbatched (C, *spatial); the result is
    (N, C * prod(kernel_size), L) (or (C * prod(kernel_size), L)), L the number of blocks, each
    column one block with channel-major, then kernel-offset order, as PyTorch's. The number of
    spatial dims is the length of the first tuple among the arguments; with ints only it is 3 for
    a 5-D input and otherwise 2 (so a 3-D input is an unbatched image, as in PyTorch): pass
    ``kernel_size=(k,)`` for 1-D. Raises RuntimeError in PyTorch's words for a bad rank, a
    non-positive kernel size/stride/dilation, a negative padding, or no complete block.

    >>> import minitorch_rx as mt
    >>> unfold(mt.arange(8.0).view(1, 2, 4), (2,)).shape
    torch.Size([1, 4, 3])
    """
    x = input._data
    nd = _spatial_rank((kernel_size, dilation, padding, stride), 3 if x.dim() == 5 else 2)
    kernel, dilation, padding, stride = _window_params(kernel_size, dilation, padding, stride, nd)
    if x.dim() not in (nd + 1, nd + 2) or any(s == 0 for s in x.shape[-nd - 1 :]):
        raise RuntimeError(
            f"Expected {nd + 1}D or {nd + 2}D (batch mode) tensor with possibly 0 batch size and other "
            f"non-zero dimensions for input, but got: {list(x.shape)}"
        )
    spatial = tuple(x.shape[-nd:])
    blocks = _num_blocks([s + 2 * p for s, p in zip(spatial, padding, strict=True)], kernel, dilation, stride)
    if any(b < 1 for b in blocks):
        raise RuntimeError(
            f"Given input with spatial size {_fmt(spatial)}, kernel_size={_fmt(kernel)}, "
            f"dilation={_fmt(dilation)}, padding={_fmt(padding)}, calculated shape of the array of "
            f"sliding blocks as {_fmt(blocks)}, but its components must be at least one."
        )
    pads = tuple((p, p) for p in padding)
    return Unfold.apply(input, kernel, dilation, pads, stride, blocks, x.dim() == nd + 2)


im2col = unfold


def fold(
    input: Tensor,
    output_size: IntOrTuple,
    kernel_size: IntOrTuple,
    dilation: IntOrTuple = 1,
    padding: IntOrTuple = 0,
    stride: IntOrTuple = 1,
) -> Tensor:
    """Sum sliding blocks back into a tensor (col2im): the adjoint of ``unfold``, as
    ``torch.nn.functional.fold`` but for 1, 2 or 3 spatial dims (the length of ``output_size`` or
    of the first tuple argument; 2 with ints only).

    ``input`` is (N, C * prod(kernel_size), L) or unbatched (C * prod(kernel_size), L); the result
    is (N, C, *output_size). Overlapping blocks add up. Raises RuntimeError in PyTorch's words when
    the channels are not a multiple of prod(kernel_size) or L is not the number of blocks.
    """
    cols = input._data
    nd = _spatial_rank((output_size, kernel_size, dilation, padding, stride), 2)
    size = (output_size,) * nd if isinstance(output_size, int) else tuple(output_size)
    if len(size) != nd:
        raise RuntimeError(f"It is expected output_size equals to {nd}, but got size {len(size)}")
    kernel, dilation, padding, stride = _window_params(kernel_size, dilation, padding, stride, nd)
    if cols.dim() not in (2, 3) or any(s == 0 for s in cols.shape[-2:]):
        raise RuntimeError(
            "Expected 2D or 3D (batch mode) tensor for input with possibly 0 batch size and non-zero "
            f"dimensions for input, but got: {list(cols.shape)}"
        )
    if cols.shape[-2] % math.prod(kernel):
        raise RuntimeError(
            "Expected size of input's dimension 1 to be divisible by the product of kernel_size, but "
            f"got input.size(1)={cols.shape[-2]} and kernel_size={_fmt(kernel)}."
        )
    blocks = _num_blocks([s + 2 * p for s, p in zip(size, padding, strict=True)], kernel, dilation, stride)
    if cols.shape[-1] != math.prod(blocks):
        raise RuntimeError(
            f"Given output_size={_fmt(size)}, kernel_size={_fmt(kernel)}, dilation={_fmt(dilation)}, "
            f"padding={_fmt(padding)}, stride={_fmt(stride)}, expected size of input's dimension 2 to "
            f"match the calculated number of sliding blocks {' * '.join(map(str, blocks))} = "
            f"{math.prod(blocks)}, but got input.size(2)={cols.shape[-1]}."
        )
    pads = tuple((p, p) for p in padding)
    return Fold.apply(input, size, kernel, dilation, pads, stride, cols.dim() == 3)


def _conv(
    name: str,
    nd: int,
    input: Tensor,
    weight: Tensor,
    bias: Tensor | None,
    stride: IntOrTuple,
    padding: str | IntOrTuple,
    dilation: IntOrTuple,
    groups: int,
) -> Tensor:
    input, weight = tensor_arg(input, name), tensor_arg(weight, name, "weight", 2)
    bias = tensor_arg(bias, name, "bias", 3, optional=True)
    x, w = input._data, weight._data
    _check_conv(name, nd, x, w, None if bias is None else bias._data, groups)
    stride = _expand_param(stride, nd, "stride")
    dilation = _expand_param(dilation, nd, "dilation")
    if any(s <= 0 for s in stride):
        raise RuntimeError("non-positive stride is not supported")
    if any(d <= 0 for d in dilation):
        raise RuntimeError(f"dilation should be greater than zero, but got {list(dilation)}")
    kernel = tuple(w.shape[2:])
    if any(k <= 0 for k in kernel):
        names = ("kernel_depth", "kernel_height", "kernel_width")[3 - nd :]
        sizes = " ".join(f"{n}: {k}" for n, k in zip(names, kernel, strict=True))
        raise RuntimeError(f"kernel size should be greater than zero, but got {sizes}")
    pads = _conv_padding(padding, kernel, dilation, stride)
    padded = [s + before + after for s, (before, after) in zip(x.shape[-nd:], pads, strict=True)]
    dilated = [d * (k - 1) + 1 for k, d in zip(kernel, dilation, strict=True)]
    if any(p < k for p, k in zip(padded, dilated, strict=True)):
        raise RuntimeError(
            f"Calculated padded input size per channel: {_fmt(padded, ' x ')}. Kernel size: "
            f"{_fmt(dilated, ' x ')}. Kernel size can't be greater than actual input size"
        )
    if autocast_state.active:
        input, weight, bias = to_autocast_dtype(input, weight, bias)
    return ConvNd.apply(input, weight, bias, stride, pads, dilation, groups, x.dim() == nd + 2)


_CONV_DOC = """{dims}-D convolution (cross-correlation, as PyTorch's) computed as im2col + matmul.

    ``input`` (N, C_in, {spatial}) or unbatched (C_in, {spatial}); ``weight``
    (C_out, C_in / groups, {kernel}); ``bias`` (C_out,) or None. ``stride``, ``padding`` and
    ``dilation`` are ints or {dims}-tuples; ``padding`` may also be 'valid' (none) or 'same' (output
    as large as the input, stride 1 only; an odd total goes after). ``groups`` splits the channels
    (``groups == C_in`` is depthwise). Returns (N, C_out, {out}), differentiable in input, weight
    and bias. Raises RuntimeError in PyTorch's words for wrong ranks, channels, bias size, dtype,
    arguments, or a kernel larger than the padded input.
    """


def conv1d(
    input: Tensor,
    weight: Tensor,
    bias: Tensor | None = None,
    stride: IntOrTuple = 1,
    padding: str | IntOrTuple = 0,
    dilation: IntOrTuple = 1,
    groups: int = 1,
) -> Tensor:
    return _conv("conv1d", 1, input, weight, bias, stride, padding, dilation, groups)


def conv2d(
    input: Tensor,
    weight: Tensor,
    bias: Tensor | None = None,
    stride: IntOrTuple = 1,
    padding: str | IntOrTuple = 0,
    dilation: IntOrTuple = 1,
    groups: int = 1,
) -> Tensor:
    return _conv("conv2d", 2, input, weight, bias, stride, padding, dilation, groups)


def conv3d(
    input: Tensor,
    weight: Tensor,
    bias: Tensor | None = None,
    stride: IntOrTuple = 1,
    padding: str | IntOrTuple = 0,
    dilation: IntOrTuple = 1,
    groups: int = 1,
) -> Tensor:
    return _conv("conv3d", 3, input, weight, bias, stride, padding, dilation, groups)


conv1d.__doc__ = _CONV_DOC.format(dims=1, spatial="L", kernel="k", out="L_out")
conv2d.__doc__ = _CONV_DOC.format(dims=2, spatial="H, W", kernel="kH, kW", out="H_out, W_out")
conv3d.__doc__ = _CONV_DOC.format(dims=3, spatial="D, H, W", kernel="kD, kH, kW", out="D_out, H_out, W_out")
