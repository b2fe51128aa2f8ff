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
from .linear import product as _product
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


class LSTMLayer(Function):
    """A whole LSTM layer (one direction) over time as one node, as torch's fused kernels do:
    forward makes the input's gate products for every step as one product, ``x (T, B, I)`` by
    ``w_ih`` with both biases, straight into the gate buffer (no separate ``(T, B, 4H)`` input
    product is made or kept), then runs the recurrence (one product per step added into the gate
    buffer, the gate math in place); backward runs its own loop over time from the activated gates
    and cell states saved (their tanh is recomputed, one ``tanh`` over ``(T, B, H)``, not kept).
    The weights' gradients are then one product over all steps each instead of one per step, and
    no step pays the engine's per-node cost. Returns ``(out (T, B, H), h_T, c_T)``; ``reverse``
    runs time backwards.

    Under ``create_graph`` backward re-runs the layer step by step with recorded ops
    (``linear`` and ``LSTMCell``s) and differentiates that, so the gradient is itself
    differentiable."""

    @staticmethod
    def forward(ctx, x, w_ih, b_ih, h0, c0, w_hh, b_hh, reverse):
        steps, batch = x.shape[0], x.shape[1]
        gates = w_ih.shape[0]
        hidden = gates // 4
        bias = b_ih if b_hh is None else b_hh if b_ih is None else b_ih + b_hh
        seq = x.flip(0) if reverse else x  # in the order processed
        act = _product(seq.reshape(steps * batch, x.shape[2]), w_ih.t(), bias)  # pre-activations, then gates
        act = act.view(steps, batch, gates)
        out = act.new_empty(steps, batch, hidden)  # h of each step, in the order processed
        cs = act.new_empty(steps + 1, batch, hidden)
        cs[0] = c0
        tanh_c = act.new_empty(batch, hidden)  # each step's, in one buffer
        w_hh_t = w_hh.contiguous().t()
        i_all, f_all = act[..., :hidden], act[..., hidden : 2 * hidden]
        g_all, o_all = act[..., 2 * hidden : 3 * hidden], act[..., 3 * hidden :]
        h = h0.contiguous()
        for k in range(steps):
            a = act[k]
            a.add_(_product(h, w_hh_t))
            torch.sigmoid_(a[:, : 2 * hidden])
            torch.tanh_(g_all[k])
            torch.sigmoid_(o_all[k])
            c = cs[k + 1]
            torch.mul(f_all[k], cs[k], out=c)
            c.addcmul_(i_all[k], g_all[k])
            torch.tanh(c, out=tanh_c)
            h = torch.mul(o_all[k], tanh_c, out=out[k])
        ctx.save_for_backward(x, w_ih, b_ih, h0, c0, w_hh, b_hh, act, cs, out)
        ctx.reverse = reverse
        h_n, c_n = h.clone(), cs[steps].clone()
        return (out.flip(0) if reverse else out), h_n, c_n

    @staticmethod
    def backward(ctx, grad_out, grad_h, grad_c):
        x, w_ih, b_ih, h0, c0, w_hh, b_hh, act, cs, out = ctx.saved_tensors
        reverse = ctx.reverse
        if isinstance(grad_out, Tensor) or isinstance(grad_h, Tensor) or isinstance(grad_c, Tensor):
            inputs = (x, w_ih, b_ih, h0, c0, w_hh, b_hh)
            return _lstm_layer_recorded_vjp(ctx, inputs, (grad_out, grad_h, grad_c))
        steps, batch, hidden = out.shape
        if reverse:
            grad_out = grad_out.flip(0)
        i, f = act[..., :hidden], act[..., hidden : 2 * hidden]
        g, o = act[..., 2 * hidden : 3 * hidden], act[..., 3 * hidden :]
        # Per-step coefficients for all steps at once, each gate's written into its part of the
        # buffer that the loop then turns into the gate gradients in place (no second (T, B, 4H)
        # buffer, no (T, B, 4H) temporaries: this is where a step's memory peaks): d gates / d
        # (c or h), the i, f, g parts multiplying grad_c, o's grad_h; and d c / d h.
        grad_gates = torch.empty_like(act)
        tanh_cs = torch.tanh(cs[1:])
        for gate, part, factor in ((i, 0, g), (f, 1, cs[:-1]), (o, 3, tanh_cs)):  # sigmoid' = s - s * s
            coeff = grad_gates[..., part * hidden : (part + 1) * hidden]
            torch.mul(gate, gate, out=coeff)
            torch.sub(gate, coeff, out=coeff)
            coeff.mul_(factor)
        coeff = grad_gates[..., 2 * hidden : 3 * hidden]  # tanh' = 1 - g * g
        torch.mul(g, g, out=coeff)
        coeff.neg_().add_(1).mul_(i)
        dc_dh = tanh_cs.mul_(tanh_cs).neg_().add_(1).mul_(o)  # in tanh_cs's buffer
        tanh_cs = None
        gg3 = grad_gates.view(steps, batch, 4, hidden)[:, :, :3]
        gg_o = grad_gates[..., 3 * hidden :]
        w_by_columns = w_hh.t().contiguous().t()  # grad_gates @ w_hh, w_hh transposed in memory
        gh = grad_out[steps - 1] + grad_h
        gc = grad_c
        for k in range(steps - 1, -1, -1):
            gc = torch.addcmul(gc, gh, dc_dh[k])
            gg3[k].mul_(gc.unsqueeze(1))
            gg_o[k].mul_(gh)
            gc = gc * f[k]
            gh = _product(grad_gates[k], w_by_columns)
            if k:
                gh.add_(grad_out[k - 1])
        dc_dh = None  # before the products below: the step's memory peaks there
        need_x, need_w_ih, need_b_ih, need_h0, need_c0, need_w_hh, need_b_hh = ctx.needs_input_grad[:7]
        rows = grad_gates.view(steps * batch, 4 * hidden)
        grad_x = grad_w_ih = grad_b_ih = grad_w_hh = grad_b_hh = None
        if need_x:  # grad_gates @ w_ih, back in time order
            grad_x = _product(rows, w_ih).view(x.shape)
            if reverse:
                grad_x = grad_x.flip(0)
        if need_w_ih:  # grad_gates^T x over all steps: one product
            seq = x.flip(0) if reverse else x
            grad_w_ih = _product(rows.t(), seq.reshape(steps * batch, x.shape[2]))
        if need_w_hh:  # sum over steps of grad_gates[k]^T h_{k-1}: one product for steps 1.., one for h0
            grad_w_hh = _product(grad_gates[0].t(), h0)
            if steps > 1:
                grad_w_hh.add_(_product(rows[batch:].t(), out[:-1].reshape(-1, hidden)))
        if need_b_ih and b_ih is not None:
            grad_b_ih = grad_gates.sum((0, 1))
        if need_b_hh and b_hh is not None:  # the same gradient, in its own tensor
            grad_b_hh = grad_gates.sum((0, 1)) if grad_b_ih is None else grad_b_ih.clone()
        return (
            grad_x,
            grad_w_ih,
            grad_b_ih,
            (gh if need_h0 else None),
            (gc if need_c0 else None),
            grad_w_hh,
            grad_b_hh,
            None,
        )


