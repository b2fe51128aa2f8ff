"""Matrix products (``matmul`` covers 1-D, 2-D, batched and broadcast batch dims), einsum and norms."""

from __future__ import annotations

import math

import torch

from ..autograd.function import Function
from ..autograd.tensor import Tensor, is_torch_data
from .autocast import state as autocast_state
from .autocast import to_autocast_dtype, to_float32_on_gpu
from .constants import TENSOR_TYPES, dtype_name, not_a_tensor, tensor_arg
from .dims import normalize_dim, normalize_dims
from .elementwise import abs as _abs
from .elementwise import add, mul, where
from .linalg_spectral import svdvals
from .reduce import _expand_back, amax, amin
from .reduce import sum as _sum
from .shape import expand, unsqueeze


class MatMul(Function):
    @staticmethod
    def forward(ctx, a, b):
        need_a, need_b = ctx.needs_input_grad
        ctx.save_for_backward(a if need_b else None, b if need_a else None)
        ctx.shapes = (a.shape, b.shape)
        return torch.matmul(a, b)

    @staticmethod
    def backward(ctx, grad):
        a, b = ctx.saved_tensors
        shape_a, shape_b = ctx.shapes
        # A 1-D operand acts as a row (left) or a column (right) vector, as in the forward.
        matrix_a = (1, shape_a[0]) if len(shape_a) == 1 else shape_a
        matrix_b = (shape_b[0], 1) if len(shape_b) == 1 else shape_b
        if len(shape_b) == 1:  # first: 1-D @ 1-D has a 0-dim grad, which becomes [1] here
            grad = grad.unsqueeze(-1)
        if len(shape_a) == 1:
            grad = grad.unsqueeze(-2)
        grad_a = grad_b = None
        if b is not None:
            grad_a = (grad @ b.reshape(matrix_b).mT).sum_to_size(matrix_a).reshape(shape_a)
        if a is not None:
            a = a.reshape(matrix_a)
            if len(matrix_b) == 2 and a.dim() > 2:
                # Fold the batch into one 2-D product instead of a batched one and a sum.
                grad_b = a.flatten(0, -2).mT @ grad.flatten(0, -2)  # flatten: no -1, which size 0 makes ambiguous
            else:
                grad_b = (a.mT @ grad).sum_to_size(matrix_b)
            grad_b = grad_b.reshape(shape_b)
        return grad_a, grad_b


class Dot(Function):
    @staticmethod
    def forward(ctx, a, b):
        need_a, need_b = ctx.needs_input_grad
        ctx.save_for_backward(b if need_a else None, a if need_b else None)
        return torch.dot(a, b)

    @staticmethod
    def backward(ctx, grad):
        b, a = ctx.saved_tensors
        return (None if b is None else grad * b), (None if a is None else grad * a)


def matmul(input: Tensor, other: Tensor) -> Tensor:
    input = tensor_arg(input, "matmul")
    other = tensor_arg(other, "matmul", "other", 2)
    a_dim, b_dim = input._data.dim(), other._data.dim()
    if a_dim == 0 or b_dim == 0:
        raise RuntimeError(f"both arguments to matmul need to be at least 1D, but they are {a_dim}D and {b_dim}D")
    if autocast_state.active:
        input, other = to_autocast_dtype(input, other)
    return _MATMUL_NODES.get((a_dim, b_dim), MatMul).apply(input, other)


# The node PyTorch's matmul records for these ranks (it folds other ranks into mm or bmm and views).
_MATMUL_NODES = {
    (1, 1): MatMul.overload("DotBackward0"),
    (2, 1): MatMul.overload("MvBackward0"),
    (2, 2): MatMul.overload("MmBackward0"),
}


def dot(input: Tensor, other: Tensor) -> Tensor:
    return Dot.apply(input, other)


class Mm(Function):
    """``torch.mm`` (2-D by 2-D; torch checks the shapes), and the base of ``Bmm``."""

    kernel = torch.mm

    @classmethod
    def forward(cls, ctx, a, b):
        need_a, need_b = ctx.needs_input_grad
        ctx.save_for_backward(a if need_b else None, b if need_a else None)
        return cls.kernel(a, b)

    @staticmethod
    def backward(ctx, grad):
        a, b = ctx.saved_tensors
        grad_a = grad @ b.transpose(-2, -1) if b is not None else None
        grad_b = a.transpose(-2, -1) @ grad if a is not None else None
        return grad_a, grad_b


