"""The im2col correlation ``out = w @ columns`` of ``ops/conv.py`` and its gradients, built and
multiplied a batch slice at a time (the columns themselves: ``ops/im2col.py``).

Per layout, the products are: channels-first, ``w (O, C*k) @ cols`` per slice (a bmm over
groups), reordered into the (N, O, L) output with the bias in one pass; row-shifted, ``k_h``
accumulated products ``w[:, :, i] @ cols[shift_i]``, and for the weight gradient ``k_h`` products
``g @ cols[shift_i].T`` (``g`` zero on the padded rows past the output's, so one product spans a
whole slice), only where the products are MKL's (not float32 on CPU, or no oneDNN): oneDNN cannot
read shifted views; channels-last, ``w @ cols.T`` by oneDNN, for small images with many channels
(ResNet-20's 8x8 stage): its transposing copies cost too much with few channels or large images.

Ungrouped products go through ``linear.product``: oneDNN's matmul for float32 on CPU, MKL's
otherwise. Which layout and batch-slice size a correlation uses: the fixed rules
(``use_row_shift``, ``use_channels_last``, ``CHUNK_ELEMENTS``), or under ``mt.backends.autotune``
(CPU only) whichever layout that can compute it ran fastest in its first calls on this machine,
then whichever of ``CHUNK_ELEMENTS`` and ``SLICE_CHUNKS`` (``backends.tuner``). What each layout
and choice measured, and what was tried and not kept: docs/performance.md.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import torch

from ..backends import tuner
from . import linear
from .im2col import (
    Col2im,
    Pads,
    Slices,
    channels_first_columns,
    channels_last_columns,
    crop,
    largest_slice,
    row_shifted_columns,
    scratch,
)
from .linear import product

#: The fewest channels for which channels-last columns pay for their transposing copies.
CHANNELS_LAST_FROM = 16
#: Channels-last columns for output rows shorter than this.
CHANNELS_LAST_BELOW = 16
#: 2-D correlations whose columns would have at least this many rows (``C * k_w``) per kernel row
#: use row-shifted columns (``row_shifted_columns``).
ROW_SHIFT_FROM = 48
#: Columns are built and used a batch slice at a time, about this many elements per slice, so
#: that they are still in cache when the matmul reads them.
CHUNK_ELEMENTS = 1 << 19
#: The other slice sizes ``mt.backends.autotune`` measures against ``CHUNK_ELEMENTS``.
SLICE_CHUNKS = (1 << 18, 1 << 20)
tuner.MEMORY_COST["conv slice"] = int  # a slice's columns: its element count


def batch_slices(n: int, per_sample: int, chunk: int | None = None) -> list[tuple[int, int]]:
    """Equal ``[start, stop)`` ranges of the batch whose columns hold at most ``chunk`` (default
    ``CHUNK_ELEMENTS``) elements (or one sample)."""
    count = min(n, -(-n * per_sample // (chunk or CHUNK_ELEMENTS)))
    step = max(1, -(-n // max(count, 1)))
    return [(start, min(n, start + step)) for start in range(0, n, step)]


# ------------------------------------------------------------------ layouts
def onednn_products(x: torch.Tensor) -> bool:
    """Whether the products of ``x``'s columns run on oneDNN (float32 on CPU, where torch has it)."""
    return linear.ONEDNN is not None and x.dtype == torch.float32 and x.device.type == "cpu"


def use_channels_last(x: torch.Tensor, groups: int, out_size: tuple[int, ...]) -> bool:
    """Whether channels-last columns (and oneDNN's matmul) suit this convolution: float32 on
    CPU, no groups, many channels, and output rows too short for fast channels-first copies."""
    return (
        groups == 1
        and onednn_products(x)
        and x.shape[1] >= CHANNELS_LAST_FROM
        and len(out_size) > 1
        and out_size[-1] < CHANNELS_LAST_BELOW
    )


