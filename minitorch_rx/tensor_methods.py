"""The ops of ``mt.Tensor`` as methods and operators, in one table.

``Tensor`` (in ``autograd/``) knows nothing of ops; this module attaches exactly the ops that
``ops/`` defines, so a torch method the engine has no gradient for does not exist on the tensor.
"""

from __future__ import annotations

import torch

from . import creation, random
from .autograd.tensor import Tensor, is_torch_data, rebind
from .autograd.torch_function import metadata_properties, own_attribute
from .autograd.torch_leaves import torch_operand
from .ops import (
    activation,
    aliases,
    blas,
    compare,
    diagonal,
    elementwise,
    index,
    inplace,
    linalg,
    linalg_composite,
    linalg_decompositions,
    linalg_spectral,
    math,
    piecewise,
    pointwise,
    recorded,
    reduce,
    scan,
    shape,
    sort,
    special,
    split,
    statistics,
    tile,
    views,
)
from .ops.constants import TENSOR_TYPES, not_a_tensor, not_applicable


def _swapped(fn, c_method: str | None = None):
    """``other OP self``; ``c_method`` names torch's own where it is a C method (``__radd__``),
    which refuses a ``self`` that is not a tensor."""

    def swapped(self: Tensor, other) -> Tensor:
        if c_method is not None and not isinstance(self, Tensor):
            raise not_applicable(c_method, self)
        if is_torch_data(other):  # torch_tensor OP mt_tensor: the torch operand is a constant
            other = torch_operand(other)
        return fn(other, self)

    swapped.__name__ = f"r{fn.__name__}"
    return swapped


def _inplace(out_of_place, torch_method: str):
    def method(self: Tensor, other, **kwargs) -> Tensor:
        return inplace.inplace_binary(self, other, out_of_place, torch_method, **kwargs)

    method.__name__ = torch_method
    return method


def _inplace_op(out_of_place, torch_method: str):
    """``t.<torch_method>(*args)`` in place, through ``inplace.inplace_op``."""

    def method(self: Tensor, *args, **kwargs) -> Tensor:
        return inplace.inplace_op(self, out_of_place, torch_method, *args, **kwargs)

    method.__name__ = torch_method
    return method


def _where(self: Tensor, condition, other) -> Tensor:
    return elementwise.where(condition, self, other)


def _transposed(self: Tensor) -> Tensor:
    if self._data.dim() < 2:
        return self
    return shape.permute(self, tuple(reversed(range(self._data.dim()))))  # PyTorch's PermuteBackward0


