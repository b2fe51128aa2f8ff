"""NumPy's tolerance forms that torch still takes, without a warning: ``linalg.pinv(A, rcond,
hermitian=False)`` (``rtol=rcond``, ``atol=0``), ``pinverse(A, rcond)`` and
``linalg.matrix_rank(A, tol, hermitian=False)`` (``atol=tol``, ``rtol=0``): the same values as
torch's, gradients to second order against torch.autograd in float64, and torch's errors."""

from __future__ import annotations

import warnings

import pytest
import torch

import minitorch_rx as mt

_SEED = iter(range(10**6))


def _rand(*shape):
    return torch.randn(*shape, dtype=torch.float64, generator=torch.Generator().manual_seed(next(_SEED)))


def _rank_two(n=5):
    """An n x n matrix of rank 2: its other singular values are rounding (about 1e-16)."""
    return _rand(n, 2) @ _rand(2, n)


def _symmetric(n=5):
    a = _rand(n, n)
    return a + a.mT


def _on(lib, value):
    """``value`` as ``lib``'s: an mt.Tensor for minitorch_rx, torch's tensor (a copy) for torch."""
    if isinstance(value, torch.Tensor):
        return mt.tensor(value) if lib is mt else value.clone()
    return value


# (name, the call on a library, its arguments): torch runs it with torch tensors, we with ours.
# Full-rank inputs: with rcond 0 a rank-deficient matrix's pseudo-inverse and gradients are huge.
CALLS = [
    ("pinv, rcond 0", lambda L, A: L.linalg.pinv(A, 0.0), [_rand(5, 5)]),
    ("pinv, rcond cuts a singular value", lambda L, A: L.linalg.pinv(A, 0.3), [_rand(4, 3)]),
    ("pinv, int rcond", lambda L, A: L.linalg.pinv(A, 1), [_rand(4, 3)]),
    ("pinv, rcond keyword", lambda L, A: L.linalg.pinv(A, rcond=0.0), [_rand(3, 4)]),
    ("pinv, hermitian positional", lambda L, A: L.linalg.pinv(A, 0.0, True), [_symmetric()]),
    ("pinv, hermitian keyword", lambda L, A: L.linalg.pinv(A, rcond=0.0, hermitian=True), [_symmetric()]),
    ("pinv, rcond tensor", lambda L, A, r: L.linalg.pinv(A, r), [_rand(4, 3), torch.tensor(0.3, dtype=torch.float64)]),
    (
        "pinv, rcond per batch",
        lambda L, A, r: L.linalg.pinv(A, r),
        [_rand(2, 5, 5), torch.tensor([0.0, 0.5], dtype=torch.float64)],
    ),
    (
        "pinv, rcond broadcast to a batch of batches",
        lambda L, A, r: L.linalg.pinv(A, r),
        [_rand(2, 5, 5), torch.tensor([[0.0], [0.5]])],
    ),
    (
        "pinv, rtol keyword broadcast to a batch of batches",
        lambda L, A, r: L.linalg.pinv(A, rtol=r),
        [_rand(2, 5, 5), torch.tensor([[0.0], [0.5]])],
    ),
    ("pinverse, rcond", lambda L, A: L.pinverse(A, 0.3), [_rand(4, 3)]),
    ("pinverse, rcond keyword", lambda L, A: L.pinverse(A, rcond=0.3), [_rand(4, 3)]),
    ("pinverse, bool rcond", lambda L, A: L.pinverse(A, True), [_rand(4, 3)]),
    ("pinverse, 0-dim tensor rcond", lambda L, A: L.pinverse(A, _on(L, torch.tensor(0.3))), [_rand(4, 3)]),
    ("Tensor.pinverse, rcond", lambda L, A: A.pinverse(0.3), [_rand(4, 3)]),
]

RANKS = [
    ("tol 0 counts every nonzero singular value", lambda L, A: L.linalg.matrix_rank(A, 0.0)),
    ("negative tol", lambda L, A: L.linalg.matrix_rank(A, -1.0)),
    ("tol keyword", lambda L, A: L.linalg.matrix_rank(A, tol=0.0)),
    ("tol 1", lambda L, A: L.linalg.matrix_rank(A, 1)),
    ("hermitian positional", lambda L, A: L.linalg.matrix_rank(A + A.mT, 0.0, True)),
    ("hermitian keyword", lambda L, A: L.linalg.matrix_rank(A + A.mT, tol=0.0, hermitian=True)),
    ("tol tensor", lambda L, A: L.linalg.matrix_rank(A, _on(L, torch.tensor(0.0, dtype=torch.float64)))),
    ("tol per batch", lambda L, A: L.linalg.matrix_rank(A.expand(2, 5, 5), _on(L, torch.tensor([0.0, 3.0])))),
]


@pytest.mark.parametrize("name, call, inputs", CALLS, ids=[c[0] for c in CALLS])
def test_pinv_forms_match_torch_to_second_order(name, call, inputs):
    a = inputs[0]
    rest = inputs[1:]
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # torch takes these forms without a warning: so do we
        theirs_in = a.clone().requires_grad_()
        theirs = call(torch, theirs_in, *rest)
        ours_in = mt.tensor(a, requires_grad=True)
        ours = call(mt, ours_in, *(_on(mt, r) for r in rest))
    assert ours.dtype == theirs.dtype and torch.equal(ours.torch(), theirs.detach())  # torch's own kernel
    v, w = _rand(*theirs.shape), _rand(*a.shape)
    (grad_t,) = torch.autograd.grad(theirs, theirs_in, v, create_graph=True)
    (grad_m,) = mt.autograd.grad(ours, ours_in, mt.tensor(v), create_graph=True)
    torch.testing.assert_close(grad_m.torch(), grad_t.detach(), atol=1e-9, rtol=1e-7)
    (second_t,) = torch.autograd.grad(grad_t, theirs_in, w)
    (second_m,) = mt.autograd.grad(grad_m, ours_in, mt.tensor(w))
    torch.testing.assert_close(second_m.torch(), second_t, atol=1e-8, rtol=1e-6)


