"""The views that pick part of a tensor (split, chunk, unbind, narrow, select, diagonal, unfold),
the shape ops composed of existing ones (view_as, reshape_as, type_as, movedim, swapaxes,
unflatten, broadcast_to, broadcast_tensors, atleast_nd) and the in-place t_/transpose_, against
torch.autograd in float64 on generated shapes (rank 0-5, size-0 and size-1 dims). The views share
memory with their base as PyTorch's do, so in-place ops on them match PyTorch's gradients;
gradcheck on each."""

from __future__ import annotations

import pytest
import torch
from helpers import compare_with_torch
from hypothesis import given
from hypothesis import strategies as st
from strategies import FUZZ, broadcast_shapes, shapes, tensors

import minitorch_rx as mt


def _dim(data, shape) -> int:
    size = max(len(shape), 1)
    return data.draw(st.integers(-size, size - 1))


@FUZZ
@given(data=st.data(), shape=shapes(min_rank=1))
def test_split_by_size_matches_torch(data, shape):
    x, dim = data.draw(tensors(shape)), _dim(data, shape)
    size = data.draw(st.integers(1, 4))
    compare_with_torch(lambda t: t.split(size, dim), lambda t: t.split(size, dim), [x])
    compare_with_torch(lambda t: mt.split(t, size, dim=dim), lambda t: torch.split(t, size, dim=dim), [x])


@FUZZ
@given(data=st.data(), shape=shapes(min_rank=1))
def test_split_by_sections_matches_torch(data, shape):
    x, dim = data.draw(tensors(shape)), _dim(data, shape)
    cuts = sorted(data.draw(st.lists(st.integers(0, shape[dim]), max_size=3)))
    sections = [b - a for a, b in zip([0, *cuts], [*cuts, shape[dim]])]
    compare_with_torch(lambda t: t.split(sections, dim), lambda t: t.split(sections, dim), [x])


@FUZZ
@given(data=st.data(), shape=shapes(min_rank=1), chunks=st.integers(1, 4))
def test_chunk_matches_torch(data, shape, chunks):
    x, dim = data.draw(tensors(shape)), _dim(data, shape)
    compare_with_torch(lambda t: t.chunk(chunks, dim), lambda t: t.chunk(chunks, dim), [x])
    compare_with_torch(lambda t: mt.chunk(t, chunks, dim), lambda t: torch.chunk(t, chunks, dim), [x])


@FUZZ
@given(data=st.data(), shape=shapes(min_rank=1))
def test_unbind_matches_torch(data, shape):
    x, dim = data.draw(tensors(shape)), _dim(data, shape)
    compare_with_torch(lambda t: t.unbind(dim), lambda t: t.unbind(dim), [x])
    compare_with_torch(lambda t: mt.unbind(t, dim), lambda t: torch.unbind(t, dim), [x])


def test_pieces_that_get_no_gradient_count_as_zeros():
    compare_with_torch(lambda t: t.split(2)[1] * 3, lambda t: t.split(2)[1] * 3, [torch.randn(5, dtype=torch.float64)])


@FUZZ
@given(data=st.data(), shape=shapes(min_rank=1))
def test_narrow_matches_torch(data, shape):
    x, dim = data.draw(tensors(shape)), _dim(data, shape)
    side = shape[dim]
    start = data.draw(st.integers(0, side))
    length = data.draw(st.integers(0, side - start))
    if start < side and data.draw(st.booleans()):
        start -= side  # the same place, counted from the end
    compare_with_torch(lambda t: t.narrow(dim, start, length), lambda t: t.narrow(dim, start, length), [x])
    compare_with_torch(lambda t: mt.narrow(t, dim, start, length), lambda t: torch.narrow(t, dim, start, length), [x])


@FUZZ
@given(data=st.data(), shape=shapes(min_rank=1, min_side=1))
def test_select_matches_torch(data, shape):
    x, dim = data.draw(tensors(shape)), _dim(data, shape)
    index = data.draw(st.integers(-shape[dim], shape[dim] - 1))
    compare_with_torch(lambda t: t.select(dim, index), lambda t: t.select(dim, index), [x])
    compare_with_torch(lambda t: mt.select(t, dim, index), lambda t: torch.select(t, dim, index), [x])


@FUZZ
@given(data=st.data(), shape=shapes(min_rank=2))
def test_diagonal_matches_torch(data, shape):
    x = data.draw(tensors(shape))
    dim1, dim2 = data.draw(st.permutations(range(len(shape))))[:2]
    offset = data.draw(st.integers(-3, 3))
    compare_with_torch(lambda t: t.diagonal(offset, dim1, dim2), lambda t: t.diagonal(offset, dim1, dim2), [x])
    compare_with_torch(lambda t: mt.diagonal(t, offset), lambda t: torch.diagonal(t, offset), [x])


@FUZZ
@given(data=st.data(), shape=shapes(max_rank=4), size=st.integers(0, 3), step=st.integers(1, 3))
def test_unfold_matches_torch(data, shape, size, step):
    x, dim = data.draw(tensors(shape)), _dim(data, shape)
    size = min(size, shape[dim] if shape else 1)
    compare_with_torch(lambda t: t.unfold(dim, size, step), lambda t: t.unfold(dim, size, step), [x])


