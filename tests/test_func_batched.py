"""vmap's batched path (func called once on the whole batch) against torch.func.vmap in float64,
each test checking that the batched path ran (one call), and that what has no batch rule falls
back to the per-sample loop (one call per sample) with the same results."""

from __future__ import annotations

import pytest
import torch
import torch.func as tf
import torch.nn.functional as TF

import minitorch_rx as mt
import minitorch_rx.nn as nn
import minitorch_rx.nn.functional as F
from minitorch_rx import func
from tests.test_func import assert_same, ours

torch.manual_seed(0)
A = torch.randn(4, 3, dtype=torch.float64)
M = torch.randn(2, 3, dtype=torch.float64)
S = torch.randn(4, 3, 5, dtype=torch.float64)


def counted(f):
    def run(*args, **kwargs):
        run.calls += 1
        return f(*args, **kwargs)

    run.calls = 0
    return run


def check(f, *inputs, in_dims=0, out_dims=0, calls=1):
    mine = counted(f)
    assert_same(func.vmap(mine, in_dims, out_dims)(*ours(inputs)), tf.vmap(f, in_dims, out_dims)(*inputs))
    assert mine.calls == calls


@pytest.mark.parametrize(
    "f",
    [
        lambda a: a * 2 + 1,
        lambda a: 1 - a / 3,
        lambda a: -(a**2),
        lambda a: 2**a,
        lambda a: a.relu() + a.sigmoid() * a.tanh() - a.exp() + a.abs().sqrt(),
        lambda a: torch.sin(a) + torch.cos(a) * torch.tanh(a),
        lambda a: a * a.sum(),
    ],
)
def test_pointwise(f):
    check(f, A)


def test_broadcasting_against_an_unmapped_tensor_of_higher_rank():
    check(lambda a, m: a * m + m, A, M, in_dims=(0, None))


@pytest.mark.parametrize(
    "f",
    [
        lambda s: s.sum(),
        lambda s: s.sum(0),
        lambda s: s.sum((0, 1)),
        lambda s: s.mean(-1, keepdim=True),
        lambda s: torch.sum(s),
        lambda s: s.softmax(0) + s.log_softmax(-1),
        lambda s: TF.log_softmax(s, dim=1),
    ],
)
def test_reductions(f):
    check(f, S)


@pytest.mark.parametrize(
    "f",
    [
        lambda s: s.unsqueeze(0).unsqueeze(-1),
        lambda s: s.reshape(15),
        lambda s: s.view(5, 3),
        lambda s: s.flatten(),
        lambda s: s.transpose(0, 1),
        lambda s: s.permute(1, 0),
        lambda s: s.T,
        lambda s: s.unsqueeze(1).squeeze(1),
        lambda s: torch.flatten(s) + s.size(0) + s.shape[1] + s.dim(),
    ],
)
def test_shape_ops(f):
    check(f, S)


@pytest.mark.parametrize(
    "shapes, in_dims",
    [
        (((4, 3), (4, 3)), 0),
        (((4, 3), (3,)), (0, None)),
        (((4, 3), (3, 2)), (0, None)),
        (((4, 2, 3), (3,)), (0, None)),
        (((4, 2, 3), (4, 3, 5)), 0),
        (((4, 3), (4, 3, 5)), 0),
        (((4, 2, 3), (4, 3)), 0),
        (((4, 2, 3), (6, 3, 5)), (0, None)),
        (((4, 3), (6, 3, 5)), (0, None)),
    ],
)
def test_matmul(shapes, in_dims):
    a, b = (torch.randn(s, dtype=torch.float64) for s in shapes)
    check(lambda x, y: x @ y, a, b, in_dims=in_dims)
    check(lambda x, y: torch.matmul(x, y), a, b, in_dims=in_dims)


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_cross_entropy_and_nll_per_sample(reduction):
    logits = torch.randn(4, 2, 5, dtype=torch.float64)
    target = torch.randint(0, 5, (4, 2))
    check(lambda x, t: TF.cross_entropy(x, t, reduction=reduction), logits, target)
    check(lambda x, t: TF.nll_loss(x.log_softmax(-1), t, reduction=reduction), logits, target)
    check(lambda x, t: TF.cross_entropy(x, t, reduction=reduction), logits[:, 0], target[:, 0])


def test_mse_and_l1_losses():
    check(lambda x, y: TF.mse_loss(x, y) + TF.l1_loss(x, y, reduction="sum"), A, A.flip(0))
    check(lambda x, y: TF.mse_loss(x, y, reduction="none"), A, A[0], in_dims=(0, None))


