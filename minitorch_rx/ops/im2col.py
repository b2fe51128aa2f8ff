"""im2col kernels of the convolutions in ``ops/conv.py``: windows, columns, col2im, and the
correlation ``out = w @ columns`` built and multiplied a batch slice at a time.

Every rank (1-D, 2-D, 3-D) shares one implementation: windows are ``as_strided`` views of a
zero-padded input, and col2im adds them back one spatial dim at a time. Three column layouts:

- channels-first ``(C*k..., n*L)`` from NCHW data: the copy that fills them moves runs of output
  rows, and the product is ``w (O, C*k) @ cols`` per slice (a bmm over groups), reordered into the
  (N, O, L) output with the bias in one pass;
- row-shifted ``(C*k_w, n, H_padded*W_out)`` for 2-D kernels of several rows with stride 1 along
  the rows (ResNet's 3x3 convolutions from 16 channels): the windows of the kernel's last dim
  only, over every padded row. Kernel row ``i``'s columns are the same buffer shifted by ``i``
  output rows, so the correlation is ``k_h`` accumulated products ``w[:, :, i] @ cols[shift_i]``,
  and the weight gradient ``k_h`` products ``g @ cols[shift_i].T`` (``g`` zero on the padded
  rows past the output's, so one product spans a whole slice). Only where the products are MKL's
  (not float32 on CPU, or no oneDNN): oneDNN cannot read shifted views;
- channels-last ``(n*L, k...*C)`` from a channels-last copy of each slice, for small images with
  many channels (ResNet-20's 8x8 stage): the copy moves runs of ``k_last * C`` channels instead of
  8-float rows, and the product ``w @ cols.T`` by oneDNN. Its transposing copies cost too much
  with few channels or large images (2 GB/s).

Ungrouped products go through ``linear.product``: oneDNN's matmul for float32 on CPU, MKL's
otherwise. Which layout and batch-slice size a correlation uses: the fixed rules
(``use_row_shift``, ``use_channels_last``, ``CHUNK_ELEMENTS``), or under ``mt.backends.autotune``
(CPU only) whichever layout that can compute it ran fastest in its first calls on this machine,
then whichever of ``CHUNK_ELEMENTS`` and ``SLICE_CHUNKS`` (``backends.tuner``). What each layout
and choice measured, and what was tried and not kept: docs/performance.md.
"""

from __future__ import annotations

import math
import threading
from collections.abc import Iterator, Sequence

import torch
import torch.nn.functional as torch_functional

from ..backends import tuner
from . import linear
from .linear import product

Pads = tuple[tuple[int, int], ...]
Slices = list[tuple[int, int]]

#: Below this many output positions along the innermost spatial dim, channels-first columns are
#: copied in two steps (see ``_WindowCopier``) and, with enough channels, channels-last columns
#: are used instead.
TWO_STEP_BELOW = 16
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


def _largest(slices: Slices) -> int:
    """The most samples in one of ``slices`` (0 for none)."""
    return max((stop - start for start, stop in slices), default=0)


# ------------------------------------------------------------------ scratch memory
class _Scratch(threading.local):
    """Per-thread work buffers (columns, products, padded slices), kept between calls: a fresh
    buffer of a few MB costs a page fault per 4 KB on first touch (0.7 ms for LeNet's 1.2 MB
    output of conv1), more than the copy that fills it. Each is at most about a batch slice."""

    def __init__(self) -> None:
        self.buffers: dict[tuple, torch.Tensor] = {}


_scratch = _Scratch()


def scratch(name: str, numel: int, like: torch.Tensor) -> torch.Tensor:
    """A flat, uninitialized buffer of ``numel`` elements of ``like``'s dtype and device, reused by
    the next call with the same ``name`` (callers must not hold it across such a call)."""
    key = (name, like.dtype, like.device)
    buffer = _scratch.buffers.get(key)
    if buffer is None or buffer.numel() < numel:
        buffer = _scratch.buffers[key] = like.new_empty(numel)
    return buffer[:numel]


# ------------------------------------------------------------------ padding and windows
def pad(x: torch.Tensor, pads: Pads) -> torch.Tensor:
    """Zero-pad the spatial dims of ``x`` (N, C, *spatial) by ``(before, after)`` per dim."""
    if not any(before or after for before, after in pads):
        return x
    flat = [amount for before_after in reversed(pads) for amount in before_after]
    return torch_functional.pad(x, flat)


