"""``dropout``: inverted dropout, its mask drawn from torch's global generator.

``torch.native_dropout`` draws the same Bernoulli numbers as ``torch.nn.functional.dropout``,
so after ``mt.manual_seed(s)`` the mask equals PyTorch's after ``torch.manual_seed(s)``.
"""

from __future__ import annotations

import math
import warnings

import torch

from ..autograd.function import Function
from ..autograd.tensor import Tensor
from .constants import tensor_arg
from .inplace import overwrite


class Dropout(Function):
    @staticmethod
    def forward(ctx, x, p):
        if p == 1:  # as PyTorch: everything dropped, and no numbers drawn
            mask = torch.zeros_like(x, dtype=torch.bool)
            out, ctx.scale = x * mask, 0.0
        else:
            out, mask = torch.native_dropout(x, p, True)
            ctx.scale = 1.0 / (1.0 - p)
        ctx.save_for_backward(mask)
        return out

    @staticmethod
    def backward(ctx, grad):
        (mask,) = ctx.saved_tensors
        return torch.ops.aten.native_dropout_backward(grad, mask, ctx.scale), None


def dropout(input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False) -> Tensor:
    """Zero each element with probability ``p`` and scale the rest by ``1 / (1 - p)``.

    Any shape. With ``training=False`` or ``p == 0`` the input itself is returned; with
    ``inplace=True`` the input is overwritten with the result and returned. Raises
    ``ValueError`` for ``p`` outside ``[0, 1]``.

    >>> import minitorch_rx as mt
    >>> dropout(mt.ones(3), p=0.5, training=False).tolist()
    [1.0, 1.0, 1.0]
    """
    input = tensor_arg(input, "dropout")
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if not training or p == 0 or input._data.numel() == 0:
        return input
    return overwrite(input, Dropout.apply, p) if inplace else Dropout.apply(input, p)


_SELU_ALPHA = 1.7580993408473766  # -selu(-inf): where alpha dropout sends dropped units


def _check_p(input: object, function: str, p: float) -> Tensor:
    """``input`` as an mt.Tensor, once it and ``p`` are checked."""
    input = tensor_arg(input, function)
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    return input


def _noisy(input: Tensor, p: float, feature: bool, alpha: bool) -> Tensor:
    """PyTorch's ``_dropout_impl``: Bernoulli(1 - p) noise per element (or per ``(N, C)`` channel
    with ``feature``), drawn from torch's generator in the same order, applied as constants
    (``x * scale`` and, for alpha dropout, ``+ shift``) so the gradient is ``grad * scale``.
    Plain dropout on CUDA is torch's fused kernel there (``native_dropout``), whose random stream
    is not ``bernoulli_``'s: the same kernel, given ones, draws the same scaled mask."""
    data = input._data
    if p == 1:
        return input * torch.zeros((), dtype=data.dtype, device=data.device)
    if data.is_cuda and not (feature or alpha):
        return input * torch.native_dropout(torch.ones_like(data), p, True)[0]
    if feature:
        if data.dim() < 2:
            raise RuntimeError("Feature dropout requires at least 2 dimensions in the input")
        noise = torch.empty(
            (data.shape[0], data.shape[1]) + (1,) * (data.dim() - 2), dtype=data.dtype, device=data.device
        )
    else:
        noise = torch.empty_like(data)
    noise.bernoulli_(1 - p)
    if not alpha:
        return input * noise.div_(1 - p)
    a = 1.0 / math.sqrt((_SELU_ALPHA * _SELU_ALPHA * p + 1) * (1 - p))
    shift = noise.add(-1).mul_(_SELU_ALPHA * a).add_(_SELU_ALPHA * a * p)
    return input * noise.mul_(a) + shift


def _dropout_variant(input: Tensor, p: float, training: bool, inplace: bool, feature: bool, alpha: bool) -> Tensor:
    if not training or p == 0 or input._data.numel() == 0:
        return input
    if inplace:
        return overwrite(input, _noisy, p, feature, alpha)
    return _noisy(input, p, feature, alpha)


