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
    init,
    models,
    nn,
    optim,
    tensor_methods,
    utils,
)
from .amp import autocast
from .autograd import Graph, Tensor, enable_grad, is_grad_enabled, no_grad, set_grad_enabled
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
from .ops.elementwise import (
    abs,
    add,
    clamp,
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
from .ops.linalg import dot, matmul
from .ops.reduce import amax, amin, argmax, argmin, logsumexp, max, mean, min, std, sum, var
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
from .random import manual_seed
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

del tensor_methods
__version__ = "0.1.0"