def test_out_dims_and_unmapped_outputs():
    check(lambda a, m: (a.unsqueeze(0) * m, m), A, M, in_dims=(0, None), out_dims=(1, 0))


def _net(norm: str = "none"):
    torch.manual_seed(1)
    t_norm = {"none": torch.nn.Identity(), "batch": torch.nn.BatchNorm2d(3), "layer": torch.nn.LayerNorm([3, 4, 4])}
    theirs = torch.nn.Sequential(
        torch.nn.Conv2d(2, 3, 3, padding=1, stride=2),
        t_norm[norm],
        torch.nn.Tanh(),
        torch.nn.AvgPool2d(2),
        torch.nn.Conv2d(3, 4, 1, groups=1),
        torch.nn.Flatten(),
        torch.nn.Dropout(0.5),
        torch.nn.Linear(16, 3),
        torch.nn.LogSoftmax(-1),
    ).double()
    mine_norm = {"none": nn.Identity(), "batch": nn.BatchNorm2d(3), "layer": nn.LayerNorm([3, 4, 4])}
    mine = nn.Sequential(
        nn.Conv2d(2, 3, 3, padding=1, stride=2),
        mine_norm[norm],
        nn.Tanh(),
        nn.AvgPool2d(2),
        nn.Conv2d(3, 4, 1),
        nn.Flatten(),
        nn.Dropout(0.5),
        nn.Linear(16, 3),
        nn.LogSoftmax(-1),
    ).double()
    if norm == "batch":
        with torch.no_grad():
            theirs[1].running_mean.uniform_(-1, 1)
            theirs[1].running_var.uniform_(0.5, 2)
    mine.load_state_dict({k: v.detach().clone() for k, v in theirs.state_dict().items()})
    return mine.eval(), theirs.eval()


X = torch.randn(5, 2, 8, 8, dtype=torch.float64)
Y = torch.randint(0, 3, (5,))


@pytest.mark.parametrize("norm", ["none", "batch", "layer"])
def test_per_sample_gradients_take_the_batched_path(norm):
    mine, theirs = _net(norm)
    params = {k: v.detach() for k, v in theirs.named_parameters()}
    buffers = {k: v.detach() for k, v in theirs.named_buffers()}

    def loss(module, call):
        def f(p, b, x, y):
            return TF.nll_loss(call(module, (p, b), (x.unsqueeze(0),)), y.unsqueeze(0))

        return f

    mine_loss = counted(loss(mine, func.functional_call))
    in_dims = (None, None, 0, 0)
    got = func.vmap(func.grad(mine_loss), in_dims)(ours(params), ours(buffers), ours(X), ours(Y))
    assert_same(got, tf.vmap(tf.grad(loss(theirs, tf.functional_call)), in_dims)(params, buffers, X, Y))
    assert mine_loss.calls == 1


def test_per_sample_grad_and_value_with_aux_and_argnums():
    def f(w, x, y):
        out = (w @ x).tanh()
        return ((out - y) ** 2).sum(), out

    w, y = M, torch.randn(4, 2, dtype=torch.float64)
    mine = counted(f)
    in_dims = (None, 0, 0)
    transform = func.vmap(func.grad_and_value(mine, argnums=(0, 2), has_aux=True), in_dims)
    assert_same(
        transform(*ours((w, A, y))), tf.vmap(tf.grad_and_value(f, argnums=(0, 2), has_aux=True), in_dims)(w, A, y)
    )
    assert mine.calls == 1


def test_per_sample_gradients_are_differentiable_again():
    def f(w, x):
        return (w @ x).tanh().sum()

    def outer(w):
        return func.vmap(func.grad(f), (None, 0))(w, ours(A)).pow(2).sum()

    def t_outer(w):
        return tf.vmap(tf.grad(f), (None, 0))(w, A).pow(2).sum()

    assert_same(func.grad(outer)(ours(M)), tf.grad(t_outer)(M))


def test_an_ensemble_takes_the_batched_path():
    models = [_net()[0] for _ in range(3)]
    t_models = [_net()[1] for _ in range(3)]
    params, buffers = func.stack_module_state(models)
    t_params, t_buffers = tf.stack_module_state(t_models)
    mine = counted(lambda p, b, x: func.functional_call(models[0], (p, b), (x,)))
    got = func.vmap(mine, (0, 0, None))(params, buffers, ours(X))
    want = tf.vmap(lambda p, b, x: tf.functional_call(t_models[0], (p, b), (x,)), (0, 0, None))(t_params, t_buffers, X)
    assert_same(got, want.detach())
    assert mine.calls == 1