def _lstm_layer_steps(x, w_ih, b_ih, h0, c0, w_hh, b_hh, reverse):
    """``LSTMLayer``'s forward as recorded ops (its create_graph path)."""
    from .linear import linear

    steps = unbind(linear(x, w_ih, b_ih))
    outputs: list = [None] * len(steps)
    h, c = h0, c0
    for t in range(len(steps) - 1, -1, -1) if reverse else range(len(steps)):
        h, c = LSTMCell.apply(steps[t], linear(h, w_hh, b_hh), c)
        outputs[t] = h
    return _mt_stack(outputs, 0), h, c


def _lstm_layer_recorded_vjp(ctx, inputs: tuple, grads: tuple) -> tuple:
    """The gradients of ``LSTMLayer`` under ``create_graph``, recorded: the layer is re-run step by
    step from its inputs (entered through identity ops, so each gradient is the partial one) and
    differentiated with ``create_graph=True``."""
    from ..autograd import engine

    proxies = []
    for x, need in zip(inputs, ctx.needs_input_grad[: len(inputs)]):
        if not need or x is None:
            proxies.append(None)
        elif x._requires_grad:
            proxies.append(engine._Identity.apply(x))
        else:
            proxies.append(Tensor(x._data, requires_grad=True))
    args = [x if p is None else p for p, x in zip(proxies, inputs)]
    outs = _lstm_layer_steps(*args, ctx.reverse)
    wanted = [p for p in proxies if p is not None]
    grads = [g if isinstance(g, Tensor) else Tensor._make(g, None) for g in grads]
    found = iter(engine.grad(list(outs), wanted, grads, create_graph=True, allow_unused=True) if wanted else ())
    return (*(None if p is None else next(found) for p in proxies), None)


def lstm_layer(
    x: Tensor,
    w_ih: Tensor,
    b_ih: Tensor | None,
    h0: Tensor,
    c0: Tensor,
    w_hh: Tensor,
    b_hh: Tensor | None,
    reverse: bool,
) -> tuple:
    """``(out, h_n, c_n)`` of one LSTM layer and direction over time-major ``x`` ``(T, B, I)``
    (``LSTMLayer``)."""
    return LSTMLayer.apply(x, w_ih, b_ih, h0, c0, w_hh, b_hh, reverse)


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
