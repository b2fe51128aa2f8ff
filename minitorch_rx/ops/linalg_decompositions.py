"""Matrix decompositions and solvers, as ``torch.linalg``'s (real floating-point tensors).

Each op runs torch's LAPACK kernel forward; its backward is the published derivation PyTorch
uses (``derivatives.yaml``), written with tensor methods and operators plus the solvers of this
file, so that under ``create_graph`` the same formula runs on recorded tensors and stays
differentiable. Multi-output ops whose outputs are optional (``svdvals``, ``eigvalsh``) are
their own Functions: a missing gradient is left out of the formula, not taken as zeros (which
would divide by the gaps of repeated eigenvalues).
"""

from __future__ import annotations

import torch

from ..autograd.function import Function
from ..autograd.tensor import Tensor, is_torch_data
from .constants import tensor_arg
from .out_arg import castable, same_dtype, writes_out
from .shape import cat


def _torch(*tensors) -> bool:
    """Whether a backward runs on raw torch data (first order) rather than recorded tensors."""
    return all(t is None or is_torch_data(t) for t in tensors)


def _solve(A, B, left: bool = True):
    return torch.linalg.solve(A, B, left=left) if _torch(A, B) else solve(A, B, left=left)


def _solve_triangular(A, B, upper: bool, left: bool = True, unitriangular: bool = False):
    if _torch(A, B):
        return torch.linalg.solve_triangular(A, B, upper=upper, left=left, unitriangular=unitriangular)
    return solve_triangular(A, B, upper=upper, left=left, unitriangular=unitriangular)


def _cat(tensors, dim: int):
    return torch.cat(tensors, dim) if _torch(*tensors) else cat(tensors, dim)


def _eye_like(A, n: int):
    eye = torch.eye(n, dtype=A.dtype, device=A.device)
    return eye if is_torch_data(A) else Tensor._make(eye, None)


class Solve(Function):
    """``X = A^{-1} B`` (``left``) or ``B A^{-1}``: ``gB = A^{-T} g``, ``gA = -gB X^T`` (left)."""

    broadcasting = True

    @staticmethod
    def forward(ctx, A, B, left):
        X = torch.linalg.solve(A, B, left=left)
        ctx.save_for_backward(A, X)
        ctx.left = left
        return X

    @staticmethod
    def backward(ctx, grad):
        A, X = ctx.saved_tensors
        left = ctx.left
        grad_B = _solve(A.mT, grad, left=left)
        grad_A = None
        if ctx.needs_input_grad[0]:
            grad_A = -(grad_B @ X.mT) if left else -(X.mT @ grad_B)
        return grad_A, grad_B, None


class SolveTriangular(Function):
    """Triangular ``X = A^{-1} B`` (``left``) or ``B A^{-1}``; ``A``'s gradient keeps its triangle."""

    broadcasting = True

    @staticmethod
    def forward(ctx, A, B, upper, left, unitriangular):
        X = torch.linalg.solve_triangular(A, B, upper=upper, left=left, unitriangular=unitriangular)
        ctx.save_for_backward(A, X)
        ctx.options = (upper, left, unitriangular)
        return X

    @staticmethod
    def backward(ctx, grad):
        A, X = ctx.saved_tensors
        upper, left, unitriangular = ctx.options
        grad_B = _solve_triangular(A.mT, grad, not upper, left, unitriangular)
        grad_A = None
        if ctx.needs_input_grad[0]:
            grad_A = -(grad_B @ X.mT) if left else -(X.mT @ grad_B)
            offset = 1 if unitriangular else 0
            grad_A = grad_A.triu(offset) if upper else grad_A.tril(-offset)
        return grad_A, grad_B, None, None, None


def _vector_rhs(A: Tensor, B: Tensor) -> bool:
    """torch's rule: ``B`` is a (batch of) vector(s) when 1-D or of ``A``'s batch shape plus one dim."""
    return B.dim() == 1 or (B.dim() == A.dim() - 1 and tuple(B.shape) == tuple(A.shape[:-1]))


@writes_out("linalg_solve", refuse="_linalg_solve_ex")
def solve(A: Tensor, B: Tensor, *, left: bool = True) -> Tensor:
    """The solution ``X`` of ``A X = B`` (``left``) or ``X A = B``, batches broadcast; ``B`` may be
    a (batch of) vector(s)."""
    A = tensor_arg(A, "linalg_solve", "A")
    B = tensor_arg(B, "linalg_solve", "B", 2)
    if _vector_rhs(A, B):
        return Solve.apply(A, B.unsqueeze(-1), left).squeeze(-1)
    return Solve.apply(A, B, left)


