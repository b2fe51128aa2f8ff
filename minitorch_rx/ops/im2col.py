"""im2col of the convolutions in ``ops/conv.py``: windows, columns and col2im, the columns built
a batch slice at a time into reused work buffers.

Every rank (1-D, 2-D, 3-D) shares one implementation: windows are ``as_strided`` views of a
zero-padded input, and col2im adds them back one spatial dim at a time. Three column layouts:

- channels-first ``(C*k..., n*L)`` from NCHW data: the copy that fills them moves runs of output
  rows;
- row-shifted ``(C*k_w, n, H_padded*W_out)`` for 2-D kernels of several rows with stride 1 along
  the rows: the windows of the kernel's last dim only, over every padded row. Kernel row ``i``'s
  columns are the same buffer shifted by ``i`` output rows;
- channels-last ``(n*L, k...*C)`` from a channels-last copy of each slice: the copy moves runs of
  ``k_last * C`` channels instead of short rows.

Which layout a correlation uses, and the products that read the columns: ``ops/correlation.py``.
"""

from __future__ import annotations

import math
import threading
from collections.abc import Iterator

import torch
import torch.nn.functional as torch_functional

Pads = tuple[tuple[int, int], ...]
Slices = list[tuple[int, int]]

#: Below this many output positions along the innermost spatial dim, channels-first columns are
#: copied in two steps (see ``_WindowCopier``).
TWO_STEP_BELOW = 16


def largest_slice(slices: Slices) -> int:
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
    largest = largest_slice(slices)
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
    largest = largest_slice(slices)
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
    largest = largest_slice(slices)
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