class Bmm(Mm):
    kernel = torch.bmm


class Einsum(Function):
    """``torch.einsum``. The gradient of an operand is an einsum of the output's gradient and the
    other operands, with ones for the labels only that operand has (summed in the forward) and
    identity matrices for its repeated labels (diagonals)."""

    @staticmethod
    def forward(ctx, equation, *operands):
        ctx.save_for_backward(*operands)
        ctx.equation = equation
        return torch.einsum(equation, *operands)

    @staticmethod
    def backward(ctx, grad):
        operands = ctx.saved_tensors
        terms, output, fresh = _explicit_terms(ctx.equation, [o.shape for o in operands])
        run = torch.einsum if is_torch_data(grad) else einsum
        grads = [None]
        for i, needed in enumerate(ctx.needs_input_grad[1:]):
            if not needed:
                grads.append(None)
                continue
            others = [(t, o) for j, (t, o) in enumerate(zip(terms, operands)) if j != i]
            equation, extras = _gradient_equation(terms[i], operands[i].shape, output, others, fresh, grad)
            inputs = [grad, *(o for _, o in others), *extras]
            grads.append(run(equation, *inputs))
        return tuple(grads)


def _explicit_terms(equation: str, shapes: list) -> tuple[list[str], str, list[str]]:
    """``equation`` with its ellipses spelled out as letters and its output made explicit:
    the operands' terms, the output's term, and letters still unused."""
    lhs, arrow, rhs = equation.replace(" ", "").partition("->")
    terms = lhs.split(",")
    unused = [c for c in _LETTERS if c not in equation]
    widths = [len(shape) - (len(term) - 3) for term, shape in zip(terms, shapes) if "..." in term]
    ellipsis_width = max(widths, default=0)
    ellipsis = "".join(unused[:ellipsis_width])
    unused = unused[ellipsis_width:]
    explicit = []
    for term, shape in zip(terms, shapes):
        if "..." in term:
            width = len(shape) - (len(term) - 3)
            term = term.replace("...", ellipsis[ellipsis_width - width :])
        explicit.append(term)
    if arrow:
        output = rhs.replace("...", ellipsis)
    else:
        named = "".join(terms).replace("...", "")
        output = ellipsis + "".join(sorted(c for c in set(named) if named.count(c) == 1))
    return explicit, output, unused


def _gradient_equation(term: str, shape, output: str, others: list, fresh: list[str], like) -> tuple[str, list]:
    """The einsum equation of one operand's gradient, and the constant operands it needs."""
    sizes = {}  # each label's size after broadcasting (a size-1 dim takes the other's size, 0 included)
    for each_term, each_shape in [*((t, o.shape) for t, o in others), (term, shape)]:
        for label, size in zip(each_term, each_shape):
            if sizes.get(label, 1) == 1:
                sizes[label] = size
    fresh = iter(fresh)
    reached = set(output).union(*(t for t, _ in others))
    result, extra_terms, extras, seen = [], [], [], set()
    options = {"dtype": like.dtype, "device": like.device}
    for label, size in zip(term, shape):
        if label in seen:  # a repeated label: the gradient lies on the diagonal
            new = next(fresh)
            extra_terms.append(label + new)
            extras.append(torch.eye(sizes[label], **options))
            reached.add(label)
        elif size == 1 and sizes[label] != 1:  # broadcast in the forward: summed in the gradient
            new = next(fresh)
            extra_terms.append(new)
            extras.append(torch.ones(1, **options))
        else:
            new = label
            seen.add(label)
        result.append(new)
    for label in seen - reached:  # summed over in the forward: the gradient is the same along it
        extra_terms.append(label)
        extras.append(torch.ones(sizes[label], **options))
    inputs = ",".join([output, *(t for t, _ in others), *extra_terms])
    return f"{inputs}->{''.join(result)}", extras


