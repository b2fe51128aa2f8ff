"""minitorch_rx.func.vmap against torch.func.vmap in float64: in_dims/out_dims as ints, None and
nested tuples, nesting, composition with grad, randomness, and torch's errors for misuse."""

from __future__ import annotations

import pytest
import torch
import torch.func as tf
import torch.nn.functional as TF

import minitorch_rx as mt
import minitorch_rx.nn.functional as F
from minitorch_rx import func
from tests.test_func import _same_error, assert_same, ours

torch.manual_seed(0)
A = torch.randn(4, 3, dtype=torch.float64)
B = torch.randn(3, 4, dtype=torch.float64)
C = torch.randn(3, dtype=torch.float64)


def test_vmap_matches_torch():
    assert_same(func.vmap(torch.sin)(ours(A)), tf.vmap(torch.sin)(A))


@pytest.mark.parametrize("in_dims", [(0, 1), (1, 0), (-2, -1)])
def test_vmap_in_dims(in_dims):
    x, y = (A.T, B.T) if in_dims == (1, 0) else (A, B)

    def f(a, b):
        return a * b

    assert_same(func.vmap(f, in_dims=in_dims)(ours(x), ours(y)), tf.vmap(f, in_dims=in_dims)(x, y))


def test_vmap_in_dims_none_passes_an_input_whole():
    def f(a, c):
        return a @ c

    assert_same(func.vmap(f, in_dims=(0, None))(ours(A), ours(C)), tf.vmap(f, in_dims=(0, None))(A, C))


def test_vmap_nested_in_dims_follow_the_inputs_structure():
    def f(pair, c):
        return pair[0] * pair[1]["scale"] + c

    inputs = ((A, {"scale": B.T}), C)
    in_dims = ((0, {"scale": 0}), None)
    assert_same(func.vmap(f, in_dims=in_dims)(*ours(inputs)), tf.vmap(f, in_dims=in_dims)(*inputs))


@pytest.mark.parametrize("out_dims", [0, 1, -1, (1, 0)])
def test_vmap_out_dims(out_dims):
    def f(a):
        return a * 2, a.sum() * torch.ones(2, dtype=torch.float64)

    assert_same(func.vmap(f, out_dims=out_dims)(ours(A)), tf.vmap(f, out_dims=out_dims)(A))


def test_vmap_out_dims_none_returns_an_unmapped_output_once():
    def f(a, c):
        return a * 2, c

    in_dims = (0, None)
    assert_same(func.vmap(f, in_dims, (0, None))(ours(A), ours(C)), tf.vmap(f, in_dims, (0, None))(A, C))


def test_vmap_pytree_output():
    def f(a):
        return {"double": a * 2, "parts": [a.sum(), a.max()]}

    assert_same(func.vmap(f)(ours(A)), tf.vmap(f)(A))


def test_vmap_kwargs_pass_whole():
    def f(a, *, scale):
        return a * scale

    assert_same(func.vmap(f)(ours(A), scale=ours(C)), tf.vmap(f)(A, scale=C))


def test_nested_vmap():
    def f(a, b):
        return (a * b).sum()

    outer = func.vmap(func.vmap(f, in_dims=(None, 0)), in_dims=(0, None))
    t_outer = tf.vmap(tf.vmap(f, in_dims=(None, 0)), in_dims=(0, None))
    assert_same(outer(ours(A), ours(B.T)), t_outer(A, B.T))


def test_vmap_of_grad_gives_per_sample_gradients():
    def f(w, x):
        return (w @ x).tanh().sum()

    w = torch.randn(2, 3, dtype=torch.float64)
    assert_same(
        func.vmap(func.grad(f), in_dims=(None, 0))(ours(w), ours(A)), tf.vmap(tf.grad(f), in_dims=(None, 0))(w, A)
    )


def test_grad_of_vmap():
    def f(x):
        return func.vmap(torch.sin)(x).sum()

    assert_same(func.grad(f)(ours(A)), tf.grad(lambda x: tf.vmap(torch.sin)(x).sum())(A))


def test_vmap_of_jacrev_and_hessian():
    def g(x):
        return (x.sin() * x).sum()

    assert_same(func.vmap(func.jacrev(torch.sin))(ours(A)), tf.vmap(tf.jacrev(torch.sin))(A))
    assert_same(func.vmap(func.hessian(g))(ours(A)), tf.vmap(tf.hessian(g))(A))


