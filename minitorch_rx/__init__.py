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

from . import autograd, data, init, models, nn, optim, tensor_methods  # noqa: E402  (they build on the names above)
from .autograd import Graph, Tensor, enable_grad, inference_mode, is_grad_enabled, no_grad, set_grad_enabled
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

del tensor_methods
__version__ = "0.1.0"