def _channelwise(
    input: Tensor, p: float, training: bool, inplace: bool, name: str, spatial: int, warn_rank: bool
) -> Tensor:
    """dropout1d/2d/3d: whole channels zeroed; an unbatched input gets a batch dim around the draw."""
    input = _check_p(input, name, p)
    dims = input._data.dim()
    batched_rank = spatial + 2
    if not warn_rank and dims not in (batched_rank - 1, batched_rank):
        raise RuntimeError(
            f"{name}: Expected 2D or 3D input, but received a {dims}D input. Note that dropout1d exists to provide "
            "channel-wise dropout on inputs with 1 spatial dimension, a channel dimension, and an optional batch "
            "dimension (i.e. 2D or 3D inputs)."
        )
    if warn_rank and dims not in (batched_rank - 1, batched_rank):
        warnings.warn(
            f"{name}: Received a {dims}-D input to {name}, which is deprecated and will result in an error in a "
            f"future release. To retain the behavior and silence this warning, please use dropout instead. Note "
            f"that {name} exists to provide channel-wise dropout on inputs with {spatial} spatial dimensions, a "
            f"channel dimension, and an optional batch dimension (i.e. {batched_rank - 1}D or {batched_rank}D "
            "inputs).",
            stacklevel=3,
        )
    if name == "dropout2d" and dims == 3:
        warnings.warn(
            "dropout2d: Received a 3D input to dropout2d and assuming that channel-wise 1D dropout behavior is "
            "desired - input is interpreted as shape (N, C, L), where C is the channel dim. This behavior will "
            "change in a future release to interpret the input as one without a batch dimension, i.e. shape "
            "(C, H, W). To maintain the 1D channel-wise dropout behavior, please switch to using dropout1d instead.",
            stacklevel=3,
        )
    # dropout1d and dropout3d draw one batch's worth of noise for an unbatched input; dropout2d never does
    unbatched = (name == "dropout1d" and dims == 2) or (name == "dropout3d" and dims != batched_rank)
    if unbatched:
        if inplace:
            return overwrite(input, _unbatched_channelwise, p, training)
        return _unbatched_channelwise(input, p, training)
    return _dropout_variant(input, p, training, inplace, True, False)


def _unbatched_channelwise(input: Tensor, p: float, training: bool) -> Tensor:
    return _dropout_variant(input.unsqueeze(0), p, training, False, True, False).squeeze(0)


def dropout1d(input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False) -> Tensor:
    """Zero whole channels of a ``(N, C, L)`` or ``(C, L)`` input with probability ``p``, scaling
    the rest by ``1 / (1 - p)``; the same draws as PyTorch's after the same seed.

    >>> import minitorch_rx as mt
    >>> dropout1d(mt.ones(2, 3), training=False).shape
    torch.Size([2, 3])
    """
    return _channelwise(input, p, training, inplace, "dropout1d", 1, False)


def dropout2d(input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False) -> Tensor:
    """Zero whole channels of a ``(N, C, H, W)`` input (a 3-D input is taken as ``(N, C, L)``,
    with PyTorch's warning) with probability ``p``, scaling the rest by ``1 / (1 - p)``."""
    return _channelwise(input, p, training, inplace, "dropout2d", 2, True)


def dropout3d(input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False) -> Tensor:
    """Zero whole channels of a ``(N, C, D, H, W)`` or ``(C, D, H, W)`` input with probability ``p``,
    scaling the rest by ``1 / (1 - p)``."""
    return _channelwise(input, p, training, inplace, "dropout3d", 3, True)


def alpha_dropout(input: Tensor, p: float = 0.5, training: bool = False, inplace: bool = False) -> Tensor:
    """Dropout for SELU networks: dropped units are set to SELU's negative saturation and the
    result is rescaled and shifted so mean and variance are kept (PyTorch's formula and draws).

    >>> import minitorch_rx as mt
    >>> alpha_dropout(mt.ones(3)).tolist()
    [1.0, 1.0, 1.0]
    """
    input = _check_p(input, "alpha_dropout", p)
    return _dropout_variant(input, p, training, inplace, False, True)


def feature_alpha_dropout(input: Tensor, p: float = 0.5, training: bool = False, inplace: bool = False) -> Tensor:
    """Alpha dropout of whole channels (dim 1) of an input of 2 or more dims."""
    input = _check_p(input, "feature_alpha_dropout", p)
    return _dropout_variant(input, p, training, inplace, True, True)
