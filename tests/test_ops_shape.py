"""Shape ops, indexing, cat and stack against torch.autograd in float64 on generated shapes
(rank 0-5, size-1 and size-0 dims), as methods and mt functions; gradcheck on each."""

from __future__ import annotations

import math

import pytest
import torch
from helpers import compare_with_torch
from hypothesis import assume, given
from hypothesis import strategies as st
from strategies import FUZZ, MAX_RANK, shapes, tensors

import minitorch_rx as mt


@st.composite
def _rearranged(draw, shape):
    """A shape with ``shape``'s number of elements: its sizes shuffled, perhaps one as -1."""
    target = list(draw(st.permutations(list(shape))))
    if target and 0 not in target and draw(st.booleans()):
        target[draw(st.integers(0, len(target) - 1))] = -1
    return tuple(target)


@FUZZ
@given(data=st.data(), shape=shapes())
def test_reshape_matches_torch(data, shape):
    x, target = data.draw(tensors(shape)), data.draw(_rearranged(shape))
    compare_with_torch(lambda t: t.reshape(target), lambda t: t.reshape(target), [x])
    compare_with_torch(lambda t: mt.reshape(t, target), lambda t: torch.reshape(t, target), [x])
    if target:  # torch takes no empty varargs
        compare_with_torch(lambda t: t.reshape(*target), lambda t: t.reshape(*target), [x])


@FUZZ
@given(data=st.data(), shape=shapes())
def test_view_matches_torch(data, shape):
    x, target = data.draw(tensors(shape)), data.draw(_rearranged(shape))
    compare_with_torch(lambda t: t.view(target), lambda t: t.view(target), [x])
    if target:
        compare_with_torch(lambda t: mt.view(t, *target), lambda t: t.view(*target), [x])


def test_view_of_a_non_contiguous_tensor_raises_like_torch():
    with pytest.raises(RuntimeError, match="view size is not compatible"):
        mt.ones(2, 3).T.view(6)


@FUZZ
@given(data=st.data(), shape=shapes())
def test_flatten_matches_torch(data, shape):
    x = data.draw(tensors(shape))
    size = max(len(shape), 1)
    start = data.draw(st.integers(-size, size - 1))
    end = data.draw(st.integers(start % size, size - 1))
    if data.draw(st.booleans()):
        end -= size
    compare_with_torch(lambda t: t.flatten(start, end), lambda t: t.flatten(start, end), [x])
    compare_with_torch(lambda t: mt.flatten(t, start_dim=start), lambda t: torch.flatten(t, start_dim=start), [x])


def test_flatten_with_start_after_end_raises():
    with pytest.raises(RuntimeError, match="flatten\\(\\) has invalid args: start_dim cannot come after end_dim"):
        mt.ones(2, 3, 4).flatten(2, 1)


@FUZZ
@given(data=st.data(), shape=shapes(max_side=2))
def test_squeeze_matches_torch(data, shape):
    x = data.draw(tensors(shape))
    size = max(len(shape), 1)
    dim = data.draw(
        st.one_of(
            st.none(),
            st.integers(-size, size - 1),
            st.lists(st.integers(0, size - 1), unique=True, max_size=size).map(tuple),
        )
    )
    squeeze = (lambda t: t.squeeze()) if dim is None else (lambda t: t.squeeze(dim))
    compare_with_torch(squeeze, squeeze, [x])
    if dim is not None:
        compare_with_torch(lambda t: mt.squeeze(t, dim), lambda t: torch.squeeze(t, dim), [x])


@FUZZ
@given(data=st.data(), shape=shapes(max_rank=MAX_RANK - 1))
def test_unsqueeze_matches_torch(data, shape):
    x = data.draw(tensors(shape))
    dim = data.draw(st.integers(-len(shape) - 1, len(shape)))
    compare_with_torch(lambda t: t.unsqueeze(dim), lambda t: t.unsqueeze(dim), [x])
    compare_with_torch(lambda t: mt.unsqueeze(t, dim), lambda t: torch.unsqueeze(t, dim), [x])


@FUZZ
@given(data=st.data(), shape=shapes())
def test_transpose_matches_torch(data, shape):
    x = data.draw(tensors(shape))
    size = max(len(shape), 1)
    dim0, dim1 = data.draw(st.integers(-size, size - 1)), data.draw(st.integers(-size, size - 1))
    compare_with_torch(lambda t: t.transpose(dim0, dim1), lambda t: t.transpose(dim0, dim1), [x])
    compare_with_torch(lambda t: mt.transpose(t, dim0, dim1), lambda t: torch.transpose(t, dim0, dim1), [x])


