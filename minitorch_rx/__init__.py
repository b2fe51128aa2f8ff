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

from . import autograd, data, init, models, nn, optim, tensor_methods, utils  # noqa: E402  (they build on the names above)
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
from .ops.diagonal import (
    diag,
    diag_embed,
    diagonal,
    trace,
    tril,
    triu,
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
from .ops.linalg import dot, matmul
from .ops.reduce import amax, amin, argmax, argmin, logsumexp, max, mean, min, std, sum, var
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
from .random import manual_seed
from .serialization import load, save

del tensor_methods
__version__ = "0.1.0"
