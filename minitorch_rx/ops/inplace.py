"""In-place ops. Under no_grad, or on tensors outside any graph, they are torch's in-place ops on
the data. While recording, the op is recorded out of place, its result copied into the data (so
views and the version counter see the change, and saved copies of the old values are caught at
backward), and the tensor's history moves to the new node, as in PyTorch.

On a view (``ops/shape.py`` notes which tensor a view's memory belongs to) the base's history
moves too, as PyTorch's CopySlices: the base becomes "the old base with the view's region
replaced by the result", and the view becomes that region of the new base. The base's other
live views (it holds weak references to them) become their regions of the new base as well, as
PyTorch regenerates a view's history when its base's version changed: their values changed
with the base's memory."""

from __future__ import annotations

import copy
import weakref
from collections.abc import Callable

import torch

from ..autograd.function import Function
from ..autograd.grad_mode import no_grad, state
from ..autograd.tensor import Tensor, detach_torch, is_torch_data
from .constants import dtype_name
from .elementwise import clamp

LEAF_MESSAGE = "a leaf Variable that requires grad is being used in an in-place operation."


LEAF_VIEW_MESSAGE = "a view of a leaf Variable that requires grad is being used in an in-place operation."
OVERLAP_MESSAGE = (
    "unsupported operation: more than one element of the written-to tensor refers to a single memory "
    "location. Please clone() the tensor before performing the operation."
)


def _recording(target: Tensor, args: tuple) -> bool:
    if not state.grad_enabled:  # torch.no_grad(): torch.nn.init's fills
        return False
    base = _view_base(target)
    if base is not None and base._requires_grad and base._node is None:
        raise RuntimeError(LEAF_VIEW_MESSAGE)
    if target._requires_grad:
        if target._node is None:
            raise RuntimeError(LEAF_MESSAGE)
        return True
    return any(isinstance(a, Tensor) and a._requires_grad for a in args)


def _view_base(t: Tensor) -> Tensor | None:
    """The tensor whose memory ``t`` views, if it still does."""
    base = getattr(t, "_view_base", None)
    if base is None:
        return None
    memory = base._data if base._data._base is None else base._data._base
    return base if t._data._base is memory else None


def register_view(base: Tensor, view: Tensor) -> None:
    """Remember ``view`` (weakly: no reference cycle) as one of ``base``'s views, whose histories
    an in-place op on ``base`` or on another of its views rewrites."""
    views = getattr(base, "_views", None)
    if views is None:
        base._views = [weakref.ref(view)]
        return
    count = len(views)
    if count >= 8 and count & (count - 1) == 0:  # at each power of two: dead ones out, O(1) amortized
        views[:] = [ref for ref in views if ref() is not None]
    views.append(weakref.ref(view))


def _region_of(view: torch.Tensor, base: torch.Tensor) -> tuple:
    """``view``'s place in ``base``'s memory: size, stride and offset from the base's start."""
    return view.shape, view.stride(), view.storage_offset() - base.storage_offset()


def _regenerate_views(base: Tensor) -> None:
    """Give each live view of ``base`` its region of ``base``'s new history."""
    views = getattr(base, "_views", None)
    if not views:
        return
    alive = []
    for ref in views:
        view = ref()
        if view is None:
            continue
        alive.append(ref)
        if _view_base(view) is base:
            new_view = AsStrided.apply(base, _region_of(view._data, base._data))
            view._node, view._out_nr, view._requires_grad = new_view._node, 0, new_view._requires_grad
    views[:] = alive


def rebase(target: Tensor, result: Tensor) -> Tensor:
    """Make ``target`` hold ``result``'s values (in place) and its history."""
    data = target._data
    if result._data.shape != data.shape:
        raise RuntimeError(
            f"output with shape {list(data.shape)} doesn't match the broadcast shape {list(result._data.shape)}"
        )
    if result._data.dtype != data.dtype and not torch.can_cast(result._data.dtype, data.dtype):
        raise RuntimeError(
            f"result type {dtype_name(result._data.dtype)} can't be cast to the desired output type "
            f"{dtype_name(data.dtype)}"
        )
    node = result._node
    if node is not None and any(s is data for s in node._saved):
        # The new node saved the old values of ``target``: keep a copy, since they are overwritten now.
        node.save_for_backward(*(s.clone() if s is data else s for s in node._saved))
    base = _view_base(target)
    if base is not None and node is not None:
        return _rebase_view(target, base, result)
    data.copy_(result._data)
    target._node = node
    target._out_nr = result._out_nr
    target._requires_grad = node is not None
    _regenerate_views(target)
    return target