def test_vmap_of_a_module_takes_the_batched_path():
    mine, theirs = _net()
    calls = []
    mine.register_forward_pre_hook(lambda module, args: calls.append(1))
    assert_same(func.vmap(mine)(ours(X.unsqueeze(1))), tf.vmap(theirs)(X.unsqueeze(1)).detach())
    assert len(calls) == 1


def test_grad_flows_through_the_batched_path():
    x = mt.tensor(A, requires_grad=True)
    func.vmap(lambda a: (a * a).sum())(x).sum().backward()
    torch.testing.assert_close(x.grad.torch(), 2 * A)
    assert_same(func.grad(lambda a: func.vmap(torch.sin)(a).sum())(ours(A)), A.cos())


# ----------------------------------------------------------------------------- falling back
CALLS: list[int] = []


def relu_plus_sin(a):
    CALLS.append(1)
    return F.relu(a) + mt.sin(a) + mt.nn.functional.tanh(a)


def test_our_own_functions_named_in_func_take_the_batched_path():
    CALLS.clear()
    assert_same(func.vmap(relu_plus_sin)(ours(A)), A.relu() + A.sin() + A.tanh())
    assert len(CALLS) == 1


def test_our_own_functions_without_a_batch_rule_fall_back_to_the_loop():
    mine = counted(lambda a: mt.special.erf(a) + a[0])
    assert_same(func.vmap(mine)(ours(A)), torch.special.erf(A) + A[:, :1])
    assert mine.calls == 1 + len(A)  # the abandoned attempt, then the loop


def test_a_function_of_ours_that_wraps_a_stand_in_as_data_falls_back_to_the_loop():
    # mt.special.expit passes what it is given to its op, which wraps a stand-in as its data.
    mine = counted(lambda a: mt.special.expit(a).sum())
    assert_same(func.vmap(mine)(ours(A)), A.sigmoid().sum(1))
    assert mine.calls == 1 + len(A)


@pytest.mark.parametrize("shapes", [((3,), (4, 3)), ((2, 3), (4, 3)), ((6, 2, 3), (4, 3, 5))])
def test_an_unmapped_left_operand_of_matmul_falls_back_to_the_loop(shapes):
    a, b = (torch.randn(s, dtype=torch.float64) for s in shapes)
    check(lambda x, y: x @ y, a, b, in_dims=(None, 0), calls=1 + len(b))


def our_loss(p, x, y):
    CALLS.append(1)
    return F.nll_loss(func.functional_call(MODEL, p, (x.unsqueeze(0),)), y.unsqueeze(0))


MODEL, TWIN = _net()


def test_per_sample_gradients_with_our_functions_take_the_batched_path():
    CALLS.clear()
    params = {k: v.detach() for k, v in TWIN.named_parameters()}
    got = func.vmap(func.grad(our_loss), (None, 0, 0))(ours(params), ours(X), ours(Y))

    def t_loss(p, x, y):
        return TF.nll_loss(tf.functional_call(TWIN, p, (x.unsqueeze(0),)), y.unsqueeze(0))

    assert_same(got, tf.vmap(tf.grad(t_loss), (None, 0, 0))(params, X, Y))
    assert len(CALLS) == 1


def test_random_numbers_in_the_batched_path_fall_back_to_the_loop():
    with pytest.raises(RuntimeError, match="randomness error mode"):
        func.vmap(lambda a: a + torch.rand(3, dtype=torch.float64))(ours(A))
    out = func.vmap(lambda a: a * 0 + torch.rand(3, dtype=torch.float64), randomness="different")(ours(A))
    assert not torch.equal(out.torch()[0], out.torch()[1])


def test_comparisons_fall_back_to_the_loop():
    rows = A.clone()
    rows[1] = 0
    mine = counted(lambda a: a + 1 if a.sum() == 0 else a)
    assert_same(func.vmap(mine)(ours(rows)), torch.stack([a + 1 if a.sum() == 0 else a for a in rows]))
    assert mine.calls == 1 + len(rows)


def test_training_dropout_falls_back_to_the_loop():
    mine, _ = _net()
    with pytest.raises(RuntimeError, match="randomness error mode"):
        func.vmap(lambda x: func.functional_call(mine.train(), {}, (x.unsqueeze(0),)))(ours(X))
