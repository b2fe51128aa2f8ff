"""``vmap``'s batched attempt: ``func`` called once on ``Batched`` stand-ins (``batched.py``).

``vmap(grad(f))`` differentiates one ``(batch, *shape)`` tensor per differentiated tensor: an
unmapped one (per-sample gradients of shared parameters) repeated, a mapped one (an ensemble's
stacked parameters) as it is. One backward of the summed per-sample values then gives every
sample's gradient, since each value depends on its own sample's slice only.

The attempt fails (``FAILED``) when ``func`` does anything without a batch rule, or draws random
numbers (then the generators are put back as they were), and ``vmap`` runs its per-sample loop,
whose result is the reference; errors ``func`` raises are raised there.
"""

from __future__ import annotations

import sys
import threading
import types
from collections.abc import Callable
from typing import Any

import torch
from torch.utils._pytree import tree_flatten, tree_map, tree_unflatten

from ..autograd.grad_mode import enable_grad
from ..autograd.tensor import Tensor
from ..nn.module import Module
from ._common import as_mt, autograd_grad, depth, nested, replace_argnums, requires_grad, slice_argnums, split_aux
from .batched import TORCH_RULES, Batched, Unbatchable
from .batched_modules import batch_rules
from .grad import GRADS, HAS_AUX_ERROR, GradSpec

FAILED = object()

# One attempt at a time: a vmap inside ``func`` runs its loop, so that stand-ins of two vmaps
# never meet (an op between them would read both batch dimensions as one).
_attempt = threading.local()


def run_batched(
    func: Callable, generators: Any, flat_args: list, flat_in_dims: list, spec, kwargs: dict, out_dims: Any, flat_dims
) -> Any:
    """``vmap(func)``'s result computed in one call, or ``FAILED``."""
    if getattr(_attempt, "active", False):
        return FAILED
    if any(d is not None and not isinstance(a, Tensor) for a, d in zip(flat_args, flat_in_dims)):
        return FAILED
    batch = next(a.shape[d] for a, d in zip(flat_args, flat_in_dims) if d is not None)
    inputs = [a if d is None else Batched(a.movedim(d, 0)) for a, d in zip(flat_args, flat_in_dims)]
    args = tree_unflatten(inputs, spec)
    _attempt.active = True
    try:
        grad_spec = GRADS.get(func)
        if grad_spec is not None:
            keep = depth() > 0 or requires_grad((flat_args, kwargs))
            output = _per_sample_grads(grad_spec, args, kwargs, batch, keep)
        elif isinstance(func, Module):  # vmap(model): its layers' batch rules, as functional_call's
            with batch_rules(func):
                output = func(*args, **kwargs)
        else:
            output = with_batch_rules(func)(*args, **kwargs)
        result = _unbatched(output, out_dims, batch, flat_dims)
    except Exception:  # the loop runs func again, and raises what func raises
        generators.restore()
        return FAILED
    finally:
        _attempt.active = False
    if generators.moved():
        generators.restore()
        return FAILED
    return result


def _per_sample_grads(spec: GradSpec, args: tuple, kwargs: dict, batch: int, keep: bool) -> Any:
    def copies(p: object) -> Tensor:
        """A ``(batch, *shape)`` tensor to differentiate at: a mapped argument's own values, an
        unmapped one's repeated (a view, or a leaf on a view of its data)."""
        if isinstance(p, Batched):
            p = p.value
            return p.view(p.shape) if keep and p.requires_grad else p.detach().requires_grad_(True)
        p = as_mt(p)
        if keep and p.requires_grad:
            return p.unsqueeze(0).expand(batch, *p.shape)
        return Tensor(p.torch().unsqueeze(0).expand(batch, *p.shape)).requires_grad_(True)

    with nested(), enable_grad():
        per_sample = tree_map(copies, slice_argnums(args, spec.argnums, as_tuple=False))
        args = replace_argnums(args, spec.argnums, tree_map(Batched, per_sample))
        output, aux = split_aux(with_batch_rules(spec.func)(*args, **kwargs), spec.has_aux, HAS_AUX_ERROR)
        if not isinstance(output, Batched) or output.dim() != 0 or not _clean(output.value):
            raise Unbatchable("grad of a non-scalar")  # the loop raises torch's error
        flat, leaves_spec = tree_flatten(per_sample)
        ones = Tensor(torch.ones_like(output.value.torch()))
        grads = autograd_grad([output.value], flat, [ones], create_graph=keep)

    def out(t: Tensor) -> Batched:
        return Batched(t if keep else t.detach())

    gradient = tree_unflatten([out(g) for g in grads], leaves_spec)
    if not keep:
        aux = tree_map(lambda x: Batched(x.value.detach()) if isinstance(x, Batched) else x, aux)
    value = out(output.value)
    if spec.with_value:
        return gradient, ((value, aux) if spec.has_aux else value)
    return (gradient, aux) if spec.has_aux else gradient


