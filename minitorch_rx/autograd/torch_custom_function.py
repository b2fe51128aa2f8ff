"""A ``torch.autograd.Function`` applied to mt tensors records on our engine, with its own backward.

torch's ``Function.apply`` (C++) takes no ``__torch_function__`` detour and sees no gradient on an
mt tensor (that state is ours): it ran ``forward`` with torch's grad mode off and handed back an
unrecorded result, so ``torch.distributions.Dirichlet(c).rsample()`` (its ``_Dirichlet``) gave a
sample without a gradient. So ``torch.autograd.Function.apply`` is replaced, once, by a router:
given an mt tensor that requires grad (grad mode on), the torch Function runs as an
``mt.autograd.Function`` whose ``forward`` and ``backward`` are its own, on torch data, as PyTorch
runs them (``forward`` under no_grad, ``ctx`` saving through ``save_for_backward``); otherwise
torch's ``apply`` runs, so programs on torch tensors are unchanged.
"""

from __future__ import annotations

import inspect

import torch
from torch.utils.checkpoint import CheckpointFunction

from .function import Function
from .grad_mode import is_grad_enabled
from .torch_function import _requires_grad

_THEIRS = torch.autograd.Function.__dict__["apply"]  # a classmethod descriptor of torch._C
#: torch Function class -> the mt Function running it.
_OURS: dict[type, type[Function]] = {}


class _TorchFunction(Function):
    """Base of the mt Functions that run a ``torch.autograd.Function`` (``_torch_function``)."""

    _torch_function: type

    @classmethod
    def forward(cls, ctx, *args):
        torch_function = cls._torch_function
        with torch.no_grad():
            if not _has_setup_context(torch_function):
                return torch_function.forward(ctx, *args)
            out = torch_function.forward(*args)
            torch_function.setup_context(ctx, args, out)
            return out

    @classmethod
    def backward(cls, ctx, *grads):
        grads = cls._torch_function.backward(ctx, *grads)
        n_inputs = len(ctx.needs_input_grad)
        if type(grads) is tuple and len(grads) > n_inputs and all(g is None for g in grads[n_inputs:]):
            return grads[:n_inputs]  # as torch, trailing Nones for the arguments apply was not given
        return grads


def _ours(torch_function: type) -> type[Function]:
    found = _OURS.get(torch_function)
    if found is None:
        namespace = {"_torch_function": torch_function, "__module__": torch_function.__module__}
        found = _OURS[torch_function] = type(torch_function.__name__, (_TorchFunction,), namespace)
    return found


def _apply(cls: type, *args: object, **kwargs: object):
    if not (is_grad_enabled() and _requires_grad((args, kwargs))):
        return _THEIRS.__get__(None, cls)(*args, **kwargs)
    if cls is CheckpointFunction:
        # torch.utils.checkpoint's reentrant form: its backward re-runs the function on inputs it
        # detaches from ctx.saved_tensors, which here hold torch data that requires no grad, so the
        # inputs would get no gradient. Ours recomputes as it does, with PyTorch's reentrant rules.
        from ..utils.checkpoint import checkpoint

        function, preserve_rng_state, *inputs = args
        return checkpoint(function, *inputs, use_reentrant=True, preserve_rng_state=preserve_rng_state)
    if kwargs:  # as torch binds them: by forward's signature, its defaults filled in
        ctx = () if _has_setup_context(cls) else (None,)
        bound = inspect.signature(cls.forward).bind(*ctx, *args, **kwargs)
        bound.apply_defaults()
        args = bound.args[len(ctx) :]
    return _ours(cls).apply(*args)


def _has_setup_context(torch_function: type) -> bool:
    """Whether its ``forward`` takes no ``ctx`` (a ``setup_context`` fills it), as torch tells."""
    return torch_function.setup_context is not torch.autograd.Function.setup_context


def route_torch_autograd_function() -> None:
    """Replace ``torch.autograd.Function.apply`` by the router, once per process."""
    if torch.autograd.Function.__dict__["apply"] is _THEIRS:
        torch.autograd.Function.apply = classmethod(_apply)
