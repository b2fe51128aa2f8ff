"""Rearranging copies (repeat, tile, repeat_interleave, flip, roll, rot90, the numpy-style stacks)
and diagonals/triangles (diag, diag_embed, trace, tril, triu) against torch.autograd in float64
on generated shapes (rank 0-5, size-0 and size-1 dims), as methods and mt functions; gradcheck on each."""

from __future__ import annotations

import pytest
import torch
from helpers import compare_with_torch
from hypothesis import given
from hypothesis import strategies as st
from strategies import FUZZ, shapes, tensors

import minitorch_rx as mt


def _dim(data, shape) -> int:
    size = max(len(shape), 1)
    return data.draw(st.integers(-size, size - 1))


@FUZZ
@given(data=st.data(), shape=shapes(max_rank=4))
def test_repeat_matches_torch(data, shape):
    x = data.draw(tensors(shape))
    sizes = tuple(data.draw(st.lists(st.integers(0, 3), min_size=len(shape), max_size=len(shape) + 1)))
    compare_with_torch(lambda t: t.repeat(sizes), lambda t: t.repeat(sizes), [x])
    if sizes:
        compare_with_torch(lambda t: t.repeat(*sizes), lambda t: t.repeat(*sizes), [x])


@FUZZ
@given(data=st.data(), shape=shapes(max_rank=4))
def test_tile_matches_torch(data, shape):
    x = data.draw(tensors(shape))
    dims = tuple(data.draw(st.lists(st.integers(0, 3), max_size=5)))
    compare_with_torch(lambda t: t.tile(dims), lambda t: t.tile(dims), [x])
    compare_with_torch(lambda t: mt.tile(t, dims), lambda t: torch.tile(t, dims), [x])


@FUZZ
@given(data=st.data(), shape=shapes(), repeats=st.integers(0, 3))
def test_repeat_interleave_by_an_int_matches_torch(data, shape, repeats):
    x = data.draw(tensors(shape))
    compare_with_torch(lambda t: t.repeat_interleave(repeats), lambda t: t.repeat_interleave(repeats), [x])
    if shape:
        dim = _dim(data, shape)
        compare_with_torch(
            lambda t: mt.repeat_interleave(t, repeats, dim), lambda t: torch.repeat_interleave(t, repeats, dim), [x]
        )


@FUZZ
@given(data=st.data(), shape=shapes(min_rank=1))
def test_repeat_interleave_by_a_tensor_matches_torch(data, shape):
    x, dim = data.draw(tensors(shape)), _dim(data, shape)
    repeats = torch.tensor(data.draw(st.lists(st.integers(0, 3), min_size=shape[dim], max_size=shape[dim])))
    repeats = repeats.long()
    compare_with_torch(
        lambda t: t.repeat_interleave(mt.tensor(repeats), dim), lambda t: t.repeat_interleave(repeats, dim), [x]
    )
    total = int(repeats.sum())
    compare_with_torch(
        lambda t: mt.repeat_interleave(t, repeats, dim=dim, output_size=total),
        lambda t: torch.repeat_interleave(t, repeats, dim=dim, output_size=total),
        [x],
    )


def test_repeat_interleave_of_counts_alone_matches_torch():
    counts = torch.tensor([2, 0, 3])
    assert mt.repeat_interleave(mt.tensor(counts)).torch().equal(torch.repeat_interleave(counts))


@FUZZ
@given(data=st.data(), shape=shapes())
def test_flip_matches_torch(data, shape):
    x = data.draw(tensors(shape))
    dims = tuple(data.draw(st.lists(st.integers(0, max(len(shape), 1) - 1), unique=True, max_size=len(shape))))
    compare_with_torch(lambda t: t.flip(dims), lambda t: t.flip(dims), [x])
    compare_with_torch(lambda t: mt.flip(t, dims), lambda t: torch.flip(t, dims), [x])
    if dims:
        compare_with_torch(lambda t: t.flip(*dims), lambda t: t.flip(*dims), [x])


@FUZZ
@given(data=st.data(), shape=shapes(min_rank=2))
def test_fliplr_and_flipud_match_torch(data, shape):
    x = data.draw(tensors(shape))
    compare_with_torch(lambda t: t.fliplr(), lambda t: t.fliplr(), [x])
    compare_with_torch(mt.flipud, torch.flipud, [x])


@FUZZ
@given(data=st.data(), shape=shapes(), shift=st.integers(-4, 4))
def test_roll_matches_torch(data, shape, shift):
    x = data.draw(tensors(shape))
    compare_with_torch(lambda t: t.roll(shift), lambda t: t.roll(shift), [x])
    if not shape:
        return  # torch names no dim of a 0-dim tensor
    dims = tuple(data.draw(st.lists(st.integers(-len(shape), len(shape) - 1), min_size=1, max_size=3)))
    shifts = tuple(data.draw(st.lists(st.integers(-4, 4), min_size=len(dims), max_size=len(dims))))
    compare_with_torch(lambda t: mt.roll(t, shifts, dims), lambda t: torch.roll(t, shifts, dims), [x])


