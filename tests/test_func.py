"""minitorch_rx.func's grad, vjp, jvp, jacrev, jacfwd and hessian against torch.func in float64:
values, shapes and pytree structure, compositions, and torch's errors for misuse."""

from __future__ import annotations

import pytest
import torch
import torch.func as tf
from torch.utils._pytree import tree_flatten, tree_map

import minitorch_rx as mt
from minitorch_rx import func

torch.manual_seed(0)
X = torch.randn(3, dtype=torch.float64)
W = torch.randn(2, 3, dtype=torch.float64)


def ours(tree):
    return tree_map(lambda t: mt.tensor(t) if isinstance(t, torch.Tensor) else t, tree)


def assert_same(mine, theirs):
    flat_mine, spec_mine = tree_flatten(mine)
    flat_theirs, spec_theirs = tree_flatten(theirs)
    assert spec_mine == spec_theirs
    for a, b in zip(flat_mine, flat_theirs):
        assert isinstance(a, mt.Tensor)
        assert a.shape == b.shape
        torch.testing.assert_close(a.torch(), b)


def scalar(x):
    return (x.sin() * x).sum()


def vector(x):
    return x.sin() * x.exp()


def two_args(w, x):
    return (w @ x).tanh()


def test_grad_matches_torch():
    assert_same(func.grad(scalar)(ours(X)), tf.grad(scalar)(X))


def test_grad_and_value_matches_torch():
    assert_same(func.grad_and_value(scalar)(ours(X)), tf.grad_and_value(scalar)(X))


@pytest.mark.parametrize("argnums", [0, 1, (0, 1), (1, 0), -1])
def test_grad_argnums(argnums):
    def f(w, x):
        return two_args(w, x).sum()

    assert_same(func.grad(f, argnums=argnums)(ours(W), ours(X)), tf.grad(f, argnums=argnums)(W, X))


def test_grad_has_aux():
    def f(x):
        y = x * x
        return y.sum(), {"y": y, "x": (x,)}

    g, aux = func.grad(f, has_aux=True)(ours(X))
    assert_same((g, aux), tf.grad(f, has_aux=True)(X))
    assert not aux["y"].requires_grad


def test_grad_of_a_pytree_of_tensors():
    params = {"w": W, "b": (X[:2], [X])}

    def f(p):
        return (p["w"].sum() * p["b"][0]).sum() + (p["b"][1][0] ** 2).sum()

    assert_same(func.grad(f)(ours(params)), tf.grad(f)(params))


def test_grad_of_grad_is_the_second_derivative():
    def f(x):
        return func.grad(lambda y: (y**3).sum())(x).sum()

    def tf_f(x):
        return tf.grad(lambda y: (y**3).sum())(x).sum()

    assert_same(func.grad(f)(ours(X)), tf.grad(tf_f)(X))


def test_grad_three_deep():
    third = func.grad(func.grad(func.grad(torch.sin)))
    assert_same(
        third(mt.tensor(0.5, dtype=torch.float64)), tf.grad(tf.grad(tf.grad(torch.sin)))(torch.tensor(0.5).double())
    )


def test_grad_treats_a_closed_over_input_as_a_constant():
    # d/dx [x * d/dy (x * y)] = d/dx [x * x] = 2x: the inner grad must not differentiate x's use.
    def f(x):
        return x * func.grad(lambda y: x * y)(x)

    def tf_f(x):
        return x * tf.grad(lambda y: x * y)(x)

    x = torch.tensor(1.5, dtype=torch.float64)
    assert_same(func.grad(f)(ours(x)), tf.grad(tf_f)(x))


def test_grad_result_is_differentiable_by_the_engine_when_inputs_require_grad():
    x = mt.tensor(X, requires_grad=True)
    g = func.grad(scalar)(x)
    (second,) = mt.autograd.grad(g.sum(), x)
    torch.testing.assert_close(second.torch(), tf.grad(lambda x: tf.grad(scalar)(x).sum())(X))