def _clean(t: object) -> bool:
    """Whether ``t`` is an mt tensor on torch data: an op of ours given a ``Batched`` where it
    takes anything (``Function.apply`` passes non-tensors on) wraps the stand-in as its data,
    which is then no result of ours."""
    return isinstance(t, Tensor) and isinstance(t.torch(), torch.Tensor)


def _unbatched(output: Any, out_dims: Any, batch: int, flat_dims: Callable) -> Any:
    flat, spec = tree_flatten(output)
    result = []
    for leaf, dim in zip(flat, flat_dims(out_dims, output, spec)):
        if dim is None:
            if isinstance(leaf, Batched):
                raise Unbatchable("a mapped output for out_dims None")
            result.append(leaf)
            continue
        if isinstance(leaf, Batched) and _clean(leaf.value):
            value = leaf.value
        elif isinstance(leaf, Tensor) and _clean(leaf):  # the same for every sample
            value = leaf.unsqueeze(0).expand(batch, *leaf.shape)
        else:
            raise Unbatchable("a non-tensor output")
        result.append(value if dim == 0 else value.movedim(0, dim))
    return tree_unflatten(result, spec)


# Our namespaces, and torch's of the same functions (whose batch rules ours take).
_NAMESPACES = {"minitorch_rx": torch, "minitorch_rx.nn.functional": torch.nn.functional}


def _batched_version(ours: Callable, theirs: Callable) -> Callable:
    rule = TORCH_RULES[theirs]

    def call(*args: Any, **kwargs: Any):
        if any(isinstance(leaf, Batched) for leaf in tree_flatten((args, kwargs))[0]):
            return rule(*args, **kwargs)
        return ours(*args, **kwargs)

    return call


class _Namespace:
    """One of our modules as ``func``'s code sees it: its functions with a batch rule wrapped."""

    def __init__(self, module: types.ModuleType) -> None:
        self._module, self._torch_module = module, _NAMESPACES.get(module.__name__)

    def __getattr__(self, name: str) -> Any:
        value = getattr(self._module, name)
        if isinstance(value, types.ModuleType):
            return _stand_in(value) or value
        theirs = getattr(self._torch_module, name, None)
        if callable(value) and callable(theirs) and theirs in TORCH_RULES:
            return _batched_version(value, theirs)
        return value


def _stand_in(value: object) -> object | None:
    if isinstance(value, types.ModuleType):  # one of ours, or a package on the way to one (mt.nn)
        name = value.__name__
        return _Namespace(value) if any(n == name or n.startswith(name + ".") for n in _NAMESPACES) else None
    name = getattr(value, "__name__", None)
    if not callable(value) or not isinstance(name, str):
        return None
    for module_name, torch_module in _NAMESPACES.items():
        theirs = getattr(torch_module, name, None)
        if callable(theirs) and theirs in TORCH_RULES and getattr(sys.modules.get(module_name), name, None) is value:
            return _batched_version(value, theirs)
    return None


def with_batch_rules(fn: Callable) -> Callable:
    """``fn``, or a copy of the Python function ``fn`` whose global names for our functions and
    namespaces (``F.cross_entropy``, ``mt.sin``, an imported ``relu``) apply the batch rule of
    torch's function of the same name to ``Batched`` arguments: our functions have no dispatch
    of their own. Only ``fn``'s own code (and functions it defines) sees them."""
    if not isinstance(fn, types.FunctionType):
        return fn
    stand_ins = {}
    for name in fn.__code__.co_names:
        stand_in = _stand_in(fn.__globals__.get(name))
        if stand_in is not None:
            stand_ins[name] = stand_in
    if not stand_ins:
        return fn
    copy = types.FunctionType(
        fn.__code__, {**fn.__globals__, **stand_ins}, fn.__name__, fn.__defaults__, fn.__closure__
    )
    copy.__kwdefaults__ = fn.__kwdefaults__
    return copy
