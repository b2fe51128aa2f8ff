"""``embedding`` (a row lookup) and ``one_hot``.

The lookup's gradient adds each output row into the row it came from (``index_add``). That sum
is itself an op, ``EmbeddingDense``, whose gradient is again a lookup, so gradients of gradients
(``create_graph=True``) come from the same two Functions.
"""

from __future__ import annotations

import torch

from ..autograd.function import Function
from ..autograd.tensor import Tensor
from .constants import tensor_arg


class Embedding(Function):
    """``weight[indices]``: rows of ``weight`` (``(num_embeddings, dim)``) picked by integer ids."""

    @staticmethod
    def forward(ctx, weight, indices, padding_idx, scale_grad_by_freq):
        ctx.save_for_backward(indices)
        ctx.params = (weight.shape[0], padding_idx, scale_grad_by_freq)
        flat = indices.reshape(-1)
        return weight.index_select(0, flat).view(*indices.shape, weight.shape[1])

    @staticmethod
    def backward(ctx, grad):
        (indices,) = ctx.saved_tensors
        if isinstance(indices, Tensor):
            indices = indices._data
        if isinstance(grad, Tensor):
            return EmbeddingDense.apply(grad, indices, *ctx.params), None, None, None
        return embedding_dense(grad, indices, *ctx.params), None, None, None


class EmbeddingDense(Function):
    """The embedding's gradient: the rows of ``grad`` summed into a ``(num_embeddings, dim)``
    tensor at their ids, the ``padding_idx`` row left zero, each row divided by its id's count
    with ``scale_grad_by_freq``."""

    @staticmethod
    def forward(ctx, grad, indices, num_weights, padding_idx, scale_grad_by_freq):
        ctx.save_for_backward(indices)
        ctx.params = (padding_idx, scale_grad_by_freq)
        return embedding_dense(grad, indices, num_weights, padding_idx, scale_grad_by_freq)

    @staticmethod
    def backward(ctx, grad):
        (indices,) = ctx.saved_tensors
        if isinstance(indices, Tensor):
            indices = indices._data
        padding_idx, scale_grad_by_freq = ctx.params
        flat = indices.reshape(-1)
        rows = grad[flat]
        scale = _row_scale(flat, grad.shape[0], padding_idx, scale_grad_by_freq, grad.dtype)
        if scale is not None:
            rows = rows * scale
        return rows.reshape(*indices.shape, grad.shape[1]), None, None, None, None


def embedding_dense(
    grad: torch.Tensor, indices: torch.Tensor, num_weights: int, padding_idx: int | None, by_freq: bool
) -> torch.Tensor:
    """``EmbeddingDense``'s kernel on torch data."""
    flat = indices.reshape(-1)
    rows = grad.reshape(-1, grad.shape[-1])
    scale = _row_scale(flat, num_weights, padding_idx, by_freq, rows.dtype)
    if scale is not None:
        rows = rows * scale
    return torch.zeros(num_weights, rows.shape[1], dtype=rows.dtype, device=rows.device).index_add_(0, flat, rows)


def _row_scale(
    flat: torch.Tensor, num_weights: int, padding_idx: int | None, by_freq: bool, dtype: torch.dtype
) -> torch.Tensor | None:
    """The constant factor ``(len(flat), 1)`` of each looked-up row's gradient, or None for all ones."""
    if padding_idx is None and not by_freq:
        return None
    scale = torch.ones(flat.shape[0], 1, dtype=dtype, device=flat.device)
    if by_freq:
        counts = torch.bincount(flat, minlength=num_weights).to(dtype)
        scale = scale / counts[flat].unsqueeze(1)
    if padding_idx is not None:
        scale = scale * (flat != padding_idx).unsqueeze(1).to(dtype)
    return scale


def check_indices(indices: torch.Tensor, num_embeddings: int) -> None:
    """Refuse ids that are not integers or not in ``[0, num_embeddings)``, naming the first bad id.
    The range is checked on the CPU only: elsewhere reading the ids back would wait for the device
    at every lookup; there torch's kernel checks them (a device-side assert), as PyTorch's."""
    if indices.dtype not in (torch.int64, torch.int32):
        raise RuntimeError(
            "Expected tensor for argument #1 'indices' to have one of the following scalar types: Long, Int; "
            f"but got {indices.type()} instead (while checking arguments for embedding)"
        )
    if indices.numel() == 0 or indices.device.type != "cpu":
        return
    bad = (indices < 0) | (indices >= num_embeddings)
    if bool(bad.any()):
        first = int(indices[bad][0])
        raise IndexError(
            f"embedding: token id {first} is out of range for a vocabulary of size {num_embeddings} "
            f"(ids must be in [0, {num_embeddings - 1}])"
        )


