"""What a torch function does when it meets an ``mt.Tensor`` (``Tensor.__torch_function__``).

A torch function (``torch.*``, ``torch.nn.functional.*``, ``torch.linalg.*``, ``torch.special.*``,
``torch.fft.*``, ``torch.nn.init.*``, a ``torch.Tensor`` method) given an mt tensor runs the
minitorch_rx function of the same name, found by name when first called (so an op added to
minitorch_rx later is found too), and returns what it returns: a recorded mt tensor, or under
torch's ``no_grad``/``inference_mode`` an unrecorded one, as torch records nothing there. One
minitorch_rx lacks runs on the tensors' data and returns torch's result, unless an mt tensor given
to it requires grad (grad mode on): then it raises, since its result would carry no gradient. A
``torch.Tensor`` method called on torch data with mt operands runs on the data unless an operand
requires grad; then it runs as the mt method of the data as a constant (``torch_tensor *
mt_tensor`` defers to mt.Tensor's reflected operator instead).

While backward runs with ``create_graph=True`` (``state.differentiating``), the torch functions
that op backwards call run as their recorded equivalents (registered by ``ops/recorded.py``),
so that second and higher derivatives flow through them; one without an equivalent raises.
"""

from __future__ import annotations

import importlib
import inspect
import operator
from collections.abc import Callable

import torch

from .grad_mode import state

#: torch function -> the minitorch_rx function that computes it with recording.
RECORDED: dict[Callable, Callable] = {}


def recorded_equivalent(*torch_functions: Callable) -> Callable:
    """Register the decorated function as what ``torch_functions`` run as under ``create_graph``."""

    def register(fn: Callable) -> Callable:
        for torch_function in torch_functions:
            RECORDED[torch_function] = fn
        return fn

    return register


def dispatch(func: Callable, args: tuple, kwargs: dict):
    if state.differentiating:
        return _dispatch_differentiating(func, args, kwargs)
    Tensor = _tensor_class()
    if args and isinstance(args[0], torch.Tensor) and not isinstance(args[0], Tensor):
        if func in _OPERATORS:  # torch_tensor * mt_tensor, torch_tensor.mul(mt_tensor): recorded
            method = own_attribute(func.__name__)
            return NotImplemented if method is None else method(_torch_operand(args[0]), *args[1:], **kwargs)
        if _torch_method_name(func) is not None:
            return _torch_self_method(func, args, kwargs)
    found = _mt_function(func)
    if found is not None:
        if kwargs and found[2] is not None:
            # torch's Python functions pass every keyword on, their deprecated ones (size_average,
            # reduce) as None: those minitorch_rx's function does not take are left out.
            kwargs = {k: v for k, v in kwargs.items() if v is not None or k in found[2]}
        active = state.dispatching
        if func in active:
            # minitorch_rx's function called torch's on its data with an mt tensor where torch takes
            # a number (``chunk(x, chunks=tensor)``): that came back here, and would again, until a
            # RecursionError. torch's function on the data says what is wrong, in its words, or reads
            # the tensor as a number, as torch does (no gradient flows through a number in torch either).
            return func(*unwrap(args), **unwrap(kwargs))
        active.add(func)
        try:
            return found[1](*args, **kwargs)
        finally:
            active.discard(func)
    refusal = _refusal(func)
    if refusal is not None:
        raise refusal
    if state.grad_enabled and func not in _QUERIES and _requires_grad((args, kwargs)):
        name = _qualified_name(func)
        raise RuntimeError(
            f"{name} is not differentiable by minitorch_rx yet (called with minitorch_rx tensors that "
            "require grad); use x.detach() to call it as a constant"
        )
    datas = unwrap(args)
    return _as_ours(func(*datas, **unwrap(kwargs)), args, datas)