METHODS = {
    # arithmetic
    "add": elementwise.add,
    "sub": elementwise.sub,
    "mul": elementwise.mul,
    "div": elementwise.div,
    "neg": elementwise.neg,
    "pow": elementwise.pow,
    "abs": elementwise.abs,
    "exp": elementwise.exp,
    "log": elementwise.log,
    "sqrt": elementwise.sqrt,
    "sin": elementwise.sin,
    "cos": elementwise.cos,
    "clamp": elementwise.clamp,
    "clip": elementwise.clamp,
    "maximum": elementwise.maximum,
    "minimum": elementwise.minimum,
    "where": _where,
    "clone": elementwise.clone,
    # reductions
    "sum": reduce.sum,
    "sum_to_size": reduce.sum_to_size,
    "mean": reduce.mean,
    "var": reduce.var,
    "std": reduce.std,
    "max": reduce.max,
    "min": reduce.min,
    "amax": reduce.amax,
    "amin": reduce.amin,
    "logsumexp": reduce.logsumexp,
    "argmax": reduce.argmax,
    "argmin": reduce.argmin,
    "prod": reduce.prod,
    "median": reduce.median,
    "mode": reduce.mode,
    "cumsum": scan.cumsum,
    "cumprod": scan.cumprod,
    "cumsum_": _inplace_op(scan.cumsum, "cumsum_"),
    "cumprod_": _inplace_op(scan.cumprod, "cumprod_"),
    "norm": linalg.norm,
    # shape
    "reshape": shape.reshape,
    "view": shape.view,
    "flatten": shape.flatten,
    "squeeze": shape.squeeze,
    "unsqueeze": shape.unsqueeze,
    "transpose": shape.transpose,
    "t": shape.t,
    "t_": shape.t_,
    "squeeze_": shape.squeeze_,
    "unsqueeze_": shape.unsqueeze_,
    "transpose_": shape.transpose_,
    "permute": shape.permute,
    "expand": shape.expand,
    "expand_as": shape.expand_as,
    "contiguous": shape.contiguous,
    "view_as": shape.view_as,
    "reshape_as": shape.reshape_as,
    "type_as": shape.type_as,
    "movedim": shape.movedim,
    "moveaxis": shape.moveaxis,
    "swapaxes": shape.swapaxes,
    "swapdims": shape.swapdims,
    "unflatten": shape.unflatten,
    "broadcast_to": shape.broadcast_to,
    "split": split.split,
    "chunk": split.chunk,
    "unbind": split.unbind,
    "narrow": split.narrow,
    "select": split.select,
    "unfold": split.unfold,
    "repeat": tile.repeat,
    "tile": tile.tile,
    "repeat_interleave": tile.repeat_interleave,
    "flip": tile.flip,
    "fliplr": tile.fliplr,
    "flipud": tile.flipud,
    "roll": tile.roll,
    "rot90": tile.rot90,
    "diagonal": diagonal.diagonal,
    "diag": diagonal.diag,
    "diag_embed": diagonal.diag_embed,
    "trace": diagonal.trace,
    "tril": diagonal.tril,
    "triu": diagonal.triu,
    "tril_": diagonal.tril_,
    "triu_": diagonal.triu_,
    # indexing (ops/index.py)
    "gather": index.gather,
    "scatter": index.scatter,
    "scatter_": index.scatter_,
    "scatter_add": index.scatter_add,
    "scatter_add_": index.scatter_add_,
    "scatter_reduce": index.scatter_reduce,
    "scatter_reduce_": index.scatter_reduce_,
    "index_select": index.index_select,
    "index_add": index.index_add,
    "index_add_": index.index_add_,
    "index_copy": index.index_copy,
    "index_copy_": index.index_copy_,
    "index_fill": index.index_fill,
    "index_fill_": index.index_fill_,
    "masked_fill": index.masked_fill,
    "masked_fill_": index.masked_fill_,
    "masked_scatter": index.masked_scatter,
    "masked_scatter_": index.masked_scatter_,
    "masked_select": index.masked_select,
    "take": index.take,
    "take_along_dim": index.take_along_dim,
    "nonzero": index.nonzero,
    "nonzero_static": index.nonzero_static,
    "index_reduce": index.index_reduce,
    "index_reduce_": _inplace_op(index.index_reduce, "index_reduce_"),
    "isin": compare.isin,
    "argwhere": index.argwhere,
    # sorting (ops/sort.py)
    "sort": sort.sort,
    "argsort": sort.argsort,
    "topk": sort.topk,
    "kthvalue": sort.kthvalue,
    "unique": sort.unique,
    "unique_consecutive": sort.unique_consecutive,
    # linear algebra
    "matmul": linalg.matmul,
    "dot": linalg.dot,
    "mm": linalg.mm,
    "bmm": linalg.bmm,
    "outer": linalg.outer,
    "addmm": linalg.addmm,
    "baddbmm": linalg.baddbmm,
    "addmm_": _inplace_op(linalg.addmm, "addmm_"),
    "baddbmm_": _inplace_op(linalg.baddbmm, "baddbmm_"),
    "det": linalg_decompositions.det,
    "logdet": linalg_decompositions.logdet,
    "slogdet": linalg_decompositions.slogdet,
    "inverse": linalg_decompositions.inv,
    "cholesky": linalg_composite.torch_cholesky,
    "cholesky_solve": linalg_decompositions.cholesky_solve,
    "cholesky_inverse": linalg_decompositions.cholesky_inverse,
    "svd": linalg_composite.torch_svd,
    "qr": linalg_composite.torch_qr,
    "lu": linalg_composite.torch_lu,
    "lu_solve": linalg_composite.torch_lu_solve,
    "triangular_solve": linalg_composite.triangular_solve,
    "pinverse": linalg_composite.pinverse,
    "matrix_exp": linalg_spectral.matrix_exp,
    "matrix_power": linalg_composite.matrix_power,
    "cross": linalg_composite.torch_cross,
    "geqrf": linalg_composite.geqrf,
    "ormqr": linalg_composite.ormqr,
    "orgqr": linalg_composite.householder_product,
    # activations that torch also has as Tensor methods
    "relu": activation.relu,
    "sigmoid": activation.sigmoid,
    "tanh": activation.tanh,
    "softmax": activation.softmax,
    "log_softmax": activation.log_softmax,
    "hardshrink": piecewise.hardshrink,
    "prelu": piecewise.prelu,
    # in place
    "add_": _inplace(elementwise.add, "add_"),
    "sub_": _inplace(elementwise.sub, "sub_"),
    "mul_": _inplace(elementwise.mul, "mul_"),
    "div_": _inplace(elementwise.div, "div_"),
    "pow_": _inplace(elementwise.pow, "pow_"),
    "clamp_": inplace.clamp_,
    "fill_": inplace.fill_,
    "zero_": inplace.zero_,
    "copy_": inplace.copy_,
    # operators
    "__add__": elementwise.operator_method(elementwise.Add, "__add__"),
    "__radd__": _swapped(elementwise.add, "__radd__"),
    "__sub__": elementwise.operator_method(elementwise.Sub, "__sub__"),
    "__rsub__": _swapped(elementwise.sub),
    "__mul__": elementwise.operator_method(elementwise.Mul, "__mul__"),
    "__rmul__": _swapped(elementwise.mul, "__rmul__"),
    "__truediv__": elementwise.operator_method(elementwise.Div, "__truediv__"),
    "__rtruediv__": _swapped(elementwise.div),
    "__pow__": elementwise.pow,
    "__rpow__": _swapped(elementwise.pow),
    "__matmul__": linalg.matmul,
    "__rmatmul__": _swapped(linalg.matmul),
    "__neg__": elementwise.neg,
    "__abs__": elementwise.abs,
    "__iadd__": _inplace(elementwise.add, "add_"),
    "__isub__": _inplace(elementwise.sub, "sub_"),
    "__imul__": _inplace(elementwise.mul, "mul_"),
    "__itruediv__": _inplace(elementwise.div, "div_"),
    "__getitem__": shape.getitem,
    "__setitem__": inplace.setitem,
    "__lt__": compare.comparison_operator(torch.lt, "__lt__"),
    "__le__": compare.comparison_operator(torch.le, "__le__"),
    "__gt__": compare.comparison_operator(torch.gt, "__gt__"),
    "__ge__": compare.comparison_operator(torch.ge, "__ge__"),
    "__eq__": compare.comparison_operator(torch.eq, "__eq__"),
    "__ne__": compare.comparison_operator(torch.ne, "__ne__"),
    "__and__": compare.comparison_operator(torch.bitwise_and, "__and__"),
    "__or__": compare.comparison_operator(torch.bitwise_or, "__or__"),
    "__xor__": compare.comparison_operator(torch.bitwise_xor, "__xor__"),
    "__rand__": compare.reflected_operator(torch.bitwise_and, "__rand__"),
    "__ror__": compare.reflected_operator(torch.bitwise_or, "__ror__"),
    "__rxor__": compare.reflected_operator(torch.bitwise_xor, "__rxor__"),
    "__iand__": _inplace(compare.bitwise_and, "bitwise_and_"),
    "__ior__": _inplace(compare.bitwise_or, "bitwise_or_"),
    "__ixor__": _inplace(compare.bitwise_xor, "bitwise_xor_"),
    "__invert__": compare.invert,
    "__floordiv__": math.floor_divide,
    "__rfloordiv__": math.floor_divide_reflected,
    "__ifloordiv__": _inplace(math.floor_divide, "floor_divide_"),
    "__mod__": math.remainder,
    "__rmod__": math.remainder_reflected,
    "__imod__": _inplace(math.remainder, "remainder_"),
    # comparisons and tests (no gradient)
    "eq": compare.eq,
    "ne": compare.ne,
    "lt": compare.lt,
    "le": compare.le,
    "gt": compare.gt,
    "ge": compare.ge,
    "isnan": compare.isnan,
    "isinf": compare.isinf,
    "isfinite": compare.isfinite,
    "isclose": compare.isclose,
    "allclose": compare.allclose,
    "equal": compare.equal,
    "all": compare.all,
    "any": compare.any,
    "count_nonzero": compare.count_nonzero,
    "logical_not": compare.logical_not,
    "logical_and": compare.logical_and,
    "logical_or": compare.logical_or,
    "logical_xor": compare.logical_xor,
    "bitwise_not": compare.bitwise_not,
    "bitwise_and": compare.bitwise_and,
    "bitwise_or": compare.bitwise_or,
    "bitwise_xor": compare.bitwise_xor,
    "bitwise_left_shift": compare.bitwise_left_shift,
    "bitwise_right_shift": compare.bitwise_right_shift,
    "logical_not_": _inplace_op(compare.logical_not, "logical_not_"),
    "logical_and_": _inplace(compare.logical_and, "logical_and_"),
    "logical_or_": _inplace(compare.logical_or, "logical_or_"),
    "logical_xor_": _inplace(compare.logical_xor, "logical_xor_"),
    "bitwise_not_": _inplace_op(compare.bitwise_not, "bitwise_not_"),
    "bitwise_and_": _inplace(compare.bitwise_and, "bitwise_and_"),
    "bitwise_or_": _inplace(compare.bitwise_or, "bitwise_or_"),
    "bitwise_xor_": _inplace(compare.bitwise_xor, "bitwise_xor_"),
}


