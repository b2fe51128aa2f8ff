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
    case(
        "Tensor.t_",
        "a 3-D tensor",
        lambda: x(2, 3, 4).t_(),
        RuntimeError,
        "t_() expects a tensor with <= 2 dimensions, but self is 3D",
    ),
    case(
        "Tensor.transpose_",
        "a leaf that requires grad",
        lambda: leaf(2, 3).transpose_(0, 1),
        RuntimeError,
        LEAF_IN_PLACE,
    ),
    case(
        "mt.split",
        "sections that do not add up",
        lambda: mt.split(x(3), [1, 1]),
        RuntimeError,
        "split_with_sizes expects split_sizes to sum exactly to 3 (input tensor's size at dimension 0), but got split_sizes=[1, 1]",
    ),
    case(
        "mt.chunk",
        "zero chunks",
        lambda: mt.chunk(x(3), 0),
        RuntimeError,
        "chunk expects `chunks` to be greater than 0, got: 0",
    ),
    case(
        "mt.unbind",
        "a dim out of range",
        lambda: mt.unbind(x(3), 1),
        IndexError,
        "Dimension out of range (expected to be in range of [-1, 0], but got 1)",
    ),
    case(
        "mt.narrow",
        "a slice past the end",
        lambda: mt.narrow(x(3), 0, 2, 2),
        RuntimeError,
        "start (2) + length (2) exceeds dimension size (3).",
    ),
    case(
        "mt.select",
        "an index out of range",
        lambda: mt.select(x(3), 0, 3),
        IndexError,
        "select(): index 3 out of range for tensor of size [3] at dimension 0",
    ),
    case(
        "Tensor.unfold",
        "a window larger than the dim",
        lambda: x(3).unfold(0, 4, 1),
        RuntimeError,
        "maximum size for tensor at dimension 0 is 3 but size is 4",
    ),
    case(
        "Tensor.view_as",
        "a tensor of another size",
        lambda: x(2).view_as(x(3)),
        RuntimeError,
        "shape '[3]' is invalid for input of size 2",
    ),
    case(
        "Tensor.reshape_as",
        "a tensor of another size",
        lambda: x(2).reshape_as(x(3)),
        RuntimeError,
        "shape '[3]' is invalid for input of size 2",
    ),
    case(
        "Tensor.type_as",
        "a list",
        lambda: x(2).type_as([1]),
        TypeError,
        "type_as(): argument 'other' (position 1) must be Tensor, not list",
    ),
    case(
        "mt.movedim",
        "source and destination of different lengths",
        lambda: mt.movedim(x(2, 3), (0, 1), (0,)),
        RuntimeError,
        "movedim: Invalid source or destination dims: source ([0, 1] dims) should contain the same number of dims as destination ([0] dims)",
    ),
    case(
        "mt.unflatten",
        "sizes that do not multiply up",
        lambda: mt.unflatten(x(2, 3), 1, (2, 2)),
        RuntimeError,
        "unflatten: Provided sizes [2, 2] don't multiply up to the size of dim 1 (3) in the input tensor",
    ),
    case(
        "mt.broadcast_to",
        "a size that does not match",
        lambda: mt.broadcast_to(x(3), (4,)),
        RuntimeError,
        "The expanded size of the tensor (4) must match the existing size (3) at non-singleton dimension 0.",
    ),
    case(
        "mt.broadcast_tensors",
        "shapes that do not broadcast",
        lambda: mt.broadcast_tensors(x(2, 3), x(2, 4)),
        RuntimeError,
        BROADCAST,
    ),
    case(
        "mt.atleast_1d",
        "a list of numbers",
        lambda: mt.atleast_1d([1]),
        TypeError,
        "expected Tensor as element 0 in argument 0, but got int",
    ),
    case(
        "mt.atleast_2d",
        "a float",
        lambda: mt.atleast_2d(1.0),
        TypeError,
        "atleast_2d(): argument 'input' (position 1) must be Tensor, not float",
    ),
    case(
        "mt.atleast_3d",
        "None",
        lambda: mt.atleast_3d(None),
        TypeError,
        "atleast_3d(): argument 'input' (position 1) must be Tensor, not NoneType",
    ),
    case(
        "mt.squeeze",
        "a tuple with a dim out of range",
        lambda: x(2, 3).squeeze((0, 3)),
        IndexError,
        "Dimension out of range (expected to be in range of [-2, 1], but got 3)",
    ),
    case(
        "Tensor.repeat",
        "fewer sizes than dims",
        lambda: x(2, 3).repeat(2),
        RuntimeError,
        "Number of dimensions of repeat dims can not be smaller than number of dimensions of tensor",
    ),
    case(
        "mt.tile",
        "a list",
        lambda: mt.tile([1], (2,)),
        TypeError,
        "tile(): argument 'input' (position 1) must be Tensor, not list",
    ),
    case(
        "mt.repeat_interleave",
        "repeats of another length",
        lambda: mt.repeat_interleave(x(2), mt.tensor([1, 2, 3]), dim=0),
        RuntimeError,
        "repeats must have the same size as input along dim, but got repeats.size(0) = 3 and input.size(0) = 2",
    ),
    case(
        "mt.flip",
        "a dim out of range",
        lambda: mt.flip(x(2), (2,)),
        IndexError,
        "Dimension out of range (expected to be in range of [-1, 0], but got 2)",
    ),
    case("mt.fliplr", "a 1-D tensor", lambda: mt.fliplr(x(3)), RuntimeError, "Input must be >= 2-d."),
    case("mt.flipud", "a 0-D tensor", lambda: mt.flipud(x()), RuntimeError, "Input must be >= 1-d."),
    case(
        "mt.roll",
        "shifts and dims of different lengths",
        lambda: mt.roll(x(3), 1, (0, 0)),
        RuntimeError,
        "shifts and dimensions must align. shifts: 1, dims:2",
    ),
    case(
        "mt.rot90",
        "a 1-D tensor",
        lambda: mt.rot90(x(3)),
        RuntimeError,
        "expected total dims >= 2, but got total dims = 1",
    ),
    case(
        "mt.hstack",
        "a tensor instead of a list",
        lambda: mt.hstack(x(2)),
        TypeError,
        "hstack(): argument 'tensors' (position 1) must be tuple of Tensors, not Tensor",
    ),
    case(
        "mt.vstack",
        "rows of different lengths",
        lambda: mt.vstack([x(2), x(3)]),
        RuntimeError,
        "Sizes of tensors must match except in dimension 0. Expected size 2 but got size 3 for tensor number 1 in the list.",
    ),
    case(
        "mt.dstack",
        "vectors of different lengths",
        lambda: mt.dstack([x(2), x(3)]),
        RuntimeError,
        "Sizes of tensors must match except in dimension 2. Expected size 2 but got size 3 for tensor number 1 in the list.",
    ),
    case(
        "mt.column_stack",
        "columns of different lengths",
        lambda: mt.column_stack([x(2), x(3)]),
        RuntimeError,
        "Sizes of tensors must match except in dimension 1. Expected size 2 but got size 3 for tensor number 1 in the list.",
    ),
    case(
        "mt.diagonal",
        "the same dim twice",
        lambda: mt.diagonal(x(3, 3), 0, 0, 0),
        RuntimeError,
        "diagonal dimensions cannot be identical 0, 0",
    ),
    case(
        "mt.diag",
        "a 3-D tensor",
        lambda: mt.diag(x(2, 2, 2)),
        RuntimeError,
        "diag(): Supports 1D or 2D tensors. Got 3D",
    ),
    case(
        "mt.diag_embed",
        "the same dim twice",
        lambda: mt.diag_embed(x(3), 0, 0, 0),
        RuntimeError,
        "diagonal dimensions cannot be identical 0, 0",
    ),
    case(
        "mt.trace",
        "a 1-D tensor",
        lambda: mt.trace(x(3)),
        RuntimeError,
        "trace: expected a matrix, but got tensor with dim 1",
    ),
    case(
        "mt.tril",
        "a 1-D tensor",
        lambda: mt.tril(x(3)),
        RuntimeError,
        "tril: input tensor must have at least 2 dimensions",
    ),
    case(
        "mt.triu",
        "a 1-D tensor",
        lambda: mt.triu(x(3)),
        RuntimeError,
        "triu: input tensor must have at least 2 dimensions",
    ),
    case("Tensor.tril_", "a leaf that requires grad", lambda: leaf(3, 3).tril_(), RuntimeError, LEAF_IN_PLACE),
    case(
        "Tensor.triu_",
        "a 1-D tensor",
        lambda: x(3).triu_(),
        RuntimeError,
        "triu: input tensor must have at least 2 dimensions",
    ),
    # ------------------------------------------------------------------------------ indexing
    case(
        "mt.gather",
        "an index out of range",
        lambda: mt.gather(x(3), 0, mt.tensor([5])),
        RuntimeError,
        "index 5 is out of bounds for dimension 0 with size 3",
    ),
    case(
        "mt.scatter",
        "a float index",
        lambda: mt.scatter(x(3), 0, mt.tensor([0.0]), x(1)),
        RuntimeError,
        "scatter(): Expected dtype int32/int64 for index",
    ),
    case(
        "Tensor.scatter_",
        "a leaf that requires grad",
        lambda: leaf(3).scatter_(0, mt.tensor([0]), 1.0),
        RuntimeError,
        LEAF_IN_PLACE,
    ),
    case(
        "mt.scatter_add",
        "an index of another rank",
        lambda: mt.scatter_add(x(3), 0, mt.tensor([[0]]), x(1, 1)),
        RuntimeError,
        "Index tensor must have the same number of dimensions as self tensor",
    ),
    case(
        "Tensor.scatter_add_",
        "a leaf that requires grad",
        lambda: leaf(3).scatter_add_(0, mt.tensor([0]), x(1)),
        RuntimeError,
        LEAF_IN_PLACE,
    ),
    case(
        "mt.scatter_reduce",
        "an unknown reduction",
        lambda: mt.scatter_reduce(x(3), 0, mt.tensor([0]), x(1), "max"),
        RuntimeError,
        "reduce argument must be either sum, prod, mean, amax or amin, got max",
    ),
    case(
        "Tensor.scatter_reduce_",
        "an unknown reduction",
        lambda: x(3).scatter_reduce_(0, mt.tensor([0]), x(1), "max"),
        RuntimeError,
        "reduce argument must be either sum, prod, mean, amax or amin, got max",
    ),
    case(
        "mt.index_select",
        "a 2-D index",
        lambda: mt.index_select(x(3), 0, mt.tensor([[0]])),
        IndexError,
        "index_select(): Index is supposed to be a vector",
    ),
    case(
        "mt.index_add",
        "a source of another length",
        lambda: mt.index_add(x(3, 2), 0, mt.tensor([0, 1]), x(1, 2)),
        RuntimeError,
        "index_add_(): Number of indices (2) should be equal to source.size(dim): (1), for dim: 0",
    ),
    case(
        "Tensor.index_add_",
        "a leaf that requires grad",
        lambda: leaf(3).index_add_(0, mt.tensor([0]), x(1)),
        RuntimeError,
        LEAF_IN_PLACE,
    ),
    case(
        "mt.index_copy",
        "a source of another length",
        lambda: mt.index_copy(x(3, 2), 0, mt.tensor([0, 1]), x(1, 2)),
        IndexError,
        "index_copy_(): Number of indices (2) should be equal to source.size(dim) (1)",
    ),
    case(
        "Tensor.index_copy_",
        "a float index",
        lambda: x(3, 2).index_copy_(0, mt.tensor([0.0]), x(1, 2)),
        RuntimeError,
        "index_copy_(): Expected a long tensor for index, but got Float",
    ),
    case(
        "mt.index_fill",
        "a 1-D value",
        lambda: mt.index_fill(x(3), 0, mt.tensor([0]), x(2)),
        RuntimeError,
        "index_fill_ only supports a 0-dimensional value tensor, but got tensor with 1 dimension(s).",
    ),
    case(
        "Tensor.index_fill_",
        "an index out of range",
        lambda: x(3).index_fill_(0, mt.tensor([7]), 1.0),
        IndexError,
        "index 7 is out of bounds for dimension 0 with size 3",
    ),
    case(
        "mt.masked_fill",
        "a float mask",
        lambda: mt.masked_fill(x(3), x(3), 1.0),
        RuntimeError,
        "masked_fill_ only supports boolean masks, but got mask with dtype float",
    ),
    case(
        "Tensor.masked_fill_",
        "a mask larger than the tensor",
        lambda: x(3).masked_fill_(mt.zeros(2, 3) == 0, 1.0),
        RuntimeError,
        "output with shape [3] doesn't match the broadcast shape [2, 3]",
    ),
    case(
        "mt.masked_scatter",
        "a source too small",
        lambda: mt.masked_scatter(x(3), mt.ones(3) > 0, x(2)),
        RuntimeError,
        "Number of elements of source < number of ones in mask",
    ),
    case(
        "Tensor.masked_scatter_",
        "a float mask",
        lambda: x(3).masked_scatter_(x(3), x(3)),
        RuntimeError,
        "masked_scatter_ only supports boolean masks, but got mask with dtype Float",
    ),
    case(
        "mt.masked_select",
        "a float mask",
        lambda: mt.masked_select(x(3), x(3)),
        RuntimeError,
        "masked_select: expected BoolTensor for mask",
    ),
    case(
        "mt.take",
        "an index out of range",
        lambda: mt.take(x(3), mt.tensor([3])),
        IndexError,
        "out of range: tried to access index 3 on a tensor of 3 elements.",
    ),
    case(
        "mt.take_along_dim",
        "int32 indices",
        lambda: mt.take_along_dim(x(3), mt.tensor([0], dtype=mt.int32), 0),
        RuntimeError,
        "torch.take_along_dim(): dtype of indices should be Long but got Int",
    ),
    case(
        "mt.take_along_dim",
        "indices of another rank",
        lambda: mt.take_along_dim(x(3, 2), mt.tensor([0]), 0),
        RuntimeError,
        "input and indices should have the same number of dimensions, but got 2 dimensions for input, and 1 dimensions for indices",
    ),
    case(
        "mt.nonzero",
        "a list",
        lambda: mt.nonzero([1]),
        TypeError,
        "nonzero(): argument 'input' (position 1) must be Tensor, not list",
    ),
    case(
        "mt.argwhere",
        "a list",
        lambda: mt.argwhere([1]),
        TypeError,
        "argwhere(): argument 'input' (position 1) must be Tensor, not list",
    ),
    # ------------------------------------------------------------------- sorting, searching
    case("mt.sort", "a dim out of range", lambda: mt.sort(x(2, 3), 2), IndexError, DIM_2D),
    case("mt.argsort", "a dim out of range", lambda: mt.argsort(x(2, 3), 2), IndexError, DIM_2D),
    case("mt.topk", "k larger than the dim", lambda: mt.topk(x(3), 4), RuntimeError, "selected index k out of range"),
    case(
        "mt.kthvalue",
        "k larger than the dim",
        lambda: mt.kthvalue(x(3), 4),
        RuntimeError,
        "kthvalue(): selected number k out of range for dimension 0",
    ),
    case(
        "mt.unique",
        "a list",
        lambda: mt.unique([1, 2]),
        TypeError,
        "unique(): argument 'input' (position 1) must be Tensor, not list",
    ),
    case(
        "mt.unique_consecutive", "a dim out of range", lambda: mt.unique_consecutive(x(2, 3), dim=2), IndexError, DIM_2D
    ),
    case(
        "mt.searchsorted",
        "boundaries whose batch differs",
        lambda: mt.searchsorted(x(2, 3), x(3, 3)),
        RuntimeError,
        "torch.searchsorted(): boundaries tensor should be 1 dimension or the first N-1 dimensions of boundaries tensor and input value tensor must match, but we got boundaries tensor [2, 3] and input value tensor [3, 3]",
    ),
    case(
        "mt.bucketize",
        "2-D boundaries",
        lambda: mt.bucketize(x(3), x(2, 2)),
        RuntimeError,
        "boundaries tensor must be 1 dimension, but got dim(2)",
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
    case(
        "mt.autograd.gradgradcheck",
        "float32 inputs",
        lambda: mt.autograd.gradgradcheck(lambda t: t * t, (leaf(3),)),
        GradcheckError,
        "gradcheck needs float64 inputs for precision; input 0 is torch.float32",
    ),
    case(
        "mt.autograd.functional.vjp",
        "v of another shape than the output",
        lambda: mt.autograd.functional.vjp(lambda t: t * 2, x(3), x(2)),
        RuntimeError,
        "Entry 0 in v has invalid size: should be [3] but got [2].",
    ),
    case(
        "mt.autograd.functional.jvp",
        "v of another shape than the input",
        lambda: mt.autograd.functional.jvp(lambda t: t * 2, x(3), x(2)),
        RuntimeError,
        "Entry 0 in v has invalid size: should be [3] but got [2].",
    ),
    case(
        "mt.autograd.functional.jacobian",
        "inputs as a list",
        lambda: mt.autograd.functional.jacobian(lambda t: t * 2, [x(3)]),
        TypeError,
        "The inputs given to jacobian must be either a Tensor or a tuple of Tensors but the given inputs has type list.",
    ),
    case(
        "mt.autograd.functional.hessian",
        "a function with a non-scalar output",
        lambda: mt.autograd.functional.hessian(lambda t: t * 2, x(3)),
        RuntimeError,
        "The function given to hessian should return a single Tensor with a single element.",
    ),
    case(
        "mt.autograd.functional.hvp",
        "no v for an input of several elements",
        lambda: mt.autograd.functional.hvp(lambda t: (t * t).sum(), x(3)),
        RuntimeError,
        "The vector v can only be None if the input to the user-provided function is a single Tensor with a single element.",
    ),
    case(
        "mt.autograd.functional.vhp",
        "a function with a non-scalar output",
        lambda: mt.autograd.functional.vhp(lambda t: t * t, x(3), x(3)),
        RuntimeError,
        "The function given to vhp should return a single Tensor with a single element.",
    ),
    case(
        "mt.utils.checkpoint.checkpoint",
        "something that is not callable",
        lambda: mt.utils.checkpoint.checkpoint(3, x(2)),
        TypeError,
        "checkpoint expects a callable, got int",
    ),
    case(
        "mt.utils.checkpoint.checkpoint_sequential",
        "zero segments",
        lambda: mt.utils.checkpoint.checkpoint_sequential([lambda t: t], 0, x(2)),
        ValueError,
        "segments must be a positive int, got 0",
    ),
    case(
        "Tensor.register_hook",
        "a tensor that does not require grad",
        lambda: x(3).register_hook(lambda g: g),
        RuntimeError,
        "cannot register a hook on a tensor that doesn't require gradient",
    ),
    case(
        "Tensor.register_hook",
        "a hook that is not callable",
        lambda: leaf(3).register_hook(3),
        TypeError,
        "hook must be callable, got int",
    ),
    case(
        "Tensor.sum_to_size",
        "a size the shape does not broadcast from",
        lambda: x(2, 3).sum_to_size(4),
        RuntimeError,
        "size [4] is not expandable to size [2, 3].",
    ),
    case(
        "Tensor.mT",
        "a 1-D tensor",
        lambda: x(3).mT,
        RuntimeError,
        "tensor.mT is only supported on matrices or batches of matrices. Got 1-D tensor.",
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
    # ------------------------------------------------------------ F: transposed convolution
    case(
        "F.conv_transpose2d",
        "input channels that are not the weight's first dim",
        lambda: F.conv_transpose2d(x(1, 3, 4, 4), x(4, 2, 3, 3)),
        RuntimeError,
        "Given transposed=1, weight of size [4, 2, 3, 3], expected input[1, 3, 4, 4] to have 4 channels, but got 3 channels instead",
    ),
    case(
        "F.conv_transpose2d",
        "output padding not below stride or dilation",
        lambda: F.conv_transpose2d(x(1, 3, 4, 4), x(3, 2, 3, 3), stride=2, output_padding=2),
        RuntimeError,
        "output padding must be smaller than either stride or dilation, but got output_padding_height: 2 output_padding_width: 2 stride_height: 2 stride_width: 2 dilation_height: 1 dilation_width: 1",
    ),
    case(
        "F.conv_transpose2d",
        "a bias of the wrong size",
        lambda: F.conv_transpose2d(x(1, 3, 4, 4), x(3, 2, 3, 3), x(5)),
        RuntimeError,
        "Given transposed=1, weight of size [3, 2, 3, 3], expected bias to be 1-dimensional with 2 elements, but got bias of size [5] instead",
    ),
    case(
        "F.conv_transpose2d",
        "padding that leaves no output",
        lambda: F.conv_transpose2d(x(1, 3, 1, 1), x(3, 2, 3, 3), padding=2),
        RuntimeError,
        "Given input size per channel: (1 x 1). Calculated output size per channel: (-1 x -1). Output size is too small",
    ),
    case(
        "F.conv_transpose2d",
        "a weight of another dtype",
        lambda: F.conv_transpose2d(x(1, 3, 4, 4), x(3, 2, 3, 3, dtype=F64)),
        RuntimeError,
        "expected scalar type Float but found Double",
    ),
    case(
        "F.conv_transpose1d",
        "a 2-D weight",
        lambda: F.conv_transpose1d(x(1, 3, 4), x(3, 2)),
        RuntimeError,
        "Expected 3-dimensional weight for 3-dimensional input [1, 3, 4], but got 2-dimensional weight of size [3, 2] instead",
    ),
    case(
        "F.conv_transpose3d",
        "a 3-D input",
        lambda: F.conv_transpose3d(x(3, 4, 4), x(3, 2, 3, 3, 3)),
        RuntimeError,
        "Expected 4D (unbatched) or 5D (batched) input to conv_transpose3d, but got input of size: [3, 4, 4]",
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
    *[
        case(
            f"F.{name}",
            "a 2-D input",
            lambda name=name: getattr(F, name)(x(3, 4), size=3),
            NotImplementedError,
            "Input Error: Only 3D, 4D and 5D input Tensors supported (got 2D)",
            pytest.mark.filterwarnings("ignore:`nn.functional.upsample"),
        )
        for name in ("upsample", "upsample_nearest", "upsample_bilinear")
    ],
    case(
        "F.adaptive_max_pool1d",
        "a 4-D input",
        lambda: F.adaptive_max_pool1d(x(2, 3, 4, 5), 2),
        RuntimeError,
        "Expected 2 to 3 dimensions, but got 4-dimensional tensor for argument #1 'self' (while checking arguments for adaptive_max_pool1d)",
    ),
    case(
        "F.adaptive_max_pool3d",
        "a 3-D input",
        lambda: F.adaptive_max_pool3d(x(2, 3, 4), 2),
        RuntimeError,
        "adaptive_max_pool3d(): Expected 4D or 5D tensor, but got: [2, 3, 4]",
    ),
    case(
        "nn.AdaptiveMaxPool1d",
        "a 4-D input",
        lambda: nn.AdaptiveMaxPool1d(2)(x(2, 3, 4, 5)),
        RuntimeError,
        "Expected 2 to 3 dimensions, but got 4-dimensional tensor",
    ),
    case(
        "nn.AdaptiveMaxPool3d",
        "a 3-D input",
        lambda: nn.AdaptiveMaxPool3d(2)(x(2, 3, 4)),
        RuntimeError,
        "adaptive_max_pool3d(): Expected 4D or 5D tensor, but got: [2, 3, 4]",
    ),
    case(
        "F.lp_pool1d",
        "a kernel longer than the input",
        lambda: F.lp_pool1d(x(2, 3, 4), 2, 5),
        RuntimeError,
        "Given input size: (3x1x4). Calculated output size: (3x1x0). Output size is too small",
    ),
    case(
        "F.lp_pool2d",
        "a kernel larger than the input",
        lambda: F.lp_pool2d(x(2, 3, 4, 4), 2, 5),
        RuntimeError,
        "Given input size: (3x4x4). Calculated output size: (3x0x0). Output size is too small",
    ),
    case(
        "F.lp_pool3d",
        "a kernel larger than the input",
        lambda: F.lp_pool3d(x(2, 3, 4, 4, 4), 2, 5),
        RuntimeError,
        "input image (T: 4 H: 4 W: 4) smaller than kernel size (kT: 5 kH: 5 kW: 5)",
    ),
    case(
        "nn.LPPool1d",
        "a kernel longer than the input",
        lambda: nn.LPPool1d(2, 5)(x(2, 3, 4)),
        RuntimeError,
        "Calculated output size: (3x1x0). Output size is too small",
    ),
    case(
        "nn.LPPool2d",
        "a kernel larger than the input",
        lambda: nn.LPPool2d(2, 5)(x(2, 3, 4, 4)),
        RuntimeError,
        "Calculated output size: (3x0x0). Output size is too small",
    ),
    case(
        "nn.LPPool3d",
        "a kernel larger than the input",
        lambda: nn.LPPool3d(2, 5)(x(2, 3, 4, 4, 4)),
        RuntimeError,
        "smaller than kernel size (kT: 5 kH: 5 kW: 5)",
    ),
    case(
        "F.max_unpool1d",
        "an output size out of reach",
        lambda: F.max_unpool1d(x(1, 1, 2), mt.zeros(1, 1, 2, dtype=torch.long), 2, output_size=(9,)),
        ValueError,
        'invalid output_size "[9]" (dim 0 must be between 2 and 6)',
    ),
    case(
        "F.max_unpool2d",
        "float indices",
        lambda: F.max_unpool2d(x(1, 1, 2, 2), mt.zeros(1, 1, 2, 2), 2),
        RuntimeError,
        "elements in indices should be type int64 but got: Float",
    ),
    case(
        "F.max_unpool3d",
        "an output size out of reach",
        lambda: F.max_unpool3d(x(1, 1, 2, 2, 2), mt.zeros(1, 1, 2, 2, 2, dtype=torch.long), 2, output_size=(9, 9, 9)),
        ValueError,
        'invalid output_size "[9, 9, 9]" (dim 0 must be between 2 and 6)',
    ),
    case(
        "nn.MaxUnpool1d",
        "indices of another shape",
        lambda: nn.MaxUnpool1d(2)(x(1, 1, 2), mt.zeros(1, 1, 3, dtype=torch.long)),
        RuntimeError,
        "Expected shape of indices to be same as that of the input tensor",
    ),
    case(
        "nn.MaxUnpool2d",
        "an output size out of reach",
        lambda: nn.MaxUnpool2d(2)(x(1, 1, 2, 2), mt.zeros(1, 1, 2, 2, dtype=torch.long), output_size=(9, 9)),
        ValueError,
        'invalid output_size "[9, 9]" (dim 0 must be between 2 and 6)',
    ),
    case(
        "nn.MaxUnpool3d",
        "float indices",
        lambda: nn.MaxUnpool3d(2)(x(1, 1, 2, 2, 2), mt.zeros(1, 1, 2, 2, 2)),
        RuntimeError,
        "elements in indices should be type int64",
    ),
    case(
        "F.interpolate",
        "both size and scale_factor",
        lambda: F.interpolate(x(1, 2, 3, 4), size=3, scale_factor=2),
        ValueError,
        "only one of size or scale_factor should be defined",
    ),
    case(
        "F.interpolate",
        "a size of another rank",
        lambda: F.interpolate(x(1, 2, 3, 4), size=(2, 3, 4)),
        ValueError,
        "Input and output must have the same number of spatial dimensions, but got input with spatial dimensions of [3, 4] and output size of (2, 3, 4).",
    ),
    case(
        "F.interpolate",
        "align_corners with nearest",
        lambda: F.interpolate(x(1, 2, 3, 4), size=3, align_corners=True),
        ValueError,
        "align_corners option can only be set with the interpolating modes: linear | bilinear | bicubic | trilinear",
    ),
    case(
        "F.interpolate",
        "linear mode on a 4-D input",
        lambda: F.interpolate(x(1, 2, 3, 4), size=3, mode="linear"),
        NotImplementedError,
        "Got 4D input, but linear mode needs 3D input",
    ),
    case(
        "F.interpolate",
        "a 2-D input",
        lambda: F.interpolate(x(3, 4), size=3),
        NotImplementedError,
        "Input Error: Only 3D, 4D and 5D input Tensors supported (got 2D)",
    ),
    case(
        "F.interpolate",
        "a zero output size",
        lambda: F.interpolate(x(1, 2, 3, 4), size=0),
        RuntimeError,
        "Input and output sizes should be greater than 0, but got input (H: 3, W: 4) output (H: 0, W: 0)",
    ),
    case(
        "F.interpolate",
        "recompute_scale_factor with a size",
        lambda: F.interpolate(x(1, 2, 3), size=3, recompute_scale_factor=True),
        ValueError,
        "recompute_scale_factor is not meaningful with an explicit size.",
    ),
    case(
        "F.grid_sample",
        "a grid with 3 coordinates for a 4-D input",
        lambda: F.grid_sample(x(1, 2, 3, 4), x(1, 2, 2, 3), align_corners=False),
        RuntimeError,
        "grid_sampler(): expected grid to have size 2 in last dimension, but got grid with sizes [1, 2, 2, 3]",
    ),
    case(
        "F.grid_sample",
        "a grid of another batch size",
        lambda: F.grid_sample(x(1, 2, 3, 4), x(2, 2, 2, 2), align_corners=False),
        RuntimeError,
        "grid_sampler(): expected grid and input to have same batch size, but got input with sizes [1, 2, 3, 4] and grid with sizes [2, 2, 2, 2]",
    ),
    case(
        "F.grid_sample",
        "an unknown padding mode",
        lambda: F.grid_sample(x(1, 2, 3, 4), x(1, 2, 2, 2), padding_mode="bad", align_corners=False),
        ValueError,
        "nn.functional.grid_sample(): expected padding_mode to be 'zeros', 'border', or 'reflection', but got: 'bad'",
    ),
    case(
        "F.grid_sample",
        "bicubic on a 5-D input",
        lambda: F.grid_sample(x(1, 1, 2, 2, 2), x(1, 1, 1, 1, 3), mode="bicubic", align_corners=False),
        RuntimeError,
        "grid_sampler(): bicubic interpolation only supports 4D input",
    ),
    case(
        "F.affine_grid",
        "3x3 matrices for a 2-D grid",
        lambda: F.affine_grid(x(1, 3, 3), (1, 2, 3, 3), align_corners=False),
        ValueError,
        "Expected a batch of 2D affine matrices of shape Nx2x3 for size torch.Size([1, 2, 3, 3]). Got torch.Size([1, 3, 3]).",
    ),
    case(
        "F.affine_grid",
        "a 3-D size",
        lambda: F.affine_grid(x(1, 2, 3), (1, 2, 3), align_corners=False),
        NotImplementedError,
        "affine_grid only supports 4D and 5D sizes, for 2D and 3D affine transforms, respectively. Got size torch.Size([1, 2, 3]).",
    ),
    case(
        "nn.Upsample",
        "no size and no scale factor",
        lambda: nn.Upsample()(x(1, 2, 3, 4)),
        ValueError,
        "either size or scale_factor should be defined",
    ),
    case(
        "nn.UpsamplingNearest2d",
        "a 2-D input",
        lambda: nn.UpsamplingNearest2d(scale_factor=2)(x(3, 4)),
        NotImplementedError,
        "Input Error: Only 3D, 4D and 5D input Tensors supported (got 2D)",
    ),
    case(
        "nn.UpsamplingBilinear2d",
        "a 3-D input",
        lambda: nn.UpsamplingBilinear2d(scale_factor=2)(x(2, 3, 4)),
        NotImplementedError,
        "Got 3D input, but bilinear mode needs 4D input",
    ),
    case(
        "F.pixel_shuffle",
        "channels not divisible by the factor squared",
        lambda: F.pixel_shuffle(x(1, 3, 2, 2), 2),
        RuntimeError,
        "pixel_shuffle expects its input's 'channel' dimension to be divisible by the square of upscale_factor, but input.size(-3)=3 is not divisible by 4",
    ),
    case(
        "F.pixel_unshuffle",
        "a height the factor does not divide",
        lambda: F.pixel_unshuffle(x(1, 3, 3, 2), 2),
        RuntimeError,
        "pixel_unshuffle expects height to be divisible by downscale_factor, but input.size(-2)=3 is not divisible by 2",
    ),
    case(
        "nn.PixelShuffle",
        "a 2-D input",
        lambda: nn.PixelShuffle(2)(x(3, 2)),
        RuntimeError,
        "pixel_shuffle expects input to have at least 3 dimensions, but got input with 2 dimension(s)",
    ),
    case(
        "nn.PixelUnshuffle",
        "a width the factor does not divide",
        lambda: nn.PixelUnshuffle(2)(x(1, 2, 4, 3)),
        RuntimeError,
        "pixel_unshuffle expects width to be divisible by downscale_factor, but input.size(-1)=3 is not divisible by 2",
    ),
    *[
        case(
            f"nn.ZeroPad{n}d",
            "a 0-D input",
            lambda n=n: getattr(nn, f"ZeroPad{n}d")(1)(x()),
            RuntimeError,
            f"Padding length should be less than or equal to two times the input dimension but got padding length {2 * n} and input of dimension 0",
        )
        for n in (1, 2, 3)
    ],
    *[
        case(
            f"nn.ConstantPad{n}d",
            "an odd padding length",
            lambda n=n: getattr(nn, f"ConstantPad{n}d")((1, 2, 3), 0.0)(x(2, 3, 3, 3)),
            RuntimeError,
            "Padding length must be divisible by 2",
        )
        for n in (1, 2, 3)
    ],
    *[
        case(
            f"nn.{kind}Pad{n}d",
            f"a {n}-D input",
            lambda kind=kind, n=n: getattr(nn, f"{kind}Pad{n}d")(1)(x(*(3,) * n)),
            NotImplementedError,
            f"Padding size {2 * n} is not supported for {n}D input tensor.",
        )
        for kind in ("Reflection", "Replication")
        for n in (1, 2, 3)
    ],
    *[
        case(
            f"nn.CircularPad{n}d",
            f"a {n}-D input",
            lambda n=n: getattr(nn, f"CircularPad{n}d")(1)(x(*(3,) * n)),
            ValueError,
            f"expected {n + 1}D or {n + 2}D input (got {n}D input)",
        )
        for n in (1, 2, 3)
    ],
    case(
        "F.group_norm",
        "channels the groups do not divide",
        lambda: F.group_norm(x(2, 5, 3), 2),
        RuntimeError,
        "Expected number of channels in input to be divisible by num_groups, but got input of shape [2, 5, 3] and num_groups=2",
    ),
    case(
        "F.group_norm",
        "a weight of another size",
        lambda: F.group_norm(x(2, 6, 3), 2, x(4)),
        RuntimeError,
        "Expected weight to be a vector of size equal to the number of channels in input, but got weight of shape [4] and input of shape [2, 6, 3]",
    ),
    case(
        "F.group_norm",
        "a 1-D input",
        lambda: F.group_norm(x(6), 2),
        RuntimeError,
        "Expected at least 2 dimensions for input tensor but received 1",
    ),
    case(
        "F.instance_norm",
        "one spatial element",
        lambda: F.instance_norm(x(2, 3, 1)),
        ValueError,
        "Expected more than 1 spatial element when training, got input size torch.Size([2, 3, 1])",
    ),
    case(
        "F.instance_norm",
        "running statistics of another size",
        lambda: F.instance_norm(x(2, 3, 4), mt.zeros(4), mt.ones(4)),
        RuntimeError,
        "running_mean should contain 6 elements not 8",
    ),
    case(
        "F.local_response_norm",
        "a 2-D input",
        lambda: F.local_response_norm(x(2, 3), 2),
        ValueError,
        "Expected 3D or higher dimensionality input (got 2 dimensions)",
    ),
    case(
        "nn.GroupNorm",
        "channels the groups do not divide",
        lambda: nn.GroupNorm(2, 5),
        ValueError,
        "num_channels (5) must be divisible by num_groups (2)",
    ),
    case(
        "nn.InstanceNorm1d",
        "a 4-D input",
        lambda: nn.InstanceNorm1d(3)(x(2, 3, 4, 5)),
        ValueError,
        "expected 2D or 3D input (got 4D input)",
    ),
    case(
        "nn.InstanceNorm2d",
        "channels other than num_features with affine",
        lambda: nn.InstanceNorm2d(3, affine=True)(x(2, 4, 4, 5)),
        ValueError,
        "expected input's size at dim=1 to match num_features (3), but got: 4.",
    ),
    case(
        "nn.InstanceNorm3d",
        "a 3-D input",
        lambda: nn.InstanceNorm3d(3)(x(3, 4, 5)),
        ValueError,
        "expected 4D or 5D input (got 3D input)",
    ),
    case(
        "nn.LocalResponseNorm",
        "a 2-D input",
        lambda: nn.LocalResponseNorm(2)(x(2, 3)),
        ValueError,
        "Expected 3D or higher dimensionality input (got 2 dimensions)",
    ),
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
        "nn.ConvTranspose2d",
        "an output size the stride cannot give",
        lambda: nn.ConvTranspose2d(3, 2, 3)(x(1, 3, 4, 4), output_size=(9, 9)),
        ValueError,
        "requested an output size of (9, 9), but valid sizes range from [6, 6] to [6, 6] (for an input of torch.Size([4, 4]))",
    ),
    case(
        "nn.ConvTranspose1d",
        "a padding mode other than zeros",
        lambda: nn.ConvTranspose1d(3, 2, 3, padding_mode="reflect"),
        ValueError,
        'Only "zeros" padding mode is supported for ConvTranspose1d',
    ),
    case(
        "nn.ConvTranspose3d",
        "channels that groups do not divide",
        lambda: nn.ConvTranspose3d(3, 2, 3, groups=2),
        ValueError,
        "in_channels must be divisible by groups",
    ),
    case(
        "nn.Fold",
        "blocks that do not fit the output",
        lambda: nn.Fold((2, 2), 3)(x(1, 9, 4)),
        RuntimeError,
        "expected size of input's dimension 2 to match the calculated number of sliding blocks 0 * 0 = 0, but got input.size(2)=4.",
    ),
    case(
        "nn.Unfold",
        "a kernel larger than the input",
        lambda: nn.Unfold(3)(x(1, 1, 2, 2)),
        RuntimeError,
        "calculated shape of the array of sliding blocks as (0, 0), but its components must be at least one.",
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
]


# ------------------------------------------------------------------ comparisons, logical and bitwise ops
COMPARISON_NAMES = ["eq", "ne", "lt", "le", "gt", "ge"]
LOGICAL_NAMES = ["logical_and", "logical_or", "logical_xor"]
BITWISE_NAMES = ["bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_left_shift", "bitwise_right_shift"]
CASES += [
    *[
        case(
            f"mt.{name}",
            "non-broadcastable shapes",
            lambda name=name: getattr(mt, name)(x(2, 3), x(2, 4)),
            RuntimeError,
            BROADCAST,
        )
        for name in COMPARISON_NAMES + LOGICAL_NAMES
    ],
    *[
        case(
            f"mt.{name}",
            "a list",
            lambda name=name: getattr(mt, name)([1.0]),
            TypeError,
            f"{name}(): argument 'input' (position 1) must be Tensor, not list",
        )
        for name in ["isnan", "isinf", "isfinite", "logical_not", "bitwise_not", "all", "any", "count_nonzero"]
    ],
    *[
        case(
            f"mt.{name}",
            "float tensors",
            lambda name=name: getattr(mt, name)(x(2), x(2)),
            NotImplementedError,
            "not implemented for 'Float'",
        )
        for name in BITWISE_NAMES
    ],
    case(
        "mt.isclose",
        "a list other",
        lambda: mt.isclose(x(2), [1.0]),
        TypeError,
        "isclose(): argument 'other' (position 2) must be Tensor, not list",
    ),
    case("mt.isclose", "mixed dtypes", lambda: mt.isclose(x(2), x(2).long()), RuntimeError, "Float did not match Long"),
    case("mt.allclose", "non-broadcastable shapes", lambda: mt.allclose(x(2, 3), x(2, 4)), RuntimeError, BROADCAST),
    case(
        "mt.equal",
        "a list other",
        lambda: mt.equal(x(2), [1.0]),
        TypeError,
        "equal(): argument 'other' (position 2) must be Tensor, not list",
    ),
    case("Tensor.all", "a dim out of range", lambda: x(2, 3).all(2), IndexError, DIM_2D),
    case(
        "Tensor.__invert__",
        "a float tensor",
        lambda: ~x(2),
        TypeError,
        "~ (operator.invert) is only implemented on integer and Boolean-type tensors",
    ),
    *[
        case(
            f"Tensor.{name}",
            "float tensors",
            lambda name=name: getattr(x(2), name)(x(2)),
            NotImplementedError,
            "not implemented for 'Float'",
        )
        for name in ["__and__", "__or__", "__xor__", "__iand__", "__ior__", "__ixor__"]
    ],
    *[
        case(
            f"Tensor.{name}",
            "a float tensor",
            lambda name=name: getattr(x(2), name)(True),
            NotImplementedError,
            "not implemented for 'Float'",
        )
        for name in ["__rand__", "__ror__", "__rxor__"]
    ],
    *[
        case(
            f"Tensor.{name}_",
            "non-broadcastable shapes",
            lambda name=name: getattr(x(2, 3) > 0, name + "_")(x(2, 4) > 0),
            RuntimeError,
            BROADCAST,
        )
        for name in LOGICAL_NAMES + BITWISE_NAMES[:3]
    ],
    *[
        case(
            f"Tensor.{name}_",
            "a float tensor",
            lambda name=name: getattr(x(2), name + "_")(),
            NotImplementedError,
            "not implemented for 'Float'",
        )
        for name in ["bitwise_not"]
    ],
    case(
        "Tensor.logical_not_", "a leaf that requires grad", lambda: leaf(2).logical_not_(), RuntimeError, LEAF_IN_PLACE
    ),
    *[
        case(
            f"Tensor.{name}_",
            "a leaf that requires grad",
            lambda name=name: getattr(leaf(2), name + "_")(0.0),
            RuntimeError,
            LEAF_IN_PLACE,
        )
        for name in COMPARISON_NAMES
    ],
]

# ------------------------------------------------------------------ elementwise math
UNARY_MATH = [
    "log1p",
    "expm1",
    "rsqrt",
    "reciprocal",
    "log2",
    "log10",
    "exp2",
    "tan",
    "asin",
    "acos",
    "atan",
    "sinh",
    "cosh",
    "asinh",
    "acosh",
    "atanh",
    "erf",
    "erfinv",
    "frac",
    "floor",
    "ceil",
    "trunc",
    "sign",
    "round",
    "square",
]
BINARY_MATH = ["fmod", "remainder", "atan2", "hypot", "logaddexp", "floor_divide"]
CASES += [
    *[
        case(
            f"mt.{name}",
            "a list",
            lambda name=name: getattr(mt, name)([1.0]),
            TypeError,
            f"{name}(): argument 'input' (position 1) must be Tensor, not list",
        )
        for name in UNARY_MATH
    ],
    *[
        case(
            f"mt.{name}",
            "a list",
            lambda name=name: getattr(mt, name)([1.0], x(1)),
            TypeError,
            f"{name}(): argument 'input' (position 1) must be Tensor, not list",
        )
        for name in BINARY_MATH + ["clamp_min", "clamp_max"]
    ],
    case(
        "mt.lerp",
        "a list",
        lambda: mt.lerp([1.0], x(1), 0.5),
        TypeError,
        "lerp(): argument 'input' (position 1) must be Tensor, not list",
    ),
    *[
        case(
            f"mt.{name}",
            "non-broadcastable shapes",
            lambda name=name: getattr(mt, name)(x(2, 3), x(2, 4)),
            RuntimeError,
            BROADCAST,
        )
        for name in BINARY_MATH + ["clamp_min", "clamp_max"]
    ],
    *[
        case(
            f"mt.{name}",
            "a number other",
            lambda name=name: getattr(mt, name)(x(2), 1.0),
            TypeError,
            f"{name}(): argument 'other' (position 2) must be Tensor, not float",
        )
        for name in ["atan2", "hypot", "logaddexp"]
    ],
    case("mt.lerp", "non-broadcastable shapes", lambda: mt.lerp(x(2, 3), x(2, 4), 0.5), RuntimeError, BROADCAST),
    case(
        "mt.lerp",
        "a list end",
        lambda: mt.lerp(x(2), [1.0], 0.5),
        TypeError,
        "lerp(): argument 'end' (position 2) must be Tensor, not list",
    ),
    *[
        case(
            f"Tensor.{name}_",
            "a leaf that requires grad",
            lambda name=name: getattr(leaf(2), name + "_")(),
            RuntimeError,
            LEAF_IN_PLACE,
        )
        for name in UNARY_MATH + ["exp", "log", "sqrt", "sin", "cos", "abs", "neg", "sigmoid", "tanh", "relu"]
    ],
    *[
        case(
            f"Tensor.{name}_",
            "a leaf that requires grad",
            lambda name=name: getattr(leaf(2), name + "_")(x(2)),
            RuntimeError,
            LEAF_IN_PLACE,
        )
        for name in ["fmod", "remainder", "atan2", "hypot", "floor_divide", "clamp_min", "clamp_max"]
    ],
    case("Tensor.lerp_", "a leaf that requires grad", lambda: leaf(2).lerp_(x(2), 0.5), RuntimeError, LEAF_IN_PLACE),
    case("Tensor.__floordiv__", "non-broadcastable shapes", lambda: x(2, 3) // x(2, 4), RuntimeError, BROADCAST),
    case(
        "Tensor.__rfloordiv__",
        "a string",
        lambda: "a" // x(2),
        TypeError,
        "unsupported operand type(s) for //: 'str' and 'Tensor'",
    ),
    case(
        "Tensor.__ifloordiv__",
        "a leaf that requires grad",
        lambda: leaf(2).__ifloordiv__(2),
        RuntimeError,
        LEAF_IN_PLACE,
    ),
    case("Tensor.__mod__", "non-broadcastable shapes", lambda: x(2, 3) % x(2, 4), RuntimeError, BROADCAST),
    case(
        "Tensor.__rmod__", "a list", lambda: [1] % x(2), TypeError, "unsupported operand type for a Tensor op: 'list'"
    ),
    case("Tensor.__imod__", "a leaf that requires grad", lambda: leaf(2).__imod__(2), RuntimeError, LEAF_IN_PLACE),
]


# ------------------------------------------------------------------ products, scans, norms, linear algebra
MATMUL_SHAPES = "mat1 and mat2 shapes cannot be multiplied (2x3 and 4x2)"
CASES += [
    case("mt.prod", "a dim out of range", lambda: mt.prod(x(2, 3), 2), IndexError, DIM_2D),
    case(
        "mt.prod",
        "a list",
        lambda: mt.prod([1.0]),
        TypeError,
        "prod(): argument 'input' (position 1) must be Tensor, not list",
    ),
    case("mt.median", "a dim out of range", lambda: mt.median(x(2, 3), 2), IndexError, DIM_2D),
    case(
        "mt.mode",
        "a list",
        lambda: mt.mode([1.0]),
        TypeError,
        "mode(): argument 'input' (position 1) must be Tensor, not list",
    ),
    case("mt.cumsum", "a dim out of range", lambda: mt.cumsum(x(2, 3), 2), IndexError, DIM_2D),
    case(
        "mt.cumprod",
        "a dim out of range",
        lambda: mt.cumprod(x(2, 3), -3),
        IndexError,
        "Dimension out of range (expected to be in range of [-2, 1], but got -3)",
    ),
    case("Tensor.cumsum_", "a leaf that requires grad", lambda: leaf(2).cumsum_(0), RuntimeError, LEAF_IN_PLACE),
    case("Tensor.cumprod_", "a leaf that requires grad", lambda: leaf(2).cumprod_(0), RuntimeError, LEAF_IN_PLACE),
    case("mt.norm", "an unknown p", lambda: mt.norm(x(2, 3), "abc"), RuntimeError, "norm(): unsupported p='abc'"),
    case(
        "mt.norm",
        "'fro' over 3 dims",
        lambda: mt.norm(x(2, 3, 4), "fro", (0, 1, 2)),
        RuntimeError,
        "linalg.matrix_norm: dim must be a 2-tuple",
    ),
    case(
        "mt.norm",
        "an integer tensor",
        lambda: mt.norm(mt.ones(2, dtype=mt.int64)),
        RuntimeError,
        "linalg.vector_norm: Expected a floating point or complex tensor as input. Got Long",
    ),
    case(
        "mt.linalg.matrix_norm",
        "a 1-D input",
        lambda: mt.linalg.matrix_norm(x(3)),
        RuntimeError,
        "linalg.matrix_norm: The input tensor A must have at least 2 dimensions, got 1",
    ),
    case(
        "mt.linalg.matrix_norm",
        "the nuclear norm",
        lambda: mt.linalg.matrix_norm(x(3, 3), "nuc"),
        NotImplementedError,
        "needs singular values",
    ),
    case(
        "mt.linalg.norm",
        "an ord over a 3-D input",
        lambda: mt.linalg.norm(x(2, 2, 2), 2),
        RuntimeError,
        "If dim is not specified but ord is, the input must be 1D or 2D. Got 3D.",
    ),
    case(
        "mt.einsum",
        "too few operands",
        lambda: mt.einsum("ij,jk", x(2, 3)),
        RuntimeError,
        "einsum(): fewer operands were provided than specified in the equation",
    ),
    case(
        "mt.einsum",
        "mismatched sizes",
        lambda: mt.einsum("ij,jk", x(2, 3), x(4, 2)),
        RuntimeError,
        "einsum(): subscript j has size 4 for operand 1 which does not broadcast with previously seen size 3",
    ),
    case(
        "mt.einsum",
        "a list operand",
        lambda: mt.einsum("i,i", x(2), [1.0, 2.0]),
        TypeError,
        "einsum(): operand 1 must be a Tensor, not list",
    ),
    case("mt.mm", "shapes that do not multiply", lambda: mt.mm(x(2, 3), leaf(4, 2)), RuntimeError, MATMUL_SHAPES),
    case("mt.mm", "a 3-D input", lambda: mt.mm(x(2, 3, 1), x(3, 2)), RuntimeError, "self must be a matrix"),
    case("mt.bmm", "a 2-D input", lambda: mt.bmm(x(2, 3), x(4, 2)), RuntimeError, "batch1 must be a 3D tensor"),
    case(
        "mt.bmm",
        "batch sizes that differ",
        lambda: mt.bmm(x(2, 2, 3), x(3, 3, 2)),
        RuntimeError,
        "Expected size for first two dimensions of batch2 tensor to be: [2, 3] but got: [3, 3].",
    ),
    case(
        "mt.outer",
        "a 2-D input",
        lambda: mt.outer(x(2, 2), x(2)),
        RuntimeError,
        "outer: Expected 1-D argument self, but got 2-D",
    ),
    case(
        "mt.addmm", "shapes that do not multiply", lambda: mt.addmm(x(3), x(2, 3), x(4, 2)), RuntimeError, MATMUL_SHAPES
    ),
    case(
        "mt.addmm",
        "an input that does not broadcast",
        lambda: mt.addmm(x(2, 2, 3), x(2, 3), x(3, 3)),
        RuntimeError,
        "the number of sizes provided (2) must be greater or equal to the number of dimensions in the tensor (3)",
    ),
    case(
        "mt.baddbmm",
        "batch shapes that do not multiply",
        lambda: mt.baddbmm(x(3), x(2, 2, 3), x(2, 4, 2)),
        RuntimeError,
        "Expected size for first two dimensions of batch2 tensor to be: [2, 3] but got: [2, 4].",
    ),
    case(
        "Tensor.addmm_",
        "a leaf that requires grad",
        lambda: leaf(2, 2).addmm_(x(2, 3), x(3, 2)),
        RuntimeError,
        LEAF_IN_PLACE,
    ),
    case(
        "Tensor.baddbmm_",
        "a leaf that requires grad",
        lambda: leaf(1, 2, 2).baddbmm_(x(1, 2, 3), x(1, 3, 2)),
        RuntimeError,
        LEAF_IN_PLACE,
    ),
    case(
        "mt.cdist",
        "different numbers of columns",
        lambda: mt.cdist(x(2, 3), x(2, 4)),
        RuntimeError,
        "X1 and X2 must have the same number of columns. X1: 3 X2: 4",
    ),
    case(
        "mt.cdist",
        "a 1-D input",
        lambda: mt.cdist(x(3), x(2, 3)),
        RuntimeError,
        "cdist only supports at least 2D tensors, X1 got: 1D",
    ),
]


# ------------------------------------------------------------------ creation and random draws
NEGATIVE_SIZE = "Trying to create tensor with negative dimension -1: [-1]"
CASES += [
    case(
        "mt.logspace",
        "negative steps",
        lambda: mt.logspace(0, 1, -1),
        RuntimeError,
        "number of steps must be non-negative",
    ),
    case(
        "mt.meshgrid",
        "a 2-D tensor",
        lambda: mt.meshgrid(x(2, 2), x(2)),
        RuntimeError,
        "torch.meshgrid: Expected 0D or 1D tensor in the tensor list but got",
    ),
    case(
        "mt.meshgrid",
        "an unknown indexing",
        lambda: mt.meshgrid(x(2), indexing="ab"),
        ValueError,
        'torch.meshgrid: indexing must be one of "xy" or "ij", but received: ab',
    ),
    case(
        "mt.clone",
        "a list",
        lambda: mt.clone([1.0]),
        TypeError,
        "clone(): argument 'input' (position 1) must be Tensor, not list",
    ),
    case(
        "mt.bernoulli",
        "a probability above 1",
        lambda: mt.bernoulli(mt.full((2,), 2.0)),
        RuntimeError,
        "Expected p_in >= 0 && p_in <= 1 to be true",
    ),
    case(
        "mt.multinomial",
        "a negative weight",
        lambda: mt.multinomial(mt.tensor([-1.0, 1.0]), 1),
        RuntimeError,
        "probability tensor contains either `inf`, `nan` or element < 0",
    ),
    case(
        "mt.normal",
        "a negative std",
        lambda: mt.normal(mt.zeros(2), -1.0),
        RuntimeError,
        "normal expects std >= 0.0, but found std -1",
    ),
    case(
        "mt.normal",
        "numbers and no size",
        lambda: mt.normal(0.0, 1.0),
        TypeError,
        "normal(): with a number mean and std, pass size",
    ),
    case(
        "mt.randint_like",
        "an empty range",
        lambda: mt.randint_like(x(2), 0),
        RuntimeError,
        "random_ expects 'from' to be less than 'to', but got from=0 >= to=0",
    ),
    case("mt.randperm", "a negative n", lambda: mt.randperm(-1), RuntimeError, NEGATIVE_SIZE),
    case("Tensor.new_zeros", "a negative size", lambda: x(2).new_zeros(-1), RuntimeError, NEGATIVE_SIZE),
    case("Tensor.new_ones", "a negative size", lambda: x(2).new_ones(-1), RuntimeError, NEGATIVE_SIZE),
    case("Tensor.new_empty", "a negative size", lambda: x(2).new_empty(-1), RuntimeError, NEGATIVE_SIZE),
    case("Tensor.new_full", "a negative size", lambda: x(2).new_full((-1,), 2.0), RuntimeError, NEGATIVE_SIZE),
    case("Tensor.new_tensor", "a string", lambda: x(2).new_tensor("a"), TypeError, "new(): invalid data type 'str'"),
    case(
        "Tensor.normal_",
        "a negative std",
        lambda: x(2).normal_(0, -1),
        RuntimeError,
        "normal expects std >= 0.0, but found std -1",
    ),
    case("Tensor.normal_", "a leaf that requires grad", lambda: leaf(2).normal_(), RuntimeError, LEAF_IN_PLACE),
    case(
        "Tensor.uniform_",
        "an inverted range",
        lambda: x(2).uniform_(1, 0),
        RuntimeError,
        "uniform_ expects to return a [from, to) range, but found from=1 > to=0",
    ),
    case(
        "Tensor.bernoulli_",
        "a probability above 1",
        lambda: x(2).bernoulli_(2.0),
        RuntimeError,
        "bernoulli_ expects p to be in [0, 1], but got p=2",
    ),
    case(
        "Tensor.exponential_",
        "a negative rate",
        lambda: x(2).exponential_(-1),
        RuntimeError,
        "exponential_ expects lambda > 0.0, but found lambda=-1",
    ),
    case(
        "Tensor.random_",
        "an empty range",
        lambda: x(2).random_(5, 1),
        RuntimeError,
        "random_ expects 'from' to be less than 'to', but got from=5 >= to=1",
    ),
    case(
        "Tensor.geometric_",
        "a probability above 1",
        lambda: x(2).geometric_(2.0),
        RuntimeError,
        "geometric_ expects p to be in (0, 1), but got p=2",
    ),
    case(
        "Tensor.cauchy_",
        "a negative scale",
        lambda: x(2).cauchy_(0, -1),
        RuntimeError,
        "cauchy_ expects sigma > 0.0, but found sigma=-1",
    ),
    case(
        "Tensor.log_normal_",
        "a negative std",
        lambda: x(2).log_normal_(0, -1),
        RuntimeError,
        "log_normal_ expects std > 0.0, but found std=-1",
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
    "Tensor.sgn": "any tensor has a sign",
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
    namespaces = (
        ("mt", mt),
        ("mt.autograd", mt.autograd),
        ("mt.autograd.functional", mt.autograd.functional),
        ("mt.utils.checkpoint", mt.utils.checkpoint),
    )
    for prefix, namespace in namespaces:
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