# torch functions minitorch_rx lacks that answer a question about tensors (no tensor that could
# carry a gradient comes back): they run on the data also for tensors that require grad.
# torch.nn.Module._apply (``.to()``, ``.double()``) asks whether a parameter can take its
# converted data in place (``param.data = converted``, which keeps our Parameter).
_QUERIES = frozenset({torch._has_compatible_shallow_copy_type})
# torch's forward-mode AD: a dual tensor's tangent is computed by torch's autograd kernels on the
# data, beside our engine, so these are refused rather than run there.
_FORWARD_AD = frozenset({torch._make_dual, torch._unpack_dual})


def _refusal(func: Callable) -> Exception | None:
    """The error for torch function ``func`` (one minitorch_rx lacks) given mt tensors, where
    running it on the data would compute gradients outside our engine, or None."""
    if func in _FORWARD_AD:
        return NotImplementedError(
            f"{_qualified_name(func)}: torch's forward-mode AD (torch.autograd.forward_ad) does not "
            "support minitorch_rx tensors, whose derivatives come from minitorch_rx's engine; for "
            "Jacobian-vector products use minitorch_rx.func.jvp or minitorch_rx.func.jacfwd "
            "(torch.func.jvp and torch.func.jacfwd given minitorch_rx tensors run them)"
        )
    if func is torch._add_batch_dim:
        # torch's own vmap of torch.autograd.functional's vectorize=True (torch._vmap_internals)
        return NotImplementedError(
            "torch._add_batch_dim: torch's vmap (torch.autograd.functional's vectorize=True) does not "
            "support minitorch_rx tensors; use minitorch_rx.func.vmap, jacrev or jacfwd (torch.func's "
            "given minitorch_rx tensors run them), or vectorize=False"
        )
    if torch.compiler.is_compiling():
        # TorchDynamo tracing its (mt.Tensor) input: it would trace torch's autograd, not ours.
        return RuntimeError(
            f"torch.compile does not support minitorch_rx tensors (tracing called {_qualified_name(func)} "
            "on one): minitorch_rx records its graph eagerly on its own engine, which TorchDynamo "
            "cannot trace; run the function or module uncompiled (minitorch_rx.compile returns it unchanged)"
        )
    return None


def _as_ours(result: object, args: tuple, datas: tuple) -> object:
    """torch's ``result`` of a function run on the data of ``args``, as PyTorch hands a subclass's
    results back: the mt tensor whose data it is (an in-place method returns its ``self``; its shape
    may have changed, ``as_strided_``), or a new leaf mt tensor for new torch data."""
    if isinstance(result, torch.Tensor):
        for a, data in zip(args, datas):
            if data is result and a is not data:
                from .tensor import rebind

                rebind(a, data)
                return a
        return result if isinstance(result, _tensor_class()) else _tensor_class()._make(result, None)
    if type(result) in (list, tuple):
        return type(result)(_as_ours(r, args, datas) for r in result)
    if isinstance(result, tuple) and hasattr(type(result), "n_fields"):  # torch.return_types
        return type(result)(tuple(_as_ours(r, args, datas) for r in result))
    return result


def _torch_self_method(func: Callable, args: tuple, kwargs: dict):
    """``torch_tensor.method(..., mt_tensor, ...)``: on the data, or (an operand requires grad) as
    the mt method of ``torch_tensor`` as a constant; in place, that cannot record, so it raises."""
    if not (state.grad_enabled and _requires_grad((args, kwargs))):
        return func(*unwrap(args), **unwrap(kwargs))
    name = _torch_method_name(func)
    method = own_attribute(name)
    if method is None or _is_in_place(name):
        raise RuntimeError(
            f"torch.Tensor.{name} on a torch.Tensor with minitorch_rx tensors that require grad cannot "
            "record their gradient (a torch.Tensor has no minitorch_rx history); make the torch.Tensor "
            "an mt tensor first (mt.from_torch(t)), or detach the minitorch_rx tensors"
        )
    return method(_torch_operand(args[0]), *args[1:], **kwargs)


def _is_in_place(name: str) -> bool:
    return name == "__setitem__" or (name.endswith("_") and not name.endswith("__")) or name.startswith("__i")


