"""``mt.linalg``: norms, solvers and decompositions, as ``torch.linalg``'s (the ops live in
``ops/linalg.py``, ``ops/linalg_decompositions.py``, ``ops/linalg_spectral.py`` and
``ops/linalg_composite.py``)."""

from __future__ import annotations

import torch

from .autograd.tensor import Tensor
from .ops.constants import tensor_arg
from .ops.linalg import matmul, matrix_norm, vector_norm
from .ops.linalg_composite import (
    cond,
    cross,
    diagonal,
    householder_product,
    ldl_factor,
    ldl_factor_ex,
    ldl_solve,
    lstsq,
    lu_factor,
    lu_factor_ex,
    lu_solve,
    matrix_power,
    matrix_rank,
    matrix_sqrth,
    multi_dot,
    polar,
    tensorinv,
    tensorsolve,
    vander,
    vecdot,
)
from .ops.linalg_decompositions import (
    cholesky,
    cholesky_ex,
    det,
    inv,
    inv_ex,
    slogdet,
    solve,
    solve_ex,
    solve_triangular,
)
from .ops.linalg_spectral import eigh, eigvalsh, lu, matrix_exp, pinv, qr, svd, svdvals

__all__ = [
    "cholesky",
    "cholesky_ex",
    "cond",
    "cross",
    "det",
    "diagonal",
    "eigh",
    "eigvalsh",
    "householder_product",
    "inv",
    "inv_ex",
    "ldl_factor",
    "ldl_factor_ex",
    "ldl_solve",
    "lstsq",
    "lu",
    "lu_factor",
    "lu_factor_ex",
    "lu_solve",
    "matmul",
    "matrix_exp",
    "matrix_norm",
    "matrix_power",
    "matrix_rank",
    "matrix_sqrth",
    "multi_dot",
    "norm",
    "pinv",
    "polar",
    "qr",
    "slogdet",
    "solve",
    "solve_ex",
    "solve_triangular",
    "svd",
    "svdvals",
    "tensorinv",
    "tensorsolve",
    "vander",
    "vecdot",
    "vector_norm",
]


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
