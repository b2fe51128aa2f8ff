"""Spectral and orthogonal decompositions, as ``torch.linalg``'s (real floating-point tensors):
``eigh``/``eigvalsh``, ``svd``/``svdvals``, ``qr``, ``lu``, ``matrix_exp`` and ``pinv``.

Forward runs torch's kernel; backward is the published derivation PyTorch uses (its
``FunctionsManual``: ``linalg_eig_backward`` for the symmetric case, ``svd_backward``,
``linalg_qr_backward``, ``linalg_lu_backward``, the block-matrix exponential, ``pinv_backward``)
in tensor methods and this package's solvers, so it stays differentiable under ``create_graph``.
"""

from __future__ import annotations

import torch

from ..autograd.function import Function
from ..autograd.tensor import Tensor
from .constants import NOT_GIVEN, TENSOR_TYPES, tensor_arg
from .linalg_decompositions import _cat, _eye_like, _solve_triangular, _torch
from .loss import _not_differentiable
from .out_arg import castable, writes_out


def _diag_embed(v):
    return v.diag_embed()


class Eigh(Function):
    """``A = V diag(L) V^T`` of a symmetric ``A`` (its ``UPLO`` triangle is read).
    ``gA = V (diag(gL) + skew(V^T gV) / E) V^T``, ``E_ij = L_j - L_i``: the symmetric case of
    PyTorch's ``linalg_eig_backward`` (``eigenvectors=False``: ``V diag(gL) V^T``)."""

    @staticmethod
    def forward(ctx, A, UPLO, eigenvectors):
        L, V = torch.linalg.eigh(A, UPLO=UPLO)
        ctx.save_for_backward(L, V, None if eigenvectors else A)
        ctx.eigenvectors, ctx.UPLO = eigenvectors, UPLO
        return (L, V) if eigenvectors else L

    @staticmethod
    def backward(ctx, grad_L, grad_V=None):
        L, V, A = ctx.saved_tensors
        if not ctx.eigenvectors:
            if not _torch(grad_L):  # recorded: V's dependence on A is part of the second derivative
                _, V = eigh(A, ctx.UPLO)
            return (V * grad_L.unsqueeze(-2)) @ V.mT, None, None
        VtgV = V.mT @ grad_V
        skew = 0.5 * (VtgV - VtgV.mT)
        gaps = L.unsqueeze(-2) - L.unsqueeze(-1)
        n = L.shape[-1]
        eye = _eye_like(L, n)
        inner = skew / (gaps + eye) * (1 - eye) + _diag_embed(grad_L)
        return V @ inner @ V.mT, None, None


@writes_out("linalg_eigh", refuse="_linalg_eigh")
def eigh(A: Tensor, UPLO: str = "L"):
    """Eigenvalues (ascending) and orthonormal eigenvectors of each symmetric matrix of ``A``."""
    A = tensor_arg(A, "linalg_eigh", "A")
    return torch.return_types.linalg_eigh(Eigh.apply(A, UPLO, True))


@writes_out("linalg_eigvalsh", refuse="_linalg_eigh")
def eigvalsh(A: Tensor, UPLO: str = "L") -> Tensor:
    """The eigenvalues (ascending) of each symmetric matrix of ``A``."""
    return Eigh.apply(tensor_arg(A, "linalg_eigvalsh", "A"), UPLO, False)


class Svd(Function):
    """``A = U diag(S) Vh`` (reduced). PyTorch's ``svd_backward`` for real matrices:
    ``gA = U [(skew(U^T gU) S + S skew(V^T gV)) / E + diag(gS)] Vh`` with ``E_ij = S_j^2 - S_i^2``,
    plus the components of ``gU`` (tall) or ``gVh`` (wide) outside the spans of ``U`` or ``V``.
    Without vectors (``svdvals``) the gradient is ``U diag(gS) Vh``."""

    @staticmethod
    def forward(ctx, A, full_matrices, vectors):
        U, S, Vh = torch.linalg.svd(A, full_matrices=full_matrices)
        ctx.save_for_backward(U, S, Vh, None if vectors else A)  # the outputs themselves: recorded under create_graph
        ctx.options = (full_matrices, vectors, A.shape[-2], A.shape[-1])
        return (U, S, Vh) if vectors else S

    @staticmethod
    def backward(ctx, *grads):
        U, S, Vh, A = ctx.saved_tensors
        full_matrices, vectors, m, n = ctx.options
        if not vectors:
            if not _torch(grads[0]):  # recorded: U's and V's dependence on A is part of the second derivative
                U, _, Vh = svd(A, full_matrices=False)
            return (U * grads[0].unsqueeze(-2)) @ Vh, None, None
        grad_U, grad_S, grad_Vh = grads
        k = S.shape[-1]
        if full_matrices and (m != k or n != k):  # the extra singular vectors carry nothing of A
            U, Vh = U[..., :k], Vh[..., :k, :]
            grad_U, grad_Vh = grad_U[..., :k], grad_Vh[..., :k, :]
        grad_V = grad_Vh.mT
        V = Vh.mT
        UtgU = U.mT @ grad_U
        VtgV = V.mT @ grad_V
        squares = S * S
        eye = _eye_like(S, k)
        gaps = squares.unsqueeze(-2) - squares.unsqueeze(-1) + eye
        inner = ((UtgU - UtgU.mT) * S.unsqueeze(-2) + S.unsqueeze(-1) * (VtgV - VtgV.mT)) / gaps * (1 - eye)
        inner = inner + _diag_embed(grad_S)
        if m > n:
            grad_U_scaled = grad_U / S.unsqueeze(-2)
            grad_A = U @ inner + grad_U_scaled - U @ (U.mT @ grad_U_scaled)
            return grad_A @ Vh, None, None
        if m < n:
            scaled_grad_Vh = grad_V.mT / S.unsqueeze(-1)
            grad_A = inner @ Vh + scaled_grad_Vh - (scaled_grad_Vh @ V) @ Vh
            return U @ grad_A, None, None
        return U @ inner @ Vh, None, None


