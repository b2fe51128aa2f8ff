"""``linear``: ``input @ weight.T + bias`` as one fused op.

Leading batch dims are folded into one 2-D product (``addmm``/``mm``): a 2-D by 3-D
``torch.matmul`` is a decomposition whose backward copies heavily (see shared/DESIGN.md).
"""

from __future__ import annotations

import math

import torch

from ..autograd.function import Function
from ..autograd.tensor import OURS, Tensor
from ..backends import tuner
from .autocast import state as autocast_state
from .autocast import to_autocast_dtype
from .constants import tensor_arg
from .shape import squeeze, unsqueeze


def _onednn_linear():
    """torch's oneDNN linear kernel (``x @ w.t() + b``), where this torch build has it."""
    try:
        if torch.backends.mkldnn.is_available():
            return torch.ops.mkldnn._linear_pointwise
    except (AttributeError, RuntimeError):
        pass
    return None


#: Products of float32 CPU matrices go through oneDNN's kernel where it exists (``None`` turns
#: that off: every product is then ``addmm``/``mm``). On this project's AMD EPYC machine (torch CPU
#: capability AVX512) MKL's ``addmm``, which torch.nn.Linear calls, ran these shapes at about half
#: oneDNN's speed: (64, 784) x (784, 128) 129 vs 76 us, (768, 128) x (128, 512) 1014 vs 550 us,
#: (32, 256) x (256, 1024) 175 vs 111 us, with equal results (transposed operands too, as the
#: backward products pass them). oneDNN costs about 10 us per call, so small products keep
#: ``mm``: (8, 16) x (16, 32) 1.3 vs 11.3 us, (1, 256) x (256, 256) 3.5 vs 13.9, (64, 128) x (128, 10)
#: 2.9 vs 13.4; hence ``ONEDNN_FROM`` multiply-adds. With 2-4 rows or output columns MKL won again
#: ((1024, 1024) x (1024, 4) 178 vs 258 us, (2, 4096) x (4096, 256) 118 vs 140), from 6 oneDNN did
#: (a convolution's (6, 25) x (25, 17248) 103 vs 64 us, (4096, 784) x (784, 10) 2271 vs 571):
#: hence at least ``ONEDNN_MIN_SIDE`` rows, inner and output columns.
#: The threshold is 2^22, not the 2^20 where oneDNN starts to win on time, for memory: oneDNN's
#: first product in a process pages in about 4-6 MiB of its code and makes 2.5 MiB of JIT kernels
#: and caches, and each product shape keeps another 0.6 MiB of primitive cache (measured through
#: RSS and mallinfo). LeNet-5's fully connected products (2.9M multiply-adds: 44 vs 66 us each)
#: saved nothing measurable in its step (0.97x the CPU time with them on MKL, 15 interleaved
#: rounds) but raised the step's peak RSS from 22.9 to 29.6 MiB (torch.nn's: 28-29 MiB).
ONEDNN = _onednn_linear()
ONEDNN_FROM = 1 << 22
ONEDNN_MIN_SIDE = 6
#: ``product``'s kernels, as ``backends.tuner`` names them.
PRODUCT_KERNELS = ("onednn", "mkl")


def onednn_eligible(a: torch.Tensor, b: torch.Tensor, bias: torch.Tensor | None = None) -> bool:
    """Whether oneDNN may run ``product(a, b, bias)``: float32 CPU torch data, dense ``b`` and a
    product of at least ``ONEDNN_FROM`` multiply-adds and ``ONEDNN_MIN_SIDE`` on each side.
    (Checked on every large product: no views made, no device object, 0.5 us.)"""
    rows, inner = a.shape
    columns = b.shape[1]
    return (
        rows * inner * columns >= ONEDNN_FROM
        and ONEDNN is not None
        and rows >= ONEDNN_MIN_SIDE
        and inner >= ONEDNN_MIN_SIDE
        and columns >= ONEDNN_MIN_SIDE
        and type(a) is torch.Tensor
        and type(b) is torch.Tensor
        and a.dtype is torch.float32
        and b.dtype is torch.float32
        and a.is_cpu
        and (bias is None or (type(bias) is torch.Tensor and bias.dtype is torch.float32))
        and _dense(b)
    )