def test_vmap_chunk_size():
    assert_same(func.vmap(torch.sin, chunk_size=3)(ours(A)), tf.vmap(torch.sin, chunk_size=3)(A))


def test_vmap_of_torch_tensors_runs_on_torch_tensors():
    out = func.vmap(torch.sin)(A)
    assert type(out) is torch.Tensor
    torch.testing.assert_close(out, A.sin())


def test_vmap_records_for_the_engine():
    x = mt.tensor(A, requires_grad=True)
    func.vmap(lambda a: (a * a).sum())(x).sum().backward()
    torch.testing.assert_close(x.grad.torch(), 2 * A)


# ----------------------------------------------------------------------------- randomness
@pytest.mark.parametrize(
    "random_op",
    [lambda a: F.dropout(a, 0.5), lambda a: mt.nn.Dropout()(a), lambda a: a + mt.rand(3), lambda a: mt.randn_like(a)],
)
def test_randomness_error_raises_torchs_error(random_op):
    _same_error(lambda: func.vmap(random_op)(ours(A)), lambda: tf.vmap(lambda a: TF.dropout(a, 0.5))(A))


def test_randomness_error_allows_dropout_in_eval():
    assert_same(func.vmap(lambda a: F.dropout(a, 0.5, training=False))(ours(A)), A)


def test_randomness_same_draws_the_same_numbers_per_sample():
    out = func.vmap(lambda a: F.dropout(a, 0.5), randomness="same")(mt.ones(8, 100))
    assert all(torch.equal(row, out.torch()[0]) for row in out.torch())


def test_randomness_different_draws_new_numbers_per_sample():
    out = func.vmap(lambda a: F.dropout(a, 0.5), randomness="different")(mt.ones(8, 100))
    assert not all(torch.equal(row, out.torch()[0]) for row in out.torch())


def test_randomness_must_be_a_known_flag():
    _same_error(lambda: func.vmap(torch.sin, randomness="maybe"), lambda: tf.vmap(torch.sin, randomness="maybe"))


# ----------------------------------------------------------------------------- misuse
def test_mismatched_mapped_sizes_raise_torchs_error():
    def f(a, b):
        return a + b

    _same_error(lambda: func.vmap(f)(ours(A), ours(B)), lambda: tf.vmap(f)(A, B))


@pytest.mark.parametrize("in_dims", [(0, 0), 2, (0.5,), [0]])
def test_bad_in_dims_raise_torchs_error(in_dims):
    def sin(a):
        return a.sin()

    _same_error(lambda: func.vmap(sin, in_dims=in_dims)(ours(C)), lambda: tf.vmap(sin, in_dims=in_dims)(C))


def test_in_dims_for_a_non_tensor_raise_torchs_error():
    def f(a, n):
        return a * n

    _same_error(lambda: func.vmap(f)(ours(C), 2), lambda: tf.vmap(f)(C, 2))


def test_no_mapped_input_raises_torchs_error():
    _same_error(lambda: func.vmap(torch.sin, in_dims=None)(ours(C)), lambda: tf.vmap(torch.sin, in_dims=None)(C))


def test_no_inputs_raise_torchs_error():
    def f():
        return C

    _same_error(lambda: func.vmap(f)(), lambda: tf.vmap(f)())


def test_a_non_tensor_output_raises_torchs_error():
    def f(a):
        return 1

    _same_error(lambda: func.vmap(f)(ours(C)), lambda: tf.vmap(f)(C))


def test_out_dims_not_matching_the_outputs_raise_torchs_error():
    def f(a):
        return a, a

    _same_error(lambda: func.vmap(f, out_dims=(0, 0, 0))(ours(C)), lambda: tf.vmap(f, out_dims=(0, 0, 0))(C))


def test_a_mapped_output_for_out_dims_none_raises_torchs_error():
    def f(a):
        return a * 2, a

    _same_error(lambda: func.vmap(f, out_dims=(0, None))(ours(A)), lambda: tf.vmap(f, out_dims=(0, None))(A))


def test_an_empty_mapped_dimension_takes_the_batched_call():
    empty = torch.zeros(0, 3, dtype=torch.float64)
    assert_same(func.vmap(lambda a: (a * 2).sum())(ours(empty)), tf.vmap(lambda a: (a * 2).sum())(empty))


def test_chunk_size_zero_raises_torchs_error():
    _same_error(lambda: func.vmap(torch.sin, chunk_size=0), lambda: tf.vmap(torch.sin, chunk_size=0))
