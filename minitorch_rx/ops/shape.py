"""Shape ops, indexing, concatenation and device/dtype moves. Their backward only moves gradients."""

from __future__ import annotations

import torch

from ..autograd.function import Function, LinearMap, call
from ..autograd.tensor import Tensor, is_torch_data, rebind
from ..autograd.torch_leaves import torch_operand
from .constants import TENSOR_TYPES, not_a_tensor, tensor_arg
from .dims import int_tuple, normalize_dim
from .inplace import _recording, register_view, split_index


class _ShapeOnly(Function):
    """Ops that only reinterpret the shape: the gradient is reshaped back."""

    @staticmethod
    def backward(ctx, grad):
        return grad.reshape(ctx.input_shape), None


class View(_ShapeOnly):
    @staticmethod
    def forward(ctx, x, shape):
        ctx.input_shape = x.shape
        return x.view(shape)


class Reshape(_ShapeOnly):
    _node_name = "ViewBackward0"  # PyTorch's name for this node

    @staticmethod
    def forward(ctx, x, shape):
        ctx.input_shape = x.shape
        return x.reshape(shape)


class Squeeze(_ShapeOnly):
    @staticmethod
    def forward(ctx, x, dim):
        ctx.input_shape = x.shape
        return x.squeeze() if dim is None else x.squeeze(dim)


class Unsqueeze(_ShapeOnly):
    @staticmethod
    def forward(ctx, x, dim):
        ctx.input_shape = x.shape
        return x.unsqueeze(dim)


class Transpose(Function):
    @staticmethod
    def forward(ctx, x, dim0, dim1):
        ctx.dims = (dim0, dim1)
        return x.transpose(dim0, dim1)

    @staticmethod
    def backward(ctx, grad):
        return grad.transpose(*ctx.dims), None, None


class Permute(Function):
    @staticmethod
    def forward(ctx, x, dims):
        ctx.inverse = tuple(sorted(range(len(dims)), key=dims.__getitem__))
        return x.permute(dims)

    @staticmethod
    def backward(ctx, grad):
        return grad.permute(ctx.inverse), None


class Expand(Function):
    @staticmethod
    def forward(ctx, x, sizes):
        ctx.input_shape = x.shape
        return x.expand(sizes)

    @staticmethod
    def backward(ctx, grad):
        return grad.sum_to_size(ctx.input_shape), None


class Contiguous(Function):
    _node_name = "CloneBackward0"  # PyTorch's name for this node

    @staticmethod
    def forward(ctx, x):
        return x.contiguous()

    @staticmethod
    def backward(ctx, grad):
        return grad


class Index(Function):
    """``x[index]`` for any index torch accepts. Basic indexing (ints, slices, None, Ellipsis)
    scatters the gradient into a view; advanced indexing (tensors, lists, masks) may repeat
    elements, so its gradient is summed through the flat positions the index selected."""

    @staticmethod
    def forward(ctx, x, index):
        out = x[index]
        if ctx.needs_input_grad[0]:
            ctx.input_meta = (x.shape, x.dtype, x.device)
            if _is_advanced(index):
                positions = torch.arange(x.numel(), device=x.device).view(x.shape)[index]
                # the index's tensors too, unused but version-checked: PyTorch's error if one changes
                ctx.save_for_backward(positions, *split_index(index)[1])
            else:
                ctx.basic_index = index
        return out

    @staticmethod
    def backward(ctx, grad):
        shape, dtype, device = ctx.input_meta
        if "basic_index" in ctx.__dict__:
            index = ctx.basic_index
        else:
            positions = ctx.saved_tensors[0]
            index = positions._data if isinstance(positions, Tensor) else positions
        if isinstance(grad, Tensor):  # create_graph: the scatter as an op whose backward indexes again
            return LinearMap.apply(grad, _IndexScatter(shape, dtype, device, index), _IndexGather(index)), None
        return _IndexScatter(shape, dtype, device, index)(grad), None


class _IndexScatter:
    """``x[index]``'s backward: the gradient put (summed, for advanced indices) into zeros of ``x``'s
    shape. ``index`` is a basic index, or a tensor of flat positions into ``x``."""

    __slots__ = ("shape", "dtype", "device", "index")

    def __init__(self, shape, dtype, device, index) -> None:
        self.shape, self.dtype, self.device, self.index = shape, dtype, device, index

    def __call__(self, grad: torch.Tensor) -> torch.Tensor:
        full = torch.zeros(self.shape, dtype=self.dtype, device=self.device)
        if is_torch_data(self.index):
            full.view(-1).index_add_(0, self.index.reshape(-1), grad.reshape(-1).to(self.dtype))
        else:
            full[self.index] = grad
        return full


