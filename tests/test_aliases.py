"""PyTorch's other names for ops (``torch.divide`` for ``torch.div``) and the integer and index
functions without a gradient: the same values as torch's, and for differentiable aliases the
same float64 gradients."""

from __future__ import annotations

import pytest
import torch

import minitorch_rx as mt

F64 = torch.float64

DIFFERENTIABLE = {
    "absolute": lambda lib, x, y: lib.absolute(x),
    "clip": lambda lib, x, y: lib.clip(x, -0.5, 0.5),
    "divide": lambda lib, x, y: lib.divide(x, y + 3, rounding_mode=None),
    "multiply": lambda lib, x, y: lib.multiply(x, y),
    "subtract": lambda lib, x, y: lib.subtract(x, y, alpha=2),
    "negative": lambda lib, x, y: lib.negative(x),
    "concat": lambda lib, x, y: lib.concat([x, y], dim=1),
    "concatenate": lambda lib, x, y: lib.concatenate([x, y]),
    "row_stack": lambda lib, x, y: lib.row_stack([x, y]),
    "adjoint": lambda lib, x, y: lib.adjoint(x) * 2,
    "ger": lambda lib, x, y: lib.ger(x[0], y[1]),
    "method divide": lambda lib, x, y: x.divide(2) + y.multiply(x).subtract(x).negative().absolute(),
    "method adjoint": lambda lib, x, y: x.adjoint() @ y,
}


@pytest.mark.parametrize("name", list(DIFFERENTIABLE))
def test_an_alias_computes_and_differentiates_as_torchs(name):
    fn = DIFFERENTIABLE[name]
    generator = torch.Generator().manual_seed(0)
    data = [torch.randn(2, 3, dtype=F64, generator=generator) for _ in range(2)]
    ours = [mt.tensor(d, requires_grad=True) for d in data]
    theirs = [d.clone().requires_grad_(True) for d in data]
    out, expected = fn(mt, *ours), fn(torch, *theirs)
    assert isinstance(out, mt.Tensor)
    torch.testing.assert_close(out.torch(), expected.detach())
    weight = torch.randn(expected.shape, dtype=F64, generator=generator)
    (out * mt.tensor(weight)).sum().backward()
    (expected * weight).sum().backward()
    for a, b in zip(ours, theirs):
        if b.grad is None:  # an input the alias does not use
            assert a.grad is None
        else:
            torch.testing.assert_close(a.grad.torch(), b.grad)


@pytest.mark.parametrize("name", list(DIFFERENTIABLE))
def test_an_alias_passes_gradgradcheck(name):
    generator = torch.Generator().manual_seed(1)
    # values away from clip's bounds and abs's kink, where the finite differences hold
    data = [
        (torch.rand(2, 3, dtype=F64, generator=generator) + 0.6) * torch.tensor([1.0, -1.0, 1.0], dtype=F64)
        for _ in range(2)
    ]
    inputs = [mt.tensor(d, requires_grad=True) for d in data]
    fn = DIFFERENTIABLE[name]
    assert mt.autograd.gradgradcheck(lambda x, y: fn(mt, x, y) * fn(mt, x, y), inputs)


def test_torch_functions_by_another_name_record_on_our_engine():
    x = mt.randn(3, requires_grad=True)
    y = torch.divide(x, 2) + torch.clip(x, 0, 1) + torch.absolute(x)
    assert isinstance(y, mt.Tensor) and y.requires_grad
    y.sum().backward()
    assert x.grad is not None


def test_in_place_aliases_change_the_tensor_as_their_originals():
    x, expected = mt.tensor([-2.0, 4.0]), torch.tensor([-2.0, 4.0])
    for ours, theirs in ((x.divide_(2), expected.divide_(2)), (x.clip_(-0.5, 1), expected.clip_(-0.5, 1))):
        assert ours is x
        torch.testing.assert_close(x.torch(), theirs)
    mt.clip_(x, 0, 0.5)
    torch.testing.assert_close(x.torch(), torch.tensor([0.0, 0.5]))


def test_integer_and_index_functions_match_torch():
    values = torch.tensor([1, 4, 4, 6])
    x = mt.tensor(values)
    cases = [
        (mt.bincount(x, minlength=8), torch.bincount(values, minlength=8)),
        (x.bincount(weights=mt.tensor([0.5, 1.0, 1.0, 2.0])), values.bincount(torch.tensor([0.5, 1.0, 1.0, 2.0]))),
        (mt.gcd(x, mt.tensor(6)), torch.gcd(values, torch.tensor(6))),
        (x.lcm(mt.tensor(4)), values.lcm(torch.tensor(4))),
        (mt.tril_indices(3, 4, 1), torch.tril_indices(3, 4, 1)),
        (mt.triu_indices(4, 3, -1, dtype=mt.int32), torch.triu_indices(4, 3, -1, dtype=torch.int32)),
    ]
    for ours, theirs in cases:
        assert isinstance(ours, mt.Tensor) and not ours.requires_grad
        assert ours.dtype == theirs.dtype
        torch.testing.assert_close(ours.torch(), theirs)


def test_dtype_questions_match_torch():
    x = mt.tensor([1, 2])
    assert mt.result_type(x, 1.5) == torch.result_type(torch.tensor([1, 2]), 1.5) == torch.float32
    assert mt.promote_types(mt.int32, mt.float16) == torch.float16
    assert mt.can_cast(mt.float32, mt.int32) is False
    assert mt.is_complex(x) is False and mt.tensor([1j]).is_complex() is True
    assert mt.is_nonzero(mt.tensor([2.0])) is True
    with pytest.raises(RuntimeError, match="Boolean value of Tensor with more than one value is ambiguous"):
        mt.is_nonzero(x)


def test_asarray_shares_memory_as_torchs():
    x = mt.tensor([1.0, 2.0], requires_grad=True)
    assert mt.asarray(x) is x
    data = torch.tensor([1.0, 2.0])
    shared = mt.asarray(data)
    data[0] = 5.0
    assert shared[0].item() == 5.0
    copied = mt.asarray(data, copy=True)
    data[0] = 7.0
    assert copied[0].item() == 5.0
    made = mt.asarray([[1, 2]], dtype=mt.float64, requires_grad=True)
    assert made.dtype == torch.float64 and made.requires_grad and made.shape == (1, 2)
    with pytest.raises(RuntimeError, match="adjoint"):
        mt.adjoint(mt.tensor([1.0, 2.0]))
