"""The elementwise math of one recurrent step, each cell one Function with its own backward.

A step's gates arrive as two ``(batch, gates * hidden)`` products: ``xg`` from the input (made
for all steps at once) and ``hg`` from the previous hidden state (one matmul per step). Done op
by op, a step's gate math is a dozen tiny kernels whose per-op overhead dominates; here it is one
node. Forward keeps the activated gates for a fast first-order backward; under
``create_graph=True`` (gradients arrive as ``mt.Tensor``s) backward recomputes them from the
saved inputs with tensor methods, so the gradient stays differentiable.

Gate order is PyTorch's: LSTM ``i, f, g, o``; GRU ``r, z, n``.
"""

from __future__ import annotations

import torch

from ..autograd.function import Function
from ..autograd.tensor import Tensor
from .shape import cat as _mt_cat
from .shape import stack as _mt_stack


def _cat(parts: list, dim: int):
    """``torch.cat`` on torch data, the engine's recorded ``cat`` when any part is an ``mt.Tensor``."""
    if any(isinstance(p, Tensor) for p in parts):
        return _mt_cat(parts, dim)
    return torch.cat(parts, dim)


class RNNTanhCell(Function):
    """``h' = tanh(xg + hg)``."""

    @staticmethod
    def forward(ctx, xg, hg):
        h = torch.tanh(xg + hg)
        ctx.save_for_backward(h)
        return h

    @staticmethod
    def backward(ctx, grad):
        (h,) = ctx.saved_tensors
        pre = grad * (1 - h * h)
        return pre, pre


class RNNReLUCell(Function):
    """``h' = relu(xg + hg)``."""

    @staticmethod
    def forward(ctx, xg, hg):
        h = torch.relu(xg + hg)
        ctx.save_for_backward(h)
        return h

    @staticmethod
    def backward(ctx, grad):
        (h,) = ctx.saved_tensors
        pre = grad * (h > 0)
        return pre, pre


class LSTMCell(Function):
    """``i, f, g, o = gates(xg + hg)``; ``c' = f * c + i * g``; ``h' = o * tanh(c')``.
    Returns ``(h', c')``; both gate inputs get the same gradient."""

    @staticmethod
    def forward(ctx, xg, hg, c):
        gates = xg + hg
        hidden = c.shape[-1]
        act = torch.empty_like(gates)
        torch.sigmoid(gates[..., : 2 * hidden], out=act[..., : 2 * hidden])
        torch.tanh(gates[..., 2 * hidden : 3 * hidden], out=act[..., 2 * hidden : 3 * hidden])
        torch.sigmoid(gates[..., 3 * hidden :], out=act[..., 3 * hidden :])
        i, f, g, o = act.chunk(4, -1)
        c_new = torch.addcmul(f * c, i, g)
        h_new = o * torch.tanh(c_new)
        ctx.save_for_backward(xg, hg, c, act, c_new)
        return h_new, c_new

    @staticmethod
    def backward(ctx, grad_h, grad_c):
        xg, hg, c, act, c_new = ctx.saved_tensors
        hidden = c.shape[-1]
        if isinstance(grad_h, Tensor) or isinstance(grad_c, Tensor):
            gates = xg + hg
            i = gates[..., :hidden].sigmoid()
            f = gates[..., hidden : 2 * hidden].sigmoid()
            g = gates[..., 2 * hidden : 3 * hidden].tanh()
            o = gates[..., 3 * hidden :].sigmoid()
            tanh_c = (f * c + i * g).tanh()
        else:
            i, f, g, o = act.chunk(4, -1)
            tanh_c = torch.tanh(c_new)
        grad_c = grad_c + grad_h * o * (1 - tanh_c * tanh_c)
        grad_gates = _cat(
            [
                grad_c * g * i * (1 - i),
                grad_c * c * f * (1 - f),
                grad_c * i * (1 - g * g),
                grad_h * tanh_c * o * (1 - o),
            ],
            -1,
        )
        return grad_gates, grad_gates, grad_c * f


class GRUCell(Function):
    """``r, z = sigmoid(xg_rz + hg_rz)``; ``n = tanh(xg_n + r * hg_n)``; ``h' = (1 - z) * n + z * h``
    (``hg`` includes the hidden bias, which PyTorch puts inside ``r * (...)``)."""

    @staticmethod
    def forward(ctx, xg, hg, h):
        hidden = h.shape[-1]
        rz = torch.sigmoid(xg[..., : 2 * hidden] + hg[..., : 2 * hidden])
        r, z = rz.chunk(2, -1)
        hg_n = hg[..., 2 * hidden :]
        n = torch.tanh(torch.addcmul(xg[..., 2 * hidden :], r, hg_n))
        h_new = torch.addcmul(n, z, h - n)
        ctx.save_for_backward(xg, hg, h, rz, n)
        return h_new

    @staticmethod
    def backward(ctx, grad):
        xg, hg, h, rz, n = ctx.saved_tensors
        hidden = h.shape[-1]
        hg_n = hg[..., 2 * hidden :]
        if isinstance(grad, Tensor):
            r = (xg[..., :hidden] + hg[..., :hidden]).sigmoid()
            z = (xg[..., hidden : 2 * hidden] + hg[..., hidden : 2 * hidden]).sigmoid()
            n = (xg[..., 2 * hidden :] + r * hg_n).tanh()
        else:
            r, z = rz.chunk(2, -1)
        grad_n = grad * (1 - z) * (1 - n * n)
        grad_r = grad_n * hg_n * r * (1 - r)
        grad_z = grad * (h - n) * z * (1 - z)
        grad_xg = _cat([grad_r, grad_z, grad_n], -1)
        grad_hg = _cat([grad_r, grad_z, grad_n * r], -1)
        return grad_xg, grad_hg, grad * z


class Unbind(Function):
    """``x.unbind(0)``: the steps of a sequence as views, with one node for all of them (indexing
    each step would give each its own full-size gradient)."""

    @staticmethod
    def forward(ctx, x):
        return x.unbind(0)

    @staticmethod
    def backward(ctx, *grads):
        if any(isinstance(g, Tensor) for g in grads):
            return _mt_stack(list(grads), 0)
        return torch.stack(grads, 0)


def unbind(x: Tensor) -> tuple[Tensor, ...]:
    """The slices of ``x`` along dim 0, recorded as one op."""
    if x.shape[0] == 1:  # the engine takes a node with one output for a single-output op
        return (x.squeeze(0),)
    return Unbind.apply(x)