def _renorm_rows(weight: torch.Tensor, indices: torch.Tensor, max_norm: float, norm_type: float) -> None:
    """Scale in place each row that ``indices`` look up whose ``norm_type``-norm exceeds
    ``max_norm`` down to ``max_norm`` (PyTorch's ``embedding_renorm_``: no gradient, a change of data)."""
    rows = torch.unique(indices.reshape(-1))
    norms = weight[rows].norm(p=norm_type, dim=1, keepdim=True)
    scale = torch.where(norms > max_norm, max_norm / (norms + 1e-7), torch.ones_like(norms))
    weight[rows] = weight[rows] * scale


def embedding(
    input: Tensor,
    weight: Tensor,
    padding_idx: int | None = None,
    max_norm: float | None = None,
    norm_type: float = 2.0,
    scale_grad_by_freq: bool = False,
    sparse: bool = False,
) -> Tensor:
    """Look up rows of ``weight`` (``(num_embeddings, embedding_dim)``) at the integer ids in
    ``input`` (any shape): the output is ``(*input.shape, embedding_dim)``.

    The ``padding_idx`` row gets no gradient; with ``max_norm`` the looked-up rows of ``weight``
    are first renormalized in place, as PyTorch's. Raises ``IndexError`` naming the first id
    outside ``[0, num_embeddings)`` and the vocabulary size.

    >>> import minitorch_rx as mt
    >>> embedding(mt.tensor([[0, 2]]), mt.eye(3)).tolist()
    [[[1.0, 0.0, 0.0], [0.0, 0.0, 1.0]]]
    """
    input = tensor_arg(input, "embedding")
    weight = tensor_arg(weight, "embedding", "weight", 2)
    if sparse:
        raise NotImplementedError("embedding: sparse=True (sparse gradients) is not supported; use sparse=False")
    indices = input._data if isinstance(input, Tensor) else input
    data = weight._data if isinstance(weight, Tensor) else weight
    if data.dim() != 2:
        raise RuntimeError(f"'weight' must be 2-D, got a {data.dim()}-D tensor of shape {list(data.shape)}")
    num_embeddings = data.shape[0]
    check_indices(indices, num_embeddings)
    if padding_idx is not None:
        if not -num_embeddings <= padding_idx < num_embeddings:
            raise AssertionError(f"Padding_idx must be within num_embeddings, got {padding_idx} for {num_embeddings}")
        padding_idx %= num_embeddings
    if max_norm is not None:
        _renorm_rows(data, indices, max_norm, norm_type)
    if not isinstance(weight, Tensor):
        weight = Tensor._make(weight, None)
    return Embedding.apply(weight, indices, padding_idx, scale_grad_by_freq)


def one_hot(tensor: Tensor, num_classes: int = -1) -> Tensor:
    """``(*tensor.shape, num_classes)`` int64 tensor with a 1 at each class id; with
    ``num_classes=-1`` one more than the largest id. Raises ``RuntimeError`` naming an id that is
    negative or not below ``num_classes``.

    >>> import minitorch_rx as mt
    >>> one_hot(mt.tensor([0, 2]), 3).tolist()
    [[1, 0, 0], [0, 0, 1]]
    """
    tensor = tensor_arg(tensor, "one_hot", "self")
    ids = tensor._data if isinstance(tensor, Tensor) else tensor
    if ids.dtype != torch.int64:
        raise RuntimeError(f"one_hot is only applicable to index tensor of type LongTensor, got {ids.type()}")
    if ids.numel() == 0:
        if num_classes < 0:
            raise RuntimeError("Can not infer total number of classes from empty tensor.")
        return Tensor._make(torch.zeros(*ids.shape, num_classes, dtype=torch.int64, device=ids.device), None)
    smallest, largest = int(ids.min()), int(ids.max())
    if smallest < 0:
        raise RuntimeError(f"Class values must be non-negative, got {smallest}.")
    if num_classes < 0:
        num_classes = largest + 1
    elif largest >= num_classes:
        raise RuntimeError(
            f"Class values must be smaller than num_classes: got class {largest} for num_classes={num_classes}."
        )
    out = torch.zeros(*ids.shape, num_classes, dtype=torch.int64, device=ids.device)
    return Tensor._make(out.scatter_(-1, ids.unsqueeze(-1), 1), None)


