"""What the transforms share: argnums, pytrees of tensors, the nesting depth, and the inputs a
transform differentiates at.

A transform runs ``func`` on *aliases* of the tensors it differentiates: a fresh leaf when the
tensor has no history that matters, a view of it (connected to its graph) when an enclosing
transform, or the caller, will differentiate through the result. The gradient is then taken with
respect to the alias only, so a closure's use of the same tensor is a constant to this transform,
as in ``torch.func``. Gradients are recorded (``create_graph=True``) only when something outside
can use them: an enclosing transform (``depth() > 0``) or an input that requires grad.
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable
from contextlib import contextmanager
from typing import Any

import torch
from torch.utils._pytree import tree_flatten, tree_map

from ..autograd.engine import grad as _engine_grad
from ..autograd.grad_mode import is_grad_enabled
from ..autograd.tensor import Tensor
from .batched import Batched

_nesting = threading.local()


def depth() -> int:
    """How many transforms (grad, vjp, jvp, jacrev, jacfwd) are running ``func`` around this call."""
    return getattr(_nesting, "depth", 0)


@contextmanager
def nested():
    _nesting.depth = depth() + 1
    try:
        yield
    finally:
        _nesting.depth -= 1


def is_tensor(x: object) -> bool:
    return isinstance(x, (Tensor, torch.Tensor))


def as_mt(x: torch.Tensor | Tensor) -> Tensor:
    return x if isinstance(x, Tensor) else Tensor(x)


def requires_grad(tree: Any) -> bool:
    """Whether any mt tensor in ``tree`` requires grad (grad mode on)."""
    if not is_grad_enabled():
        return False
    leaves, _ = tree_flatten(tree)
    return any(isinstance(x, Tensor) and x.requires_grad for x in leaves)


def differentiable(x: object, connect: bool) -> Tensor:
    """The alias of ``x`` a transform differentiates at (see the module docstring)."""
    if not is_tensor(x):
        raise ValueError(f"Thing passed to transform API must be Tensor, got {type(x)}")
    x = as_mt(x)
    if connect and x.requires_grad:
        return x.view(x.shape)
    return x.detach().requires_grad_(True)


def zeros_like(x: Tensor) -> Tensor:
    return Tensor(torch.zeros_like(x.torch()))


def autograd_grad(outputs: list, inputs: list, grad_outputs: list | None, create_graph: bool, retain_graph=None):
    """``torch.func``'s ``_autograd_grad``: outputs that do not require grad are left out, and an
    input nothing depends on gets zeros."""
    if grad_outputs is None:
        pairs = [(o, None) for o in outputs if o.requires_grad]
    else:
        pairs = [(o, g) for o, g in zip(outputs, grad_outputs) if o.requires_grad]
    if not pairs:
        return tuple(zeros_like(x) for x in inputs)
    outs = [o for o, _ in pairs]
    gos = None if grad_outputs is None else [g for _, g in pairs]
    grads = _engine_grad(outs, inputs, gos, retain_graph=retain_graph, create_graph=create_graph, allow_unused=True)
    return tuple(zeros_like(x) if g is None else g for g, x in zip(grads, inputs))


def finish(tree: Any, keep_graph: bool) -> Any:
    """``tree`` as a transform returns it: its tensors detached unless the graph is wanted outside."""
    if keep_graph:
        return tree
    return tree_map(lambda x: x.detach() if isinstance(x, Tensor) else x, tree)


# ---------------------------------------------------------------- argnums, torch.func's wording
def _wrap_argnum(argnum: int, num_args: int) -> int:
    if not isinstance(argnum, int):
        raise RuntimeError(f"argnum must be int, got: {type(argnum)}")
    if 0 <= argnum < num_args:
        return argnum
    if -num_args <= argnum < 0:
        return argnum + num_args
    raise RuntimeError(f"Got argnum={argnum}, but only {num_args} positional inputs")


def slice_argnums(args: tuple, argnums: int | tuple, as_tuple: bool = True) -> Any:
    """The arguments ``argnums`` picks, checked as ``torch.func`` checks them."""
    if not isinstance(argnums, (int, tuple)):
        raise RuntimeError(f"argnums must be int or Tuple[int, ...], got: {type(argnums)}")
    if isinstance(argnums, int):
        i = _wrap_argnum(argnums, len(args))
        return (args[i],) if as_tuple else args[i]
    wrapped = tuple(_wrap_argnum(a, len(args)) for a in argnums)
    if len(wrapped) == 0:
        raise RuntimeError("argnums must be non-empty")
    if len(set(wrapped)) != len(wrapped):
        raise RuntimeError(f"argnums elements must be unique, got {argnums}")
    return tuple(args[i] for i in wrapped)


def replace_argnums(args: tuple, argnums: int | tuple, new: Any) -> tuple:
    """``args`` with the arguments ``argnums`` picks replaced by ``new`` (as ``slice_argnums``
    with ``as_tuple=False`` returned them)."""
    if isinstance(argnums, int):
        i = _wrap_argnum(argnums, len(args))
        return tuple(new if j == i else a for j, a in enumerate(args))
    positions = {_wrap_argnum(a, len(args)): k for k, a in enumerate(argnums)}
    return tuple(new[positions[j]] if j in positions else a for j, a in enumerate(args))


def differentiate_args(args: tuple, argnums: int | tuple | None, connect: bool) -> tuple[tuple, Any]:
    """``(args with aliases for the picked ones, the picked aliases as a pytree)``."""
    if argnums is None:
        diff = tree_map(lambda x: differentiable(x, connect), args)
        return diff, diff
    picked = slice_argnums(args, argnums, as_tuple=False)
    diff = tree_map(lambda x: differentiable(x, connect), picked)
    return replace_argnums(args, argnums, diff), diff


def check_outputs_are_tensors(flat: list, api: str) -> None:
    if (len(flat) == 1 and flat[0] is None) or len(flat) < 1:
        raise RuntimeError(f"{api}: Expected f to be a function that has non-empty output (got output = {flat})")
    for o in flat:
        if not is_tensor(o):
            raise RuntimeError(f"{api}: expected f(*primals) to return only tensors, got unsupported type {type(o)}")


def split_aux(output: Any, has_aux: bool, message: str) -> tuple[Any, Any]:
    """``(output, aux)`` of a ``has_aux`` function, checked as torch.func checks them."""
    if not has_aux:
        return output, None
    if not (isinstance(output, tuple) and len(output) == 2):
        raise RuntimeError(message)
    for leaf in tree_flatten(output[1])[0]:
        if not (is_tensor(leaf) or isinstance(leaf, Batched)):
            raise RuntimeError(f"Expected tensors, got unsupported type {type(leaf)}")
    return output


def error_if_complex(func_name: str, args: Any, is_input: bool) -> None:
    for idx, arg in enumerate(tree_flatten(args)[0]):
        if is_tensor(arg) and arg.dtype.is_complex:
            which = "inputs" if is_input else "outputs"
            raise RuntimeError(
                f"{func_name}: Expected all {which} to be real but received complex tensor at flattened "
                f"input idx: {idx}"
            )


def func_name(func: Callable) -> str:
    """The name ``torch.func``'s messages give ``func``."""
    if hasattr(func, "__name__"):
        return func.__name__
    if isinstance(func, functools.partial):
        return f"functools.partial({func_name(func.func)}, ...)"
    return repr(func)