def _dispatch_differentiating(func: Callable, args: tuple, kwargs: dict):
    equivalent = RECORDED.get(func)
    if equivalent is not None:
        return equivalent(*args, **kwargs)
    name = getattr(func, "__name__", "")
    if getattr(func, "__objclass__", None) is torch._C.TensorBase and own_attribute(name) is not None:
        # A torch.Tensor method called on torch data with mt.Tensor arguments (``zeros.scatter_(d,
        # i, grad)``, ``mask * grad``): the same method of the data as a constant mt.Tensor.
        Tensor = _tensor_class()
        self = args[0] if isinstance(args[0], Tensor) else Tensor._make(args[0], None)
        return getattr(self, name)(*args[1:], **kwargs)
    raise RuntimeError(
        f"create_graph=True: a backward called {name or func} on an mt.Tensor, which has no recorded "
        "equivalent in minitorch_rx, so this gradient cannot be differentiated again"
    )


# (torch namespace, prefix of its builtins' names, the minitorch_rx module of the same functions);
# torch.nn.functional first: its functions that torch also holds (conv2d) are mt.nn.functional's.
_NAMESPACES = (
    (torch.nn.functional, "", "minitorch_rx.nn.functional"),
    (torch, "", "minitorch_rx"),
    (torch.linalg, "linalg_", "minitorch_rx.linalg"),
    (torch.special, "special_", "minitorch_rx.special"),
    (torch.fft, "fft_", "minitorch_rx.fft"),
    (torch.nn.init, "", "minitorch_rx.init"),
    (torch.autograd, "", "minitorch_rx.autograd"),
)

#: torch function -> (its qualified name, the minitorch_rx function of that name, the keywords
#: that function takes: None for any) or None.
_FOUND: dict[Callable, tuple[str, Callable, frozenset | None] | None] = {}


def _mt_function(func: Callable) -> tuple[str, Callable, frozenset | None] | None:
    try:
        return _FOUND[func]
    except KeyError:
        pass
    except TypeError:  # unhashable: not a torch function of a namespace
        return None
    _FOUND[func] = found = _find(func)
    return found


def _find(func: Callable) -> tuple[str, Callable, frozenset | None] | None:
    method = _torch_method_name(func)
    if method is not None:
        mt_method = own_attribute(method)
        return None if mt_method is None else (f"torch.Tensor.{method}", mt_method, _keywords(mt_method))
    name = getattr(func, "__name__", None)
    if not isinstance(name, str):
        return None
    for namespace, prefix, mt_module in _NAMESPACES:
        short = name.removeprefix(prefix)
        if getattr(namespace, short, None) is not func:
            # a builtin a namespace holds under another name (F.logsigmoid is torch._C._nn.log_sigmoid)
            short = next((alias for alias, value in vars(namespace).items() if value is func), None)
            if short is None:
                continue
        try:
            module = importlib.import_module(mt_module)
        except ModuleNotFoundError:
            return None
        mt_func = getattr(module, short, None)
        if mt_func is None or mt_func is func:  # mt re-exports some of torch's own (torch.is_tensor)
            return None
        return f"{namespace.__name__}.{short}", mt_func, _keywords(mt_func)
    return None


def _keywords(fn: Callable) -> frozenset | None:
    try:
        parameters = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):
        return None
    if any(p.kind is p.VAR_KEYWORD for p in parameters):
        return None
    return frozenset(p.name for p in parameters if p.kind is not p.VAR_POSITIONAL)


def _torch_method_name(func: Callable) -> str | None:
    """The name of the ``torch.Tensor`` method that ``func`` is, if it is one."""
    name = getattr(func, "__name__", None)
    if isinstance(name, str) and getattr(torch.Tensor, name, None) is func:
        return name
    return None


def _qualified_name(func: Callable) -> str:
    found = _FOUND.get(func)
    if found is not None:
        return found[0]
    method = _torch_method_name(func)
    if method is not None:
        return f"torch.Tensor.{method}"
    name = getattr(func, "__name__", repr(func))
    for namespace, prefix, _ in _NAMESPACES:
        short = name.removeprefix(prefix)
        if getattr(namespace, short, None) is func:
            return f"{namespace.__name__}.{short}"
    return f"{getattr(func, '__module__', None) or 'torch'}.{name}"


