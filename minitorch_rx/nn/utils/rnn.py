"""Variable-length sequences, as ``torch.nn.utils.rnn``: padding a list of sequences into one
tensor, and ``PackedSequence``, the time-major packing of a padded batch that recurrent layers take.

Everything is composed of recorded ops (pad, getitem, cat, stack), so gradients flow through
packing and unpacking as they do in PyTorch. ``batch_sizes``, ``sorted_indices`` and
``unsorted_indices`` are int64 CPU tensors, as PyTorch's.

>>> import minitorch_rx as mt
>>> from minitorch_rx.nn.utils.rnn import pad_sequence, pack_padded_sequence, pad_packed_sequence
>>> padded = pad_sequence([mt.tensor([1.0, 2.0, 3.0]), mt.tensor([4.0])], batch_first=True)
>>> packed = pack_padded_sequence(padded, [3, 1], batch_first=True)
>>> packed.data.tolist(), packed.batch_sizes.tolist()
([1.0, 4.0, 2.0, 3.0], [2, 1, 1])
>>> pad_packed_sequence(packed, batch_first=True)[0].tolist()
[[1.0, 2.0, 3.0], [4.0, 0.0, 0.0]]
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

import torch

from ...autograd.tensor import Tensor, is_torch_data
from ...ops.pad import pad
from ...ops.shape import cat, getitem, stack, transpose

__all__ = [
    "PackedSequence",
    "pack_padded_sequence",
    "pack_sequence",
    "pad_packed_sequence",
    "pad_sequence",
    "unpack_sequence",
    "unpad_sequence",
]


def _as_mt(t: Tensor | torch.Tensor) -> Tensor:
    return Tensor._make(t, None) if is_torch_data(t) else t


def _index_tensor(values: Tensor | torch.Tensor | None) -> Tensor | None:
    if values is None:
        return None
    data = values._data if isinstance(values, Tensor) else torch.as_tensor(values)
    return Tensor._make(data.to(torch.int64), None)


def _invert_permutation(permutation: Tensor | None) -> Tensor | None:
    if permutation is None:
        return None
    data = permutation._data
    inverse = torch.empty_like(data).scatter_(0, data, torch.arange(data.numel(), device=data.device))
    return Tensor._make(inverse, None)


class _PackedSequenceFields(NamedTuple):
    data: Tensor
    batch_sizes: Tensor
    sorted_indices: Tensor | None
    unsorted_indices: Tensor | None


class PackedSequence(_PackedSequenceFields):
    """``data`` holds the time steps one after another, each with the sequences still running at
    that step (``batch_sizes[t]`` of them, longest first); ``sorted_indices`` maps the packed order
    to the batch's (``None`` when it was already sorted), ``unsorted_indices`` back."""

    def __new__(
        cls,
        data: Tensor,
        batch_sizes: Tensor | None = None,
        sorted_indices: Tensor | None = None,
        unsorted_indices: Tensor | None = None,
    ) -> PackedSequence:
        if batch_sizes is None:
            raise ValueError("PackedSequence needs batch_sizes: build one with pack_padded_sequence or pack_sequence")
        sorted_indices = _index_tensor(sorted_indices)
        if unsorted_indices is None:
            unsorted_indices = _invert_permutation(sorted_indices)
        return super().__new__(
            cls, _as_mt(data), _index_tensor(batch_sizes), sorted_indices, _index_tensor(unsorted_indices)
        )

    def to(self, *args, **kwargs) -> PackedSequence:
        """``data`` moved/cast as ``Tensor.to``; the indices follow its device, ``batch_sizes`` stays on the CPU."""
        data = self.data.to(*args, **kwargs)
        if data is self.data:
            return self
        device = data.device
        sorted_indices = None if self.sorted_indices is None else self.sorted_indices.to(device)
        unsorted_indices = None if self.unsorted_indices is None else self.unsorted_indices.to(device)
        return type(self)(data, self.batch_sizes, sorted_indices, unsorted_indices)

    def cpu(self) -> PackedSequence:
        return self.to("cpu")

    def cuda(self, device=None) -> PackedSequence:
        return self.to(torch.device("cuda" if device is None else device))

    def double(self) -> PackedSequence:
        return self.to(torch.float64)

    def float(self) -> PackedSequence:
        return self.to(torch.float32)

    def half(self) -> PackedSequence:
        return self.to(torch.float16)

    @property
    def is_cuda(self) -> bool:
        return self.data.is_cuda


def _lengths_tensor(lengths) -> torch.Tensor:
    if isinstance(lengths, Tensor):
        lengths = lengths._data
    return torch.as_tensor(lengths, dtype=torch.int64, device="cpu")


def pad_sequence(
    sequences: Sequence[Tensor],
    batch_first: bool = False,
    padding_value: float = 0.0,
    padding_side: str = "right",
) -> Tensor:
    """Stack sequences of shapes ``(L_i, *)`` into ``(max L, B, *)`` (``(B, max L, *)`` with
    ``batch_first``), filling with ``padding_value`` on ``padding_side``."""
    if padding_side not in ("left", "right"):
        raise ValueError(f"Expected padding_side to be one of left or right, but got {padding_side}.")
    sequences = [_as_mt(s) for s in sequences]
    if not sequences:
        raise RuntimeError("received an empty list of sequences")
    max_len = max(s.shape[0] for s in sequences)
    padded = []
    for s in sequences:
        extra = max_len - s.shape[0]
        if extra:
            widths = [0, 0] * (s.dim() - 1) + ([0, extra] if padding_side == "right" else [extra, 0])
            s = pad(s, widths, value=padding_value)
        padded.append(s)
    return stack(padded, 0 if batch_first else 1)


