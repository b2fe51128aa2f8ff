"""Products built from ``matmul``, ``mm``, ``bmm`` and ``mul``: matrix-vector and rank-1 updates,
tensor contractions, Kronecker and block-diagonal products, combinatorial products.

Each is an exact composition of recorded ops, so its gradients (and theirs, under
``create_graph``) are those of the ops it is made of.
"""

from __future__ import annotations

import itertools

import torch

from ..autograd.tensor import Tensor
from ..autograd.torch_leaves import torch_operand
from .constants import TENSOR_TYPES, not_a_tensor, tensor_arg
from .elementwise import mul
from .linalg import _scaled_sum, bmm, dot, matmul, mm, outer
from .out_arg import same_dtype, writes_out
from .reduce import sum as _sum
from .shape import cat, permute, reshape, stack


def _vector_matrix_check(mat, vec, input_dim: int | None = None) -> None:
    if mat.dim() != 2 or vec.dim() != 1 or (input_dim is not None and input_dim > 1):
        got = f"{input_dim if input_dim is not None else 1}, {mat.dim()}, {vec.dim()}"
        raise RuntimeError(f"vector + matrix @ vector expected, got {got}")


def mv(input: Tensor, vec: Tensor) -> Tensor:
    """The product of a matrix and a vector."""
    input, vec = tensor_arg(input, "mv"), tensor_arg(vec, "mv", "vec", 2)
    _vector_matrix_check(input, vec)
    return matmul(input, vec)


def addmv(input: Tensor, mat: Tensor, vec: Tensor, *, beta=1, alpha=1) -> Tensor:
    """``beta * input + alpha * (mat @ vec)``."""
    input, mat, vec = tensor_arg(input, "addmv"), tensor_arg(mat, "addmv", "mat", 2), tensor_arg(vec, "addmv", "vec", 3)
    _vector_matrix_check(mat, vec, input.dim())
    if mat.shape[1] != vec.shape[0] or (input.numel() != 1 and tuple(input.shape) != (mat.shape[0],)):
        raise RuntimeError(
            f"size mismatch, got input ({input.shape[0] if input.dim() else 1}), "
            f"mat ({mat.shape[0]}x{mat.shape[1]}), vec ({vec.shape[0]})"
        )
    return _scaled_sum(input, matmul(mat, vec), beta, alpha)


def addr(input: Tensor, vec1: Tensor, vec2: Tensor, *, beta=1, alpha=1) -> Tensor:
    """``beta * input + alpha * outer(vec1, vec2)``."""
    input = tensor_arg(input, "addr")
    vec1, vec2 = tensor_arg(vec1, "addr", "vec1", 2), tensor_arg(vec2, "addr", "vec2", 3)
    for name, value in (("vec1", vec1), ("vec2", vec2)):
        if value.dim() != 1:
            raise RuntimeError(f"addr: Expected 1-D argument {name}, but got {value.dim()}-D")
    return _scaled_sum(input, outer(vec1, vec2), beta, alpha)


def addbmm(input: Tensor, batch1: Tensor, batch2: Tensor, *, beta=1, alpha=1) -> Tensor:
    """``beta * input + alpha * sum_b(batch1[b] @ batch2[b])``."""
    input = tensor_arg(input, "addbmm")
    batch1, batch2 = tensor_arg(batch1, "addbmm", "batch1", 2), tensor_arg(batch2, "addbmm", "batch2", 3)
    for name, value in (("batch1", batch1), ("batch2", batch2)):
        if value.dim() != 3:
            raise RuntimeError(f"{name} must be a 3D tensor")
    (b1, n, k1), (b2, k2, m) = batch1.shape, batch2.shape
    if b1 != b2:
        raise RuntimeError(f"batch1 and batch2 must have same number of batches, got {b1} and {b2}")
    if k1 != k2:
        raise RuntimeError(f"Incompatible matrix sizes for bmm ({n}x{k1} and {k2}x{m})")
    return _scaled_sum(input, _sum(bmm(batch1, batch2), 0), beta, alpha)


def vdot(input: Tensor, other: Tensor) -> Tensor:
    """The dot product of two 1-D tensors, ``input`` conjugated (complex tensors, which never require
    grad here: torch's; real tensors: ``dot``)."""
    input, other = tensor_arg(input, "vdot"), tensor_arg(other, "vdot", "other", 2)
    if input.dim() != 1 or other.dim() != 1:
        raise RuntimeError(f"1D tensors expected, but got {input.dim()}D and {other.dim()}D tensors")
    if input.dtype.is_complex or other.dtype.is_complex:
        return Tensor._make(torch.vdot(input._data, other._data), None)
    return dot(input, other)


def inner(input: Tensor, other: Tensor) -> Tensor:
    """The sum of products over the last dimension of each; a 0-dim operand multiplies."""
    input, other = tensor_arg(input, "inner"), tensor_arg(other, "inner", "other", 2)
    if input.dim() == 0 or other.dim() == 0:
        return mul(input, other)
    if input.shape[-1] != other.shape[-1]:
        raise RuntimeError(
            f"inner() the last dimension must match on both input tensors but got shapes "
            f"{list(input.shape)} and {list(other.shape)}"
        )
    return tensordot(input, other, ([-1], [-1]))