class _IndexGather:
    """The adjoint of ``_IndexScatter``: index the gradient's gradient again (recorded on mt.Tensors)."""

    __slots__ = ("index",)

    def __init__(self, index) -> None:
        self.index = index

    def __call__(self, grad):
        if is_torch_data(self.index):
            return call(Index, grad.reshape(-1), self.index.reshape(-1)).reshape(self.index.shape)
        return call(Index, grad, self.index)


def _is_advanced(index) -> bool:
    items = index if isinstance(index, tuple) else (index,)
    return not all(i is None or i is Ellipsis or isinstance(i, (int, slice)) and not isinstance(i, bool) for i in items)


class Cat(Function):
    @staticmethod
    def forward(ctx, dim, *tensors):
        out = torch.cat(tensors, dim)  # first, so that torch words the errors
        ctx.dim = dim
        ctx.parts = [(0 if _is_legacy_empty(t) else t.shape[dim], t.shape, t.dtype) for t in tensors]
        return out

    @staticmethod
    def backward(ctx, grad):
        pieces = grad.split([size for size, _, _ in ctx.parts], ctx.dim)
        return (None, *(p.reshape(shape).to(dtype) for p, (_, shape, dtype) in zip(pieces, ctx.parts, strict=True)))


def _is_legacy_empty(t: torch.Tensor) -> bool:
    """A 1-D empty tensor, which ``torch.cat`` skips whatever the other tensors' shapes."""
    return t.dim() == 1 and t.shape[0] == 0


class Stack(Function):
    @staticmethod
    def forward(ctx, dim, *tensors):
        ctx.dim = dim
        ctx.dtypes = [t.dtype for t in tensors]
        return torch.stack(tensors, dim)

    @staticmethod
    def backward(ctx, grad):
        pieces = grad.unbind(ctx.dim)
        return (None, *(p if p.dtype == dtype else p.to(dtype) for p, dtype in zip(pieces, ctx.dtypes)))


class ToCopy(Function):
    @staticmethod
    def forward(ctx, x, args, kwargs):
        ctx.source = (x.dtype, x.device)
        return x.to(*args, **kwargs)

    @staticmethod
    def backward(ctx, grad):
        dtype, device = ctx.source
        return grad.to(device=device, dtype=dtype), None, None


# ------------------------------------------------------------------ public functions
def _viewing(out: Tensor, input: Tensor) -> Tensor:
    """Note, when ``out``'s data is a view of ``input``'s, the tensor whose memory it views (the
    base of ``input`` if that is a view itself): an in-place op on ``out`` then rewrites that
    base's history too (``ops/inplace.py``), as PyTorch's CopySlices does."""
    base = out._data._base
    if base is not None:
        root = getattr(input, "_view_base", None)
        if root is None:
            root = input
        if base is root._data or base is root._data._base:
            out._view_base = root
            register_view(root, out)
    return out


def _shape_arg(shape: tuple) -> tuple:
    return tuple(shape[0]) if len(shape) == 1 and isinstance(shape[0], (tuple, list, torch.Size)) else shape


def view(input: Tensor, *shape, size=None, dtype=None) -> Tensor:
    """``view(2, 3)``, ``view((2, 3))``, ``view(size=(2, 3))``; ``view(dtype)`` reinterprets the
    bytes (a new leaf: PyTorch has no derivative for it either)."""
    input = tensor_arg(input, "view")
    if len(shape) == 1 and isinstance(shape[0], torch.dtype):
        dtype = shape[0]
    if dtype is not None:
        return Tensor._make(input._data.view(dtype), None)
    return _viewing(View.apply(input, _shape_arg(shape if size is None else (size,))), input)


def reshape(input: Tensor, *shape_args, shape=None) -> Tensor:
    input = tensor_arg(input, "reshape")
    return _viewing(Reshape.apply(input, _shape_arg(shape_args if shape is None else (shape,))), input)


