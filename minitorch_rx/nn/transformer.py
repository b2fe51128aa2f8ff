"""``Transformer`` and its encoder/decoder stacks and layers, as PyTorch's (names, defaults,
parameter layout and the post-norm or ``norm_first`` block order)."""

from __future__ import annotations

import copy
from collections.abc import Callable

import torch

from .. import init
from ..autograd.tensor import Tensor
from ..ops.autocast import state as autocast_state
from ..ops.linear import gelu_linear
from . import functional as F
from . import module_hooks
from .attention import MultiheadAttention
from .containers import ModuleList
from .dropout import Dropout
from .linear import Linear
from .module import Module
from .normalization import LayerNorm


def _feed_forward(layer: Module, x: Tensor) -> Tensor:
    """``linear2(dropout(activation(linear1(x))))``. With GELU, no dropout in effect and nothing
    observing ``dropout``/``linear2`` (hooks, another class, autocast), GELU and ``linear2`` run as
    one node keeping ``linear1``'s output alone (``ops.linear.GELULinear``: 1.5 MiB a layer less in
    the baby GPT's training step, whose peak RSS is issue 19's bar); the values are the same."""
    hidden = layer.linear1(x)
    linear2, dropout = layer.linear2, layer.dropout
    if (
        layer.activation is F.gelu
        and type(linear2) is Linear
        and type(dropout) is Dropout
        and (dropout.p == 0 or not dropout.training)
        and not module_hooks.observed(linear2)
        and not module_hooks.observed(dropout)
        and not autocast_state.active
    ):
        return gelu_linear(hidden, linear2.weight, linear2.bias)
    return linear2(dropout(layer.activation(hidden)))


def _activation(activation: str | Callable) -> Callable:
    if activation == "relu":
        return F.relu
    if activation == "gelu":
        return F.gelu
    if isinstance(activation, str) or not callable(activation):
        raise RuntimeError(f"activation should be relu/gelu, not {activation}")
    return activation


def _seq_len(x: Tensor, batch_first: bool) -> int:
    if x.dim() == 2:  # unbatched
        return x.shape[0]
    return x.shape[1 if batch_first else 0]


def _detect_is_causal_mask(mask: Tensor | None, is_causal: bool | None, size: int) -> bool:
    """PyTorch's rule: ``is_causal`` when given, else whether ``mask`` is the square causal mask."""
    if is_causal is not None or mask is None:
        return bool(is_causal)
    data = mask._data if isinstance(mask, Tensor) else mask
    if tuple(data.shape) != (size, size):
        return False
    causal = Transformer.generate_square_subsequent_mask(size, device=data.device, dtype=data.dtype)._data
    return bool((data == causal).all())


class TransformerEncoderLayer(Module):
    """Self-attention then a feed-forward block, each with dropout, a residual and LayerNorm
    (after the residual, or before each block with ``norm_first``).

    >>> import minitorch_rx as mt, minitorch_rx.nn as nn
    >>> layer = nn.TransformerEncoderLayer(d_model=16, nhead=4, dim_feedforward=32, batch_first=True)
    >>> layer(mt.randn(2, 5, 16)).shape
    torch.Size([2, 5, 16])
    """

    def __init__(
        self,
        d_model: int,
        nhead: int,
        dim_feedforward: int = 2048,
        dropout: float = 0.1,
        activation: str | Callable = F.relu,
        layer_norm_eps: float = 1e-5,
        batch_first: bool = False,
        norm_first: bool = False,
        bias: bool = True,
        device: torch.device | str | None = None,
        dtype: torch.dtype | None = None,
    ) -> None:
        super().__init__()
        options = {"device": device, "dtype": dtype}
        self.self_attn = MultiheadAttention(
            d_model, nhead, dropout=dropout, bias=bias, batch_first=batch_first, **options
        )
        self.linear1 = Linear(d_model, dim_feedforward, bias=bias, **options)
        self.dropout = Dropout(dropout)
        self.linear2 = Linear(dim_feedforward, d_model, bias=bias, **options)
        self.norm_first = norm_first
        self.norm1 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **options)
        self.norm2 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **options)
        self.dropout1 = Dropout(dropout)
        self.dropout2 = Dropout(dropout)
        self.activation = _activation(activation)

    def forward(
        self,
        src: Tensor,
        src_mask: Tensor | None = None,
        src_key_padding_mask: Tensor | None = None,
        is_causal: bool = False,
    ) -> Tensor:
        x = src
        if self.norm_first:
            x = x + self._sa_block(self.norm1(x), src_mask, src_key_padding_mask, is_causal)
            return x + self._ff_block(self.norm2(x))
        x = self.norm1(x + self._sa_block(x, src_mask, src_key_padding_mask, is_causal))
        return self.norm2(x + self._ff_block(x))

    def _sa_block(self, x: Tensor, attn_mask, key_padding_mask, is_causal: bool) -> Tensor:
        out = self.self_attn(
            x, x, x, attn_mask=attn_mask, key_padding_mask=key_padding_mask, need_weights=False, is_causal=is_causal
        )[0]
        return self.dropout1(out)

    def _ff_block(self, x: Tensor) -> Tensor:
        return self.dropout2(_feed_forward(self, x))