@FUZZ
@given(data=st.data(), shape=shapes(min_rank=2), k=st.integers(-5, 5))
def test_rot90_matches_torch(data, shape, k):
    x = data.draw(tensors(shape))
    dims = tuple(data.draw(st.permutations(range(len(shape))))[:2])
    compare_with_torch(lambda t: t.rot90(k, dims), lambda t: t.rot90(k, dims), [x])
    compare_with_torch(lambda t: mt.rot90(t, k), lambda t: torch.rot90(t, k), [x])


STACKS = ["hstack", "vstack", "dstack", "column_stack"]


@pytest.mark.parametrize("name", STACKS)
@pytest.mark.parametrize("shape", [(), (3,), (2, 3), (2, 3, 2), (0,)])
def test_numpy_style_stacks_match_torch(name, shape):
    a, b = torch.randn(shape, dtype=torch.float64), torch.randn(shape, dtype=torch.float64)
    compare_with_torch(
        lambda s, t: getattr(mt, name)([s, t * 2]), lambda s, t: getattr(torch, name)([s, t * 2]), [a, b]
    )


@FUZZ
@given(data=st.data(), shape=shapes(min_rank=2), diagonal=st.integers(-3, 3))
def test_tril_and_triu_match_torch(data, shape, diagonal):
    x = data.draw(tensors(shape))
    compare_with_torch(lambda t: t.tril(diagonal), lambda t: t.tril(diagonal), [x])
    compare_with_torch(lambda t: mt.triu(t, diagonal), lambda t: torch.triu(t, diagonal), [x])


@pytest.mark.parametrize("name", ["tril_", "triu_"])
def test_tril_and_triu_in_place_match_torch(name):
    def run(x):
        y = x * 1
        getattr(y, name)(1)
        return y

    compare_with_torch(run, run, [torch.randn(3, 4, dtype=torch.float64)])


@FUZZ
@given(data=st.data(), shape=shapes(min_rank=1, max_rank=2), diagonal=st.integers(-3, 3))
def test_diag_matches_torch(data, shape, diagonal):
    x = data.draw(tensors(shape))
    compare_with_torch(lambda t: t.diag(diagonal), lambda t: t.diag(diagonal), [x])
    compare_with_torch(lambda t: mt.diag(t, diagonal), lambda t: torch.diag(t, diagonal), [x])


@FUZZ
@given(data=st.data(), shape=shapes(min_rank=1, max_rank=4), offset=st.integers(-2, 2))
def test_diag_embed_matches_torch(data, shape, offset):
    x = data.draw(tensors(shape))
    dim1, dim2 = data.draw(st.permutations(range(len(shape) + 1)))[:2]
    compare_with_torch(lambda t: t.diag_embed(offset, dim1, dim2), lambda t: t.diag_embed(offset, dim1, dim2), [x])
    compare_with_torch(lambda t: mt.diag_embed(t), lambda t: torch.diag_embed(t), [x])


@FUZZ
@given(data=st.data(), shape=shapes(min_rank=2, max_rank=2))
def test_trace_matches_torch(data, shape):
    x = data.draw(tensors(shape))
    compare_with_torch(lambda t: t.trace(), lambda t: t.trace(), [x])
    compare_with_torch(mt.trace, torch.trace, [x])


def _small(*shape, seed=0):
    generator = torch.Generator().manual_seed(seed)
    return mt.tensor(torch.rand(shape, generator=generator, dtype=torch.float64) * 3 - 1.5, requires_grad=True)


GRADCHECKS = {
    "repeat": lambda t: t.repeat(2, 1, 2),
    "tile": lambda t: t.tile((2,)),
    "repeat_interleave": lambda t: t.repeat_interleave(mt.tensor([2, 0, 1, 3]), dim=1),
    "flip": lambda t: t.flip(0, 1) * t,
    "roll": lambda t: t.roll((1, -2), (0, 1)) * t,
    "rot90": lambda t: t.rot90(3),
    "hstack": lambda t: mt.hstack([t, t * t]),
    "column_stack": lambda t: mt.column_stack([t[:, 0], t]),
    "tril": lambda t: t.tril(1),
    "triu": lambda t: t.triu(-1),
    "diag": lambda t: t.diag(1),
    "diag_of_a_vector": lambda t: t[0].diag(-1),
    "diag_embed": lambda t: t.diag_embed(1),
    "trace": lambda t: t.trace(),
}


@pytest.mark.parametrize("name", GRADCHECKS)
def test_gradcheck_passes(name):
    assert mt.autograd.gradcheck(GRADCHECKS[name], [_small(3, 4)])