def _rebase_view(view: Tensor, base: Tensor, result: Tensor) -> Tensor:
    """Write ``result`` into ``view``'s memory, recorded as a new history for ``base`` (CopySlices)
    and for ``view`` (that region of the new base)."""
    data = view._data
    if torch._debug_has_internal_overlap(data) == 1:  # an expanded view: one element in several places
        raise RuntimeError(OVERLAP_MESSAGE)
    new_base = CopySlices.apply(base, result, _region_of(data, base._data))
    base._node, base._out_nr, base._requires_grad = new_base._node, 0, True
    _regenerate_views(base)  # ``view`` among them
    return view


def _region(t: torch.Tensor, region: tuple) -> torch.Tensor:
    size, stride, offset = region
    return t.as_strided(size, stride, t.storage_offset() + offset)


def _like_base(grad: torch.Tensor, base_meta: tuple) -> torch.Tensor:
    """``grad`` laid out with the base's strides, so that a region's strides address it."""
    shape, stride = base_meta
    if grad.stride() == stride:
        return grad.clone()
    return torch.empty_strided(shape, stride, dtype=grad.dtype, device=grad.device).copy_(grad)


class CopySlices(Function):
    """The base after an in-place op on its view: its values with the view's ``region`` (size,
    stride, offset from the base's start) replaced by ``values``. Forward writes them into the
    base's memory itself and returns it."""

    _node_name = "CopySlices"

    @staticmethod
    def forward(ctx, base, values, region):
        ctx.meta = ((base.shape, base.stride()), region, values.dtype)
        _region(base, region).copy_(values)
        return base

    @staticmethod
    def backward(ctx, grad):
        base_meta, region, values_dtype = ctx.meta
        full = _like_base(grad, base_meta)
        window = _region(full, region)
        grad_values = window.to(values_dtype, copy=True) if ctx.needs_input_grad[1] else None
        window.zero_()
        return (full if ctx.needs_input_grad[0] else None), grad_values, None


class AsStrided(Function):
    """A view's values as a region of its base (size, stride, offset from the base's start)."""

    @staticmethod
    def forward(ctx, base, region):
        ctx.meta = ((base.shape, base.stride()), region)
        return _region(base, region)

    @staticmethod
    def backward(ctx, grad):
        (shape, stride), region = ctx.meta
        full = torch.empty_strided(shape, stride, dtype=grad.dtype, device=grad.device).zero_()
        size, view_stride, offset = region
        if not _may_overlap(size, view_stride):
            _region(full, region).copy_(grad)
            return full, None
        # An expanded or unfolded view reads some elements more than once: their gradients add up.
        storage_size = full.untyped_storage().nbytes() // full.element_size()
        positions = torch.arange(storage_size, device=grad.device).as_strided(size, view_stride, offset)
        flat = full.as_strided((storage_size,), (1,), 0)
        flat.index_add_(0, positions.reshape(-1), grad.reshape(-1))
        return full, None


def _may_overlap(size, stride) -> bool:
    """Whether a view of ``size`` and ``stride`` may address a memory location twice (False: it
    certainly does not): each dim, by increasing stride, must step past all the smaller ones."""
    extent = 0
    for step, count in sorted((st, sz) for sz, st in zip(size, stride) if sz > 1):
        if step <= extent:
            return True
        extent += (count - 1) * step
    return False


def _data(value):
    if isinstance(value, Tensor):
        return value._data
    return detach_torch(value) if is_torch_data(value) else value


def inplace_binary(target: Tensor, other, out_of_place, torch_method: str, **kwargs) -> Tensor:
    if _recording(target, (other,)):
        return rebase(target, out_of_place(target, other, **kwargs))
    getattr(target._data, torch_method)(_data(other), **kwargs)
    return target


def inplace_op(target: Tensor, out_of_place: Callable[..., Tensor], torch_method: str, *args, **kwargs) -> Tensor:
    """``target.<torch_method>(*args)``: torch's in-place kernel when nothing records, else
    ``out_of_place(target, *args)`` recorded and written back (unary ops, ``lerp_``, ...)."""
    if _recording(target, args):
        return rebase(target, out_of_place(target, *args, **kwargs))
    getattr(target._data, torch_method)(*[_data(a) for a in args], **kwargs)
    return target


class Fill(Function):
    @staticmethod
    def forward(ctx, x, value):
        return torch.full_like(x, value)

    @staticmethod
    def backward(ctx, grad):
        return torch.zeros_like(grad), None