def use_row_shift(
    x: torch.Tensor, groups: int, kernel: tuple[int, ...], stride: tuple[int, ...], out_size: tuple[int, ...]
) -> bool:
    """Whether ``correlate`` uses row-shifted columns: products by MKL (not oneDNN, see
    ``onednn_products``), 2-D, no groups, stride 1 along the rows, a kernel of several rows, and
    enough channels for products of ``ROW_SHIFT_FROM`` rows. They hold k_h times fewer elements
    than full columns (a third for 3x3 kernels), and their smaller products ran faster in MKL
    (ResNet-20's 16-32 channels: 74-87 against 56-71 GFLOP/s). oneDNN's kernel cannot read the
    shifted views (their rows are padded apart; see ``linear.product``), and full columns
    multiplied by oneDNN took 0.64-0.78x the row-shifted time for ResNet-20's 16x16 and 32x32
    stages (a layer's forward and backward, interleaved with torch's)."""
    return (
        groups == 1
        and not onednn_products(x)
        and len(kernel) == 2
        and stride[0] == 1
        and kernel[0] > 1
        and x.shape[1] * kernel[1] >= ROW_SHIFT_FROM
        and not use_channels_last(x, groups, out_size)
    )


def position_major(weight: torch.Tensor) -> torch.Tensor:
    """A kernel (O, C, *k) as (O, *k * C): the order of channels-last columns."""
    nd = weight.dim() - 2
    return weight.permute(0, *range(2, 2 + nd), 1).reshape(weight.shape[0], -1)


# ------------------------------------------------------------------ correlation
def correlate(
    x: torch.Tensor,
    pads: Pads,
    weight: torch.Tensor,
    bias: torch.Tensor | None,
    dilation: tuple[int, ...],
    stride: tuple[int, ...],
    out_size: tuple[int, ...],
    groups: int,
) -> torch.Tensor:
    """``out[n, o] = b[o] + sum_{c, k} w[o, c, k] * x_padded[n, c, window(k)]`` as (N, O, *out_size),
    by im2col + matmuls, a batch slice at a time."""
    n = x.shape[0]
    result = x.new_empty(n, weight.shape[0], *out_size)
    _Correlation(x, pads, tuple(weight.shape[2:]), dilation, stride, out_size, groups).run(
        weight, bias, result.view(n, weight.shape[0], math.prod(out_size)), None
    )
    return result


def weight_gradient(
    x: torch.Tensor,
    pads: Pads,
    g: torch.Tensor,
    weight_shape: torch.Size,
    dilation: tuple[int, ...],
    stride: tuple[int, ...],
    out_size: tuple[int, ...],
    groups: int,
) -> torch.Tensor:
    """``dL/dw`` of ``correlate`` from the output gradient ``g`` (N, O, L): the sum over slices of
    ``g[slice] @ cols.T``, the columns rebuilt from ``x`` one slice at a time."""
    correlation = _Correlation(x, pads, tuple(weight_shape[2:]), dilation, stride, out_size, groups)
    return correlation.run(None, None, None, g, weight_shape[0])


def transposed_gradients(
    x: torch.Tensor, g: torch.Tensor, g_pads: Pads, weight: torch.Tensor, dilation: tuple[int, ...]
) -> tuple[torch.Tensor, torch.Tensor]:
    """``dL/dx`` and ``dL/dw`` of an ungrouped stride-1 ``correlate(x, weight)`` from one set of
    columns, those of the output gradient ``g`` (N, O, *out_size) padded by ``g_pads``.

    ``dx`` is the correlation of the padded ``g`` with the flipped, transposed kernel ``v``; and
    ``dw`` is ``v``'s gradient in that correlation for the output gradient ``x``, flipped back:
    ``dw[o, c, k] = sum_{n, p} x[n, c, p] * g_padded[n, o, p + flip(k)]``. Building columns once
    for both, instead of also rebuilding ``x``'s, took 4-10% off a ResNet-20 step (A/B by step
    in one process).
    """
    n, channels, *size = x.shape
    nd = len(size)
    spatial = tuple(range(2, 2 + nd))
    flipped = weight.flip(spatial).transpose(0, 1)
    grad_x = x.new_empty(x.shape)
    correlation = _Correlation(g, g_pads, tuple(weight.shape[2:]), dilation, (1,) * nd, tuple(size), 1)
    positions = math.prod(size)
    grad_flipped = correlation.run(
        flipped, None, grad_x.view(n, channels, positions), x.reshape(n, channels, positions)
    )
    return grad_x, grad_flipped.transpose(0, 1).flip(spatial)


