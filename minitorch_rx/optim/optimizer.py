"""``Optimizer``: parameter groups, per-parameter state and state dicts, as torch.optim's.

Optimizers keep their state as ``torch.Tensor``s and update each parameter's ``.data`` in place
with torch's ``_foreach_*`` kernels, so no graph is recorded and a ``state_dict()`` has exactly
torch's layout: it loads into a ``torch.optim`` optimizer of the same kind, and torch's loads here.
"""

from __future__ import annotations

import functools
import itertools
import warnings
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from typing import Any

import torch
from torch.optim.optimizer import _global_optimizer_post_hooks as _global_post_hooks
from torch.optim.optimizer import _global_optimizer_pre_hooks as _global_pre_hooks

from ..autograd.grad_mode import enable_grad
from ..autograd.hooks import new_args_and_kwargs
from ..autograd.tensor import Tensor, is_torch_data

ParamsT = Iterable[Tensor] | Iterable[dict[str, Any]] | Iterable[tuple[str, Tensor]]


def check_lr(lr: object) -> None:
    """``lr`` as torch's optimizers take it: a number, or a one-element tensor (PyTorch's wording)."""
    if isinstance(lr, (torch.Tensor, Tensor)):
        if lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
    elif isinstance(lr, bool) or not isinstance(lr, (int, float)):
        raise TypeError(f"lr must be a float or a 1-element Tensor, not {type(lr).__name__}")
    if not 0.0 <= float(lr):
        raise ValueError(f"Invalid learning rate: {lr}")


def scalar_lr(group: dict) -> float:
    """The group's learning rate as a Python number (a tensor lr is read each step, as torch's)."""
    lr = group["lr"]
    return float(lr) if isinstance(lr, (torch.Tensor, Tensor)) else lr


def _mark_called(step: Callable) -> Callable:
    """Wrap a subclass's ``step`` so learning-rate schedulers can tell it has run, with torch's step
    pre- and post-hooks (``register_step_pre_hook``, the global ones) around it, and run it outside
    torch's autograd: in-place updates must never extend a torch graph. (torch's own wrapper adds a
    profiler range per step, a few us on a small model.)"""

    @functools.wraps(step)
    def wrapper(self: Optimizer, *args, **kwargs):
        self._opt_called = True
        pre, post = self._optimizer_step_pre_hooks, self._optimizer_step_post_hooks
        hooked = pre or post or _global_pre_hooks or _global_post_hooks
        if hooked:
            for hook in itertools.chain(_global_pre_hooks.values(), pre.values()):
                result = hook(self, args, kwargs)
                if result is not None:
                    args, kwargs = new_args_and_kwargs(result, str(step))
        # torch.no_grad() without its context-manager objects (a few us per step on a small model)
        previous = torch.is_grad_enabled()
        torch._C._set_grad_enabled(False)
        try:
            out = step(self, *args, **kwargs)
        finally:
            torch._C._set_grad_enabled(previous)
        if hooked:
            for hook in itertools.chain(_global_post_hooks.values(), post.values()):
                hook(self, args, kwargs)
        return out

    return wrapper