def _dense(m: torch.Tensor) -> bool:
    """Whether matrix ``m`` is contiguous or the transpose of a contiguous one (its sides are at
    least ``ONEDNN_MIN_SIDE``, so no stride is of a dim of size 1)."""
    row_stride, column_stride = m.stride()
    rows, columns = m.shape
    return (column_stride == 1 and row_stride == columns) or (row_stride == 1 and column_stride == rows)


def _product(kernel: str, a: torch.Tensor, b: torch.Tensor, bias: torch.Tensor | None) -> torch.Tensor:
    if kernel == "onednn":
        return ONEDNN(a, b.t(), bias, "none", [], "")  # oneDNN takes the (out, in) weight
    return torch.mm(a, b) if bias is None else torch.addmm(bias, a, b)


def product(a: torch.Tensor, b: torch.Tensor, bias: torch.Tensor | None = None) -> torch.Tensor:
    """``a @ b (+ bias)`` of 2-D torch data, by oneDNN or MKL's ``addmm``/``mm``; ``a`` and ``b``
    may be transposed views (a linear layer passes ``weight.t()``: the operands are taken as
    given, so that no caller transposes twice, at 1-1.5 us a view). mt.Tensors (create_graph)
    take ``mm``, recorded.

    Where ``onednn_eligible``, oneDNN by the fixed rule, or under ``mt.backends.autotune``
    whichever of the two ran these shapes faster on this machine (``backends.tuner``). ``b`` goes
    to oneDNN only when dense (contiguous, or the transpose of a contiguous matrix): with rows
    padded apart, as a column slice of a wider matrix, oneDNN's kernel took 1.4 s for a
    (256, 512) x (512, 512) product that ``mm`` does in 1 ms (a reference fallback)."""
    if not onednn_eligible(a, b, bias):
        return torch.mm(a, b) if bias is None else torch.addmm(bias, a, b)
    if not tuner.enabled:
        return _product("onednn", a, b, bias)
    key = (*a.shape, b.shape[1], a.is_contiguous(), b.is_contiguous(), bias is not None)
    kernel = tuner.decided("product", key)
    if kernel is None:  # (the common case skips ``tuner.choose``'s closure and calls)
        kernel = tuner.choose("product", key, PRODUCT_KERNELS, "onednn", lambda kernel: _product(kernel, a, b, bias))
    return _product(kernel, a, b, bias)


def _rows(t):
    """``t`` (*, n) as the (rows, n) matrix a product takes: ``t`` itself when 2-D (most calls:
    no reshape), else a reshape folding the leading dims. torch data or, under create_graph,
    mt.Tensors alike."""
    return t if t.dim() == 2 else t.reshape(math.prod(t.shape[:-1]), t.shape[-1])


class Linear(Function):
    """Batch dims are folded for one product, and 2-D inputs (most calls) skip the reshapes:
    a reshape and a view cost 3-9 us beside an MLP's 170 us product, more than alone."""

    _node_slots = ("shapes",)  # (a slot: no ``__dict__`` per node)

    @staticmethod
    def forward(ctx, x, weight, bias):
        need_x, need_weight, _ = ctx.needs_input_grad
        rows = _rows(x)
        ctx.save_for_backward(x if need_weight else None, weight if need_x else None)
        ctx.shapes = (x.shape, None if bias is None else bias.shape)
        out = product(rows, weight.t(), bias)
        return out if rows is x else out.view(*x.shape[:-1], weight.shape[0])

    @staticmethod
    def backward(ctx, grad):
        x, weight = ctx.saved_tensors
        x_shape, bias_shape = ctx.shapes
        grad_rows = _rows(grad)
        grad_x = grad_weight = grad_bias = None
        if weight is not None:
            grad_x = product(grad_rows, weight)
            if grad_rows is not grad:
                grad_x = grad_x.view(x_shape)
        if x is not None:
            grad_weight = product(grad_rows.t(), _rows(x))
        if ctx.needs_input_grad[2]:
            grad_bias = grad_rows.sum(0)
            if grad_bias.shape != bias_shape:
                grad_bias = grad_bias.sum_to_size(bias_shape)
        return grad_x, grad_weight, grad_bias