# ------------------------------------------------------------------ views share their base's memory
VIEWS = {
    "narrow": lambda t: t.narrow(1, 1, 2),
    "select": lambda t: t.select(0, 2),
    "split": lambda t: t.split(2)[1],
    "chunk": lambda t: t.chunk(2, 1)[0],
    "unbind": lambda t: t.unbind(1)[2],
    "diagonal": lambda t: t.diagonal(1),
    "unfold": lambda t: t.unfold(1, 2, 2),
    "movedim": lambda t: t.movedim(0, 1),
    "swapaxes": lambda t: t.swapaxes(0, 1),
    "unflatten": lambda t: t.unflatten(1, (2, 2)),
}


#: PyTorch refuses in-place ops on the pieces of split, chunk and unbind while recording (a
#: function that returns several views); we record them as on any view, and compare with
#: PyTorch's result for the same region taken by narrow/select.
SAME_REGION = {
    "split": lambda t: t.narrow(0, 2, 2),
    "chunk": lambda t: t.narrow(1, 0, 2),
    "unbind": lambda t: t.select(1, 2),
}


@pytest.mark.parametrize("name", VIEWS)
def test_in_place_op_on_a_view_matches_torch(name):
    def run(view):
        def modified(x):
            base = x * 1
            view(base).mul_(3)  # rewrites the base's history (CopySlices)
            return base

        return modified

    compare_with_torch(
        run(VIEWS[name]), run(SAME_REGION.get(name, VIEWS[name])), [torch.randn(4, 4, dtype=torch.float64)]
    )


@pytest.mark.parametrize("name", [*VIEWS, "expand"])
def test_view_taken_before_an_in_place_op_on_its_base_matches_torch(name):
    """The view's history is regenerated as a region of the new base; the windows of unfold and
    expand overlap, so their gradients add up."""

    def run(view):
        def read_after_write(x):
            base = x * 1
            part = view(base)
            base.mul_(3)
            return part * 2

        return read_after_write

    views = {**VIEWS, "expand": lambda t: t[:, :1].expand(4, 5)}
    compare_with_torch(
        run(views[name]), run(SAME_REGION.get(name, views[name])), [torch.randn(4, 4, dtype=torch.float64)]
    )


@pytest.mark.parametrize("name", VIEWS)
def test_view_shares_memory_with_its_base(name):
    base = mt.zeros(4, 4)
    view = VIEWS[name](base)
    view.fill_(1.0)
    assert base.sum().item() == view.numel()


# ------------------------------------------------------------------ compositions
@FUZZ
@given(data=st.data(), shape=shapes())
def test_view_as_and_reshape_as_match_torch(data, shape):
    x = data.draw(tensors(shape))
    other = torch.empty(tuple(reversed(shape)))
    compare_with_torch(lambda t: t.view_as(other), lambda t: t.view_as(other), [x])
    compare_with_torch(lambda t: t.reshape_as(mt.tensor(other)), lambda t: t.reshape_as(other), [x])


def test_type_as_casts_with_a_gradient_in_the_source_dtype():
    other = torch.zeros(1, dtype=torch.float32)
    compare_with_torch(
        lambda t: t.type_as(mt.tensor(other)) * 2, lambda t: t.type_as(other) * 2, [torch.ones(3, dtype=torch.float64)]
    )
    assert mt.ones(2).type_as(mt.tensor([1])).dtype == torch.int64


@st.composite
def _moves(draw, ndim: int):
    count = draw(st.integers(0, ndim))
    source = draw(st.permutations(range(ndim)))[:count]
    destination = draw(st.permutations(range(ndim)))[:count]
    if count == 1 and draw(st.booleans()):
        return source[0], destination[0] - ndim
    return tuple(source), tuple(destination)


@FUZZ
@given(data=st.data(), shape=shapes(min_rank=1))
def test_movedim_and_moveaxis_match_torch(data, shape):
    x = data.draw(tensors(shape))
    source, destination = data.draw(_moves(len(shape)))
    compare_with_torch(lambda t: t.movedim(source, destination), lambda t: t.movedim(source, destination), [x])
    compare_with_torch(
        lambda t: mt.moveaxis(t, source, destination), lambda t: torch.moveaxis(t, source, destination), [x]
    )


@FUZZ
@given(data=st.data(), shape=shapes())
def test_swapaxes_and_swapdims_match_torch(data, shape):
    x, dim0, dim1 = data.draw(tensors(shape)), _dim(data, shape), _dim(data, shape)
    compare_with_torch(lambda t: t.swapaxes(dim0, dim1), lambda t: t.swapaxes(dim0, dim1), [x])
    compare_with_torch(lambda t: mt.swapdims(t, dim0, dim1), lambda t: torch.swapdims(t, dim0, dim1), [x])