def flatten(input: Tensor, start_dim: int = 0, end_dim: int = -1) -> Tensor:
    """torch's ``flatten`` of the data gives the result (a view where it can be: ``reshape``'s
    rule), its checks and its words; the input itself when there is nothing to flatten. It is
    recorded as the reshape it is; an input that needs no gradient (a batch of images) takes it
    as it is."""
    input = tensor_arg(input, "flatten")
    data = input._data
    flat = data.flatten(start_dim, end_dim)
    if flat is data:
        return input
    if input._requires_grad:
        return _viewing(Reshape.apply(input, flat.shape), input)
    return _viewing(Tensor._make(flat, None), input)


def squeeze(input: Tensor, dim: int | tuple | None = None) -> Tensor:
    input = tensor_arg(input, "squeeze")
    op = Squeeze if dim is None else _SqueezeDims if isinstance(dim, (tuple, list)) else _SqueezeDim
    return _viewing(op.apply(input, dim), input)


def unsqueeze(input: Tensor, dim: int) -> Tensor:
    input = tensor_arg(input, "unsqueeze")
    return _viewing(Unsqueeze.apply(input, normalize_dim(dim, input._data.dim() + 1)), input)


def transpose(input: Tensor, dim0: int, dim1: int) -> Tensor:
    input = tensor_arg(input, "transpose")
    ndim = input._data.dim()
    return _viewing(Transpose.apply(input, normalize_dim(dim0, ndim), normalize_dim(dim1, ndim)), input)


def t(input: Tensor) -> Tensor:
    input = tensor_arg(input, "t")
    if input._data.dim() > 2:
        raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is {input._data.dim()}D")
    return input if input._data.dim() < 2 else _viewing(_T.apply(input, 0, 1), input)


def transpose_(input: Tensor, dim0: int, dim1: int) -> Tensor:
    """``input`` itself, transposed in place (its sizes and strides; the memory is untouched). As in
    PyTorch, its version goes up, so a saved copy of it is caught at backward, and its history
    becomes a transpose of the old one."""
    input = tensor_arg(input, "transpose_")
    ndim = input._data.dim()
    dim0, dim1 = normalize_dim(dim0, ndim), normalize_dim(dim1, ndim)
    if _recording(input, ()):
        history = Transpose.apply(input, dim0, dim1)
        input._node, input._out_nr = history._node, 0
    input._data.transpose_(dim0, dim1)
    rebind(input, input._data)
    return input


def squeeze_(input: Tensor, dim: int | tuple | None = None) -> Tensor:
    """``input`` itself with size-1 dims removed in place (as ``transpose_``: its history becomes a squeeze)."""
    input = tensor_arg(input, "squeeze_")
    if _recording(input, ()):
        input._node, input._out_nr = squeeze(input, dim)._node, 0
    if dim is None:
        input._data.squeeze_()
    else:
        input._data.squeeze_(dim)
    rebind(input, input._data)
    return input


def unsqueeze_(input: Tensor, dim: int) -> Tensor:
    """``input`` itself with a size-1 dim inserted in place (as ``transpose_``)."""
    input = tensor_arg(input, "unsqueeze_")
    if _recording(input, ()):
        input._node, input._out_nr = unsqueeze(input, dim)._node, 0
    input._data.unsqueeze_(dim)
    rebind(input, input._data)
    return input


def t_(input: Tensor) -> Tensor:
    input = tensor_arg(input, "t_")
    if input._data.dim() > 2:
        raise RuntimeError(f"t_() expects a tensor with <= 2 dimensions, but self is {input._data.dim()}D")
    return input if input._data.dim() < 2 else transpose_(input, 0, 1)


def permute(input: Tensor, *args, dims=None) -> Tensor:
    input = tensor_arg(input, "permute")
    given = args[0] if dims is None and len(args) == 1 else dims
    if isinstance(given, (Tensor, torch.Tensor)):
        raise TypeError("permute(): argument 'dims' (position 1) must be tuple of ints, not Tensor")
    dims = _shape_arg(args if dims is None else (dims,))
    ndim = input._data.dim()
    if len(dims) != ndim:
        raise RuntimeError(
            "permute(sparse_coo): number of dimensions in the tensor input does not match the length "
            f"of the desired ordering of dimensions i.e. input.dim() = {ndim} is not equal to len(dims) = {len(dims)}"
        )
    return _viewing(Permute.apply(input, tuple(normalize_dim(d, ndim) for d in dims)), input)


def expand(input: Tensor, *sizes) -> Tensor:
    input = tensor_arg(input, "expand")
    return _viewing(Expand.apply(input, _shape_arg(sizes)), input)