class CopyFrom(Function):
    """The values of ``src`` broadcast to ``target``'s shape, dtype and device (``copy_``).
    ``target``'s old values get a zero gradient, as in PyTorch."""

    @staticmethod
    def forward(ctx, target, src):
        ctx.source = (src.shape, src.dtype, src.device)
        return src.to(device=target.device, dtype=target.dtype).expand(target.shape)

    @staticmethod
    def backward(ctx, grad):
        shape, dtype, device = ctx.source
        grad_target = torch.zeros_like(grad) if ctx.needs_input_grad[0] else None
        grad_src = grad.sum_to_size(shape).to(device=device, dtype=dtype) if ctx.needs_input_grad[1] else None
        return grad_target, grad_src


_SAVED = object()  # where an index tensor sat in an index split by ``split_index``


def split_index(index) -> tuple[tuple, list[torch.Tensor]]:
    """An index (torch's form: ints, slices, None, Ellipsis, tensors, lists, or a tuple of them) as
    a template and its tensors, for ``save_for_backward``; Python lists are copied as they are now."""
    items = index if isinstance(index, tuple) else (index,)
    template, tensors = [], []
    for item in items:
        if is_torch_data(item) and item.dtype == torch.bool and item.dim() == 0:
            # a 0-dim mask indexes as a Python bool (``x[True]``), as torch reads it: nothing to save
            template.append(bool(item))
        elif is_torch_data(item):
            template.append(_SAVED)
            tensors.append(item)
        else:
            template.append(copy.deepcopy(item) if isinstance(item, list) else item)
    return (isinstance(index, tuple), tuple(template)), tensors


def join_index(template: tuple, tensors) -> object:
    """The index ``split_index`` took apart, with ``tensors`` (the saved ones) back in their places."""
    is_tuple, items = template
    tensors = iter(tensors)
    joined = tuple(next(tensors) if item is _SAVED else item for item in items)
    return joined if is_tuple else joined[0]


class IndexPut(Function):
    """``x[index] = value`` as a value: x's gradient is zero where it was overwritten.

    The index's tensors are saved for backward, so changing one in place before backward raises
    PyTorch's version error instead of sending the gradient to the wrong elements; its Python
    lists are copied (torch turns them into tensors at the call)."""

    @staticmethod
    def forward(ctx, x, index, value):
        ctx.key_template, index_tensors = split_index(index)  # not ctx.index: the node's graph index
        ctx.save_for_backward(*index_tensors)
        ctx.value_meta = (value.shape, value.dtype) if is_torch_data(value) else None
        out = x.clone()
        out[index] = value
        return out

    @staticmethod
    def backward(ctx, grad):
        key = join_index(ctx.key_template, ctx.saved_tensors)
        grad_x = grad_value = None
        if ctx.needs_input_grad[0]:
            grad_x = grad.clone()
            grad_x[key] = 0
        if ctx.needs_input_grad[2]:
            shape, dtype = ctx.value_meta
            grad_value = grad[key].sum_to_size(shape).to(dtype)
        return grad_x, None, grad_value


def overwrite(target: Tensor, out_of_place: Callable[..., Tensor], *args: object) -> Tensor:
    """``target`` overwritten with ``out_of_place(target, *args)`` and returned: the ``inplace=True``
    of activations and dropout, recorded as any in-place op."""
    if _recording(target, args):
        return rebase(target, out_of_place(target, *args))
    with no_grad():
        target._data.copy_(out_of_place(target, *args)._data)
    return target


def fill_(target: Tensor, value) -> Tensor:
    if _recording(target, (value,)):
        if isinstance(value, Tensor):
            return rebase(target, CopyFrom.apply(target, value))
        return rebase(target, Fill.apply(target, value))
    target._data.fill_(_data(value))
    return target


def zero_(target: Tensor) -> Tensor:
    return fill_(target, 0)


def copy_(target: Tensor, src) -> Tensor:
    if _recording(target, (src,)):
        src = src if isinstance(src, Tensor) else Tensor._make(torch.as_tensor(src), None)
        return rebase(target, CopyFrom.apply(target, src))
    target._data.copy_(_data(src) if isinstance(src, (Tensor, torch.Tensor)) else torch.as_tensor(src))
    return target


def clamp_(target: Tensor, min=None, max=None) -> Tensor:
    if _recording(target, (min, max)):
        return rebase(target, clamp(target, min, max))
    target._data.clamp_(_data(min), _data(max))
    return target


def setitem(target: Tensor, index, value) -> None:
    from .shape import _torch_index

    index = _torch_index(index)
    if _recording(target, (value,)):
        rebase(target, IndexPut.apply(target, index, value if isinstance(value, Tensor) else _data(value)))
        return
    target._data[index] = _data(value)
