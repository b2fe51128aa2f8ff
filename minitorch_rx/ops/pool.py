"""Pooling over 1, 2 and 3 spatial dims: max, average, adaptive average, adaptive max and
power-average (LP, composed of average pooling).

Forward runs torch's pooling functions (so arguments are checked, and errors worded, exactly as
PyTorch's); backward runs torch's own backward kernels (``aten.*_backward``), so a max-pool
gradient goes to the arg-max PyTorch picks, ties and padding included. torch has no 1-D
backward kernels: a 1-D pool's gradient is the 2-D kernel's over a height of 1, as PyTorch's
own 1-D pools compute it.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import torch
import torch.nn.functional as torch_functional

from ..autograd.function import Function
from ..autograd.tensor import Tensor
from .constants import tensor_arg

aten = torch.ops.aten
IntOrTuple = int | Sequence[int]
OptionalSize = int | None | Sequence[int | None]

_MAX_POOL = {1: torch_functional.max_pool1d, 2: torch_functional.max_pool2d, 3: torch_functional.max_pool3d}
_MAX_POOL_BACKWARD = {2: aten.max_pool2d_with_indices_backward, 3: aten.max_pool3d_with_indices_backward}
_AVG_POOL_BACKWARD = {2: aten.avg_pool2d_backward, 3: aten.avg_pool3d_backward}
_ADAPTIVE_AVG_POOL = {
    1: torch_functional.adaptive_avg_pool1d,
    2: torch_functional.adaptive_avg_pool2d,
    3: torch_functional.adaptive_avg_pool3d,
}
_ADAPTIVE_AVG_POOL_BACKWARD = {2: aten._adaptive_avg_pool2d_backward, 3: aten._adaptive_avg_pool3d_backward}
_ADAPTIVE_MAX_POOL = {
    1: torch_functional.adaptive_max_pool1d,
    2: torch_functional.adaptive_max_pool2d,
    3: torch_functional.adaptive_max_pool3d,
}
_ADAPTIVE_MAX_POOL_BACKWARD = {2: aten.adaptive_max_pool2d_backward, 3: aten.adaptive_max_pool3d_backward}


def _one(value: IntOrTuple) -> int:
    """A 1-D pool argument (an int or a 1-sequence, already accepted by torch's forward) as an int."""
    return value if isinstance(value, int) else value[0]


def _stride(stride: IntOrTuple | None, kernel_size: IntOrTuple) -> IntOrTuple:
    """PyTorch's default: an omitted stride (None or empty) is the kernel size."""
    return kernel_size if stride is None or (not isinstance(stride, int) and len(stride) == 0) else stride


#: From this many channels a 2-D max pool of NCHW data runs on a channels-last copy: torch's
#: channels-last kernel is so much faster that it pays for the two layout copies. Forward with
#: indices, one thread: (64, 6, 28, 28) 1.6 -> 1.0 ms, (64, 16, 10, 10) 0.55 -> 0.11 ms,
#: (128, 64, 32, 32) 3x3 stride 2: 64 -> 35 ms; with 3 channels it was slower (1.1 -> 1.4 ms).
#: The backward kernel is faster on NCHW data and stays there. Results and indices are equal.
CHANNELS_LAST_MAX_POOL_FROM = 6


def _pool_layout(x: torch.Tensor, nd: int) -> torch.Tensor:
    """``x`` as the faster 2-D max-pool kernel wants it (see ``CHANNELS_LAST_MAX_POOL_FROM``)."""
    if nd == 2 and x.dim() == 4 and x.shape[1] >= CHANNELS_LAST_MAX_POOL_FROM and x.is_contiguous():
        return x.contiguous(memory_format=torch.channels_last)
    return x


class MaxPoolNd(Function):
    @staticmethod
    def forward(ctx, x, nd, kernel_size, stride, padding, dilation, ceil_mode, return_indices):
        pool = _MAX_POOL[nd]
        source = _pool_layout(x, nd)
        if not (return_indices or ctx.needs_input_grad[0]):
            return pool(source, kernel_size, stride, padding, dilation, ceil_mode=ceil_mode).contiguous()
        if nd == 1:
            # torch's 1-D pool with indices checks its arguments in other words than the one
            # without (which F.max_pool1d uses); run that one's checks on a data-less copy.
            pool(x.to("meta"), kernel_size, stride, padding, dilation, ceil_mode=ceil_mode)
        out, indices = pool(source, kernel_size, stride, padding, dilation, ceil_mode=ceil_mode, return_indices=True)
        out, indices = out.contiguous(), indices.contiguous()
        ctx.save_for_backward(x, indices)
        ctx.args = (nd, kernel_size, _stride(stride, kernel_size), padding, dilation, ceil_mode)
        if return_indices:
            ctx.mark_non_differentiable(indices)
            return out, indices
        return out

    @staticmethod
    def backward(ctx, grad, *_):
        x, indices = ctx.saved_tensors
        nd, kernel_size, stride, padding, dilation, ceil_mode = ctx.args
        if nd == 1:
            grad_x = aten.max_pool2d_with_indices_backward(
                grad.unsqueeze(-2),
                x.unsqueeze(-2),
                (1, _one(kernel_size)),
                (1, _one(stride)),
                (0, _one(padding)),
                (1, _one(dilation)),
                ceil_mode,
                indices.unsqueeze(-2),
            ).squeeze(-2)
        else:
            grad_x = _MAX_POOL_BACKWARD[nd](grad, x, kernel_size, stride, padding, dilation, ceil_mode, indices)
        return grad_x, None, None, None, None, None, None, None


class AvgPoolNd(Function):
    @staticmethod
    def forward(ctx, x, nd, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override):
        if nd == 1:
            out = torch_functional.avg_pool1d(x, kernel_size, stride, padding, ceil_mode, count_include_pad)
        else:
            pool = torch_functional.avg_pool2d if nd == 2 else torch_functional.avg_pool3d
            out = pool(x, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override)
        if ctx.needs_input_grad[0]:
            ctx.save_for_backward(x)
            stride = _stride(stride, kernel_size)
            ctx.args = (nd, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override)
        return out

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        nd, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override = ctx.args
        if nd == 1:
            grad_x = aten.avg_pool2d_backward(
                grad.unsqueeze(-2),
                x.unsqueeze(-2),
                (1, _one(kernel_size)),
                (1, _one(stride)),
                (0, _one(padding)),
                ceil_mode,
                count_include_pad,
                None,
            ).squeeze(-2)
        else:
            grad_x = _AVG_POOL_BACKWARD[nd](
                grad, x, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override
            )
        return grad_x, None, None, None, None, None, None, None


class AdaptiveAvgPoolNd(Function):
    @staticmethod
    def forward(ctx, x, nd, output_size):
        if ctx.needs_input_grad[0]:
            ctx.save_for_backward(x)
            ctx.nd = nd
        return _ADAPTIVE_AVG_POOL[nd](x, output_size)

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        if ctx.nd == 1:
            grad_x = aten._adaptive_avg_pool2d_backward(grad.unsqueeze(-2), x.unsqueeze(-2)).squeeze(-2)
        else:
            grad_x = _ADAPTIVE_AVG_POOL_BACKWARD[ctx.nd](grad, x)
        return grad_x, None, None


class AdaptiveMaxPoolNd(Function):
    @staticmethod
    def forward(ctx, x, nd, output_size, return_indices):
        out, indices = _ADAPTIVE_MAX_POOL[nd](x, output_size, return_indices=True)
        ctx.save_for_backward(x, indices)
        ctx.nd = nd
        if return_indices:
            ctx.mark_non_differentiable(indices)
            return out, indices
        return out

    @staticmethod
    def backward(ctx, grad, *_):
        x, indices = ctx.saved_tensors
        if ctx.nd == 1:  # a 1-D pool's indices are also its flat indices over a height of 1
            grad_x = aten.adaptive_max_pool2d_backward(grad.unsqueeze(-2), x.unsqueeze(-2), indices.unsqueeze(-2))
            return grad_x.squeeze(-2), None, None, None
        return _ADAPTIVE_MAX_POOL_BACKWARD[ctx.nd](grad, x, indices), None, None, None


# ------------------------------------------------------------------ public functions
_MAX_DOC = """{dims}-D max pooling over ``input`` (N, C, {spatial}) or unbatched (C, {spatial}).

    ``kernel_size``, ``stride`` (default: ``kernel_size``), ``padding`` (implicit -inf, at most half
    the kernel) and ``dilation`` are ints or {dims}-tuples; ``ceil_mode`` rounds the output size up.
    Returns the pooled tensor, and with ``return_indices`` also the arg-max positions (int64, flat
    over the input's spatial dims, no gradient). The gradient goes to each window's arg-max, as
    PyTorch's. Raises RuntimeError in PyTorch's words for bad arguments or an empty output.
    """


# PyTorch's node names for 2-D and 3-D pooling (its 1-D pooling is a 2-D one between views).
_MaxPool2d = MaxPoolNd.overload("MaxPool2DWithIndicesBackward0")
_MaxPool3d = MaxPoolNd.overload("MaxPool3DWithIndicesBackward0")
_AvgPool2d = AvgPoolNd.overload("AvgPool2DBackward0")
_AvgPool3d = AvgPoolNd.overload("AvgPool3DBackward0")
_AdaptiveAvgPool2d = AdaptiveAvgPoolNd.overload("AdaptiveAvgPool2DBackward0")
_AdaptiveAvgPool3d = AdaptiveAvgPoolNd.overload("AdaptiveAvgPool3DBackward0")


def max_pool1d(
    input: Tensor,
    kernel_size: IntOrTuple,
    stride: IntOrTuple | None = None,
    padding: IntOrTuple = 0,
    dilation: IntOrTuple = 1,
    ceil_mode: bool = False,
    return_indices: bool = False,
) -> Tensor | tuple[Tensor, Tensor]:
    return MaxPoolNd.apply(input, 1, kernel_size, stride, padding, dilation, ceil_mode, return_indices)


def max_pool2d(
    input: Tensor,
    kernel_size: IntOrTuple,
    stride: IntOrTuple | None = None,
    padding: IntOrTuple = 0,
    dilation: IntOrTuple = 1,
    ceil_mode: bool = False,
    return_indices: bool = False,
) -> Tensor | tuple[Tensor, Tensor]:
    return _MaxPool2d.apply(input, 2, kernel_size, stride, padding, dilation, ceil_mode, return_indices)


def max_pool3d(
    input: Tensor,
    kernel_size: IntOrTuple,
    stride: IntOrTuple | None = None,
    padding: IntOrTuple = 0,
    dilation: IntOrTuple = 1,
    ceil_mode: bool = False,
    return_indices: bool = False,
) -> Tensor | tuple[Tensor, Tensor]:
    return _MaxPool3d.apply(input, 3, kernel_size, stride, padding, dilation, ceil_mode, return_indices)


max_pool1d.__doc__ = _MAX_DOC.format(dims=1, spatial="L")
max_pool2d.__doc__ = _MAX_DOC.format(dims=2, spatial="H, W")
max_pool3d.__doc__ = _MAX_DOC.format(dims=3, spatial="D, H, W")

_AVG_DOC = """{dims}-D average pooling over ``input`` (N, C, {spatial}) or unbatched (C, {spatial}).

    ``kernel_size``, ``stride`` (default: ``kernel_size``) and ``padding`` (zeros, at most half the
    kernel) are ints or {dims}-tuples; ``ceil_mode`` rounds the output size up;
    ``count_include_pad`` counts padded zeros in the divisor{divisor}. Raises RuntimeError in
    PyTorch's words for bad arguments or an empty output.
    """


def avg_pool1d(
    input: Tensor,
    kernel_size: IntOrTuple,
    stride: IntOrTuple | None = None,
    padding: IntOrTuple = 0,
    ceil_mode: bool = False,
    count_include_pad: bool = True,
) -> Tensor:
    return AvgPoolNd.apply(input, 1, kernel_size, stride, padding, ceil_mode, count_include_pad, None)


def avg_pool2d(
    input: Tensor,
    kernel_size: IntOrTuple,
    stride: IntOrTuple | None = None,
    padding: IntOrTuple = 0,
    ceil_mode: bool = False,
    count_include_pad: bool = True,
    divisor_override: int | None = None,
) -> Tensor:
    return _AvgPool2d.apply(input, 2, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override)


def avg_pool3d(
    input: Tensor,
    kernel_size: IntOrTuple,
    stride: IntOrTuple | None = None,
    padding: IntOrTuple = 0,
    ceil_mode: bool = False,
    count_include_pad: bool = True,
    divisor_override: int | None = None,
) -> Tensor:
    return _AvgPool3d.apply(input, 3, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override)


_DIVISOR = "; ``divisor_override``, when given, is the divisor of every window"
avg_pool1d.__doc__ = _AVG_DOC.format(dims=1, spatial="L", divisor="")
avg_pool2d.__doc__ = _AVG_DOC.format(dims=2, spatial="H, W", divisor=_DIVISOR)
avg_pool3d.__doc__ = _AVG_DOC.format(dims=3, spatial="D, H, W", divisor=_DIVISOR)

_ADAPTIVE_DOC = """{dims}-D adaptive average pooling of ``input`` (N, C, {spatial}) or unbatched
    (C, {spatial}) to ``output_size`` (an int or a {dims}-tuple{none}), with PyTorch's windows:
    output cell i averages input positions floor(i*L/out) to ceil((i+1)*L/out) - 1.
    """


def adaptive_avg_pool1d(input: Tensor, output_size: IntOrTuple) -> Tensor:
    return AdaptiveAvgPoolNd.apply(input, 1, output_size)


def adaptive_avg_pool2d(input: Tensor, output_size: OptionalSize) -> Tensor:
    return _AdaptiveAvgPool2d.apply(input, 2, output_size)


def adaptive_avg_pool3d(input: Tensor, output_size: OptionalSize) -> Tensor:
    return _AdaptiveAvgPool3d.apply(input, 3, output_size)


_NONE = "; None keeps that dim's input size"
adaptive_avg_pool1d.__doc__ = _ADAPTIVE_DOC.format(dims=1, spatial="L", none="")
adaptive_avg_pool2d.__doc__ = _ADAPTIVE_DOC.format(dims=2, spatial="H, W", none=_NONE)
adaptive_avg_pool3d.__doc__ = _ADAPTIVE_DOC.format(dims=3, spatial="D, H, W", none=_NONE)


_ADAPTIVE_MAX_DOC = """{dims}-D adaptive max pooling of ``input`` (N, C, {spatial}) or (C, {spatial}) to
    ``output_size`` (an int or a {dims}-tuple{none}), over PyTorch's adaptive windows. With
    ``return_indices`` also returns the arg-max positions (int64, flat over the spatial dims, no
    gradient); the gradient goes to each window's arg-max. Errors are torch's.
    """


def adaptive_max_pool1d(
    input: Tensor, output_size: IntOrTuple, return_indices: bool = False
) -> Tensor | tuple[Tensor, Tensor]:
    return AdaptiveMaxPoolNd.apply(input, 1, output_size, return_indices)


def adaptive_max_pool2d(
    input: Tensor, output_size: OptionalSize, return_indices: bool = False
) -> Tensor | tuple[Tensor, Tensor]:
    return AdaptiveMaxPoolNd.apply(input, 2, output_size, return_indices)


def adaptive_max_pool3d(
    input: Tensor, output_size: OptionalSize, return_indices: bool = False
) -> Tensor | tuple[Tensor, Tensor]:
    return AdaptiveMaxPoolNd.apply(input, 3, output_size, return_indices)


adaptive_max_pool1d.__doc__ = _ADAPTIVE_MAX_DOC.format(dims=1, spatial="L", none="")
adaptive_max_pool2d.__doc__ = _ADAPTIVE_MAX_DOC.format(dims=2, spatial="H, W", none=_NONE)
adaptive_max_pool3d.__doc__ = _ADAPTIVE_MAX_DOC.format(dims=3, spatial="D, H, W", none=_NONE)


def _lp_pool(
    nd: int, input: Tensor, norm_type: float, kernel_size: IntOrTuple, stride: IntOrTuple | None, ceil_mode: bool
) -> Tensor:
    """PyTorch's power-average pooling: ``(sum over the window of x ** p) ** (1 / p)``, composed."""
    kernel = (kernel_size,) * nd if isinstance(kernel_size, int) else tuple(kernel_size)
    pool = (avg_pool1d, avg_pool2d, avg_pool3d)[nd - 1]
    out = pool(input**norm_type, kernel_size, stride, 0, ceil_mode)
    return (out * math.prod(kernel)) ** (1.0 / norm_type)


_LP_DOC = """{dims}-D power-average pooling of ``input`` (N, C, {spatial}) or (C, {spatial}):
    ``(sum of x ** norm_type over each window) ** (1 / norm_type)`` (max pooling as norm_type grows,
    sum pooling at 1). ``kernel_size`` and ``stride`` (default: ``kernel_size``) as avg_pool{dims}d's.
    """


def lp_pool1d(
    input: Tensor, norm_type: float, kernel_size: int, stride: IntOrTuple | None = None, ceil_mode: bool = False
) -> Tensor:
    return _lp_pool(1, input, norm_type, kernel_size, stride, ceil_mode)


def lp_pool2d(
    input: Tensor, norm_type: float, kernel_size: IntOrTuple, stride: IntOrTuple | None = None, ceil_mode: bool = False
) -> Tensor:
    return _lp_pool(2, input, norm_type, kernel_size, stride, ceil_mode)


def lp_pool3d(
    input: Tensor, norm_type: float, kernel_size: IntOrTuple, stride: IntOrTuple | None = None, ceil_mode: bool = False
) -> Tensor:
    return _lp_pool(3, input, norm_type, kernel_size, stride, ceil_mode)


lp_pool1d.__doc__ = _LP_DOC.format(dims=1, spatial="L")
lp_pool2d.__doc__ = _LP_DOC.format(dims=2, spatial="H, W")
lp_pool3d.__doc__ = _LP_DOC.format(dims=3, spatial="D, H, W")


def _fractional_max_pool(nd: int, input: Tensor, kernel_size, output_size, output_ratio, return_indices, samples):
    """torch's kernel picks each window's arg-max (from ``_random_samples``, or draws from torch's
    generator as PyTorch does); the output gathers those elements, so the gradient flows to them."""
    torch_pool = torch_functional.fractional_max_pool2d if nd == 2 else torch_functional.fractional_max_pool3d
    input = tensor_arg(input, f"fractional_max_pool{nd}d")
    if isinstance(samples, Tensor):
        samples = samples._data
    _, indices = torch_pool(input._data, kernel_size, output_size, output_ratio, True, samples)
    out = input.flatten(-nd).gather(-1, indices.flatten(-nd)).reshape(indices.shape)
    return (out, Tensor._make(indices, None)) if return_indices else out


def fractional_max_pool2d(
    input: Tensor, kernel_size, output_size=None, output_ratio=None, return_indices: bool = False, _random_samples=None
):
    """Fractional max pooling over H, W of ``(N, C, H, W)`` or ``(C, H, W)``: pseudo-random window
    starts from ``_random_samples`` ``(N, C, 2)`` in ``[0, 1)`` (drawn when not given)."""
    return _fractional_max_pool(2, input, kernel_size, output_size, output_ratio, return_indices, _random_samples)


def fractional_max_pool3d(
    input: Tensor, kernel_size, output_size=None, output_ratio=None, return_indices: bool = False, _random_samples=None
):
    """Fractional max pooling over D, H, W of ``(N, C, D, H, W)`` or ``(C, D, H, W)`` (see the 2-D one)."""
    return _fractional_max_pool(3, input, kernel_size, output_size, output_ratio, return_indices, _random_samples)
