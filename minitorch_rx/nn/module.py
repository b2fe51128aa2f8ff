"""``nn.Module``: the base of every layer, with PyTorch's registration, traversal and state dicts.

Assigning a ``Parameter`` or a ``Module`` as an attribute registers it in ``_parameters`` or
``_modules`` (``__setattr__``); buffers are registered with ``register_buffer``. Traversals
(``parameters()``, ``modules()``, ...) yield an object reachable along two paths once.
"""

from __future__ import annotations

import itertools
from collections import OrderedDict
from collections.abc import Callable, Iterator, Mapping
from typing import Any, NamedTuple

import torch

from ..autograd.hooks import RemovableHandle
from ..autograd.tensor import Tensor, complex_grad_error, is_torch_data, rebind
from ..autograd.torch_leaves import torch_operands
from . import module_hooks
from .parameter import Parameter


class _IncompatibleKeys(NamedTuple):
    """What ``load_state_dict`` returns: the keys it missed and the keys it did not expect."""

    missing_keys: list[str]
    unexpected_keys: list[str]

    def __repr__(self) -> str:
        if not self.missing_keys and not self.unexpected_keys:
            return "<All keys matched successfully>"
        missing, unexpected = self.missing_keys, self.unexpected_keys
        return f"_IncompatibleKeys(missing_keys={missing}, unexpected_keys={unexpected})"

    __str__ = __repr__


def _addindent(text: str, num_spaces: int) -> str:
    lines = text.split("\n")
    if len(lines) == 1:
        return text
    first = lines.pop(0)
    rest = [(num_spaces * " ") + line if line.strip() else "" for line in lines]
    return first + "\n" + "\n".join(rest)


def _as_buffer(value: Tensor | torch.Tensor) -> Tensor:
    return value if isinstance(value, Tensor) else Tensor._make(value.detach(), None)


def _check_torch_child(module: object) -> bool:
    """A torch.nn.Module is a child as ours are when it has no parameters (einops' ``Rearrange``,
    ``torch.nn.Flatten``): ours would not see them (optimizers, ``state_dict``). Else a TypeError."""
    if not isinstance(module, torch.nn.Module):
        raise TypeError(f"{torch.typename(module)} is not a Module subclass")
    if any(True for _ in module.parameters()):
        raise TypeError(
            f"{torch.typename(module)} is a torch.nn.Module with parameters, which minitorch_rx's optimizers "
            "and state_dict would not see: use the minitorch_rx module of that name, or call the torch "
            "module from forward (its parameters then get their gradients from minitorch_rx's backward)"
        )
    return True


def _check_member_name(kind: str, name: object) -> None:
    if not isinstance(name, str):
        raise TypeError(f"{kind} name should be a string. Got {torch.typename(name)}")
    if "." in name:
        raise KeyError(f'{kind} name can\'t contain "."' + (f", got: {name}" if kind == "module" else ""))
    if name == "":
        raise KeyError(f'{kind} name can\'t be empty string ""')


