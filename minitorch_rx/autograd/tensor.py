"""``mt.Tensor``: a ``torch.Tensor`` plus the engine's autograd state.

The torch data never requires grad; gradients come from the engine. This file holds the
tensor's state, metadata and conversions; its ops are attached in ``minitorch_rx/tensor_methods.py``
from ``minitorch_rx/ops`` (so an op the engine does not define does not exist on the tensor).
"""

from __future__ import annotations

from collections.abc import Callable

import torch

from . import hooks as _hooks
from .hooks import RemovableHandle
from .torch_function import dispatch as _dispatch
from .torch_function import unwrap

# (inside the class, ``torch`` is the method ``Tensor.torch``)
_PRESERVE, _CONTIGUOUS = torch.preserve_format, torch.contiguous_format


def legacy_data(args: tuple, dtype: torch.dtype, device) -> torch.Tensor:
    """The data of PyTorch's legacy constructors (``Tensor(2, 3)``, ``FloatTensor([1, 2])``):
    sizes allocate uninitialized memory, one sequence or array is copied, nothing gives an empty tensor."""
    if len(args) == 1 and isinstance(args[0], Tensor):
        return args[0]._data.to(dtype=dtype, device=device)
    if len(args) == 1 and isinstance(args[0], torch.Tensor):
        return args[0].to(dtype=dtype, device=device)
    if len(args) == 1 and isinstance(args[0], torch.Size):
        args = tuple(args[0])
    if all(isinstance(a, int) and not isinstance(a, bool) for a in args):
        return torch.empty(args if args else (0,), dtype=dtype, device=device)
    if len(args) == 1 and (isinstance(args[0], (list, tuple)) or hasattr(args[0], "__array__")):
        return torch.tensor(unwrap(args[0]), dtype=dtype, device=device)
    given = ", ".join(type(a).__name__ for a in args)
    raise TypeError(f"new(): data must be a sequence or sizes (got {given}); use mt.tensor(data) for a scalar")


_warned_torch_autograd = False


def detach_torch(data: torch.Tensor) -> torch.Tensor:
    """A torch tensor handed to minitorch_rx, cut from torch's autograd: our engine computes every
    gradient, so a torch graph behind ``data`` would only grow (and our in-place updates would
    extend it). Warns once per process when ``data`` requires grad."""
    if data.requires_grad:
        global _warned_torch_autograd
        if not _warned_torch_autograd:
            _warned_torch_autograd = True
            import warnings

            warnings.warn(
                "a torch.Tensor that requires grad was given to minitorch_rx: it is used detached, since "
                "minitorch_rx computes gradients with its own engine and never uses torch's autograd; "
                "wrap it with mt.tensor(t, requires_grad=True) (or nn.Parameter) to learn it",
                UserWarning,
                stacklevel=3,
            )
        return data.detach()
    return data


def complex_grad_error(what: str) -> RuntimeError:
    """The error for a complex tensor entering autograd: minitorch_rx differentiates real tensors only
    (PyTorch's conjugate Wirtinger convention for complex gradients is not implemented)."""
    return RuntimeError(
        f"{what}: minitorch_rx differentiates real floating-point tensors only (complex autograd, "
        "PyTorch's conjugate Wirtinger convention, is not implemented). Compute with the real and "
        "imaginary parts as real tensors, or detach."
    )


def _rebuild(cls: type, data: torch.Tensor, requires_grad: bool) -> Tensor:
    """An unpickled ``mt.Tensor`` (or subclass ``cls``): ``__reduce_ex__``'s inverse."""
    if not (isinstance(cls, type) and issubclass(cls, Tensor)) or not isinstance(data, torch.Tensor):
        raise TypeError(f"cannot rebuild an mt.Tensor as {cls!r} from {type(data).__name__}")
    t = cls._make(data, None)
    if requires_grad:
        t._requires_grad = True
    return t


_set_base_data = torch._C.TensorBase.data.__set__


def rebind(t: Tensor, data: torch.Tensor) -> None:
    """Make ``data`` the torch data of ``t`` (``_data``), and of ``t`` itself: the instance is a
    torch.Tensor too, and must show torch code that reads it directly (not through
    ``__torch_function__``) the same storage, shape and dtype. Also after an in-place change of
    ``t._data``'s shape (``t._data.unsqueeze_(0)``): ``rebind(t, t._data)``."""
    t._data = data
    with torch._C.DisableTorchFunctionSubclass():
        _set_base_data(t, data)