class TransformerDecoderLayer(Module):
    """Self-attention over the target, attention to the encoder's ``memory``, then a feed-forward
    block; each with dropout, a residual and LayerNorm (before each block with ``norm_first``).

    >>> import minitorch_rx as mt, minitorch_rx.nn as nn
    >>> layer = nn.TransformerDecoderLayer(d_model=16, nhead=4, dim_feedforward=32)
    >>> layer(mt.randn(5, 2, 16), mt.randn(7, 2, 16)).shape
    torch.Size([5, 2, 16])
    """

    def __init__(
        self,
        d_model: int,
        nhead: int,
        dim_feedforward: int = 2048,
        dropout: float = 0.1,
        activation: str | Callable = F.relu,
        layer_norm_eps: float = 1e-5,
        batch_first: bool = False,
        norm_first: bool = False,
        bias: bool = True,
        device: torch.device | str | None = None,
        dtype: torch.dtype | None = None,
    ) -> None:
        super().__init__()
        options = {"device": device, "dtype": dtype}
        self.self_attn = MultiheadAttention(
            d_model, nhead, dropout=dropout, bias=bias, batch_first=batch_first, **options
        )
        self.multihead_attn = MultiheadAttention(
            d_model, nhead, dropout=dropout, bias=bias, batch_first=batch_first, **options
        )
        self.linear1 = Linear(d_model, dim_feedforward, bias=bias, **options)
        self.dropout = Dropout(dropout)
        self.linear2 = Linear(dim_feedforward, d_model, bias=bias, **options)
        self.norm_first = norm_first
        self.norm1 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **options)
        self.norm2 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **options)
        self.norm3 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **options)
        self.dropout1 = Dropout(dropout)
        self.dropout2 = Dropout(dropout)
        self.dropout3 = Dropout(dropout)
        self.activation = _activation(activation)

    def forward(
        self,
        tgt: Tensor,
        memory: Tensor,
        tgt_mask: Tensor | None = None,
        memory_mask: Tensor | None = None,
        tgt_key_padding_mask: Tensor | None = None,
        memory_key_padding_mask: Tensor | None = None,
        tgt_is_causal: bool = False,
        memory_is_causal: bool = False,
    ) -> Tensor:
        x = tgt
        if self.norm_first:
            x = x + self._sa_block(self.norm1(x), tgt_mask, tgt_key_padding_mask, tgt_is_causal)
            x = x + self._mha_block(self.norm2(x), memory, memory_mask, memory_key_padding_mask, memory_is_causal)
            return x + self._ff_block(self.norm3(x))
        x = self.norm1(x + self._sa_block(x, tgt_mask, tgt_key_padding_mask, tgt_is_causal))
        x = self.norm2(x + self._mha_block(x, memory, memory_mask, memory_key_padding_mask, memory_is_causal))
        return self.norm3(x + self._ff_block(x))

    def _sa_block(self, x: Tensor, attn_mask, key_padding_mask, is_causal: bool) -> Tensor:
        out = self.self_attn(
            x, x, x, attn_mask=attn_mask, key_padding_mask=key_padding_mask, is_causal=is_causal, need_weights=False
        )[0]
        return self.dropout1(out)

    def _mha_block(self, x: Tensor, memory: Tensor, attn_mask, key_padding_mask, is_causal: bool) -> Tensor:
        out = self.multihead_attn(
            x,
            memory,
            memory,
            attn_mask=attn_mask,
            key_padding_mask=key_padding_mask,
            is_causal=is_causal,
            need_weights=False,
        )[0]
        return self.dropout2(out)

    def _ff_block(self, x: Tensor) -> Tensor:
        return self.dropout3(_feed_forward(self, x))


