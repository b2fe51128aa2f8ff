"""mm, bmm, einsum, outer, addmm, baddbmm, cdist and the norms against torch.autograd in float64
(generated shapes where they apply), plus gradcheck on each."""

from __future__ import annotations

import math

import pytest
import torch
from helpers import compare_with_torch
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import FUZZ, broadcast_shapes, shapes, tensors

import minitorch_rx as mt

FEW = settings(FUZZ, max_examples=15)
sides = st.integers(0, 4)


def _rand(*shape):
    return torch.randn(*shape, dtype=torch.float64)


@FEW
@given(data=st.data(), n=sides, k=sides, m=sides)
def test_mm_matches_torch(data, n, k, m):
    a, b = data.draw(tensors((n, k))), data.draw(tensors((k, m)))
    compare_with_torch(mt.mm, torch.mm, [a, b])
    compare_with_torch(lambda x, y: x.mm(y), lambda x, y: x.mm(y), [a, b])


@FEW
@given(data=st.data(), batch=sides, n=sides, k=sides, m=sides)
def test_bmm_matches_torch(data, batch, n, k, m):
    a, b = data.draw(tensors((batch, n, k))), data.draw(tensors((batch, k, m)))
    compare_with_torch(mt.bmm, torch.bmm, [a, b])
    compare_with_torch(lambda x, y: x.bmm(y), lambda x, y: x.bmm(y), [a, b])


@FEW
@given(data=st.data(), n=sides, m=sides)
def test_outer_matches_torch(data, n, m):
    a, b = data.draw(tensors((n,))), data.draw(tensors((m,)))
    compare_with_torch(mt.outer, torch.outer, [a, b])
    compare_with_torch(lambda x, y: x.outer(y), lambda x, y: x.outer(y), [a, b])


@pytest.mark.parametrize("beta, alpha", [(1, 1), (0.5, 2.0), (0, 1.5)])
@FEW
@given(data=st.data(), n=sides, k=sides, m=sides, input_rank=st.integers(0, 2))
def test_addmm_and_baddbmm_match_torch(beta, alpha, data, n, k, m, input_rank):
    input_shape = (n, m)[2 - input_rank :]
    x, a, b = data.draw(tensors(input_shape)), data.draw(tensors((n, k))), data.draw(tensors((k, m)))
    compare_with_torch(
        lambda i, p, q: mt.addmm(i, p, q, beta=beta, alpha=alpha),
        lambda i, p, q: torch.addmm(i, p, q, beta=beta, alpha=alpha),
        [x, a, b],
    )
    compare_with_torch(
        lambda i, p, q: i.baddbmm(p.unsqueeze(0), q.unsqueeze(0), beta=beta, alpha=alpha),
        lambda i, p, q: i.baddbmm(p.unsqueeze(0), q.unsqueeze(0), beta=beta, alpha=alpha),
        [x, a, b],
    )


def test_addmm_in_place_matches_torch():
    x, a, b = _rand(2, 3), _rand(2, 4), _rand(4, 3)
    compare_with_torch(lambda i, p, q: (i * 1).addmm_(p, q), lambda i, p, q: (i * 1).addmm_(p, q), [x, a, b])


def test_products_gradcheck():
    a, b, c = (mt.tensor(_rand(*s), requires_grad=True) for s in [(2, 3), (3, 4), (2, 4)])
    assert mt.autograd.gradcheck(mt.mm, [a, b])
    assert mt.autograd.gradcheck(lambda i, p, q: mt.addmm(i, p, q, beta=0.5, alpha=2.0), [c, a, b])
    batched = [mt.tensor(_rand(*s), requires_grad=True) for s in [(2, 2, 3), (2, 3, 2)]]
    assert mt.autograd.gradcheck(mt.bmm, batched)
    vectors = [mt.tensor(_rand(s), requires_grad=True) for s in (3, 2)]
    assert mt.autograd.gradcheck(mt.outer, vectors)


EINSUM_CASES = [
    ("ij,jk->ik", [(2, 3), (3, 4)]),
    ("ij,jk", [(2, 3), (3, 4)]),
    ("bij,bjk->bik", [(2, 2, 3), (2, 3, 4)]),
    ("i,i->", [(3,), (3,)]),
    ("i,j->ij", [(3,), (2,)]),
    ("ii->i", [(3, 3)]),
    ("ii", [(3, 3)]),
    ("iij->ij", [(2, 2, 3)]),
    ("ij->", [(2, 3)]),
    ("ij->ji", [(2, 3)]),
    ("ij->i", [(2, 3)]),
    ("ijk,ik->j", [(2, 3, 4), (2, 4)]),
    ("...ij,...jk->...ik", [(2, 1, 2, 3), (4, 3, 2)]),
    ("...ij,jk", [(5, 2, 3), (3, 4)]),
    ("b...,b->...", [(2, 3, 4), (2,)]),
    ("Aij,Ajk->Aik", [(1, 2, 3), (4, 3, 2)]),
    ("i,i,i->i", [(3,), (3,), (3,)]),
    ("ij,ij->ij", [(2, 3), (2, 3)]),
    ("ij,kl->ijkl", [(0, 2), (2, 1)]),
]