@writes_out("linalg_svd", refuse="_linalg_svd")
def svd(A: Tensor, full_matrices: bool = True, *, driver: str | None = None):
    """``(U, S, Vh)`` with ``A = U diag(S) Vh``; differentiable where the singular values are distinct
    (and, with ``full_matrices``, through the first ``min(m, n)`` singular vectors only)."""
    A = tensor_arg(A, "linalg_svd", "A")
    return torch.return_types.linalg_svd(Svd.apply(A, full_matrices, True))


@writes_out("linalg_svdvals", refuse="_linalg_svd")
def svdvals(A: Tensor, *, driver: str | None = None) -> Tensor:
    """The singular values of each matrix of ``A``, in descending order."""
    return Svd.apply(tensor_arg(A, "linalg_svdvals", "A"), False, False)


class Qr(Function):
    """``A = Q R``, PyTorch's ``linalg_qr_backward``: with ``M = gR R^T - Q^T gQ``, for ``m >= n``
    ``gA = (gQ + Q sym(M)) R^{-T}``, ``sym`` the symmetric matrix of ``M``'s upper triangle; a wide
    ``A = Q [R1 R2]`` gets ``[Q tril(-M + M^T) R1^{-T}, 0] + Q gR``."""

    @staticmethod
    def forward(ctx, A, mode):
        Q, R = torch.linalg.qr(A, mode=mode)
        ctx.save_for_backward(A, Q, R)
        ctx.mode = mode
        return Q, R

    @staticmethod
    def backward(ctx, grad_Q, grad_R):
        A, Q, R = ctx.saved_tensors
        m, n = A.shape[-2], A.shape[-1]
        if ctx.mode == "r":
            raise RuntimeError(
                "The derivative of linalg.qr depends on Q, which is not computed when mode='r'. "
                "Please use linalg.qr(A, mode='reduced') if you are going to differentiate through linalg.qr."
            )
        if ctx.mode == "complete" and m > n:
            raise RuntimeError("The QR decomposition is not differentiable when mode='complete' and nrows > ncols.")
        M = grad_R @ R.mT - Q.mT @ grad_Q
        if m >= n:  # gA = (gQ + Q copyutl(M)) R^{-T}
            upper = M.triu()
            symmetric = upper + upper.mT - _diag_embed(M.diagonal(0, -2, -1))
            return _solve_triangular(R.mT, Q @ symmetric + grad_Q, upper=False, left=False), None
        skew = (M.mT - M).tril()  # the wide case: Q tril(X - X^T) R1^{-T}, zeros, plus Q gR
        grad_A = _solve_triangular(R[..., :m].mT, Q @ skew, upper=False, left=False)
        return _cat([grad_A, (grad_R[..., m:] * 0)], -1) + Q @ grad_R, None


@writes_out("linalg_qr", refuse="linalg_qr")
def qr(A: Tensor, mode: str = "reduced"):
    """``(Q, R)`` with ``A = Q R``, ``Q`` orthonormal columns and ``R`` upper triangular."""
    A = tensor_arg(A, "linalg_qr", "A")
    return torch.return_types.linalg_qr(Qr.apply(A, mode))


class Lu(Function):
    """``A = P L U`` (partial pivoting); PyTorch's ``linalg_lu_backward`` for square, wide and
    tall matrices (``P`` has no gradient)."""

    @staticmethod
    def forward(ctx, A, pivot):
        P, L, U = torch.linalg.lu(A, pivot=pivot)
        ctx.save_for_backward(P, L, U)
        ctx.mark_non_differentiable(P)
        return P, L, U

    @staticmethod
    def backward(ctx, grad_P, grad_L, grad_U):
        P, L, U = ctx.saved_tensors
        m, n = L.shape[-2], U.shape[-1]
        k = min(m, n)
        if m == n:
            grad_A = (L.mT @ grad_L).tril(-1) + (grad_U @ U.mT).triu()
            grad_A = _solve_triangular(U.mT, grad_A, upper=False, left=False)
            grad_A = _solve_triangular(L.mT, grad_A, upper=True, unitriangular=True)
        elif m < n:
            U1 = U[..., :k]
            grad_A = (L.mT @ grad_L - grad_U.triu() @ U.mT).tril(-1)
            grad_A = _solve_triangular(U1.mT, grad_A, upper=False, left=False)
            grad_A = _cat([grad_A + grad_U[..., :k].triu(), grad_U[..., k:]], -1)
            grad_A = _solve_triangular(L.mT, grad_A, upper=True, unitriangular=True)
        else:
            L1 = L[..., :k, :]
            grad_A = (grad_U @ U.mT - L.mT @ grad_L.tril(-1)).triu()
            grad_A = _solve_triangular(L1.mT, grad_A, upper=True, unitriangular=True)
            grad_A = _cat([grad_A + grad_L[..., :k, :].tril(-1), grad_L[..., k:, :]], -2)
            grad_A = _solve_triangular(U.mT, grad_A, upper=False, left=False)
        return P @ grad_A, None


