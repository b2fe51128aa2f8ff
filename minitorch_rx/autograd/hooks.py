"""Tensor hooks: ``register_hook`` (may replace a gradient on its way), ``retain_grad`` and
``register_post_accumulate_grad_hook``, and the handles that remove them.

A leaf keeps its hooks on the tensor (its accumulator is per graph and dies with it); a non-leaf
keeps them on the node that made it, per output, so they cost nothing to nodes without hooks.
As in PyTorch, a tensor's ``register_hook`` hooks run in registration order on the gradient
summed over all its uses, before the gradient moves on (into ``.grad`` for a leaf, into the
node's backward otherwise); ``retain_grad`` stores what they leave.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable

import torch


def new_args_and_kwargs(result: object, hook_kind: str) -> tuple[tuple, dict]:
    """What a hook called with ``(args, kwargs)`` returned to replace them (a forward pre-hook
    ``with_kwargs``, an optimizer's step pre-hook): a pair, or PyTorch's RuntimeError."""
    if not (isinstance(result, tuple) and len(result) == 2):
        raise RuntimeError(f"{hook_kind} must return None or a tuple of (new_args, new_kwargs), but got {result}.")
    return result


class RemovableHandle:
    """Returned by every hook registration; ``remove()`` takes the hook out again (also as a context)."""

    __slots__ = ("_hooks", "_hook", "__weakref__")

    def __init__(self, hooks: HookList, hook: Callable) -> None:
        self._hooks = weakref.ref(hooks)
        self._hook = hook

    def remove(self) -> None:
        hooks = self._hooks()
        if hooks is not None:
            for i, h in enumerate(hooks):
                if h is self._hook:
                    del hooks[i]
                    break

    def __enter__(self) -> RemovableHandle:
        return self

    def __exit__(self, *exc: object) -> None:
        self.remove()


class HookList(list):
    """A list that handles can refer to weakly (a handle must not keep a tensor's hooks alive)."""

    __slots__ = ("__weakref__",)


class LeafHooks:
    """A leaf tensor's hooks: on the incoming gradient, and after it reached ``.grad``."""

    __slots__ = ("grad", "post_accumulate")

    def __init__(self) -> None:
        self.grad = HookList()
        self.post_accumulate = HookList()


class OutputHooks:
    """A node's hooks on its outputs: ``register_hook`` functions per output, ``retain_grad`` tensors."""

    __slots__ = ("by_output", "retained")

    def __init__(self) -> None:
        self.by_output: dict[int, HookList] = {}
        self.retained: list = []  # weak references to the outputs that called retain_grad()


def add_output_hook(tensor, hook: Callable) -> RemovableHandle:
    node = tensor._node
    hooks = _output_hooks(node)
    hooks_of_output = hooks.by_output.get(tensor._out_nr)
    if hooks_of_output is None:
        hooks_of_output = hooks.by_output[tensor._out_nr] = HookList()
    hooks_of_output.append(hook)
    return RemovableHandle(hooks_of_output, hook)


def retain(tensor) -> None:
    _output_hooks(tensor._node).retained.append(weakref.ref(tensor))


def _output_hooks(node) -> OutputHooks:
    hooks = node._tensor_hooks
    if hooks is None:
        hooks = node._tensor_hooks = OutputHooks()
        node._simple = False  # the backward loop's shortcut skips hooks
    return hooks


def leaf_hooks(tensor) -> LeafHooks:
    hooks = tensor._hooks
    if hooks is None:
        hooks = tensor._hooks = LeafHooks()
    return hooks


def call_hooks(hooks: list, grad, like_data: torch.Tensor):
    """Run ``register_hook`` functions on ``grad`` (a torch.Tensor, or an mt.Tensor under
    ``create_graph``); each may return a replacement of the same shape."""
    from .tensor import Tensor

    recorded = isinstance(grad, Tensor)
    for hook in list(hooks):
        result = hook(grad if recorded else Tensor._make(grad, None))
        if result is None:
            continue
        if isinstance(result, torch.Tensor) and not isinstance(result, Tensor):
            result = Tensor._make(result, None)
        if not isinstance(result, Tensor):
            raise TypeError(f"hook '{_name(hook)}' returned {type(result).__name__}; expected a Tensor or None")
        if result._data.shape != like_data.shape:
            raise RuntimeError(
                f"hook '{_name(hook)}' has changed the size of value: expected {list(like_data.shape)}, "
                f"got {list(result._data.shape)}"
            )
        grad = result if recorded else result._data
    return grad


def run_output_hooks(node, grad):
    """The hooks of ``node``'s outputs on their gradients (a tensor, or a list per output), then
    ``retain_grad``; returns the gradients to use."""
    from .tensor import Tensor

    hooks = node._tensor_hooks
    multi = node._n_outputs != 1
    grads = grad if multi else [grad]
    for nr, fns in hooks.by_output.items():
        if fns and grads[nr] is not None:
            grads[nr] = call_hooks(fns, grads[nr], _data(grads[nr]))
    for ref in hooks.retained:
        t = ref()
        if t is None:
            continue
        g = grads[t._out_nr]
        if g is None:
            continue
        if isinstance(g, Tensor):  # create_graph: the gradient keeps its history
            t._grad = g if t._grad is None else t._grad + g
        else:
            t._grad = Tensor._make(g.clone(), None) if t._grad is None else Tensor._make(t._grad._data + g, None)
    return grads if multi else grads[0]


def _data(g):
    """A gradient's torch data: ``g`` itself, or an mt.Tensor's (``create_graph``)."""
    data = getattr(g, "_data", None)
    return g if data is None else data


def _name(hook: Callable) -> str:
    return getattr(hook, "__name__", type(hook).__name__)