_LETTERS = [chr(c) for c in range(ord("A"), ord("Z") + 1)] + [chr(c) for c in range(ord("a"), ord("z") + 1)]


def mm(input: Tensor, mat2: Tensor) -> Tensor:
    """The matrix product of two 2-D tensors (no broadcasting; see ``matmul``)."""
    input = tensor_arg(input, "mm")
    mat2 = tensor_arg(mat2, "mm", "mat2", 2)
    return Mm.apply(input, mat2)


def bmm(input: Tensor, mat2: Tensor) -> Tensor:
    """Batched matrix products of two 3-D tensors with the same batch size (no broadcasting)."""
    input = tensor_arg(input, "bmm")
    mat2 = tensor_arg(mat2, "bmm", "mat2", 2)
    a, b = input.shape, mat2.shape
    if len(a) != 3:
        raise RuntimeError("batch1 must be a 3D tensor")
    if len(b) != 3:
        raise RuntimeError("batch2 must be a 3D tensor")
    if b[0] != a[0] or b[1] != a[2]:
        raise RuntimeError(
            f"Expected size for first two dimensions of batch2 tensor to be: [{a[0]}, {a[2]}] "
            f"but got: [{b[0]}, {b[1]}]."
        )
    if input.dtype != mat2.dtype:
        raise RuntimeError(f"expected scalar type {dtype_name(input.dtype)} but found {dtype_name(mat2.dtype)}")
    return Bmm.apply(input, mat2)


def einsum(equation: str, *operands) -> Tensor:
    """Einstein summation, as ``torch.einsum`` (ellipses, implicit outputs, diagonals, broadcasting),
    differentiable in every operand.

    >>> import minitorch_rx as mt
    >>> mt.einsum("ij,j->i", mt.ones(2, 3), mt.ones(3)).tolist()
    [3.0, 3.0]
    """
    if not isinstance(equation, str):
        raise TypeError(f"einsum(): argument 'equation' (position 1) must be str, not {type(equation).__name__}")
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = tuple(operands[0])
    for i, operand in enumerate(operands):
        if not isinstance(operand, TENSOR_TYPES):
            raise TypeError(f"einsum(): operand {i} must be a Tensor, not {type(operand).__name__}")
    return Einsum.apply(equation, *operands)


def outer(input: Tensor, vec2: Tensor) -> Tensor:
    """The outer product of two 1-D tensors."""
    for name, value, position in (("self", input, 1), ("vec2", vec2, 2)):
        if not isinstance(value, TENSOR_TYPES):
            raise not_a_tensor("outer", value, "input" if position == 1 else "vec2", position)
        if value.dim() != 1:
            raise RuntimeError(f"outer: Expected 1-D argument {name}, but got {value.dim()}-D")
    return mul(unsqueeze(input, 1), unsqueeze(vec2, 0))


def _scaled_sum(input, product: Tensor, beta, alpha) -> Tensor:
    """``beta * input + alpha * product``; ``input`` is ignored when ``beta`` is 0, as PyTorch's."""
    input = expand(input, product.shape)  # torch's error for an input that does not broadcast
    if alpha != 1:
        product = mul(product, alpha)
    if beta == 0:  # input's values are ignored (a NaN does not spread); its gradient is zero
        return add(product, where(_FALSE, input, 0.0))
    return add(product, input if beta == 1 else mul(input, beta))


_FALSE = torch.tensor(False)


def addmm(input: Tensor, mat1: Tensor, mat2: Tensor, *, beta=1, alpha=1) -> Tensor:
    """``beta * input + alpha * (mat1 @ mat2)``, ``input`` broadcast to the product's shape."""
    input = tensor_arg(input, "addmm")
    return _scaled_sum(input, mm(mat1, mat2), beta, alpha)


def baddbmm(input: Tensor, batch1: Tensor, batch2: Tensor, *, beta=1, alpha=1) -> Tensor:
    """``beta * input + alpha * bmm(batch1, batch2)``, ``input`` broadcast to the product's shape."""
    input = tensor_arg(input, "baddbmm")
    return _scaled_sum(input, bmm(batch1, batch2), beta, alpha)