def crop(x: torch.Tensor, pads: Pads) -> torch.Tensor:
    """The inverse of ``pad``: a view without the padding."""
    if not any(before or after for before, after in pads):
        return x
    index = tuple(slice(before, size - after) for size, (before, after) in zip(x.shape[2:], pads, strict=True))
    return x[(slice(None), slice(None), *index)]


def windows(
    padded: torch.Tensor,
    kernel: tuple[int, ...],
    dilation: tuple[int, ...],
    stride: tuple[int, ...],
    out_size: tuple[int, ...],
    channels_first: bool,
) -> torch.Tensor:
    """Every kernel window of ``padded`` (N, C, *S) as a view, no copy.

    Shape ``(C, *kernel, N, *out_size)`` when ``channels_first`` (convolution's columns), else
    ``(N, C, *kernel, *out_size)`` (``unfold``'s).
    """
    n_stride, c_stride, *spatial = padded.stride()
    n, c = padded.shape[:2]
    kernel_strides = [s * d for s, d in zip(spatial, dilation, strict=True)]
    window_strides = [s * st for s, st in zip(spatial, stride, strict=True)]
    if channels_first:
        size = (c, *kernel, n, *out_size)
        strides = (c_stride, *kernel_strides, n_stride, *window_strides)
    else:
        size = (n, c, *kernel, *out_size)
        strides = (n_stride, c_stride, *kernel_strides, *window_strides)
    return padded.as_strided(size, strides)


class _WindowCopier:
    """Copies the windows of batch slices of ``padded`` (N, C, *S) into columns (C, *kernel, n, *out_size).

    In one copy when the output rows are long. Otherwise in two: first the innermost dim's
    windows, into (C, k_last, n, *S[:-1], out_last); then the other dims' windows of that, whose
    rows of the innermost dim are now contiguous, so the big copy moves whole output planes at a
    time instead of single output rows (40% less time for LeNet's second conv).
    """

    __slots__ = ("_source", "_batch_axis", "_strides")

    def __init__(
        self,
        padded: torch.Tensor,
        kernel: tuple[int, ...],
        dilation: tuple[int, ...],
        stride: tuple[int, ...],
        out_size: tuple[int, ...],
    ) -> None:
        nd = len(kernel)
        if nd == 1 or out_size[-1] >= TWO_STEP_BELOW:
            self._source = windows(padded, kernel, dilation, stride, out_size, channels_first=True)
            self._batch_axis = 1 + nd
            self._strides = None
            return
        n_stride, c_stride, *spatial = padded.stride()
        n, c, *sizes = padded.shape
        self._source = padded.as_strided(
            (c, kernel[-1], n, *sizes[:-1], out_size[-1]),
            (c_stride, spatial[-1] * dilation[-1], n_stride, *spatial[:-1], spatial[-1] * stride[-1]),
        )
        self._batch_axis = 2
        # In the contiguous (C, k_last, n, *S[:-1], out_last) copy: the strides of S[:-1], and of a sample.
        inner = [out_size[-1]]
        for size in reversed(sizes[:-1]):
            inner.insert(0, inner[0] * size)
        self._strides = (inner[1:], dilation[:-1], stride[:-1], inner[0])

    def copy(self, start: int, stop: int, out: torch.Tensor) -> None:
        """Fill ``out`` (C, *kernel, stop - start, *out_size), contiguous, with the slice's columns."""
        part = self._source.narrow(self._batch_axis, start, stop - start)
        if self._strides is None:
            out.copy_(part)
            return
        part = scratch("window rows", part.numel(), part).view(part.shape).copy_(part)
        spatial, dilation, stride, sample = self._strides
        k_last, count = part.shape[1:3]
        out.copy_(
            part.as_strided(
                out.shape,
                (
                    k_last * count * sample,
                    *(s * d for s, d in zip(spatial, dilation, strict=True)),
                    count * sample,
                    sample,
                    *(s * st for s, st in zip(spatial, stride, strict=True)),
                    1,
                ),
            )
        )