class GELULinear(Function):
    """``linear(gelu(h), weight, bias)`` as one node that keeps ``h`` alone: a GELU node and a
    Linear node keep both ``h`` (GELU's input) and ``gelu(h)`` (Linear's), two buffers of the
    hidden size; backward recomputes ``gelu(h)`` for the weight's gradient instead. In the baby
    GPT's feed-forward blocks (768 tokens x 512) that is 1.5 MiB a layer less for a training step
    to hold, for one GELU more per layer in backward. Gradients as ``GELU`` and ``Linear`` give
    them, also under ``create_graph`` (recorded ops)."""

    @staticmethod
    def forward(ctx, h, weight, bias, approximate):
        a = torch.nn.functional.gelu(h, approximate=approximate)
        rows = _rows(a)
        ctx.save_for_backward(h, weight)
        ctx.approximate = approximate
        out = product(rows, weight.t(), bias)
        return out if rows is a else out.view(*h.shape[:-1], weight.shape[0])

    @staticmethod
    def backward(ctx, grad):
        h, weight = ctx.saved_tensors
        need_h, need_weight, need_bias = ctx.needs_input_grad[:3]
        grad_rows = _rows(grad)
        grad_h = grad_weight = grad_bias = None
        if need_weight:
            if isinstance(h, Tensor):  # create_graph: recorded
                from .activation import gelu

                a = gelu(h, ctx.approximate)
            else:
                a = torch.nn.functional.gelu(h, approximate=ctx.approximate)
            grad_weight = product(grad_rows.t(), _rows(a))
            a = None
        if need_h:
            grad_a = product(grad_rows, weight).reshape(h.shape)
            if isinstance(grad_a, Tensor):  # create_graph: recorded
                grad_h = torch.ops.aten.gelu_backward(grad_a, h, approximate=ctx.approximate)
            else:  # in grad_a's buffer: one (tokens, hidden) buffer less where a step's memory peaks
                grad_h = torch.ops.aten.gelu_backward.grad_input(
                    grad_a, h, approximate=ctx.approximate, grad_input=grad_a
                )
        if need_bias:
            grad_bias = grad_rows.sum(0)
        return grad_h, grad_weight, grad_bias, None


def gelu_linear(input: Tensor, weight: Tensor, bias: Tensor | None = None, approximate: str = "none") -> Tensor:
    """``linear(gelu(input, approximate), weight, bias)`` as one node keeping ``input`` alone
    (``GELULinear``); ``input`` ``(*, in_features)``, ``weight`` ``(out_features, in_features)``.
    For modules that compose the two (``nn.TransformerEncoderLayer``'s feed-forward block); a
    float32/float64 path without autocast (callers check)."""
    return GELULinear.apply(input, weight, bias, approximate)


