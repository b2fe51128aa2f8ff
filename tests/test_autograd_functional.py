"""``mt.autograd.functional`` (issue 15) against ``torch.autograd.functional``, value by value."""

from __future__ import annotations

import pytest
import torch
import torch.autograd.functional as TAF

import minitorch_rx as mt

AF = mt.autograd.functional
F64 = torch.float64


def _same(ours, theirs):
    if isinstance(theirs, tuple):
        assert isinstance(ours, tuple) and len(ours) == len(theirs)
        for a, b in zip(ours, theirs):
            _same(a, b)
    else:
        torch.testing.assert_close(ours.torch(), theirs)


def _data(seed=0, n=3):
    generator = torch.Generator().manual_seed(seed)
    return [torch.randn(n, dtype=F64, generator=generator) for _ in range(3)]


def scalar(x, y):
    return (x.exp() * y).sum() + (x * x * y.sin()).sum()


def vector(x):
    return x.exp() * x.tanh()


@pytest.mark.parametrize("create_graph", [False, True])
def test_jacobian_and_hessian_match_torch(create_graph):
    x, y, _ = _data()
    X, Y = mt.tensor(x), mt.tensor(y)
    _same(AF.jacobian(vector, X, create_graph=create_graph), TAF.jacobian(vector, x, create_graph=create_graph))
    both = lambda a, b: (a * b, a.sin())  # noqa: E731
    _same(AF.jacobian(both, (X, Y)), TAF.jacobian(both, (x, y)))
    _same(AF.hessian(scalar, (X, Y)), TAF.hessian(scalar, (x, y)))
    _same(AF.hessian(lambda a: scalar(a, Y), X), TAF.hessian(lambda a: scalar(a, y), x))


def test_vector_products_match_torch():
    x, y, v = _data(1)
    X, Y, V = mt.tensor(x), mt.tensor(y), mt.tensor(v)
    _same(AF.vjp(vector, X, V), TAF.vjp(vector, x, v))
    _same(AF.jvp(vector, X, V), TAF.jvp(vector, x, v))
    _same(AF.hvp(lambda a: scalar(a, Y), X, V), TAF.hvp(lambda a: scalar(a, y), x, v))
    _same(AF.vhp(lambda a: scalar(a, Y), X, V), TAF.vhp(lambda a: scalar(a, y), x, v))
    _same(AF.vhp(scalar, (X, Y), (V, V)), TAF.vhp(scalar, (x, y), (v, v)))


def test_strict_mode_refuses_an_output_independent_of_an_input():
    x, y, _ = _data(2)
    with pytest.raises(RuntimeError, match="independent of input 1. This is not allowed in strict mode."):
        AF.vjp(lambda a, b: a * 2, (mt.tensor(x), mt.tensor(y)), mt.tensor(x), strict=True)
    _, (gx, gy) = AF.vjp(lambda a, b: a * 2, (mt.tensor(x), mt.tensor(y)), mt.tensor(x))
    assert gy.tolist() == [0.0, 0.0, 0.0]


def test_create_graph_results_can_be_differentiated_again():
    x, _, v = _data(3)
    X = mt.tensor(x, requires_grad=True)
    _, hv = AF.hvp(lambda a: (a**4).sum(), X, mt.tensor(v), create_graph=True)
    hv.sum().backward()
    torch.testing.assert_close(X.grad.torch(), 24 * x * v)