@writes_out("linalg_solve_ex", refuse="_linalg_solve_ex")
def solve_ex(A: Tensor, B: Tensor, *, left: bool = True, check_errors: bool = False):
    """``(solve(A, B), info)``; ``info`` is 0 where ``A`` is invertible (torch's kernel decides)."""
    A = tensor_arg(A, "linalg_solve_ex", "A")
    _, info = torch.linalg.solve_ex(A._data, tensor_arg(B, "linalg_solve_ex", "B", 2)._data, left=left)
    if check_errors and bool(info.any()):
        torch.linalg.solve(A._data, B._data if isinstance(B, Tensor) else B, left=left)  # torch's error
    return torch.return_types.linalg_solve_ex((solve(A, B, left=left), Tensor._make(info, None)))


@writes_out(
    "linalg_solve_triangular",
    refuse="linalg_solve_triangular",
    dtype=same_dtype("expected scalar type {expected} but found {got}"),
)
def solve_triangular(A: Tensor, B: Tensor, *, upper: bool, left: bool = True, unitriangular: bool = False) -> Tensor:
    """The solution of ``A X = B`` (``left``) or ``X A = B`` for triangular ``A`` (only its
    ``upper`` or lower triangle is read; its diagonal is taken as ones when ``unitriangular``)."""
    A = tensor_arg(A, "linalg_solve_triangular", "A")
    B = tensor_arg(B, "linalg_solve_triangular", "B", 2)
    return SolveTriangular.apply(A, B, upper, left, unitriangular)


@writes_out("linalg_inv", refuse="linalg_inv_ex")
def inv(A: Tensor) -> Tensor:
    """The inverse of each square matrix of ``A``: ``solve(A, I)``, whose gradient is
    PyTorch's ``-A^{-T} g A^{-T}``."""
    A = tensor_arg(A, "linalg_inv", "A")
    torch.linalg.inv(A._data[..., :0, :0] if A.dim() >= 2 else A._data)  # torch's shape checks and errors
    eye = torch.eye(A.shape[-1], dtype=A.dtype, device=A.device).expand(A.shape)
    return Solve.apply(A, Tensor._make(eye, None), True)


@writes_out("linalg_inv_ex", refuse="linalg_inv_ex")
def inv_ex(A: Tensor, *, check_errors: bool = False):
    """``(inv(A), info)``, ``info`` 0 where ``A`` is invertible."""
    A = tensor_arg(A, "linalg_inv_ex", "A")
    _, info = torch.linalg.inv_ex(A._data, check_errors=check_errors)
    return torch.return_types.linalg_inv_ex((inv(A), Tensor._make(info, None)))


class Det(Function):
    """``det(A)``; its gradient ``g * det(A) * A^{-T}`` (LU-based, as PyTorch's for invertible ``A``)."""

    @staticmethod
    def forward(ctx, A):
        det = torch.linalg.det(A)
        ctx.save_for_backward(A, det)
        return det

    @staticmethod
    def backward(ctx, grad):
        A, det = ctx.saved_tensors
        scale = (grad * det).unsqueeze(-1).unsqueeze(-1)
        return scale * _solve(A.mT, _eye_like(A, A.shape[-1]))


class Slogdet(Function):
    """``(sign, log|det A|)``; the gradient is ``g * A^{-T}`` (the sign of a real matrix is locally
    constant: its gradient is zero, as PyTorch's)."""

    @staticmethod
    def forward(ctx, A):
        sign, logabsdet = torch.linalg.slogdet(A)
        ctx.save_for_backward(A)
        return sign, logabsdet

    @staticmethod
    def backward(ctx, grad_sign, grad):
        (A,) = ctx.saved_tensors
        return grad.unsqueeze(-1).unsqueeze(-1) * _solve(A.mT, _eye_like(A, A.shape[-1]))


@writes_out("linalg_det", refuse="_linalg_det")
def det(A: Tensor) -> Tensor:
    """The determinant of each square matrix of ``A``."""
    return Det.apply(tensor_arg(A, "linalg_det", "A"))


@writes_out("linalg_slogdet", refuse="_linalg_slogdet")
def slogdet(A: Tensor):
    """``(sign, logabsdet)`` of the determinant of each square matrix of ``A``."""
    return torch.return_types.slogdet(Slogdet.apply(tensor_arg(A, "linalg_slogdet", "A")))


def logdet(input: Tensor) -> Tensor:
    """``log(det(A))``: NaN where the determinant is negative, ``-inf`` where it is 0."""
    sign, logabsdet = Slogdet.apply(tensor_arg(input, "logdet"))
    return logabsdet.where(sign._data >= 0, torch.nan)


