"""``torch.linalg`` functions composed from recorded ops (so their gradients and second
derivatives follow from those ops'), the LU and LDL helpers, and the ``torch.*`` aliases
(``torch.det``, ``torch.svd``, ``torch.triangular_solve``, ...)."""

from __future__ import annotations

import math

import torch

from ..autograd.tensor import Tensor
from .constants import NOT_GIVEN, dtype_name, tensor_arg
from .linalg import matmul, matrix_norm
from .linalg_decompositions import cholesky, inv, solve, solve_triangular
from .linalg_spectral import eigh, lu, pinv, qr, svd, svdvals
from .out_arg import any_dtype, castable, exact, same_dtype, writes_out
from .pad import pad
from .shape import stack


def _constant(data: torch.Tensor) -> Tensor:
    return Tensor._make(data, None)


_FALSE = torch.tensor(False)
_NO_MATRIX = torch.empty(0, 0)


def _matrix_power_dtype(expected: torch.dtype, got: torch.dtype) -> str | None:
    """torch's two checks of ``matrix_power``'s ``out``: castable, then its kernel's exact dtype."""
    return castable("matrix_power")(expected, got) or exact(expected, got)


def _matrix_power_out(A, n: int) -> tuple:
    """torch's ``out=`` rules by ``n``: 0 and 1 copy a result in; -1 is ``inv``'s kernel, the rest ``matmul``'s."""
    if n in (0, 1):
        return None, castable("matrix_power")
    return ("linalg_inv_ex" if n == -1 else "matmul"), _matrix_power_dtype


def _svd_out(input, some: bool = True, compute_uv: bool = True) -> tuple:
    """torch's ``out=`` rules for ``torch.svd``: ``compute_uv=False`` words its dtype error its own way."""
    if compute_uv:
        return "_linalg_svd", exact
    return "_linalg_svd", same_dtype("torch.svd: Expected out tensor to have dtype {expected} but got {got} instead")


@writes_out("linalg_matrix_power", rules_for=_matrix_power_out)
def matrix_power(A: Tensor, n: int) -> Tensor:
    """``A`` to the integer power ``n`` (``inv(A)`` to ``-n`` for negative ``n``; the identity for 0),
    by repeated squaring."""
    A = tensor_arg(A, "linalg_matrix_power", "A")
    torch.linalg.matrix_power(A._data[..., :0, :0] if A.dim() >= 2 else A._data, n)  # torch's checks
    if n == 0:  # the identity, still a function of A (its gradient is zero), as PyTorch's
        eye = torch.eye(A.shape[-1], dtype=A.dtype, device=A.device).expand(A.shape)
        return A.where(_FALSE, 0.0) + _constant(eye)
    if n < 0:
        A, n = inv(A), -n
    result = None
    square = A
    while n:
        if n & 1:
            result = square if result is None else matmul(result, square)
        n >>= 1
        if n:
            square = matmul(square, square)
    return result


@writes_out("linalg_matrix_rank", dtype=castable("linalg.matrix_rank"))
def matrix_rank(A: Tensor, tol=NOT_GIVEN, hermitian: bool = False, *, atol=None, rtol=None) -> Tensor:
    """The number of singular values above the tolerance (an integer tensor, no gradient).

    ``matrix_rank(A, tol, hermitian=False)``, NumPy's form that torch still takes (without a
    warning), is ``atol=tol`` with ``rtol=0``: unlike ``atol`` alone, a ``tol`` of 0 or less
    counts every nonzero singular value. ``tol`` cannot come with ``atol`` or ``rtol``.
    """
    A = tensor_arg(A, "linalg_matrix_rank", "A")
    unwrap = lambda v: v._data if isinstance(v, Tensor) else v  # noqa: E731
    if tol is NOT_GIVEN:
        return _constant(torch.linalg.matrix_rank(A._data, atol=unwrap(atol), rtol=unwrap(rtol), hermitian=hermitian))
    # torch's TypeError, naming what was passed, where atol or rtol come with tol
    tolerances = {name: unwrap(value) for name, value in (("atol", atol), ("rtol", rtol)) if value is not None}
    given = (unwrap(tol),) if hermitian is False else (unwrap(tol), hermitian)
    return _constant(torch.linalg.matrix_rank(A._data, *given, **tolerances))