def _clones(module: Module, n: int, owner: str) -> ModuleList:
    if not isinstance(n, int):
        raise TypeError(f"{owner}(): argument 'num_layers' must be int, not {type(n).__name__}")
    if not 0 <= n <= 2**63 - 1:
        # copying a layer 10**20 times would run until memory is gone: refused up front
        raise ValueError(f"{owner}(): num_layers must be a non-negative int64, got {n}")
    return ModuleList([copy.deepcopy(module) for _ in range(n)])


class TransformerEncoder(Module):
    """``num_layers`` copies of ``encoder_layer`` (each its own parameters), then ``norm`` if given.
    ``enable_nested_tensor`` and ``mask_check`` are accepted and ignored (there is no nested-tensor
    fast path). ``is_causal=None`` detects a square causal ``mask``, as PyTorch's.

    >>> import minitorch_rx as mt, minitorch_rx.nn as nn
    >>> layer = nn.TransformerEncoderLayer(16, 4, dim_feedforward=32, batch_first=True)
    >>> encoder = nn.TransformerEncoder(layer, num_layers=2)
    >>> mask = nn.Transformer.generate_square_subsequent_mask(5)
    >>> encoder(mt.randn(2, 5, 16), mask=mask, is_causal=True).shape
    torch.Size([2, 5, 16])
    """

    def __init__(
        self,
        encoder_layer: TransformerEncoderLayer,
        num_layers: int,
        norm: Module | None = None,
        enable_nested_tensor: bool = True,
        mask_check: bool = True,
    ) -> None:
        super().__init__()
        if not isinstance(encoder_layer, Module):
            raise TypeError(f"encoder_layer must be a Module, got {type(encoder_layer).__name__}")
        self.layers = _clones(encoder_layer, num_layers, "TransformerEncoder")
        self.num_layers = num_layers
        self.norm = norm
        self.enable_nested_tensor = enable_nested_tensor
        self.mask_check = mask_check

    def forward(
        self,
        src: Tensor,
        mask: Tensor | None = None,
        src_key_padding_mask: Tensor | None = None,
        is_causal: bool | None = None,
    ) -> Tensor:
        batch_first = self.layers[0].self_attn.batch_first if self.num_layers else False
        is_causal = _detect_is_causal_mask(mask, is_causal, _seq_len(src, batch_first))
        output = src
        for layer in self.layers:
            output = layer(output, src_mask=mask, is_causal=is_causal, src_key_padding_mask=src_key_padding_mask)
        return output if self.norm is None else self.norm(output)


class TransformerDecoder(Module):
    """``num_layers`` copies of ``decoder_layer`` (each its own parameters), then ``norm`` if given.

    >>> import minitorch_rx as mt, minitorch_rx.nn as nn
    >>> decoder = nn.TransformerDecoder(nn.TransformerDecoderLayer(16, 4, dim_feedforward=32), num_layers=2)
    >>> decoder(mt.randn(5, 2, 16), mt.randn(7, 2, 16)).shape
    torch.Size([5, 2, 16])
    """

    def __init__(self, decoder_layer: TransformerDecoderLayer, num_layers: int, norm: Module | None = None) -> None:
        super().__init__()
        if not isinstance(decoder_layer, Module):
            raise TypeError(f"decoder_layer must be a Module, got {type(decoder_layer).__name__}")
        self.layers = _clones(decoder_layer, num_layers, "TransformerDecoder")
        self.num_layers = num_layers
        self.norm = norm

    def forward(
        self,
        tgt: Tensor,
        memory: Tensor,
        tgt_mask: Tensor | None = None,
        memory_mask: Tensor | None = None,
        tgt_key_padding_mask: Tensor | None = None,
        memory_key_padding_mask: Tensor | None = None,
        tgt_is_causal: bool | None = None,
        memory_is_causal: bool = False,
    ) -> Tensor:
        batch_first = self.layers[0].self_attn.batch_first if self.num_layers else False
        tgt_is_causal = _detect_is_causal_mask(tgt_mask, tgt_is_causal, _seq_len(tgt, batch_first))
        output = tgt
        for layer in self.layers:
            output = layer(
                output,
                memory,
                tgt_mask=tgt_mask,
                memory_mask=memory_mask,
                tgt_key_padding_mask=tgt_key_padding_mask,
                memory_key_padding_mask=memory_key_padding_mask,
                tgt_is_causal=tgt_is_causal,
                memory_is_causal=memory_is_causal,
            )
        return output if self.norm is None else self.norm(output)