class Module:
    """Base class of all layers and models; subclasses define ``forward``.

    >>> import minitorch_rx as mt, minitorch_rx.nn as nn
    >>> class Net(nn.Module):
    ...     def __init__(self):
    ...         super().__init__()
    ...         self.fc = nn.Linear(4, 2)
    ...     def forward(self, x):
    ...         return self.fc(x).relu()
    >>> [name for name, _ in Net().named_parameters()]
    ['fc.weight', 'fc.bias']
    """

    #: Bumped by subclasses whose state-dict layout changed; saved in ``state_dict()._metadata``.
    _version: int = 1

    training: bool
    _parameters: dict[str, Parameter | None]
    _buffers: dict[str, Tensor | None]
    _non_persistent_buffers_set: set[str]
    _modules: dict[str, Module | None]

    def __init__(self) -> None:
        setattr_ = object.__setattr__
        setattr_(self, "training", True)
        setattr_(self, "_parameters", {})
        setattr_(self, "_buffers", {})
        setattr_(self, "_non_persistent_buffers_set", set())
        setattr_(self, "_modules", {})
        setattr_(self, "_module_hooks", None)

    def forward(self, *args: Any, **kwargs: Any) -> Any:
        """The computation of this module; every subclass defines it."""
        raise NotImplementedError(f'Module [{type(self).__name__}] is missing the required "forward" function')

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        for a in args:
            if type(a) is not Tensor and is_torch_data(a):  # from torch (a Dataset, a transform): a constant
                args = torch_operands(args)
                break
        hooks = self._module_hooks
        if not hooks:
            return self.forward(*args, **kwargs)
        return module_hooks.call_with_hooks(self, hooks, args, kwargs)

    # ------------------------------------------------------------------ hooks
    def _hooks(self) -> module_hooks.ModuleHooks:
        if self._module_hooks is None:
            object.__setattr__(self, "_module_hooks", module_hooks.ModuleHooks())
        return self._module_hooks

    def register_forward_pre_hook(
        self, hook: Callable, *, prepend: bool = False, with_kwargs: bool = False
    ) -> RemovableHandle:
        """Call ``hook(module, args)`` (``hook(module, args, kwargs)`` with ``with_kwargs``) before
        each ``forward``; a returned value replaces the arguments."""
        module_hooks.check_callable(hook)
        return module_hooks.register(self._hooks().forward_pre, (hook, with_kwargs), prepend)

    def register_forward_hook(
        self, hook: Callable, *, prepend: bool = False, with_kwargs: bool = False, always_call: bool = False
    ) -> RemovableHandle:
        """Call ``hook(module, args, output)`` (``hook(module, args, kwargs, output)`` with
        ``with_kwargs``) after each ``forward``; a returned value replaces the output."""
        module_hooks.check_callable(hook)
        return module_hooks.register(self._hooks().forward, (hook, with_kwargs, always_call), prepend)

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

    # ------------------------------------------------------------------ registration
    def register_parameter(self, name: str, param: Parameter | None) -> None:
        """Add ``param`` (a ``Parameter`` or ``None``) as parameter ``name``."""
        if "_parameters" not in self.__dict__:
            raise AttributeError("cannot assign parameter before Module.__init__() call")
        _check_member_name("parameter", name)
        if hasattr(self, name) and name not in self._parameters:
            raise KeyError(f"attribute '{name}' already exists")
        if param is not None and not isinstance(param, Parameter):
            raise TypeError(
                f"cannot assign '{torch.typename(param)}' object to parameter '{name}' (nn.Parameter or None required)"
            )
        if param is not None and not param.is_leaf:
            raise ValueError(
                f"Cannot assign non-leaf Tensor to parameter '{name}'. Model parameters must be "
                f"created explicitly. To express '{name}' as a function of another Tensor, compute "
                "the value in the forward() method."
            )
        self._parameters[name] = param

    def register_buffer(self, name: str, tensor: Tensor | torch.Tensor | None, persistent: bool = True) -> None:
        """Add ``tensor`` as buffer ``name``: state that is not a parameter (running means, ...).

        A persistent buffer is part of ``state_dict()``; a non-persistent one is not.
        A ``torch.Tensor`` is wrapped (sharing memory) into an ``mt.Tensor``.
        """
        if "_buffers" not in self.__dict__:
            raise AttributeError("cannot assign buffer before Module.__init__() call")
        _check_member_name("buffer", name)
        if hasattr(self, name) and name not in self._buffers:
            raise KeyError(f"attribute '{name}' already exists")
        if tensor is not None and not isinstance(tensor, (Tensor, torch.Tensor)):
            raise TypeError(
                f"cannot assign '{torch.typename(tensor)}' object to buffer '{name}' (Tensor or None required)"
            )
        self._buffers[name] = None if tensor is None else _as_buffer(tensor)
        if persistent:
            self._non_persistent_buffers_set.discard(name)
        else:
            self._non_persistent_buffers_set.add(name)

    def add_module(self, name: str, module: Module | None) -> None:
        """Add ``module`` as child ``name`` (also what ``self.name = module`` does)."""
        if not isinstance(module, Module) and module is not None:
            _check_torch_child(module)
        _check_member_name("module", name)
        if hasattr(self, name) and name not in self._modules:
            raise KeyError(f"attribute '{name}' already exists")
        self._modules[name] = module

    register_module = add_module

    def __setattr__(self, name: str, value: Any) -> None:
        def remove_from(*containers: dict | set) -> None:
            for container in containers:
                if name in container:
                    if isinstance(container, dict):
                        del container[name]
                    else:
                        container.discard(name)

        params = self.__dict__.get("_parameters")
        if isinstance(value, Parameter):
            if params is None:
                raise AttributeError("cannot assign parameters before Module.__init__() call")
            remove_from(self.__dict__, self._buffers, self._modules, self._non_persistent_buffers_set)
            self.register_parameter(name, value)
        elif params is not None and name in params:
            if value is not None:
                raise TypeError(
                    f"cannot assign '{torch.typename(value)}' as parameter '{name}' (nn.Parameter or None expected)"
                )
            self.register_parameter(name, value)
        elif isinstance(value, Module) or (isinstance(value, torch.nn.Module) and _check_torch_child(value)):
            modules = self.__dict__.get("_modules")
            if modules is None:
                raise AttributeError("cannot assign module before Module.__init__() call")
            remove_from(self.__dict__, self._parameters, self._buffers, self._non_persistent_buffers_set)
            modules[name] = value
        elif name in self.__dict__.get("_modules", ()):
            if value is not None:
                raise TypeError(
                    f"cannot assign '{torch.typename(value)}' as child module '{name}' (nn.Module or None expected)"
                )
            self._modules[name] = value
        elif name in self.__dict__.get("_buffers", ()):
            if value is not None and not isinstance(value, (Tensor, torch.Tensor)):
                raise TypeError(f"cannot assign '{torch.typename(value)}' as buffer '{name}' (Tensor or None expected)")
            self._buffers[name] = None if value is None else _as_buffer(value)
        else:
            object.__setattr__(self, name, value)

    def __getattr__(self, name: str) -> Any:
        # Only called when normal lookup fails: parameters, buffers and children live in dicts.
        members = self.__dict__
        for table in ("_parameters", "_buffers", "_modules"):
            values = members.get(table)
            if values is not None and name in values:
                return values[name]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __delattr__(self, name: str) -> None:
        if name in self._parameters:
            del self._parameters[name]
        elif name in self._buffers:
            del self._buffers[name]
            self._non_persistent_buffers_set.discard(name)
        elif name in self._modules:
            del self._modules[name]
        else:
            object.__delattr__(self, name)

    def __dir__(self) -> list[str]:
        names = itertools.chain(dir(type(self)), self.__dict__, self._parameters, self._modules, self._buffers)
        return sorted({name for name in names if not name[0].isdigit()})

    # -------------------------------------------------------------------- traversal
    def named_modules(
        self, memo: set[int] | None = None, prefix: str = "", remove_duplicate: bool = True
    ) -> Iterator[tuple[str, Module]]:
        """``(name, module)`` for this module and every descendant, each module once."""
        if memo is None:
            memo = set()
        if id(self) in memo:
            return
        if remove_duplicate:
            memo.add(id(self))
        yield prefix, self
        for name, module in self._modules.items():
            if module is None:
                continue
            yield from module.named_modules(memo, prefix + ("." if prefix else "") + name, remove_duplicate)

    def modules(self) -> Iterator[Module]:
        """This module and every descendant, each once."""
        for _, module in self.named_modules():
            yield module

    def named_children(self) -> Iterator[tuple[str, Module]]:
        """``(name, module)`` for each direct child, each module once."""
        seen: set[int] = set()
        for name, module in self._modules.items():
            if module is not None and id(module) not in seen:
                seen.add(id(module))
                yield name, module

    def children(self) -> Iterator[Module]:
        """The direct children, each once."""
        for _, module in self.named_children():
            yield module

    def _named_members(
        self,
        members_of: Callable[[Module], Any],
        prefix: str,
        recurse: bool,
        remove_duplicate: bool,
    ) -> Iterator[tuple[str, Any]]:
        seen: set[int] = set()
        modules = self.named_modules(prefix=prefix, remove_duplicate=remove_duplicate) if recurse else [(prefix, self)]
        for module_prefix, module in modules:
            for name, value in members_of(module):
                if value is None or id(value) in seen:
                    continue
                if remove_duplicate:
                    seen.add(id(value))
                yield module_prefix + ("." if module_prefix else "") + name, value

    def named_parameters(
        self, prefix: str = "", recurse: bool = True, remove_duplicate: bool = True
    ) -> Iterator[tuple[str, Parameter]]:
        """``(name, parameter)`` pairs; a parameter shared by two modules comes once."""
        return self._named_members(lambda m: m._parameters.items(), prefix, recurse, remove_duplicate)

    def parameters(self, recurse: bool = True) -> Iterator[Parameter]:
        """The parameters of this module (and, with ``recurse``, of its descendants), each once."""
        for _, param in self.named_parameters(recurse=recurse):
            yield param

    def named_buffers(
        self, prefix: str = "", recurse: bool = True, remove_duplicate: bool = True
    ) -> Iterator[tuple[str, Tensor]]:
        """``(name, buffer)`` pairs, persistent or not, each buffer once."""
        return self._named_members(lambda m: m._buffers.items(), prefix, recurse, remove_duplicate)

    def buffers(self, recurse: bool = True) -> Iterator[Tensor]:
        """The buffers of this module (and, with ``recurse``, of its descendants), each once."""
        for _, buf in self.named_buffers(recurse=recurse):
            yield buf

    def apply(self, fn: Callable[[Module], None]) -> Module:
        """Call ``fn`` on every descendant, children first, then on this module; returns self."""
        for module in self.children():
            module.apply(fn)
        fn(self)
        return self

    # ---------------------------------------------------------------------- modes
    def train(self, mode: bool = True) -> Module:
        """Set training mode (``mode=False``: evaluation) here and in every descendant."""
        if not isinstance(mode, bool):
            raise ValueError("training mode is expected to be boolean")
        self.training = mode
        for module in self.children():
            module.train(mode)
        return self

    def eval(self) -> Module:
        """Evaluation mode: ``train(False)``."""
        return self.train(False)

    def requires_grad_(self, requires_grad: bool = True) -> Module:
        """Set ``requires_grad`` on every parameter (e.g. to freeze a part of a model)."""
        for param in self.parameters():
            param.requires_grad_(requires_grad)
        return self

    def zero_grad(self, set_to_none: bool = True) -> None:
        """Reset every parameter's gradient: to ``None`` (the default) or to zeros."""
        for param in self.parameters():
            if param.grad is None:
                continue
            if set_to_none:
                param.grad = None
            else:
                param.grad._data.zero_()

    # ---------------------------------------------------------------- device/dtype
    def _apply(self, fn: Callable[[torch.Tensor], torch.Tensor]) -> Module:
        """Replace the data of every parameter, gradient and buffer by ``fn(data)``.

        Parameters keep their identity (an optimizer holding them keeps working), as in PyTorch.
        """
        for module in self.children():
            module._apply(fn)
        for param in self._parameters.values():
            if param is None:
                continue
            rebind(param, fn(param._data))
            if param.grad is not None:
                rebind(param.grad, fn(param.grad._data))
        for name, buf in self._buffers.items():
            if buf is not None:
                self._buffers[name] = Tensor._make(fn(buf._data), None)
        return self

    def to(self, *args: Any, **kwargs: Any) -> Module:
        """Move and/or cast parameters and buffers in place, as ``torch.nn.Module.to``.

        ``to(device)``, ``to(dtype)``, ``to(device, dtype)``, ``to(tensor)`` or keywords; only
        floating-point and complex tensors change dtype.
        """
        args = tuple(a._data if isinstance(a, Tensor) else a for a in args)
        device, dtype, non_blocking, _ = torch._C._nn._parse_to(*args, **kwargs)
        if dtype is not None and not (dtype.is_floating_point or dtype.is_complex):
            raise TypeError(
                f"nn.Module.to only accepts floating point or complex dtypes, but got desired dtype={dtype}"
            )

        if dtype is not None and dtype.is_complex:
            learnable = next((name for name, p in self.named_parameters() if p.requires_grad), None)
            if learnable is not None:
                raise complex_grad_error(f"Module.to({dtype}): parameter '{learnable}' requires grad")

        def convert(t: torch.Tensor) -> torch.Tensor:
            return t.to(device, dtype if t.is_floating_point() or t.is_complex() else None, non_blocking)

        return self._apply(convert)

    def share_memory(self) -> Module:
        """Move every parameter's, gradient's and buffer's data to shared memory, as
        ``torch.nn.Module.share_memory``: processes given the module (``minitorch_rx.multiprocessing``)
        train one set of weights (hogwild)."""
        return self._apply(lambda t: t.share_memory_())

    def cpu(self) -> Module:
        return self._apply(lambda t: t.cpu())

    def cuda(self, device: int | str | torch.device | None = None) -> Module:
        return self._apply(lambda t: t.cuda(device))

    def float(self) -> Module:
        return self._apply(lambda t: t.float() if t.is_floating_point() else t)

    def double(self) -> Module:
        return self._apply(lambda t: t.double() if t.is_floating_point() else t)

    def half(self) -> Module:
        return self._apply(lambda t: t.half() if t.is_floating_point() else t)

    # ----------------------------------------------------------------- state dicts
    def _save_to_state_dict(self, destination: dict, prefix: str, keep_vars: bool) -> None:
        for name, param in self._parameters.items():
            if param is not None:
                destination[prefix + name] = param if keep_vars else param.detach()
        for name, buf in self._buffers.items():
            if buf is not None and name not in self._non_persistent_buffers_set:
                destination[prefix + name] = buf if keep_vars else buf.detach()

    def state_dict(self, *, destination: dict | None = None, prefix: str = "", keep_vars: bool = False) -> dict:
        """Every parameter and persistent buffer by dotted name, as ``mt.Tensor`` values.

        The values are detached but share memory with the module's tensors (``keep_vars=True``
        gives the parameters themselves). The ``OrderedDict`` carries ``_metadata`` with each
        module's ``_version``, as PyTorch's does.
        """
        if destination is None:
            destination = OrderedDict()
            destination._metadata = OrderedDict()
        metadata = getattr(destination, "_metadata", None)
        if metadata is not None:
            metadata[prefix[:-1]] = {"version": self._version}
        self._save_to_state_dict(destination, prefix, keep_vars)
        for name, module in self._modules.items():
            if module is not None:
                module.state_dict(destination=destination, prefix=prefix + name + ".", keep_vars=keep_vars)
        return destination

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
        """Copy this module's own entries (not its children's) from ``state_dict``."""
        persistent = ((k, v) for k, v in self._buffers.items() if k not in self._non_persistent_buffers_set)
        local_state = {k: v for k, v in itertools.chain(self._parameters.items(), persistent) if v is not None}
        assign = local_metadata.get("assign_to_params_buffers", False)
        for name, param in local_state.items():
            key = prefix + name
            if key not in state_dict:
                if strict:
                    missing_keys.append(key)
                continue
            value = state_dict[key]
            if isinstance(value, Tensor):
                source = value._data
            elif is_torch_data(value):
                source = value.detach()
            else:
                error_msgs.append(
                    f'While copying the parameter named "{key}", expected torch.Tensor or Tensor-like '
                    f"object from checkpoint but received {type(value)}"
                )
                continue
            if param._data.dim() == 0 and source.dim() == 1 and source.shape[0] == 1:
                source = source[0]
            if source.shape != param._data.shape:
                error_msgs.append(
                    f"size mismatch for {key}: copying a param with shape {source.shape} from checkpoint, "
                    f"the shape in current model is {param._data.shape}."
                )
                continue
            try:
                if not assign:
                    param._data.copy_(source)
                elif isinstance(param, Parameter):
                    setattr(self, name, Parameter(source, requires_grad=param.requires_grad))
                else:
                    setattr(self, name, Tensor._make(source, None))
            except Exception as ex:
                error_msgs.append(
                    f'While copying the parameter named "{key}", whose dimensions in the model are '
                    f"{param._data.size()} and whose dimensions in the checkpoint are {source.size()}, "
                    f"an exception occurred : {ex.args}."
                )
        if strict:
            for key in state_dict:
                if not key.startswith(prefix):
                    continue
                input_name = key[len(prefix) :].split(".", 1)
                if len(input_name) > 1:
                    if input_name[0] not in self._modules:
                        unexpected_keys.append(key)
                elif input_name[0] not in local_state:
                    unexpected_keys.append(key)

    def load_state_dict(
        self,
        state_dict: Mapping[str, Tensor | torch.Tensor],
        strict: bool = True,
        assign: bool = False,
    ) -> _IncompatibleKeys:
        """Copy parameters and buffers from ``state_dict`` (``mt.Tensor`` or ``torch.Tensor``s).

        Returns ``(missing_keys, unexpected_keys)``. With ``strict`` (the default) any missing or
        unexpected key raises; a shape mismatch always raises, in PyTorch's words. ``assign=True``
        makes the checkpoint's tensors the module's own instead of copying into them.
        """
        if not isinstance(state_dict, Mapping):
            raise TypeError(f"Expected state_dict to be dict-like, got {type(state_dict)}.")
        missing_keys: list[str] = []
        unexpected_keys: list[str] = []
        error_msgs: list[str] = []
        metadata = getattr(state_dict, "_metadata", None)
        state_dict = OrderedDict(state_dict)

        def load(module: Module, local_state_dict: dict, prefix: str = "") -> None:
            local_metadata = {} if metadata is None else dict(metadata.get(prefix[:-1], {}))
            if assign:
                local_metadata["assign_to_params_buffers"] = True
            module._load_from_state_dict(
                local_state_dict,
                prefix,
                local_metadata,
                True,
                missing_keys,
                unexpected_keys,
                error_msgs,
            )
            for name, child in module._modules.items():
                if child is not None:
                    child_prefix = prefix + name + "."
                    load(
                        child,
                        {k: v for k, v in local_state_dict.items() if k.startswith(child_prefix)},
                        child_prefix,
                    )

        load(self, state_dict)
        if strict:
            if unexpected_keys:
                error_msgs.insert(
                    0,
                    "Unexpected key(s) in state_dict: {}. ".format(", ".join(f'"{k}"' for k in unexpected_keys)),
                )
            if missing_keys:
                error_msgs.insert(
                    0,
                    "Missing key(s) in state_dict: {}. ".format(", ".join(f'"{k}"' for k in missing_keys)),
                )
        if error_msgs:
            raise RuntimeError(
                "Error(s) in loading state_dict for {}:\n\t{}".format(type(self).__name__, "\n\t".join(error_msgs))
            )
        return _IncompatibleKeys(missing_keys, unexpected_keys)

    # ------------------------------------------------------------------------ repr
    def _get_name(self) -> str:
        return type(self).__name__

    def extra_repr(self) -> str:
        """The one-line summary of this module's settings inside its ``repr``; override it."""
        return ""

    def __repr__(self) -> str:
        extra_repr = self.extra_repr()
        extra_lines = extra_repr.split("\n") if extra_repr else []
        child_lines = [f"({key}): {_addindent(repr(module), 2)}" for key, module in self._modules.items()]
        lines = extra_lines + child_lines
        main = self._get_name() + "("
        if lines:
            if len(extra_lines) == 1 and not child_lines:
                main += extra_lines[0]
            else:
                main += "\n  " + "\n  ".join(lines) + "\n"
        return main + ")"