def expand_as(input: Tensor, other: Tensor) -> Tensor:
    other = tensor_arg(other, "expand_as", "other", 1)
    return _viewing(Expand.apply(input, other._data.shape), input)


def contiguous(input: Tensor, memory_format: torch.memory_format = torch.contiguous_format) -> Tensor:
    input = tensor_arg(input, "contiguous")
    if input._data.is_contiguous(memory_format=memory_format):
        return input
    if memory_format is torch.contiguous_format:
        return Contiguous.apply(input)
    return ToCopy.apply(input, (), {"memory_format": memory_format})


def getitem(input: Tensor, index) -> Tensor:
    return _viewing(_indexing(index).apply(input, _torch_index(index)), input)


# PyTorch's nodes for one indexing step: x[0] and x[:, 1] select, x[1:] slices; other keys
# (several steps, index tensors, masks) record one IndexBackward0 here.
_T = Transpose.overload("TBackward0")
_Select = Index.overload("SelectBackward0")
_Slice = Index.overload("SliceBackward0")
_SqueezeDim = Squeeze.overload("SqueezeBackward1")
_SqueezeDims = Squeeze.overload("SqueezeBackward2")
_FULL = slice(None)


def _indexing(index) -> type[Index]:
    if type(index) is tuple:
        *leading, last = index if index else (None,)
        for key in leading:
            if type(key) is not slice or key != _FULL:
                return Index
        index = last
    kind = type(index)
    if kind is int:
        return _Select
    if kind is slice and index != _FULL:
        return _Slice
    return Index


def _torch_index(index):
    if isinstance(index, tuple):
        return tuple(i._data if isinstance(i, Tensor) else i for i in index)
    return index._data if isinstance(index, Tensor) else index


def _tensor_list(tensors, name: str) -> list:
    if isinstance(tensors, Tensor) or not isinstance(tensors, (list, tuple)):
        raise TypeError(
            f"{name}(): argument 'tensors' must be a tuple or list of Tensors, not {type(tensors).__name__}"
        )
    if not tensors:
        if name == "cat":
            raise ValueError("torch.cat(): expected a non-empty list of Tensors")
        raise RuntimeError(f"{name} expects a non-empty TensorList")
    for i, t in enumerate(tensors):
        if not isinstance(t, TENSOR_TYPES):
            raise TypeError(f"expected Tensor as element {i} in argument 0, but got {type(t).__name__}")
    return [t if isinstance(t, Tensor) else torch_operand(t) for t in tensors]


def cat(tensors, dim: int = 0) -> Tensor:
    tensors = _tensor_list(tensors, "cat")
    ranked = next((t for t in tensors if not _is_legacy_empty(t._data)), tensors[0])
    return Cat.apply(normalize_dim(dim, ranked._data.dim()), *tensors)


def stack(tensors, dim: int = 0) -> Tensor:
    tensors = _tensor_list(tensors, "stack")
    return Stack.apply(normalize_dim(dim, tensors[0]._data.dim() + 1), *tensors)


def to(input: Tensor, *args, **kwargs) -> Tensor:
    """Move or cast, as ``torch.Tensor.to``; a cast to a non-float dtype leaves the graph."""
    args = tuple(a._data if isinstance(a, Tensor) else a for a in args)
    out_dtype, out_device, copy = _target(input._data, args, kwargs)
    if (
        out_dtype == input._data.dtype
        and out_device == input._data.device
        and not copy
        and kwargs.get("memory_format", torch.preserve_format) in (torch.preserve_format, _memory_format(input._data))
    ):
        return input
    if not (out_dtype.is_floating_point or out_dtype.is_complex):
        return Tensor._make(input._data.to(*args, **kwargs), None)
    return ToCopy.apply(input, args, kwargs)


def _memory_format(data: torch.Tensor) -> torch.memory_format | None:
    for memory_format in (torch.contiguous_format, torch.channels_last, torch.channels_last_3d):
        if data.is_contiguous(memory_format=memory_format):
            return memory_format
    return None


_TO_KEYWORDS = frozenset({"device", "dtype", "non_blocking", "copy", "memory_format"})


