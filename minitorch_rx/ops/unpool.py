"""``max_unpool1d/2d/3d``: the partial inverse of max pooling, each value put back at its arg-max.

Forward is torch's (its checks and wording); the gradient gathers the output gradient at the
indices (``GatherAt``), whose own gradient scatters back, so the pair is differentiable to any order.
"""

from __future__ import annotations

from collections.abc import Sequence

import torch
import torch.nn.functional as torch_functional

from ..autograd.function import Function
from ..autograd.tensor import Tensor
from .constants import TENSOR_TYPES, not_a_tensor

IntOrTuple = int | Sequence[int]
_UNPOOL = {1: torch_functional.max_unpool1d, 2: torch_functional.max_unpool2d, 3: torch_functional.max_unpool3d}


def _gather(grad: torch.Tensor, indices: torch.Tensor, nd: int) -> torch.Tensor:
    """``grad`` (*, *out_spatial) read at ``indices`` (*, *in_spatial), flat over the spatial dims."""
    flat = grad.reshape(*grad.shape[:-nd], -1)
    return flat.gather(-1, indices.reshape(*indices.shape[:-nd], -1)).reshape(indices.shape)


class MaxUnpool(Function):
    @staticmethod
    def forward(ctx, x, indices, nd, kernel_size, stride, padding, output_size):
        ctx.args = (indices, nd, (kernel_size, stride, padding, output_size))
        return _UNPOOL[nd](x, indices, kernel_size, stride, padding, output_size)

    @staticmethod
    def backward(ctx, grad):
        indices, nd, unpool_args = ctx.args
        if isinstance(grad, Tensor):  # create_graph
            grad_x = GatherAt.apply(grad, indices, nd, unpool_args)
        else:
            grad_x = _gather(grad, indices, nd)
        return grad_x, None, None, None, None, None, None


class GatherAt(Function):
    """``MaxUnpool``'s gradient: ``x`` (*, *out_spatial) read at ``indices``; its gradient is the
    unpooling again (``unpool_args``: the kernel size, stride, padding and output size given to it)."""

    @staticmethod
    def forward(ctx, x, indices, nd, unpool_args):
        ctx.args = (indices, nd, x.shape, unpool_args)
        return _gather(x, indices, nd)

    @staticmethod
    def backward(ctx, grad):
        indices, nd, shape, unpool_args = ctx.args
        if isinstance(grad, Tensor):
            return MaxUnpool.apply(grad, indices, nd, *unpool_args), None, None, None
        flat = grad.new_zeros(*shape[:-nd], torch.Size(shape[-nd:]).numel())
        lead = grad.shape[:-nd]
        flat.scatter_add_(-1, indices.reshape(*lead, -1), grad.reshape(*lead, -1))
        return flat.reshape(shape), None, None, None


def _max_unpool(
    name: str,
    nd: int,
    input: Tensor,
    indices: Tensor,
    kernel_size: IntOrTuple,
    stride: IntOrTuple | None,
    padding: IntOrTuple,
    output_size: Sequence[int] | None,
) -> Tensor:
    for position, (argument, value) in enumerate((("input", input), ("indices", indices)), start=1):
        if not isinstance(value, TENSOR_TYPES):
            raise not_a_tensor(name, value, argument, position)
    index_data = indices._data if isinstance(indices, Tensor) else indices
    size = None if output_size is None else list(output_size)
    return MaxUnpool.apply(input, index_data, nd, kernel_size, stride, padding, size)


_DOC = """{dims}-D max unpooling: ``input`` (N, C, {spatial}) or (C, {spatial}) put into zeros at
    ``indices`` (``max_pool{dims}d(..., return_indices=True)``'s); the output size is that of the pool's
    input, or ``output_size``. Differentiable in ``input``. Errors are torch's.
    """


def max_unpool1d(
    input: Tensor,
    indices: Tensor,
    kernel_size: IntOrTuple,
    stride: IntOrTuple | None = None,
    padding: IntOrTuple = 0,
    output_size: Sequence[int] | None = None,
) -> Tensor:
    return _max_unpool("max_unpool1d", 1, input, indices, kernel_size, stride, padding, output_size)


def max_unpool2d(
    input: Tensor,
    indices: Tensor,
    kernel_size: IntOrTuple,
    stride: IntOrTuple | None = None,
    padding: IntOrTuple = 0,
    output_size: Sequence[int] | None = None,
) -> Tensor:
    return _max_unpool("max_unpool2d", 2, input, indices, kernel_size, stride, padding, output_size)


def max_unpool3d(
    input: Tensor,
    indices: Tensor,
    kernel_size: IntOrTuple,
    stride: IntOrTuple | None = None,
    padding: IntOrTuple = 0,
    output_size: Sequence[int] | None = None,
) -> Tensor:
    return _max_unpool("max_unpool3d", 3, input, indices, kernel_size, stride, padding, output_size)


max_unpool1d.__doc__ = _DOC.format(dims=1, spatial="L")
max_unpool2d.__doc__ = _DOC.format(dims=2, spatial="H, W")
max_unpool3d.__doc__ = _DOC.format(dims=3, spatial="D, H, W")
