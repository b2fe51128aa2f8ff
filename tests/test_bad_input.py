"""Bad input fails loudly at the call that caused it, in PyTorch's words (issue 6).

``CASES`` is one table: each row feeds one public entry point a bad input and names the
exception and the message expected, PyTorch's own wording wherever PyTorch has the same check
(shapes, dtypes, devices, hyper-parameters). ``test_every_public_entry_point_has_a_bad_input_case``
keeps the table complete: every public ``mt`` function, ``Tensor`` method, ``F`` function, ``nn``
layer, optimizer, scheduler and initializer must appear in it (a case for a function covers
the methods that are that same function), or in ``ACCEPTS_ANY_INPUT`` with the reason it has
no bad input.

Mixed devices run everywhere with the ``meta`` device standing in for a second device; the
CUDA rows run where a GPU is present.
"""

# ruff: noqa: E501  (a table reads best one row per line)
from __future__ import annotations

import inspect
import os
import re
import tempfile
from collections.abc import Callable

import pytest
import torch

import minitorch_rx as mt
import minitorch_rx.init as init
import minitorch_rx.nn as nn
import minitorch_rx.nn.functional as F
import minitorch_rx.optim as optim
from minitorch_rx.autograd.gradcheck import GradcheckError
from minitorch_rx.nn.parallel import DistributedDataParallel
from minitorch_rx.optim import lr_scheduler
from minitorch_rx.serialization import CheckpointError

cuda = pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device")
# Losses warn about a target of another size before their kernel refuses it, as PyTorch's do.
pytestmark = pytest.mark.filterwarnings("ignore:Using a target size:UserWarning")
F64 = torch.float64


def x(*shape: int, **kwargs) -> mt.Tensor:
    return mt.randn(*shape, **kwargs)


def leaf(*shape: int) -> mt.Tensor:
    return mt.randn(*shape, requires_grad=True)


def on_meta(*shape: int) -> mt.Tensor:
    """A tensor on a second device (``meta``: shapes and dtypes, no data) on any machine."""
    return mt.from_torch(torch.empty(shape, device="meta"))


def sgd() -> optim.SGD:
    return optim.SGD(nn.Linear(2, 2).parameters(), lr=0.1)


def linear_params() -> list[mt.Tensor]:
    return list(nn.Linear(2, 2).parameters())


BROADCAST = "The size of tensor a (3) must match the size of tensor b (4) at non-singleton dimension 1"
BROADCAST_0 = "The size of tensor a (3) must match the size of tensor b (4) at non-singleton dimension 0"
DIM_2D = "Dimension out of range (expected to be in range of [-2, 1], but got 2)"
META = "Tensor on device meta is not on the expected device cpu!"
CUDA_CPU = "Expected all tensors to be on the same device"
LEAF_IN_PLACE = "a leaf Variable that requires grad is being used in an in-place operation."
NOT_AN_OPTIMIZER = "NoneType is not an Optimizer"
FLOAT_ONLY_GRAD = "only Tensors of floating point and complex dtype can require gradients"


def case(entry: str, what: str, call: Callable[[], object], error: type[BaseException], message: str, *marks):
    """One row: calling ``call`` (entry point ``entry`` fed ``what``) raises ``error`` whose
    message contains ``message``."""
    return pytest.param(entry, call, error, message, id=f"{entry}: {what}", marks=marks)


