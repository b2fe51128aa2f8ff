"""``gpt_char``: a small decoder-only GPT for character-level language modelling (nanoGPT's layout).

Token + learned position embeddings, ``n_layer`` pre-norm blocks (LayerNorm -> causal self-attention
through ``F.scaled_dot_product_attention(is_causal=True)`` -> residual, LayerNorm -> GELU MLP of
width ``4 * n_embd`` -> residual), a final LayerNorm and a language-model head tied to the token
embedding (as GPT-2 and nanoGPT do: fewer parameters, and a slightly better validation loss at this
size). Linear layers and LayerNorms carry no bias (nanoGPT's ``bias=False``).
"""

from __future__ import annotations

import math

import torch

from .. import nn
from ..autograd.grad_mode import no_grad
from ..autograd.tensor import Tensor
from ..nn import functional as F


class CausalSelfAttention(nn.Module):
    """Multi-head self-attention over the past: one ``c_attn`` projection to q, k, v, then ``c_proj``."""

    def __init__(self, n_embd: int, n_head: int, dropout: float = 0.0) -> None:
        super().__init__()
        if n_embd % n_head != 0:
            raise ValueError(f"n_embd ({n_embd}) must be divisible by n_head ({n_head})")
        self.n_head = n_head
        self.c_attn = nn.Linear(n_embd, 3 * n_embd, bias=False)
        self.c_proj = nn.Linear(n_embd, n_embd, bias=False)
        self.dropout = dropout
        self.resid_dropout = nn.Dropout(dropout)

    def forward(self, x: Tensor) -> Tensor:
        B, T, C = x.shape
        q, k, v = self.c_attn(x).split(C, dim=2)
        # (B, T, C) -> (B, n_head, T, head_size)
        q, k, v = (t.view(B, T, self.n_head, C // self.n_head).transpose(1, 2) for t in (q, k, v))
        p = self.dropout if self.training else 0.0
        y = F.scaled_dot_product_attention(q, k, v, dropout_p=p, is_causal=True)
        y = y.transpose(1, 2).reshape(B, T, C)
        return self.resid_dropout(self.c_proj(y))


class MLP(nn.Module):
    def __init__(self, n_embd: int, dropout: float = 0.0) -> None:
        super().__init__()
        self.c_fc = nn.Linear(n_embd, 4 * n_embd, bias=False)
        self.gelu = nn.GELU()
        self.c_proj = nn.Linear(4 * n_embd, n_embd, bias=False)
        self.dropout = nn.Dropout(dropout)

    def forward(self, x: Tensor) -> Tensor:
        return self.dropout(self.c_proj(self.gelu(self.c_fc(x))))


class Block(nn.Module):
    """One pre-norm transformer block: ``x + attn(ln_1(x))``, then ``x + mlp(ln_2(x))``."""

    def __init__(self, n_embd: int, n_head: int, dropout: float = 0.0) -> None:
        super().__init__()
        self.ln_1 = nn.LayerNorm(n_embd, bias=False)
        self.attn = CausalSelfAttention(n_embd, n_head, dropout)
        self.ln_2 = nn.LayerNorm(n_embd, bias=False)
        self.mlp = MLP(n_embd, dropout)

    def forward(self, x: Tensor) -> Tensor:
        x = x + self.attn(self.ln_1(x))
        return x + self.mlp(self.ln_2(x))


class GPT(nn.Module):
    """A decoder-only character-level GPT: ``model(idx)`` maps token ids ``(B, T)`` (or ``(T,)``),
    ``T <= block_size``, to next-token logits ``(B, T, vocab_size)``.

    The defaults are nanoGPT's CPU "baby GPT" for Tiny Shakespeare (0.80M parameters), the
    configuration of the shipped weights (``mt.models.get("gpt_char", pretrained=True)``).

    >>> import minitorch_rx as mt
    >>> model = GPT(vocab_size=65, block_size=16, n_layer=1, n_head=2, n_embd=8)
    >>> model(mt.zeros(2, 5, dtype=mt.long)).shape
    torch.Size([2, 5, 65])
    """

    def __init__(
        self,
        vocab_size: int = 65,
        block_size: int = 64,
        n_layer: int = 4,
        n_head: int = 4,
        n_embd: int = 128,
        dropout: float = 0.0,
    ) -> None:
        super().__init__()
        for name, value in (
            ("vocab_size", vocab_size),
            ("block_size", block_size),
            ("n_layer", n_layer),
            ("n_head", n_head),
            ("n_embd", n_embd),
        ):
            if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
                raise ValueError(f"GPT: {name} must be a positive int, got {value!r}")
        if isinstance(dropout, bool) or not isinstance(dropout, (int, float)) or not 0.0 <= dropout <= 1.0:
            raise ValueError(f"GPT: dropout must be a probability between 0 and 1, got {dropout!r}")
        if n_embd % n_head != 0:
            raise ValueError(f"GPT: n_embd ({n_embd}) must be divisible by n_head ({n_head})")
        self.vocab_size = vocab_size
        self.block_size = block_size
        self.wte = nn.Embedding(vocab_size, n_embd)
        self.wpe = nn.Embedding(block_size, n_embd)
        self.drop = nn.Dropout(dropout)
        self.h = nn.ModuleList([Block(n_embd, n_head, dropout) for _ in range(n_layer)])
        self.ln_f = nn.LayerNorm(n_embd, bias=False)
        self.lm_head = nn.Linear(n_embd, vocab_size, bias=False)
        self.lm_head.weight = self.wte.weight  # tied
        # GPT-2's initialization: N(0, 0.02), residual projections scaled by 1/sqrt(2 * n_layer).
        for name, p in self.named_parameters():
            if p.dim() == 2:
                std = 0.02 / math.sqrt(2 * n_layer) if name.endswith("c_proj.weight") else 0.02
                nn.init.normal_(p, mean=0.0, std=std)

    def forward(self, idx: Tensor) -> Tensor:
        if not isinstance(idx, Tensor):
            raise TypeError(f"GPT: idx must be an mt.Tensor of token ids, got {type(idx).__name__}")
        unbatched = idx.dim() == 1
        if unbatched:
            idx = idx.unsqueeze(0)
        if idx.dim() != 2:
            raise ValueError(f"GPT: idx must be (B, T) or (T,) token ids, got shape {tuple(idx.shape)}")
        T = idx.shape[1]
        if T > self.block_size:
            raise ValueError(f"GPT: cannot forward a sequence of length {T}: longer than block_size {self.block_size}")
        pos = Tensor(torch.arange(T, device=idx._data.device))
        x = self.drop(self.wte(idx) + self.wpe(pos))
        for block in self.h:
            x = block(x)
        logits = self.lm_head(self.ln_f(x))
        return logits.squeeze(0) if unbatched else logits

    def generate(self, idx: Tensor, max_new_tokens: int, temperature: float = 1.0, top_k: int | None = None) -> Tensor:
        """Append ``max_new_tokens`` tokens sampled one at a time to ``idx`` ``(B, T)`` (or ``(T,)``),
        each from ``softmax(logits / temperature)`` over the last ``block_size`` tokens, restricted to the
        ``top_k`` most likely tokens if given. Random draws come from the global generator
        (``mt.manual_seed`` makes it repeatable). Runs in eval mode without recording a graph."""
        if not isinstance(idx, Tensor):
            raise TypeError(f"GPT.generate: idx must be an mt.Tensor of token ids, got {type(idx).__name__}")
        if isinstance(max_new_tokens, bool) or not isinstance(max_new_tokens, int) or max_new_tokens < 0:
            raise ValueError(f"GPT.generate: max_new_tokens must be a non-negative int, got {max_new_tokens!r}")
        if isinstance(temperature, bool) or not isinstance(temperature, (int, float)) or not temperature > 0:
            raise ValueError(f"GPT.generate: temperature must be a positive number, got {temperature!r}")
        if top_k is not None and (isinstance(top_k, bool) or not isinstance(top_k, int) or top_k <= 0):
            raise ValueError(f"GPT.generate: top_k must be a positive int or None, got {top_k!r}")
        unbatched = idx.dim() == 1
        out = idx._data.unsqueeze(0) if unbatched else idx._data
        if out.dim() != 2 or out.shape[1] == 0:
            raise ValueError(f"GPT.generate: idx must be non-empty (B, T) or (T,) token ids, got {tuple(idx.shape)}")
        was_training = self.training
        self.eval()
        try:
            with no_grad():
                for _ in range(max_new_tokens):
                    logits = self(Tensor(out[:, -self.block_size :]))._data[:, -1, :] / temperature
                    if top_k is not None:
                        kth = torch.topk(logits, min(top_k, logits.shape[-1])).values[:, -1:]
                        logits = logits.masked_fill(logits < kth, float("-inf"))
                    nxt = torch.multinomial(torch.softmax(logits.float(), dim=-1), num_samples=1)
                    out = torch.cat((out, nxt), dim=1)
        finally:
            self.train(was_training)
        return Tensor(out.squeeze(0) if unbatched else out)


def gpt_char(**kwargs) -> GPT:
    """nanoGPT's baby GPT for Tiny Shakespeare (see ``GPT``); keyword arguments override the defaults."""
    return GPT(**kwargs)