@FUZZ
@given(data=st.data(), shape=shapes())
def test_permute_matches_torch(data, shape):
    x = data.draw(tensors(shape))
    order = data.draw(st.permutations(list(range(len(shape)))))
    order = tuple(d - len(shape) if data.draw(st.booleans()) else d for d in order)
    compare_with_torch(lambda t: t.permute(order), lambda t: t.permute(order), [x])
    compare_with_torch(lambda t: mt.permute(t, order), lambda t: torch.permute(t, order), [x])
    if order:  # torch takes no empty varargs
        compare_with_torch(lambda t: t.permute(*order), lambda t: t.permute(*order), [x])


def test_permute_with_the_wrong_number_of_dims_raises():
    with pytest.raises(RuntimeError, match="input.dim\\(\\) = 2 is not equal to len\\(dims\\) = 3"):
        mt.ones(2, 3).permute(0, 1, 2)


@st.composite
def _expansion(draw):
    """(input shape, target sizes): the input drops leading dims and has size 1 where the target
    grows; the target says -1 for some dims it keeps."""
    target = draw(shapes())
    kept = draw(st.integers(0, len(target)))
    shape = tuple(size if draw(st.booleans()) else 1 for size in target[len(target) - kept :])
    sizes = list(target)
    for i, size in enumerate(shape, start=len(target) - kept):
        if size == target[i] and draw(st.booleans()):
            sizes[i] = -1
    return shape, tuple(sizes)


@FUZZ
@given(data=st.data(), case=_expansion())
def test_expand_matches_torch(data, case):
    shape, sizes = case
    x = data.draw(tensors(shape))
    compare_with_torch(lambda t: t.expand(sizes), lambda t: t.expand(sizes), [x])
    compare_with_torch(lambda t: mt.expand(t, sizes), lambda t: t.expand(sizes), [x])
    if sizes:  # torch takes no empty varargs
        compare_with_torch(lambda t: t.expand(*sizes), lambda t: t.expand(*sizes), [x])


@FUZZ
@given(data=st.data(), case=_expansion())
def test_expand_as_matches_torch(data, case):
    shape, sizes = case
    target = tuple(size if size != -1 else shape[i - len(sizes) + len(shape)] for i, size in enumerate(sizes))
    x, other = data.draw(tensors(shape)), torch.zeros(target, dtype=torch.float64)
    compare_with_torch(lambda t: t.expand_as(mt.tensor(other)), lambda t: t.expand_as(other), [x])


@FUZZ
@given(data=st.data(), shape=shapes(min_rank=2))
def test_contiguous_matches_torch(data, shape):
    x = data.draw(tensors(shape))
    compare_with_torch(lambda t: t.transpose(0, 1).contiguous(), lambda t: t.transpose(0, 1).contiguous(), [x])
    compare_with_torch(lambda t: mt.contiguous(t.transpose(0, 1)), lambda t: t.transpose(0, 1).contiguous(), [x])


def test_contiguous_of_a_contiguous_tensor_is_itself():
    x = mt.ones(2, 3, requires_grad=True)
    assert x.contiguous() is x


@FUZZ
@given(data=st.data(), shape=shapes(min_rank=2, max_rank=2))
def test_T_and_t_transpose_a_matrix_like_torch(data, shape):
    x = data.draw(tensors(shape))
    compare_with_torch(lambda t: t.T, lambda t: t.T, [x])
    compare_with_torch(lambda t: t.t(), lambda t: t.t(), [x])


@pytest.mark.parametrize("shape", [(), (3,)])
def test_t_of_fewer_than_two_dims_is_the_identity(shape):
    x = torch.arange(math.prod(shape), dtype=torch.float64).reshape(shape)
    compare_with_torch(lambda t: t.t(), lambda t: t.t(), [x])


def test_t_of_three_dims_raises():
    with pytest.raises(RuntimeError, match="t\\(\\) expects a tensor with <= 2 dimensions, but self is 3D"):
        mt.ones(2, 3, 4).t()


