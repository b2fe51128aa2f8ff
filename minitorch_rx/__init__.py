"""minitorch_rx: PyTorch's API on torch kernels, with its own autograd engine and a rustworkx graph.

>>> import minitorch_rx as mt
>>> x = mt.tensor([1.0, 2.0], requires_grad=True)
>>> y = (x ** 2).sum()
>>> y.backward()
>>> x.grad
tensor([2., 4.])
"""

from torch import (  # dtypes, so that user code can say mt.float32
    bfloat16,
    bool,
    complex64,
    complex128,
    device,
    float16,
    float32,
    float64,
    int8,
    int16,
    int32,
    int64,
    uint8,
)

from . import autograd, data, init, linalg, models, nn, optim, tensor_methods  # noqa: E402  (they build on the names above)
from .autograd import Graph, Tensor, enable_grad, is_grad_enabled, no_grad, set_grad_enabled
from .creation import (
    arange,
    empty,
    empty_like,
    eye,
    from_torch,
    full,
    full_like,
    linspace,
    logspace,
    meshgrid,
    ones,
    ones_like,
    rand,
    rand_like,
    randint,
    randn,
    randn_like,
    tensor,
    zeros,
    zeros_like,
)
from .ops.activation import (
    elu,
    gelu,
    leaky_relu,
    log_softmax,
    relu,
    sigmoid,
    silu,
    softmax,
    softplus,
    swish,
    tanh,
)
from .ops.compare import (
    all,
    allclose,
    any,
    bitwise_and,
    bitwise_left_shift,
    bitwise_not,
    bitwise_or,
    bitwise_right_shift,
    bitwise_xor,
    count_nonzero,
    eq,
    equal,
    ge,
    greater,
    greater_equal,
    gt,
    isclose,
    isfinite,
    isinf,
    isnan,
    le,
    less,
    less_equal,
    logical_and,
    logical_not,
    logical_or,
    logical_xor,
    lt,
    ne,
    not_equal,
)
from .ops.elementwise import (
    abs,
    add,
    clamp,
    clone,
    cos,
    div,
    exp,
    log,
    maximum,
    minimum,
    mul,
    neg,
    pow,
    sin,
    sqrt,
    sub,
    where,
)
from .ops.linalg import addmm, baddbmm, bmm, cdist, dot, einsum, matmul, mm, norm, outer
from .ops.math import (
    acos,
    acosh,
    arccos,
    arccosh,
    arcsin,
    arcsinh,
    arctan,
    arctan2,
    arctanh,
    asin,
    asinh,
    atan,
    atan2,
    atanh,
    ceil,
    clamp_max,
    clamp_min,
    cosh,
    erf,
    erfinv,
    exp2,
    expm1,
    fix,
    floor,
    floor_divide,
    fmod,
    frac,
    hypot,
    lerp,
    log1p,
    log2,
    log10,
    logaddexp,
    reciprocal,
    remainder,
    round,
    rsqrt,
    sign,
    sinh,
    square,
    tan,
    trunc,
)
from .ops.reduce import amax, amin, argmax, argmin, logsumexp, max, mean, median, min, mode, prod, std, sum, var
from .ops.scan import cumprod, cumsum
from .ops.shape import (
    cat,
    contiguous,
    expand,
    flatten,
    permute,
    reshape,
    squeeze,
    stack,
    transpose,
    unsqueeze,
    view,
)
from .random import bernoulli, manual_seed, multinomial, normal, randint_like, randperm
from .serialization import load, save

del tensor_methods
__version__ = "0.1.0"