class Optimizer(torch.optim.Optimizer):
    """Base class of all optimizers: a ``torch.optim.Optimizer`` (torch's LR schedulers and hooks
    take ours) whose steps update with our engine's gradients.

    ``params`` is an iterable of leaf tensors (ours, or a torch module's parameters), of
    ``(name, tensor)`` pairs, or of dicts (parameter groups: a ``'params'`` entry plus options that
    override ``defaults`` for that group). ``param_groups`` is the live list of group dicts and
    ``state`` maps each parameter to its dict of ``torch.Tensor`` buffers. Subclasses implement
    ``step``. ``state_dict``, ``__repr__`` and the hook registrations are torch's own.
    """

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if "step" in cls.__dict__:
            cls.step = _mark_called(cls.__dict__["step"])

    def __init__(self, params: ParamsT, defaults: dict[str, Any]) -> None:
        if isinstance(params, torch.Tensor) or not hasattr(params, "__iter__"):
            raise TypeError(
                "params argument given to the optimizer should be an iterable of Tensors or dicts, "
                f"but got {torch.typename(params)}"
            )
        if not isinstance(defaults, dict):
            raise TypeError(f"defaults must be a dict of the optimizer's options, not {type(defaults).__name__}")
        super().__init__(params, defaults)

    def _patch_step_function(self) -> None:
        """Nothing to patch: ``__init_subclass__`` wrapped each class's ``step`` once (``_mark_called``)."""

    # ------------------------------------------------------------------ groups
    def add_param_group(self, param_group: dict[str, Any]) -> None:
        """Append a group (a dict with ``'params'`` and any per-group options) to ``param_groups``.

        Options the group leaves out take the optimizer's defaults. A parameter may belong to one
        group only: ``ValueError("some parameters appear in more than one parameter group")``.
        """
        if not isinstance(param_group, dict):
            raise TypeError(f"param_group must be a dict, but got {type(param_group)}")
        params = param_group["params"]
        if isinstance(params, torch.Tensor):
            params = [params]
        elif isinstance(params, set):
            raise TypeError(
                "optimizer parameters need to be organized in ordered collections, but the "
                "ordering of tensors in sets will change between runs. Please use a list instead."
            )
        else:
            params = list(params)
        names = [p[0] for p in params if isinstance(p, tuple)]
        tensors = [p[1] if isinstance(p, tuple) else p for p in params]
        if names and len(names) != len(tensors):
            raise ValueError("all optimizer params should be with/without names. Some param names are missing")
        for param in tensors:
            if not isinstance(param, torch.Tensor):  # ours, or a torch module's parameters: their data
                raise TypeError(
                    "optimizer can only optimize Tensors, but one of the params is " + torch.typename(param)
                )
            if not (param.is_leaf or param.retains_grad):
                raise ValueError("can't optimize a non-leaf Tensor")
        param_group["params"] = tensors
        if names:
            param_group["param_names"] = names
        for name, default in self.defaults.items():
            param_group.setdefault(name, default)

        ids = [id(p) for p in tensors]
        if len(ids) != len(set(ids)):
            warnings.warn(
                "optimizer contains a parameter group with duplicate parameters; in future, "
                "this will cause an error; see github.com/pytorch/pytorch/issues/40967 for more "
                "information",
                stacklevel=3,
            )
        existing: set[int] = set()
        for group in self.param_groups:
            existing.update(id(p) for p in group["params"])
            if ("param_names" in param_group) != ("param_names" in group):
                kind = "with names" if "param_names" in param_group else "without names"
                raise ValueError(
                    "all optimizer param groups should be with/without names. "
                    f"cannot add param group {kind} to the optimizer"
                )
        if not existing.isdisjoint(ids):
            raise ValueError("some parameters appear in more than one parameter group")
        self.param_groups.append(param_group)

    # ------------------------------------------------------------------- steps
    def zero_grad(self, set_to_none: bool = True) -> None:
        """Reset every parameter's ``.grad``: to ``None`` (default), or to zeros in place."""
        for group in self.param_groups:
            for p in group["params"]:
                grad = p.grad
                if grad is None:
                    continue
                if set_to_none:
                    p.grad = None
                else:
                    if grad.grad_fn is not None:
                        grad.detach_()
                    else:
                        grad.requires_grad_(False)
                    data_of(grad).zero_()

    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        """Update the parameters once; ``closure`` (re-evaluating the loss) runs first with
        recording on, and its result is returned."""
        raise NotImplementedError

    @staticmethod
    def _closure_loss(closure: Callable[[], Any] | None) -> Any:
        if closure is None:
            return None
        with enable_grad(), torch.enable_grad():  # as torch's optimizers run the closure
            return closure()

    # ------------------------------------------------------------ state dicts
    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        """Load a ``state_dict()`` (ours or a ``torch.optim`` optimizer's of the same kind).

        Buffers are copied to each parameter's device (and floating dtype, except ``'step'``), so
        the loaded optimizer shares no tensors with ``state_dict``; group options are replaced by
        the saved ones. torch's load-state-dict pre- and post-hooks run around it.
        """
        for hook in self._optimizer_load_state_dict_pre_hooks.values():
            result = hook(self, state_dict)
            if result is not None:
                state_dict = result
        groups = self.param_groups
        saved_groups = [dict(g) for g in state_dict["param_groups"]]
        if len(groups) != len(saved_groups):
            raise ValueError("loaded state dict has a different number of parameter groups")
        if any(len(g["params"]) != len(s["params"]) for g, s in zip(groups, saved_groups, strict=True)):
            raise ValueError(
                "loaded state dict contains a parameter group that doesn't match the size of optimizer's group"
            )
        params = {
            i: p
            for s, g in zip(saved_groups, groups, strict=True)
            for i, p in zip(s["params"], g["params"], strict=True)
        }
        state: defaultdict[Tensor, dict[str, Any]] = defaultdict(dict)
        for key, value in state_dict["state"].items():
            if key in params:
                param = params[key]
                state[param] = {name: _copy_to(param, v, name) for name, v in value.items()}
            else:
                state[key] = value
        for group, saved in zip(groups, saved_groups, strict=True):
            saved["params"] = group["params"]
            if "param_names" in group and "param_names" not in saved:
                saved["param_names"] = group["param_names"]
        self.state = state
        self.param_groups = saved_groups
        self._after_load()
        for hook in self._optimizer_load_state_dict_post_hooks.values():
            hook(self)

    def _after_load(self) -> None:
        """Give options a loaded state dict lacks (an older or foreign one) their defaults."""
        for group in self.param_groups:
            for name, default in self.defaults.items():
                group.setdefault(name, default)


