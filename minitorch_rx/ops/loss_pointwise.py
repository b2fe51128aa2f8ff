"""Elementwise losses: ``binary_cross_entropy``, ``smooth_l1_loss``, ``huber_loss``, ``kl_div``,
``poisson_nll_loss``, ``gaussian_nll_loss``, ``soft_margin_loss`` and
``multilabel_soft_margin_loss``.

``binary_cross_entropy`` is one op (torch's kernel forward, PyTorch's derivatives for input and
target); the others are compositions of the engine's ops written as PyTorch writes them, so their
gradients, and their gradients' gradients, follow from those ops.
"""

from __future__ import annotations

import math
import warnings

import torch
from torch.nn import _reduction as torch_reduction

from ..autograd.function import Function
from ..autograd.tensor import Tensor
from .activation import logsigmoid
from .autocast import state as autocast_state
from .autocast import to_float32
from .constants import TENSOR_TYPES, dtype_name, not_a_tensor, tensor_arg
from .loss import MEAN, SUM, _check_tensors, _not_differentiable, _reduction

__all__ = [
    "binary_cross_entropy",
    "gaussian_nll_loss",
    "huber_loss",
    "kl_div",
    "multilabel_soft_margin_loss",
    "poisson_nll_loss",
    "smooth_l1_loss",
    "soft_margin_loss",
]


class SelfXlogy(Function):
    """``xlogy(t, t)``: ``t * log(t)``, 0 where ``t`` is 0 (NaN below 0); as ``xlogy``'s
    derivatives in both arguments, its gradient is ``log(t) + 1``, NaN at 0 (``t / t``)."""

    @staticmethod
    def forward(ctx, t):
        ctx.save_for_backward(t)
        return torch.xlogy(t, t)

    @staticmethod
    def backward(ctx, grad):
        (t,) = ctx.saved_tensors
        return grad * (t.log().where(t != 0, 0.0) + t / t)


def reduce_loss(loss: Tensor, reduction: int) -> Tensor:
    """An unreduced loss reduced as ``reduction`` (NONE, MEAN or SUM) says, recorded."""
    if reduction == MEAN:
        return loss.mean()
    return loss.sum() if reduction == SUM else loss


def legacy_reduction(size_average: bool | None, reduce: bool | None, reduction: str) -> str:
    """``reduction`` from the deprecated ``size_average``/``reduce`` pair when either is given
    (with PyTorch's deprecation warning)."""
    if size_average is None and reduce is None:
        return reduction
    return torch_reduction.legacy_get_string(size_average, reduce)


def _check_kernel_dtype(kernel: str, input: Tensor, target: Tensor) -> None:
    """torch's error where its kernel has no integer or bool version (the common dtype decides)."""
    dtype = torch.promote_types(input.dtype, target.dtype)
    if not (dtype.is_floating_point or dtype.is_complex):
        raise NotImplementedError(f"\"{kernel}_{input.device.type}\" not implemented for '{dtype_name(dtype)}'")


def _check_float(function: str, value: object, argument: str, position: int) -> None:
    """PyTorch's TypeError for a non-number where a float is expected."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(
            f"{function}(): argument '{argument}' (position {position}) must be float, not {type(value).__name__}"
        )


def _size_warning(input: Tensor, target: Tensor) -> None:
    if input._data.shape != target._data.shape:
        warnings.warn(
            f"Using a target size ({target._data.shape}) that is different to the input size "
            f"({input._data.shape}). This will likely lead to incorrect results due to "
            "broadcasting. Please ensure they have the same size.",
            stacklevel=3,
        )


# ---------------------------------------------------------------- binary cross entropy
class BinaryCrossEntropy(Function):
    """``-w (t log x + (1 - t) log(1 - x))``, each log clamped at -100 as PyTorch's kernel."""

    @staticmethod
    def forward(ctx, x, target, weight, reduction):
        ctx.save_for_backward(x, target, weight)
        ctx.reduction = reduction
        return torch.ops.aten.binary_cross_entropy(x, target, weight, reduction)

    @staticmethod
    def backward(ctx, grad):
        x, target, weight = ctx.saved_tensors
        scale = grad / x.numel() if ctx.reduction == MEAN else grad
        if weight is not None:
            scale = scale * weight
        need_x, need_target = ctx.needs_input_grad[:2]
        grad_x = scale * (x - target) / ((1 - x) * x).clamp(min=1e-12) if need_x else None
        grad_target = scale * ((1 - x).log() - x.log()) if need_target else None
        return grad_x, grad_target, None, None


