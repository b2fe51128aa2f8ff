"""``char_lstm``: a character-level LSTM language model (char-rnn's layout, smaller)."""

from __future__ import annotations

import torch

from .. import nn
from ..autograd.grad_mode import no_grad
from ..autograd.tensor import Tensor


class CharLSTM(nn.Module):
    """Embedding -> ``num_layers``-layer ``nn.LSTM`` (batch first) -> linear head: ``model(idx)``
    maps token ids ``(B, T)`` (or ``(T,)``) to next-token logits ``(B, T, vocab_size)``, any ``T``.

    >>> import minitorch_rx as mt
    >>> model = CharLSTM(vocab_size=65, embedding_dim=8, hidden_size=16)
    >>> model(mt.zeros(2, 5, dtype=mt.long)).shape
    torch.Size([2, 5, 65])
    """

    def __init__(
        self,
        vocab_size: int = 65,
        embedding_dim: int = 64,
        hidden_size: int = 192,
        num_layers: int = 2,
        dropout: float = 0.0,
    ) -> None:
        super().__init__()
        for name, value in (
            ("vocab_size", vocab_size),
            ("embedding_dim", embedding_dim),
            ("hidden_size", hidden_size),
            ("num_layers", num_layers),
        ):
            if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
                raise ValueError(f"CharLSTM: {name} must be a positive int, got {value!r}")
        self.vocab_size = vocab_size
        self.embedding = nn.Embedding(vocab_size, embedding_dim)
        self.lstm = nn.LSTM(embedding_dim, hidden_size, num_layers, batch_first=True, dropout=dropout)
        self.head = nn.Linear(hidden_size, vocab_size)

    def forward(self, idx: Tensor, hx: tuple[Tensor, Tensor] | None = None) -> Tensor:
        return self.forward_with_state(idx, hx)[0]

    def forward_with_state(
        self, idx: Tensor, hx: tuple[Tensor, Tensor] | None = None
    ) -> tuple[Tensor, tuple[Tensor, Tensor]]:
        """``(logits, (h_n, c_n))``: the logits and the LSTM's final state, to continue from."""
        if not isinstance(idx, Tensor):
            raise TypeError(f"CharLSTM: idx must be an mt.Tensor of token ids, got {type(idx).__name__}")
        if idx.dim() not in (1, 2):
            raise ValueError(f"CharLSTM: idx must be (B, T) or (T,) token ids, got shape {tuple(idx.shape)}")
        out, state = self.lstm(self.embedding(idx), hx)
        return self.head(out), state

    def generate(self, idx: Tensor, max_new_tokens: int, temperature: float = 1.0, top_k: int | None = None) -> Tensor:
        """Append ``max_new_tokens`` sampled tokens to ``idx`` ``(B, T)`` (or ``(T,)``), carrying the LSTM
        state from one step to the next; arguments as ``GPT.generate``."""
        if not isinstance(idx, Tensor):
            raise TypeError(f"CharLSTM.generate: idx must be an mt.Tensor of token ids, got {type(idx).__name__}")
        if isinstance(max_new_tokens, bool) or not isinstance(max_new_tokens, int) or max_new_tokens < 0:
            raise ValueError(f"CharLSTM.generate: max_new_tokens must be a non-negative int, got {max_new_tokens!r}")
        if isinstance(temperature, bool) or not isinstance(temperature, (int, float)) or not temperature > 0:
            raise ValueError(f"CharLSTM.generate: temperature must be a positive number, got {temperature!r}")
        if top_k is not None and (isinstance(top_k, bool) or not isinstance(top_k, int) or top_k <= 0):
            raise ValueError(f"CharLSTM.generate: top_k must be a positive int or None, got {top_k!r}")
        unbatched = idx.dim() == 1
        out = idx._data.unsqueeze(0) if unbatched else idx._data
        if out.dim() != 2 or out.shape[1] == 0:
            raise ValueError(
                f"CharLSTM.generate: idx must be non-empty (B, T) or (T,) token ids, got {tuple(idx.shape)}"
            )
        was_training = self.training
        self.eval()
        try:
            with no_grad():
                feed, state = out, None
                for _ in range(max_new_tokens):
                    logits, state = self.forward_with_state(Tensor(feed), state)
                    logits = logits._data[:, -1, :] / temperature
                    if top_k is not None:
                        kth = torch.topk(logits, min(top_k, logits.shape[-1])).values[:, -1:]
                        logits = logits.masked_fill(logits < kth, float("-inf"))
                    feed = torch.multinomial(torch.softmax(logits.float(), dim=-1), num_samples=1)
                    out = torch.cat((out, feed), dim=1)
        finally:
            self.train(was_training)
        return Tensor(out.squeeze(0) if unbatched else out)


def char_lstm(**kwargs) -> CharLSTM:
    """A 2-layer character-level LSTM (embedding 64, hidden 192; see ``CharLSTM``)."""
    return CharLSTM(**kwargs)