@writes_out(
    "linalg_multi_dot",
    refuse="mm",
    dtype=same_dtype("multi_dot(): expected out tensor to have dtype {expected_cpp} but got {got_cpp}"),
)
def multi_dot(tensors) -> Tensor:
    """The product of the matrices in ``tensors`` (the first may be 1-D, a row; the last 1-D, a column)."""
    tensors = [tensor_arg(t, "linalg_multi_dot", "tensors") for t in tensors]
    torch.linalg.multi_dot([t._data for t in tensors])  # torch's checks
    result = tensors[0]
    for t in tensors[1:]:
        result = matmul(result, t)
    return result


@writes_out("linalg_cond", dtype=castable("linalg.cond"))
def cond(A: Tensor, p=None) -> Tensor:
    """The condition number of each matrix of ``A`` in the ``p``-norm: the ratio of the extreme
    singular values for ``None``/2/-2, ``norm(A) * norm(inv(A))`` otherwise."""
    A = tensor_arg(A, "linalg_cond", "A")
    if p is None or p in (2, -2):
        values = svdvals(A)
        largest, smallest = values[..., 0], values[..., -1]
        return largest / smallest if p != -2 else smallest / largest
    return matrix_norm(A, p) * matrix_norm(inv(A), p)


@writes_out("linalg_cross", refuse="linalg_cross")
def cross(input: Tensor, other: Tensor, *, dim: int = -1) -> Tensor:
    """The cross product of 3-vectors along ``dim`` (inputs broadcast)."""
    input = tensor_arg(input, "linalg_cross")
    other = tensor_arg(other, "linalg_cross", "other", 2)
    torch.linalg.cross(input._data, other._data, dim=dim)  # torch's checks
    shape = torch.broadcast_shapes(input.shape, other.shape)
    a, b = input.expand(shape).unbind(dim), other.expand(shape).unbind(dim)
    return stack(
        [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]],
        dim if dim >= 0 else len(shape) + dim,
    )


@writes_out(
    "linalg_vecdot",
    refuse="sum",
    dtype=same_dtype("linalg.vecdot: Expected out of dtype{expected} but found {got}"),
)
def vecdot(x: Tensor, y: Tensor, *, dim: int = -1) -> Tensor:
    """The dot product of (broadcast) vectors along ``dim``."""
    x = tensor_arg(x, "linalg_vecdot", "x")
    y = tensor_arg(y, "linalg_vecdot", "y", 2)
    if not (x.dtype.is_floating_point or x.dtype.is_complex):
        raise RuntimeError(
            f"linalg.vecdot: Expected a floating point or complex tensor as input. Got {dtype_name(x.dtype)}"
        )
    if x.dtype != y.dtype:
        raise RuntimeError(
            "linalg.vecdot: Expected x and y to have the same dtype, but found x of type "
            f"{dtype_name(x.dtype)} and y of type {dtype_name(y.dtype)} instead"
        )
    if x.dtype.is_complex or y.dtype.is_complex:  # x conjugated; complex tensors never require grad here
        return _constant(torch.linalg.vecdot(x._data, y._data, dim=dim))
    return (x * y).sum(dim)


def _reflectors(A: Tensor, tau: Tensor) -> Tensor:
    """The full ``m x m`` product ``H_1 ... H_k``, ``H_i = I - tau_i v_i v_i^T``, ``v_i`` the
    ``i``-th column of ``A`` below the diagonal with 1 on it (LAPACK's Householder convention)."""
    m = A.shape[-2]
    eye = torch.eye(m, dtype=A.dtype, device=A.device)
    Q = A.sum((-2, -1), keepdim=True).where(_FALSE, 0.0) + _constant(eye)  # the identity, a function of A
    for i in range(tau.shape[-1]):
        below = (torch.arange(m, device=A.device) > i).to(A.dtype)
        v = A[..., :, i] * below + eye[i]
        H = _constant(eye) - tau[..., i].unsqueeze(-1).unsqueeze(-1) * (v.unsqueeze(-1) * v.unsqueeze(-2))
        Q = matmul(Q, H)
    return Q