class _LazyData:
    """``t._data`` where it is not in ``t``'s dict: an op whose kernel's fresh output became the
    tensor itself (``ConstantOp``) stores no alias; the first read makes one (torch's ``detach``
    of the instance: the same storage and version counter, torch's own class) and keeps it.
    A non-data descriptor, so that a ``_data`` in the dict is read without calling it."""

    def __get__(self, t: Tensor | None, owner: type):
        if t is None:
            return self
        with torch._C.DisableTorchFunctionSubclass():
            data = torch._C.TensorBase.detach(t)
        t._data = data
        return data


#: ``Tensor`` and its subclasses (each adds itself, ``Tensor.__init_subclass__``): ``type(t) in OURS``
#: is ``isinstance(t, Tensor)`` at a set lookup's cost. torch.Tensor's metaclass makes ``isinstance``
#: look up and call ``__instancecheck__`` for anything but an exact match: 150-250 ns more per call
#: (a Parameter, a number, torch data), on every op's path.
OURS: set[type] = set()
_TORCH_TENSOR = torch.Tensor


def is_torch_data(value: object) -> bool:
    """Whether ``value`` is a torch tensor that is not an ``mt.Tensor`` (torch's own data)."""
    kind = type(value)
    return kind is _TORCH_TENSOR or (kind not in OURS and isinstance(value, torch.Tensor))