class Col2im:
    """Adds every window of columns (A, B, *kernel, *out_size) into a zero-filled (A, B, *padded)
    tensor or view: the adjoint of ``windows``, with its index tuples computed once.

    One spatial dim at a time, outermost first: after the offsets of dim ``d`` are added, the
    next tensor has that dim at its padded size and one kernel dim fewer, so each add moves whole
    rows of the remaining dims.
    """

    __slots__ = ("_indices", "_padded")

    def __init__(
        self,
        kernel: tuple[int, ...],
        dilation: tuple[int, ...],
        stride: tuple[int, ...],
        out_size: tuple[int, ...],
        padded: tuple[int, ...],
    ) -> None:
        nd = len(out_size)
        axis = nd + 1  # where dim d sits once kernel axis d (always axis 2) is selected away
        self._padded = padded
        self._indices = []
        for d in range(nd):
            span = stride[d] * (out_size[d] - 1) + 1
            dims = 2 + (nd - 1 - d) + nd  # the target's rank: two leading, kernel dims left, spatial
            per_offset = []
            for offset in range(kernel[d]):
                start = offset * dilation[d]
                index = [slice(None)] * dims
                index[axis] = slice(start, start + span, stride[d])
                per_offset.append(tuple(index))
            self._indices.append(per_offset)

    def __call__(self, cols: torch.Tensor, out: torch.Tensor) -> torch.Tensor:
        nd = len(self._padded)
        current = cols
        for d, per_offset in enumerate(self._indices):
            if d == nd - 1:
                target = out
            else:
                shape = list(current.shape)
                del shape[2]
                shape[nd + 1] = self._padded[d]
                target = scratch(f"col2im {d}", math.prod(shape), current).view(shape).zero_()
            for offset, index in enumerate(per_offset):
                target[index].add_(current.select(2, offset))
            current = target
        return out


# ------------------------------------------------------------------ columns of batch slices
class _PaddedSlices:
    """Batch slices of ``x`` (N, C, *S), zero-padded: one zero-bordered buffer as large as the
    largest slice, whose interior each slice overwrites (the border stays zero). Channels-last
    ``(n, *S_padded, C)`` when ``channels_last``. Without padding (and channels-first) the
    slices are read from ``x`` itself. Windows are taken from ``source``, at ``fill``'s offset."""

    __slots__ = ("source", "_x", "_interior", "_permutation")

    def __init__(self, x: torch.Tensor, pads: Pads, largest: int, channels_last: bool) -> None:
        self._x = x
        nd = x.dim() - 2
        self._permutation = (0, *range(2, 2 + nd), 1) if channels_last else None
        if not channels_last and not any(before or after for before, after in pads):
            self.source = x
            self._interior = None
            return
        channels, *sizes = x.shape[1:]
        padded = [s + before + after for s, (before, after) in zip(sizes, pads, strict=True)]
        shape = (largest, *padded, channels) if channels_last else (largest, channels, *padded)
        self.source = scratch("padded", math.prod(shape), x).view(shape).zero_()
        spatial = tuple(slice(before, before + s) for s, (before, _) in zip(sizes, pads, strict=True))
        index = (slice(None), *spatial) if channels_last else (slice(None), slice(None), *spatial)
        self._interior = self.source[index]

    def fill(self, start: int, stop: int) -> int:
        """Make samples ``start:stop`` of ``x`` readable in ``source``; return where they begin."""
        interior = self._interior
        if interior is None:
            return start
        part = self._x[start:stop]
        if self._permutation is not None:
            part = part.permute(self._permutation)
        (interior if stop - start == len(interior) else interior[: stop - start]).copy_(part)
        return 0


def channels_first_columns(
    x: torch.Tensor,
    pads: Pads,
    kernel: tuple[int, ...],
    dilation: tuple[int, ...],
    stride: tuple[int, ...],
    out_size: tuple[int, ...],
    slices: Slices,
) -> Iterator[tuple[int, int, torch.Tensor]]:
    """``(start, stop, cols)`` per batch slice: cols (C, *kernel, n, *out_size), reused between slices."""
    channels = x.shape[1]
    positions = math.prod(out_size)
    largest = _largest(slices)
    per_sample = channels * math.prod(kernel) * positions
    buffer = scratch("columns", per_sample * largest, x)
    padded = _PaddedSlices(x, pads, largest, channels_last=False)
    copier = _WindowCopier(padded.source, kernel, dilation, stride, out_size)
    full = buffer.view(channels, *kernel, largest, *out_size)
    for start, stop in slices:
        size = stop - start
        cols = full if size == largest else buffer[: per_sample * size].view(channels, *kernel, size, *out_size)
        offset = padded.fill(start, stop)
        copier.copy(offset, offset + size, cols)
        yield start, stop, cols


