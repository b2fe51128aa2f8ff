"""matmul (1-D, 2-D, batched, broadcast batch dims, size-0 dims) and dot against torch.autograd
in float64, as operator, method and mt function; gradcheck on each."""

from __future__ import annotations

import pytest
import torch
from helpers import compare_with_torch
from hypothesis import given
from hypothesis import strategies as st
from strategies import FUZZ, broadcast_shapes, tensors

import minitorch_rx as mt

SIDES = st.integers(0, 3)


@st.composite
def _matmul_shapes(draw):
    """Shapes for ``a @ b``: either operand may be 1-D; matrices carry broadcastable batch dims."""
    batch_a, batch_b = draw(broadcast_shapes(max_rank=3))
    m, k, n = draw(SIDES), draw(SIDES), draw(SIDES)
    a_is_vector, b_is_vector = draw(st.booleans()), draw(st.booleans())
    shape_a = (k,) if a_is_vector else (*batch_a, m, k)
    shape_b = (k,) if b_is_vector else (*batch_b, k, n)
    return shape_a, shape_b


@FUZZ
@given(data=st.data(), pair=_matmul_shapes())
def test_matmul_operator_matches_torch(data, pair):
    a, b = data.draw(tensors(pair[0])), data.draw(tensors(pair[1]))
    compare_with_torch(lambda x, y: x @ y, lambda x, y: x @ y, [a, b])


@FUZZ
@given(data=st.data(), pair=_matmul_shapes())
def test_matmul_function_and_method_match_torch(data, pair):
    a, b = data.draw(tensors(pair[0])), data.draw(tensors(pair[1]))
    compare_with_torch(mt.matmul, torch.matmul, [a, b])
    compare_with_torch(lambda x, y: x.matmul(y), lambda x, y: x.matmul(y), [a, b])


@pytest.mark.parametrize(
    ("shape_a", "shape_b"),
    [((3,), (3,)), ((3,), (3, 2)), ((2, 3), (3,)), ((4, 2, 3), (3,)), ((3,), (4, 3, 2)), ((5, 2, 3), (3, 2))],
)
def test_matmul_of_vectors_and_batches_matches_torch(shape_a, shape_b):
    generator = torch.Generator().manual_seed(0)
    a = torch.randn(shape_a, dtype=torch.float64, generator=generator)
    b = torch.randn(shape_b, dtype=torch.float64, generator=generator)
    compare_with_torch(mt.matmul, torch.matmul, [a, b])


def test_matmul_with_one_operand_that_needs_no_grad_matches_torch():
    a = torch.randn(4, 2, 3, dtype=torch.float64)
    weight = torch.randn(3, 5, dtype=torch.float64)
    compare_with_torch(lambda x: x @ mt.tensor(weight), lambda x: x @ weight, [a])
    left = weight.T.contiguous()
    compare_with_torch(lambda x: mt.tensor(left) @ x.transpose(1, 2), lambda x: left @ x.transpose(1, 2), [a])


def test_matmul_of_a_0_dim_tensor_raises():
    with pytest.raises(RuntimeError, match="both arguments to matmul need to be at least 1D, but they are 0D and 1D"):
        mt.tensor(2.0) @ mt.ones(3)


@FUZZ
@given(data=st.data(), size=st.integers(0, 5))
def test_dot_matches_torch(data, size):
    a, b = data.draw(tensors((size,))), data.draw(tensors((size,)))
    compare_with_torch(mt.dot, torch.dot, [a, b])
    compare_with_torch(lambda x, y: x.dot(y), lambda x, y: x.dot(y), [a, b])


def _small(*shape, seed=0):
    generator = torch.Generator().manual_seed(seed)
    return mt.tensor(torch.rand(shape, generator=generator, dtype=torch.float64) * 3 - 1.5, requires_grad=True)


GRADCHECKS = {
    "vector_vector": ((3,), (3,)),
    "vector_matrix": ((3,), (3, 2)),
    "matrix_vector": ((2, 3), (3,)),
    "matrix_matrix": ((2, 3), (3, 2)),
    "batched": ((2, 2, 3), (2, 3, 2)),
    "broadcast_batch": ((2, 1, 2, 3), (3, 3, 2)),
    "batch_by_matrix": ((2, 2, 3), (3, 2)),
}


@pytest.mark.parametrize("name", GRADCHECKS)
def test_matmul_gradcheck_passes(name):
    shape_a, shape_b = GRADCHECKS[name]
    assert mt.autograd.gradcheck(mt.matmul, [_small(*shape_a), _small(*shape_b, seed=1)])


def test_dot_gradcheck_passes():
    assert mt.autograd.gradcheck(mt.dot, [_small(4), _small(4, seed=1)])