def embedding_bag(
    input: Tensor,
    weight: Tensor,
    offsets: Tensor | None = None,
    max_norm: float | None = None,
    norm_type: float = 2,
    scale_grad_by_freq: bool = False,
    mode: str = "mean",
    sparse: bool = False,
    per_sample_weights: Tensor | None = None,
    include_last_offset: bool = False,
    padding_idx: int | None = None,
) -> Tensor:
    """The sums, means or maxima of bags of ``weight``'s rows: each row of a 2-D ``input`` is a bag,
    or a 1-D ``input`` is cut into bags at ``offsets``. Entries equal to ``padding_idx`` are left
    out; an empty bag gives zeros. Composed of ``embedding`` and ``index_add``/``scatter_reduce``."""
    from .index import index_add, scatter_reduce

    if mode not in ("sum", "mean", "max"):
        raise ValueError(f"mode has to be one of sum, mean or max, got {mode}")
    if scale_grad_by_freq and mode == "max":
        raise ValueError("max mode does not support scaling the gradient by the frequency")
    if per_sample_weights is not None and mode != "sum":
        raise NotImplementedError(
            f"embedding_bag: per_sample_weights was not None. per_sample_weights is only supported for "
            f"mode='sum' (got mode='{mode}'). Please open a feature request on GitHub."
        )
    ids = tensor_arg(input, "embedding_bag")._data
    weight = tensor_arg(weight, "embedding_bag", "weight", 2)
    if weight.dim() != 2:
        raise ValueError(f"weight has to be a 2D Tensor, but got Tensor of dimension {weight.dim()}")
    if ids.dim() not in (1, 2):
        raise ValueError(f"input has to be 1D or 2D Tensor, but got Tensor of dimension {ids.dim()}")
    if ids.dtype in (torch.int64, torch.int32) and ids.numel() and ids.device.type == "cpu":
        flat, rows = ids.reshape(-1), weight.shape[0]
        bad = ((flat < 0) | (flat >= rows)).nonzero()
        if len(bad):  # torch's words (embedding's own check says it in ours)
            first = int(bad[0, 0])
            raise RuntimeError(
                f"Index {first} of input takes value {int(flat[first])} which is not in the valid range [0, {rows})"
            )
    if ids.dim() == 2:
        if offsets is not None:
            raise ValueError(
                "if input is 2D, then offsets has to be None, as input is treated is a mini-batch of "
                "fixed length sequences."
            )
        bags = ids.shape[0]
        bag_of = torch.arange(bags, device=ids.device).repeat_interleave(ids.shape[1])
        ids = ids.reshape(-1)
    else:
        if offsets is None:
            raise ValueError("offsets has to be a 1D Tensor but got None")
        starts = offsets._data if isinstance(offsets, Tensor) else offsets
        if starts.dim() != 1:
            raise ValueError("offsets has to be a 1D Tensor")
        if starts.numel() and int(starts[0]) != 0:
            raise RuntimeError(
                "offsets[0] has to be 0, i.e., the first sequence in the mini-batch has to start from position 0. "
                f"However, got {int(starts[0])}"
            )
        if starts.numel() and int(starts[-1]) > ids.numel():
            raise RuntimeError(
                f"offsets[-1] can not be greater than input's length {ids.numel()} but got offsets[-1] of "
                f"{int(starts[-1])}"
            )
        if include_last_offset:
            starts = starts[:-1]
        bags = starts.numel()
        bag_of = torch.bucketize(torch.arange(ids.numel(), device=ids.device), starts, right=True) - 1
    num_embeddings = weight.shape[0]
    if padding_idx is not None:
        padding_idx %= num_embeddings
    rows = embedding(Tensor._make(ids, None), weight, None, max_norm, norm_type, scale_grad_by_freq)
    keep = torch.ones_like(ids, dtype=torch.bool) if padding_idx is None else ids != padding_idx
    if per_sample_weights is not None:
        rows = rows * tensor_arg(per_sample_weights, "embedding_bag", "per_sample_weights").reshape(-1, 1)
    rows, bag_of = rows[Tensor._make(keep, None)], bag_of[keep]
    zeros = Tensor._make(weight._data.new_zeros(bags, weight.shape[1]), None)
    if mode == "max":
        index = Tensor._make(bag_of.unsqueeze(1).expand(-1, weight.shape[1]).contiguous(), None)
        return scatter_reduce(zeros, 0, index, rows, "amax", include_self=False)
    total = index_add(zeros, 0, Tensor._make(bag_of, None), rows)
    if mode == "sum":
        return total
    counts = torch.bincount(bag_of, minlength=bags).clamp(min=1).to(weight.dtype).unsqueeze(1)
    return total / Tensor._make(counts, None)
