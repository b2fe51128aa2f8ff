"""Margin and embedding losses: ``margin_ranking_loss``, ``hinge_embedding_loss``,
``multi_margin_loss``, ``multilabel_margin_loss``,
``cosine_embedding_loss`` and ``triplet_margin_loss``, composed from the
engine's ops in the order PyTorch's kernels compute them."""

from __future__ import annotations

import torch

from ..autograd.tensor import Tensor
from .constants import dtype_name, tensor_arg
from .distance import pairwise_distance
from .elementwise import minimum
from .loss import _check_tensors, _reduction
from .loss_pointwise import _check_float, legacy_reduction, reduce_loss

__all__ = [
    "cosine_embedding_loss",
    "hinge_embedding_loss",
    "margin_ranking_loss",
    "multi_margin_loss",
    "multilabel_margin_loss",
    "triplet_margin_loss",
]


def _check_three(function: str, names: tuple[str, str, str], *values: object) -> tuple[Tensor, ...]:
    return tuple(
        tensor_arg(value, function, name, position)
        for position, (name, value) in enumerate(zip(names, values, strict=True), start=1)
    )


def margin_ranking_loss(
    input1: Tensor,
    input2: Tensor,
    target: Tensor,
    margin: float = 0.0,
    size_average: bool | None = None,
    reduce: bool | None = None,
    reduction: str = "mean",
) -> Tensor:
    """``max(0, -target * (input1 - input2) + margin)``: ``target = 1`` asks for ``input1`` ranked
    higher, ``-1`` for ``input2``.

    >>> import minitorch_rx as mt
    >>> margin_ranking_loss(mt.tensor([1.0]), mt.tensor([2.0]), mt.tensor([1.0])).item()
    1.0
    """
    input1, input2, target = _check_three("margin_ranking_loss", ("input1", "input2", "target"), input1, input2, target)
    reduction_enum = _reduction(legacy_reduction(size_average, reduce, reduction))
    if input1._data.dim() != input2._data.dim() or input1._data.dim() != target._data.dim():
        raise RuntimeError(
            "margin_ranking_loss : All input tensors should have same dimension but got sizes: "
            f"input1: {input1._data.shape}, input2: {input2._data.shape}, target: {target._data.shape} "
        )
    return reduce_loss((-target * (input1 - input2) + margin).clamp(min=0), reduction_enum)


def hinge_embedding_loss(
    input: Tensor,
    target: Tensor,
    margin: float = 1.0,
    size_average: bool | None = None,
    reduce: bool | None = None,
    reduction: str = "mean",
) -> Tensor:
    """``input`` where ``target = 1``, ``max(0, margin - input)`` where ``target = -1`` (input
    usually a distance).

    >>> import minitorch_rx as mt
    >>> hinge_embedding_loss(mt.tensor([0.3, 0.3]), mt.tensor([1.0, -1.0]), reduction="sum").item()
    1.0
    """
    input, target = _check_tensors("hinge_embedding_loss", input, target)
    reduction_enum = _reduction(legacy_reduction(size_average, reduce, reduction))
    if not (input.dtype.is_floating_point or input.dtype.is_complex):
        margin = int(margin)  # torch computes in an integer input's dtype (mean then refuses it)
    output_margin = (margin - input).clamp(min=0).where(target != 1, 0)
    output_self = input.where(target != -1, 0)
    return reduce_loss(output_margin + output_self, reduction_enum)