class Tensor(torch.Tensor):
    """An n-dimensional array on torch data whose gradients come from minitorch_rx's engine.

    >>> import minitorch_rx as mt
    >>> x = mt.tensor([1.0, 2.0, 3.0], requires_grad=True)
    >>> (x * x).sum().backward()
    >>> x.grad
    tensor([2., 4., 6.])
    """

    # The engine's state lives in the instance's dict (a subclass of torch.Tensor with ``__slots__``
    # could not take the ``__class__`` that makes an alias of a kernel's output ours, see ``_make``);
    # these class attributes are its defaults, and shadow torch's own ``_grad``. ``_view_base`` is set
    # only on views made by shape ops (``ops/shape.py``): the tensor whose memory they view;
    # ``_views`` only on such bases: weak references to those views (``ops/inplace.py``).
    _data = _LazyData()
    _node = None
    _requires_grad = False
    _grad = None
    _out_nr = 0
    _acc = None
    _hooks = None
    _view_base = None
    _views = None

    # ``x.__array_priority__`` makes numpy defer ``ndarray + Tensor`` to ``Tensor.__radd__``.
    __array_priority__ = 1000

    def __new__(cls, *args: object, requires_grad: bool = False, device=None) -> Tensor:
        """``mt.Tensor(torch_tensor, requires_grad=False)`` wraps it (no copy); as PyTorch's legacy constructor,
        ``mt.Tensor([1.0, 2.0])`` copies data and ``mt.Tensor(2, 3)`` allocates (uninitialized),
        both in the default dtype. ``mt.tensor(data)`` is the constructor to prefer."""
        if args and isinstance(args[0], torch.Tensor) and device is None and len(args) <= 2:
            data = args[0]
            if isinstance(data, Tensor):
                data = data._data
            if len(args) == 2:  # Tensor(data, requires_grad), the signature before the legacy forms
                requires_grad = args[1]
        else:
            data = legacy_data(args, torch.get_default_dtype(), device)
        self = cls._make(detach_torch(data), None)
        if requires_grad:
            self.requires_grad_(True)
        return self

    def __init__(self, *args: object, **kwargs: object) -> None:
        """Everything is done by ``__new__`` (torch.Tensor's own ``__init__`` takes no arguments)."""

    def __init_subclass__(cls, **kwargs: object) -> None:
        super().__init_subclass__(**kwargs)
        OURS.add(cls)

    @classmethod
    def _make(cls, data: torch.Tensor, node, out_nr: int = 0) -> Tensor:
        """A new ``cls`` tensor over torch ``data`` (no checks: the engine's hot path): a fresh alias of
        ``data`` (its storage and version counter) given this class; ``data`` itself, which the caller
        may hold, keeps its type and becomes the alias's ``_data`` (what the engine computes on)."""
        t = data.detach()
        t.__class__ = cls
        if node is None:
            t.__dict__ = {"_data": data}
        elif out_nr:
            t.__dict__ = {"_data": data, "_node": node, "_requires_grad": True, "_out_nr": out_nr}
        else:
            t.__dict__ = {"_data": data, "_node": node, "_requires_grad": True}
        return t

    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        """torch's functions and ``torch.Tensor`` methods given mt tensors run minitorch_rx's function
        of the same name and return its recorded result; one minitorch_rx lacks runs on the data
        (and raises for inputs that require grad). ``autograd/torch_function.py`` says how."""
        return _dispatch(func, args, kwargs or {})

    def __format__(self, format_spec: str) -> str:
        """A 0-dim tensor formats as its value (``f"{loss:.4f}"``); others as ``object`` does, as PyTorch's."""
        if self._data.dim() == 0 and not self._data.is_meta:
            return self._data.item().__format__(format_spec)
        return object.__format__(self, format_spec)

    # ----------------------------------------------------------------- metadata
    @property
    def shape(self) -> torch.Size:
        return self._data.shape

    @property
    def ndim(self) -> int:
        return self._data.dim()

    def dim(self) -> int:
        return self._data.dim()

    @property
    def dtype(self) -> torch.dtype:
        return self._data.dtype

    @property
    def device(self) -> torch.device:
        return self._data.device

    @property
    def is_cuda(self) -> bool:
        return self._data.is_cuda

    def get_device(self) -> int:
        """The CUDA device index, -1 on the CPU (torch's answer)."""
        return self._data.get_device()

    def size(self, dim: int | None = None) -> torch.Size | int:
        return self._data.size() if dim is None else self._data.size(dim)

    def numel(self) -> int:
        return self._data.numel()

    def element_size(self) -> int:
        return self._data.element_size()

    def is_floating_point(self) -> bool:
        return self._data.is_floating_point()

    def is_contiguous(self, memory_format: torch.memory_format = _CONTIGUOUS) -> bool:
        return self._data.is_contiguous(memory_format=memory_format)

    def stride(self, dim: int | None = None):
        return self._data.stride() if dim is None else self._data.stride(dim)

    def __len__(self) -> int:
        if self._data.dim() == 0:
            raise TypeError("len() of a 0-d tensor")
        return self._data.shape[0]

    def __repr__(self) -> str:
        text = repr(self._data)
        if self._node is not None:
            return f"{text[:-1]}, grad_fn=<{type(self._node).__name__}>)"
        if self._requires_grad:
            return f"{text[:-1]}, requires_grad=True)"
        return text

    def __hash__(self) -> int:
        return id(self)

    def __bool__(self) -> bool:
        return bool(self._data)

    def __float__(self) -> float:
        return float(self._data)

    def __int__(self) -> int:
        return int(self._data)

    def __index__(self) -> int:
        return self._data.__index__()

    def __iter__(self):
        if self._data.dim() == 0:
            raise TypeError("iteration over a 0-d tensor")
        return (self[i] for i in range(self._data.shape[0]))

    def __array__(self, dtype=None, copy=None):
        array = self._data.detach().cpu().numpy()
        return array if dtype is None else array.astype(dtype)

    @property
    def data(self) -> Tensor:
        """A detached tensor sharing this one's memory, as PyTorch's ``.data``: in-place changes
        through it (``p.data.add_(...)``) have a version counter of their own, so backward's
        checks do not see them. Assigning replaces this tensor's data."""
        return Tensor._make(self._data.data, None)

    @data.setter
    def data(self, value: Tensor | torch.Tensor) -> None:
        if isinstance(value, Tensor):
            value = value._data
        if not isinstance(value, torch.Tensor):
            raise TypeError(f"data must be a Tensor, got {type(value).__name__}")
        if self._requires_grad and value.is_complex():
            raise complex_grad_error(f"a tensor that requires grad cannot take {value.dtype} data")
        rebind(self, detach_torch(value))

    def __reduce_ex__(self, protocol: int):
        """Pickled as its data and ``requires_grad`` (a leaf, as PyTorch pickles tensors), so that
        multiprocessing, e.g. ``DataLoader`` workers started by spawn, can send mt tensors, and
        ``torch.load(weights_only=True)`` reads them where minitorch_rx is imported (it allows
        ``_rebuild`` and the tensor classes, see ``safe_globals``)."""
        return (_rebuild, (type(self), self._data, self._requires_grad))

    def __deepcopy__(self, memo: dict) -> Tensor:
        """A copy of this leaf's data, ``requires_grad`` and ``.grad``, as PyTorch's."""
        if self._node is not None:
            raise RuntimeError(
                "Only Tensors created explicitly by the user (graph leaves) support the deepcopy protocol "
                "at the moment."
            )
        if id(self) in memo:
            return memo[id(self)]
        result = _rebuild(type(self), self._data.clone(memory_format=torch.preserve_format), self._requires_grad)
        memo[id(self)] = result
        if self._grad is not None:
            result._grad = self._grad.__deepcopy__(memo)
        return result

    def share_memory_(self) -> Tensor:
        """Move the data to shared memory (a no-op if it is there already, or on a GPU) and return
        this tensor, as torch's: processes given it (``minitorch_rx.multiprocessing``) see one memory."""
        self._data.share_memory_()
        return self

    # -------------------------------------------------------------- conversion
    def torch(self) -> torch.Tensor:
        """The underlying ``torch.Tensor``: no copy, no graph."""
        return self._data

    def numpy(self, *, force: bool = False):
        """The data as a NumPy array sharing its memory (a CPU tensor); as torch, a tensor that
        requires grad is refused unless ``force=True`` (which also copies a CUDA tensor to the CPU)."""
        if self._requires_grad and not force:
            raise RuntimeError("Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead.")
        return self._data.numpy(force=force)

    def item(self) -> float | int | bool:
        return self._data.item()

    def tolist(self):
        return self._data.tolist()

    # ---------------------------------------------------------- autograd state
    @property
    def requires_grad(self) -> bool:
        return self._requires_grad

    @requires_grad.setter
    def requires_grad(self, flag: bool) -> None:
        self.requires_grad_(flag)

    def requires_grad_(self, requires_grad: bool = True) -> Tensor:
        if self._node is not None:
            if requires_grad:
                return self
            raise RuntimeError(
                "you can only change requires_grad flags of leaf variables. If you want to use a "
                "computed variable in a subgraph that doesn't require differentiation use "
                "var_no_grad = var.detach()."
            )
        if requires_grad and not self._data.is_floating_point():
            if self._data.is_complex():
                raise complex_grad_error(f"a {self._data.dtype} tensor cannot require grad")
            raise RuntimeError("only Tensors of floating point and complex dtype can require gradients")
        self._requires_grad = bool(requires_grad)
        return self

    @property
    def is_leaf(self) -> bool:
        return self._node is None

    @property
    def grad_fn(self):
        return self._node

    @property
    def _version(self) -> int:
        """PyTorch's version counter: 0 when made, +1 per in-place change; a view shares its base's.
        (The torch data's own counter: saved tensors are checked against it in backward.)"""
        return self._data._version

    @property
    def grad(self) -> Tensor | None:
        return self._grad

    @grad.setter
    def grad(self, value: Tensor | torch.Tensor | None) -> None:
        if value is not None:
            if isinstance(value, torch.Tensor):
                value = Tensor(value)
            if not isinstance(value, Tensor):
                raise TypeError(
                    f"assigned grad expected to be a Tensor or None but got grad of type {type(value).__name__}"
                )
            if value._data.shape != self._data.shape:
                raise RuntimeError(
                    f"assigned grad has data of a different size: grad {list(value._data.shape)}, "
                    f"tensor {list(self._data.shape)}"
                )
            if value._data.dtype != self._data.dtype:
                raise RuntimeError(
                    f"assigned grad has data of a different type: grad {value._data.dtype}, tensor {self._data.dtype}"
                )
        self._grad = value

    @property
    def retains_grad(self) -> bool:
        node = self._node
        hooks = None if node is None else node._tensor_hooks
        return hooks is not None and any(ref() is self for ref in hooks.retained)

    def retain_grad(self) -> None:
        """Keep this non-leaf tensor's gradient in ``.grad`` after backward."""
        if self._node is None:
            if not self._requires_grad:
                raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
            return
        if not self.retains_grad:
            _hooks.retain(self)

    def register_hook(self, hook: Callable[[Tensor], Tensor | None]) -> RemovableHandle:
        """Call ``hook(grad)`` when this tensor's gradient has been computed, before it moves on
        (into ``.grad`` for a leaf); a returned tensor replaces the gradient. As ``torch.Tensor.register_hook``."""
        if not callable(hook):
            raise TypeError(f"hook must be callable, got {type(hook).__name__}")
        if not self._requires_grad:
            raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
        if self._node is not None:
            return _hooks.add_output_hook(self, hook)
        hooks = _hooks.leaf_hooks(self).grad
        hooks.append(hook)
        return RemovableHandle(hooks, hook)

    def register_post_accumulate_grad_hook(self, hook: Callable[[Tensor], None]) -> RemovableHandle:
        """Call ``hook(tensor)`` each time backward has accumulated into this leaf's ``.grad``;
        ``handle.remove()`` takes it out again."""
        if self._node is not None:
            raise RuntimeError("post accumulate grad hooks cannot be registered on non-leaf tensors")
        hooks = _hooks.leaf_hooks(self).post_accumulate
        hooks.append(hook)
        return RemovableHandle(hooks, hook)

    def detach(self) -> Tensor:
        """A new leaf sharing this tensor's data, outside any graph."""
        return Tensor._make(self._data, None)

    def detach_(self) -> Tensor:
        self._node = None
        self._requires_grad = False
        return self

    def backward(
        self,
        gradient: Tensor | None = None,
        retain_graph: bool | None = None,
        create_graph: bool = False,
        inputs: Tensor | list | None = None,
    ) -> None:
        """Accumulate d(self)/d(leaf) into every leaf's ``.grad`` (only into ``inputs``' when given),
        as ``torch.Tensor.backward``; ``create_graph=True`` records the gradients' own computation."""
        from .engine import backward, backward_scalar

        if gradient is None and not create_graph and inputs is None:
            backward_scalar(self, retain_graph)
            return
        backward([self], None if gradient is None else [gradient], retain_graph, create_graph, inputs=inputs)

    # ------------------------------------------------------------ device/dtype
    def to(self, *args, **kwargs) -> Tensor:
        from ..ops.shape import to

        return to(self, *args, **kwargs)

    def cpu(self, memory_format: torch.memory_format = _PRESERVE) -> Tensor:
        return self.to("cpu", memory_format=memory_format)

    def cuda(
        self,
        device: int | str | torch.device | None = None,
        non_blocking: bool = False,
        memory_format: torch.memory_format = _PRESERVE,
    ) -> Tensor:
        target = torch.device("cuda" if device is None else ("cuda", device) if isinstance(device, int) else device)
        if target.type != "cuda":
            raise RuntimeError("Invalid device, must be cuda device")
        return self.to(target, non_blocking=non_blocking, memory_format=memory_format)

    def type(self, dtype=None):
        """The type name (``'torch.FloatTensor'``), or a copy as ``dtype``: a torch.dtype or a type
        name (torch resolves names and words their errors)."""
        if dtype is None:
            return self._data.type()
        if isinstance(dtype, str):
            like = torch.empty(0, dtype=self._data.dtype, device=self._data.device).type(dtype)
            return self.to(device=like.device, dtype=like.dtype)
        return self.to(dtype)


OURS.add(Tensor)


def safe_globals(*classes: type) -> None:
    """Let ``torch.load(weights_only=True)`` rebuild ``classes`` (mt.Tensor and its subclasses)."""
    torch.serialization.add_safe_globals([_rebuild, *classes])


safe_globals(Tensor)


def _conversion(dtype: torch.dtype, name: str) -> Callable:
    """``t.<name>(memory_format=torch.preserve_format)``: a copy as ``dtype`` (``t`` if it is one)."""

    def convert(self: Tensor, *, memory_format: torch.memory_format = torch.preserve_format) -> Tensor:
        return self.to(dtype, memory_format=memory_format)

    convert.__name__ = convert.__qualname__ = name
    return convert


for _name, _dtype in {
    "float": torch.float32,
    "double": torch.float64,
    "half": torch.float16,
    "bfloat16": torch.bfloat16,
    "long": torch.int64,
    "int": torch.int32,
    "short": torch.int16,
    "char": torch.int8,
    "byte": torch.uint8,
    "bool": torch.bool,
    "cfloat": torch.complex64,
    "cdouble": torch.complex128,
    "chalf": torch.complex32,
}.items():
    setattr(Tensor, _name, _conversion(_dtype, _name))
