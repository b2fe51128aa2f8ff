"""Transposed convolution (``conv_transpose1d/2d/3d``) by col2im: the adjoint of ``ops/conv.py``'s
im2col correlation.

A transposed convolution of ``x`` (N, C_in, *S) with ``w`` (C_in, C_out/groups, *k) is the input
gradient of the correlation with ``w`` of an output-sized tensor: forward is the product
``w.T @ x`` per group (columns of the output) summed into place by col2im; backward is that
correlation itself (the input gradient) and the weight gradient of the same correlation, whose
columns are im2col of the output gradient (``ops/correlation.py`` computes both a batch slice at a time).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import torch

from ..autograd.function import Function
from ..autograd.tensor import Tensor
from . import correlation
from .constants import tensor_arg
from .conv import ConvNd, IntOrTuple, Unfold, _expand_param, _fmt

_DIM_NAMES = ("depth", "height", "width")


class ConvTransposeNd(Function):
    """``y = col2im(w.T @ x) + b``; ``dx = correlate(dy, w)``, ``dw = x @ im2col(dy).T``, ``db = sum(dy)``."""

    @staticmethod
    def forward(ctx, input, weight, bias, stride, pads, dilation, groups, out_size, batched):
        x = input if batched else input.unsqueeze(0)
        n, in_channels, *in_size = x.shape
        kernel = tuple(weight.shape[2:])
        out_channels = weight.shape[1] * groups
        positions = math.prod(in_size)
        slices = correlation.batch_slices(n, out_channels * math.prod(kernel) * positions)
        y = correlation.input_gradient_by_col2im(
            weight,
            x.reshape(n, in_channels, positions),
            (n, out_channels, *out_size),
            pads,
            dilation,
            stride,
            tuple(in_size),
            groups,
            slices,
        )
        y = y.contiguous()  # col2im's result is a view of the padded output
        if bias is not None:
            y += bias.view(1, out_channels, *(1,) * len(kernel))
        need_x, need_w = ctx.needs_input_grad[:2]
        # The input itself, not its batched view: under create_graph it is then the recorded input.
        ctx.save_for_backward(input if need_w else None, weight if need_x else None)
        ctx.meta = (tuple(in_size), pads, dilation, stride, groups, weight.shape, batched)
        return y if batched else y.squeeze(0)

    @staticmethod
    def backward(ctx, grad):
        x, weight = ctx.saved_tensors
        in_size, pads, dilation, stride, groups, weight_shape, batched = ctx.meta
        need_x, need_w, need_b = ctx.needs_input_grad[:3]
        if not batched:
            grad = grad.unsqueeze(0)
        nd = len(in_size)
        grad_b = grad.sum((0, *range(2, 2 + nd))) if need_b else None
        recorded = isinstance(grad, Tensor)  # create_graph: compose recorded ops
        grad_x = grad_w = None
        if need_x:
            if recorded:
                grad_x = ConvNd.apply(grad, weight, None, stride, pads, dilation, groups, True)
                # Without the windows past the input's (output_padding >= stride).
                grad_x = grad_x[(slice(None), slice(None), *(slice(0, size) for size in in_size))]
            else:
                grad_x = correlation.correlate(grad, pads, weight, None, dilation, stride, in_size, groups)
            if not batched:
                grad_x = grad_x.squeeze(0)
        if need_w:
            if not batched:
                x = x.unsqueeze(0)
            n, in_channels = x.shape[:2]
            positions = math.prod(in_size)
            if recorded:
                kernel = tuple(weight_shape[2:])
                cols = Unfold.apply(grad, kernel, dilation, pads, stride, in_size, True)
                cols = cols.reshape(n, groups, -1, positions).transpose(2, 3)
                per_group = x.reshape(n, groups, in_channels // groups, positions).matmul(cols).sum(0)
                grad_w = per_group.reshape(weight_shape)
            else:
                out_grad = x.reshape(n, in_channels, positions)
                grad_w = correlation.weight_gradient(
                    grad, pads, out_grad, weight_shape, dilation, stride, in_size, groups
                )
        return grad_x, grad_w, grad_b, None, None, None, None, None, None


def _check(name: str, nd: int, x: torch.Tensor, w: torch.Tensor, b: torch.Tensor | None, groups: int) -> None:
    """PyTorch's checks of a transposed convolution's tensors, in its words."""
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
    if not isinstance(groups, int) or isinstance(groups, bool) or groups <= 0:
        raise RuntimeError("non-positive groups is not supported")
    if w.shape[0] % groups:
        raise RuntimeError(
            f"Given groups={groups}, expected weight to be divisible by {groups} at dimension 0, "
            f"but got weight of size [{list(w.shape)}] instead"
        )
    if shape[1] != w.shape[0]:
        raise RuntimeError(
            f"Given transposed=1, weight of size {list(w.shape)}, expected input{shape} to have "
            f"{w.shape[0]} channels, but got {shape[1]} channels instead"
        )
    out_channels = w.shape[1] * groups
    if b is not None and (b.dim() != 1 or b.shape[0] != out_channels):
        raise RuntimeError(
            f"Given transposed=1, weight of size {list(w.shape)}, expected bias to be 1-dimensional with "
            f"{out_channels} elements, but got bias of size {list(b.shape)} instead"
        )
    for other in (w, b):
        if other is not None and other.dtype != x.dtype:
            raise RuntimeError(f"expected scalar type {_dtype_name(x.dtype)} but found {_dtype_name(other.dtype)}")


def _dtype_name(dtype: torch.dtype) -> str:
    return torch.empty((), dtype=dtype).type().split(".")[-1].replace("Tensor", "")


def _named(label: str, values: Sequence[int], nd: int) -> str:
    return " ".join(f"{label}_{d}: {v}" for d, v in zip(_DIM_NAMES[3 - nd :], values, strict=True))


def _conv_transpose(
    name: str,
    nd: int,
    input: Tensor,
    weight: Tensor,
    bias: Tensor | None,
    stride: IntOrTuple,
    padding: IntOrTuple,
    output_padding: IntOrTuple,
    groups: int,
    dilation: IntOrTuple,
) -> Tensor:
    input, weight = tensor_arg(input, name), tensor_arg(weight, name, "weight", 2)
    bias = tensor_arg(bias, name, "bias", 3, optional=True)
    x, w = input._data, weight._data
    _check(name, nd, x, w, None if bias is None else bias._data, groups)
    stride = _expand_param(stride, nd, "stride")
    padding = _expand_param(padding, nd, "padding")
    output_padding = _expand_param(output_padding, nd, "output_padding")
    dilation = _expand_param(dilation, nd, "dilation")
    if any(s <= 0 for s in stride):
        raise RuntimeError("non-positive stride is not supported")
    if any(p < 0 for p in padding):
        raise RuntimeError("negative padding is not supported")
    if any(d <= 0 for d in dilation):
        raise RuntimeError(f"dilation should be greater than zero, but got {_named('dilation', dilation, nd)}")
    if any(p < 0 or (p >= s and p >= d) for p, s, d in zip(output_padding, stride, dilation, strict=True)):
        raise RuntimeError(
            "output padding must be smaller than either stride or dilation, but got "
            f"{_named('output_padding', output_padding, nd)} {_named('stride', stride, nd)} "
            f"{_named('dilation', dilation, nd)}"
        )
    kernel = tuple(w.shape[2:])
    in_size = tuple(x.shape[-nd:])
    out_size = tuple(
        (i - 1) * s - 2 * p + d * (k - 1) + op + 1
        for i, s, p, d, k, op in zip(in_size, stride, padding, dilation, kernel, output_padding, strict=True)
    )
    if any(o <= 0 for o in out_size) or any(i <= 0 for i in in_size):
        raise RuntimeError(
            f"Given input size per channel: {_fmt(in_size, ' x ')}. Calculated output size per channel: "
            f"{_fmt(out_size, ' x ')}. Output size is too small"
        )
    pads = tuple((p, p) for p in padding)
    return ConvTransposeNd.apply(input, weight, bias, stride, pads, dilation, groups, out_size, x.dim() == nd + 2)


_DOC = """{dims}-D transposed convolution (the adjoint of ``conv{dims}d``, "deconvolution"), by col2im.

    ``input`` (N, C_in, {spatial}) or unbatched (C_in, {spatial}); ``weight``
    (C_in, C_out / groups, {kernel}); ``bias`` (C_out,) or None. ``stride``, ``padding``,
    ``output_padding`` (extra size on one side, below stride or dilation) and ``dilation`` are ints
    or {dims}-tuples. Each output size is ``(in - 1) * stride - 2 * padding + dilation * (k - 1) +
    output_padding + 1``. Differentiable in input, weight and bias. Raises RuntimeError in
    PyTorch's words for wrong ranks, channels, bias size, dtype, arguments, or an empty output.
    """


def conv_transpose1d(
    input: Tensor,
    weight: Tensor,
    bias: Tensor | None = None,
    stride: IntOrTuple = 1,
    padding: IntOrTuple = 0,
    output_padding: IntOrTuple = 0,
    groups: int = 1,
    dilation: IntOrTuple = 1,
) -> Tensor:
    return _conv_transpose(
        "conv_transpose1d", 1, input, weight, bias, stride, padding, output_padding, groups, dilation
    )


def conv_transpose2d(
    input: Tensor,
    weight: Tensor,
    bias: Tensor | None = None,
    stride: IntOrTuple = 1,
    padding: IntOrTuple = 0,
    output_padding: IntOrTuple = 0,
    groups: int = 1,
    dilation: IntOrTuple = 1,
) -> Tensor:
    return _conv_transpose(
        "conv_transpose2d", 2, input, weight, bias, stride, padding, output_padding, groups, dilation
    )


def conv_transpose3d(
    input: Tensor,
    weight: Tensor,
    bias: Tensor | None = None,
    stride: IntOrTuple = 1,
    padding: IntOrTuple = 0,
    output_padding: IntOrTuple = 0,
    groups: int = 1,
    dilation: IntOrTuple = 1,
) -> Tensor:
    return _conv_transpose(
        "conv_transpose3d", 3, input, weight, bias, stride, padding, output_padding, groups, dilation
    )


conv_transpose1d.__doc__ = _DOC.format(dims=1, spatial="L", kernel="k")
conv_transpose2d.__doc__ = _DOC.format(dims=2, spatial="H, W", kernel="kH, kW")
conv_transpose3d.__doc__ = _DOC.format(dims=3, spatial="D, H, W", kernel="kD, kH, kW")