@writes_out(
    "linalg_householder_product",
    refuse="linalg_householder_product",
    dtype=castable("torch.linalg.householder_product"),
)
def householder_product(A: Tensor, tau: Tensor) -> Tensor:
    """The first ``n`` columns of the product of the Householder reflectors stored in ``A`` and
    ``tau`` (as LAPACK's ``orgqr``), composed from recorded ops."""
    A = tensor_arg(A, "linalg_householder_product", "input")
    tau = tensor_arg(tau, "linalg_householder_product", "tau", 2)
    torch.linalg.householder_product(A._data, tau._data)  # torch's checks
    return _reflectors(A, tau)[..., : A.shape[-1]]


@writes_out(
    "ormqr",
    refuse="ormqr",
    dtype=same_dtype(
        "torch.ormqr: Expected input and result to have the same dtype, "
        "but input has dtype{expected} and result has dtype {got}"
    ),
)
def ormqr(input: Tensor, input2: Tensor, input3: Tensor, left: bool = True, transpose: bool = False):
    """``op(Q) @ input3`` (``left``) or ``input3 @ op(Q)``, ``Q`` the full product of the Householder
    reflectors in ``(input, input2)`` and ``op`` the transpose when ``transpose`` (LAPACK's ``ormqr``)."""
    input = tensor_arg(input, "ormqr")
    input2 = tensor_arg(input2, "ormqr", "input2", 2)
    input3 = tensor_arg(input3, "ormqr", "input3", 3)
    torch.ormqr(input._data, input2._data, input3._data, left, transpose)  # torch's checks
    Q = _reflectors(input, input2)
    if transpose:
        Q = Q.mT
    return matmul(Q, input3) if left else matmul(input3, Q)


@writes_out("geqrf", refuse="geqrf", dtype=(castable("torch.geqrf", "a"), castable("torch.geqrf", "tau")))
def geqrf(input: Tensor):
    """``(a, tau)``: LAPACK's packed QR (torch's kernel; not differentiable, as in PyTorch)."""
    a, tau = torch.geqrf(tensor_arg(input, "geqrf")._data)
    return torch.return_types.geqrf((_constant(a), _constant(tau)))


@writes_out("linalg_tensorinv", dtype=castable("tensorinv"))
def tensorinv(A: Tensor, ind: int = 2) -> Tensor:
    """The inverse of ``A`` as a linear map from its first ``ind`` dims to the rest."""
    A = tensor_arg(A, "linalg_tensorinv", "A")
    torch.linalg.tensorinv(A._data, ind)  # torch's checks
    rows = math.prod(A.shape[:ind])
    return inv(A.reshape(rows, -1)).reshape(*A.shape[ind:], *A.shape[:ind])


@writes_out("linalg_tensorsolve", dtype=castable("tensorsolve"))
def tensorsolve(A: Tensor, B: Tensor, dims=None) -> Tensor:
    """The ``X`` with ``tensordot(A, X, X.dim()) = B``."""
    A = tensor_arg(A, "linalg_tensorsolve", "A")
    B = tensor_arg(B, "linalg_tensorsolve", "B", 2)
    torch.linalg.tensorsolve(A._data, B._data, dims)  # torch's checks
    if dims is not None:
        dims = [d % A.dim() for d in dims]
        A = A.permute(*[d for d in range(A.dim()) if d not in dims], *dims)
    result_shape = A.shape[B.dim() :]
    return solve(A.reshape(B.numel(), -1), B.reshape(-1)).reshape(result_shape)


def vander(x: Tensor, *, N: int | None = None) -> Tensor:
    """The Vandermonde matrix ``[1, x, x**2, ..., x**(N-1)]`` along a new last dim (a cumulative
    product, as PyTorch's)."""
    x = tensor_arg(x, "linalg_vander", "x")
    torch.linalg.vander(x._data, N=N)  # torch's checks
    if x.dim() == 0:
        x = x.unsqueeze(0)
    N = x.shape[-1] if N is None else N
    if N <= 1:
        return _constant(torch.ones((*x.shape, N), dtype=x.dtype, device=x.device))
    powers = x.unsqueeze(-1).expand(*x.shape, N - 1).cumprod(-1)
    ones = _constant(torch.ones((*x.shape, 1), dtype=x.dtype, device=x.device))
    return pad(powers, (1, 0)) + pad(ones, (0, N - 1))


def diagonal(A: Tensor, *, offset: int = 0, dim1: int = -2, dim2: int = -1) -> Tensor:
    """The diagonal of each matrix of ``A`` (``torch.diagonal`` with matrix defaults)."""
    return tensor_arg(A, "linalg_diagonal", "A").diagonal(offset, dim1, dim2)