def _requires_grad(value: object) -> bool:
    """Whether an mt tensor that requires grad is in ``value`` (also inside lists, tuples and dicts)."""
    if isinstance(value, _tensor_class()):
        return value._requires_grad
    if type(value) in (list, tuple):
        return any(_requires_grad(v) for v in value)
    if type(value) is dict:
        return any(_requires_grad(v) for v in value.values())
    return False


# torch.Tensor's operator methods, as ``torch_tensor OP mt_tensor`` calls them.
_OPERATORS = frozenset(
    getattr(torch.Tensor, name)
    for name in (
        "add sub mul div remainder matmul eq ne lt le gt ge bitwise_and bitwise_or bitwise_xor "
        "__and__ __or__ __xor__ __lshift__ __rshift__ __rlshift__ __rrshift__ __rsub__ __rdiv__ "
        "__floordiv__ __rfloordiv__ __rmod__ __pow__ __rpow__ __rmatmul__"
    ).split()
)


def unwrap(value: object) -> object:
    """``value`` with every ``mt.Tensor`` in it (also inside lists, tuples and dicts) replaced by its torch data."""
    if isinstance(value, _tensor_class()):
        return value._data
    if type(value) in (list, tuple):
        return type(value)(unwrap(v) for v in value)
    if type(value) is dict:
        return {k: unwrap(v) for k, v in value.items()}
    return value


def _torch_operand(data: torch.Tensor):
    from .torch_leaves import torch_operand

    return torch_operand(data)


def own_attribute(name: str, cls: type | None = None):
    """``mt.Tensor``'s (or ``cls``'s) attribute ``name`` where minitorch_rx defines it, None where
    only torch.Tensor, which it subclasses, does."""
    cls = cls or _tensor_class()
    for klass in cls.__mro__:
        if klass is torch.Tensor:
            return None
        if name in klass.__dict__:
            return getattr(cls, name)
    return None


def _tensor_class():
    from .tensor import Tensor

    return Tensor


def metadata_properties(cls: type) -> None:
    """Give ``cls`` (mt.Tensor) torch.Tensor's metadata properties that hold no tensor
    (``is_quantized``, ``is_sparse``, ``layout``, ``nbytes``, ...) that it lacks, read from the
    data, for libraries that check them (``torchvision.ops.nms``). Methods and tensor-valued
    properties (``H``, ``real``) are minitorch_rx's to define.

    Properties, not a ``__getattr__``: a class with ``__getattr__`` gets no specialized attribute
    access from CPython 3.11, so every ``t._data`` of the engine's hot paths took the generic
    lookup (the 1,000-op chain: 0.55-0.57x torch's time with it, 0.52-0.54x without)."""
    for name in sorted(_metadata_names()):
        if own_attribute(name, cls) is None:
            setattr(cls, name, property(operator.attrgetter(f"_data.{name}")))


_METADATA: list[frozenset] = []
# torch's autograd state, which an mt tensor keeps for itself (or has none of).
_AUTOGRAD_STATE = frozenset(
    "grad grad_fn grad_dtype requires_grad is_leaf retains_grad output_nr volatile name".split()
)


def _metadata_names() -> frozenset:
    """torch.Tensor's public properties whose value, on a float matrix, is no tensor."""
    if not _METADATA:
        sample, names = torch.zeros(1, 1), set()
        for name in dir(torch._C.TensorBase):
            if (
                name.startswith("_")
                or name in _AUTOGRAD_STATE
                or type(getattr(torch._C.TensorBase, name)).__name__ != "getset_descriptor"
            ):
                continue
            try:
                if not isinstance(getattr(sample, name), torch.Tensor):
                    names.add(name)
            except (RuntimeError, AttributeError):
                continue
        _METADATA.append(frozenset(names))
    return _METADATA[0]
