"""``pad``: constant, reflect, replicate and circular padding, as ``torch.nn.functional.pad``.

The forward is torch's own (so are its checks and error messages). Backward: constant padding
is undone by padding the gradient with the negated amounts (a crop, or zeros where the forward
cropped); reflect and replicate use torch's backward kernels; circular adds each output
position's gradient back onto the input position it was copied from.
"""

from __future__ import annotations

from collections.abc import Sequence

import torch
import torch.nn.functional as torch_functional

from ..autograd.function import Function
from ..autograd.tensor import Tensor
from .constants import tensor_arg
from .dims import int_tuple

aten = torch.ops.aten
_BACKWARD_KERNELS = {
    "reflect": (
        aten.reflection_pad1d_backward,
        aten.reflection_pad2d_backward,
        aten.reflection_pad3d_backward,
    ),
    "replicate": (
        aten.replication_pad1d_backward,
        aten.replication_pad2d_backward,
        aten.replication_pad3d_backward,
    ),
}


class Pad(Function):
    @staticmethod
    def forward(ctx, x, pad, mode, value):
        ctx.pad = pad
        ctx.mode = mode
        ctx.input_shape = x.shape
        return torch_functional.pad(x, pad, mode, value)

    @staticmethod
    def backward(ctx, grad):
        pad, mode = ctx.pad, ctx.mode
        if mode == "constant":
            grad_input = torch_functional.pad(grad, [-p for p in pad])  # recorded under create_graph too
        elif mode == "circular":
            grad_input = _circular_backward(grad, pad, ctx.input_shape)
        else:
            kernel = _BACKWARD_KERNELS[mode][len(pad) // 2 - 1]
            # The kernel reads only the input's shape: an uninitialized stand-in will do.
            grad_input = kernel(grad, grad.new_empty(ctx.input_shape), pad)
        return grad_input, None, None, None


def _circular_backward(grad: torch.Tensor, pad: list[int], input_shape: torch.Size) -> torch.Tensor:
    """Sum each output position's gradient into the input position it was copied from.

    Circular padding is separable, so this goes one padded dim at a time; the copy's source
    index comes from torch's own padding of ``arange(size)`` (which also fixes what negative
    amounts mean).
    """
    for i in range(len(pad) // 2):
        dim = len(input_shape) - 1 - i
        size = input_shape[dim]
        positions = torch.arange(size, dtype=torch.float64, device=grad.device).view(1, 1, size)
        source = torch_functional.pad(positions, pad[2 * i : 2 * i + 2], "circular").view(-1).long()
        shape = list(grad.shape)
        shape[dim] = size
        grad = grad.new_zeros(shape).index_add_(dim, source, grad)
    return grad


def pad(input: Tensor, pad: Sequence[int], mode: str = "constant", value: float = 0.0) -> Tensor:
    """Pad ``input`` by ``pad = (left_last, right_last, left_second_last, ...)``.

    ``mode='constant'`` pads any number of trailing dims with ``value``, and negative amounts
    crop. ``'reflect'``, ``'replicate'`` and ``'circular'`` pad the last 1, 2 or 3 dims of a
    ``(C, *spatial)`` or ``(N, C, *spatial)`` input; reflect needs each amount below the size
    of its dim, circular at most that size. Errors are torch's (``RuntimeError`` for a
    padding of odd length, ``NotImplementedError`` for an unsupported mode or rank).

    >>> import minitorch_rx as mt
    >>> pad(mt.tensor([[1.0, 2.0, 3.0]]), (2, 1), mode="reflect").tolist()
    [[3.0, 2.0, 1.0, 2.0, 3.0, 2.0]]
    """
    input = tensor_arg(input, "pad")
    return Pad.apply(input, list(int_tuple(pad, "pad", "pad", 2)), mode, value)