@writes_out("linalg_lu_factor_ex", refuse="linalg_lu_factor_ex")
def lu_factor_ex(A: Tensor, *, pivot: bool = True, check_errors: bool = False):
    """``(LU, pivots, info)``: ``L`` (below the diagonal) and ``U`` packed in one matrix, LAPACK's
    1-based pivots, ``info`` > 0 for a singular ``U``. ``LU`` is composed from ``lu``'s factors."""
    A = tensor_arg(A, "linalg_lu_factor_ex", "A")
    _, pivots, info = torch.linalg.lu_factor_ex(A._data, pivot=pivot, check_errors=check_errors)
    _, L, U = lu(A, pivot=pivot)
    m, n = A.shape[-2], A.shape[-1]
    k = min(m, n)
    packed = pad(L.tril(-1), (0, n - k)) + pad(U, (0, 0, 0, m - k))
    return torch.return_types.linalg_lu_factor_ex((packed, _constant(pivots), _constant(info)))


@writes_out("linalg_lu_factor", refuse="linalg_lu_factor_ex")
def lu_factor(A: Tensor, *, pivot: bool = True):
    """``(LU, pivots)`` of ``lu_factor_ex``, raising torch's error for a singular matrix."""
    A = tensor_arg(A, "linalg_lu_factor", "A")
    torch.linalg.lu_factor(A._data, pivot=pivot)  # torch's errors
    LU, pivots, _ = lu_factor_ex(A, pivot=pivot)
    return torch.return_types.linalg_lu_factor((LU, pivots))


@writes_out("lu_unpack", refuse="lu_unpack")
def lu_unpack(LU_data: Tensor, LU_pivots: Tensor, unpack_data: bool = True, unpack_pivots: bool = True):
    """``(P, L, U)`` from ``lu_factor``'s packed form (``L`` and ``U`` differentiable in ``LU``)."""
    LU_data = tensor_arg(LU_data, "lu_unpack", "LU_data")
    pivots = LU_pivots._data if isinstance(LU_pivots, Tensor) else LU_pivots
    P, _, _ = torch.lu_unpack(LU_data._data, pivots, unpack_data=False, unpack_pivots=unpack_pivots)
    m, n = LU_data.shape[-2], LU_data.shape[-1]
    k = min(m, n)
    if not unpack_data:
        empty = _constant(LU_data._data.new_empty(0))
        return torch.return_types.lu_unpack((_constant(P), empty, empty))
    eye = torch.eye(m, k, dtype=LU_data.dtype, device=LU_data.device)
    L = LU_data[..., :, :k].tril(-1) + _constant(eye)
    U = LU_data[..., :k, :].triu()
    return torch.return_types.lu_unpack((_constant(P), L, U))


@writes_out("linalg_lu_solve", refuse="linalg_lu_solve")
def lu_solve(LU: Tensor, pivots: Tensor, B: Tensor, *, left: bool = True, adjoint: bool = False):
    """The solution of ``A X = B`` (``X A = B`` unless ``left``; ``A^T`` for ``adjoint``) from
    ``lu_factor``'s ``(LU, pivots)``: triangular solves on the unpacked factors."""
    LU = tensor_arg(LU, "linalg_lu_solve", "LU")
    B = tensor_arg(B, "linalg_lu_solve", "B", 3)
    piv = pivots._data if isinstance(pivots, Tensor) else pivots
    torch.linalg.lu_solve(LU._data, piv, B._data, left=left, adjoint=adjoint)  # torch's checks
    P, L, U = lu_unpack(LU, pivots)
    if left and not adjoint:  # P L U X = B
        X = solve_triangular(L, P.mT @ B, upper=False, unitriangular=True)
        return solve_triangular(U, X, upper=True)
    if left:  # U^T L^T P^T X = B
        X = solve_triangular(U.mT, B, upper=False)
        return P @ solve_triangular(L.mT, X, upper=True, unitriangular=True)
    if not adjoint:  # X P L U = B
        X = solve_triangular(U, B, upper=True, left=False)
        return solve_triangular(L, X, upper=False, left=False, unitriangular=True) @ P.mT
    X = B @ P  # X U^T L^T P^T = B
    X = solve_triangular(L.mT, X, upper=True, left=False, unitriangular=True)
    return solve_triangular(U.mT, X, upper=False, left=False)


