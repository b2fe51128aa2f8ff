"""``MultiheadAttention``, as PyTorch's (parameter layout, masks, returns)."""

from __future__ import annotations

import math

import torch

from .. import init
from ..autograd.tensor import Tensor, is_torch_data
from ..ops import attention as attention_ops
from ..ops.constants import check_number
from ..ops.rnn_cells import unbind
from ..ops.shape import cat
from . import functional as F
from .linear import Linear
from .module import Module
from .parameter import Parameter


def _float_mask(mask: Tensor | torch.Tensor | None, name: str, like: torch.Tensor) -> torch.Tensor | None:
    """A bool mask (True: may not attend) as an additive float mask (-inf); float masks as given."""
    if mask is None:
        return None
    data = mask._data if isinstance(mask, Tensor) else mask
    if not is_torch_data(data):
        raise TypeError(f"{name} must be a Tensor or None, not {type(mask).__name__}")
    if data.dtype == torch.bool:
        return torch.zeros(data.shape, dtype=like.dtype, device=like.device).masked_fill(data, -math.inf)
    if not data.is_floating_point():
        raise AssertionError(f"only bool and floating types of {name} are supported, got {data.dtype}")
    return data.to(like.dtype)


def _pad_key(mask: torch.Tensor | None) -> torch.Tensor | None:
    """The mask with a column of zeros for one more key (``bias_k`` or ``add_zero_attn``)."""
    if mask is None:
        return None
    return torch.cat([mask, mask.new_zeros(*mask.shape[:-1], 1)], -1)


