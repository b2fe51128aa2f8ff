"""``dropout``: inverted dropout, its mask drawn from torch's global generator.

``torch.native_dropout`` draws the same Bernoulli numbers as ``torch.nn.functional.dropout``,
so after ``mt.manual_seed(s)`` the mask equals PyTorch's after ``torch.manual_seed(s)``.
"""

from __future__ import annotations

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
