"""``nn.Embedding``, ``F.embedding`` and ``F.one_hot`` against PyTorch's, in float64."""

from __future__ import annotations

import pytest
import torch

import minitorch_rx as mt
import minitorch_rx.nn as nn
import minitorch_rx.nn.functional as F

F64 = torch.float64


def _pair(**kwargs) -> tuple[nn.Embedding, torch.nn.Embedding]:
    theirs = torch.nn.Embedding(7, 3, **kwargs).double()
    ours = nn.Embedding(7, 3, **kwargs).double()
    ours.load_state_dict(theirs.state_dict())
    return ours, theirs


@pytest.mark.parametrize(
    "kwargs",
    [
        {},
        {"padding_idx": 2},
        {"padding_idx": -1},
        {"scale_grad_by_freq": True},
        {"padding_idx": 0, "scale_grad_by_freq": True},
    ],
)
def test_embedding_matches_torch_output_and_weight_grad(kwargs):
    ours, theirs = _pair(**kwargs)
    ids = torch.tensor([[1, 2, 3, 0], [3, 3, 6, 2]])
    out, expected = ours(mt.tensor(ids)), theirs(ids)
    torch.testing.assert_close(out.torch(), expected.detach())
    grad = torch.randn(expected.shape, dtype=F64)
    out.backward(grad)
    expected.backward(grad)
    torch.testing.assert_close(ours.weight.grad.torch(), theirs.weight.grad)


def test_padding_row_starts_at_zero_and_gets_no_gradient():
    emb = nn.Embedding(5, 4, padding_idx=1)
    assert emb.weight.torch()[1].abs().sum() == 0
    emb(mt.tensor([1, 1, 3])).sum().backward()
    assert emb.weight.grad.torch()[1].abs().sum() == 0
    assert emb.weight.grad.torch()[3].tolist() == [1.0] * 4


def test_embedding_of_any_index_shape():
    weight = torch.randn(6, 2, dtype=F64)
    for shape in [(), (5,), (2, 3, 4)]:
        ids = torch.randint(0, 6, shape)
        out = F.embedding(mt.tensor(ids), mt.tensor(weight))
        torch.testing.assert_close(out.torch(), torch.nn.functional.embedding(ids, weight))


def test_max_norm_renormalizes_looked_up_rows_in_place_as_torch():
    ours, theirs = _pair(max_norm=1.0)
    ids = torch.tensor([0, 4, 4])
    torch.testing.assert_close(ours(mt.tensor(ids)).torch(), theirs(ids).detach())
    torch.testing.assert_close(ours.weight.torch(), theirs.weight.detach())


def test_from_pretrained_shares_and_freezes():
    table = torch.randn(4, 3, dtype=F64)
    frozen = nn.Embedding.from_pretrained(table)
    assert not frozen.weight.requires_grad
    assert frozen(mt.tensor([2])).torch()[0].tolist() == table[2].tolist()
    assert nn.Embedding.from_pretrained(mt.tensor(table), freeze=False).weight.requires_grad


def test_embedding_gradcheck():
    weight = mt.randn(5, 3, dtype=mt.float64, requires_grad=True)
    ids = mt.tensor([[0, 4], [4, 2]])
    assert mt.autograd.gradcheck(lambda w: F.embedding(ids, w), (weight,))


def test_embedding_gradient_is_itself_differentiable():
    """The gradient op's own backward is a lookup: check it against torch's double backward."""
    from minitorch_rx.ops.embedding import EmbeddingDense

    ids = torch.tensor([[0, 4], [4, 2]])
    grad = torch.randn(2, 2, 3, dtype=F64, requires_grad=True)
    weight = torch.randn(5, 3, dtype=F64, requires_grad=True)
    (expected,) = torch.autograd.grad(torch.nn.functional.embedding(ids, weight), weight, grad, create_graph=True)
    our_grad = mt.tensor(grad.detach(), requires_grad=True)
    ours = EmbeddingDense.apply(our_grad, ids, 5, None, False)
    torch.testing.assert_close(ours.torch(), expected.detach())
    upstream = torch.randn(5, 3, dtype=F64)
    (theirs,) = torch.autograd.grad(expected, grad, upstream)
    (mine,) = mt.autograd.grad(ours, [our_grad], upstream)
    torch.testing.assert_close(mine.torch(), theirs)


def test_one_hot_matches_torch():
    ids = torch.tensor([[0, 3], [2, 1]])
    assert F.one_hot(mt.tensor(ids)).tolist() == torch.nn.functional.one_hot(ids).tolist()
    assert F.one_hot(mt.tensor(ids), 6).tolist() == torch.nn.functional.one_hot(ids, 6).tolist()
    assert F.one_hot(mt.tensor(ids)).dtype == torch.int64


def test_token_id_out_of_range_names_the_id_and_vocabulary_size():
    emb = nn.Embedding(10, 2)
    with pytest.raises(IndexError, match=r"token id 12 .* vocabulary of size 10"):
        emb(mt.tensor([3, 12]))
    with pytest.raises(IndexError, match=r"token id -1 .* vocabulary of size 10"):
        emb(mt.tensor([-1]))


def test_float_ids_are_refused():
    with pytest.raises(RuntimeError, match="Long, Int"):
        nn.Embedding(10, 2)(mt.tensor([1.0]))
