"""Indexed assignment and indexing keep their index as it was (issue 13.6).

``y[idx] = v`` (tensor index, boolean mask or Python list) followed by an in-place change of
``idx`` before backward sent gradients to the wrong elements; PyTorch raises its version error
for a tensor index, and a Python list is converted when the assignment runs. Random programs of
index assignments, indexing, index mutations and other in-place ops run in torch and here: both
must raise the version error, or both give the same gradients.
"""

from __future__ import annotations

import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st
from strategies import FUZZ

import minitorch_rx as mt

VERSION_ERROR = "modified by an inplace operation"


def make_index(lib, kind: str, seed: int):
    """An index of ``kind`` for a (5, 3) tensor, the same values in torch and here."""
    rng = torch.Generator().manual_seed(seed)
    rows = torch.randint(0, 5, (3,), generator=rng)
    if kind == "int tensor":
        return lib.tensor(rows.tolist())
    if kind == "mask":
        return lib.tensor((torch.rand(5, generator=rng) > 0.5).tolist())
    if kind == "2-D mask":
        return lib.tensor((torch.rand(5, 3, generator=rng) > 0.5).tolist())
    if kind == "list":
        return rows.tolist()
    if kind == "tuple":
        return (lib.tensor(rows.tolist()), lib.tensor(torch.randint(0, 3, (3,), generator=rng).tolist()))
    if kind == "slice":
        return slice(1, 4)
    return 2  # "int"


def mutate(lib, index, seed: int) -> None:
    """Change ``index`` in place (a list's items, or the first of a tuple's tensors)."""
    rng = torch.Generator().manual_seed(seed)
    if isinstance(index, tuple):
        index = index[0]
    if isinstance(index, list):
        index[0] = (index[0] + 1) % 5
    elif lib is torch and isinstance(index, torch.Tensor) or isinstance(index, mt.Tensor):
        flat = index.view(-1) if lib is torch else index.reshape(-1)
        if index.dtype == torch.bool:
            index[(0,) * index.dim()] = not bool(flat[0])
        else:
            index[0] = int(torch.randint(0, 5, (), generator=rng))


INDEX_KINDS = ["int tensor", "mask", "2-D mask", "list", "tuple", "slice", "int"]
STEP = st.one_of(
    st.tuples(
        st.just("assign"), st.sampled_from(INDEX_KINDS), st.integers(0, 9), st.sampled_from(["scalar", "tensor"])
    ),
    st.tuples(st.just("read"), st.sampled_from(INDEX_KINDS), st.integers(0, 9), st.just(None)),
    st.tuples(st.just("mutate index"), st.integers(0, 7), st.integers(0, 9), st.just(None)),
    st.tuples(st.just("scale in place"), st.just(None), st.just(0), st.just(None)),
    st.tuples(st.just("scale"), st.just(None), st.just(0), st.just(None)),
)


def run_program(lib, steps):
    """Run ``steps``; return the leaves' gradients, or the backward error."""
    x = lib.tensor(torch.arange(15.0, dtype=torch.float64).view(5, 3).tolist(), dtype=torch.float64, requires_grad=True)
    v = lib.tensor([[0.5, -1.0, 2.0]], dtype=torch.float64, requires_grad=True)
    y = x * 1.5
    indices, reads = [], []
    for op, kind, seed, value in steps:
        if op in ("assign", "read"):
            index = make_index(lib, kind, seed)
            indices.append(index)
            if op == "read":
                reads.append(y[index] * (seed + 1))
                continue
            rows = y[index].shape[-1:] == (3,)  # whole rows: a row of v broadcasts, else a scalar of it
            if value == "scalar":
                y[index] = float(seed)
            else:
                y[index] = (v * (seed + 1)).reshape(3) if rows else v.sum() * (seed + 1)
        elif op == "mutate index":
            if indices:
                mutate(lib, indices[kind % len(indices)], seed)
        elif op == "scale in place":
            y.mul_(1.25)
        else:
            y = y * 0.75
    loss = (y * y).sum()
    for read in reads:
        loss = loss + read.sum()
    try:
        loss.backward()
    except RuntimeError as error:
        return error
    return [None if t.grad is None else (t.grad if lib is torch else t.grad.torch()) for t in (x, v)]


@FUZZ
@given(steps=st.lists(STEP, min_size=1, max_size=6))
def test_random_programs_of_index_ops_match_torchs_errors_and_gradients(steps):
    expected = run_program(torch, steps)
    actual = run_program(mt, steps)
    if isinstance(expected, Exception):
        assert isinstance(actual, Exception) and VERSION_ERROR in str(actual), (steps, expected, actual)
        assert VERSION_ERROR in str(expected)
        return
    assert not isinstance(actual, Exception), (steps, actual)
    for ours, theirs in zip(actual, expected, strict=True):
        assert (ours is None) == (theirs is None), steps
        if theirs is not None:
            torch.testing.assert_close(ours, theirs)


@pytest.mark.parametrize("kind", ["int tensor", "mask", "2-D mask", "tuple"])
def test_changing_an_assignment_index_in_place_before_backward_raises(kind):
    for lib in (torch, mt):
        x = lib.ones(5, 3, dtype=torch.float64, requires_grad=True)
        y = x * 2
        index = make_index(lib, kind, 0)
        y[index] = 0.0
        mutate(lib, index, 1)
        with pytest.raises(RuntimeError, match=VERSION_ERROR):
            y.sum().backward()


def test_a_python_list_index_changed_after_the_assignment_does_not_change_the_gradient():
    grads = []
    for lib in (torch, mt):
        x = lib.ones(5, 3, dtype=torch.float64, requires_grad=True)
        y = x * 2
        rows = [0, 2]
        y[rows] = 0.0
        rows[0] = 4
        y.sum().backward()
        grads.append(x.grad if lib is torch else x.grad.torch())
    torch.testing.assert_close(grads[1], grads[0])
    assert grads[1][:, 0].tolist() == [0.0, 2.0, 0.0, 2.0, 2.0]