def lstsq(A: Tensor, B: Tensor, rcond=None, *, driver: str | None = None):
    """``(solution, residuals, rank, singular_values)`` of the least-squares problem ``A X ~ B``
    (torch's kernel for the last three, none differentiable); ``solution`` is ``pinv(A) @ B``, whose
    gradient is PyTorch's ``linalg_lstsq_backward``."""
    A = tensor_arg(A, "linalg_lstsq", "A")
    B = tensor_arg(B, "linalg_lstsq", "B", 2)
    result = torch.linalg.lstsq(A._data, B._data, rcond=rcond, driver=driver)
    if A.dtype.is_complex or B.dtype.is_complex:  # never require grad here: torch's answer
        return torch.return_types.linalg_lstsq(tuple(_constant(t) for t in result))
    vector = B.dim() == A.dim() - 1
    solution = matmul(pinv(A), B.unsqueeze(-1) if vector else B)
    if vector:
        solution = solution.squeeze(-1)
    residuals = solution.flatten()[:0]  # empty, as torch's when it computes none, still differentiable
    if result.residuals.numel():  # the squared residual norms, differentiable as PyTorch's
        fitted = matmul(A, solution.unsqueeze(-1) if vector else solution)
        difference = fitted - (B.unsqueeze(-1) if vector else B)
        residuals = (difference * difference).sum(-2)
        if vector:
            residuals = residuals.squeeze(-1)
    rank, values = _constant(result.rank), _constant(result.singular_values)
    return torch.return_types.linalg_lstsq((solution, residuals, rank, values))


@writes_out("linalg_ldl_factor_ex")
def ldl_factor_ex(A: Tensor, *, hermitian: bool = False, check_errors: bool = False):
    """``(LD, pivots, info)`` of the LDL^T factorization (torch's kernel; not differentiable, as in PyTorch)."""
    A = tensor_arg(A, "linalg_ldl_factor_ex", "A")
    result = torch.linalg.ldl_factor_ex(A._data, hermitian=hermitian, check_errors=check_errors)
    return torch.return_types.linalg_ldl_factor_ex(tuple(_constant(t) for t in result))


@writes_out("linalg_ldl_factor")
def ldl_factor(A: Tensor, *, hermitian: bool = False):
    """``(LD, pivots)`` of the LDL^T factorization (not differentiable, as in PyTorch)."""
    A = tensor_arg(A, "linalg_ldl_factor", "A")
    result = torch.linalg.ldl_factor(A._data, hermitian=hermitian)
    return torch.return_types.linalg_ldl_factor(tuple(_constant(t) for t in result))


@writes_out("linalg_ldl_solve")
def ldl_solve(LD: Tensor, pivots: Tensor, B: Tensor, *, hermitian: bool = False) -> Tensor:
    """The solution of ``A X = B`` from ``ldl_factor``'s output (not differentiable, as in PyTorch)."""
    unwrap = lambda v: v._data if isinstance(v, Tensor) else v  # noqa: E731
    return _constant(torch.linalg.ldl_solve(unwrap(LD), unwrap(pivots), unwrap(B), hermitian=hermitian))


# ------------------------------------------------------------------ torch.* names
@writes_out("svd", rules_for=_svd_out)
def torch_svd(input: Tensor, some: bool = True, compute_uv: bool = True):
    """``torch.svd``: ``(U, S, V)`` (``V``, not ``Vh``); reduced unless ``some=False``."""
    input = tensor_arg(input, "svd")
    if not compute_uv:
        S = svdvals(input)
        m, n = input.shape[-2], input.shape[-1]
        zeros = torch.zeros((*input.shape[:-2], m, m if not some else min(m, n)), dtype=input.dtype)
        zeros_v = torch.zeros((*input.shape[:-2], n, n if not some else min(m, n)), dtype=input.dtype)
        return torch.return_types.svd((_constant(zeros), S, _constant(zeros_v)))
    U, S, Vh = svd(input, full_matrices=not some)
    return torch.return_types.svd((U, S, Vh.mH))


@writes_out("qr", refuse="linalg_qr")
def torch_qr(input: Tensor, some: bool = True):
    """``torch.qr``: ``linalg.qr`` with ``mode='reduced'`` (``'complete'`` when ``some=False``)."""
    Q, R = qr(input, mode="reduced" if some else "complete")
    return torch.return_types.linalg_qr((Q, R))  # fields Q and R, as torch.qr's result


