"""``torch.func.X`` (and ``torch.vmap``) given our tensors or modules runs ``minitorch_rx.func.X``.

torch's transforms take no ``__torch_function__`` detour (they unwrap tensors in C++), so the
names in ``torch.func`` are replaced, once, by routers: each decides per call, on the call's
arguments, whether ours or torch's runs, so programs on torch tensors are unchanged. A name
bound before ``import minitorch_rx`` (``from torch.func import grad`` first) keeps torch's.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import torch
import torch.func
from torch.utils._pytree import tree_flatten

from ..autograd.tensor import Tensor
from ..nn.module import Module

# Transforms returning a function, decided when that function is called; and functions that
# compute at once, decided on their own arguments.
_TRANSFORMS = ("grad", "grad_and_value", "jacrev", "jacfwd", "hessian", "vmap")
_IMMEDIATE = ("vjp", "jvp", "linearize", "functional_call", "stack_module_state")


def _ours(*trees: Any) -> bool:
    """Whether an mt tensor or module is among ``trees``' leaves."""
    return any(isinstance(leaf, (Tensor, Module)) for leaf in tree_flatten(trees)[0])


def _transform_router(theirs: Callable, ours: Callable) -> Callable:
    @functools.wraps(theirs)
    def router(func: Callable, *options: Any, **keywords: Any) -> Callable:
        # Both made now, so a bad option raises here, in torch's words, as torch's would.
        transformed = theirs(func, *options, **keywords), ours(func, *options, **keywords)

        @functools.wraps(func)
        def call(*args: Any, **kwargs: Any):
            return transformed[_ours(func, args, kwargs)](*args, **kwargs)

        return call

    return router


def _immediate_router(theirs: Callable, ours: Callable) -> Callable:
    @functools.wraps(theirs)
    def router(*args: Any, **kwargs: Any):
        return (ours if _ours(args, kwargs) else theirs)(*args, **kwargs)

    return router


def route_torch_func() -> None:
    """Replace ``torch.func``'s transforms (and ``torch.vmap``) by routers, once per process."""
    if getattr(torch.func, "_minitorch_rx_routed", False):
        return
    from .. import func as ours

    for name in _TRANSFORMS + _IMMEDIATE:
        make = _transform_router if name in _TRANSFORMS else _immediate_router
        setattr(torch.func, name, make(getattr(torch.func, name), getattr(ours, name)))
    torch.vmap = torch.func.vmap
    torch.func._minitorch_rx_routed = True