class MultiheadAttention(Module):
    """Attention over ``num_heads`` heads of ``embed_dim // num_heads`` features each.

    Inputs are ``(L, N, E)`` (``(N, L, E)`` with ``batch_first``) or unbatched ``(L, E)``; key and
    value have ``kdim``/``vdim`` features (default ``embed_dim``). Parameters as PyTorch's:
    ``in_proj_weight`` ``(3E, E)`` and ``in_proj_bias`` when the dims agree, else
    ``q_proj_weight``/``k_proj_weight``/``v_proj_weight``; ``out_proj``; ``bias_k``/``bias_v``
    with ``add_bias_kv``. ``key_padding_mask`` is ``(N, S)``, ``attn_mask`` ``(L, S)`` or
    ``(N * num_heads, L, S)``; for both, bool True means "may not attend" and floats are added.
    Returns ``(output, weights)``; ``weights`` (after dropout) are averaged over heads unless
    ``average_attn_weights=False``, and None with ``need_weights=False``. A query whose keys are
    all masked gives zeros.

    >>> import minitorch_rx as mt, minitorch_rx.nn as nn
    >>> mha = nn.MultiheadAttention(8, 2, batch_first=True)
    >>> x = mt.randn(3, 5, 8)
    >>> out, weights = mha(x, x, x)
    >>> out.shape, weights.shape
    (torch.Size([3, 5, 8]), torch.Size([3, 5, 5]))
    """

    def __init__(
        self,
        embed_dim: int,
        num_heads: int,
        dropout: float = 0.0,
        bias: bool = True,
        add_bias_kv: bool = False,
        add_zero_attn: bool = False,
        kdim: int | None = None,
        vdim: int | None = None,
        batch_first: bool = False,
        device: torch.device | str | None = None,
        dtype: torch.dtype | None = None,
    ) -> None:
        super().__init__()
        check_number(embed_dim, "MultiheadAttention", "embed_dim", integer=True)
        check_number(num_heads, "MultiheadAttention", "num_heads", integer=True)
        check_number(dropout, "MultiheadAttention", "dropout")
        if embed_dim <= 0 or num_heads <= 0:
            raise ValueError(
                "embed_dim and num_heads must be greater than 0, "
                f"got embed_dim={embed_dim} and num_heads={num_heads} instead"
            )
        if embed_dim % num_heads:
            raise ValueError(
                f"embed_dim must be divisible by num_heads, got embed_dim={embed_dim} and num_heads={num_heads}"
            )
        if not 0.0 <= dropout <= 1.0:
            raise ValueError(f"dropout probability has to be between 0 and 1, but got {dropout}")
        options = {"device": device, "dtype": dtype}
        self.embed_dim = embed_dim
        self.kdim = kdim if kdim is not None else embed_dim
        self.vdim = vdim if vdim is not None else embed_dim
        self._qkv_same_embed_dim = self.kdim == embed_dim and self.vdim == embed_dim
        self.num_heads = num_heads
        self.dropout = dropout
        self.batch_first = batch_first
        self.head_dim = embed_dim // num_heads
        if self._qkv_same_embed_dim:
            self.in_proj_weight = Parameter(torch.empty((3 * embed_dim, embed_dim), **options))
            self.register_parameter("q_proj_weight", None)
            self.register_parameter("k_proj_weight", None)
            self.register_parameter("v_proj_weight", None)
        else:
            self.q_proj_weight = Parameter(torch.empty((embed_dim, embed_dim), **options))
            self.k_proj_weight = Parameter(torch.empty((embed_dim, self.kdim), **options))
            self.v_proj_weight = Parameter(torch.empty((embed_dim, self.vdim), **options))
            self.register_parameter("in_proj_weight", None)
        if bias:
            self.in_proj_bias = Parameter(torch.empty(3 * embed_dim, **options))
        else:
            self.register_parameter("in_proj_bias", None)
        self.out_proj = Linear(embed_dim, embed_dim, bias=bias, **options)
        if add_bias_kv:
            self.bias_k = Parameter(torch.empty((1, 1, embed_dim), **options))
            self.bias_v = Parameter(torch.empty((1, 1, embed_dim), **options))
        else:
            self.bias_k = self.bias_v = None
        self.add_zero_attn = add_zero_attn
        self._reset_parameters()

    def _reset_parameters(self) -> None:
        """Xavier-uniform projections, zero biases, Xavier-normal ``bias_k``/``bias_v``, as PyTorch."""
        if self._qkv_same_embed_dim:
            init.xavier_uniform_(self.in_proj_weight)
        else:
            init.xavier_uniform_(self.q_proj_weight)
            init.xavier_uniform_(self.k_proj_weight)
            init.xavier_uniform_(self.v_proj_weight)
        if self.in_proj_bias is not None:
            init.constant_(self.in_proj_bias, 0.0)
            init.constant_(self.out_proj.bias, 0.0)
        if self.bias_k is not None:
            init.xavier_normal_(self.bias_k)
        if self.bias_v is not None:
            init.xavier_normal_(self.bias_v)

    def extra_repr(self) -> str:
        return f"embed_dim={self.embed_dim}, num_heads={self.num_heads}, batch_first={self.batch_first}"

    # ------------------------------------------------------------------ forward
    def forward(
        self,
        query: Tensor,
        key: Tensor,
        value: Tensor,
        key_padding_mask: Tensor | None = None,
        need_weights: bool = True,
        attn_mask: Tensor | None = None,
        average_attn_weights: bool = True,
        is_causal: bool = False,
    ) -> tuple[Tensor, Tensor | None]:
        batched = self._check_inputs(query, key, value)
        self_attention = query is key and key is value
        if not batched:
            query, key, value = query.unsqueeze(1), key.unsqueeze(1), value.unsqueeze(1)
            if key_padding_mask is not None:
                key_padding_mask = key_padding_mask.unsqueeze(0)
        if not self.batch_first or not batched:  # work batch-first: (N, L, E)
            query, key, value = (t.transpose(0, 1) if t is not None else t for t in (query, key, value))
        batch, length, source = query.shape[0], query.shape[1], key.shape[1]
        if is_causal and attn_mask is None:
            raise RuntimeError(
                "Need attn_mask if specifying the is_causal hint. You may use the Transformer module method "
                "`generate_square_subsequent_mask` to create this mask."
            )
        causal_only = is_causal and key_padding_mask is None and not need_weights
        mask = None if causal_only else self._merged_mask(attn_mask, key_padding_mask, batch, length, source, query)
        q, k, v = self._project(query, key, value, self_attention)
        if self.bias_k is not None:
            k = cat([k, self.bias_k.expand(batch, 1, self.embed_dim)], 1)
            v = cat([v, self.bias_v.expand(batch, 1, self.embed_dim)], 1)
            mask = _pad_key(mask)
        if self.add_zero_attn:
            zeros = Tensor._make(torch.zeros(batch, 1, self.embed_dim, dtype=k.dtype, device=k.device), None)
            k, v = cat([k, zeros], 1), cat([v, zeros], 1)
            mask = _pad_key(mask)
        q, k, v = (self._heads(t) for t in (q, k, v))
        bias, keep = attention_ops.attention_bias(
            mask._data if isinstance(mask, Tensor) else mask, causal_only, length, k.shape[2], query._data
        )
        dropout_p = self.dropout if self.training else 0.0
        out, weights = attention_ops.attention(q, k, v, bias, keep, dropout_p, None, need_weights=need_weights)
        # (L, N, E) in memory, as PyTorch's: a dropout after this layer then draws its mask alike.
        out = self.out_proj(out.permute(2, 0, 1, 3).reshape(length, batch, self.embed_dim))
        if self.batch_first and batched:
            out = out.transpose(0, 1)
        if not batched:
            out = out.squeeze(1)
        if not need_weights:
            return out, None
        if average_attn_weights:
            weights = weights.mean(1)
        return out, (weights if batched else weights.squeeze(0))

    def _check_inputs(self, query: Tensor, key: Tensor, value: Tensor) -> bool:
        for name, t in (("query", query), ("key", key), ("value", value)):
            if not isinstance(t, Tensor):
                raise TypeError(f"MultiheadAttention: {name} must be an mt.Tensor, got {type(t).__name__}")
        if query.dim() not in (2, 3):
            raise AssertionError(
                f"query should be unbatched 2D or batched 3D tensor but received {query.dim()}-D query tensor"
            )
        batched = query.dim() == 3
        for name, t in (("key", key), ("value", value)):
            if t.dim() != query.dim():
                raise AssertionError(
                    f"For {'batched (3-D)' if batched else 'unbatched (2-D)'} `query`, expected `{name}` to be "
                    f"{query.dim()}-D, but found {t.dim()}-D tensor"
                )
        if query.shape[-1] != self.embed_dim:
            raise AssertionError(f"was expecting embedding dimension of {self.embed_dim}, but got {query.shape[-1]}")
        if key.shape[-1] != self.kdim or value.shape[-1] != self.vdim:
            raise AssertionError(
                f"expected key of {self.kdim} and value of {self.vdim} features, got key {list(key.shape)} and "
                f"value {list(value.shape)}"
            )
        if key.shape[:-1] != value.shape[:-1]:
            raise AssertionError(f"key shape {list(key.shape)} does not match value shape {list(value.shape)}")
        return batched

    def _merged_mask(self, attn_mask, key_padding_mask, batch: int, length: int, source: int, like: Tensor):
        """``attn_mask`` and ``key_padding_mask`` as one additive float mask broadcasting to ``(N, H, L, S)``."""
        data = like._data
        mask = _float_mask(attn_mask, "attn_mask", data)
        if mask is not None:
            if mask.dim() == 2:
                if tuple(mask.shape) != (length, source):
                    raise RuntimeError(
                        f"The shape of the 2D attn_mask is {mask.shape}, but should be {(length, source)}."
                    )
            elif mask.dim() == 3:
                expected = (batch * self.num_heads, length, source)
                if tuple(mask.shape) != expected:
                    raise RuntimeError(f"The shape of the 3D attn_mask is {mask.shape}, but should be {expected}.")
                mask = mask.view(batch, self.num_heads, length, source)
            else:
                raise RuntimeError(f"attn_mask's dimension {mask.dim()} is not supported")
        padding = _float_mask(key_padding_mask, "key_padding_mask", data)
        if padding is not None:
            if tuple(padding.shape) != (batch, source):
                raise AssertionError(
                    f"expected shape of key_padding_mask to be {(batch, source)}, but got {tuple(padding.shape)}"
                )
            padding = padding.view(batch, 1, 1, source)
            mask = padding if mask is None else mask + padding
        return mask

    def _project(
        self, query: Tensor, key: Tensor, value: Tensor, self_attention: bool
    ) -> tuple[Tensor, Tensor, Tensor]:
        """The three input projections, ``(N, L, E)`` and ``(N, S, E)``; self-attention takes one product."""
        E = self.embed_dim
        b = self.in_proj_bias
        if self._qkv_same_embed_dim and self_attention and self.bias_k is None and not self.add_zero_attn:
            batch, length = query.shape[0], query.shape[1]
            packed = F.linear(query, self.in_proj_weight, b).view(batch, length, 3, E)
            return unbind(packed.permute(2, 0, 1, 3))
        b_q, b_k, b_v = (None, None, None) if b is None else (b[:E], b[E : 2 * E], b[2 * E :])
        if self._qkv_same_embed_dim:
            w = self.in_proj_weight
            w_q, w_k, w_v = w[:E], w[E : 2 * E], w[2 * E :]
        else:
            w_q, w_k, w_v = self.q_proj_weight, self.k_proj_weight, self.v_proj_weight
        return F.linear(query, w_q, b_q), F.linear(key, w_k, b_k), F.linear(value, w_v, b_v)

    def _heads(self, x: Tensor) -> Tensor:
        """``(N, S, E)`` as ``(N, H, S, head_dim)``."""
        return x.reshape(x.shape[0], x.shape[1], self.num_heads, self.head_dim).transpose(1, 2)