def linear(input: Tensor, weight: Tensor, bias: Tensor | None = None) -> Tensor:
    """``input @ weight.T + bias`` for ``input`` of shape ``(*, in_features)``.

    ``weight`` is ``(out_features, in_features)`` (or ``(in_features,)``, giving an output without
    the feature dim), ``bias`` is ``(out_features,)`` or broadcastable to it. The output is
    ``(*, out_features)``. Raises ``RuntimeError`` when the feature sizes differ, in PyTorch's
    words: ``mat1 and mat2 shapes cannot be multiplied (3x4 and 5x6)``.

    >>> import minitorch_rx as mt
    >>> linear(mt.ones(2, 3), mt.ones(4, 3), mt.zeros(4)).shape
    torch.Size([2, 4])
    """
    if (  # the common call (an nn.Linear's, Parameters): straight to the op, every check below passes
        type(input) in OURS  # isinstance(input, Tensor), see OURS
        and type(weight) in OURS
        and (bias is None or type(bias) in OURS)
        and not autocast_state.active
        and weight._data.dim() == 2
        and input._data.dim() > 0
        and input._data.shape[-1] == weight._data.shape[1]
    ):
        return Linear.apply(input, weight, bias)
    input = tensor_arg(input, "linear")
    weight = tensor_arg(weight, "linear", "weight", 2)
    bias = tensor_arg(bias, "linear", "bias", 3, optional=True)
    x_dims, w_dims = input._data.dim(), weight._data.dim()
    if x_dims == 0 or w_dims == 0:
        raise RuntimeError(f"both arguments to linear need to be at least 1D, but they are {x_dims}D and {w_dims}D")
    if w_dims > 2:
        raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is {w_dims}D")
    if w_dims == 1:
        if bias is not None:
            raise RuntimeError("mat2 must be a matrix, got 1-D tensor")
        return squeeze(linear(input, unsqueeze(weight, 0)), -1)
    in_features = input._data.shape[-1]
    if in_features != weight._data.shape[1]:
        rows = math.prod(input._data.shape[:-1])
        out_features, weight_in = weight._data.shape
        raise RuntimeError(
            f"mat1 and mat2 shapes cannot be multiplied ({rows}x{in_features} and {weight_in}x{out_features})"
        )
    if autocast_state.active:
        input, weight, bias = to_autocast_dtype(input, weight, bias)
    return Linear.apply(input, weight, bias)


def bilinear(input1: Tensor, input2: Tensor, weight: Tensor, bias: Tensor | None = None) -> Tensor:
    """``y[..., o] = sum_ij input1[..., i] * weight[o, i, j] * input2[..., j] + bias[o]``.

    ``input1`` ``(*, in1)`` and ``input2`` ``(*, in2)`` share their leading dims; ``weight`` is
    ``(out, in1, in2)``. Composed of a matmul, a product and a sum, so every input (weight and
    bias included) gets its gradient. PyTorch's checks and wording.

    >>> import minitorch_rx as mt
    >>> bilinear(mt.ones(2, 3), mt.ones(2, 4), mt.ones(5, 3, 4)).shape
    torch.Size([2, 5])
    """
    input1, input2, weight = (
        tensor_arg(value, "bilinear", name, position)
        for position, (name, value) in enumerate((("input1", input1), ("input2", input2), ("weight", weight)), 1)
    )
    bias = tensor_arg(bias, "bilinear", "bias", 4, optional=True)
    dims1, dims2 = input1._data.dim(), input2._data.dim()
    if dims1 != dims2:
        raise RuntimeError(f"bilinear(): input dimensions do not match: got {dims1} and {dims2}")
    shape1, shape2, weight_shape = input1._data.shape, input2._data.shape, weight._data.shape
    for a, b in zip(shape1[:-1], shape2[:-1], strict=True):
        if a != b:
            raise RuntimeError(f"bilinear(): input batch dimensions do not match: got {a} and {b}")
    if weight._data.dim() != 3:
        raise RuntimeError(f"bilinear(): weight must be three-dimensional, got {weight._data.dim()}-D")
    if shape1[-1] != weight_shape[1]:
        raise RuntimeError(
            f"bilinear(): input1 size does not match weight size: got {shape1[-1]} but expected {weight_shape[1]}"
        )
    if shape2[-1] != weight_shape[2]:
        raise RuntimeError(
            f"bilinear(): input2 size does not match weight size: got {shape2[-1]} but expected {weight_shape[2]}"
        )
    if bias is not None and bias.shape[0] != weight_shape[0]:
        raise RuntimeError(
            f"bilinear(): bias size does not match weight size: got {bias.shape[0]} but expected {weight_shape[0]}"
        )
    out_features, in1, in2 = weight_shape
    rows1, rows2 = input1.reshape(-1, in1), input2.reshape(-1, in2)
    # (rows, in1) @ (in1, out * in2) -> (rows, out, in2), then contracted with input2
    left = rows1.matmul(weight.permute(1, 0, 2).reshape(in1, out_features * in2)).reshape(-1, out_features, in2)
    out = (left * rows2.unsqueeze(1)).sum(-1)
    if bias is not None:
        out = out + bias
    return out.reshape(*shape1[:-1], out_features)
