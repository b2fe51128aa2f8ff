"""``nn.Module``: the base of every layer, a ``torch.nn.Module`` whose calls record on minitorch_rx.

Registration, traversal, modes, ``state_dict``/``load_state_dict`` (with their hooks) and ``repr``
are ``torch.nn.Module``'s own, so torch's containers and every library that checks
``isinstance(m, torch.nn.Module)`` take our modules, and a torch module (a torchvision model) is a
child as ours are: its parameters are leaves of our graph when it is called on our tensors. What
differs is what needs our engine: a call (module hooks run on our graph, ``module_hooks.py``),
buffers (a torch tensor registered or assigned as a buffer becomes an ``mt.Tensor`` over the same
memory) and ``_apply`` (our parameters keep their identity and take the new data).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import torch
import torch.fx

from ..autograd.hooks import RemovableHandle
from ..autograd.tensor import Tensor, complex_grad_error, is_torch_data, rebind
from ..autograd.torch_leaves import torch_operands
from . import module_hooks
from .parameter import Parameter

_addindent = torch.nn.modules.module._addindent


def _as_buffer(value: object) -> object:
    """A torch tensor becomes an ``mt.Tensor`` over its memory (what our layers compute with)."""
    return Tensor._make(value.detach(), None) if is_torch_data(value) else value


class Module(torch.nn.Module):
    """Base class of all layers and models; subclasses define ``forward``.

    >>> import torch, minitorch_rx as mt, minitorch_rx.nn as nn
    >>> class Net(nn.Module):
    ...     def __init__(self):
    ...         super().__init__()
    ...         self.fc = nn.Linear(4, 2)
    ...     def forward(self, x):
    ...         return self.fc(x).relu()
    >>> [name for name, _ in Net().named_parameters()]
    ['fc.weight', 'fc.bias']
    >>> isinstance(Net(), torch.nn.Module)
    True
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        object.__setattr__(self, "_module_hooks", None)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        for a in args:
            if type(a) is Tensor:
                continue
            if is_torch_data(a):  # from torch (a Dataset, a transform): a constant
                args = torch_operands(args)
                break
            if isinstance(a, torch.fx.Proxy):  # fx is tracing: its replacement of torch's call records ours
                return torch.nn.Module.__call__(self, *args, **kwargs)
        if not module_hooks.observed(self):
            return self.forward(*args, **kwargs)
        return module_hooks.call_with_hooks(self, args, kwargs)

    # ------------------------------------------------------------------ hooks
    def _hooks(self) -> module_hooks.ModuleHooks:
        if self._module_hooks is None:
            object.__setattr__(self, "_module_hooks", module_hooks.ModuleHooks())
        return self._module_hooks

    def register_forward_pre_hook(
        self, hook: Callable, *, prepend: bool = False, with_kwargs: bool = False
    ) -> torch.utils.hooks.RemovableHandle:
        """Call ``hook(module, args)`` (``hook(module, args, kwargs)`` with ``with_kwargs``) before
        each ``forward``; a returned value replaces the arguments."""
        module_hooks.check_callable(hook)
        return super().register_forward_pre_hook(hook, prepend=prepend, with_kwargs=with_kwargs)

    def register_forward_hook(
        self, hook: Callable, *, prepend: bool = False, with_kwargs: bool = False, always_call: bool = False
    ) -> torch.utils.hooks.RemovableHandle:
        """Call ``hook(module, args, output)`` (``hook(module, args, kwargs, output)`` with
        ``with_kwargs``) after each ``forward``; a returned value replaces the output."""
        module_hooks.check_callable(hook)
        return super().register_forward_hook(hook, prepend=prepend, with_kwargs=with_kwargs, always_call=always_call)

    def register_full_backward_pre_hook(self, hook: Callable, prepend: bool = False) -> RemovableHandle:
        """Call ``hook(module, grad_output)`` when the gradients of the module's outputs are known;
        a returned tuple replaces them."""
        module_hooks.check_callable(hook)
        return module_hooks.register(self._hooks().backward_pre, hook, prepend)

    def register_full_backward_hook(self, hook: Callable, prepend: bool = False) -> RemovableHandle:
        """Call ``hook(module, grad_input, grad_output)`` when the gradients of the module's tensor
        inputs are known; a returned tuple replaces ``grad_input``."""
        module_hooks.check_callable(hook)
        return module_hooks.register(self._hooks().backward, hook, prepend)

    def register_backward_hook(self, hook: Callable) -> RemovableHandle:
        """torch's deprecated non-full backward hook is not kept: a clear error, never a hook that never runs."""
        raise RuntimeError(
            "minitorch_rx modules do not support register_backward_hook (deprecated in PyTorch): "
            "use register_full_backward_hook"
        )

    # ------------------------------------------------------------------ buffers
    def register_buffer(self, name: str, tensor: torch.Tensor | None, persistent: bool = True) -> None:
        """Add ``tensor`` as buffer ``name``, as ``torch.nn.Module.register_buffer``; a torch tensor
        becomes an ``mt.Tensor`` sharing its memory."""
        super().register_buffer(name, _as_buffer(tensor), persistent)

    def __setattr__(self, name: str, value: Any) -> None:
        if is_torch_data(value) and name in self.__dict__.get("_buffers", ()) and not isinstance(value, Parameter):
            value = _as_buffer(value)
        super().__setattr__(name, value)

    # ---------------------------------------------------------------- device/dtype
    def _apply(self, fn: Callable[[torch.Tensor], torch.Tensor], recurse: bool = True) -> Module:
        """Replace the data of every parameter, gradient and buffer by ``fn(data)`` (torch's data).

        Parameters keep their identity (an optimizer holding them keeps working), as in PyTorch; a
        torch child (or a torch parameter of ours) is converted by torch's own rules.
        """
        if recurse:
            for module in self.children():
                module._apply(fn)
        for key, param in self._parameters.items():
            if param is None:
                continue
            if isinstance(param, Tensor):
                data = fn(param._data)
                if torch._has_compatible_shallow_copy_type(param._data, data):
                    rebind(param, data)
                else:  # another kind of tensor (meta -> cpu in ``to_empty``): a new parameter, as torch's
                    self._parameters[key] = Parameter(data, requires_grad=param.requires_grad)
                grad = param.grad
                if grad is not None:
                    grad_data = fn(grad._data)
                    if torch._has_compatible_shallow_copy_type(grad._data, grad_data):
                        rebind(grad, grad_data)
                    else:
                        self._parameters[key].grad = Tensor._make(grad_data, None)
            else:
                with torch.no_grad():
                    param.data = fn(param)
                    if param.grad is not None:
                        param.grad.data = fn(param.grad)
        for name, buf in self._buffers.items():
            if buf is not None:
                self._buffers[name] = Tensor._make(fn(buf._data if isinstance(buf, Tensor) else buf), None)
        return self

    def to(self, *args: Any, **kwargs: Any) -> Module:
        """Move and/or cast parameters and buffers in place, as ``torch.nn.Module.to``.

        ``to(device)``, ``to(dtype)``, ``to(device, dtype)``, ``to(tensor)`` or keywords; only
        floating-point and complex tensors change dtype; a complex dtype is refused for parameters
        that require grad (our engine has no complex gradients).
        """
        device, dtype, non_blocking, memory_format = torch._C._nn._parse_to(*args, **kwargs)
        if dtype is not None and dtype.is_complex:
            learnable = next((name for name, p in self.named_parameters() if p.requires_grad), None)
            if learnable is not None:
                raise complex_grad_error(f"Module.to({dtype}): parameter '{learnable}' requires grad")
        return super().to(*args, **kwargs)

    # ----------------------------------------------------------------- state dicts
    def _load_from_state_dict(
        self,
        state_dict: dict,
        prefix: str,
        local_metadata: dict,
        strict: bool,
        missing_keys: list[str],
        unexpected_keys: list[str],
        error_msgs: list[str],
    ) -> None:
        """torch's, but ``assign=True`` makes a checkpoint tensor one of our parameters (torch's
        would make it a ``torch.nn.Parameter``)."""
        if local_metadata.get("assign_to_params_buffers", False):
            for name, param in self._parameters.items():
                value = state_dict.get(prefix + name)
                if isinstance(param, Parameter) and isinstance(value, torch.Tensor) and type(value) is not Parameter:
                    state_dict[prefix + name] = Parameter(value, requires_grad=param.requires_grad)
        super()._load_from_state_dict(
            state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys, error_msgs
        )