class _GivenWeights:
    """``MultiheadAttention``'s computation over weights given as arguments: what
    ``multi_head_attention_forward`` (torch's functional form, which ``torch.nn.MultiheadAttention``
    calls) runs."""

    batch_first = False
    forward = MultiheadAttention.forward
    _check_inputs = MultiheadAttention._check_inputs
    _merged_mask = MultiheadAttention._merged_mask
    _project = MultiheadAttention._project
    _heads = MultiheadAttention._heads


def multi_head_attention_forward(
    query: Tensor,
    key: Tensor,
    value: Tensor,
    embed_dim_to_check: int,
    num_heads: int,
    in_proj_weight: Tensor | None,
    in_proj_bias: Tensor | None,
    bias_k: Tensor | None,
    bias_v: Tensor | None,
    add_zero_attn: bool,
    dropout_p: float,
    out_proj_weight: Tensor,
    out_proj_bias: Tensor | None,
    training: bool = True,
    key_padding_mask: Tensor | None = None,
    need_weights: bool = True,
    attn_mask: Tensor | None = None,
    use_separate_proj_weight: bool = False,
    q_proj_weight: Tensor | None = None,
    k_proj_weight: Tensor | None = None,
    v_proj_weight: Tensor | None = None,
    static_k: Tensor | None = None,
    static_v: Tensor | None = None,
    average_attn_weights: bool = True,
    is_causal: bool = False,
) -> tuple[Tensor, Tensor | None]:
    """As ``torch.nn.functional.multi_head_attention_forward``: ``(L, N, E)`` (or unbatched
    ``(L, E)``) inputs, the projections' weights given; ``static_k``/``static_v`` are not supported."""
    if static_k is not None or static_v is not None:
        raise NotImplementedError("multi_head_attention_forward: static_k and static_v are not supported")
    layer = _GivenWeights()
    layer.embed_dim, layer.num_heads = embed_dim_to_check, num_heads
    layer.head_dim = embed_dim_to_check // num_heads
    if layer.head_dim * num_heads != embed_dim_to_check:
        raise AssertionError(f"embed_dim {embed_dim_to_check} not divisible by num_heads {num_heads}")
    layer.kdim, layer.vdim = key.shape[-1], value.shape[-1]
    layer._qkv_same_embed_dim = not use_separate_proj_weight
    layer.in_proj_weight, layer.in_proj_bias = in_proj_weight, in_proj_bias
    layer.q_proj_weight, layer.k_proj_weight, layer.v_proj_weight = q_proj_weight, k_proj_weight, v_proj_weight
    layer.bias_k, layer.bias_v, layer.add_zero_attn = bias_k, bias_v, add_zero_attn
    layer.dropout, layer.training = dropout_p, training

    def out_proj(x: Tensor) -> Tensor:
        return F.linear(x, out_proj_weight, out_proj_bias)

    layer.out_proj = out_proj
    return layer.forward(query, key, value, key_padding_mask, need_weights, attn_mask, average_attn_weights, is_causal)