def _target(data: torch.Tensor, args: tuple, kwargs: dict) -> tuple[torch.dtype, torch.device, bool]:
    """The dtype, device and copy flag of ``to(*args, **kwargs)``, by position as torch's three forms:
    ``(device=None, dtype=None, non_blocking, copy)``, ``(dtype, non_blocking, copy)``, ``(other, ...)``."""
    if kwargs and not _TO_KEYWORDS.issuperset(kwargs):
        raise TypeError(f"to() got an unexpected keyword argument '{min(set(kwargs) - _TO_KEYWORDS)}'")
    dtype, device = kwargs.get("dtype"), kwargs.get("device")
    flags = [a for a in args if isinstance(a, bool)]  # non_blocking, then copy, given by position
    copy = kwargs.get("copy", False) or (len(flags) > 1 and flags[1])
    for a in args:
        if isinstance(a, torch.dtype):
            dtype = a
        elif a is None or isinstance(a, bool):  # a device or dtype given as None (Module.to's form)
            continue
        elif isinstance(a, (str, torch.device, int)):
            device = a
        elif is_torch_data(a):
            dtype, device = a.dtype, a.device
        else:
            raise TypeError(f"to() expects a device, a dtype or a Tensor, but got {type(a).__name__}")
    if dtype is not None and not isinstance(dtype, torch.dtype):
        raise TypeError(f"to(): argument 'dtype' must be torch.dtype, not {type(dtype).__name__} ({dtype!r})")
    device = data.device if device is None else torch.device(device)
    if device.type == "cuda" and device.index is None and data.is_cuda:
        device = data.device
    return (data.dtype if dtype is None else dtype), device, copy


# ------------------------------------------------------------------ compositions of the above
def view_as(input: Tensor, other: Tensor) -> Tensor:
    return view(tensor_arg(input, "view_as"), tensor_arg(other, "view_as", "other").shape)


def reshape_as(input: Tensor, other: Tensor) -> Tensor:
    return reshape(tensor_arg(input, "reshape_as"), tensor_arg(other, "reshape_as", "other").shape)


def type_as(input: Tensor, other: Tensor) -> Tensor:
    """``input`` cast to ``other``'s dtype (and moved to its device, as PyTorch's ``type_as``)."""
    other = tensor_arg(other, "type_as", "other")
    return to(tensor_arg(input, "type_as"), device=other.device, dtype=other.dtype)


def movedim(input: Tensor, source: int | tuple | list, destination: int | tuple | list) -> Tensor:
    """``input`` with its dims ``source`` moved to the places ``destination`` (a view)."""
    input = tensor_arg(input, "movedim")
    input._data.movedim(source, destination)  # torch checks the dims and words the errors
    ndim = input._data.dim()
    sources = [normalize_dim(d, ndim) for d in ((source,) if isinstance(source, int) else source)]
    destinations = [normalize_dim(d, ndim) for d in ((destination,) if isinstance(destination, int) else destination)]
    rest = iter(d for d in range(ndim) if d not in sources)
    order = [sources[destinations.index(p)] if p in destinations else next(rest) for p in range(ndim)]
    return permute(input, order)


moveaxis = movedim
swapaxes = swapdims = transpose


def unflatten(input: Tensor, dim: int, sizes) -> Tensor:
    """``input`` with dim ``dim`` split into ``sizes`` (one of them may be -1); a view."""
    input = tensor_arg(input, "unflatten")
    return view(input, input._data.unflatten(dim, sizes).shape)


def broadcast_to(input: Tensor, size) -> Tensor:
    input = tensor_arg(input, "broadcast_to")
    if isinstance(size, int) and not isinstance(size, bool):
        size = (size,)  # torch takes one int as a 1-D size
    return expand(input, int_tuple(size, "broadcast_to", "size", 1))


def broadcast_tensors(*tensors) -> tuple[Tensor, ...]:
    """The tensors expanded to their common broadcast shape (views)."""
    tensors = _tensor_list(_shape_arg(tensors), "broadcast_tensors")
    shape = torch.broadcast_tensors(*(t._data for t in tensors))[0].shape  # torch words the errors
    return tuple(expand(t, shape) for t in tensors)


def _at_least(tensors: tuple, name: str, rank: int):
    one = len(tensors) == 1 and not isinstance(tensors[0], (list, tuple))
    if one and not isinstance(tensors[0], TENSOR_TYPES):
        raise not_a_tensor(name, tensors[0])
    out = []
    for t in _tensor_list(list(_shape_arg(tensors)), name):
        shape = tuple(t._data.shape)
        out.append(t if len(shape) >= rank else reshape(t, _at_least_shape(shape, rank)))
    return out[0] if one else tuple(out)