@FUZZ
@given(data=st.data(), shape=shapes(min_rank=1, max_rank=4))
def test_unflatten_matches_torch(data, shape):
    x, dim = data.draw(tensors(shape)), _dim(data, shape)
    side = shape[dim]
    sizes = data.draw(st.sampled_from([(side,), (1, side), (side, 1), (1, -1)] if side else [(0,), (1, 0)]))
    compare_with_torch(lambda t: t.unflatten(dim, sizes), lambda t: t.unflatten(dim, sizes), [x])
    compare_with_torch(lambda t: mt.unflatten(t, dim, sizes), lambda t: torch.unflatten(t, dim, sizes), [x])


@FUZZ
@given(data=st.data(), pair=broadcast_shapes(2))
def test_broadcast_to_and_broadcast_tensors_match_torch(data, pair):
    a, b = data.draw(tensors(pair[0])), data.draw(tensors(pair[1]))
    target = torch.broadcast_shapes(*pair)
    compare_with_torch(lambda t: t.broadcast_to(target), lambda t: t.broadcast_to(target), [a])
    compare_with_torch(lambda t: mt.broadcast_to(t, target), lambda t: torch.broadcast_to(t, target), [a])
    compare_with_torch(lambda s, t: mt.broadcast_tensors(s, t), lambda s, t: torch.broadcast_tensors(s, t), [a, b])


@pytest.mark.parametrize("name", ["atleast_1d", "atleast_2d", "atleast_3d"])
@pytest.mark.parametrize("shape", [(), (3,), (2, 3), (2, 3, 4), (0,)])
def test_atleast_nd_matches_torch(name, shape):
    x = torch.randn(shape, dtype=torch.float64)
    compare_with_torch(getattr(mt, name), getattr(torch, name), [x])
    compare_with_torch(lambda s, t: getattr(mt, name)([s, t]), lambda s, t: getattr(torch, name)([s, t]), [x, x])


def test_squeeze_takes_a_tuple_of_dims():
    compare_with_torch(
        lambda t: t.squeeze((0, 2)), lambda t: t.squeeze((0, 2)), [torch.randn(1, 3, 1, 1, dtype=torch.float64)]
    )


@pytest.mark.parametrize("name", ["t_", "transpose_"])
def test_in_place_transpose_matches_torch(name):
    def run(x):
        y = x * 2
        y.t_() if name == "t_" else y.transpose_(1, -2)
        return y * torch.arange(6.0, dtype=torch.float64).view(3, 2)

    compare_with_torch(run, run, [torch.randn(2, 3, dtype=torch.float64)])


def test_in_place_transpose_bumps_the_version_so_a_saved_copy_is_caught():
    y = mt.randn(2, 3, requires_grad=True) * 1
    z = y.sin()  # saves y
    y.t_()
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        z.sum().backward()


def test_in_place_transpose_without_grad_changes_the_shape_only():
    x = mt.arange(6.0).view(2, 3)
    assert x.transpose_(0, 1).shape == (3, 2) and x.tolist() == [[0, 3], [1, 4], [2, 5]]
    assert mt.ones(3).t_().shape == (3,)


def _small(*shape, seed=0):
    generator = torch.Generator().manual_seed(seed)
    return mt.tensor(torch.rand(shape, generator=generator, dtype=torch.float64) * 3 - 1.5, requires_grad=True)


GRADCHECKS = {
    "split": lambda t: t.split([1, 3], 1)[1] * 2,
    "chunk": lambda t: mt.stack(t.chunk(2, 1)),
    "unbind": lambda t: t.unbind(0)[2] * t.unbind(0)[1],
    "narrow": lambda t: t.narrow(0, 1, 2),
    "select": lambda t: t.select(1, -1),
    "diagonal": lambda t: t.diagonal(-1),
    "unfold": lambda t: t.unfold(1, 3, 1),
    "movedim": lambda t: t.movedim(1, 0),
    "unflatten": lambda t: t.unflatten(1, (2, 2)),
    "broadcast_tensors": lambda t: mt.broadcast_tensors(t, t[:1])[1],
}


@pytest.mark.parametrize("name", GRADCHECKS)
def test_gradcheck_passes(name):
    assert mt.autograd.gradcheck(GRADCHECKS[name], [_small(3, 4)])


TAKE_TORCH_TENSORS = {
    "narrow": lambda t: mt.narrow(t, 0, 1, 2),
    "split": lambda t: mt.split(t, 2)[0],
    "unbind": lambda t: mt.unbind(t)[1],
    "movedim": lambda t: mt.movedim(t, 0, 1),
    "gather": lambda t: mt.gather(t, 0, torch.tensor([[2, 0, 1]])),
    "masked_fill": lambda t: mt.masked_fill(t, t > 0, 0.0),
    "sort": lambda t: mt.sort(t).values,
    "flip": lambda t: mt.flip(t, 0),
    "trace": lambda t: mt.trace(t),
    "hstack": lambda t: mt.hstack([t, t]),
}


@pytest.mark.parametrize("name", TAKE_TORCH_TENSORS)
def test_ops_take_a_torch_tensor_as_input(name):
    x = torch.randn(3, 3)
    out = TAKE_TORCH_TENSORS[name](x)
    assert isinstance(out, mt.Tensor)
    assert torch.equal(out.torch(), TAKE_TORCH_TENSORS[name](mt.tensor(x)).torch())
