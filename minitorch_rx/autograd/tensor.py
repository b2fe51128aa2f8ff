"""``mt.Tensor``: a ``torch.Tensor`` plus the engine's autograd state.

The torch data never requires grad; gradients come from the engine. This file holds the
tensor's state, metadata and conversions; its ops are attached in ``minitorch_rx/tensor_methods.py``
from ``minitorch_rx/ops`` (so an op the engine does not define does not exist on the tensor).
"""

from __future__ import annotations

from collections.abc import Callable

import torch

_new = object.__new__


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


class RemovableHandle:
    """Returned by hook registrations; ``remove()`` unregisters the hook (holds the tensor weakly)."""

    __slots__ = ("_tensor", "_hook")

    def __init__(self, tensor: Tensor, hook: Callable) -> None:
        import weakref

        self._tensor = weakref.ref(tensor)
        self._hook = hook

    def remove(self) -> None:
        tensor = self._tensor()
        if tensor is not None and tensor._hooks:
            remaining = [h for h in tensor._hooks if h is not self._hook]
            tensor._hooks = remaining or None


class Tensor:
    """An n-dimensional array on torch data whose gradients come from minitorch_rx's engine.

    >>> import minitorch_rx as mt
    >>> x = mt.tensor([1.0, 2.0, 3.0], requires_grad=True)
    >>> (x * x).sum().backward()
    >>> x.grad
    tensor([2., 4., 6.])
    """

    # ``_view_base`` is set only on views made by shape ops (``ops/shape.py``): the tensor whose
    # memory they view; ``_views`` only on such bases: weak references to those views
    # (``ops/inplace.py``). Read both with getattr(t, name, None).
    __slots__ = (
        "_data",
        "_node",
        "_requires_grad",
        "_grad",
        "_out_nr",
        "_acc",
        "_hooks",
        "_view_base",
        "_views",
        "__weakref__",
    )

    # ``x.__array_priority__`` makes numpy defer ``ndarray + Tensor`` to ``Tensor.__radd__``.
    __array_priority__ = 1000

    def __init__(self, data: torch.Tensor, requires_grad: bool = False) -> None:
        if not isinstance(data, torch.Tensor):
            raise TypeError(f"mt.Tensor wraps a torch.Tensor, got {type(data).__name__}; use mt.tensor(data)")
        self._data = detach_torch(data)
        self._node = None
        self._grad = None
        self._out_nr = 0
        self._acc = None
        self._hooks = None
        self._requires_grad = False
        if requires_grad:
            self.requires_grad_(True)

    @classmethod
    def _make(cls, data: torch.Tensor, node, out_nr: int = 0) -> Tensor:
        """Wrap op output ``data`` (no checks: the engine's hot path)."""
        t = _new(cls)
        t._data = data
        t._node = node
        t._requires_grad = node is not None
        t._grad = None
        t._out_nr = out_nr
        t._acc = None
        t._hooks = None
        return t

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

    def size(self, dim: int | None = None) -> torch.Size | int:
        return self._data.size() if dim is None else self._data.size(dim)

    def numel(self) -> int:
        return self._data.numel()

    def element_size(self) -> int:
        return self._data.element_size()

    def is_floating_point(self) -> bool:
        return self._data.is_floating_point()

    def is_contiguous(self) -> bool:
        return self._data.is_contiguous()

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
        self._data = detach_torch(value)

    # -------------------------------------------------------------- conversion
    def torch(self) -> torch.Tensor:
        """The underlying ``torch.Tensor``: no copy, no graph."""
        return self._data

    def numpy(self):
        return self._data.detach().cpu().numpy()

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
        return node is not None and any(ref() is self for ref in node._retained or ())

    def retain_grad(self) -> None:
        """Keep this non-leaf tensor's gradient in ``.grad`` after backward."""
        node = self._node
        if node is None:
            if not self._requires_grad:
                raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
            return
        if self.retains_grad:
            return
        import weakref

        node._retained = [*(node._retained or ()), weakref.ref(self)]
        node._simple = False

    def register_post_accumulate_grad_hook(self, hook: Callable[[Tensor], None]) -> RemovableHandle:
        """Call ``hook(tensor)`` each time backward has accumulated into this leaf's ``.grad``;
        ``handle.remove()`` takes it out again."""
        if self._node is not None:
            raise RuntimeError("post accumulate grad hooks cannot be registered on non-leaf tensors")
        self._hooks = [*(self._hooks or ()), hook]
        return RemovableHandle(self, hook)

    def detach(self) -> Tensor:
        """A new leaf sharing this tensor's data, outside any graph."""
        return Tensor._make(self._data, None)

    def detach_(self) -> Tensor:
        self._node = None
        self._requires_grad = False
        return self

    def backward(self, gradient: Tensor | None = None, retain_graph: bool = False) -> None:
        """Accumulate d(self)/d(leaf) into every leaf's ``.grad``, as ``torch.Tensor.backward``."""
        from .engine import backward

        backward([self], None if gradient is None else [gradient], retain_graph)

    # ------------------------------------------------------------ device/dtype
    def to(self, *args, **kwargs) -> Tensor:
        from ..ops.shape import to

        return to(self, *args, **kwargs)

    def cpu(self) -> Tensor:
        return self.to("cpu")

    def cuda(self, device: int | str | torch.device | None = None) -> Tensor:
        target = torch.device("cuda" if device is None else ("cuda", device) if isinstance(device, int) else device)
        if target.type != "cuda":
            raise RuntimeError("Invalid device, must be cuda device")
        return self.to(target)

    def float(self) -> Tensor:
        return self.to(torch.float32)

    def double(self) -> Tensor:
        return self.to(torch.float64)

    def half(self) -> Tensor:
        return self.to(torch.float16)

    def long(self) -> Tensor:
        return self.to(torch.int64)

    def int(self) -> Tensor:
        return self.to(torch.int32)

    def bool(self) -> Tensor:
        return self.to(torch.bool)

    def type(self, dtype=None):
        """The type name (``'torch.FloatTensor'``), or a copy as ``dtype``: a torch.dtype or a type
        name (torch resolves names and words their errors)."""
        if dtype is None:
            return self._data.type()
        if isinstance(dtype, str):
            like = torch.empty(0, dtype=self._data.dtype, device=self._data.device).type(dtype)
            return self.to(device=like.device, dtype=like.dtype)
        return self.to(dtype)