@pytest.mark.parametrize("equation, operand_shapes", EINSUM_CASES, ids=[e for e, _ in EINSUM_CASES])
def test_einsum_matches_torch_and_passes_gradcheck(equation, operand_shapes):
    operands = [_rand(*s) for s in operand_shapes]
    compare_with_torch(lambda *ts: mt.einsum(equation, *ts), lambda *ts: torch.einsum(equation, *ts), operands)
    compare_with_torch(lambda *ts: mt.einsum(equation, list(ts)), lambda *ts: torch.einsum(equation, *ts), operands)
    leaves = [mt.tensor(o, requires_grad=True) for o in operands]
    assert mt.autograd.gradcheck(lambda *ts: mt.einsum(equation, *ts), leaves)


@FEW
@given(data=st.data(), pair=broadcast_shapes(min_rank=0, max_rank=4))
def test_einsum_elementwise_product_with_broadcast_ellipses_matches_torch(data, pair):
    a, b = (data.draw(tensors(s)) for s in pair)
    compare_with_torch(
        lambda x, y: mt.einsum("...,...->...", x, y), lambda x, y: torch.einsum("...,...->...", x, y), [a, b]
    )


ORDS = [2, 1, 3, 0.5, 0, math.inf, -math.inf, -1.5]


@pytest.mark.parametrize("ord", ORDS)
@FEW
@given(data=st.data(), keepdim=st.booleans())
def test_vector_norm_matches_torch(ord, data, keepdim):
    shape = data.draw(shapes(min_side=1))
    x = data.draw(tensors(shape, margin=0.1))
    dim = data.draw(st.one_of(st.none(), st.integers(-max(len(shape), 1), max(len(shape), 1) - 1)))
    compare_with_torch(
        lambda t: mt.linalg.vector_norm(t, ord, dim, keepdim),
        lambda t: torch.linalg.vector_norm(t, ord, dim, keepdim),
        [x],
    )


@pytest.mark.parametrize("p", ["fro", 2, 1, 3, math.inf])
@FEW
@given(data=st.data(), keepdim=st.booleans())
def test_norm_method_and_function_match_torch(p, data, keepdim):
    shape = data.draw(shapes(min_rank=1, min_side=1))
    x = data.draw(tensors(shape, margin=0.1))
    dim = data.draw(st.one_of(st.none(), st.integers(-len(shape), len(shape) - 1)))
    compare_with_torch(lambda t: t.norm(p, dim, keepdim), lambda t: t.norm(p, dim, keepdim), [x])
    compare_with_torch(lambda t: mt.norm(t, p, dim, keepdim), lambda t: torch.norm(t, p, dim, keepdim), [x])
    compare_with_torch(lambda t: t.norm(), lambda t: t.norm(), [x])


def test_norm_at_zero_has_a_zero_gradient_as_torch():
    x = torch.zeros(2, 3, dtype=torch.float64)
    for p in (2, 3, 1.5, math.inf):
        compare_with_torch(lambda t, p=p: t.norm(p), lambda t, p=p: t.norm(p), [x])
    compare_with_torch(lambda t: t.norm(dim=1), lambda t: t.norm(dim=1), [torch.tensor([[0.0, 0.0], [3.0, 4.0]])])


@pytest.mark.parametrize("ord", ["fro", 1, -1, math.inf, -math.inf])
@FEW
@given(data=st.data(), keepdim=st.booleans())
def test_matrix_norm_matches_torch(ord, data, keepdim):
    shape = data.draw(shapes(min_rank=2, max_rank=4, min_side=1))
    x = data.draw(tensors(shape, margin=0.1))
    compare_with_torch(
        lambda t: mt.linalg.matrix_norm(t, ord, keepdim=keepdim),
        lambda t: torch.linalg.matrix_norm(t, ord, keepdim=keepdim),
        [x],
    )
    compare_with_torch(lambda t: mt.linalg.norm(t, ord, (0, -1)), lambda t: torch.linalg.norm(t, ord, (0, -1)), [x])


@pytest.mark.parametrize("ord", [2, 1, 3, 0.5, math.inf])
def test_vector_norm_gradcheck(ord):
    x = mt.tensor([[0.3, -1.2, 2.0], [1.1, 0.4, -0.6]], dtype=torch.float64, requires_grad=True)
    assert mt.autograd.gradcheck(lambda t: mt.linalg.vector_norm(t, ord, 1), [x])
    assert mt.autograd.gradcheck(lambda t: mt.linalg.matrix_norm(t, "fro"), [x])


@pytest.mark.parametrize("p", [2.0, 1.0, 3.0, math.inf])
@FEW
@given(data=st.data(), batch=st.sampled_from([(), (2,)]), rows=st.integers(1, 4), cols=st.integers(1, 4))
def test_cdist_matches_torch(p, data, batch, rows, cols):
    x1 = data.draw(tensors((*batch, rows, 3)))
    x2 = data.draw(tensors((*batch, cols, 3)))
    compare_with_torch(lambda a, b: mt.cdist(a, b, p), lambda a, b: torch.cdist(a, b, p), [x1, x2])


def test_cdist_gradcheck():
    x1, x2 = (mt.tensor(_rand(*s), requires_grad=True) for s in [(3, 2), (4, 2)])
    assert mt.autograd.gradcheck(mt.cdist, [x1, x2])


def test_cosine_similarity_of_mixed_dtypes_is_computed_in_the_common_one():
    """As torch's: a float tensor with an integer one (it failed in vector_norm), float32 with float64."""
    a, b = torch.tensor([[1.0, 0.5]]), torch.tensor([[1, 2]])
    for x, y in ((a, b), (b, a), (a, a.double())):
        ours, theirs = mt.cosine_similarity(mt.tensor(x), mt.tensor(y)).torch(), torch.cosine_similarity(x, y)
        assert ours.dtype == theirs.dtype and torch.allclose(ours, theirs)