# ------------------------------------------------------------------ indexing
@st.composite
def _basic_index(draw, shape):
    """An index of ints, positive-step slices, None and at most one Ellipsis that is valid for ``shape``."""

    def item(size):
        choices = [
            st.builds(
                slice,
                st.none() | st.integers(-size - 1, size + 1),
                st.none() | st.integers(-size - 1, size + 1),
                st.none() | st.integers(1, 3),
            )
        ]
        if size:
            choices.append(st.integers(-size, size - 1))
        return draw(st.one_of(*choices))

    leading = draw(st.integers(0, len(shape)))
    use_ellipsis = draw(st.booleans())
    trailing = draw(st.integers(0, len(shape) - leading)) if use_ellipsis else 0
    items = [item(size) for size in shape[:leading]]
    if use_ellipsis:
        items.append(Ellipsis)
        items += [item(size) for size in shape[len(shape) - trailing :]]
    for _ in range(draw(st.integers(0, 2))):
        items.insert(draw(st.integers(0, len(items))), None)
    if len(items) == 1 and draw(st.booleans()):
        return items[0]
    return tuple(items)


@FUZZ
@given(data=st.data(), shape=shapes())
def test_basic_indexing_matches_torch(data, shape):
    x, index = data.draw(tensors(shape)), data.draw(_basic_index(shape))
    compare_with_torch(lambda t: t[index], lambda t: t[index], [x])


@FUZZ
@given(data=st.data(), shape=shapes(min_rank=1))
def test_integer_tensor_index_with_repeats_matches_torch(data, shape):
    dim = data.draw(st.integers(0, len(shape) - 1))
    assume(shape[dim] > 0)
    index_shape = data.draw(shapes(max_rank=2))
    seed = data.draw(st.integers(0, 2**31 - 1))
    generator = torch.Generator().manual_seed(seed)
    index = torch.randint(-shape[dim], shape[dim], index_shape, generator=generator)
    x = data.draw(tensors(shape))
    key = (slice(None),) * dim + (index,)
    ours = (*key[:-1], mt.tensor(index))
    compare_with_torch(lambda t: t[ours], lambda t: t[key], [x])


def test_two_index_tensors_broadcast_together_like_torch():
    x = torch.arange(24, dtype=torch.float64).reshape(2, 3, 4)
    rows, cols = torch.tensor([[0], [1]]), torch.tensor([3, 3, 0])
    compare_with_torch(lambda t: t[rows, :, cols], lambda t: t[rows, :, cols], [x])


def test_list_index_matches_torch():
    x = torch.arange(12, dtype=torch.float64).reshape(3, 4)
    compare_with_torch(lambda t: t[[0, 2, 2], 1:], lambda t: t[[0, 2, 2], 1:], [x])


def test_mixed_basic_and_advanced_index_matches_torch():
    x = torch.arange(24, dtype=torch.float64).reshape(2, 3, 4)
    compare_with_torch(lambda t: t[None, 1:, [0, 2, 0], ...], lambda t: t[None, 1:, [0, 2, 0], ...], [x])


@FUZZ
@given(data=st.data(), shape=shapes())
def test_boolean_mask_of_leading_dims_matches_torch(data, shape):
    masked = data.draw(st.integers(0, len(shape)))
    x = data.draw(tensors(shape))
    mask = data.draw(tensors(shape[:masked])) > 0
    compare_with_torch(lambda t: t[mt.tensor(mask)], lambda t: t[mask], [x])


def test_boolean_mask_computed_from_the_tensor_matches_torch():
    x = torch.tensor([[1.0, -2.0], [-3.0, 4.0]], dtype=torch.float64)
    compare_with_torch(lambda t: t[t > 0], lambda t: t[t > 0], [x])


def test_boolean_mask_along_a_later_dim_matches_torch():
    x = torch.arange(24, dtype=torch.float64).reshape(2, 3, 4)
    mask = torch.tensor([True, False, True])
    compare_with_torch(lambda t: t[:, mask], lambda t: t[:, mask], [x])


def test_index_with_a_0_dim_integer_tensor_matches_torch():
    x = torch.arange(6, dtype=torch.float64).reshape(2, 3)
    compare_with_torch(lambda t: t[mt.tensor(1)], lambda t: t[torch.tensor(1)], [x])


# ------------------------------------------------------------------ cat and stack
@st.composite
def _cat_case(draw):
    shape = draw(shapes(min_rank=1))
    dim = draw(st.integers(-len(shape), len(shape) - 1))
    parts = []
    for _ in range(draw(st.integers(1, 3))):
        sizes = list(shape)
        sizes[dim] = draw(st.integers(0, 3))
        parts.append(draw(tensors(tuple(sizes))))
    return parts, dim


@FUZZ
@given(case=_cat_case())
def test_cat_matches_torch(case):
    parts, dim = case
    compare_with_torch(lambda *ts: mt.cat(list(ts), dim), lambda *ts: torch.cat(list(ts), dim), parts)
    compare_with_torch(lambda *ts: mt.cat(ts, dim=dim), lambda *ts: torch.cat(ts, dim=dim), parts)