_BCE_UNSAFE_TO_AUTOCAST = (
    "torch.nn.functional.binary_cross_entropy and torch.nn.BCELoss are unsafe to autocast.\n"
    "Many models use a sigmoid layer right before the binary cross entropy layer.\n"
    "In this case, combine the two layers using torch.nn.functional.binary_cross_entropy_with_logits\n"
    "or torch.nn.BCEWithLogitsLoss.  binary_cross_entropy_with_logits and BCEWithLogits are\n"
    "safe to autocast."
)


def binary_cross_entropy(
    input: Tensor,
    target: Tensor,
    weight: Tensor | None = None,
    size_average: bool | None = None,
    reduce: bool | None = None,
    reduction: str = "mean",
) -> Tensor:
    """Binary cross entropy between probabilities ``input`` (in ``[0, 1]``) and ``target`` (same
    shape); ``weight`` (broadcastable) rescales each element. Differentiable in input and target.

    >>> import minitorch_rx as mt
    >>> round(binary_cross_entropy(mt.tensor([0.5]), mt.tensor([1.0])).item(), 4)
    0.6931
    """
    input, target = _check_tensors("binary_cross_entropy", input, target)
    reduction = legacy_reduction(size_average, reduce, reduction)
    reduction_enum = _reduction(reduction)
    if target._data.shape != input._data.shape:
        raise ValueError(
            f"Using a target size ({target._data.shape}) that is different to the input size "
            f"({input._data.shape}) is deprecated. Please ensure they have the same size."
        )
    weight = tensor_arg(weight, "binary_cross_entropy", "weight", 3, optional=True)
    _not_differentiable(weight, "binary_cross_entropy", "weight")
    if autocast_state.active:
        if "cuda" in autocast_state.active and input._data.is_cuda:
            raise RuntimeError(_BCE_UNSAFE_TO_AUTOCAST)  # torch's CUDA autocast bans it
        input, target = to_float32(input, target)  # the CPU's float32 list
    if weight is not None:
        weight = weight._data
        weight = weight.expand(torch.broadcast_shapes(target._data.shape, weight.shape))
    return BinaryCrossEntropy.apply(input, target, weight, reduction_enum)


# -------------------------------------------------------------------- regression losses
def smooth_l1_loss(
    input: Tensor,
    target: Tensor,
    size_average: bool | None = None,
    reduce: bool | None = None,
    reduction: str = "mean",
    beta: float = 1.0,
) -> Tensor:
    """``0.5 d**2 / beta`` where ``|d| < beta``, ``|d| - 0.5 beta`` elsewhere (``d = input - target``);
    ``beta = 0`` is the L1 loss.

    >>> import minitorch_rx as mt
    >>> smooth_l1_loss(mt.tensor([0.5, 3.0]), mt.tensor([0.0, 0.0]), reduction="sum").item()
    2.625
    """
    input, target = _check_tensors("smooth_l1_loss", input, target)
    _check_kernel_dtype("smooth_l1", input, target)
    if autocast_state.active:
        input, target = to_float32(input, target)
    reduction = legacy_reduction(size_average, reduce, reduction)
    reduction_enum = _reduction(reduction)
    _check_float("smooth_l1_loss", beta, "beta", 4)
    if beta < 0:
        raise RuntimeError("smooth_l1_loss does not support negative values for beta.")
    _size_warning(input, target)
    difference = input - target
    size = difference.abs()
    if beta == 0:
        return reduce_loss(size, reduction_enum)
    loss = (difference * difference * (0.5 / beta)).where(size < beta, size - 0.5 * beta)
    return reduce_loss(loss, reduction_enum)