CASES = [
    # ------------------------------------------------------------------ elementwise arithmetic
    case("mt.add", "non-broadcastable shapes", lambda: mt.add(x(2, 3), x(2, 4)), RuntimeError, BROADCAST),
    case(
        "mt.add",
        "a list",
        lambda: mt.add([1.0], 1.0),
        TypeError,
        "add(): argument 'input' (position 1) must be Tensor, not list",
    ),
    case("mt.add", "a device mix", lambda: x(2, 3) + on_meta(2, 3), RuntimeError, META),
    case("mt.add", "cuda and cpu", lambda: x(2, 3).cuda() + x(2, 3), RuntimeError, CUDA_CPU, cuda),
    case("mt.sub", "non-broadcastable shapes", lambda: leaf(2, 3) - x(2, 4), RuntimeError, BROADCAST),
    case("mt.mul", "non-broadcastable shapes", lambda: x(2, 3) * x(2, 4), RuntimeError, BROADCAST),
    case("mt.mul", "a string", lambda: x(3) * "a", TypeError, "unsupported operand type for a Tensor op: 'str'"),
    case("mt.div", "non-broadcastable shapes", lambda: x(2, 3) / leaf(2, 4), RuntimeError, BROADCAST),
    case("mt.pow", "non-broadcastable shapes", lambda: x(2, 3).abs() ** x(2, 4), RuntimeError, BROADCAST),
    case(
        "mt.pow",
        "a string exponent",
        lambda: x(3) ** "a",
        TypeError,
        "unsupported operand type(s) for ** or pow(): 'Tensor' and 'str'",
    ),
    case("mt.maximum", "non-broadcastable shapes", lambda: mt.maximum(x(3), x(4)), RuntimeError, BROADCAST_0),
    case(
        "mt.maximum",
        "a list",
        lambda: mt.maximum([1.0], x(1)),
        TypeError,
        "maximum(): argument 'input' (position 1) must be Tensor, not list",
    ),
    case("mt.minimum", "non-broadcastable shapes", lambda: mt.minimum(leaf(3), x(4)), RuntimeError, BROADCAST_0),
    case(
        "mt.where",
        "a float condition",
        lambda: mt.where(x(3), x(3), x(3)),
        RuntimeError,
        "where expected condition to be a boolean tensor, but got a tensor with dtype Float",
    ),
    case(
        "mt.where",
        "a list condition",
        lambda: mt.where([True], x(1), x(1)),
        TypeError,
        "where(): argument 'condition' (position 1) must be Tensor, not list",
    ),
    case("mt.where", "non-broadcastable shapes", lambda: mt.where(x(3) > 0, x(3), x(4)), RuntimeError, BROADCAST_0),
    case(
        "Tensor.where",
        "a float condition",
        lambda: x(3).where(x(3), x(3)),
        RuntimeError,
        "but got a tensor with dtype Float",
    ),
    case(
        "mt.neg",
        "a list",
        lambda: mt.neg([1.0]),
        TypeError,
        "neg(): argument 'input' (position 1) must be Tensor, not list",
    ),
    case(
        "mt.abs",
        "a list",
        lambda: mt.abs([1.0]),
        TypeError,
        "abs(): argument 'input' (position 1) must be Tensor, not list",
    ),
    case(
        "mt.exp",
        "a list",
        lambda: mt.exp([1.0]),
        TypeError,
        "exp(): argument 'input' (position 1) must be Tensor, not list",
    ),
    case(
        "mt.log",
        "None",
        lambda: mt.log(None),
        TypeError,
        "log(): argument 'input' (position 1) must be Tensor, not NoneType",
    ),
    case(
        "mt.sqrt",
        "a list",
        lambda: mt.sqrt([4.0]),
        TypeError,
        "sqrt(): argument 'input' (position 1) must be Tensor, not list",
    ),
    case(
        "mt.sin",
        "a list",
        lambda: mt.sin([1.0]),
        TypeError,
        "sin(): argument 'input' (position 1) must be Tensor, not list",
    ),
    case(
        "mt.cos",
        "a list",
        lambda: mt.cos([1.0]),
        TypeError,
        "cos(): argument 'input' (position 1) must be Tensor, not list",
    ),
    case(
        "mt.clamp",
        "no bound",
        lambda: x(3).clamp(),
        RuntimeError,
        "torch.clamp: At least one of 'min' or 'max' must not be None",
    ),
    case(
        "Tensor.__add__", "a string", lambda: x(3) + "a", TypeError, "unsupported operand type for a Tensor op: 'str'"
    ),
    case(
        "Tensor.__sub__",
        "non-broadcastable shapes",
        lambda: x(3) - x(4),
        RuntimeError,
        "The size of tensor a (3) must match the size of tensor b (4)",
    ),
    case("Tensor.__mul__", "a list", lambda: x(3) * [1], TypeError, "unsupported operand type for a Tensor op: 'list'"),
    case(
        "Tensor.__truediv__",
        "None",
        lambda: x(3) / None,
        TypeError,
        "unsupported operand type for a Tensor op: 'NoneType'",
    ),
    case(
        "Tensor.__radd__", "a string", lambda: "a" + x(3), TypeError, "unsupported operand type for a Tensor op: 'str'"
    ),
    case(
        "Tensor.__rsub__", "a string", lambda: "a" - x(3), TypeError, "unsupported operand type for a Tensor op: 'str'"
    ),
    case(
        "Tensor.__rmul__",
        "non-broadcastable shapes",
        lambda: mt.Tensor.__rmul__(x(3), x(4)),
        RuntimeError,
        "The size of tensor a (4) must match the size of tensor b (3)",
    ),
    case(
        "Tensor.__rtruediv__",
        "a string",
        lambda: "a" / x(3),
        TypeError,
        "unsupported operand type for a Tensor op: 'str'",
    ),
    case(
        "Tensor.__rpow__", "a string", lambda: "a" ** x(3), TypeError, "unsupported operand type for a Tensor op: 'str'"
    ),
    case("Tensor.__lt__", "non-broadcastable shapes", lambda: x(3) < x(4), RuntimeError, BROADCAST_0),
    case("Tensor.__le__", "non-broadcastable shapes", lambda: x(3) <= x(4), RuntimeError, BROADCAST_0),
    case("Tensor.__gt__", "non-broadcastable shapes", lambda: x(3) > x(4), RuntimeError, BROADCAST_0),
    case("Tensor.__ge__", "non-broadcastable shapes", lambda: x(3) >= x(4), RuntimeError, BROADCAST_0),
    case("Tensor.__eq__", "non-broadcastable shapes", lambda: x(3) == x(4), RuntimeError, BROADCAST_0),
    case("Tensor.__ne__", "non-broadcastable shapes", lambda: x(3) != x(4), RuntimeError, BROADCAST_0),
    # --------------------------------------------------------------------------- in place
    case("Tensor.add_", "a leaf that requires grad", lambda: leaf(3).add_(1), RuntimeError, LEAF_IN_PLACE),
    case(
        "Tensor.sub_",
        "a string",
        lambda: x(3).sub_("a"),
        TypeError,
        "sub_(): argument 'other' (position 1) must be Tensor, not str",
    ),
    case(
        "Tensor.mul_",
        "a broadcast that grows the tensor",
        lambda: (leaf(3) * 1).mul_(x(2, 3)),
        RuntimeError,
        "output with shape [3] doesn't match the broadcast shape [2, 3]",
    ),
    case(
        "Tensor.div_",
        "an integer tensor",
        lambda: mt.arange(3).div_(2),
        RuntimeError,
        "result type Float can't be cast to the desired output type Long",
    ),
    case(
        "Tensor.pow_",
        "a broadcast that grows the tensor",
        lambda: x(3).pow_(x(2, 3)),
        RuntimeError,
        "output with shape [3] doesn't match the broadcast shape [2, 3]",
    ),
    case(
        "Tensor.__iadd__",
        "a broadcast that grows the tensor",
        lambda: mt.Tensor.__iadd__(x(3), x(2, 3)),
        RuntimeError,
        "output with shape [3] doesn't match the broadcast shape [2, 3]",
    ),
    case(
        "Tensor.__isub__",
        "an integer tensor",
        lambda: mt.Tensor.__isub__(mt.arange(3), x(3)),
        RuntimeError,
        "result type Float can't be cast to the desired output type Long",
    ),
    case(
        "Tensor.__imul__",
        "a leaf that requires grad",
        lambda: mt.Tensor.__imul__(leaf(3), 2),
        RuntimeError,
        LEAF_IN_PLACE,
    ),
    case(
        "Tensor.__itruediv__",
        "an integer tensor",
        lambda: mt.Tensor.__itruediv__(mt.arange(3), 2),
        RuntimeError,
        "result type Float can't be cast to the desired output type Long",
    ),
    case(
        "Tensor.clamp_",
        "no bound",
        lambda: (leaf(3) * 1).clamp_(),
        RuntimeError,
        "torch.clamp: At least one of 'min' or 'max' must not be None",
    ),
    case(
        "Tensor.fill_",
        "a 1-D value",
        lambda: x(3).fill_(x(2)),
        RuntimeError,
        "fill_ only supports 0-dimension value tensor but got tensor with 1 dimensions.",
    ),
    case("Tensor.zero_", "a leaf that requires grad", lambda: leaf(3).zero_(), RuntimeError, LEAF_IN_PLACE),
    case("Tensor.copy_", "a non-broadcastable source", lambda: x(3).copy_(x(4)), RuntimeError, BROADCAST_0),
    case(
        "Tensor.__setitem__",
        "an index out of range",
        lambda: x(3).__setitem__(5, 1.0),
        IndexError,
        "index 5 is out of bounds for dimension 0 with size 3",
    ),
    case(
        "Tensor.__setitem__",
        "a value of another shape",
        lambda: (leaf(3) * 1).__setitem__(slice(None), x(4)),
        RuntimeError,
        "The expanded size of the tensor (3) must match the existing size (4)",
    ),
    # --------------------------------------------------------------------------- reductions
    case("mt.sum", "a dim out of range", lambda: x(2, 3).sum(2), IndexError, DIM_2D),
    case(
        "mt.sum",
        "a repeated dim",
        lambda: x(2, 3).sum((0, 0)),
        RuntimeError,
        "dim 0 appears multiple times in the list of dims",
    ),
    case(
        "mt.sum",
        "a list",
        lambda: mt.sum([1.0, 2.0]),
        TypeError,
        "sum(): argument 'input' (position 1) must be Tensor, not list",
    ),
    case(
        "mt.mean",
        "an integer tensor",
        lambda: mt.arange(3).mean(),
        RuntimeError,
        "mean(): could not infer output dtype. Input dtype must be either a floating point or complex dtype. Got: Long",
    ),
    case(
        "mt.var",
        "a dim out of range",
        lambda: x(2, 3).var(5),
        IndexError,
        "Dimension out of range (expected to be in range of [-2, 1], but got 5)",
    ),
    case(
        "mt.std",
        "a dim out of range",
        lambda: leaf(2, 3).std(-3),
        IndexError,
        "Dimension out of range (expected to be in range of [-2, 1], but got -3)",
    ),
    case(
        "mt.max",
        "an empty tensor without dim",
        lambda: x(0).max(),
        RuntimeError,
        "max(): Expected reduction dim to be specified for input.numel() == 0.",
    ),
    case("mt.min", "a dim out of range", lambda: x(2, 3).min(2), IndexError, DIM_2D),
    case("mt.amax", "a dim out of range", lambda: x(2, 3).amax(2), IndexError, DIM_2D),
    case(
        "mt.amin",
        "a list",
        lambda: mt.amin([1.0]),
        TypeError,
        "amin(): argument 'input' (position 1) must be Tensor, not list",
    ),
    case("mt.logsumexp", "a dim out of range", lambda: x(2, 3).logsumexp(2), IndexError, DIM_2D),
    case("mt.argmax", "a dim out of range", lambda: x(2, 3).argmax(2), IndexError, DIM_2D),
    case(
        "mt.argmin",
        "a list",
        lambda: mt.argmin([1.0]),
        TypeError,
        "argmin(): argument 'input' (position 1) must be Tensor, not list",
    ),
    # -------------------------------------------------------------------------------- shape
    case(
        "mt.reshape",
        "a size that does not fit",
        lambda: x(2, 3).reshape(4, 2),
        RuntimeError,
        "shape '[4, 2]' is invalid for input of size 6",
    ),
    case(
        "mt.view",
        "a transposed tensor",
        lambda: x(2, 3).t().view(6),
        RuntimeError,
        "view size is not compatible with input tensor's size and stride",
    ),
    case(
        "mt.flatten",
        "start after end",
        lambda: x(2, 3, 4).flatten(2, 1),
        RuntimeError,
        "flatten() has invalid args: start_dim cannot come after end_dim",
    ),
    case(
        "mt.squeeze",
        "a dim out of range",
        lambda: x(2, 3).squeeze(3),
        IndexError,
        "Dimension out of range (expected to be in range of [-2, 1], but got 3)",
    ),
    case(
        "mt.unsqueeze",
        "a dim out of range",
        lambda: x(2, 3).unsqueeze(4),
        IndexError,
        "Dimension out of range (expected to be in range of [-3, 2], but got 4)",
    ),
    case("mt.transpose", "a dim out of range", lambda: x(2, 3).transpose(0, 2), IndexError, DIM_2D),
    case(
        "Tensor.t",
        "a 3-D tensor",
        lambda: x(2, 3, 4).t(),
        RuntimeError,
        "t() expects a tensor with <= 2 dimensions, but self is 3D",
    ),
    case(
        "mt.permute",
        "too many dims",
        lambda: x(2, 3).permute(0, 1, 2),
        RuntimeError,
        "input.dim() = 2 is not equal to len(dims) = 3",
    ),
    case(
        "mt.permute",
        "a repeated dim",
        lambda: x(2, 3).permute(0, 0),
        RuntimeError,
        "permute(): duplicate dims are not allowed.",
    ),
    case(
        "mt.expand",
        "a size that does not match",
        lambda: x(2, 3).expand(2, 4),
        RuntimeError,
        "The expanded size of the tensor (4) must match the existing size (3) at non-singleton dimension 1.",
    ),
    case(
        "Tensor.expand_as",
        "a tensor of another size",
        lambda: x(3).expand_as(x(4)),
        RuntimeError,
        "The expanded size of the tensor (4) must match the existing size (3) at non-singleton dimension 0.",
    ),
    case(
        "mt.contiguous",
        "a list",
        lambda: mt.contiguous([1.0]),
        TypeError,
        "contiguous(): argument 'input' (position 1) must be Tensor, not list",
    ),
    case(
        "mt.cat",
        "sizes that differ off the cat dim",
        lambda: mt.cat([leaf(2, 3), x(3, 4)]),
        RuntimeError,
        "Sizes of tensors must match except in dimension 0. Expected size 3 but got size 4 for tensor number 1 in the list.",
    ),
    case(
        "mt.cat",
        "a list element",
        lambda: mt.cat([x(2), [1.0]]),
        TypeError,
        "expected Tensor as element 1 in argument 0, but got list",
    ),
    case("mt.cat", "a device mix", lambda: mt.cat([x(2, 3), on_meta(2, 3)]), RuntimeError, META),
    case(
        "mt.stack",
        "tensors of different shapes",
        lambda: mt.stack([x(2, 3), x(3, 3)]),
        RuntimeError,
        "stack expects each tensor to be equal size, but got [2, 3] at entry 0 and [3, 3] at entry 1",
    ),
    case(
        "Tensor.__getitem__",
        "an index out of range",
        lambda: x(2, 3)[5],
        IndexError,
        "index 5 is out of bounds for dimension 0 with size 2",
    ),
    case(
        "Tensor.__getitem__",
        "a mask of the wrong shape",
        lambda: x(2, 3)[mt.tensor([True, False, True])],
        IndexError,
        "The shape of the mask [3] at index 0 does not match the shape of the indexed tensor [2, 3] at index 0",
    ),
    case(
        "Tensor.__getitem__",
        "too many indices",
        lambda: x(2, 3)[0, 0, 0],
        IndexError,
        "too many indices for tensor of dimension 2",
    ),
    # ----------------------------------------------------------------------- linear algebra
    case(
        "mt.matmul",
        "inner sizes that differ",
        lambda: x(3, 4) @ leaf(5, 6),
        RuntimeError,
        "mat1 and mat2 shapes cannot be multiplied (3x4 and 5x6)",
    ),
    case(
        "mt.matmul",
        "float32 @ float64",
        lambda: x(3, 4) @ x(4, 5, dtype=F64),
        RuntimeError,
        "expected m1 and m2 to have the same dtype, but got: float != double",
    ),
    case(
        "mt.matmul",
        "a 0-D tensor",
        lambda: x() @ x(3),
        RuntimeError,
        "both arguments to matmul need to be at least 1D, but they are 0D and 1D",
    ),
    case(
        "mt.matmul",
        "batch dims that do not broadcast",
        lambda: x(2, 3, 4) @ x(3, 4, 5),
        RuntimeError,
        "The size of tensor a (2) must match the size of tensor b (3) at non-singleton dimension 0",
    ),
    case("mt.matmul", "cuda @ cpu", lambda: x(3, 4).cuda() @ x(4, 5), RuntimeError, CUDA_CPU, cuda),
    case(
        "Tensor.__rmatmul__",
        "a NumPy array",
        lambda: x(2, 2).numpy() @ x(2),
        TypeError,
        "matmul(): argument 'input' (position 1) must be Tensor, not ndarray",
    ),
    case(
        "mt.dot",
        "vectors of different lengths",
        lambda: mt.dot(x(3), x(4)),
        RuntimeError,
        "inconsistent tensor size, expected tensor [3] and src [4] to have the same number of elements",
    ),
    case(
        "mt.dot",
        "float32 . float64",
        lambda: mt.dot(x(3), x(3, dtype=F64)),
        RuntimeError,
        "dot : expected both vectors to have same dtype, but found Float and Double",
    ),
    # ------------------------------------------------------------------------- activations
    case(
        "mt.relu",
        "a list",
        lambda: mt.relu([1.0]),
        TypeError,
        "relu(): argument 'input' (position 1) must be Tensor, not list",
    ),
    case(
        "mt.sigmoid",
        "a list",
        lambda: mt.sigmoid([1.0]),
        TypeError,
        "sigmoid(): argument 'input' (position 1) must be Tensor, not list",
    ),
    case(
        "mt.tanh",
        "a list",
        lambda: mt.tanh([1.0]),
        TypeError,
        "tanh(): argument 'input' (position 1) must be Tensor, not list",
    ),
    case(
        "mt.silu",
        "a list",
        lambda: mt.silu([1.0]),
        TypeError,
        "silu(): argument 'input' (position 1) must be Tensor, not list",
    ),
    case(
        "mt.elu",
        "a string alpha",
        lambda: mt.elu(x(3), "a"),
        TypeError,
        "elu(): argument 'alpha' (position 2) must be Number, not str",
    ),
    case(
        "mt.leaky_relu",
        "a string slope",
        lambda: mt.leaky_relu(x(3), "a"),
        TypeError,
        "leaky_relu(): argument 'negative_slope' (position 2) must be Number, not str",
    ),
    case(
        "mt.gelu",
        "an unknown approximation",
        lambda: mt.gelu(x(3), approximate="fast"),
        RuntimeError,
        "approximate argument must be either none or tanh",
    ),
    case(
        "mt.softplus",
        "a string beta",
        lambda: mt.softplus(x(3), beta="a"),
        TypeError,
        "argument 'beta' (position 2) must be Number, not str",
    ),
    case(
        "mt.swish",
        "a string beta",
        lambda: mt.swish(x(3), "a"),
        TypeError,
        "swish(): argument 'beta' (position 2) must be Number, not str",
    ),
    case("mt.softmax", "a dim out of range", lambda: x(2, 3).softmax(2), IndexError, DIM_2D),
    case(
        "mt.log_softmax",
        "a dim out of range",
        lambda: leaf(2, 3).log_softmax(-3),
        IndexError,
        "Dimension out of range (expected to be in range of [-2, 1], but got -3)",
    ),
    # ------------------------------------------------------------------------------ creation
    case(
        "mt.tensor",
        "ragged lists",
        lambda: mt.tensor([[1, 2], [3]]),
        ValueError,
        "expected sequence of length 2 at dim 1 (got 1)",
    ),
    case(
        "mt.tensor",
        "an integer tensor that requires grad",
        lambda: mt.tensor([1, 2], requires_grad=True),
        RuntimeError,
        FLOAT_ONLY_GRAD,
    ),
    case(
        "mt.from_torch",
        "a list",
        lambda: mt.from_torch([1.0]),
        TypeError,
        "from_torch expects a torch.Tensor, got list",
    ),
    case(
        "mt.zeros", "a negative size", lambda: mt.zeros(-1), RuntimeError, "zeros: Dimension size must be non-negative."
    ),
    case(
        "mt.ones",
        "a string size",
        lambda: mt.ones("a"),
        TypeError,
        "ones(): argument 'size' (position 1) must be tuple of ints",
    ),
    case(
        "mt.empty",
        "a negative size",
        lambda: mt.empty(-1),
        RuntimeError,
        "Trying to create tensor with negative dimension -1: [-1]",
    ),
    case(
        "mt.full",
        "an int size",
        lambda: mt.full(3, 1.0),
        TypeError,
        "full(): argument 'size' (position 1) must be tuple of ints, not int",
    ),
    case(
        "mt.full",
        "a string fill value",
        lambda: mt.full((2,), "a"),
        TypeError,
        "full(): argument 'fill_value' (position 2) must be Number, not str",
    ),
    case(
        "mt.rand",
        "a negative size",
        lambda: mt.rand(-1),
        RuntimeError,
        "Trying to create tensor with negative dimension -1: [-1]",
    ),
    case(
        "mt.randn",
        "a negative size",
        lambda: mt.randn(2, -1),
        RuntimeError,
        "Trying to create tensor with negative dimension -1: [2, -1]",
    ),
    case(
        "mt.randint",
        "low above high",
        lambda: mt.randint(5, 2, (3,)),
        RuntimeError,
        "random_ expects 'from' to be less than 'to', but got from=5 >= to=2",
    ),
    case("mt.arange", "a zero step", lambda: mt.arange(0, 5, 0), RuntimeError, "step must be nonzero"),
    case(
        "mt.linspace",
        "negative steps",
        lambda: mt.linspace(0, 1, -1),
        RuntimeError,
        "number of steps must be non-negative",
    ),
    case("mt.eye", "a negative size", lambda: mt.eye(-1), RuntimeError, "n must be greater or equal to 0, got -1"),
    case(
        "mt.zeros_like",
        "a list",
        lambda: mt.zeros_like([1.0]),
        TypeError,
        "zeros_like(): argument 'input' (position 1) must be Tensor, not list",
    ),
    case(
        "mt.ones_like",
        "a list",
        lambda: mt.ones_like([1.0]),
        TypeError,
        "ones_like(): argument 'input' (position 1) must be Tensor, not list",
    ),
    case(
        "mt.empty_like",
        "a string",
        lambda: mt.empty_like("a"),
        TypeError,
        "empty_like(): argument 'input' (position 1) must be Tensor, not str",
    ),
    case(
        "mt.full_like",
        "a string fill value",
        lambda: mt.full_like(x(3), "a"),
        TypeError,
        "full_like(): argument 'fill_value' (position 2) must be Number, not str",
    ),
    case(
        "mt.rand_like",
        "an integer tensor",
        lambda: mt.rand_like(mt.arange(3)),
        NotImplementedError,
        "\"check_uniform_bounds\" not implemented for 'Long'",
    ),
    case(
        "mt.randn_like",
        "an integer tensor",
        lambda: mt.randn_like(mt.arange(3)),
        NotImplementedError,
        "\"normal_kernel_cpu\" not implemented for 'Long'",
    ),
    case(
        "mt.manual_seed",
        "a seed beyond 64 bits",
        lambda: mt.manual_seed(2**70),
        ValueError,
        "Overflow when unpacking long long",
    ),
    # ------------------------------------------------------------------------ Tensor methods
    case(
        "Tensor.__init__",
        "a list",
        lambda: mt.Tensor([1.0]),
        TypeError,
        "mt.Tensor wraps a torch.Tensor, got list; use mt.tensor(data)",
    ),
    case(
        "Tensor.__bool__",
        "several values",
        lambda: bool(x(3)),
        RuntimeError,
        "Boolean value of Tensor with more than one value is ambiguous",
    ),
    case(
        "Tensor.__float__",
        "several values",
        lambda: float(x(3)),
        ValueError,
        "only one element tensors can be converted to Python scalars",
    ),
    case(
        "Tensor.__int__",
        "several values",
        lambda: int(x(3)),
        ValueError,
        "only one element tensors can be converted to Python scalars",
    ),
    case(
        "Tensor.__index__",
        "a float tensor",
        lambda: [1, 2][x()],
        TypeError,
        "only integer tensors of a single element can be converted to an index",
    ),
    case("Tensor.__len__", "a 0-D tensor", lambda: len(x()), TypeError, "len() of a 0-d tensor"),
    case("Tensor.__iter__", "a 0-D tensor", lambda: list(x()), TypeError, "iteration over a 0-d tensor"),
    case(
        "Tensor.item",
        "several values",
        lambda: x(3).item(),
        RuntimeError,
        "a Tensor with 3 elements cannot be converted to Scalar",
    ),
    case(
        "Tensor.size",
        "a dim out of range",
        lambda: x(3).size(5),
        IndexError,
        "Dimension out of range (expected to be in range of [-1, 0], but got 5)",
    ),
    case(
        "Tensor.stride",
        "a dim out of range",
        lambda: x(3).stride(5),
        IndexError,
        "Dimension out of range (expected to be in range of [-1, 0], but got 5)",
    ),
    case("Tensor.to", "an unknown device", lambda: x(3).to("nodevice"), RuntimeError, "Expected one of cpu, cuda"),
    case(
        "Tensor.to",
        "an unknown keyword",
        lambda: x(3).to(devise="cpu"),
        TypeError,
        "to() got an unexpected keyword argument 'devise'",
    ),
    case(
        "Tensor.to",
        "a list",
        lambda: x(3).to([1]),
        TypeError,
        "to() expects a device, a dtype or a Tensor, but got list",
    ),
    case("Tensor.cuda", "an unknown device", lambda: x(3).cuda("nodevice"), RuntimeError, "Expected one of cpu, cuda"),
    case("Tensor.cuda", "a CPU device", lambda: x(3).cuda("cpu"), RuntimeError, "Invalid device, must be cuda device"),
    case("Tensor.type", "an unknown type", lambda: x(3).type("nonsense"), ValueError, "invalid type: 'nonsense'"),
    case(
        "Tensor.requires_grad",
        "set on an integer tensor",
        lambda: setattr(mt.arange(3), "requires_grad", True),
        RuntimeError,
        FLOAT_ONLY_GRAD,
    ),
    case(
        "Tensor.requires_grad_",
        "on a non-leaf",
        lambda: (leaf(3) * 2).requires_grad_(False),
        RuntimeError,
        "you can only change requires_grad flags of leaf variables.",
    ),
    case(
        "Tensor.data",
        "a list",
        lambda: setattr(leaf(3), "data", [1.0]),
        TypeError,
        "data must be a Tensor, got list",
    ),
    case(
        "Tensor.grad",
        "a gradient of another shape",
        lambda: setattr(leaf(3), "grad", x(4)),
        RuntimeError,
        "assigned grad has data of a different size",
    ),
    case(
        "Tensor.grad",
        "a list",
        lambda: setattr(leaf(3), "grad", [1.0]),
        TypeError,
        "assigned grad expected to be a Tensor or None but got grad of type list",
    ),
    case(
        "Tensor.retain_grad",
        "a tensor that needs no grad",
        lambda: x(3).retain_grad(),
        RuntimeError,
        "can't retain_grad on Tensor that has requires_grad=False",
    ),
    case(
        "Tensor.register_post_accumulate_grad_hook",
        "a non-leaf",
        lambda: (leaf(3) * 2).register_post_accumulate_grad_hook(print),
        RuntimeError,
        "post accumulate grad hooks cannot be registered on non-leaf tensors",
    ),
    case(
        "Tensor.backward",
        "a non-scalar output without gradient",
        lambda: (leaf(3) * 2).backward(),
        RuntimeError,
        "grad can be implicitly created only for scalar outputs",
    ),
    case(
        "Tensor.backward",
        "a gradient of another shape",
        lambda: (leaf(3) * 2).backward(mt.ones(4)),
        RuntimeError,
        "Mismatch in shape: grad_output[0] has a shape of torch.Size([4]) and output[0] has a shape of torch.Size([3]).",
    ),
    case(
        "Tensor.backward",
        "an output that needs no grad",
        lambda: x(3).sum().backward(),
        RuntimeError,
        "element 0 of tensors does not require grad and does not have a grad_fn",
    ),
    # ---------------------------------------------------------------------------- autograd
    case(
        "mt.autograd.backward",
        "an output that needs no grad",
        lambda: mt.autograd.backward([x(3)]),
        RuntimeError,
        "element 0 of tensors does not require grad and does not have a grad_fn",
    ),
    case(
        "mt.autograd.grad",
        "an input that needs no grad",
        lambda: mt.autograd.grad((leaf(3) * 2).sum(), [x(3)]),
        RuntimeError,
        "One of the differentiated Tensors does not require grad",
    ),
    case(
        "mt.autograd.grad",
        "an input the output does not use",
        lambda: mt.autograd.grad((leaf(3) * 2).sum(), [leaf(3)]),
        RuntimeError,
        "appears to not have been used in the graph. Set allow_unused=True if this is the desired behavior.",
    ),
    case(
        "mt.autograd.gradcheck",
        "float32 inputs",
        lambda: mt.autograd.gradcheck(lambda t: t * 2, (leaf(3),)),
        GradcheckError,
        "gradcheck needs float64 inputs for precision; input 0 is torch.float32",
    ),
    # ------------------------------------------------------------------------ F: linear, conv
    case(
        "F.linear",
        "feature sizes that differ",
        lambda: F.linear(x(3, 4), x(6, 5)),
        RuntimeError,
        "mat1 and mat2 shapes cannot be multiplied (3x4 and 5x6)",
    ),
    case(
        "F.linear",
        "a bias of the wrong size",
        lambda: F.linear(x(3, 4), x(6, 4), x(5)),
        RuntimeError,
        "The expanded size of the tensor (6) must match the existing size (5)",
    ),
    case(
        "F.linear",
        "a list",
        lambda: F.linear([1.0], x(2, 1)),
        TypeError,
        "linear(): argument 'input' (position 1) must be Tensor, not list",
    ),
    case(
        "F.conv2d",
        "the wrong number of input channels",
        lambda: F.conv2d(x(1, 2, 8, 8), x(8, 3, 3, 3)),
        RuntimeError,
        "Given groups=1, weight of size [8, 3, 3, 3], expected input[1, 2, 8, 8] to have 3 channels, but got 2 channels instead",
    ),
    case(
        "F.conv2d",
        "a kernel larger than the padded input",
        lambda: F.conv2d(x(1, 3, 2, 2), x(8, 3, 3, 3)),
        RuntimeError,
        "Calculated padded input size per channel: (2 x 2). Kernel size: (3 x 3). Kernel size can't be greater than actual input size",
    ),
    case(
        "F.conv2d",
        "a zero-size kernel",
        lambda: F.conv2d(x(1, 3, 5, 5), x(8, 3, 0, 0)),
        RuntimeError,
        "kernel size should be greater than zero, but got kernel_height: 0 kernel_width: 0",
    ),
    case(
        "F.conv2d",
        "a 2-D input",
        lambda: F.conv2d(x(3, 8), x(8, 3, 3, 3)),
        RuntimeError,
        "Expected 3D (unbatched) or 4D (batched) input to conv2d, but got input of size: [3, 8]",
    ),
    case(
        "F.conv2d",
        "a zero stride",
        lambda: F.conv2d(x(1, 3, 8, 8), x(8, 3, 3, 3), stride=0),
        RuntimeError,
        "non-positive stride is not supported",
    ),
    case(
        "F.conv2d",
        "a negative padding",
        lambda: F.conv2d(x(1, 3, 8, 8), x(8, 3, 3, 3), padding=-1),
        RuntimeError,
        "negative padding is not supported",
    ),
    case(
        "F.conv2d",
        "a bias of the wrong size",
        lambda: F.conv2d(x(1, 3, 5, 5), x(4, 3, 3, 3), x(5)),
        RuntimeError,
        "expected bias to be 1-dimensional with 4 elements, but got bias of size [5] instead",
    ),
    case(
        "F.conv2d",
        "float32 input, float64 weight",
        lambda: F.conv2d(x(1, 3, 8, 8), x(8, 3, 3, 3, dtype=F64)),
        RuntimeError,
        "Input type (torch.float32) and weight type (torch.float64) should be the same",
    ),
    case(
        "F.conv2d",
        "cuda input, cpu weight",
        lambda: F.conv2d(x(1, 3, 8, 8).cuda(), x(8, 3, 3, 3)),
        RuntimeError,
        "",
        cuda,
    ),
    case(
        "F.conv1d",
        "the wrong number of input channels",
        lambda: F.conv1d(x(1, 2, 8), x(4, 3, 3)),
        RuntimeError,
        "Given groups=1, weight of size [4, 3, 3], expected input[1, 2, 8] to have 3 channels, but got 2 channels instead",
    ),
    case(
        "F.conv3d",
        "a kernel larger than the input",
        lambda: F.conv3d(x(1, 3, 3, 3, 3), x(9, 3, 5, 5, 5)),
        RuntimeError,
        "Calculated padded input size per channel: (3 x 3 x 3). Kernel size: (5 x 5 x 5). Kernel size can't be greater than actual input size",
    ),
    case(
        "F.unfold",
        "a kernel larger than the input",
        lambda: F.unfold(x(1, 1, 2, 2), 3),
        RuntimeError,
        "calculated shape of the array of sliding blocks as (0, 0), but its components must be at least one.",
    ),
    case("F.im2col", "a 1-D input", lambda: F.im2col(x(9), 3), RuntimeError, "but got: [9]"),
    case(
        "F.fold",
        "blocks that do not fit the output",
        lambda: F.fold(x(1, 9, 4), (2, 2), 3),
        RuntimeError,
        "expected size of input's dimension 2 to match the calculated number of sliding blocks 0 * 0 = 0, but got input.size(2)=4.",
    ),
    # --------------------------------------------------------------------------- F: pooling
    case(
        "F.max_pool1d",
        "a 1-D input",
        lambda: F.max_pool1d(x(4), 2),
        RuntimeError,
        "max_pool1d: Expected 2D or 3D (batch mode) tensor with optional 0 dim batch size for input, but got:[4]",
    ),
    case(
        "F.max_pool2d",
        "a kernel larger than the input",
        lambda: F.max_pool2d(x(1, 1, 2, 2), 3),
        RuntimeError,
        "Given input size: (1x2x2). Calculated output size: (1x0x0). Output size is too small",
    ),
    case(
        "F.max_pool3d",
        "a kernel larger than the input",
        lambda: F.max_pool3d(x(1, 1, 3, 3, 3), 5),
        RuntimeError,
        "Given input size: (1x3x3x3). Calculated output size: (1x0x0x0). Output size is too small",
    ),
    case(
        "F.avg_pool1d",
        "a kernel larger than the input",
        lambda: F.avg_pool1d(x(1, 1, 3), 5),
        RuntimeError,
        "Given input size: (1x1x3). Calculated output size: (1x1x0). Output size is too small",
    ),
    case(
        "F.avg_pool2d",
        "padding above half the kernel",
        lambda: F.avg_pool2d(x(1, 1, 4, 4), 2, padding=2),
        RuntimeError,
        "pad should be at most half of effective kernel size, but got pad=2, kernel_size=2 and dilation=1",
    ),
    case(
        "F.avg_pool3d",
        "a 3-D input",
        lambda: F.avg_pool3d(x(1, 4, 4), 2),
        RuntimeError,
        "non-empty 4D or 5D (batch mode) tensor expected for input",
    ),
    case(
        "F.adaptive_avg_pool1d",
        "a 1-D input",
        lambda: F.adaptive_avg_pool1d(x(4), 2),
        RuntimeError,
        "Expected 2 to 3 dimensions, but got 1-dimensional tensor for argument #1 'self'",
    ),
    case(
        "F.adaptive_avg_pool2d",
        "a negative output size",
        lambda: F.adaptive_avg_pool2d(x(1, 1, 4, 4), -1),
        RuntimeError,
        "adaptive_avg_pool2d: elements of output_size must be greater than or equal to 0 but received {-1, -1}",
    ),
    case(
        "F.adaptive_avg_pool3d",
        "a 2-D input",
        lambda: F.adaptive_avg_pool3d(x(4, 4), 2),
        RuntimeError,
        "adaptive_avg_pool3d(): Expected 4D or 5D tensor, but got [4, 4]",
    ),
    case(
        "F.adaptive_max_pool2d",
        "a 1-D input",
        lambda: F.adaptive_max_pool2d(x(4), 2),
        RuntimeError,
        "adaptive_max_pool2d(): Expected 3D or 4D tensor, but got: [4]",
    ),
    # ---------------------------------------------------------------- F: norm, pad, dropout
    case(
        "F.batch_norm",
        "running stats of another size",
        lambda: F.batch_norm(x(2, 4), mt.zeros(3), mt.ones(3)),
        RuntimeError,
        "running_mean should contain 4 elements not 3",
    ),
    case(
        "F.batch_norm",
        "a 1-D input",
        lambda: F.batch_norm(x(3), mt.zeros(3), mt.ones(3)),
        ValueError,
        "expected at least 2D input (got 1D input)",
    ),
    case(
        "F.batch_norm",
        "float64 running stats for float32 input",
        lambda: F.batch_norm(x(2, 3), mt.zeros(3, dtype=F64), mt.ones(3, dtype=F64), training=True),
        RuntimeError,
        "mixed dtype (CPU): expect parameter to have scalar type of Float",
    ),
    case(
        "F.layer_norm",
        "a shape that is not the input's last",
        lambda: F.layer_norm(x(2, 3), (4,)),
        RuntimeError,
        "Given normalized_shape=[4], expected input with shape [*, 4], but got input of size[2, 3]",
    ),
    case(
        "F.layer_norm",
        "a weight of another shape",
        lambda: F.layer_norm(x(2, 3), (3,), mt.ones(4)),
        RuntimeError,
        "Expected weight to be of same shape as normalized_shape, but got weight of shape [4] and normalized_shape = [3]",
    ),
    case(
        "F.pad",
        "an odd padding length",
        lambda: F.pad(x(2, 3), (1,)),
        RuntimeError,
        "Padding length must be divisible by 2",
    ),
    case(
        "F.pad",
        "reflection wider than the input",
        lambda: F.pad(x(1, 2, 3), (3, 3), mode="reflect"),
        RuntimeError,
        "Padding size should be less than the corresponding input dimension, but got: padding (3, 3) at dimension 2 of input [1, 2, 3]",
    ),
    case(
        "F.pad",
        "an unknown mode",
        lambda: F.pad(x(1, 2, 3), (1, 1), mode="mirror"),
        NotImplementedError,
        "Unrecognised padding mode mirror",
    ),
    case(
        "F.dropout",
        "p above 1",
        lambda: F.dropout(x(3), p=1.5),
        ValueError,
        "dropout probability has to be between 0 and 1, but got 1.5",
    ),
    case(
        "F.dropout",
        "a list",
        lambda: F.dropout([1.0]),
        TypeError,
        "dropout(): argument 'input' (position 1) must be Tensor, not list",
    ),
    # -------------------------------------------------------------------------- F: losses
    case(
        "F.cross_entropy",
        "a target class out of range",
        lambda: F.cross_entropy(leaf(2, 3), mt.tensor([0, 7])),
        IndexError,
        "Target 7 is out of bounds.",
    ),
    case(
        "F.cross_entropy",
        "a negative target class",
        lambda: F.cross_entropy(x(2, 3), mt.tensor([0, -2])),
        IndexError,
        "Target -2 is out of bounds.",
    ),
    case(
        "F.cross_entropy",
        "batch sizes that differ",
        lambda: F.cross_entropy(x(2, 3), mt.tensor([0, 1, 2])),
        ValueError,
        "Expected input batch_size (2) to match target batch_size (3).",
    ),
    case(
        "F.cross_entropy",
        "an int32 target",
        lambda: F.cross_entropy(x(2, 3), mt.tensor([0, 1], dtype=torch.int32)),
        RuntimeError,
        "expected target dtype to be Long or Byte, but got Int",
    ),
    case(
        "F.cross_entropy",
        "label smoothing above 1",
        lambda: F.cross_entropy(x(2, 3), mt.tensor([0, 1]), label_smoothing=2.0),
        RuntimeError,
        "label_smoothing must be between 0.0 and 1.0. Got: 2.0",
    ),
    case(
        "F.cross_entropy",
        "an unknown reduction",
        lambda: F.cross_entropy(x(2, 3), mt.tensor([0, 1]), reduction="avg"),
        ValueError,
        "avg is not a valid value for reduction",
    ),
    case(
        "F.cross_entropy",
        "a float64 class weight",
        lambda: F.cross_entropy(x(2, 3), mt.tensor([0, 1]), weight=mt.ones(3, dtype=F64)),
        RuntimeError,
        "expected scalar type Float but found Double",
    ),
    case(
        "F.cross_entropy",
        "a target on another device",
        lambda: F.cross_entropy(x(3, 3), mt.from_torch(torch.zeros(3, dtype=torch.long, device="meta"))),
        RuntimeError,
        "Tensor on device cpu is not on the expected device meta!",
    ),
    case(
        "F.cross_entropy",
        "cuda logits, cpu target",
        lambda: F.cross_entropy(x(2, 3).cuda(), mt.tensor([0, 1])),
        RuntimeError,
        "",
        cuda,
    ),
    case(
        "F.nll_loss",
        "a target class out of range",
        lambda: F.nll_loss(x(2, 3), mt.tensor([0, 3])),
        IndexError,
        "Target 3 is out of bounds.",
    ),
    case(
        "F.nll_loss",
        "a class weight of another size",
        lambda: F.nll_loss(x(2, 3), mt.tensor([0, 1]), weight=mt.ones(4)),
        RuntimeError,
        "weight tensor should be defined either for all 3 classes or no classes but got weight tensor of shape: [4]",
    ),
    case("F.mse_loss", "non-broadcastable shapes", lambda: F.mse_loss(x(2, 3), x(2, 4)), RuntimeError, BROADCAST),
    case("F.mse_loss", "a target on another device", lambda: F.mse_loss(x(2, 3), on_meta(2, 3)), RuntimeError, META),
    case("F.l1_loss", "non-broadcastable shapes", lambda: F.l1_loss(x(2, 3), x(2, 4)), RuntimeError, BROADCAST),
    case(
        "F.binary_cross_entropy_with_logits",
        "a target of another shape",
        lambda: F.binary_cross_entropy_with_logits(x(2, 3), x(2, 4)),
        ValueError,
        "Target size (torch.Size([2, 4])) must be the same as input size (torch.Size([2, 3]))",
    ),
    # ------------------------------------------------------------------------------- layers
    case(
        "nn.Linear",
        "an input with other features",
        lambda: nn.Linear(4, 2)(x(3, 5)),
        RuntimeError,
        "mat1 and mat2 shapes cannot be multiplied (3x5 and 4x2)",
    ),
    case(
        "nn.Linear",
        "a float64 input",
        lambda: nn.Linear(3, 2)(x(2, 3, dtype=F64)),
        RuntimeError,
        "mat1 and mat2 must have the same dtype, but got Double and Float",
    ),
    case(
        "nn.Linear",
        "a negative size",
        lambda: nn.Linear(-1, 2),
        RuntimeError,
        "Trying to create tensor with negative dimension -1: [2, -1]",
    ),
    case("nn.Linear", "an input on another device", lambda: nn.Linear(3, 2)(x(2, 3).cuda()), RuntimeError, "", cuda),
    case(
        "nn.Conv2d",
        "the wrong number of input channels",
        lambda: nn.Conv2d(3, 8, 3)(x(1, 2, 8, 8)),
        RuntimeError,
        "Given groups=1, weight of size [8, 3, 3, 3], expected input[1, 2, 8, 8] to have 3 channels, but got 2 channels instead",
    ),
    case(
        "nn.Conv2d",
        "a kernel larger than the padded input",
        lambda: nn.Conv2d(3, 9, 5, padding=1)(x(1, 3, 2, 2)),
        RuntimeError,
        "Calculated padded input size per channel: (4 x 4). Kernel size: (5 x 5). Kernel size can't be greater than actual input size",
    ),
    case(
        "nn.Conv2d",
        "a negative kernel size",
        lambda: nn.Conv2d(3, 8, -1),
        RuntimeError,
        "Trying to create tensor with negative dimension -1: [8, 3, -1, -1]",
    ),
    case(
        "nn.Conv2d",
        "channels that groups do not divide",
        lambda: nn.Conv2d(3, 8, 3, groups=2),
        ValueError,
        "in_channels must be divisible by groups",
    ),
    case(
        "nn.Conv2d",
        "zero groups",
        lambda: nn.Conv2d(3, 9, 3, groups=0),
        ValueError,
        "groups must be a positive integer",
    ),
    case(
        "nn.Conv2d",
        "an unknown padding mode",
        lambda: nn.Conv2d(3, 8, 3, padding_mode="mirror"),
        ValueError,
        "padding_mode must be one of",
    ),
    case(
        "nn.Conv2d",
        "an unknown padding string",
        lambda: nn.Conv2d(3, 8, 3, padding="full"),
        ValueError,
        "Invalid padding string 'full'",
    ),
    case(
        "nn.Conv2d",
        "'same' padding with a stride",
        lambda: nn.Conv2d(3, 8, 3, padding="same", stride=2),
        ValueError,
        "padding='same' is not supported for strided convolutions",
    ),
    case(
        "nn.Conv2d",
        "a zero dilation",
        lambda: nn.Conv2d(3, 9, 3, dilation=0)(x(1, 3, 5, 5)),
        RuntimeError,
        "dilation should be greater than zero, but got [0, 0]",
    ),
    case(
        "nn.Conv2d",
        "a float64 input",
        lambda: nn.Conv2d(3, 2, 3)(x(1, 3, 5, 5, dtype=F64)),
        RuntimeError,
        "Input type (torch.float64) and weight type (torch.float32) should be the same",
    ),
    case(
        "nn.Conv1d",
        "the wrong number of input channels",
        lambda: nn.Conv1d(3, 4, 3)(x(1, 2, 8)),
        RuntimeError,
        "expected input[1, 2, 8] to have 3 channels, but got 2 channels instead",
    ),
    case(
        "nn.Conv3d",
        "the wrong number of input channels",
        lambda: nn.Conv3d(3, 4, 3)(x(1, 2, 4, 4, 4)),
        RuntimeError,
        "expected input[1, 2, 4, 4, 4] to have 3 channels, but got 2 channels instead",
    ),
    case(
        "nn.MaxPool1d",
        "a kernel larger than the input",
        lambda: nn.MaxPool1d(5)(x(1, 1, 3)),
        RuntimeError,
        "max_pool1d() Invalid computed output size: 0",
    ),
    case(
        "nn.MaxPool2d",
        "a negative kernel size",
        lambda: nn.MaxPool2d(-1)(x(1, 1, 4, 4)),
        RuntimeError,
        "kernel size should be greater than zero, but got kH: -1 kW: -1",
    ),
    case(
        "nn.MaxPool2d",
        "a zero stride",
        lambda: nn.MaxPool2d(2, stride=0)(x(1, 1, 4, 4)),
        RuntimeError,
        "stride should not be zero",
    ),
    case(
        "nn.MaxPool3d",
        "a kernel larger than the input",
        lambda: nn.MaxPool3d(5)(x(1, 1, 3, 3, 3)),
        RuntimeError,
        "Output size is too small",
    ),
    case(
        "nn.AvgPool1d",
        "a kernel larger than the input",
        lambda: nn.AvgPool1d(5)(x(1, 1, 3)),
        RuntimeError,
        "Output size is too small",
    ),
    case(
        "nn.AvgPool2d",
        "a negative padding",
        lambda: nn.AvgPool2d(2, padding=-1)(x(1, 1, 4, 4)),
        RuntimeError,
        "pad must be non-negative, but got pad: -1",
    ),
    case(
        "nn.AvgPool2d",
        "a zero divisor",
        lambda: nn.AvgPool2d(2, divisor_override=0)(x(1, 1, 4, 4)),
        RuntimeError,
        "divisor must be not zero",
    ),
    case(
        "nn.AvgPool3d",
        "a kernel larger than the input",
        lambda: nn.AvgPool3d(5)(x(1, 1, 3, 3, 3)),
        RuntimeError,
        "input image (T: 3 H: 3 W: 3) smaller than kernel size (kT: 5 kH: 5 kW: 5)",
    ),
    case(
        "nn.AdaptiveAvgPool1d",
        "a 1-D input",
        lambda: nn.AdaptiveAvgPool1d(2)(x(4)),
        RuntimeError,
        "Expected 2 to 3 dimensions, but got 1-dimensional tensor",
    ),
    case(
        "nn.AdaptiveAvgPool2d",
        "a 1-D input",
        lambda: nn.AdaptiveAvgPool2d(2)(x(4)),
        RuntimeError,
        "adaptive_avg_pool2d(): Expected 3D or 4D tensor, but got [4]",
    ),
    case(
        "nn.AdaptiveAvgPool3d",
        "a 2-D input",
        lambda: nn.AdaptiveAvgPool3d(2)(x(4, 4)),
        RuntimeError,
        "adaptive_avg_pool3d(): Expected 4D or 5D tensor, but got [4, 4]",
    ),
    case(
        "nn.AdaptiveMaxPool2d",
        "a 1-D input",
        lambda: nn.AdaptiveMaxPool2d(2)(x(4)),
        RuntimeError,
        "adaptive_max_pool2d(): Expected 3D or 4D tensor, but got: [4]",
    ),
    case(
        "nn.BatchNorm1d",
        "a 4-D input",
        lambda: nn.BatchNorm1d(3)(x(2, 3, 4, 5)),
        ValueError,
        "expected 2D or 3D input (got 4D input)",
    ),
    case(
        "nn.BatchNorm1d",
        "one value per channel in training",
        lambda: nn.BatchNorm1d(3)(x(1, 3)),
        ValueError,
        "Expected more than 1 value per channel when training, got input size torch.Size([1, 3])",
    ),
    case(
        "nn.BatchNorm2d",
        "the wrong number of channels",
        lambda: nn.BatchNorm2d(3)(x(2, 4, 5, 5)),
        RuntimeError,
        "running_mean should contain 4 elements not 3",
    ),
    case(
        "nn.BatchNorm2d",
        "a negative size",
        lambda: nn.BatchNorm2d(-1),
        RuntimeError,
        "Trying to create tensor with negative dimension -1: [-1]",
    ),
    case(
        "nn.BatchNorm3d",
        "a 4-D input",
        lambda: nn.BatchNorm3d(3)(x(2, 3, 4, 4)),
        ValueError,
        "expected 5D input (got 4D input)",
    ),
    case(
        "nn.LayerNorm",
        "an input of another last size",
        lambda: nn.LayerNorm(4)(x(2, 3)),
        RuntimeError,
        "Given normalized_shape=[4], expected input with shape [*, 4], but got input of size[2, 3]",
    ),
    case(
        "nn.Dropout",
        "a negative p",
        lambda: nn.Dropout(p=-0.1),
        ValueError,
        "dropout probability has to be between 0 and 1, but got -0.1",
    ),
    case(
        "nn.Flatten",
        "a dim out of range",
        lambda: nn.Flatten(3)(x(2, 3)),
        IndexError,
        "Dimension out of range (expected to be in range of [-2, 1], but got 3)",
    ),
    case(
        "nn.ReLU",
        "a list",
        lambda: nn.ReLU()([1.0]),
        TypeError,
        "relu(): argument 'input' (position 1) must be Tensor, not list",
    ),
    case(
        "nn.LeakyReLU",
        "a string slope",
        lambda: nn.LeakyReLU("a")(x(3)),
        TypeError,
        "leaky_relu(): argument 'negative_slope' (position 2) must be Number, not str",
    ),
    case(
        "nn.ELU",
        "a string alpha",
        lambda: nn.ELU("a")(x(3)),
        TypeError,
        "elu(): argument 'alpha' (position 2) must be Number, not str",
    ),
    case(
        "nn.GELU",
        "an unknown approximation",
        lambda: nn.GELU("fast")(x(3)),
        RuntimeError,
        "approximate argument must be either none or tanh",
    ),
    case(
        "nn.SiLU",
        "a list",
        lambda: nn.SiLU()([1.0]),
        TypeError,
        "silu(): argument 'input' (position 1) must be Tensor, not list",
    ),
    case(
        "nn.Swish",
        "a string beta",
        lambda: nn.Swish("a")(x(3)),
        TypeError,
        "swish(): argument 'beta' (position 2) must be Number, not str",
    ),
    case(
        "nn.Sigmoid",
        "a list",
        lambda: nn.Sigmoid()([1.0]),
        TypeError,
        "sigmoid(): argument 'input' (position 1) must be Tensor, not list",
    ),
    case(
        "nn.Tanh",
        "a list",
        lambda: nn.Tanh()([1.0]),
        TypeError,
        "tanh(): argument 'input' (position 1) must be Tensor, not list",
    ),
    case(
        "nn.Softplus",
        "a string beta",
        lambda: nn.Softplus(beta="a")(x(3)),
        TypeError,
        "argument 'beta' (position 2) must be Number, not str",
    ),
    case(
        "nn.Softmax",
        "a dim out of range",
        lambda: nn.Softmax(dim=3)(x(2, 3)),
        IndexError,
        "Dimension out of range (expected to be in range of [-2, 1], but got 3)",
    ),
    case(
        "nn.LogSoftmax",
        "a dim out of range",
        lambda: nn.LogSoftmax(dim=3)(x(2, 3)),
        IndexError,
        "Dimension out of range (expected to be in range of [-2, 1], but got 3)",
    ),
    case(
        "nn.CrossEntropyLoss",
        "a target class out of range",
        lambda: nn.CrossEntropyLoss()(leaf(2, 3), mt.tensor([0, 3])),
        IndexError,
        "Target 3 is out of bounds.",
    ),
    case(
        "nn.NLLLoss",
        "a class weight of another size",
        lambda: nn.NLLLoss(weight=mt.ones(4))(x(2, 3), mt.tensor([0, 1])),
        RuntimeError,
        "weight tensor should be defined either for all 3 classes or no classes",
    ),
    case(
        "nn.MSELoss",
        "an unknown reduction",
        lambda: nn.MSELoss(reduction="avg")(x(2, 3), x(2, 3)),
        ValueError,
        "avg is not a valid value for reduction",
    ),
    case("nn.L1Loss", "non-broadcastable shapes", lambda: nn.L1Loss()(x(2, 3), x(2, 4)), RuntimeError, BROADCAST),
    case(
        "nn.BCEWithLogitsLoss",
        "a target of another shape",
        lambda: nn.BCEWithLogitsLoss()(x(2, 3), x(2, 4)),
        ValueError,
        "Target size (torch.Size([2, 4])) must be the same as input size (torch.Size([2, 3]))",
    ),
    case(
        "nn.Module",
        "no forward",
        lambda: nn.Module()(x(3)),
        NotImplementedError,
        'Module [Module] is missing the required "forward" function',
    ),
    case(
        "nn.Module.load_state_dict",
        "a weight of another shape",
        lambda: nn.Linear(2, 2).load_state_dict(nn.Linear(3, 2).state_dict()),
        RuntimeError,
        "size mismatch for weight: copying a param with shape torch.Size([2, 3]) from checkpoint, the shape in current model is torch.Size([2, 2]).",
    ),
    case(
        "nn.Module.load_state_dict",
        "missing keys",
        lambda: nn.Linear(2, 2).load_state_dict({}),
        RuntimeError,
        'Missing key(s) in state_dict: "weight", "bias".',
    ),
    case(
        "nn.Module.register_buffer",
        "a dotted name",
        lambda: nn.Module().register_buffer("a.b", None),
        KeyError,
        'contain "."',
    ),
    case(
        "nn.Module.register_parameter",
        "a plain tensor",
        lambda: nn.Module().register_parameter("a", x(3)),
        TypeError,
        "(nn.Parameter or None required)",
    ),
    case(
        "nn.Module.add_module",
        "a non-module",
        lambda: nn.Module().add_module("a", 3),
        TypeError,
        "int is not a Module subclass",
    ),
    case(
        "nn.Module.to",
        "an integer dtype",
        lambda: nn.Linear(2, 2).to(torch.int64),
        TypeError,
        "nn.Module.to only accepts floating point or complex dtypes, but got desired dtype=torch.int64",
    ),
    case(
        "nn.Module.train",
        "a non-boolean mode",
        lambda: nn.Linear(2, 2).train("yes"),
        ValueError,
        "training mode is expected to be boolean",
    ),
    case("nn.Sequential", "a non-module", lambda: nn.Sequential(3), TypeError, "int is not a Module subclass"),
    case(
        "nn.ModuleList",
        "an index out of range",
        lambda: nn.ModuleList([nn.ReLU()])[3],
        IndexError,
        "index 3 is out of range",
    ),
    case("nn.ModuleDict", "a non-module", lambda: nn.ModuleDict({"a": 3}), TypeError, "int is not a Module subclass"),
    case(
        "nn.Parameter",
        "a list",
        lambda: nn.Parameter([1.0]),
        TypeError,
        "Parameter expects an mt.Tensor or a torch.Tensor, got list",
    ),
    case("nn.Parameter", "an integer tensor", lambda: nn.Parameter(mt.arange(3)), RuntimeError, FLOAT_ONLY_GRAD),
    case(
        "nn.parallel.DistributedDataParallel",
        "no process group",
        lambda: DistributedDataParallel(nn.Linear(2, 2)),
        ValueError,
        "Default process group has not been initialized",
    ),
    # ---------------------------------------------------------------------------- optimizers
    case(
        "optim.Optimizer",
        "no parameters",
        lambda: optim.Optimizer([], {}),
        ValueError,
        "optimizer got an empty parameter list",
    ),
    case(
        "optim.Optimizer",
        "a single tensor",
        lambda: optim.SGD(leaf(2), lr=0.1),
        TypeError,
        "params argument given to the optimizer should be an iterable of Tensors or dicts",
    ),
    case(
        "optim.Optimizer",
        "a non-leaf",
        lambda: optim.SGD([leaf(2) * 2], lr=0.1),
        ValueError,
        "can't optimize a non-leaf Tensor",
    ),
    case(
        "optim.Optimizer",
        "a parameter in two groups",
        lambda: optim.SGD([{"params": linear_params()}] * 2, lr=0.1),
        ValueError,
        "some parameters appear in more than one parameter group",
    ),
    case(
        "optim.Optimizer.load_state_dict",
        "another number of groups",
        lambda: sgd().load_state_dict({"state": {}, "param_groups": []}),
        ValueError,
        "loaded state dict has a different number of parameter groups",
    ),
    case(
        "optim.SGD",
        "a negative learning rate",
        lambda: optim.SGD(linear_params(), lr=-0.1),
        ValueError,
        "Invalid learning rate: -0.1",
    ),
    case(
        "optim.SGD",
        "a negative momentum",
        lambda: optim.SGD(linear_params(), lr=0.1, momentum=-1),
        ValueError,
        "Invalid momentum value: -1",
    ),
    case(
        "optim.SGD",
        "a negative weight decay",
        lambda: optim.SGD(linear_params(), lr=0.1, weight_decay=-1),
        ValueError,
        "Invalid weight_decay value: -1",
    ),
    case(
        "optim.SGD",
        "Nesterov without momentum",
        lambda: optim.SGD(linear_params(), lr=0.1, nesterov=True),
        ValueError,
        "Nesterov momentum requires a momentum and zero dampening",
    ),
    case(
        "optim.Adam",
        "a first beta of 1",
        lambda: optim.Adam(linear_params(), betas=(1.0, 0.999)),
        ValueError,
        "Invalid beta parameter at index 0: 1.0",
    ),
    case(
        "optim.Adam",
        "a negative second beta",
        lambda: optim.Adam(linear_params(), betas=(0.9, -0.1)),
        ValueError,
        "Invalid beta parameter at index 1: -0.1",
    ),
    case(
        "optim.Adam",
        "a negative epsilon",
        lambda: optim.Adam(linear_params(), eps=-1e-8),
        ValueError,
        "Invalid epsilon value: -1e-08",
    ),
    case(
        "optim.Adam",
        "a NaN learning rate",
        lambda: optim.Adam(linear_params(), lr=float("nan")),
        ValueError,
        "Invalid learning rate: nan",
    ),
    case(
        "optim.AdamW",
        "a negative weight decay",
        lambda: optim.AdamW(linear_params(), weight_decay=-0.1),
        ValueError,
        "Invalid weight_decay value: -0.1",
    ),
    case(
        "lr_scheduler.LRScheduler", "no optimizer", lambda: lr_scheduler.LRScheduler(None), TypeError, NOT_AN_OPTIMIZER
    ),
    case(
        "lr_scheduler.LRScheduler",
        "resuming without initial_lr",
        lambda: lr_scheduler.StepLR(sgd(), 2, last_epoch=3),
        KeyError,
        "param 'initial_lr' is not specified in param_groups[0] when resuming scheduler with last_epoch >= 0.",
    ),
    case("lr_scheduler.StepLR", "no optimizer", lambda: lr_scheduler.StepLR(None, 2), TypeError, NOT_AN_OPTIMIZER),
    case(
        "lr_scheduler.MultiStepLR",
        "no optimizer",
        lambda: lr_scheduler.MultiStepLR(None, [2]),
        TypeError,
        NOT_AN_OPTIMIZER,
    ),
    case(
        "lr_scheduler.ExponentialLR",
        "no optimizer",
        lambda: lr_scheduler.ExponentialLR(None, 0.9),
        TypeError,
        NOT_AN_OPTIMIZER,
    ),
    case(
        "lr_scheduler.CosineAnnealingLR",
        "no optimizer",
        lambda: lr_scheduler.CosineAnnealingLR(None, 10),
        TypeError,
        NOT_AN_OPTIMIZER,
    ),
    case(
        "lr_scheduler.LinearLR",
        "a start factor above 1",
        lambda: lr_scheduler.LinearLR(sgd(), start_factor=2),
        ValueError,
        "Starting multiplicative factor expected to be greater than 0 and less or equal to 1.",
    ),
    case(
        "lr_scheduler.OneCycleLR",
        "no length",
        lambda: lr_scheduler.OneCycleLR(sgd(), max_lr=0.1),
        ValueError,
        "You must define either total_steps OR (epochs AND steps_per_epoch)",
    ),
    case(
        "lr_scheduler.OneCycleLR",
        "pct_start above 1",
        lambda: lr_scheduler.OneCycleLR(sgd(), max_lr=0.1, total_steps=10, pct_start=2),
        ValueError,
        "Expected float between 0 and 1 pct_start, but got 2",
    ),
    case(
        "lr_scheduler.ReduceLROnPlateau",
        "a factor of 1 or more",
        lambda: lr_scheduler.ReduceLROnPlateau(sgd(), factor=2),
        ValueError,
        "Factor should be < 1.0.",
    ),
    case(
        "lr_scheduler.ReduceLROnPlateau",
        "an unknown mode",
        lambda: lr_scheduler.ReduceLROnPlateau(sgd(), mode="up"),
        ValueError,
        "mode up is unknown!",
    ),
    # -------------------------------------------------------------------------------- init
    case(
        "init.calculate_gain",
        "an unknown nonlinearity",
        lambda: init.calculate_gain("swoosh"),
        ValueError,
        "Unsupported nonlinearity swoosh",
    ),
    case(
        "init.calculate_gain",
        "a string slope",
        lambda: init.calculate_gain("leaky_relu", "a"),
        ValueError,
        "negative_slope a not a valid number",
    ),
    case(
        "init.uniform_",
        "a above b",
        lambda: init.uniform_(x(3), 2, 1),
        RuntimeError,
        "uniform_ expects to return a [from, to) range, but found from=2 > to=1",
    ),
    case(
        "init.normal_",
        "a negative std",
        lambda: init.normal_(x(3), 0, -1),
        RuntimeError,
        "normal expects std >= 0.0, but found std -1",
    ),
    case(
        "init.trunc_normal_",
        "a list",
        lambda: init.trunc_normal_([1.0]),
        TypeError,
        "expected an mt.Tensor or a torch.Tensor, got list",
    ),
    case(
        "init.constant_",
        "a string value",
        lambda: init.constant_(x(3), "a"),
        TypeError,
        "fill_() received an invalid combination of arguments - got (str)",
    ),
    case(
        "init.ones_",
        "a list",
        lambda: init.ones_([1.0]),
        TypeError,
        "expected an mt.Tensor or a torch.Tensor, got list",
    ),
    case(
        "init.zeros_",
        "a list",
        lambda: init.zeros_([1.0]),
        TypeError,
        "expected an mt.Tensor or a torch.Tensor, got list",
    ),
    case(
        "init.eye_",
        "a 3-D tensor",
        lambda: init.eye_(x(3, 3, 3)),
        ValueError,
        "Only tensors with 2 dimensions are supported",
    ),
    case(
        "init.orthogonal_",
        "a 1-D tensor",
        lambda: init.orthogonal_(x(3)),
        ValueError,
        "Only tensors with 2 or more dimensions are supported",
    ),
    case(
        "init.xavier_uniform_",
        "a 1-D tensor",
        lambda: init.xavier_uniform_(x(3)),
        ValueError,
        "Fan in and fan out can not be computed for tensor with fewer than 2 dimensions",
    ),
    case(
        "init.xavier_normal_",
        "a 1-D tensor",
        lambda: init.xavier_normal_(x(3)),
        ValueError,
        "Fan in and fan out can not be computed for tensor with fewer than 2 dimensions",
    ),
    case(
        "init.kaiming_uniform_",
        "a 1-D tensor",
        lambda: init.kaiming_uniform_(x(3)),
        ValueError,
        "Fan in and fan out can not be computed for tensor with fewer than 2 dimensions",
    ),
    case(
        "init.kaiming_normal_",
        "an unknown mode",
        lambda: init.kaiming_normal_(x(3, 3), mode="fan_avg"),
        ValueError,
        "Mode fan_avg not supported, please use one of ['fan_in', 'fan_out']",
    ),
    # ------------------------------------------------------------- checkpoints, zoo and data
    case(
        "mt.save",
        "a module instead of its state dict",
        lambda: mt.save({"model": nn.Linear(2, 2)}, os.path.join(tempfile.gettempdir(), "mt-bad-input-module.pt")),
        TypeError,
        "mt.load could not read it back, since rebuilding it would run code",
    ),
    case(
        "mt.load",
        "a missing file",
        lambda: mt.load("/nonexistent-folder-for-mt-tests/ck.pt"),
        FileNotFoundError,
        "No such checkpoint: '/nonexistent-folder-for-mt-tests/ck.pt'",
    ),
    case(
        "mt.load",
        "a file that is no checkpoint",
        lambda: mt.load(__file__),
        CheckpointError,
        f"Cannot load '{__file__}': not a complete checkpoint",
    ),
    case(
        "mt.load",
        "an unknown map_location",
        lambda: mt.load(__file__, map_location="nodevice"),
        RuntimeError,
        "Expected one of cpu, cuda",
    ),
    case(
        "models.get",
        "an unknown model",
        lambda: mt.models.get("alexnet"),
        ValueError,
        "unknown model 'alexnet'; available: ",
    ),
    case(
        "models.get",
        "pretrained weights that are not shipped",
        lambda: mt.models.get("mlp", pretrained=True),
        ValueError,
        "no pretrained weights are shipped for 'mlp'",
    ),
    case(
        "data.get_dataset",
        "an unknown data set",
        lambda: mt.data.get_dataset("imagenet"),
        ValueError,
        "unknown dataset 'imagenet'",
    ),
    case(
        "data.get_dataset",
        "CIFAR-10 without a data root",
        lambda: mt.data.get_dataset("cifar10"),
        ValueError,
        "dataset 'cifar10' needs a data root",
    ),
    case(
        "data.DataLoader",
        "a zero batch size",
        lambda: mt.data.DataLoader(mt.data.MNIST(train=False), batch_size=0),
        ValueError,
        "batch_size should be a positive integer value, but got batch_size=0",
    ),
    # ------------------------------------------- issue 13.16: found by tests/test_fuzz_entry_points.py
    case(
        "Tensor.to",
        "a dtype given as a string",
        lambda: x(3).to(dtype="float32"),
        TypeError,
        "to(): argument 'dtype' must be torch.dtype, not str ('float32')",
    ),
    case(
        "mt.autograd.grad",
        "no outputs",
        lambda: mt.autograd.grad([], [leaf(2)]),
        RuntimeError,
        "The differentiated Tensor at index 0 appears to not have been used in the graph",
    ),
    case(
        "mt.autograd.grad",
        "no inputs",
        lambda: mt.autograd.grad([leaf(2).sum()], []),
        RuntimeError,
        "`inputs` argument to `grad()` cannot be empty.",
    ),
    case(
        "mt.autograd.grad",
        "an int as inputs",
        lambda: mt.autograd.grad(leaf(2).sum(), 3),
        TypeError,
        "inputs must be an mt.Tensor or a sequence of them, not int",
    ),
    case(
        "mt.autograd.backward",
        "a string as tensors",
        lambda: mt.autograd.backward("loss"),
        TypeError,
        "tensors must be an mt.Tensor or a sequence of them, not str",
    ),
    case(
        "mt.autograd.backward",
        "a torch tensor among the tensors",
        lambda: mt.autograd.backward([torch.ones(1)]),
        TypeError,
        "tensors[0] must be an mt.Tensor, not Tensor",
    ),
    case(
        "mt.autograd.backward",
        "a float as grad_tensors",
        lambda: mt.autograd.backward([leaf(2).sum()], 1.5),
        TypeError,
        "grad_tensors must be a Tensor, a sequence of Tensors or None, not float",
    ),
    case(
        "mt.autograd.gradcheck",
        "an int as inputs",
        lambda: mt.autograd.gradcheck(mt.exp, 3),
        TypeError,
        "gradcheck inputs must be an mt.Tensor or a sequence, not int",
    ),
    case(
        "optim.Adam",
        "a 2-element tensor lr",
        lambda: optim.Adam(linear_params(), lr=torch.tensor([1e-3, 1e-3])),
        ValueError,
        "Tensor lr must be 1-element",
    ),
    case(
        "optim.SGD",
        "a string lr",
        lambda: optim.SGD(linear_params(), lr="0.1"),
        TypeError,
        "lr must be a float or a 1-element Tensor, not str",
    ),
    case(
        "optim.SGD",
        "a negative tensor lr",
        lambda: optim.SGD(linear_params(), lr=torch.tensor(-0.1)),
        ValueError,
        "Invalid learning rate: -0.1",
    ),
    case(
        "F.pad",
        "an int pad",
        lambda: F.pad(x(2, 3), 1),
        TypeError,
        "pad(): argument 'pad' (position 2) must be tuple of ints, not int",
    ),
    case(
        "F.pad",
        "a float in pad",
        lambda: F.pad(x(2, 3), (1, 1.5)),
        TypeError,
        "must be tuple of ints, but found element of type float",
    ),
    case(
        "F.layer_norm",
        "None as normalized_shape",
        lambda: F.layer_norm(x(2, 3), None),
        TypeError,
        "layer_norm(): argument 'normalized_shape' (position 2) must be tuple of ints, not NoneType",
    ),
    case(
        "F.unfold",
        "a float kernel_size",
        lambda: F.unfold(x(1, 1, 4, 4), 1.5),
        TypeError,
        "im2col(): argument 'kernel_size' (position 2) must be tuple of ints, not float",
    ),
    case(
        "F.conv2d",
        "a torch weight that is too small",
        lambda: F.conv2d(x(1, 1, 4, 4), torch.ones(2, 3)),
        RuntimeError,
        "Expected 4-dimensional weight for 4-dimensional input [1, 1, 4, 4], but got 2-dimensional weight",
    ),
    case(
        "F.conv2d",
        "None as weight",
        lambda: F.conv2d(x(1, 1, 4, 4), None),
        TypeError,
        "conv2d(): argument 'weight' (position 2) must be Tensor, not NoneType",
    ),
    case(
        "F.linear",
        "a string bias",
        lambda: F.linear(x(2, 3), x(4, 3), "b"),
        TypeError,
        "linear(): argument 'bias' (position 3) must be Tensor, not str",
    ),
    case(
        "F.mse_loss",
        "a list as reduction",
        lambda: F.mse_loss(x(3), x(3), reduction=["mean"]),
        ValueError,
        "['mean'] is not a valid value for reduction",
    ),
    case(
        "F.cross_entropy",
        "None as ignore_index",
        lambda: F.cross_entropy(x(2, 3), mt.tensor([0, 1]), ignore_index=None),
        TypeError,
        "cross_entropy(): argument 'ignore_index' (position 4) must be int, not NoneType",
    ),
    case(
        "F.cross_entropy",
        "a string label_smoothing",
        lambda: F.cross_entropy(x(2, 3), mt.tensor([0, 1]), label_smoothing="0.1"),
        TypeError,
        "cross_entropy(): argument 'label_smoothing' (position 6) must be float, not str",
    ),
    case(
        "F.binary_cross_entropy_with_logits",
        "a float pos_weight",
        lambda: F.binary_cross_entropy_with_logits(x(3), x(3), pos_weight=2.0),
        TypeError,
        "binary_cross_entropy_with_logits(): argument 'pos_weight' (position 5) must be Tensor, not float",
    ),
    case(
        "mt.sum",
        "a float dim",
        lambda: mt.sum(x(2, 3), 1.5),
        TypeError,
        "argument 'dim' must be an int or a tuple of ints, not float",
    ),
    case(
        "mt.amax",
        "an empty tensor, no dim",
        lambda: mt.amax(mt.ones(0)),
        RuntimeError,
        "amax(): Expected reduction dim to be specified for input.numel() == 0.",
    ),
    case(
        "mt.maximum",
        "None as other",
        lambda: mt.maximum(x(3), None),
        TypeError,
        "maximum(): argument 'other' (position 2) must be Tensor, not NoneType",
    ),
    case(
        "Tensor.expand_as",
        "a list",
        lambda: x(3).expand_as([1, 2, 3]),
        TypeError,
        "expand_as(): argument 'other' (position 1) must be Tensor, not list",
    ),
]