def _matrix_transposed(self: Tensor) -> Tensor:
    if self._data.dim() < 2:
        raise RuntimeError(
            f"tensor.mT is only supported on matrices or batches of matrices. Got {self._data.dim()}-D tensor."
        )
    return shape.transpose(self, -2, -1)


def _conj_transposed(self: Tensor) -> Tensor:
    if self._data.dim() not in (0, 2):
        raise RuntimeError(
            f"tensor.H is only supported on matrices (2-D tensors). Got {self._data.dim()}-D tensor."
            + (" For batches of matrices, consider using tensor.mH" if self._data.dim() > 2 else "")
        )
    return Tensor._make(self._data.H, None) if self._data.is_complex() else shape.t(self)


def _resize_as_(self: Tensor, other: Tensor) -> Tensor:
    if not isinstance(other, TENSOR_TYPES):
        raise not_a_tensor("resize_as_", other, "the_template", 1)
    return _resize_(self, other.shape)


def _polygamma(self: Tensor, n: int) -> Tensor:
    return special.polygamma(n, self)


def _adjoint(self: Tensor) -> Tensor:
    """``mH``: the conjugate transpose of the matrices; for the real tensors autograd handles, ``mT``."""
    if self._data.is_complex():
        if self._data.dim() < 2:
            raise RuntimeError(
                f"tensor.mH is only supported on matrices or batches of matrices. Got {self._data.dim()}-D tensor."
            )
        return Tensor._make(self._data.mH, None)
    return _matrix_transposed(self)