def multi_margin_loss(
    input: Tensor,
    target: Tensor,
    p: int = 1,
    margin: float = 1.0,
    weight: Tensor | None = None,
    size_average: bool | None = None,
    reduce: bool | None = None,
    reduction: str = "mean",
) -> Tensor:
    """The multi-class hinge loss: per sample, ``sum_{i != y} max(0, margin - x[y] + x[i])**p / C``
    (times ``weight[y]``), for ``input`` ``(N, C)`` or ``(C,)`` and class indices ``target``.

    >>> import minitorch_rx as mt
    >>> multi_margin_loss(mt.tensor([[0.5, 0.0]]), mt.tensor([0])).item()
    0.25
    """
    input, target = _check_tensors("multi_margin_loss", input, target)
    reduction_enum = _reduction(legacy_reduction(size_average, reduce, reduction))
    if p not in (1, 2):
        raise ValueError("only p == 1 and p == 2 supported")
    if weight is not None and weight.dim() != 1:
        raise ValueError("weight must be one-dimensional")
    dims = input._data.dim()
    if dims > 2 or (dims == 2 and input._data.shape[1] == 0):
        raise RuntimeError(
            f"Expected non-empty vector or matrix with optional 0-dim batch size, but got: {list(input._data.shape)}"
        )
    rows = input if dims == 2 else input.reshape(1, -1)
    labels = target._data.reshape(-1)
    classes = rows._data.shape[1]
    if labels.numel() != rows._data.shape[0]:
        raise RuntimeError(
            f"inconsistent target size, expected {rows._data.shape[0]} but got {list(target._data.shape)}"
        )
    if labels.numel() and (int(labels.min()) < 0 or int(labels.max()) >= classes):
        raise RuntimeError("target out of range")
    is_target = labels.unsqueeze(1) == torch.arange(classes, device=labels.device)
    target_score = (rows * is_target).sum(1, keepdim=True)
    terms = (margin - target_score + rows).clamp(min=0)
    if p == 2:
        terms = terms * terms
    if weight is not None:
        weight_data = weight._data if isinstance(weight, Tensor) else weight
        terms = terms * weight_data[labels].unsqueeze(1)
    loss = (terms * ~is_target).sum(1) / classes
    if dims < 2:
        loss = loss.reshape(())
    return reduce_loss(loss, reduction_enum)


def multilabel_margin_loss(
    input: Tensor,
    target: Tensor,
    size_average: bool | None = None,
    reduce: bool | None = None,
    reduction: str = "mean",
) -> Tensor:
    """The multi-label hinge loss: per sample, ``sum_{j, i} max(0, 1 - (x[y_j] - x[i])) / C`` over
    the target classes ``y_j`` (``target``'s entries up to its first -1) and the other classes
    ``i``, for ``input`` ``(N, C)`` or ``(C,)`` and an integer ``target`` of the same shape.

    >>> import minitorch_rx as mt
    >>> round(multilabel_margin_loss(mt.tensor([[0.1, 0.2, 0.4, 0.8]]), mt.tensor([[3, 0, -1, 1]])).item(), 4)
    0.85
    """
    input, target = _check_tensors("multilabel_margin_loss", input, target)
    reduction_enum = _reduction(legacy_reduction(size_average, reduce, reduction))
    dims = input._data.dim()
    shape = list(input._data.shape)
    if dims > 2 or (dims > 0 and shape[-1] == 0):
        raise RuntimeError(f"Expected non-empty vector or matrix with optional 0-dim batch size, but got: {shape}")
    if list(target._data.shape) != shape:
        raise RuntimeError(f"inconsistent target size: {list(target._data.shape)} for input of size: {shape}")
    if target.dtype != torch.int64:
        raise RuntimeError(f"expected scalar type Long but found {dtype_name(target.dtype)}")
    rows = input.reshape(1, -1) if dims < 2 else input
    labels = target._data.reshape(rows._data.shape)
    classes = rows._data.shape[1]
    if labels.numel() and (int(labels.min()) < -1 or int(labels.max()) >= classes):
        raise RuntimeError("target out of range")
    valid = (labels >= 0).cumprod(1).bool()  # the targets end at the first -1
    safe = labels.where(valid, 0)
    classes_range = torch.arange(classes, device=labels.device)
    is_target = ((labels.unsqueeze(2) == classes_range) & valid.unsqueeze(2)).any(1)  # [N, C]: class i a target
    target_scores = rows.gather(1, safe)  # [N, J]: x[y_j]
    terms = (1 - target_scores.unsqueeze(2) + rows.unsqueeze(1)).clamp(min=0)  # [N, J, C]
    pairs = valid.unsqueeze(2) & ~is_target.unsqueeze(1)
    loss = (terms * pairs).sum((1, 2)) / classes
    if dims < 2:
        loss = loss.reshape(())
    return reduce_loss(loss, reduction_enum)


