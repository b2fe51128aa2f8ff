"""Module hooks: forward pre-hooks, forward hooks, full backward pre-hooks and full backward hooks,
with PyTorch's arguments, return-value rules and call order; torch's global module hooks
(``torch.nn.modules.module.register_module_forward_hook`` and its siblings) run first, as in torch.

Forward hooks are kept where torch keeps them (``_forward_pre_hooks``, ``_forward_hooks`` and
their ``with_kwargs``/``always_called`` sets, torch's handles), so torch code that looks there
finds them (``torch.nn.utils.remove_spectral_norm``, ``prune.remove``). Backward hooks are ours:
they work as PyTorch's ``BackwardHook``: the module's tensor inputs pass through one identity op
and its tensor outputs through another, so backward meets all the outputs' gradients at one node
(where the pre-hooks run, and may replace them) and all the inputs' gradients at another (where
the backward hooks run, and may replace them). What the two nodes share holds no tensor of the
forward, so no hook keeps a graph alive.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from torch.nn.modules import module as _torch_module

from ..autograd.function import Function
from ..autograd.grad_mode import is_grad_enabled, state
from ..autograd.hooks import HookList, RemovableHandle, new_args_and_kwargs
from ..autograd.tensor import Tensor

# torch's global module hooks: dicts torch mutates in place, so these names stay the live ones.
GLOBAL_FORWARD_PRE = _torch_module._global_forward_pre_hooks
GLOBAL_FORWARD = _torch_module._global_forward_hooks
GLOBAL_BACKWARD_PRE = _torch_module._global_backward_pre_hooks
GLOBAL_BACKWARD = _torch_module._global_backward_hooks
_GLOBAL_WITH_KWARGS = _torch_module._global_forward_hooks_with_kwargs
_GLOBAL_ALWAYS_CALLED = _torch_module._global_forward_hooks_always_called


class ModuleHooks:
    """The backward hooks of one module (``Module._module_hooks``, None until the first registration)."""

    __slots__ = ("backward_pre", "backward")

    def __init__(self) -> None:
        self.backward_pre = HookList()
        self.backward = HookList()

    def __bool__(self) -> bool:
        return bool(self.backward_pre or self.backward)


def observed(module) -> bool:
    """Whether a call of ``module`` runs hooks (its own or torch's global ones)."""
    return bool(
        module._module_hooks
        or module._forward_pre_hooks
        or module._forward_hooks
        or GLOBAL_FORWARD_PRE
        or GLOBAL_FORWARD
        or GLOBAL_BACKWARD_PRE
        or GLOBAL_BACKWARD
    )


def _with_global_backward_hooks(hooks: ModuleHooks | None) -> ModuleHooks | None:
    """A module's backward hooks after torch's global ones, in torch's order (global hooks run first)."""
    if not (GLOBAL_BACKWARD_PRE or GLOBAL_BACKWARD):
        return hooks
    if GLOBAL_BACKWARD and _torch_module._global_is_full_backward_hook is False:
        raise RuntimeError(
            "minitorch_rx modules do not support torch's deprecated register_module_backward_hook: "
            "use torch.nn.modules.module.register_module_full_backward_hook"
        )
    merged = ModuleHooks()
    merged.backward_pre.extend(GLOBAL_BACKWARD_PRE.values())
    merged.backward.extend(GLOBAL_BACKWARD.values())
    if hooks is not None:
        merged.backward_pre.extend(hooks.backward_pre)
        merged.backward.extend(hooks.backward)
    return merged


def register(hooks: HookList, entry: Any, prepend: bool) -> RemovableHandle:
    if prepend:
        hooks.insert(0, entry)
    else:
        hooks.append(entry)
    return RemovableHandle(hooks, entry)


def _forward_hooks(module) -> list[tuple[Callable, bool, bool]]:
    """The forward hooks in torch's order (global first), each with its with_kwargs and always_call."""
    with_kwargs, always = module._forward_hooks_with_kwargs, module._forward_hooks_always_called
    return [
        (hook, key in with_kwargs or key in _GLOBAL_WITH_KWARGS, key in always or key in _GLOBAL_ALWAYS_CALLED)
        for key, hook in (*GLOBAL_FORWARD.items(), *module._forward_hooks.items())
    ]


def call_with_hooks(module, args: tuple, kwargs: dict) -> Any:
    with_kwargs = module._forward_pre_hooks_with_kwargs
    for key, hook in (*GLOBAL_FORWARD_PRE.items(), *module._forward_pre_hooks.items()):
        if key in with_kwargs:
            result = hook(module, args, kwargs)
            if result is not None:
                args, kwargs = new_args_and_kwargs(result, "forward pre-hook")
        else:
            result = hook(module, args)
            if result is not None:
                args = result if isinstance(result, tuple) else (result,)
    shared = None
    hooks = _with_global_backward_hooks(module._module_hooks)
    if hooks and is_grad_enabled():
        shared = _BackwardHookState(module, hooks)
        args = shared.wrap_inputs(args)
    try:
        output = module.forward(*args, **kwargs)
    except BaseException:
        for hook, hook_with_kwargs, always_call in _forward_hooks(module):
            if always_call:
                hook(module, args, kwargs, None) if hook_with_kwargs else hook(module, args, None)
        raise
    for hook, hook_with_kwargs, _ in _forward_hooks(module):
        result = hook(module, args, kwargs, output) if hook_with_kwargs else hook(module, args, output)
        if result is not None:
            output = result
    if shared is not None:
        output = shared.wrap_outputs(output)
    return output


class _BackwardHookState:
    """What a call's two identity nodes share: the module, its hooks, the outputs' gradients."""

    __slots__ = ("module", "hooks", "grad_outputs", "n_inputs", "input_positions", "input_ran")

    def __init__(self, module, hooks: ModuleHooks) -> None:
        self.module = module
        self.hooks = hooks
        self.grad_outputs = None
        self.n_inputs = 0
        self.input_positions: list[int] = []
        self.input_ran = False

    def wrap_inputs(self, args: tuple) -> tuple:
        positions = [i for i, a in enumerate(args) if isinstance(a, Tensor)]
        self.n_inputs = len(positions)
        wrapped = list(args)
        if any(args[i]._requires_grad for i in positions):
            self.input_positions = positions
            outs = _InputsHook.apply(self, *(args[i] for i in positions))
            for i, out in zip(positions, outs if isinstance(outs, tuple) else (outs,)):
                wrapped[i] = out
        return tuple(wrapped)

    def wrap_outputs(self, output):
        single = isinstance(output, Tensor)
        outputs = (output,) if single else output
        if not isinstance(outputs, tuple) or not any(isinstance(o, Tensor) and o._requires_grad for o in outputs):
            return output
        positions = [i for i, o in enumerate(outputs) if isinstance(o, Tensor)]
        outs = _OutputsHook.apply(self, *(outputs[i] for i in positions))
        wrapped = list(outputs)
        for i, out in zip(positions, outs if isinstance(outs, tuple) else (outs,)):
            wrapped[i] = out
        return wrapped[0] if single else tuple(wrapped)

    def on_grad_outputs(self, grads: tuple) -> tuple:
        for hook in list(self.hooks.backward_pre):
            result = hook(self.module, _as_tensors(grads))
            if result is not None:
                grads = _checked(result, grads, "backward pre hook")
        self.grad_outputs = grads
        if not self.input_positions:  # no input needs a gradient: the hooks see None for each
            self.call_backward_hooks((None,) * self.n_inputs)
        return grads

    def call_backward_hooks(self, grad_inputs: tuple) -> tuple:
        for hook in list(self.hooks.backward):
            result = hook(self.module, _as_tensors(grad_inputs), _as_tensors(self.grad_outputs))
            if result is not None:
                grad_inputs = _checked(result, grad_inputs, "backward hook")
        return grad_inputs


def _as_tensors(grads: tuple) -> tuple:
    return tuple(g if g is None or isinstance(g, Tensor) else Tensor._make(g, None) for g in grads)


def _checked(result, grads: tuple, kind: str) -> tuple:
    if not isinstance(result, (tuple, list)):
        result = (result,)
    if len(result) != len(grads):
        raise RuntimeError(f"{kind} returned an invalid number of grads, expected {len(grads)}, but got {len(result)}")
    checked = []
    for new, old in zip(result, grads):
        if new is not None and old is not None:
            shape = old.shape
            if new.shape != shape:
                raise RuntimeError(
                    f"{kind} returned a gradient of shape {list(new.shape)} where {list(shape)} was expected"
                )
        if isinstance(new, Tensor) and not state.differentiating:
            new = new._data
        checked.append(new)
    return tuple(checked)


class _InputsHook(Function):
    """Identity on the module's tensor inputs; backward calls the full backward hooks."""

    @staticmethod
    def forward(ctx, shared, *inputs):
        ctx.shared = shared
        outs = tuple(t.view_as(t) for t in inputs)
        return outs if len(outs) != 1 else outs[0]

    @staticmethod
    def backward(ctx, *grads):
        return (None, *ctx.shared.call_backward_hooks(grads))


class _OutputsHook(Function):
    """Identity on the module's tensor outputs; backward calls the full backward pre-hooks."""

    @staticmethod
    def forward(ctx, shared, *outputs):
        ctx.shared = shared
        outs = tuple(t.view_as(t) for t in outputs)
        return outs if len(outs) != 1 else outs[0]

    @staticmethod
    def backward(ctx, *grads):
        return (None, *ctx.shared.on_grad_outputs(grads))


def check_callable(hook: Callable) -> None:
    if not callable(hook):
        raise TypeError(f"hook must be callable, got {type(hook).__name__}")