def _resize_(self: Tensor, *sizes) -> Tensor:
    """Resize in place, keeping what fits of the data (``torch.Tensor.resize_``); refused for a tensor
    that requires grad, as PyTorch refuses it."""
    if self._requires_grad:
        raise RuntimeError("cannot resize variables that require grad")
    self._data.resize_(*sizes)
    rebind(self, self._data)
    return self


METHODS["resize_"] = _resize_
#: Elementwise math with a method and an in-place method of the same name (``log1p``, ``log1p_``).
MATH = [
    "log1p",
    "expm1",
    "rsqrt",
    "square",
    "sign",
    "floor",
    "ceil",
    "round",
    "trunc",
    "frac",
    "fmod",
    "remainder",
    "floor_divide",
    "lerp",
    "reciprocal",
    "log2",
    "log10",
    "exp2",
    "tan",
    "asin",
    "acos",
    "atan",
    "atan2",
    "sinh",
    "cosh",
    "asinh",
    "acosh",
    "atanh",
    "erf",
    "erfinv",
    "hypot",
    "clamp_min",
    "clamp_max",
]
METHODS["index_put_"] = _inplace_op(views.index_put, "index_put_")
METHODS["put_"] = _inplace_op(views.put, "put_")
METHODS["resize_as_"] = _resize_as_
METHODS["polygamma"] = _polygamma
METHODS["polygamma_"] = _inplace_op(_polygamma, "polygamma_")
#: Ops with a method and an in-place method of the same name, by the module that defines them.
WITH_INPLACE = {
    math: MATH,
    special: ["lgamma", "digamma", "erfc", "i0", "sinc", "logit", "xlogy", "igamma", "igammac", "mvlgamma"],
    pointwise: "addcmul addcdiv copysign deg2rad rad2deg float_power heaviside ldexp nan_to_num nextafter "
    "true_divide sgn conj_physical".split(),
    blas: ["addmv", "addr", "addbmm"],
    statistics: ["renorm"],
}
for _module, _names in WITH_INPLACE.items():
    for _name in _names:
        METHODS[_name] = getattr(_module, _name)
        METHODS[_name + "_"] = _inplace_op(getattr(_module, _name), _name + "_")