class Cholesky(Function):
    """``A = L L^T``: ``gA = L^{-T} P L^{-1}`` with ``P`` the symmetric matrix whose lower triangle is
    ``tril(L^T gL)`` halved on the diagonal (Murray's derivation, PyTorch's ``cholesky_backward``)."""

    @staticmethod
    def forward(ctx, A, upper):
        L, info = torch.linalg.cholesky_ex(A, upper=upper)
        ctx.save_for_backward(L)
        ctx.upper = upper
        ctx.info = info
        return L

    @staticmethod
    def backward(ctx, grad):
        (L,) = ctx.saved_tensors
        if ctx.upper:
            L, grad = L.mT, grad.mT
        phi = (L.mT @ grad).tril()
        phi = 0.5 * (phi + phi.tril(-1).mT)
        grad_A = _solve_triangular(L.mT, phi, upper=True, left=True)
        return _solve_triangular(L, grad_A, upper=False, left=False), None


@writes_out("linalg_cholesky_ex", refuse="linalg_cholesky_ex")
def cholesky_ex(A: Tensor, *, upper: bool = False, check_errors: bool = False):
    """``(L, info)``: the Cholesky factor, and ``info`` > 0 where a matrix is not positive-definite."""
    A = tensor_arg(A, "linalg_cholesky_ex", "A")
    torch.linalg.cholesky_ex(A._data[..., :0, :0] if A.dim() >= 2 else A._data)  # shape checks
    if check_errors:
        torch.linalg.cholesky_ex(A._data, upper=upper, check_errors=True)
    L = Cholesky.apply(A, upper)
    _, info = torch.linalg.cholesky_ex(A._data, upper=upper)
    return torch.return_types.linalg_cholesky_ex((L, Tensor._make(info, None)))


@writes_out("linalg_cholesky", refuse="linalg_cholesky_ex")
def cholesky(A: Tensor, *, upper: bool = False) -> Tensor:
    """The Cholesky factor ``L`` (``A = L L^T``; ``U`` with ``A = U^T U`` when ``upper``) of each
    symmetric positive-definite matrix; raises torch's error for one that is not."""
    A = tensor_arg(A, "linalg_cholesky", "A")
    torch.linalg.cholesky_ex(A._data, upper=upper, check_errors=True)
    return Cholesky.apply(A, upper)


def _cholesky_solve(B, L, upper: bool):
    return torch.cholesky_solve(B, L, upper) if _torch(B, L) else cholesky_solve(B, L, upper)


class CholeskySolve(Function):
    """``X = A^{-1} B`` with ``A = L L^T`` (``U^T U`` when ``upper``): ``gB = A^{-1} g`` and, through
    ``A``, ``gL = -(gB X^T + X gB^T) L`` (``-U (...)``), PyTorch's ``cholesky_solve_backward``."""

    broadcasting = True

    @staticmethod
    def forward(ctx, B, L, upper):
        X = torch.cholesky_solve(B, L, upper)
        ctx.save_for_backward(L, X)
        ctx.upper = upper
        return X

    @staticmethod
    def backward(ctx, grad):
        L, X = ctx.saved_tensors
        grad_B = _cholesky_solve(grad, L, ctx.upper)
        grad_L = None
        if ctx.needs_input_grad[1]:
            common = grad_B @ X.mT
            common = common + common.mT
            grad_L = -(L @ common) if ctx.upper else -(common @ L)
        return grad_B, grad_L, None


class CholeskyInverse(Function):
    """``X = A^{-1}`` with ``A = L L^T``: ``gL = -X (g + g^T) X L`` (``-U X (g + g^T) X``)."""

    @staticmethod
    def forward(ctx, L, upper):
        X = torch.cholesky_inverse(L, upper)
        ctx.save_for_backward(L, X)
        ctx.upper = upper
        return X

    @staticmethod
    def backward(ctx, grad):
        L, X = ctx.saved_tensors
        common = X @ (grad + grad.mT) @ X
        return (-(L @ common) if ctx.upper else -(common @ L)), None


@writes_out("cholesky_solve", refuse="cholesky_solve", dtype=castable("cholesky_solve"))
def cholesky_solve(B: Tensor, L: Tensor, upper: bool = False) -> Tensor:
    """The solution of ``A X = B`` given the Cholesky factor ``L`` of ``A``."""
    B = tensor_arg(B, "cholesky_solve")
    L = tensor_arg(L, "cholesky_solve", "input2", 2)
    return CholeskySolve.apply(B, L, upper)


@writes_out("cholesky_inverse", refuse="cholesky_inverse", dtype=castable("cholesky_inverse"))
def cholesky_inverse(L: Tensor, upper: bool = False) -> Tensor:
    """``A^{-1}`` given the Cholesky factor ``L`` of ``A``."""
    return CholeskyInverse.apply(tensor_arg(L, "cholesky_inverse"), upper)