@pytest.mark.parametrize(("entry", "call", "error", "message"), CASES)
def test_bad_input_raises_a_clear_error(entry, call, error, message):
    with pytest.raises(error, match=re.escape(message)):
        call()


# ----------------------------------------------------------------------------- coverage
#: Entry points no input can make fail: no arguments besides the tensor, and any tensor will do.
ACCEPTS_ANY_INPUT = {
    "mt.is_grad_enabled": "takes no arguments",
    "mt.autograd.is_grad_enabled": "takes no arguments",
    "mt.autograd.is_anomaly_enabled": "takes no arguments",
    "mt.autograd.current_graph": "takes no arguments",
    "Tensor.__repr__": "any tensor prints",
    "Tensor.__hash__": "any tensor hashes (by identity, as PyTorch's)",
    "Tensor.__array__": "any tensor converts (on the CPU, detached)",
    "Tensor.T": "any rank: 0-D and 1-D return themselves, higher ranks reverse their dims",
    "Tensor.bool": "a cast any tensor takes",
    "Tensor.double": "a cast any tensor takes",
    "Tensor.float": "a cast any tensor takes",
    "Tensor.half": "a cast any tensor takes",
    "Tensor.int": "a cast any tensor takes",
    "Tensor.long": "a cast any tensor takes",
    "Tensor.cpu": "any tensor can move to the CPU",
    "Tensor.detach": "any tensor detaches",
    "Tensor.detach_": "any tensor detaches",
    "Tensor.numpy": "any tensor converts (on the CPU, detached)",
    "Tensor.tolist": "any tensor converts",
    "Tensor.torch": "returns the data",
    "Tensor.dim": "metadata",
    "Tensor.ndim": "metadata",
    "Tensor.shape": "metadata",
    "Tensor.dtype": "metadata",
    "Tensor.device": "metadata",
    "Tensor.numel": "metadata",
    "Tensor.element_size": "metadata",
    "Tensor.is_contiguous": "metadata",
    "Tensor.is_floating_point": "metadata",
    "Tensor.is_cuda": "metadata",
    "Tensor.is_leaf": "autograd state",
    "Tensor.grad_fn": "autograd state",
    "Tensor.retains_grad": "autograd state",
    "nn.Identity": "returns whatever it is given, as PyTorch's",
}