class VectorNorm(Function):
    """``torch.linalg.vector_norm``: the ``ord``-norm over ``dims`` (all when ``None``)."""

    _node_name = "LinalgVectorNormBackward0"  # PyTorch's name for this node

    @staticmethod
    def forward(ctx, x, ord, dims, keepdim, dtype):
        y = torch.linalg.vector_norm(x, ord, dims, keepdim, dtype=dtype)
        ctx.save_for_backward(x, y)
        ctx.meta = (ord, dims, keepdim)
        return y

    @staticmethod
    def backward(ctx, grad):
        x, y = ctx.saved_tensors
        ord, dims, keepdim = ctx.meta
        input_dtype = x.dtype
        if x.dtype != y.dtype:
            x = x.to(y.dtype)
        grad = _expand_back(grad, x.shape, dims, keepdim)
        norm = _expand_back(y, x.shape, dims, keepdim)
        if ord == 0:
            grad_x = grad.new_zeros(x.shape)
        elif ord == 1:
            grad_x = grad * x.sign()
        elif ord == 2:  # a zero norm: all of x is 0, so is the gradient (its derivative NaN, as torch's)
            grad_x = grad * (x / norm).where(norm != 0, 0.0)
        elif math.isinf(ord):  # split evenly among the elements whose magnitude is the norm
            mask = x.abs() == norm
            count = mask.sum(dims if dims is not None else tuple(range(x.dim())), keepdim=True)
            grad_x = grad * x.sign() * mask / count
        elif ord < 1:
            scaled = x.sign() * x.abs().pow(ord - 1).where(x != 0, 0.0)
            grad_x = scaled * grad * norm.pow(1 - ord)
        else:
            scale = (grad / norm.pow(ord - 1)).where(norm != 0, 0.0)
            grad_x = (x * x.abs().pow(ord - 2) if ord >= 2 else x.sign() * x.abs().pow(ord - 1)) * scale
        return grad_x.to(input_dtype), None, None, None, None


def vector_norm(x: Tensor, ord=2, dim=None, keepdim: bool = False, *, dtype: torch.dtype | None = None) -> Tensor:
    """The ``ord``-norm of ``x`` as a vector over ``dim`` (all dims by default): ``ord`` any real
    number or ``inf``/``-inf``; PyTorch's gradients, zero where the norm is 0."""
    x = tensor_arg(x, "linalg_vector_norm", "self")
    if autocast_state.active and dtype is None:
        (x,) = to_float32_on_gpu(x)
    if isinstance(ord, str) or not isinstance(ord, (int, float)):
        raise TypeError(f"linalg.vector_norm: ord must be a number, got {ord!r}")
    return VectorNorm.apply(x, ord, normalize_dims(dim, x.dim()), keepdim, dtype)


def matrix_norm(A: Tensor, ord="fro", dim=(-2, -1), keepdim: bool = False, *, dtype: torch.dtype | None = None):
    """The ``ord``-norm of the matrices over ``dim`` (rows along ``dim[0]``, columns along
    ``dim[1]``): ``'fro'``, ``1``, ``-1``, ``inf`` or ``-inf`` (composed from abs, sum and
    amax/amin), ``'nuc'``, ``2`` or ``-2`` (from the singular values, ``linalg.svdvals``)."""
    A = tensor_arg(A, "linalg_matrix_norm", "self")
    if A.dim() < 2:
        raise RuntimeError(f"linalg.matrix_norm: The input tensor A must have at least 2 dimensions, got {A.dim()}")
    if not isinstance(dim, (tuple, list)) or len(dim) != 2:
        raise RuntimeError(f"linalg.matrix_norm: dim must be a 2-tuple. Got {dim}")
    normalize_dims(dim, A.dim())  # range and repetition checks
    dims = tuple(d % A.dim() for d in dim)
    if dtype is not None:
        A = A.to(dtype)
    if ord == "fro":
        return vector_norm(A, 2, dims, keepdim)
    if ord in ("nuc", 2, -2):
        values = svdvals(A.movedim(dims, (-2, -1)))
        out = values.sum(-1) if ord == "nuc" else (amax if ord == 2 else amin)(values, -1)
        if keepdim:
            for d in sorted(dims):
                out = out.unsqueeze(d)
        return out
    if ord not in (1, -1, math.inf, -math.inf):
        raise RuntimeError(f"linalg.matrix_norm: Order {ord} not supported.")
    rows, cols = (dims[0], dims[1]) if abs(ord) == 1 else (dims[1], dims[0])  # 1: max column sum
    sums = _sum(_abs(A), rows, keepdim=True)
    out = (amax if ord > 0 else amin)(sums, cols, keepdim=True)
    if keepdim:
        return out
    for d in sorted(dims, reverse=True):
        out = out.squeeze(d)
    return out


