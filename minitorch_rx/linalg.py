"""``mt.linalg``: norms, as ``torch.linalg``'s (the ops themselves live in ``ops/linalg.py``)."""

from __future__ import annotations

import torch

from .autograd.tensor import Tensor
from .ops.constants import tensor_arg
from .ops.linalg import matmul, matrix_norm, vector_norm

__all__ = ["matmul", "matrix_norm", "norm", "vector_norm"]


def norm(A: Tensor, ord=None, dim=None, keepdim: bool = False, *, dtype: torch.dtype | None = None) -> Tensor:
    """A vector norm (``dim`` an int, or a 1-D input) or a matrix norm (``dim`` a 2-tuple, or a
    2-D input); ``ord=None`` is the 2-norm of the flattened input or the Frobenius norm."""
    A = tensor_arg(A, "linalg_norm")
    if isinstance(dim, int):
        dim = (dim,)
    if ord is None:
        return vector_norm(A, 2, dim, keepdim, dtype=dtype)
    if dim is None:
        if A.dim() not in (1, 2):
            raise RuntimeError(
                f"linalg.norm: If dim is not specified but ord is, the input must be 1D or 2D. Got {A.dim()}D."
            )
        dim = tuple(range(A.dim()))
    if len(dim) == 2:
        return matrix_norm(A, ord, dim, keepdim, dtype=dtype)
    return vector_norm(A, ord, dim, keepdim, dtype=dtype)