def _at_least_shape(shape: tuple, rank: int) -> tuple:
    """numpy's rules: a scalar becomes (1, ...), a vector a row (1, n) or (1, n, 1), a matrix (m, n, 1)."""
    if not shape:
        return (1,) * rank
    if len(shape) == 1:
        return (1, shape[0]) if rank == 2 else (1, shape[0], 1)
    return (*shape, 1)


def atleast_1d(*tensors):
    return _at_least(tensors, "atleast_1d", 1)


def atleast_2d(*tensors):
    return _at_least(tensors, "atleast_2d", 2)


def atleast_3d(*tensors):
    return _at_least(tensors, "atleast_3d", 3)


# ------------------------------------------------------------------ pixel shuffle
def pixel_shuffle(input: Tensor, upscale_factor: int) -> Tensor:
    """Rearrange ``input`` (*, C * r^2, H, W) into (*, C, H * r, W * r), ``r = upscale_factor``:
    a view, a permutation and a reshape (recorded ops). Raises RuntimeError in PyTorch's words
    for fewer than 3 dims or channels that r^2 does not divide.

    >>> import minitorch_rx as mt
    >>> pixel_shuffle(mt.arange(4.0).view(4, 1, 1), 2).tolist()
    [[[0.0, 1.0], [2.0, 3.0]]]
    """
    input = tensor_arg(input, "pixel_shuffle")
    shape, r = input.shape, upscale_factor
    if len(shape) < 3:
        raise RuntimeError(
            f"pixel_shuffle expects input to have at least 3 dimensions, but got input with {len(shape)} dimension(s)"
        )
    if r <= 0:
        raise RuntimeError(f"pixel_shuffle expects a positive upscale_factor, but got {r}")
    *batch, channels, height, width = shape
    if channels % (r * r):
        raise RuntimeError(
            "pixel_shuffle expects its input's 'channel' dimension to be divisible by the square of "
            f"upscale_factor, but input.size(-3)={channels} is not divisible by {r * r}"
        )
    nb = len(batch)
    x = view(input, *batch, channels // (r * r), r, r, height, width)
    x = permute(x, *range(nb), nb, nb + 3, nb + 1, nb + 4, nb + 2)
    return reshape(x, *batch, channels // (r * r), height * r, width * r)


def pixel_unshuffle(input: Tensor, downscale_factor: int) -> Tensor:
    """The inverse of ``pixel_shuffle``: (*, C, H * r, W * r) into (*, C * r^2, H, W). Raises
    RuntimeError in PyTorch's words for fewer than 3 dims or a height or width r does not divide."""
    input = tensor_arg(input, "pixel_unshuffle")
    shape, r = input.shape, downscale_factor
    if len(shape) < 3:
        raise RuntimeError(
            f"pixel_unshuffle expects input to have at least 3 dimensions, but got input with {len(shape)} dimension(s)"
        )
    if r <= 0:
        raise RuntimeError(f"pixel_unshuffle expects a positive downscale_factor, but got {r}")
    *batch, channels, height, width = shape
    for name, size, dim in (("height", height, -2), ("width", width, -1)):
        if size % r:
            raise RuntimeError(
                f"pixel_unshuffle expects {name} to be divisible by downscale_factor, but input.size({dim})={size} "
                f"is not divisible by {r}"
            )
    nb = len(batch)
    x = view(input, *batch, channels, height // r, r, width // r, r)
    x = permute(x, *range(nb), nb, nb + 2, nb + 4, nb + 1, nb + 3)
    return reshape(x, *batch, channels * r * r, height // r, width // r)


def channel_shuffle(input: Tensor, groups: int) -> Tensor:
    """The channels (dim 1) of ``(N, C, *)`` regrouped: ``C = groups * k`` read as ``(groups, k)``
    and transposed to ``(k, groups)``."""
    input = tensor_arg(input, "channel_shuffle")
    if input._data.dim() < 3:
        raise RuntimeError(f"channel_shuffle expects input with > 2 dims, but got input with sizes {list(input.shape)}")
    if groups <= 0:
        raise RuntimeError(f"Number of groups to divide channels in must be positive. Value of groups:{groups}")
    n, c, *rest = input.shape
    if c % groups:
        raise RuntimeError(f"Number of channels must be divisible by groups. Got {c} channels and {groups} groups.")
    grouped = reshape(input, (n, groups, c // groups, *rest))
    return reshape(transpose(grouped, 1, 2), (n, c, *rest))
