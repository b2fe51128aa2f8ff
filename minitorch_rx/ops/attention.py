"""``scaled_dot_product_attention``: ``softmax(q k^T * scale + mask) v`` as one Function.

Masks become one additive float constant before the op (bool masks: True takes part, False adds
-inf; ``is_causal``: the lower triangle takes part). A query row whose keys are all masked gives
zeros, as PyTorch's, not NaN. Backward needs the probabilities: forward keeps them only where
the weights are an output (``nn.MultiheadAttention(need_weights=True)``); otherwise backward
recomputes them from ``q`` and ``k`` (one batched product and a softmax, as flash attention's
backward does), which keeps ``(..., L, S)`` per layer out of the memory a training step holds.
Under ``create_graph=True`` backward always recomputes them with tensor methods, so the gradient
stays differentiable.
"""

from __future__ import annotations

import math

import torch

from ..autograd.function import Function
from ..autograd.tensor import Tensor, is_torch_data
from .constants import TENSOR_TYPES, not_a_tensor


def _repeat_heads(x, groups: int):
    """Each head of ``x`` (``(..., H, S, E)``) repeated ``groups`` times in place: ``(..., H * groups, S, E)``."""
    if groups == 1:
        return x
    *batch, heads, length, width = x.shape
    return x.unsqueeze(-3).expand(*batch, heads, groups, length, width).reshape(*batch, heads * groups, length, width)