def unpad_sequence(padded_sequences: Tensor, lengths: Tensor, batch_first: bool = False) -> list[Tensor]:
    """The sequences of a padded batch, each cut to its length: ``pad_sequence`` undone."""
    padded_sequences = _as_mt(padded_sequences)
    if not batch_first:
        padded_sequences = transpose(padded_sequences, 0, 1)
    return [getitem(padded_sequences, (b, slice(0, n))) for b, n in enumerate(_lengths_tensor(lengths).tolist())]


def pack_padded_sequence(
    input: Tensor,
    lengths: Tensor | Sequence[int],
    batch_first: bool = False,
    enforce_sorted: bool = True,
) -> PackedSequence:
    """Pack a padded batch ``(T, B, *)`` (``(B, T, *)`` with ``batch_first``) whose sequence ``b``
    has ``lengths[b]`` steps. With ``enforce_sorted`` the lengths must be decreasing; otherwise
    the batch is sorted first and the permutation kept in the result."""
    input = _as_mt(input)
    lengths = _lengths_tensor(lengths)
    batch_dim = 0 if batch_first else 1
    if lengths.dim() != 1 or lengths.numel() != input.shape[batch_dim]:
        raise RuntimeError(
            f"Expected `len(lengths)` to be equal to batch_size, but got {lengths.numel()} "
            f"(batch_size={input.shape[batch_dim]})"
        )
    if enforce_sorted:
        if lengths.numel() > 1 and bool((lengths[1:] > lengths[:-1]).any()):
            raise RuntimeError(
                "`lengths` array must be sorted in decreasing order when `enforce_sorted` is True. You can pass "
                "`enforce_sorted=False` to pack_padded_sequence and/or pack_sequence to sidestep this requirement "
                "if you do not need ONNX exportability."
            )
        sorted_indices = None
    else:
        lengths, order = torch.sort(lengths, descending=True)
        sorted_indices = Tensor._make(order.to(input.device), None)
        input = getitem(input, (slice(None), sorted_indices) if batch_dim else sorted_indices)
    if lengths.numel() and int(lengths[-1]) <= 0:
        raise RuntimeError(
            "Length of all samples has to be greater than 0, but found an element in 'lengths' that is <= 0"
        )
    if batch_first:
        input = transpose(input, 0, 1)
    steps = int(lengths[0]) if lengths.numel() else 0
    if steps > input.shape[0]:
        raise RuntimeError(f"a length of {steps} is longer than the padded input's {input.shape[0]} steps")
    batch_sizes = torch.stack([(lengths > t).sum() for t in range(steps)]) if steps else lengths.new_empty(0)
    data = cat([getitem(input, (t, slice(0, n))) for t, n in enumerate(batch_sizes.tolist())])
    return PackedSequence(data, batch_sizes, sorted_indices, None)


def pad_packed_sequence(
    sequence: PackedSequence,
    batch_first: bool = False,
    padding_value: float = 0.0,
    total_length: int | None = None,
) -> tuple[Tensor, Tensor]:
    """``pack_padded_sequence`` undone: the padded batch (``total_length`` steps if given) and
    each sequence's length, both in the batch's original order."""
    batch_sizes = sequence.batch_sizes._data.tolist()
    steps = len(batch_sizes)
    if total_length is not None and total_length < steps:
        raise ValueError(
            "Expected total_length to be at least the length of the longest sequence in input, but got "
            f"total_length={total_length} and max sequence length being {steps}"
        )
    data = sequence.data
    batch = batch_sizes[0] if batch_sizes else 0
    rows = [0, 0] * (data.dim() - 1)
    chunks, offset = [], 0
    for n in batch_sizes:
        chunk = getitem(data, slice(offset, offset + n))
        offset += n
        chunks.append(pad(chunk, [*rows, 0, batch - n], value=padding_value) if n < batch else chunk)
    padded = stack(chunks, 0)
    if total_length is not None and total_length > steps:
        padded = pad(padded, [*rows, 0, 0, 0, total_length - steps], value=padding_value)
    sizes = torch.tensor(batch_sizes, dtype=torch.int64)
    lengths = torch.stack([(sizes > b).sum() for b in range(batch)]) if batch else sizes
    if sequence.unsorted_indices is not None:
        padded = getitem(padded, (slice(None), sequence.unsorted_indices))
        lengths = lengths[sequence.unsorted_indices._data.cpu()]
    if batch_first:
        padded = transpose(padded, 0, 1)
    return padded, Tensor._make(lengths, None)


def pack_sequence(sequences: Sequence[Tensor], enforce_sorted: bool = True) -> PackedSequence:
    """Pack a list of sequences ``(L_i, *)``: ``pack_padded_sequence(pad_sequence(sequences), lengths)``."""
    lengths = [_as_mt(s).shape[0] for s in sequences]
    return pack_padded_sequence(pad_sequence(sequences), lengths, enforce_sorted=enforce_sorted)


def unpack_sequence(packed_sequences: PackedSequence) -> list[Tensor]:
    """The list of sequences that ``pack_sequence`` packed, in their original order."""
    padded, lengths = pad_packed_sequence(packed_sequences, batch_first=True)
    return unpad_sequence(padded, lengths, batch_first=True)