def huber_loss(
    input: Tensor, target: Tensor, reduction: str = "mean", delta: float = 1.0, weight: Tensor | None = None
) -> Tensor:
    """``0.5 d**2`` where ``|d| < delta``, ``delta (|d| - 0.5 delta)`` elsewhere; ``weight`` (the
    input's shape) rescales each element.

    >>> import minitorch_rx as mt
    >>> huber_loss(mt.tensor([0.5, 3.0]), mt.tensor([0.0, 0.0]), reduction="sum", delta=2.0).item()
    4.125
    """
    input, target = _check_tensors("huber_loss", input, target)
    _check_kernel_dtype("huber", input, target)
    if autocast_state.active:
        input, target = to_float32(input, target)
    reduction_enum = _reduction(reduction)
    _check_float("huber_loss", delta, "delta", 4)
    weight = tensor_arg(weight, "huber_loss", "weight", 5, optional=True)
    if delta <= 0:
        raise RuntimeError("huber_loss does not support non-positive values for delta.")
    _size_warning(input, target)
    if weight is not None and weight.shape != input.shape:
        raise ValueError("Weights and input must have the same size.")
    if target.dtype != input.dtype:  # torch's kernel computes in the input's dtype
        target = target.to(input.dtype)
    difference = input - target
    size = difference.abs()
    loss = (difference * difference * 0.5).where(size < delta, (size - 0.5 * delta) * delta)
    if weight is not None:
        loss = loss * weight
    return reduce_loss(loss, reduction_enum)


def kl_div(
    input: Tensor,
    target: Tensor,
    size_average: bool | None = None,
    reduce: bool | None = None,
    reduction: str = "mean",
    log_target: bool = False,
) -> Tensor:
    """The Kullback-Leibler divergence of ``target`` from log-probabilities ``input``:
    ``target * (log(target) - input)`` (0 where ``target`` is 0), or with ``log_target``
    ``exp(target) * (target - input)``. ``'batchmean'`` divides the sum by the batch size (the
    mathematically right mean); ``'mean'`` divides by every element, with PyTorch's warning.

    >>> import minitorch_rx as mt
    >>> kl_div(mt.tensor([[0.0, 0.0]]).log_softmax(1), mt.tensor([[0.5, 0.5]]), reduction="batchmean").item()
    0.0
    """
    input, target = _check_tensors("kl_div", input, target)
    if not all(t.dtype.is_floating_point or t.dtype.is_complex for t in (input, target)):
        raise RuntimeError("kl_div: Integral inputs not supported.")
    if autocast_state.active:
        input, target = to_float32(input, target)
    reduction = legacy_reduction(size_average, reduce, reduction)
    if reduction == "mean":
        warnings.warn(
            "reduction: 'mean' divides the total loss by both the batch size and the support size."
            "'batchmean' divides only by the batch size, and aligns with the KL div math definition."
            "'mean' will be changed to behave the same as 'batchmean' in the next major release.",
            stacklevel=2,
        )
    reduction_enum = SUM if reduction == "batchmean" else _reduction(reduction)
    if log_target:
        loss = target.exp() * (target - input)
    else:
        loss = SelfXlogy.apply(target) - target * input
    reduced = reduce_loss(loss, reduction_enum)
    if reduction == "batchmean" and input._data.dim() != 0:
        reduced = reduced / input._data.shape[0]
    return reduced


def poisson_nll_loss(
    input: Tensor,
    target: Tensor,
    log_input: bool = True,
    full: bool = False,
    size_average: bool | None = None,
    eps: float = 1e-8,
    reduce: bool | None = None,
    reduction: str = "mean",
) -> Tensor:
    """The negative log likelihood of ``target`` under a Poisson of rate ``exp(input)`` (or
    ``input`` when ``log_input=False``), without the constant ``log(target!)`` unless ``full``
    (then Stirling's approximation, for targets above 1).

    >>> import minitorch_rx as mt
    >>> poisson_nll_loss(mt.tensor([0.0]), mt.tensor([1.0])).item()
    1.0
    """
    input, target = _check_tensors("poisson_nll_loss", input, target)
    reduction = legacy_reduction(size_average, reduce, reduction)
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(reduction + " is not a valid value for reduction")
    if log_input:
        loss = input.exp() - target * input
    else:
        loss = input - target * (input + eps).log()
    if full:
        above_one = target > 1
        safe_target = target.where(above_one, 2.0)
        stirling = safe_target * safe_target.log() - safe_target + 0.5 * (safe_target * (2 * math.pi)).log()
        loss = loss + stirling.where(above_one, 0.0)
    return reduce_loss(loss, _reduction(reduction))


