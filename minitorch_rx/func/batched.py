"""``Batched``: the stand-in ``vmap`` gives ``func`` to run every sample in one call.

A ``Batched`` holds one mt tensor, ``value``, whose dimension 0 is the mapped one; ``func`` sees
the per-sample (logical) shape, ``value.shape[1:]``. Each op it supports is one op of ours on
``value`` with its dimensions shifted by one (a batch rule), so it is recorded by the engine as
any op: elementwise ops broadcast the logical shapes, reductions and shape ops move their ``dim``
past the batch dimension, matmul and the losses fold the batch into theirs, and the layers of
``functional_call`` take it as one more batch dimension (``batched_modules.py``). Torch's
functions reach the rules through ``__torch_function__``, ours named in ``func``'s code through
``batched_vmap.with_batch_rules``. Anything else (an attribute or function without a rule, or a
function of ours that wants an mt tensor) raises ``Unbatchable``, or fails otherwise, and
``vmap`` runs its per-sample loop instead.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import torch

from ..autograd.tensor import Tensor
from ..nn import functional as F


class Unbatchable(Exception):
    """``func`` did something ``Batched`` has no batch rule for."""


def physical(x: object) -> object:
    return x.value if isinstance(x, Batched) else x


def logical_rank(x: object) -> int:
    if isinstance(x, Batched):
        return x.value.dim() - 1
    return x.dim() if isinstance(x, (Tensor, torch.Tensor)) else 0


def aligned(x: object, rank: int) -> object:
    """``x``'s physical value with size-1 dimensions after the batch one, up to logical ``rank``:
    torch broadcasting then lines its logical dimensions up with an unbatched operand's."""
    if not isinstance(x, Batched):
        return x
    v = x.value
    missing = rank - (v.dim() - 1)
    return v if missing == 0 else v.reshape(v.shape[0], *([1] * missing), *v.shape[1:])


def shift(dim: int, rank: int) -> int:
    """Logical dimension ``dim`` of a rank-``rank`` sample as a dimension of ``value``."""
    if not -max(rank, 1) <= dim < max(rank, 1):
        raise Unbatchable(f"dim {dim} for rank {rank}")
    return dim % max(rank, 1) + 1


def _dims(dim: Any, rank: int) -> Any:
    if dim is None:
        return tuple(range(1, rank + 1))
    if isinstance(dim, (tuple, list)):
        return tuple(shift(d, rank) for d in dim)
    return shift(dim, rank)


def _binary(op: Callable) -> Callable:
    def rule(a: object, b: object) -> Batched:
        rank = max(logical_rank(a), logical_rank(b))
        return Batched(op(aligned(a, rank), aligned(b, rank)))

    return rule


def _reflected(op: Callable) -> Callable:
    def rule(a: object, b: object) -> Batched:
        return _binary(op)(b, a)

    return rule


_POINTWISE = frozenset(
    "relu sigmoid tanh exp log sin cos abs sqrt rsqrt neg square reciprocal log1p expm1 sign floor ceil round "
    "clamp clip float double detach contiguous".split()
)