def test_grad_of_an_unused_input_is_zero():
    assert_same(func.grad(lambda x, y: (x * 2).sum(), argnums=1)(ours(X), ours(W)), torch.zeros_like(W))


def test_grad_leaves_no_grad_on_inputs_and_results_detached():
    x = ours(X)
    g, v = func.grad_and_value(scalar)(x)
    assert x.grad is None and not x.requires_grad
    assert not g.requires_grad and not v.requires_grad


def test_grad_under_no_grad_still_computes():
    with mt.no_grad():
        assert_same(func.grad(scalar)(ours(X)), tf.grad(scalar)(X))


def test_vjp_matches_torch():
    cot = torch.randn(2, dtype=torch.float64)
    out, fn = func.vjp(two_args, ours(W), ours(X))
    tout, tfn = tf.vjp(two_args, W, X)
    assert_same(out, tout)
    assert_same(fn(ours(cot)), tfn(cot))
    assert_same(fn(ours(2 * cot)), tfn(2 * cot))  # vjp_fn may be called again


def test_vjp_pytree_output_and_aux():
    def f(x):
        return {"a": x * 2, "b": (x.sum(),)}, x.mean()

    out, fn, aux = func.vjp(f, ours(X), has_aux=True)
    tout, tfn, taux = tf.vjp(f, X, has_aux=True)
    cot = {"a": torch.ones(3, dtype=torch.float64), "b": (torch.tensor(2.0, dtype=torch.float64),)}
    assert_same((out, aux), (tout, taux))
    assert_same(fn(ours(cot)), tfn(cot))


def test_jvp_matches_torch():
    v = (torch.randn(2, 3, dtype=torch.float64), torch.randn(3, dtype=torch.float64))
    assert_same(func.jvp(two_args, ours((W, X)), ours(v)), tf.jvp(two_args, (W, X), v))


def test_jvp_has_aux():
    def f(x):
        return x.sin(), x.cos()

    ones = torch.ones(3, dtype=torch.float64)
    assert_same(func.jvp(f, (ours(X),), (ours(ones),), has_aux=True), tf.jvp(f, (X,), (ones,), has_aux=True))


def test_linearize_matches_torch():
    out, fn = func.linearize(vector, ours(X))
    tout, tfn = tf.linearize(vector, X)
    v = torch.randn(3, dtype=torch.float64)
    assert_same((out, fn(ours(v))), (tout, tfn(v)))


@pytest.mark.parametrize("jac", ["jacrev", "jacfwd"])
@pytest.mark.parametrize("argnums", [0, 1, (0, 1)])
def test_jacobians_match_torch(jac, argnums):
    mine, theirs = getattr(func, jac), getattr(tf, jac)
    assert_same(mine(two_args, argnums=argnums)(ours(W), ours(X)), theirs(two_args, argnums=argnums)(W, X))


@pytest.mark.parametrize("jac", ["jacrev", "jacfwd"])
def test_jacobians_of_pytrees(jac):
    def f(p):
        return {"out": p["w"] @ p["x"], "total": (p["x"] ** 2).sum()}

    params = {"w": W, "x": X}
    assert_same(getattr(func, jac)(f)(ours(params)), getattr(tf, jac)(f)(params))


@pytest.mark.parametrize("jac", ["jacrev", "jacfwd"])
def test_jacobians_has_aux(jac):
    def f(x):
        return x.sin(), x.sum()

    assert_same(getattr(func, jac)(f, has_aux=True)(ours(X)), getattr(tf, jac)(f, has_aux=True)(X))


@pytest.mark.parametrize("chunk_size", [1, 2, 100])
def test_jacrev_chunk_size(chunk_size):
    assert_same(func.jacrev(vector, chunk_size=chunk_size)(ours(X)), tf.jacrev(vector, chunk_size=chunk_size)(X))


def test_hessian_matches_torch():
    assert_same(func.hessian(scalar)(ours(X)), tf.hessian(scalar)(X))