def row_shifted_columns(
    x: torch.Tensor,
    pads: Pads,
    k_w: int,
    dilation: tuple[int, ...],
    stride: tuple[int, ...],
    out_w: int,
    slices: Slices,
) -> Iterator[tuple[int, int, torch.Tensor]]:
    """``(start, stop, cols)`` per batch slice of a 2-D ``x`` (N, C, H, W): the windows of the
    kernel's last dim only, over every padded row, ``cols[(c, j), s, r * out_w + q] =
    x_padded[s, c, r, q * stride + j * dilation]``, shape (C*k_w, n, H_padded*out_w), reused.

    With stride 1 along the rows, kernel row ``i`` of output position ``p`` reads
    ``cols[:, s, p + i * dilation * out_w]``: each kernel row's columns are a shifted view.
    """
    channels = x.shape[1]
    padded_h = x.shape[2] + pads[0][0] + pads[0][1]
    largest = _largest(slices)
    per_sample = channels * k_w * padded_h * out_w
    buffer = scratch("columns", per_sample * largest, x)
    padded = _PaddedSlices(x, pads, largest, channels_last=False)
    n_stride, c_stride, h_stride, w_stride = padded.source.stride()
    windows = padded.source.as_strided(
        (channels, k_w, len(padded.source), padded_h, out_w),
        (c_stride, w_stride * dilation[1], n_stride, h_stride, w_stride * stride[1]),
    )
    for start, stop in slices:
        size = stop - start
        offset = padded.fill(start, stop)
        cols = buffer[: per_sample * size].view(channels, k_w, size, padded_h, out_w)
        cols.copy_(windows.narrow(2, offset, size))
        yield start, stop, cols.view(channels * k_w, size, padded_h * out_w)


def channels_last_columns(
    x: torch.Tensor,
    pads: Pads,
    kernel: tuple[int, ...],
    dilation: tuple[int, ...],
    stride: tuple[int, ...],
    out_size: tuple[int, ...],
    slices: Slices,
) -> Iterator[tuple[int, int, torch.Tensor]]:
    """``(start, stop, cols)`` per batch slice: cols (n*L, *kernel * C), position-major, reused."""
    channels = x.shape[1]
    positions = math.prod(out_size)
    largest = _largest(slices)
    per_position = math.prod(kernel) * channels
    buffer = scratch("columns", per_position * positions * largest, x)
    padded = _PaddedSlices(x, pads, largest, channels_last=True)
    source = padded.source  # (largest, *S_padded, C)
    n_stride, *spatial, _ = source.stride()
    windows = source.as_strided(
        (largest, *out_size, *kernel, channels),
        (
            n_stride,
            *(s * st for s, st in zip(spatial, stride, strict=True)),
            *(s * d for s, d in zip(spatial, dilation, strict=True)),
            1,
        ),
    )
    for start, stop in slices:
        size = stop - start
        padded.fill(start, stop)
        cols = buffer[: per_position * positions * size].view(size, *out_size, *kernel, channels)
        cols.copy_(windows[:size])
        yield start, stop, cols.view(size * positions, per_position)


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
        layout = tuner.decided("conv layout", key)
        if layout not in layouts:  # still trying the layouts, at the default slice size

            def run_layout(layout):
                return self._run(layout, weight, bias, out, out_grad, out_channels)

            return tuner.run("conv layout", key, layouts, layouts[0], run_layout)
        per_sample = self.x.shape[1] * math.prod(self.kernel) * self.positions
        chunks, seen = [], set()
        for chunk in (CHUNK_ELEMENTS, *SLICE_CHUNKS):
            slices = tuple(batch_slices(len(self.x), per_sample, chunk))
            if slices not in seen:
                seen.add(slices)
                chunks.append(str(chunk))

        def run_chunk(chunk):
            self.chunk = int(chunk)
            return self._run(layout, weight, bias, out, out_grad, out_channels)

        return tuner.run("conv slice", (*key, layout), chunks, chunks[0], run_chunk)

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
        largest = _largest(slices)
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
    largest = _largest(slices)
    buffer = scratch("columns", groups * rows * largest * positions, g)
    scatter = Col2im(kernel, dilation, stride, out_size, padded_size)
    for start, stop in slices:
        size = stop - start
        grad_cols = buffer[: groups * rows * size * positions].view(groups, rows, size * positions)
        torch.bmm(w_t, channels_first_slice(g, groups, start, stop), out=grad_cols)
        grad_cols = grad_cols.view(channels, *kernel, size, *out_size).movedim(1 + len(kernel), 1)
        scatter(grad_cols, grad_padded[start:stop].transpose(0, 1))
    return crop(grad_padded, pads)