def triangular_solve(b: Tensor, A: Tensor, upper: bool = True, transpose: bool = False, unitriangular: bool = False):
    """``torch.triangular_solve``: ``(X, A)`` with ``op(A) X = b``, ``op`` the transpose when ``transpose``."""
    b = tensor_arg(b, "triangular_solve")
    A = tensor_arg(A, "triangular_solve", "A", 2)
    torch.triangular_solve(b._data, A._data, upper, transpose, unitriangular)  # torch's checks
    matrix = A.mT if transpose else A
    X = solve_triangular(matrix, b, upper=upper != transpose, unitriangular=unitriangular)
    return torch.return_types.triangular_solve((X, A.clone()))


@writes_out("cholesky", refuse="cholesky")
def torch_cholesky(input: Tensor, upper: bool = False) -> Tensor:
    """``torch.cholesky`` (deprecated in PyTorch for ``linalg.cholesky``)."""
    return cholesky(input, upper=upper)


@writes_out("lu", dtype=any_dtype, warn=False)
def torch_lu(A: Tensor, pivot: bool = True, get_infos: bool = False):
    """``torch.lu``: ``(LU, pivots)``, with ``infos`` when ``get_infos``."""
    LU, pivots, info = lu_factor_ex(A, pivot=pivot)
    return (LU, pivots, info) if get_infos else (LU, pivots)


@writes_out("lu_solve", refuse="linalg_lu_solve")
def torch_lu_solve(b: Tensor, LU_data: Tensor, LU_pivots: Tensor) -> Tensor:
    """``torch.lu_solve(b, LU_data, LU_pivots)``: ``linalg.lu_solve`` with its arguments reordered."""
    return lu_solve(LU_data, LU_pivots, b)


def pinverse(input: Tensor, rcond: float = 1e-15) -> Tensor:
    """``torch.pinverse``: ``linalg.pinv(input, rcond)``, ``rcond`` a float (or a 0-dim tensor that
    does not require grad), the relative tolerance."""
    input = tensor_arg(input, "pinverse")
    value = rcond._data.detach().requires_grad_(rcond.requires_grad) if isinstance(rcond, Tensor) else rcond
    torch.pinverse(_NO_MATRIX, value)  # torch's check of rcond
    return pinv(input, float(value))


def matrix_sqrth(A: Tensor) -> Tensor:
    """The symmetric positive-definite square root of each symmetric positive-definite matrix
    (its lower triangle is read): ``V diag(sqrt(L)) V^T`` from ``eigh``."""
    A = tensor_arg(A, "linalg_matrix_sqrth", "A")
    torch.linalg.matrix_sqrth(A._data[..., :0, :0] if A.dim() >= 2 else A._data)  # torch's checks
    values, vectors = eigh(A)
    return (vectors * values.sqrt().unsqueeze(-2)) @ vectors.mH


@writes_out("linalg_polar", refuse="linalg_polar")
def polar(A: Tensor):
    """``(U, H)`` with ``A = U H``: ``U = W Vh`` (orthonormal columns) and ``H = Vh^T diag(S) Vh``
    (symmetric positive-semidefinite), from the reduced SVD ``A = W diag(S) Vh``."""
    A = tensor_arg(A, "linalg_polar", "A")
    torch.linalg.polar(A._data[..., :0, :0] if A.dim() >= 2 else A._data)  # torch's checks
    W, S, Vh = svd(A, full_matrices=False)
    return torch.return_types.linalg_polar((W @ Vh, (Vh.mH * S.unsqueeze(-2)) @ Vh))


@writes_out("cross", refuse="linalg_cross")
def torch_cross(input: Tensor, other: Tensor, dim: int | None = None) -> Tensor:
    """``torch.cross``: ``linalg.cross`` along ``dim``, by default the first dim of size 3."""
    input = tensor_arg(input, "cross")
    other = tensor_arg(other, "cross", "other", 2)
    if dim is None:
        torch.cross(input._data, other._data)  # torch's checks and deprecation warning
        shape = torch.broadcast_shapes(input.shape, other.shape)
        dim = next(i for i, size in enumerate(shape) if size == 3)
    return cross(input, other, dim=dim)
