"""A ``torch.Tensor`` that requires grad, used in a minitorch_rx computation, gets its gradient.

A torch module's parameters (``torch.nn.Linear`` called on an mt tensor) and a user's
``torch.randn(..., requires_grad=True)`` enter mt ops as leaves of our graph whose gradient goes on
into torch's autograd when backward reaches them: into ``t.grad`` for a torch leaf, as PyTorch
gives it, and on through torch's graph for a torch tensor computed by torch. Under ``no_grad`` (or a
torch tensor that does not require grad) the torch tensor is a constant.
"""

from __future__ import annotations

import weakref
from functools import partial

import torch

from .grad_mode import is_grad_enabled
from .graph import current_graph
from .tensor import Tensor


def torch_operand(data: torch.Tensor) -> Tensor:
    """``data``, a torch tensor given to an mt op, as the mt tensor the op computes with."""
    if not data.requires_grad:
        return Tensor._make(data, None)
    leaf = Tensor._make(data.detach(), None)
    if is_grad_enabled():
        from .node import accumulator

        leaf._requires_grad = True
        leaf.register_post_accumulate_grad_hook(partial(_into_torch, data))
        # Nothing but the graph holds this leaf, so its accumulator holds it (a user's leaf is held
        # weakly). Until the op that uses the leaf takes the accumulator (the op's node then owns
        # it), the leaf holds it; from then on weakly, as every leaf does: no reference cycle.
        acc = accumulator(leaf, current_graph()._rx)
        acc._variable = partial(_itself, leaf)
        leaf._acc = _UntilTaken(acc)
    return leaf


def _itself(value: object) -> object:
    return value


class _UntilTaken:
    """A leaf's reference to its accumulator that is strong until first read (by the op that
    records the leaf as its input), then the leaf's usual weak reference."""

    __slots__ = ("acc",)

    def __init__(self, acc) -> None:
        self.acc = acc

    def __call__(self):
        acc = self.acc
        acc._variable()._acc = weakref.ref(acc)
        return acc


def torch_operands(args: tuple) -> tuple:
    """``args`` with each torch tensor as ``torch_operand`` makes it."""
    return tuple(torch_operand(a) if isinstance(a, torch.Tensor) and not isinstance(a, Tensor) else a for a in args)


def _into_torch(data: torch.Tensor, leaf: Tensor) -> None:
    grad, leaf._grad = leaf._grad, None
    # retain_graph: a torch tensor computed by torch may enter several mt ops, each passing its part.
    torch.autograd.backward(data, grad._data, retain_graph=data.grad_fn is not None)