def _sum_groups(grad, groups: int):
    """The gradient of ``_repeat_heads``: the ``groups`` copies of each head summed."""
    if groups == 1:
        return grad
    *batch, heads, length, width = grad.shape
    return grad.reshape(*batch, heads // groups, groups, length, width).sum(-3)


def _reduce_to(grad, shape: torch.Size):
    """``grad`` summed over the batch dims its input was broadcast along, back to ``shape``."""
    if grad.shape == shape:
        return grad
    lead = grad.dim() - len(shape)
    dims = tuple(range(lead)) + tuple(
        lead + i for i, size in enumerate(shape) if size == 1 and grad.shape[lead + i] != 1
    )
    return grad.sum(dims, keepdim=True).reshape(shape)


def _probabilities(q, k, bias, keep, scale: float):
    """``softmax(q k^T * scale + bias)`` with fully masked rows zeroed (``keep``), on torch or mt data."""
    scores = q.matmul(k.transpose(-2, -1)) * scale
    if bias is not None:
        scores = scores + bias
    p = scores.softmax(-1)
    return p if keep is None else p * keep


class ScaledDotProductAttention(Function):
    """Outputs ``(out, weights)``: ``weights`` are the probabilities after dropout (what
    ``nn.MultiheadAttention`` returns); both take gradients. With ``need_weights=False`` the
    output is ``out`` alone (no zero gradient is made for unused weights, and the probabilities
    are not kept: backward recomputes them). Batch dims broadcast; backward sums each gradient
    back to its input's shape."""

    @staticmethod
    def forward(ctx, q, k, v, bias, keep, dropout_p, scale, groups, need_weights):
        k_all, v_all = _repeat_heads(k, groups), _repeat_heads(v, groups)
        p = _probabilities(q, k_all, bias, keep, scale)
        dropped = None
        weights = p
        if dropout_p > 0:
            if dropout_p == 1:
                dropped = torch.zeros_like(p, dtype=torch.bool)
                weights = torch.zeros_like(p)
            else:
                weights, dropped = torch.native_dropout(p, dropout_p, True)
        ctx.save_for_backward(q, k, v, p if need_weights else None, dropped, bias, keep)
        ctx.params = (dropout_p, scale, groups)
        out = weights.matmul(v_all)
        return (out, weights) if need_weights else out

    @staticmethod
    def backward(ctx, grad_out, grad_weights=None):
        q, k, v, p, dropped, bias, keep = ctx.saved_tensors
        dropout_p, scale, groups = ctx.params
        k_all, v_all = _repeat_heads(k, groups), _repeat_heads(v, groups)
        if isinstance(grad_out, Tensor) or isinstance(grad_weights, Tensor):
            keep, dropped = (t._data if isinstance(t, Tensor) else t for t in (keep, dropped))
            if isinstance(bias, Tensor) and not ctx.needs_input_grad[3]:
                bias = bias._data
            p = _probabilities(q, k_all, bias, keep, scale)
        elif p is None:  # not kept by forward (weights not an output): recomputed
            p = _probabilities(q, k_all, bias, keep, scale)
        survive = None
        if dropped is not None:
            survive = dropped * (0.0 if dropout_p == 1 else 1.0 / (1.0 - dropout_p))
            survive = survive.to(p.dtype) if is_torch_data(survive) else survive
        weights = p if survive is None else p * survive
        grad_v = _sum_groups(weights.transpose(-2, -1).matmul(grad_out), groups)
        weights = None
        grad_p = grad_out.matmul(v_all.transpose(-2, -1))
        if grad_weights is not None:
            grad_p = grad_p + grad_weights
        if survive is not None:
            grad_p = grad_p * survive
        grad_bias = None
        if ctx.needs_input_grad[3]:  # a float mask that requires grad: the scores' gradient before scaling
            grad_bias = p * (grad_p - (grad_p * p).sum(-1, keepdim=True))
            grad_scores = grad_bias * scale
            grad_bias = _reduce_to(grad_bias, bias.shape)
        elif is_torch_data(grad_p) and grad_p.shape == p.shape:  # first order: in place, no temporaries
            grad_scores = grad_p.sub_((grad_p * p).sum(-1, keepdim=True)).mul_(p).mul_(scale)
        else:
            grad_scores = p * (grad_p - (grad_p * p).sum(-1, keepdim=True)) * scale
        grad_q = grad_scores.matmul(k_all)
        grad_k = _sum_groups(grad_scores.transpose(-2, -1).matmul(q), groups)
        grad_q, grad_k, grad_v = _reduce_to(grad_q, q.shape), _reduce_to(grad_k, k.shape), _reduce_to(grad_v, v.shape)
        return grad_q, grad_k, grad_v, grad_bias, None, None, None, None, None


def _dtype_word(dtype: torch.dtype) -> str:
    """PyTorch's C++ name of a dtype in SDPA's messages: float, double, long int, bool..."""
    return {torch.float32: "float", torch.float64: "double", torch.int64: "long int", torch.int32: "int"}.get(
        dtype, str(dtype).replace("torch.", "")
    )


def attention_bias(
    attn_mask: torch.Tensor | None, is_causal: bool, length: int, source: int, like: torch.Tensor
) -> tuple[torch.Tensor | None, torch.Tensor | None]:
    """The additive float mask and the keep-row multiplier (None when no row is fully masked)
    for a bool/float ``attn_mask`` and/or ``is_causal``."""
    if is_causal:  # every query keeps key 0: no row is fully masked
        hidden = torch.ones(length, source, dtype=torch.bool, device=like.device).triu(1)
        return torch.zeros(length, source, dtype=like.dtype, device=like.device).masked_fill(hidden, -math.inf), None
    if attn_mask is None:
        return None, None
    if attn_mask.dtype == torch.bool:
        bias = torch.zeros(attn_mask.shape, dtype=like.dtype, device=like.device).masked_fill(~attn_mask, -math.inf)
    else:
        bias = attn_mask.to(like.dtype)
    dead = (bias == -math.inf).all(-1, keepdim=True)
    if not bool(dead.any()):
        return bias, None
    return bias.masked_fill(dead, 0.0), (~dead).to(like.dtype)


def attention(
    query: Tensor,
    key: Tensor,
    value: Tensor,
    bias: torch.Tensor | None,
    keep: torch.Tensor | None,
    dropout_p: float,
    scale: float | None,
    groups: int = 1,
    need_weights: bool = True,
) -> tuple[Tensor, Tensor | None]:
    """The op itself on checked inputs and a prepared mask: ``(output, weights)``; ``weights`` is
    None without ``need_weights`` (then backward recomputes the probabilities, see the module)."""
    scale = 1.0 / math.sqrt(query.shape[-1]) if scale is None else scale
    out = ScaledDotProductAttention.apply(query, key, value, bias, keep, dropout_p, scale, groups, need_weights)
    return out if need_weights else (out, None)


def scaled_dot_product_attention(
    query: Tensor,
    key: Tensor,
    value: Tensor,
    attn_mask: Tensor | None = None,
    dropout_p: float = 0.0,
    is_causal: bool = False,
    scale: float | None = None,
    enable_gqa: bool = False,
) -> Tensor:
    """``softmax(query @ key^T * scale + mask) @ value`` with dropout on the probabilities.

    ``query`` is ``(..., L, E)``, ``key`` ``(..., S, E)``, ``value`` ``(..., S, Ev)``; the output is
    ``(..., L, Ev)``. ``scale`` defaults to ``1 / sqrt(E)``. ``attn_mask`` broadcasts to
    ``(..., L, S)``: bool (True takes part) or float (added to the scores); ``is_causal`` masks
    the upper triangle instead (not both). A query with every key masked gives zeros. With
    ``enable_gqa`` key/value may have fewer heads (dim -3) than the query, a divisor of them.
    A float mask that requires grad gets its gradient (that of the scores).

    >>> import minitorch_rx as mt
    >>> q = k = v = mt.randn(2, 4, 3, 8)
    >>> scaled_dot_product_attention(q, k, v, is_causal=True).shape
    torch.Size([2, 4, 3, 8])
    """
    for position, (name, t) in enumerate((("query", query), ("key", key), ("value", value)), 1):
        if not isinstance(t, TENSOR_TYPES):
            raise not_a_tensor("scaled_dot_product_attention", t, name, position)
    q, k, v = (t._data if isinstance(t, Tensor) else t for t in (query, key, value))
    if not q.dtype == k.dtype == v.dtype:
        raise RuntimeError(
            "Expected query, key, and value to have the same dtype, but got query.dtype: "
            f"{_dtype_word(q.dtype)} key.dtype: {_dtype_word(k.dtype)} and value.dtype: {_dtype_word(v.dtype)} instead."
        )
    if q.dim() < 2 or k.dim() < 2 or v.dim() < 2:
        raise RuntimeError(
            f"scaled_dot_product_attention: query, key and value must be at least 2-D, got shapes "
            f"{list(q.shape)}, {list(k.shape)} and {list(v.shape)}"
        )
    if q.shape[-1] != k.shape[-1] or k.shape[-2] != v.shape[-2]:
        raise RuntimeError(
            "scaled_dot_product_attention: expected query (..., L, E), key (..., S, E) and value (..., S, Ev), "
            f"got shapes {list(q.shape)}, {list(k.shape)} and {list(v.shape)}"
        )
    groups = 1
    if enable_gqa and q.dim() >= 3 and q.shape[-3] != k.shape[-3]:
        if k.shape[-3] != v.shape[-3] or q.shape[-3] % k.shape[-3]:
            raise RuntimeError(
                "Number of heads in key and value must divide the number of heads in query, got query heads "
                f"{q.shape[-3]}, key heads {k.shape[-3]} and value heads {v.shape[-3]}"
            )
        groups = q.shape[-3] // k.shape[-3]
    if not 0.0 <= dropout_p <= 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {dropout_p}")
    mask = attn_mask._data if isinstance(attn_mask, Tensor) else attn_mask
    length, source = q.shape[-2], k.shape[-2]
    if mask is not None:
        if is_causal:
            raise RuntimeError(
                "_scaled_dot_product_attention: Explicit attn_mask should not be set when is_causal=True"
            )
        if not is_torch_data(mask):
            raise TypeError(f"scaled_dot_product_attention: attn_mask must be a Tensor, not {type(mask).__name__}")
        if mask.dtype != torch.bool and mask.dtype != q.dtype:
            raise RuntimeError(
                "Expected attn_mask dtype to be bool or float or to match query dtype, but got attn_mask.dtype: "
                f"{_dtype_word(mask.dtype)} and  query.dtype: {_dtype_word(q.dtype)} instead."
            )
        scores = (*torch.broadcast_shapes(q.shape[:-2], k.shape[:-2]), length, source)
        try:
            if torch.broadcast_shapes(mask.shape, scores) != scores:
                raise RuntimeError
        except RuntimeError:
            raise RuntimeError(
                f"scaled_dot_product_attention: attn_mask of shape {list(mask.shape)} does not broadcast to the "
                f"attention scores' shape {list(scores)} (batch..., L={length}, S={source})"
            ) from None
    bias, keep = attention_bias(mask, is_causal, length, source, q)
    if isinstance(attn_mask, Tensor) and attn_mask.requires_grad and keep is None and mask.dtype == q.dtype:
        bias = attn_mask  # a float mask that requires grad: an input of the op, so it gets its gradient
    out, _ = attention(query, key, value, bias, keep, dropout_p, scale, groups, need_weights=False)
    return out
