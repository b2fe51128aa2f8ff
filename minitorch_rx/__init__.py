"""minitorch_rx: PyTorch's API on torch kernels, with its own autograd engine and a rustworkx graph.

>>> import minitorch_rx as mt
>>> x = mt.tensor([1.0, 2.0], requires_grad=True)
>>> y = (x ** 2).sum()
>>> y.backward()
>>> x.grad
tensor([2., 4.])
"""

from torch import (  # dtypes and torch's other plain values, so that user code can say mt.float32, mt.long
    Generator,
    Size,
    bfloat16,
    bool,
    cdouble,
    cfloat,
    channels_last,
    channels_last_3d,
    complex64,
    complex128,
    contiguous_format,
    device,
    double,
    dtype,
    e,
    finfo,
    float,
    float16,
    float32,
    float64,
    half,
    iinfo,
    inf,
    int,
    int8,
    int16,
    int32,
    int64,
    long,
    nan,
    pi,
    preserve_format,
    short,
    uint8,
)

from . import (  # noqa: E402  (they build on the names above)
    accelerator,
    amp,
    autograd,
    backends,
    cuda,
    data,
    fft,
    init,
    linalg,
    masked,
    models,
    nn,
    optim,
    signal,
    tensor_methods,
    utils,
)
from .amp import autocast
from .autograd import Graph, Tensor, enable_grad, inference_mode, is_grad_enabled, no_grad, set_grad_enabled
from .creation import (
    arange,
    as_tensor,
    empty,
    empty_like,
    eye,
    from_numpy,
    from_torch,
    full,
    full_like,
    is_floating_point,
    is_tensor,
    linspace,
    logspace,
    meshgrid,
    numel,
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
from .legacy import (
    BFloat16Tensor,
    BoolTensor,
    ByteTensor,
    CharTensor,
    DoubleTensor,
    FloatTensor,
    HalfTensor,
    IntTensor,
    LongTensor,
    ShortTensor,
)
from .ops.activation import (
    celu,
    elu,
    gelu,
    leaky_relu,
    log_softmax,
    relu,
    selu,
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
from .ops.diagonal import (
    diag,
    diag_embed,
    diagonal,
    trace,
    tril,
    triu,
)
from .ops.distance import (
    cosine_similarity,
    pairwise_distance,
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
from .ops.index import (
    argwhere,
    gather,
    index_add,
    index_copy,
    index_fill,
    index_select,
    masked_fill,
    masked_scatter,
    masked_select,
    nonzero,
    scatter,
    scatter_add,
    scatter_reduce,
    take,
    take_along_dim,
)
from .ops.linalg import (
    addmm,
    baddbmm,
    bmm,
    cdist,
    dot,
    einsum,
    matmul,
    mm,
    norm,
    outer,
)
from .ops.linalg_composite import (
    lu_unpack,
    matrix_power,
    pinverse,
    triangular_solve,
)
from .ops.linalg_composite import torch_cholesky as cholesky
from .ops.linalg_composite import torch_cross as cross
from .ops.linalg_composite import torch_lu as lu
from .ops.linalg_composite import torch_lu_solve as lu_solve
from .ops.linalg_composite import torch_qr as qr
from .ops.linalg_composite import torch_svd as svd
from .ops.linalg_decompositions import (
    cholesky_inverse,
    cholesky_solve,
    det,
    logdet,
    slogdet,
)
from .ops.linalg_decompositions import inv as inverse
from .ops.linalg_spectral import matrix_exp
from .ops.linear import (
    bilinear,
)
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
from .ops.piecewise import (
    hardshrink,
    prelu,
    rrelu,
    threshold,
)
from .ops.reduce import (
    amax,
    amin,
    argmax,
    argmin,
    logsumexp,
    max,
    mean,
    median,
    min,
    mode,
    prod,
    std,
    sum,
    var,
)
from .ops.scan import (
    cumprod,
    cumsum,
)
from .ops.shape import (
    atleast_1d,
    atleast_2d,
    atleast_3d,
    broadcast_tensors,
    broadcast_to,
    cat,
    contiguous,
    expand,
    flatten,
    moveaxis,
    movedim,
    permute,
    reshape,
    squeeze,
    stack,
    swapaxes,
    swapdims,
    transpose,
    unflatten,
    unsqueeze,
    view,
)
from .ops.sort import (
    argsort,
    bucketize,
    kthvalue,
    searchsorted,
    sort,
    topk,
    unique,
    unique_consecutive,
)
from .ops.split import (
    chunk,
    narrow,
    select,
    split,
    unbind,
)
from .ops.tile import (
    column_stack,
    dstack,
    flip,
    fliplr,
    flipud,
    hstack,
    repeat_interleave,
    roll,
    rot90,
    tile,
    vstack,
)
from .random import bernoulli, manual_seed, multinomial, normal, randint_like, randperm
from .serialization import load, save
from .settings import (
    compile,
    get_default_dtype,
    get_num_interop_threads,
    get_num_threads,
    set_default_dtype,
    set_num_interop_threads,
    set_num_threads,
    set_printoptions,
)

if __import__("importlib.util").util.find_spec("einops") is not None:
    from . import einops_backend  # noqa: F401  (einops finds it among its backends' subclasses)

del tensor_methods
__version__ = "0.1.0"