def test_hessian_argnums_tuple():
    def f(w, x):
        return two_args(w, x).sum()

    assert_same(func.hessian(f, argnums=(0, 1))(ours(W), ours(X)), tf.hessian(f, argnums=(0, 1))(W, X))


@pytest.mark.parametrize(
    "outer, inner", [("jacrev", "jacfwd"), ("jacfwd", "jacrev"), ("jacrev", "jacrev"), ("jacfwd", "jacfwd")]
)
def test_jacobians_compose(outer, inner):
    mine = getattr(func, outer)(getattr(func, inner)(vector))
    theirs = getattr(tf, outer)(getattr(tf, inner)(vector))
    assert_same(mine(ours(X)), theirs(X))


def test_jacrev_of_grad_and_grad_of_jvp():
    assert_same(func.jacrev(func.grad(scalar))(ours(X)), tf.jacrev(tf.grad(scalar))(X))
    ones = torch.ones(3, dtype=torch.float64)

    def directional(x):
        return func.jvp(scalar, (x,), (ours(ones),))[1]

    def tf_directional(x):
        return tf.jvp(scalar, (x,), (ones,))[1]

    assert_same(func.grad(directional)(ours(X)), tf.grad(tf_directional)(X))


# ----------------------------------------------------------------------------- misuse
def _same_error(mine, theirs):
    with pytest.raises(Exception) as theirs_error:
        theirs()
    with pytest.raises(type(theirs_error.value)) as mine_error:
        mine()
    assert str(mine_error.value) == str(theirs_error.value)


def test_grad_of_a_non_scalar_raises_torchs_error():
    _same_error(lambda: func.grad(vector)(ours(X)), lambda: tf.grad(vector)(X))


def test_grad_of_a_non_tensor_output_raises_torchs_error():
    _same_error(lambda: func.grad(lambda x: 1.0)(ours(X)), lambda: tf.grad(lambda x: 1.0)(X))


def test_grad_has_aux_without_a_pair_raises_torchs_error():
    _same_error(lambda: func.grad(scalar, has_aux=True)(ours(X)), lambda: tf.grad(scalar, has_aux=True)(X))


def test_grad_aux_of_a_non_tensor_raises_torchs_error():
    def f(x):
        return x.sum(), 3

    _same_error(lambda: func.grad(f, has_aux=True)(ours(X)), lambda: tf.grad(f, has_aux=True)(X))


@pytest.mark.parametrize("argnums", [2, (0, 0), (), 0.5])
def test_bad_argnums_raise_torchs_error(argnums):
    def f(w, x):
        return two_args(w, x).sum()

    _same_error(lambda: func.grad(f, argnums=argnums)(ours(W), ours(X)), lambda: tf.grad(f, argnums=argnums)(W, X))


def test_grad_of_a_non_tensor_input_raises_torchs_error():
    _same_error(lambda: func.grad(lambda x: x)(1.0), lambda: tf.grad(lambda x: x)(1.0))


def test_jvp_needs_a_tuple_of_primals():
    _same_error(lambda: func.jvp(vector, ours(X), ours(X)), lambda: tf.jvp(vector, X, X))


def test_jvp_needs_tangents_structured_as_primals():
    _same_error(lambda: func.jvp(vector, (ours(X),), ours(X)), lambda: tf.jvp(vector, (X,), X))


def test_vjp_cotangents_structured_as_outputs():
    _, fn = func.vjp(vector, ours(X))
    _, tfn = tf.vjp(vector, X)
    _same_error(lambda: fn((ours(X),)), lambda: tfn((X,)))


def test_jacrev_chunk_size_zero_raises_torchs_error():
    _same_error(lambda: func.jacrev(vector, chunk_size=0), lambda: tf.jacrev(vector, chunk_size=0))


def test_vjp_of_an_integer_output_raises_torchs_error():
    _same_error(lambda: func.vjp(lambda x: x.long(), ours(X)), lambda: tf.vjp(lambda x: x.long(), X))