def gaussian_nll_loss(
    input: Tensor,
    target: Tensor,
    var: Tensor | float,
    full: bool = False,
    eps: float = 1e-6,
    reduction: str = "mean",
) -> Tensor:
    """The negative log likelihood of ``target`` under Gaussians of mean ``input`` and variance
    ``var``: ``0.5 (log(var) + (input - target)**2 / var)`` (+ ``0.5 log(2 pi)`` if ``full``).
    ``var`` has the input's shape, or one dim less / a last dim of 1 (one variance per sample),
    or is a float; it is clamped below at ``eps`` in value only (the gradient passes), as PyTorch's.

    >>> import minitorch_rx as mt
    >>> gaussian_nll_loss(mt.tensor([1.0]), mt.tensor([1.0]), mt.tensor([1.0])).item()
    0.0
    """
    input, target = _check_tensors("gaussian_nll_loss", input, target)
    if isinstance(var, float):
        if var < 0:
            raise ValueError("var has negative entry/entries")
        var = Tensor._make(torch.full_like(input._data, var), None)
    elif not isinstance(var, TENSOR_TYPES):
        raise not_a_tensor("gaussian_nll_loss", var, "var", 3)
    else:
        var = tensor_arg(var, "gaussian_nll_loss", "var", 3)
        if bool((var._data < 0).any()):
            raise ValueError("var has negative entry/entries")
    input_shape, var_shape = input._data.shape, var._data.shape
    if var_shape != input_shape:
        if input_shape[:-1] == var_shape:
            var = var.unsqueeze(-1)
        elif not (
            len(input_shape) == len(var_shape)
            and sum(v for i, v in zip(input_shape, var_shape, strict=True) if i != v) == 1
        ):
            raise ValueError("var is of incorrect size")
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(reduction + " is not valid")
    var = var + (var._data.clamp(min=eps) - var._data)
    difference = input - target
    loss = 0.5 * (var.log() + difference * difference / var)
    if full:
        loss = loss + 0.5 * math.log(2 * math.pi)
    return reduce_loss(loss, _reduction(reduction))


# ------------------------------------------------------------------- logistic margins
def soft_margin_loss(
    input: Tensor,
    target: Tensor,
    size_average: bool | None = None,
    reduce: bool | None = None,
    reduction: str = "mean",
) -> Tensor:
    """The logistic loss ``log(1 + exp(-target * input))`` for targets in ``{1, -1}``.

    >>> import minitorch_rx as mt
    >>> round(soft_margin_loss(mt.tensor([0.0]), mt.tensor([1.0])).item(), 4)
    0.6931
    """
    input, target = _check_tensors("soft_margin_loss", input, target)
    reduction = legacy_reduction(size_average, reduce, reduction)
    _not_differentiable(target, "soft_margin_loss", "target")
    reduction_enum = _reduction(reduction)
    if target.dtype != input.dtype and target.dtype.is_floating_point:  # in the input's dtype, as torch's
        target = target.to(input.dtype)
    return reduce_loss(-logsigmoid(target * input), reduction_enum)


def multilabel_soft_margin_loss(
    input: Tensor,
    target: Tensor,
    weight: Tensor | None = None,
    size_average: bool | None = None,
    reduce: bool | None = None,
    reduction: str = "mean",
) -> Tensor:
    """One-versus-all logistic loss over classes (the last dim), averaged over classes:
    ``-(t log sigmoid(x) + (1 - t) log sigmoid(-x))``; ``weight`` rescales each class.

    >>> import minitorch_rx as mt
    >>> round(multilabel_soft_margin_loss(mt.tensor([[0.0, 0.0]]), mt.tensor([[1.0, 0.0]])).item(), 4)
    0.6931
    """
    input, target = _check_tensors("multilabel_soft_margin_loss", input, target)
    reduction = legacy_reduction(size_average, reduce, reduction)
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(reduction + " is not valid")
    loss = -(target * logsigmoid(input) + (1 - target) * logsigmoid(-input))
    if weight is not None:
        loss = loss * weight
    class_dim = input._data.dim() - 1
    loss = loss.sum(class_dim) / input._data.shape[class_dim]
    return reduce_loss(loss, _reduction(reduction))