class Batched:
    """A batch of samples standing in for one sample (see the module docstring)."""

    __slots__ = ("value",)

    def __init__(self, value: Tensor) -> None:
        self.value = value

    # ------------------------------------------------------------ the sample's metadata
    @property
    def shape(self) -> torch.Size:
        return self.value.shape[1:]

    def size(self, dim: int | None = None):
        return self.shape if dim is None else self.shape[dim]

    def dim(self) -> int:
        return self.value.dim() - 1

    ndim = property(dim)

    def numel(self) -> int:
        return self.shape.numel()

    @property
    def dtype(self) -> torch.dtype:
        return self.value.dtype

    @property
    def device(self) -> torch.device:
        return self.value.device

    @property
    def requires_grad(self) -> bool:
        return self.value.requires_grad

    def is_floating_point(self) -> bool:
        return self.value.is_floating_point()

    def __len__(self) -> int:
        return self.shape[0]

    def __getattr__(self, name: str):
        if name not in _POINTWISE:
            raise Unbatchable(name)
        method = getattr(self.value, name)

        def pointwise(*args: Any, **kwargs: Any) -> Batched:
            if any(isinstance(a, (Batched, Tensor, torch.Tensor)) for a in (*args, *kwargs.values())):
                raise Unbatchable(f"{name} with tensor arguments")
            return Batched(method(*args, **kwargs))

        return pointwise

    def __bool__(self) -> bool:
        raise Unbatchable("bool")

    def __eq__(self, other: object) -> bool:  # object's identity test would answer silently
        raise Unbatchable("==")

    def __ne__(self, other: object) -> bool:
        raise Unbatchable("!=")

    __hash__ = object.__hash__

    # ------------------------------------------------------------ shape ops
    def unsqueeze(self, dim: int) -> Batched:
        return Batched(self.value.unsqueeze(shift(dim, self.dim() + 1)))

    def squeeze(self, dim: int | None = None) -> Batched:
        if dim is None:
            keep = [self.value.shape[0], *(s for s in self.shape if s != 1)]
            return Batched(self.value.reshape(keep))
        return Batched(self.value.squeeze(_dims(dim, self.dim())))

    def reshape(self, *shape: Any) -> Batched:
        if len(shape) == 1 and isinstance(shape[0], (tuple, list, torch.Size)):
            shape = tuple(shape[0])
        return Batched(self.value.reshape(self.value.shape[0], *shape))

    view = reshape

    def flatten(self, start_dim: int = 0, end_dim: int = -1) -> Batched:
        rank = self.dim()
        if rank == 0:
            return self.reshape(1)
        return Batched(self.value.flatten(shift(start_dim, rank), shift(end_dim, rank)))

    def transpose(self, dim0: int, dim1: int) -> Batched:
        return Batched(self.value.transpose(shift(dim0, self.dim()), shift(dim1, self.dim())))

    def permute(self, *dims: Any) -> Batched:
        if len(dims) == 1 and isinstance(dims[0], (tuple, list)):
            dims = tuple(dims[0])
        return Batched(self.value.permute(0, *(shift(d, self.dim()) for d in dims)))

    @property
    def T(self) -> Batched:
        return Batched(self.value.permute(0, *range(self.dim(), 0, -1)))

    # ------------------------------------------------------------ reductions
    def sum(self, dim: Any = None, keepdim: bool = False, *, dtype: torch.dtype | None = None) -> Batched:
        if self.dim() == 0:
            return self
        extra = {} if dtype is None else {"dtype": dtype}
        return Batched(self.value.sum(_dims(dim, self.dim()), keepdim=keepdim, **extra))

    def mean(self, dim: Any = None, keepdim: bool = False, *, dtype: torch.dtype | None = None) -> Batched:
        if self.dim() == 0:
            return self
        extra = {} if dtype is None else {"dtype": dtype}
        return Batched(self.value.mean(_dims(dim, self.dim()), keepdim=keepdim, **extra))

    def softmax(self, dim: int) -> Batched:
        return Batched(self.value.softmax(shift(dim, self.dim())))

    def log_softmax(self, dim: int) -> Batched:
        return Batched(self.value.log_softmax(shift(dim, self.dim())))

    # ------------------------------------------------------------ arithmetic
    __add__ = _binary(lambda a, b: a + b)
    __radd__ = _reflected(lambda a, b: a + b)
    __sub__ = _binary(lambda a, b: a - b)
    __rsub__ = _reflected(lambda a, b: a - b)
    __mul__ = _binary(lambda a, b: a * b)
    __rmul__ = _reflected(lambda a, b: a * b)
    __truediv__ = _binary(lambda a, b: a / b)
    __rtruediv__ = _reflected(lambda a, b: a / b)
    __pow__ = _binary(lambda a, b: a**b)
    __rpow__ = _reflected(lambda a, b: a**b)

    def __neg__(self) -> Batched:
        return Batched(-self.value)

    def __matmul__(self, other: object) -> Batched:
        return matmul(self, other)

    def __rmatmul__(self, other: object) -> Batched:
        return matmul(other, self)

    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        rule = TORCH_RULES.get(func)
        if rule is None:
            raise Unbatchable(getattr(func, "__name__", str(func)))
        return rule(*args, **(kwargs or {}))


def matmul(a: object, b: object) -> Batched:
    """``a @ b`` per sample. A batched vector becomes a one-row (left) or one-column (right)
    matrix first, so that torch never reads the batch dimension as a matrix dimension; batched
    operands get size-1 dimensions after the batch one, so their matrix batch dimensions line up."""
    ra, rb = logical_rank(a), logical_rank(b)
    if ra == 0 or rb == 0:
        raise Unbatchable("matmul of a 0-dim tensor")
    row = isinstance(a, Batched) and ra == 1
    column = isinstance(b, Batched) and rb == 1
    pa = a.value.unsqueeze(-2) if row else physical(a)
    pb = b.value.unsqueeze(-1) if column else physical(b)
    rank = max(2 if row else ra, 2 if column else rb)
    if isinstance(a, Batched):
        pa = aligned(Batched(pa), rank)
    if isinstance(b, Batched):
        pb = aligned(Batched(pb), rank)
    out = pa @ pb
    if column:
        out = out.squeeze(-1)
    if row:
        out = out.squeeze(-1 if (column or rb == 1) else -2)
    return Batched(out)


def _loss(name: str, loss_none: Callable) -> Callable:
    """A loss per sample: the batch folded into the loss's, ``reduction='none'``, then each
    sample's own ``'mean'``/``'sum'``."""

    def rule(input: object, target: object, *args: Any, reduction: str = "mean", **kwargs: Any) -> Batched:
        if args or reduction not in ("mean", "sum", "none"):
            raise Unbatchable(name)
        for legacy in ("size_average", "reduce"):  # torch's deprecated keywords, passed on as None
            if kwargs.pop(legacy, None) is not None:
                raise Unbatchable(legacy)
        if not isinstance(input, Batched):
            raise Unbatchable(f"{name} of an unbatched input")
        batch = input.value.shape[0]
        losses = loss_none(input, target, **kwargs)  # (batch, *per-sample loss shape)
        if reduction == "none":
            return Batched(losses)
        flat = losses.reshape(batch, -1)
        return Batched(flat.sum(1) if reduction == "sum" else flat.mean(1))

    return rule


