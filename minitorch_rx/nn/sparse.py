"""``Embedding``: a lookup table of ``num_embeddings`` vectors, as PyTorch's."""

from __future__ import annotations

import torch

from .. import init
from ..autograd.tensor import Tensor
from ..ops.constants import check_number, tensor_arg
from . import functional as F
from .module import Module
from .parameter import Parameter


class Embedding(Module):
    """Rows of ``weight`` (``(num_embeddings, embedding_dim)``, drawn from N(0, 1)) looked up by
    integer ids: an input of any shape gives ``(*input.shape, embedding_dim)``.

    The ``padding_idx`` row starts at zero and gets no gradient. Only dense gradients
    (``sparse=False``). Ids outside ``[0, num_embeddings)`` raise ``IndexError`` naming the id.

    >>> import minitorch_rx as mt, minitorch_rx.nn as nn
    >>> nn.Embedding(10, 3)(mt.tensor([[1, 2], [4, 5]])).shape
    torch.Size([2, 2, 3])
    """

    def __init__(
        self,
        num_embeddings: int,
        embedding_dim: int,
        padding_idx: int | None = None,
        max_norm: float | None = None,
        norm_type: float = 2.0,
        scale_grad_by_freq: bool = False,
        sparse: bool = False,
        _weight: Tensor | torch.Tensor | None = None,
        _freeze: bool = False,
        device: torch.device | str | None = None,
        dtype: torch.dtype | None = None,
    ) -> None:
        super().__init__()
        if sparse:
            raise NotImplementedError("Embedding: sparse=True (sparse gradients) is not supported; use sparse=False")
        if padding_idx is not None:
            check_number(padding_idx, "Embedding", "padding_idx", integer=True)
            if not -num_embeddings <= padding_idx < num_embeddings:
                # PyTorch's assert, raised so that ``python -O`` keeps it
                raise AssertionError("Padding_idx must be within num_embeddings")
            if padding_idx < 0:
                padding_idx = num_embeddings + padding_idx
        self.num_embeddings = num_embeddings
        self.embedding_dim = embedding_dim
        self.padding_idx = padding_idx
        self.max_norm = max_norm
        self.norm_type = norm_type
        self.scale_grad_by_freq = scale_grad_by_freq
        self.sparse = sparse
        if _weight is None:
            self.weight = Parameter(
                torch.empty((num_embeddings, embedding_dim), device=device, dtype=dtype), requires_grad=not _freeze
            )
            self.reset_parameters()
        else:
            _weight = tensor_arg(_weight, "Embedding", "_weight", 10)
            shape = tuple(_weight.shape)
            if shape != (num_embeddings, embedding_dim):
                raise ValueError(
                    f"Shape of weight {list(shape)} does not match num_embeddings and embedding_dim "
                    f"({num_embeddings}, {embedding_dim})"
                )
            self.weight = Parameter(_weight, requires_grad=not _freeze)

    def reset_parameters(self) -> None:
        """N(0, 1) for every row, then zero the ``padding_idx`` row."""
        init.normal_(self.weight)
        if self.padding_idx is not None:
            self.weight._data[self.padding_idx].fill_(0)

    def forward(self, input: Tensor) -> Tensor:
        return F.embedding(
            input, self.weight, self.padding_idx, self.max_norm, self.norm_type, self.scale_grad_by_freq, self.sparse
        )

    def extra_repr(self) -> str:
        text = f"{self.num_embeddings}, {self.embedding_dim}"
        if self.padding_idx is not None:
            text += f", padding_idx={self.padding_idx}"
        if self.max_norm is not None:
            text += f", max_norm={self.max_norm}"
        if self.norm_type != 2:
            text += f", norm_type={self.norm_type}"
        if self.scale_grad_by_freq:
            text += ", scale_grad_by_freq=True"
        return text

    @classmethod
    def from_pretrained(
        cls,
        embeddings: Tensor | torch.Tensor,
        freeze: bool = True,
        padding_idx: int | None = None,
        max_norm: float | None = None,
        norm_type: float = 2.0,
        scale_grad_by_freq: bool = False,
        sparse: bool = False,
    ) -> Embedding:
        """An Embedding whose weight is ``embeddings`` (2-D; shared, not copied), frozen unless
        ``freeze=False``."""
        if embeddings.dim() != 2:
            raise ValueError(f"Embeddings parameter is expected to be 2-dimensional, got {embeddings.dim()}-D")
        rows, cols = embeddings.shape
        return cls(
            num_embeddings=rows,
            embedding_dim=cols,
            _weight=embeddings,
            _freeze=freeze,
            padding_idx=padding_idx,
            max_norm=max_norm,
            norm_type=norm_type,
            scale_grad_by_freq=scale_grad_by_freq,
            sparse=sparse,
        )