def cosine_embedding_loss(
    input1: Tensor,
    input2: Tensor,
    target: Tensor,
    margin: float = 0.0,
    size_average: bool | None = None,
    reduce: bool | None = None,
    reduction: str = "mean",
) -> Tensor:
    """``1 - cos(x1, x2)`` where ``target = 1``, ``max(0, cos(x1, x2) - margin)`` where
    ``target = -1``, the cosine along dim 1 (``(N, D)`` inputs) or 0 (``(D,)``) computed as
    PyTorch's kernel does (``1e-12`` added to each squared norm).

    >>> import minitorch_rx as mt
    >>> cosine_embedding_loss(mt.tensor([[1.0, 0.0]]), mt.tensor([[0.0, 1.0]]), mt.tensor([1.0])).item()
    1.0
    """
    input1, input2, target = _check_three(
        "cosine_embedding_loss", ("input1", "input2", "target"), input1, input2, target
    )
    reduction_enum = _reduction(legacy_reduction(size_average, reduce, reduction))
    target_dims = target._data.dim()
    if target_dims > 1:
        raise RuntimeError(f"0D or 1D target tensor expected, multi-target not supported, got {target_dims}D target")
    expected = target_dims + 1
    if input1._data.dim() != expected or input2._data.dim() != expected:
        kind = (
            "1D target tensor expects 2D input tensors" if target_dims else "0D target tensor expects 1D input tensors"
        )
        raise RuntimeError(
            f"{kind}, but found inputs with sizes {list(input1._data.shape)} and {list(input2._data.shape)}."
        )
    dim = target_dims
    product = (input1 * input2).sum(dim)
    squared1 = (input1 * input1).sum(dim) + 1e-12
    squared2 = (input2 * input2).sum(dim) + 1e-12
    cos = product / (squared1 * squared2).sqrt()
    positive = (1 - cos).where(target == 1, 0.0)
    negative = (cos - margin).clamp(min=0).where(target == -1, 0.0)
    return reduce_loss(positive + negative, reduction_enum)


def triplet_margin_loss(
    anchor: Tensor,
    positive: Tensor,
    negative: Tensor,
    margin: float = 1.0,
    p: float = 2,
    eps: float = 1e-6,
    swap: bool = False,
    size_average: bool | None = None,
    reduce: bool | None = None,
    reduction: str = "mean",
) -> Tensor:
    """``max(0, margin + d(anchor, positive) - d(anchor, negative))`` with ``d`` the p-norm
    ``pairwise_distance``; ``swap`` uses ``min(d(a, n), d(p, n))`` (Balntas et al.).

    >>> import minitorch_rx as mt
    >>> a, pos, neg = mt.tensor([[0.0]]), mt.tensor([[1.0]]), mt.tensor([[3.0]])
    >>> triplet_margin_loss(a, pos, neg, eps=0.0).item()
    0.0
    """
    anchor, positive, negative = _check_three(
        "triplet_margin_loss", ("anchor", "positive", "negative"), anchor, positive, negative
    )
    reduction_enum = _reduction(legacy_reduction(size_average, reduce, reduction))
    _check_float("triplet_margin_loss", margin, "margin", 4)
    if margin <= 0:
        raise ValueError(f"margin must be greater than 0, got {margin}")
    dims = (anchor._data.dim(), positive._data.dim(), negative._data.dim())
    if len(set(dims)) != 1:
        raise RuntimeError(
            "The anchor, positive, and negative tensors are expected to have the same number of dimensions, "
            f"but got: anchor {dims[0]}D, positive {dims[1]}D, and negative {dims[2]}D inputs"
        )
    distance_positive = pairwise_distance(anchor, positive, p, eps)
    distance_negative = pairwise_distance(anchor, negative, p, eps)
    if swap:
        distance_negative = minimum(distance_negative, pairwise_distance(positive, negative, p, eps))
    return reduce_loss((margin + distance_positive - distance_negative).clamp(min=0), reduction_enum)


def triplet_margin_with_distance_loss(
    anchor: Tensor,
    positive: Tensor,
    negative: Tensor,
    *,
    distance_function=None,
    margin: float = 1.0,
    swap: bool = False,
    reduction: str = "mean",
) -> Tensor:
    """``max(0, margin + d(anchor, positive) - d(anchor, negative))`` with ``d`` any differentiable
    ``distance_function`` (``pairwise_distance`` by default); ``swap`` as in ``triplet_margin_loss``."""
    reduction_enum = _reduction(reduction)
    if margin <= 0:
        raise ValueError(f"margin must be greater than 0, got {margin}")
    anchor, positive, negative = _check_three(
        "triplet_margin_with_distance_loss", ("anchor", "positive", "negative"), anchor, positive, negative
    )
    if not anchor.dim() == positive.dim() == negative.dim():
        raise RuntimeError(
            "The anchor, positive, and negative tensors are expected to have the same number of dimensions, but "
            f"got: anchor {anchor.dim()}D, positive {positive.dim()}D, and negative {negative.dim()}D inputs"
        )
    distance = pairwise_distance if distance_function is None else distance_function
    distance_positive = distance(anchor, positive)
    distance_negative = distance(anchor, negative)
    if swap:
        distance_negative = minimum(distance_negative, distance(positive, negative))
    return reduce_loss((margin + distance_positive - distance_negative).clamp(min=0), reduction_enum)