def _class_losses(fn: Callable) -> Callable:
    """Per-sample unreduced losses of class-index targets: the batch folded into ``N``."""

    def losses(input: Batched, target: object, **kwargs: Any) -> Tensor:
        if kwargs.get("weight") is not None or kwargs.get("ignore_index", -100) != -100:
            raise Unbatchable("a class weight or ignore_index")
        if target.dtype.is_floating_point:
            raise Unbatchable("class probabilities")
        x = input.value
        batch = x.shape[0]
        t = physical(target)
        if not isinstance(target, Batched):
            t = t.expand(batch, *t.shape)
        if input.dim() == 1:  # one sample of C logits, a 0-dim target
            return fn(x, t, reduction="none", **kwargs)
        out = fn(x.reshape(-1, *x.shape[2:]), t.reshape(-1, *t.shape[2:]), reduction="none", **kwargs)
        return out.reshape(batch, *t.shape[1:])

    return losses


def _pointwise_losses(fn: Callable) -> Callable:
    def losses(input: Batched, target: object, weight: object = None, **kwargs: Any) -> Tensor:
        if weight is not None:
            raise Unbatchable("weight")
        rank = max(logical_rank(input), logical_rank(target))
        a, b = aligned(input, rank), aligned(target, rank)
        if not isinstance(target, Batched):
            b = b.expand(a.shape)
        elif not isinstance(input, Batched):
            a = a.expand(b.shape)
        return fn(a, b, reduction="none", **kwargs)

    return losses


def _unary(fn: Callable) -> Callable:
    """An elementwise function of one tensor and scalar options."""

    def rule(x: Batched, *args: Any, **kwargs: Any) -> Batched:
        if not isinstance(x, Batched) or any(isinstance(a, (Batched, Tensor)) for a in (*args, *kwargs.values())):
            raise Unbatchable(fn.__name__)
        return Batched(fn(x.value, *args, **kwargs))

    return rule


def _with_dim(fn: Callable) -> Callable:
    def rule(x: Batched, dim: int | None = None, *args: Any, **kwargs: Any) -> Batched:
        if dim is None or args:
            raise Unbatchable(fn.__name__)
        return Batched(fn(x.value, shift(dim, x.dim()), **kwargs))

    return rule


def linear(input: object, weight: object, bias: object = None) -> Batched:
    """``F.linear`` per sample: per-sample weights make it a batched matmul."""
    if isinstance(weight, Batched):
        out = matmul(input, weight.transpose(-1, -2))
    elif isinstance(input, Batched):
        out = Batched(F.linear(input.value, weight))
    else:
        raise Unbatchable("linear of unbatched operands")
    return out if bias is None else out + bias


TORCH_RULES: dict[Callable, Callable] = {
    torch.nn.functional.cross_entropy: _loss("cross_entropy", _class_losses(F.cross_entropy)),
    torch.nn.functional.nll_loss: _loss("nll_loss", _class_losses(F.nll_loss)),
    torch.nn.functional.mse_loss: _loss("mse_loss", _pointwise_losses(F.mse_loss)),
    torch.nn.functional.l1_loss: _loss("l1_loss", _pointwise_losses(F.l1_loss)),
    torch.nn.functional.relu: _unary(F.relu),
    torch.nn.functional.tanh: _unary(F.tanh),
    torch.nn.functional.sigmoid: _unary(F.sigmoid),
    torch.nn.functional.gelu: _unary(F.gelu),
    torch.nn.functional.silu: _unary(F.silu),
    torch.nn.functional.softplus: _unary(F.softplus),
    torch.nn.functional.leaky_relu: _unary(F.leaky_relu),
    torch.nn.functional.elu: _unary(F.elu),
    torch.relu: _unary(F.relu),
    torch.tanh: _unary(torch.tanh),
    torch.sigmoid: _unary(torch.sigmoid),
    torch.exp: _unary(torch.exp),
    torch.sin: _unary(torch.sin),
    torch.cos: _unary(torch.cos),
    torch.nn.functional.log_softmax: _with_dim(F.log_softmax),
    torch.nn.functional.softmax: _with_dim(F.softmax),
    torch.matmul: matmul,
    torch.add: _binary(lambda a, b: a + b),
    torch.mul: _binary(lambda a, b: a * b),
    torch.sum: Batched.sum,
    torch.mean: Batched.mean,
    torch.flatten: Batched.flatten,
    torch.unsqueeze: Batched.unsqueeze,
    torch.nn.functional.linear: linear,
}