@writes_out(
    "tensordot",
    dtype=same_dtype(
        "tensordot: Expected the output tensor to have dtype {expected}, but got an output tensor with dtype {got}"
    ),
)
def tensordot(a: Tensor, b: Tensor, dims=2) -> Tensor:
    """Contract ``dims`` (a count of trailing/leading dims, or two lists) of ``a`` and ``b``."""
    a, b = tensor_arg(a, "tensordot", "a"), tensor_arg(b, "tensordot", "b", 2)
    if isinstance(dims, TENSOR_TYPES):
        dims = dims.tolist()
    if isinstance(dims, int):
        if dims < 0:
            raise RuntimeError(f"tensordot expects dims >= 0, but got dims={dims}")
        dims_a, dims_b = list(range(a.dim() - dims, a.dim())), list(range(dims))
    else:
        dims_a, dims_b = ([d] if isinstance(d, int) else list(d) for d in dims)
    if len(dims_a) != len(dims_b):
        raise RuntimeError("both dimension lists should have same length")
    dims_a = [d % a.dim() for d in dims_a] if a.dim() else dims_a
    dims_b = [d % b.dim() for d in dims_b] if b.dim() else dims_b
    for da, db in zip(dims_a, dims_b):
        if b.shape[db] == 1:  # a broadcast dimension: summed right away, as torch does
            a = _sum(a, da, keepdim=True)
        elif a.shape[da] == 1:
            b = _sum(b, db, keepdim=True)
        elif a.shape[da] != b.shape[db]:
            raise RuntimeError(
                f"contracted dimensions need to match, but first has size {a.shape[da]} in dim {da} "
                f"and second has size {b.shape[db]} in dim {db}"
            )
    free_a = [d for d in range(a.dim()) if d not in dims_a]
    free_b = [d for d in range(b.dim()) if d not in dims_b]
    size = 1
    for d in dims_a:
        size *= a.shape[d]
    left = reshape(permute(a, free_a + dims_a), (-1, size))
    right = reshape(permute(b, dims_b + free_b), (size, -1))
    return reshape(mm(left, right), [a.shape[d] for d in free_a] + [b.shape[d] for d in free_b])


def kron(input: Tensor, other: Tensor) -> Tensor:
    """The Kronecker product: every element of ``input`` times the whole of ``other``."""
    if not isinstance(other, TENSOR_TYPES):
        raise not_a_tensor("kron", other, "other", 2)
    input, other = tensor_arg(input, "kron"), tensor_arg(other, "kron", "other", 2)
    ndim = max(input.dim(), other.dim())
    a_shape = (1,) * (ndim - input.dim()) + tuple(input.shape)
    b_shape = (1,) * (ndim - other.dim()) + tuple(other.shape)
    a = reshape(input, [s for n in a_shape for s in (n, 1)])
    b = reshape(other, [s for n in b_shape for s in (1, n)])
    return reshape(mul(a, b), [m * n for m, n in zip(a_shape, b_shape)])


def block_diag(*tensors) -> Tensor:
    """The tensors (0-, 1- or 2-D) along the diagonal of one matrix, zeros elsewhere."""
    matrices = []
    for i, t in enumerate(_tensor_list(tensors)):
        if t.dim() > 2:
            raise RuntimeError(
                f"torch.block_diag: Input tensors must have 2 or fewer dimensions. Input {i} has {t.dim()} dimensions"
            )
        matrices.append(reshape(t, (1, -1) if t.dim() < 2 else tuple(t.shape)))
    if not matrices:
        return Tensor._make(torch.block_diag(), None)
    dtype = matrices[0].dtype
    for m in matrices[1:]:
        dtype = torch.promote_types(dtype, m.dtype)
    width = sum(m.shape[1] for m in matrices)
    rows, left = [], 0
    for m in matrices:
        m = m if m.dtype == dtype else m.to(dtype)
        pieces = [_zeros((m.shape[0], left), m), m, _zeros((m.shape[0], width - left - m.shape[1]), m)]
        rows.append(cat(pieces, 1))
        left += m.shape[1]
    return cat(rows, 0)


def _tensor_list(tensors: tuple) -> list[Tensor]:
    """The tensors of a ``*tensors`` argument as mt.Tensors, or PyTorch's TypeError naming the first that is not."""
    for i, t in enumerate(tensors):
        if not isinstance(t, TENSOR_TYPES):
            raise TypeError(f"expected Tensor as element {i} in argument 0, but got {type(t).__name__}")
    return [t if isinstance(t, Tensor) else torch_operand(t) for t in tensors]


def _zeros(shape: tuple, like: Tensor) -> Tensor:
    return Tensor._make(torch.zeros(shape, dtype=like.dtype, device=like.device), None)


def cartesian_prod(*tensors) -> Tensor:
    """Every combination of one element from each 1-D tensor, as rows."""
    from ..creation import meshgrid

    tensors = _tensor_list(tensors)
    for t in tensors:
        if t.dim() != 1:
            raise RuntimeError(f"Expect a 1D vector, but got shape {list(t.shape)}")
    if len(tensors) == 1:
        return tensors[0]
    grids = meshgrid(*tensors, indexing="ij")
    return stack([reshape(g, (-1,)) for g in grids], 1)


def combinations(input: Tensor, r: int = 2, with_replacement: bool = False) -> Tensor:
    """The length-``r`` combinations of a 1-D tensor's elements, as rows (``itertools`` order)."""
    input = tensor_arg(input, "combinations")
    if input.dim() != 1:
        raise RuntimeError(f"Expect a 1D vector, but got shape {list(input.shape)}")
    if r < 0:
        raise RuntimeError(f"Expect a non-negative number, but got {r}")
    if r == 0:
        return Tensor._make(input._data.new_empty(0), None)
    pick = itertools.combinations_with_replacement if with_replacement else itertools.combinations
    rows = list(pick(range(input.shape[0]), r))
    return input[torch.tensor(rows, dtype=torch.long, device=input.device).reshape(-1, r)]