for _module, _names in (
    (
        pointwise,
        "angle conj fmax fmin frexp isneginf isposinf isreal logaddexp2 positive resolve_conj resolve_neg "
        "signbit".split(),
    ),
    (blas, ["mv", "kron", "inner", "vdot"]),
    (
        views,
        "as_strided as_strided_scatter diagflat diagonal_scatter dsplit hsplit index_put narrow_copy put ravel "
        "select_scatter slice_scatter split_with_sizes tensor_split unsafe_chunk unsafe_split vsplit".split(),
    ),
    (
        statistics,
        "aminmax corrcoef cov cummax cummin diff dist hash_tensor histc histogram logcumsumexp msort nanmean "
        "nanmedian nanquantile nansum quantile".split(),
    ),
):
    for _name in _names:
        METHODS[_name] = getattr(_module, _name)
METHODS["logaddexp"] = math.logaddexp
for _name in ["arcsin", "arccos", "arctan", "arcsinh", "arccosh", "arctanh", "fix"]:
    METHODS[_name] = getattr(math, _name)
for _name in ["eq", "ne", "lt", "le", "gt", "ge"]:
    METHODS[_name + "_"] = _inplace_op(compare.indicator(getattr(torch, _name)), _name + "_")
for _name in ["greater", "greater_equal", "less", "less_equal", "not_equal"]:
    METHODS[_name] = getattr(compare, _name)
# creation and random draws
for _name in ["new", "new_zeros", "new_ones", "new_full", "new_empty", "new_empty_strided", "new_tensor"]:
    METHODS[_name] = getattr(creation, _name)
for _name in ["normal_", "uniform_", "bernoulli_", "exponential_", "random_", "geometric_", "cauchy_", "log_normal_"]:
    METHODS[_name] = getattr(random, _name)
METHODS["bernoulli"] = random.bernoulli
METHODS["multinomial"] = random.multinomial
METHODS["arctan2"] = math.atan2
for _module, _names in (
    (elementwise, ["exp", "log", "sqrt", "sin", "cos", "abs", "neg"]),
    (activation, ["sigmoid", "tanh", "relu"]),
):
    for _name in _names:
        METHODS[_name + "_"] = _inplace_op(getattr(_module, _name), _name + "_")

for _alias, _name in aliases.METHOD_ALIASES.items():
    METHODS[_alias] = METHODS[_name] if _name in METHODS else own_attribute(_name)
for _name in aliases.METHOD_FUNCTIONS:
    METHODS[_name] = getattr(aliases, _name)
for _name in aliases.DATA_METHODS:
    METHODS[_name] = aliases.data_method(_name)
METHODS["is_same_size"] = aliases.is_same_size
for _name, _method in METHODS.items():
    setattr(Tensor, _name, getattr(_method, "without_out", _method))  # torch's methods take no out=
Tensor.T = property(_transposed)
Tensor.mT = property(_matrix_transposed)
Tensor.mH = property(_adjoint)
Tensor.H = property(_conj_transposed)
Tensor.real = property(pointwise.real)
metadata_properties(Tensor)
del recorded  # imported for its registrations