class Transformer(Module):
    """The encoder-decoder Transformer of "Attention Is All You Need", as PyTorch's: an encoder
    and a decoder stack, each ending in LayerNorm, every weight matrix Xavier-uniform.

    ``src`` is ``(S, N, d_model)`` and ``tgt`` ``(T, N, d_model)`` (batch first with
    ``batch_first``; unbatched without ``N``); the output has ``tgt``'s shape.

    >>> import minitorch_rx as mt, minitorch_rx.nn as nn
    >>> model = nn.Transformer(d_model=16, nhead=4, num_encoder_layers=1, num_decoder_layers=1, dim_feedforward=32)
    >>> tgt_mask = nn.Transformer.generate_square_subsequent_mask(5)
    >>> model(mt.randn(7, 2, 16), mt.randn(5, 2, 16), tgt_mask=tgt_mask).shape
    torch.Size([5, 2, 16])
    """

    def __init__(
        self,
        d_model: int = 512,
        nhead: int = 8,
        num_encoder_layers: int = 6,
        num_decoder_layers: int = 6,
        dim_feedforward: int = 2048,
        dropout: float = 0.1,
        activation: str | Callable = F.relu,
        custom_encoder: Module | None = None,
        custom_decoder: Module | None = None,
        layer_norm_eps: float = 1e-5,
        batch_first: bool = False,
        norm_first: bool = False,
        bias: bool = True,
        device: torch.device | str | None = None,
        dtype: torch.dtype | None = None,
    ) -> None:
        super().__init__()
        options = {"device": device, "dtype": dtype}
        layer_args = (
            d_model,
            nhead,
            dim_feedforward,
            dropout,
            activation,
            layer_norm_eps,
            batch_first,
            norm_first,
            bias,
        )
        if custom_encoder is not None:
            self.encoder = custom_encoder
        else:
            layer = TransformerEncoderLayer(*layer_args, **options)
            norm = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **options)
            self.encoder = TransformerEncoder(layer, num_encoder_layers, norm)
        if custom_decoder is not None:
            self.decoder = custom_decoder
        else:
            layer = TransformerDecoderLayer(*layer_args, **options)
            norm = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **options)
            self.decoder = TransformerDecoder(layer, num_decoder_layers, norm)
        self._reset_parameters()
        self.d_model = d_model
        self.nhead = nhead
        self.batch_first = batch_first

    def _reset_parameters(self) -> None:
        for p in self.parameters():
            if p.dim() > 1:
                init.xavier_uniform_(p)

    def forward(
        self,
        src: Tensor,
        tgt: Tensor,
        src_mask: Tensor | None = None,
        tgt_mask: Tensor | None = None,
        memory_mask: Tensor | None = None,
        src_key_padding_mask: Tensor | None = None,
        tgt_key_padding_mask: Tensor | None = None,
        memory_key_padding_mask: Tensor | None = None,
        src_is_causal: bool | None = None,
        tgt_is_causal: bool | None = None,
        memory_is_causal: bool = False,
    ) -> Tensor:
        batched = src.dim() == 3
        batch_dim = 0 if self.batch_first else 1
        if batched and src.shape[batch_dim] != tgt.shape[batch_dim]:
            raise RuntimeError(
                f"the batch number of src and tgt must be equal, got {src.shape[batch_dim]} and {tgt.shape[batch_dim]}"
            )
        if src.shape[-1] != self.d_model or tgt.shape[-1] != self.d_model:
            raise RuntimeError(
                f"the feature number of src and tgt must be equal to d_model ({self.d_model}), "
                f"got {src.shape[-1]} and {tgt.shape[-1]}"
            )
        memory = self.encoder(src, mask=src_mask, src_key_padding_mask=src_key_padding_mask, is_causal=src_is_causal)
        return self.decoder(
            tgt,
            memory,
            tgt_mask=tgt_mask,
            memory_mask=memory_mask,
            tgt_key_padding_mask=tgt_key_padding_mask,
            memory_key_padding_mask=memory_key_padding_mask,
            tgt_is_causal=tgt_is_causal,
            memory_is_causal=memory_is_causal,
        )

    @staticmethod
    def generate_square_subsequent_mask(
        sz: int, device: torch.device | str | None = None, dtype: torch.dtype | None = None
    ) -> Tensor:
        """A ``(sz, sz)`` float mask: 0 on and below the diagonal, -inf above (later positions hidden)."""
        dtype = torch.get_default_dtype() if dtype is None else dtype
        mask = torch.triu(torch.full((sz, sz), float("-inf"), dtype=dtype, device=device), diagonal=1)
        return Tensor._make(mask, None)