@writes_out("linalg_lu", refuse="linalg_lu")
def lu(A: Tensor, *, pivot: bool = True):
    """``(P, L, U)`` with ``A = P L U``: ``L`` unit lower triangular ``m x k``, ``U`` upper ``k x n``."""
    A = tensor_arg(A, "linalg_lu", "A")
    return torch.return_types.linalg_lu(Lu.apply(A, pivot))


class MatrixExp(Function):
    """``exp(A)``; its gradient is the upper-right block of ``exp([[A^T, g], [0, A^T]])``
    (the Fréchet derivative at ``A^T``, as PyTorch's ``linalg_matrix_exp_differential``)."""

    @staticmethod
    def forward(ctx, A):
        ctx.save_for_backward(A)
        return torch.linalg.matrix_exp(A)

    @staticmethod
    def backward(ctx, grad):
        (A,) = ctx.saved_tensors
        n = A.shape[-1]
        top = _cat([A.mT, grad], -1)
        bottom = _cat([grad * 0, A.mT], -1)
        block = _cat([top, bottom], -2)
        exp = torch.linalg.matrix_exp(block) if _torch(block) else matrix_exp(block)
        return exp[..., :n, n:]


def matrix_exp(A: Tensor) -> Tensor:
    """The matrix exponential of each square matrix of ``A``."""
    return MatrixExp.apply(tensor_arg(A, "linalg_matrix_exp", "A"))


class Pinv(Function):
    """The pseudo-inverse ``P`` (torch's kernel: SVD, or ``eigh`` when ``hermitian``); the
    gradient of the constant-rank derivation PyTorch's ``pinv_backward`` uses:
    ``-P^T g P^T + (I - A P) g^T P P^T + P^T P g^T (I - P A)``."""

    @staticmethod
    def forward(ctx, A, rcond, hermitian, atol, rtol):
        if rcond is NOT_GIVEN:
            P = torch.linalg.pinv(A, atol=atol, rtol=rtol, hermitian=hermitian)
        else:  # NumPy's form; torch's TypeError, naming what was passed, where atol or rtol come with it
            tolerances = {name: value for name, value in (("atol", atol), ("rtol", rtol)) if value is not None}
            P = torch.linalg.pinv(A, *((rcond,) if hermitian is False else (rcond, hermitian)), **tolerances)
        ctx.save_for_backward(A, P)
        return P

    @staticmethod
    def backward(ctx, grad):
        A, P = ctx.saved_tensors
        Pt, gt = P.mT, grad.mT
        grad_A = -(Pt @ grad @ Pt)
        grad_A = grad_A + (gt - A @ (P @ gt)) @ (P @ Pt)
        grad_A = grad_A + (Pt @ P) @ (gt - (gt @ P) @ A)
        if grad_A.shape != A.shape:  # batch dims that a tolerance tensor broadcast A to
            grad_A = grad_A.sum_to_size(A.shape)
        return grad_A, None, None, None, None


def _tolerance(value, argument: str):
    """A tolerance of ``pinv`` as torch takes it (a float or a tensor), refused if it requires grad."""
    _not_differentiable(value if isinstance(value, TENSOR_TYPES) else None, "linalg_pinv", argument)
    return value._data if isinstance(value, Tensor) else value


@writes_out("linalg_pinv", refuse="linalg_pinv", dtype=castable("linalg.pinv"))
def pinv(A: Tensor, rcond=NOT_GIVEN, hermitian: bool = False, *, atol=None, rtol=None) -> Tensor:
    """The Moore-Penrose pseudo-inverse of each matrix of ``A`` (singular values at or below
    ``max(atol, rtol * largest)`` count as zero, PyTorch's defaults).

    ``pinv(A, rcond, hermitian=False)``, NumPy's form that torch still takes (without a warning),
    is ``rtol=rcond`` with ``atol=0``; ``rcond`` (a float or a tensor, broadcast over the batch)
    cannot come with ``atol`` or ``rtol``.
    """
    A = tensor_arg(A, "linalg_pinv", "A")
    rcond = _tolerance(rcond, "rtol")  # torch's own name for it in its refusal
    return Pinv.apply(A, rcond, hermitian, _tolerance(atol, "atol"), _tolerance(rtol, "rtol"))