@pytest.mark.parametrize("dim", [0, 2])
def test_cat_skips_a_1_dim_empty_tensor_like_torch(dim):
    x = torch.arange(24, dtype=torch.float64).reshape(2, 3, 4)
    empty = torch.zeros(0, dtype=torch.float64)
    compare_with_torch(lambda a, e: mt.cat([e, a], dim), lambda a, e: torch.cat([e, a], dim), [x, empty])


def test_cat_of_float32_and_float64_gives_each_part_its_own_gradient_dtype():
    a = torch.ones(2, 3, dtype=torch.float32)
    b = torch.ones(1, 3, dtype=torch.float64)
    compare_with_torch(lambda x, y: mt.cat([x, y]), lambda x, y: torch.cat([x, y]), [a, b])


def test_cat_with_a_tensor_that_needs_no_grad_matches_torch():
    a = torch.ones(2, 3, dtype=torch.float64)
    constant = torch.zeros(2, 1, dtype=torch.float64)
    compare_with_torch(lambda x: mt.cat([x, mt.tensor(constant)], 1), lambda x: torch.cat([x, constant], 1), [a])


def test_cat_of_an_empty_list_raises():
    with pytest.raises(ValueError, match="expected a non-empty list of Tensors"):
        mt.cat([])
    with pytest.raises(RuntimeError, match="^stack expects a non-empty TensorList$"):
        mt.stack([])


def test_cat_of_0_dim_tensors_raises_like_torch():
    with pytest.raises(RuntimeError, match="zero-dimensional tensor \\(at position 0\\) cannot be concatenated"):
        mt.cat([mt.tensor(1.0), mt.tensor(2.0)])


@FUZZ
@given(data=st.data(), shape=shapes(max_rank=MAX_RANK - 1), count=st.integers(1, 3))
def test_stack_matches_torch(data, shape, count):
    parts = [data.draw(tensors(shape)) for _ in range(count)]
    dim = data.draw(st.integers(-len(shape) - 1, len(shape)))
    compare_with_torch(lambda *ts: mt.stack(list(ts), dim), lambda *ts: torch.stack(list(ts), dim), parts)


def test_stack_of_float32_and_float64_gives_each_part_its_own_gradient_dtype():
    a = torch.ones(2, 3, dtype=torch.float32)
    b = torch.ones(2, 3, dtype=torch.float64)
    compare_with_torch(lambda x, y: mt.stack([x, y], 1), lambda x, y: torch.stack([x, y], 1), [a, b])


def test_stack_of_a_tensor_instead_of_a_list_raises():
    with pytest.raises(TypeError, match="argument 'tensors' must be a tuple or list of Tensors"):
        mt.stack(mt.ones(2, 3))


@pytest.mark.parametrize("cast", ["float", "double"])
def test_dtype_casts_send_the_gradient_back_in_the_source_dtype(cast):
    x = torch.tensor([[1.0, 2.0], [3.0, 4.0]], dtype=torch.float32 if cast == "double" else torch.float64)
    compare_with_torch(lambda t: getattr(t, cast)() * 2, lambda t: getattr(t, cast)() * 2, [x], atol=1e-6)


def _small(*shape, seed=0):
    generator = torch.Generator().manual_seed(seed)
    return mt.tensor(torch.rand(shape, generator=generator, dtype=torch.float64) * 3 - 1.5, requires_grad=True)


GRADCHECKS = {
    "reshape": lambda t: t.reshape(3, -1),
    "view": lambda t: t.view(6),
    "flatten": lambda t: t.flatten(),
    "squeeze": lambda t: t.unsqueeze(0).squeeze(0),
    "unsqueeze": lambda t: t.unsqueeze(1),
    "transpose": lambda t: t.transpose(0, 1),
    "permute": lambda t: t.permute(1, 0),
    "expand": lambda t: t[:, :1].expand(2, 4),
    "contiguous": lambda t: t.T.contiguous(),
    "T": lambda t: t.T,
    "basic_index": lambda t: t[None, -1, ::2],
    "tensor_index": lambda t: t[:, mt.tensor([2, 0, 2])],
    "mask": lambda t: t[mt.tensor([[True, False, True], [False, True, True]])],
    "cat": lambda t: mt.cat([t, t * 2], 1),
    "stack": lambda t: mt.stack([t, t * 2], -1),
}


@pytest.mark.parametrize("name", GRADCHECKS)
def test_gradcheck_passes(name):
    assert mt.autograd.gradcheck(GRADCHECKS[name], [_small(2, 3)])