def public_entry_points() -> dict[str, object]:
    """Every public callable the API promises, by the name a case gives it."""
    points: dict[str, object] = {}
    for prefix, namespace in (("mt", mt), ("mt.autograd", mt.autograd)):
        for name, obj in vars(namespace).items():
            if not name.startswith("_") and inspect.isfunction(obj):
                points[f"{prefix}.{name}"] = obj
    for name, obj in vars(mt.Tensor).items():
        if name.startswith("_") and not (name.startswith("__") and inspect.isfunction(obj)):
            continue
        if inspect.isfunction(obj) or isinstance(obj, property):
            points[f"Tensor.{name}"] = obj
    points.update({f"F.{name}": getattr(F, name) for name in F.__all__})
    for name, obj in vars(nn).items():
        if inspect.isclass(obj) and issubclass(obj, (nn.Module, nn.Parameter)):
            points[f"nn.{name}"] = obj
    for name, obj in vars(optim).items():
        if inspect.isclass(obj) and issubclass(obj, optim.Optimizer):
            points[f"optim.{name}"] = obj
    for name, obj in vars(lr_scheduler).items():
        if inspect.isclass(obj) and obj.__module__ == lr_scheduler.__name__ and "LR" in name:
            points[f"lr_scheduler.{name}"] = obj
    for name, obj in vars(init).items():
        if not name.startswith("_") and inspect.isfunction(obj) and obj.__module__ == init.__name__:
            points[f"init.{name}"] = obj
    points.update({"models.get": mt.models.get, "data.get_dataset": mt.data.get_dataset})
    return points


def test_every_public_entry_point_has_a_bad_input_case():
    points = public_entry_points()
    cased = {param.values[0] for param in CASES}
    exercised = [points[name] for name in cased if name in points]
    missing = [
        name
        for name, obj in points.items()
        if name not in cased and name not in ACCEPTS_ANY_INPUT and not any(obj is e for e in exercised)
    ]
    assert not missing, f"public entry points with no bad-input case (add one to CASES): {missing}"


def test_every_exemption_names_a_public_entry_point():
    assert not set(ACCEPTS_ANY_INPUT) - set(public_entry_points())


def test_type_takes_a_dtype_or_a_type_name():
    x = mt.ones(2, requires_grad=True)
    assert x.type() == "torch.FloatTensor"
    assert x.type("torch.DoubleTensor").dtype == x.type(torch.float64).dtype == torch.float64
    x.type("torch.DoubleTensor").sum().backward()  # a recorded copy, as PyTorch's
    assert x.grad.tolist() == [1.0, 1.0]