def channels_first_slice(t: torch.Tensor, groups: int, start: int, stop: int) -> torch.Tensor:
    """Samples ``start:stop`` of ``t`` (N, O, L) channels-first, (G, O/G, n*L), copied into a work
    buffer (a slice's: it is read while still in cache)."""
    channels, positions = t.shape[1:]
    block = scratch("channels first", (stop - start) * channels * positions, t)
    block = block.view(channels, stop - start, positions).copy_(t[start:stop].transpose(0, 1))
    return block.view(groups, channels // groups, (stop - start) * positions)


class _Correlation:
    """The im2col columns of one correlation of ``x`` (N, C, *S), in the layout that suits it,
    and the products that use them: ``run`` computes the output and/or the weight gradient for
    an output gradient, a batch slice at a time, building each slice's columns once."""

    __slots__ = ("x", "pads", "kernel", "dilation", "stride", "out_size", "groups", "positions", "chunk")

    def __init__(
        self,
        x: torch.Tensor,
        pads: Pads,
        kernel: tuple[int, ...],
        dilation: tuple[int, ...],
        stride: tuple[int, ...],
        out_size: tuple[int, ...],
        groups: int,
    ) -> None:
        self.x, self.pads, self.kernel, self.dilation = x, pads, kernel, dilation
        self.stride, self.out_size, self.groups = stride, out_size, groups
        self.positions = math.prod(out_size)
        self.chunk = CHUNK_ELEMENTS

    def run(
        self,
        weight: torch.Tensor | None,
        bias: torch.Tensor | None,
        out: torch.Tensor | None,
        out_grad: torch.Tensor | None,
        out_channels: int | None = None,
    ) -> torch.Tensor | None:
        """Write ``b + w @ cols`` into ``out`` (N, O, L) when ``weight`` is given; return the weight
        gradient (O, C/G, *kernel) for ``out_grad`` (N, O, L) when that is given."""
        out_channels = weight.shape[0] if weight is not None else out_channels
        layouts = self._layouts()
        if len(layouts) == 1 or self.x.device.type != "cpu":
            return self._run(layouts[0], weight, bias, out, out_grad, out_channels)
        mode = (weight is not None, out_grad is not None)
        key = (*self.x.shape, self.kernel, self.stride, self.dilation, self.pads, self.groups, str(self.x.dtype), mode)
        spare = []  # the trials' output, made at the first trial: ``out`` is the real call's

        def trial(layout):
            if out is not None and not spare:
                spare.append(torch.empty_like(out))
            output = spare[0] if spare else None
            return output, self._run(layout, weight, bias, output, out_grad, out_channels)

        layout = tuner.decided("conv layout", key)
        if layout not in layouts:  # chosen before the first real call: every call computes alike
            layout = tuner.choose("conv layout", key, layouts, layouts[0], trial)
        key = (*key, layout)
        chunk = tuner.decided("conv slice", key)
        if chunk is None:
            per_sample = self.x.shape[1] * math.prod(self.kernel) * self.positions
            chunks, seen = [], set()
            for size in (CHUNK_ELEMENTS, *SLICE_CHUNKS):
                slices = tuple(batch_slices(len(self.x), per_sample, size))
                if slices not in seen:
                    seen.add(slices)
                    chunks.append(str(size))

            def trial_chunk(size):
                self.chunk = int(size)
                return trial(layout)

            chunk = tuner.choose("conv slice", key, chunks, chunks[0], trial_chunk)
        self.chunk = int(chunk)
        return self._run(layout, weight, bias, out, out_grad, out_channels)

    def _layouts(self) -> tuple[str, ...]:
        """The column layouts that can compute this correlation, the fixed rule's choice first:
        row-shifted (``use_row_shift``), else channels-last (``use_channels_last``), else
        channels-first; the others only under ``mt.backends.autotune``."""
        x, groups, kernel, out_size = self.x, self.groups, self.kernel, self.out_size
        if use_row_shift(x, groups, kernel, self.stride, out_size):
            default = "row-shifted"
        elif use_channels_last(x, groups, out_size):
            default = "channels-last"
        else:
            default = "channels-first"
        if not tuner.enabled:
            return (default,)
        possible = ["channels-first"]
        if groups == 1 and len(out_size) > 1:
            possible.append("channels-last")
        if groups == 1 and len(kernel) == 2 and self.stride[0] == 1 and kernel[0] > 1:
            possible.append("row-shifted")
        return (default, *(layout for layout in possible if layout != default))

    def _run(self, layout, weight, bias, out, out_grad, out_channels):
        if layout == "row-shifted":
            return self._row_shifted(weight, bias, out, out_grad, out_channels)
        if layout == "channels-last":
            return self._channels_last(weight, bias, out, out_grad, out_channels)
        return self._channels_first(weight, bias, out, out_grad, out_channels)

    def _row_shifted(self, weight, bias, out, out_grad, out_channels):
        """One (O, C*k_w) @ (C*k_w, L) product per kernel row and sample, accumulated; kernel row
        ``i``'s weight gradient is ``g_rows @ cols[:, shift_i:].T`` over a whole slice, where
        ``g_rows`` holds each sample's output gradient on the padded rows' grid (zero on the rows
        past the output's)."""
        x, dilation, positions = self.x, self.dilation, self.positions
        n, channels = x.shape[:2]
        k_h, k_w = self.kernel
        out_w = self.out_size[1]
        span = (x.shape[2] + self.pads[0][0] + self.pads[0][1]) * out_w  # the padded rows
        rows = channels * k_w
        slices = batch_slices(n, rows * span, self.chunk)
        largest = largest_slice(slices)
        if weight is not None:
            w_rows = weight.permute(2, 0, 1, 3).reshape(k_h, out_channels, rows).expand(largest, -1, -1, -1)
            bias_column = None if bias is None else bias.view(1, out_channels, 1)
        if out_grad is not None:
            grad = x.new_zeros(k_h, out_channels, rows)
            last_shift = (k_h - 1) * dilation[0] * out_w
        shifts = [row * dilation[0] * out_w for row in range(k_h)]
        for start, stop, cols in row_shifted_columns(x, self.pads, k_w, dilation, self.stride, out_w, slices):
            size = stop - start
            if weight is not None:
                target = out[start:stop]
                for row, shift in enumerate(shifts):
                    samples = cols[:, :, shift : shift + positions].transpose(0, 1)
                    w_row = w_rows[:size, row]
                    if row:
                        target.baddbmm_(w_row, samples)
                    elif bias_column is None:
                        torch.bmm(w_row, samples, out=target)
                    else:
                        torch.baddbmm(bias_column, w_row, samples, out=target)
            if out_grad is not None:
                g_rows = scratch("output gradient", out_channels * size * span, x).view(out_channels, size, span)
                g_rows[:, :, :positions].copy_(out_grad[start:stop].transpose(0, 1))
                g_rows[:, :, positions:].zero_()
                length = size * span - last_shift
                g_flat = g_rows.view(out_channels, size * span)[:, :length]
                flat = cols.view(rows, size * span)
                for row, shift in enumerate(shifts):
                    grad[row].addmm_(g_flat, flat[:, shift : shift + length].t())
        if out_grad is not None:
            return grad.view(k_h, out_channels, channels, k_w).permute(1, 2, 0, 3).contiguous()
        return None

    def _channels_last(self, weight, bias, out, out_grad, out_channels):
        """Products with position-major columns (n*L, k...*C): ``w @ cols.T`` per slice, reordered
        into ``out``; the weight gradient ``g_slice @ cols`` (position-major, reordered at the end)."""
        kernel, positions = self.kernel, self.positions
        slices = batch_slices(len(self.x), self.x.shape[1] * math.prod(kernel) * positions, self.chunk)
        w = None if weight is None else position_major(weight)
        if out_grad is not None:
            grad = self.x.new_zeros(out_channels, math.prod(kernel) * self.x.shape[1])
        columns = channels_last_columns(self.x, self.pads, kernel, self.dilation, self.stride, self.out_size, slices)
        for start, stop, cols in columns:
            if weight is not None:
                _write_slice(out, start, stop, product(w, cols.t()), bias)
            if out_grad is not None:
                grad.add_(product(channels_first_slice(out_grad, 1, start, stop)[0], cols))
        if out_grad is not None:
            nd = len(kernel)
            return grad.view(out_channels, *kernel, -1).permute(0, nd + 1, *range(1, nd + 1)).contiguous()
        return None

    def _channels_first(self, weight, bias, out, out_grad, out_channels):
        """Products with channels-first columns (C/G*k..., n*L) per group and slice: ``w @ cols``
        reordered into ``out``, the weight gradient ``g_slice @ cols.T``. Ungrouped products go
        through ``linear.product`` (oneDNN for float32 on CPU: 1.5-2.2x MKL's speed for these
        shapes on AMD EPYC/AVX512, e.g. (32, 288) @ (288, 4096) 156 against 84 GFLOP/s)."""
        x, groups, positions = self.x, self.groups, self.positions
        n, channels = x.shape[:2]
        rows = channels // groups * math.prod(self.kernel)
        slices = batch_slices(n, channels * math.prod(self.kernel) * positions, self.chunk)
        if weight is not None:
            w = weight.reshape(groups, out_channels // groups, rows)
            bias_column = None if bias is None else bias.view(groups, out_channels // groups, 1)
        if out_grad is not None:
            grad = x.new_zeros(groups, out_channels // groups, rows)
        columns = channels_first_columns(x, self.pads, self.kernel, self.dilation, self.stride, self.out_size, slices)
        for start, stop, cols in columns:
            per_slice = cols.view(groups, rows, (stop - start) * positions)
            if weight is not None and groups == 1 and linear.onednn_eligible(w[0], per_slice[0]):
                _write_slice(out, start, stop, product(w[0], per_slice[0]), bias)
            elif weight is not None:
                # MKL's product into a work buffer, the bias inside it, rounded once in half
                # precision (as torch's convolution).
                buffer = scratch("product", out_channels * per_slice.shape[2], x)
                y = buffer.view(groups, -1, per_slice.shape[2])
                if bias_column is None:
                    torch.bmm(w, per_slice, out=y)
                else:
                    torch.baddbmm(bias_column, w, per_slice, out=y)
                _write_slice(out, start, stop, y, None)
            if out_grad is not None:
                g_t = channels_first_slice(out_grad, groups, start, stop)
                if groups == 1:
                    grad[0].add_(product(g_t[0], per_slice[0].t()))
                else:
                    grad.baddbmm_(g_t, per_slice.transpose(1, 2))
        if out_grad is not None:
            return grad.view(out_channels, channels // groups, *self.kernel)
        return None


def _write_slice(out: torch.Tensor, start: int, stop: int, y: torch.Tensor, bias: torch.Tensor | None) -> None:
    """Samples ``start:stop`` of ``out`` (N, O, L) from a slice's channels-first product ``y``
    (O, n*L) (or grouped (G, O/G, n*L)), plus ``bias``, in one pass."""
    size, out_channels, positions = stop - start, out.shape[1], out.shape[2]
    source = y.reshape(out_channels, size, positions).transpose(0, 1)
    if bias is None:
        out[start:stop].copy_(source)
    else:
        torch.add(source, bias.view(1, out_channels, 1), out=out[start:stop])


def transposed_padding(
    kernel: Sequence[int], dilation: Sequence[int], stride: Sequence[int], pads: Pads
) -> Pads | None:
    """The padding of the output gradient whose correlation with the flipped kernel is the input
    gradient: stride 1 and padding within the dilated kernel only (else None)."""
    if any(s != 1 for s in stride):
        return None
    g_pads = tuple(
        (d * (k - 1) - before, d * (k - 1) - after)
        for k, d, (before, after) in zip(kernel, dilation, pads, strict=True)
    )
    if any(before < 0 or after < 0 for before, after in g_pads):
        return None
    return g_pads


def input_gradient_by_col2im(
    weight: torch.Tensor,
    g: torch.Tensor,
    x_shape: torch.Size,
    pads: Pads,
    dilation: tuple[int, ...],
    stride: tuple[int, ...],
    out_size: tuple[int, ...],
    groups: int,
    slices: Slices,
) -> torch.Tensor:
    """``dL/dx`` by col2im of ``w.T @ g`` (``g`` (N, O, L)) one slice at a time (any stride and padding).

    The product is MKL's, written into a work buffer: oneDNN's returns a fresh tensor, as large
    as the columns, and its first touch page-faulted (LeNet-5's conv2: 344 faults, 767 us a
    product, against 168 us for MKL's into the buffer)."""
    n, channels = x_shape[:2]
    out_channels = weight.shape[0]
    kernel = tuple(weight.shape[2:])
    positions = math.prod(out_size)
    rows = channels // groups * math.prod(kernel)
    w_t = weight.reshape(groups, out_channels // groups, rows).transpose(1, 2)
    padded_size = tuple(s + before + after for s, (before, after) in zip(x_shape[2:], pads, strict=True))
    grad_padded = g.new_zeros(n, channels, *padded_size)
    largest = largest_slice(slices)
    buffer = scratch("columns", groups * rows * largest * positions, g)
    scatter = Col2im(kernel, dilation, stride, out_size, padded_size)
    for start, stop in slices:
        size = stop - start
        grad_cols = buffer[: groups * rows * size * positions].view(groups, rows, size * positions)
        torch.bmm(w_t, channels_first_slice(g, groups, start, stop), out=grad_cols)
        grad_cols = grad_cols.view(channels, *kernel, size, *out_size).movedim(1 + len(kernel), 1)
        scatter(grad_cols, grad_padded[start:stop].transpose(0, 1))
    return crop(grad_padded, pads)