def _copy_to(param: Tensor, value: Any, name: str) -> Any:
    """A copy of one saved state entry, placed like ``param`` (torch's casting policy)."""
    if isinstance(value, Tensor):
        value = value._data
    if not is_torch_data(value):
        return value
    if name == "step":
        return value.clone()
    data = data_of(param)
    if data.is_floating_point():
        return value.to(dtype=data.dtype, device=data.device, copy=True)
    return value.to(device=data.device, copy=True)


def data_of(tensor: torch.Tensor) -> torch.Tensor:
    """The torch data an update reads and writes: an mt tensor's ``_data``, a torch tensor itself
    (a torch module's parameter, or the gradient our engine gave it)."""
    return getattr(tensor, "_data", tensor)


def datas(tensors: Iterable[torch.Tensor]) -> list[torch.Tensor]:
    """``data_of`` each of ``tensors``, without a call per tensor (a step's hot path)."""
    return [getattr(t, "_data", t) for t in tensors]


def grads_of(params: list[torch.Tensor]) -> list[torch.Tensor]:
    """The ``.grad`` tensors of ``params`` themselves, for kernels run under ``kernels_on_ours``
    (to torch, an mt tensor is its own data there): no ``_data`` read, so a gradient the engine
    gave (``_accumulate_into``) never makes the alias of its own that reading it would."""
    return [p.grad for p in params]


#: Torch's kernels on mt tensors as on their data (no ``__torch_function__``): ``grads_of``'s context.
kernels_on_ours = torch._C.DisableTorchFunctionSubclass


def params_with_grad(group: dict[str, Any]) -> tuple[list[Tensor], list[torch.Tensor]]:
    """The group's parameters that have a ``.grad``, and those grads' torch data."""
    params = [p for p in group["params"] if p.grad is not None]
    return params, datas([p.grad for p in params])


CPU_BUCKET_BYTES = 1 << 20


def buckets(tensors: Sequence[torch.Tensor]) -> list[list[int]]:
    """Indices of ``tensors`` in the groups an update's ``_foreach_*`` calls take at once.

    One (device, dtype) per group, as torch's foreach path needs. On the CPU a group is further
    cut into runs of consecutive tensors of about ``CPU_BUCKET_BYTES`` (a larger tensor alone):
    each of an update's passes then finds the run's tensors and temporaries still in cache, where
    one pass over a whole model would stream everything from memory several times. The
    per-element math is the same either way.
    """
    kinds: dict[tuple[torch.device, torch.dtype], list[list[int]]] = {}
    sizes: dict[tuple[torch.device, torch.dtype], int] = {}
    for i, t in enumerate(tensors):
        key = (t.device, t.dtype)
        runs = kinds.setdefault(key, [[]])
        nbytes = t.numel() * t.element_size() if t.device.type == "cpu" else 0
        if runs[-1] and sizes[key] + nbytes > CPU_BUCKET_BYTES:
            runs.append([])
            sizes[key] = 0
        runs[-1].append(i)
        sizes[key] = sizes.get(key, 0) + nbytes
    return [run for runs in kinds.values() for run in runs]