def test_pinv_rcond_passes_gradcheck_and_gradgradcheck_where_the_rank_holds():
    """``pinv(a @ b.T, rcond)``: rcond cuts the rounding-level singular values, the rank stays 2."""
    a, b = (mt.tensor(_rand(5, 2), requires_grad=True), mt.tensor(_rand(4, 2) + 1, requires_grad=True))
    fn = lambda a, b: mt.linalg.pinv(a @ b.mT, 1e-8)  # noqa: E731
    assert mt.autograd.gradcheck(fn, [a, b])
    assert mt.autograd.gradgradcheck(fn, [a, b])


def test_rcond_is_the_relative_tolerance_not_the_default():
    """What the forms compute: rcond 0 keeps the rounding-level singular values that the default
    tolerance cuts, and tol 0 counts them where ``atol=0`` alone does not."""
    A = mt.tensor(_rank_two())
    assert not torch.allclose(mt.linalg.pinv(A, 0.0).torch(), mt.linalg.pinv(A).torch())
    assert torch.equal(mt.linalg.pinv(A, 0.0).torch(), mt.linalg.pinv(A, atol=0.0, rtol=0.0).torch())
    assert mt.linalg.matrix_rank(A, 0.0).item() == 5 and mt.linalg.matrix_rank(A, atol=0.0).item() == 2


@pytest.mark.parametrize("name, call", RANKS, ids=[r[0] for r in RANKS])
def test_matrix_rank_tol_forms_match_torch(name, call):
    a = _rank_two()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        theirs = call(torch, a.clone())
        ours = call(mt, mt.tensor(a))
    assert ours.dtype == theirs.dtype and torch.equal(ours.torch(), theirs)


def _raised(fn):
    with pytest.raises(Exception) as info:
        fn()
    return info.type, str(info.value)


BAD = [
    ("pinv, rcond None", lambda L, A: L.linalg.pinv(A, None)),
    ("pinv, rcond str", lambda L, A: L.linalg.pinv(A, "x")),
    ("pinv, rcond with atol", lambda L, A: L.linalg.pinv(A, 0.1, atol=0.1)),
    ("pinv, int hermitian", lambda L, A: L.linalg.pinv(A, 0.1, 1)),
    ("pinv, hermitian of a non-square matrix", lambda L, A: L.linalg.pinv(A[:, :3], 0.1, True)),
    ("pinv, rcond requires grad", lambda L, A: L.linalg.pinv(A, _requiring_grad(L))),
    ("pinv, atol requires grad", lambda L, A: L.linalg.pinv(A, atol=_requiring_grad(L))),
    ("pinverse, rcond None", lambda L, A: L.pinverse(A, None)),
    ("pinverse, rcond of two elements", lambda L, A: L.pinverse(A, _on(L, torch.tensor([0.1, 0.2])))),
    ("pinverse, rcond requires grad", lambda L, A: L.pinverse(A, _requiring_grad(L))),
    ("pinverse, three arguments", lambda L, A: L.pinverse(A, 0.1, True)),
    ("pinverse, not a tensor", lambda L, A: L.pinverse("x")),
    ("pinverse, 1-D", lambda L, A: L.pinverse(A[0])),
    ("matrix_rank, tol None", lambda L, A: L.linalg.matrix_rank(A, None)),
    ("matrix_rank, tol with atol", lambda L, A: L.linalg.matrix_rank(A, 0.5, atol=0.1)),
    ("matrix_rank, tol str", lambda L, A: L.linalg.matrix_rank(A, "x")),
]


def _requiring_grad(lib):
    value = torch.tensor(0.1, dtype=torch.float64)
    return mt.tensor(value, requires_grad=True) if lib is mt else value.requires_grad_()


@pytest.mark.parametrize("name, call", BAD, ids=[b[0] for b in BAD])
def test_bad_tolerances_raise_torchs_errors(name, call):
    a = _rand(4, 5)
    assert _raised(lambda: call(mt, mt.tensor(a))) == _raised(lambda: call(torch, a.clone()))


@pytest.mark.parametrize(
    "call",
    [
        lambda L, A: L.linalg.pinv(A, rcond=0.1, rtol=0.1),
        lambda L, A: L.linalg.matrix_rank(A, tol=0.5, rtol=0.1),
    ],
    ids=["pinv", "matrix_rank"],
)
def test_a_keyword_tolerance_with_rtol_is_torchs_type_error(call):
    """torch's message repeats how each argument was passed; ours names a keyword ``rcond``/``tol``
    as positional, the rest of the message is torch's."""
    a = _rand(4, 5)
    (kind, ours), (their_kind, theirs) = _raised(lambda: call(mt, mt.tensor(a))), _raised(lambda: call(torch, a))
    assert kind is their_kind is TypeError
    assert ours.split(" - got")[0] == theirs.split(" - got")[0]
    assert ours.split("but expected one of:")[1] == theirs.split("but expected one of:")[1]


def test_tolerances_that_require_grad_are_taken_without_grad_mode():
    a = _rand(4, 5)
    with torch.no_grad():
        theirs = torch.linalg.pinv(a, _requiring_grad(torch))
    with mt.no_grad():
        ours = mt.linalg.pinv(mt.tensor(a), _requiring_grad(mt))
    assert torch.equal(ours.torch(), theirs)