def norm(input: Tensor, p="fro", dim=None, keepdim: bool = False, dtype: torch.dtype | None = None) -> Tensor:
    """As ``torch.norm``: ``p='fro'`` (the 2-norm over ``dim``, all dims by default), a number, or
    ``inf``; ``'nuc'`` over 2 dims is a matrix norm (see ``matrix_norm``)."""
    input = tensor_arg(input, "norm")
    if isinstance(dim, int):
        dim = (dim,)
    if p == "nuc":
        return matrix_norm(input, "nuc", (-2, -1) if dim is None else dim, keepdim, dtype=dtype)
    if p == "fro" or p is None:
        if dim is not None and len(dim) > 2:
            raise RuntimeError(f"linalg.matrix_norm: dim must be a 2-tuple. Got {', '.join(map(str, dim))}")
        p = 2
    if isinstance(p, str):
        raise RuntimeError(f"norm(): unsupported p={p!r}; use 'fro', 'nuc' or a number")
    return vector_norm(input, p, dim, keepdim, dtype=dtype)


def norm_except_dim(v: Tensor, pow: float = 2, dim: int = 0) -> Tensor:
    """As ``torch.norm_except_dim``: the ``pow``-norm over every dim but ``dim``, kept as size-1
    dims (``dim=-1``: the norm of the whole tensor); what ``torch.nn.utils.weight_norm`` divides by."""
    v = tensor_arg(v, "norm_except_dim")
    if dim == -1:
        return vector_norm(v, pow)
    dim = normalize_dim(dim, v.dim())
    others = tuple(d for d in range(v.dim()) if d != dim)
    return vector_norm(v, pow, others, keepdim=True) if others else v.abs()


def _weight_norm(v: Tensor, g: Tensor, dim: int = 0) -> Tensor:
    """As ``torch._weight_norm``: ``v * (g / norm_except_dim(v, 2, dim))``."""
    return v * (g / norm_except_dim(v, 2, dim))


def cdist(x1: Tensor, x2: Tensor, p: float = 2.0, compute_mode: str | None = None) -> Tensor:
    """The ``p``-norm distance between each row of ``x1`` ``[*, P, M]`` and each of ``x2``
    ``[*, R, M]``: ``[*, P, R]``. Composed from a broadcast difference and ``vector_norm``
    (memory ``P * R * M`` per batch); ``compute_mode`` is accepted and ignored."""
    for name, value, position in (("x1", x1, 1), ("x2", x2, 2)):
        if not isinstance(value, TENSOR_TYPES):
            raise not_a_tensor("cdist", value, name, position)
        if value.dim() < 2:
            raise RuntimeError(f"cdist only supports at least 2D tensors, {name.upper()} got: {value.dim()}D")
        if not value.dtype.is_floating_point:
            raise RuntimeError(
                f"cdist only supports floating-point dtypes, {name.upper()} got: {dtype_name(value.dtype)}"
            )
    if x1.shape[-1] != x2.shape[-1]:
        raise RuntimeError(f"X1 and X2 must have the same number of columns. X1: {x1.shape[-1]} X2: {x2.shape[-1]}")
    if x1.dtype != x2.dtype:
        raise RuntimeError(f"expected scalar type {dtype_name(x1.dtype)} but found {dtype_name(x2.dtype)}")
    if p < 0:
        raise RuntimeError(f"cdist only supports non-negative p values, got {p}")
    difference = unsqueeze(x1, -2) - unsqueeze(x2, -3)
    return vector_norm(difference, p, -1)
