"""Gradients of gradients (issue 15): ``create_graph=True`` records backward, so every op's
gradient can be differentiated again, to any order; compared with torch.autograd in float64 and
with finite differences (``gradgradcheck``)."""

from __future__ import annotations

import gc

import pytest
import torch
import torch.nn.functional as TF
from hypothesis import given
from hypothesis import strategies as st

import minitorch_rx as mt
import minitorch_rx.nn as nn
import minitorch_rx.nn.functional as F
from tests.strategies import FUZZ, broadcast_shapes, tensors

F64 = torch.float64


def second_order(mt_fn, torch_fn, inputs: list[torch.Tensor], seed: int = 0) -> None:
    """d/d(inputs) of <grad of fn, v> for a random v, in both frameworks: the Hessian-vector
    products and mixed second derivatives of every input."""
    generator = torch.Generator().manual_seed(seed)
    ours = [mt.tensor(x, requires_grad=True) for x in inputs]
    theirs = [x.detach().clone().requires_grad_(True) for x in inputs]
    out_mt, out_torch = mt_fn(*ours), torch_fn(*theirs)
    v = torch.randn(out_torch.shape, dtype=F64, generator=generator)
    g_mt = mt.autograd.grad(out_mt, ours, v, create_graph=True, allow_unused=True)
    g_torch = torch.autograd.grad(out_torch, theirs, v, create_graph=True, allow_unused=True)
    for a, b in zip(g_mt, g_torch):
        if b is None:
            continue
        torch.testing.assert_close(a.torch(), b.detach(), atol=1e-9, rtol=1e-7)
    weights = [torch.randn(x.shape, dtype=F64, generator=generator) for x in inputs]
    total_mt = sum((g * w).sum() for g, w in zip(g_mt, weights) if g is not None and g.requires_grad)
    total_torch = sum((g * w).sum() for g, w in zip(g_torch, weights) if g is not None and g.requires_grad)
    if not isinstance(total_torch, torch.Tensor):
        return
    hv_torch = torch.autograd.grad(total_torch, theirs, allow_unused=True)
    hv_mt = mt.autograd.grad(total_mt, ours, allow_unused=True) if isinstance(total_mt, mt.Tensor) else [None] * 3
    for i, (a, b) in enumerate(zip(hv_mt, hv_torch)):
        if b is None or not bool(b.any()):
            assert a is None or not bool(a.torch().any()), f"input {i}: torch's second derivative is 0"
            continue
        assert a is not None, f"input {i}: no second derivative from minitorch_rx"
        torch.testing.assert_close(a.torch(), b, atol=1e-8, rtol=1e-6)


BINARY = {
    "add": lambda a, b: a + b,
    "sub": lambda a, b: a - b,
    "mul": lambda a, b: a * b,
    "div": lambda a, b: a / b,
    "pow": lambda a, b: a.abs() ** b,
    "maximum": lambda a, b: a.maximum(b) * a,
    "where": lambda a, b: (a * b).where(a > 0, b * b),
}


@pytest.mark.parametrize("name", sorted(BINARY))
@FUZZ
@given(data=st.data(), pair=broadcast_shapes(min_side=1))
def test_binary_ops_second_derivatives_match_torch(name, data, pair):
    fn = BINARY[name]
    a = data.draw(tensors(pair[0], margin=0.2))
    b = data.draw(tensors(pair[1], low=0.5, high=2.0))
    second_order(lambda x, y: (fn(x, y) * fn(x, y)).sum(), lambda x, y: (fn(x, y) * fn(x, y)).sum(), [a, b])


def _unary(mt_name: str, torch_fn=None, **kwargs):
    return (lambda x: getattr(F, mt_name)(x, **kwargs), torch_fn or (lambda x: getattr(TF, mt_name)(x, **kwargs)))


UNARY = {
    "exp": (lambda x: x.exp(), torch.exp),
    "log": (lambda x: (x * x + 1).log(), lambda x: (x * x + 1).log()),
    "sqrt": (lambda x: (x * x + 1).sqrt(), lambda x: (x * x + 1).sqrt()),
    "sin": (lambda x: x.sin(), torch.sin),
    "cos": (lambda x: x.cos(), torch.cos),
    "abs": (lambda x: x.abs() * x, lambda x: x.abs() * x),
    "clamp": (lambda x: x.clamp(-0.5, 0.5) * x, lambda x: x.clamp(-0.5, 0.5) * x),
    "tanh": (lambda x: x.tanh(), torch.tanh),
    "sigmoid": (lambda x: x.sigmoid(), torch.sigmoid),
    "relu": (lambda x: F.relu(x) * x, lambda x: TF.relu(x) * x),
    "leaky_relu": (lambda x: F.leaky_relu(x, 0.1) * x, lambda x: TF.leaky_relu(x, 0.1) * x),
    "elu": _unary("elu"),
    "gelu": _unary("gelu"),
    "gelu_tanh": _unary("gelu", approximate="tanh"),
    "silu": _unary("silu"),
    "softplus": _unary("softplus"),
    "softmax": (lambda x: F.softmax(x, -1), lambda x: TF.softmax(x, -1)),
    "log_softmax": (lambda x: F.log_softmax(x, 0), lambda x: TF.log_softmax(x, 0)),
    "sum": (lambda x: x.sum(-1) ** 2, lambda x: x.sum(-1) ** 2),
    "mean": (lambda x: x.mean(0) ** 2, lambda x: x.mean(0) ** 2),
    "var": (lambda x: x.var(-1), lambda x: x.var(-1)),
    "std": (lambda x: x.std(0), lambda x: x.std(0)),
    "logsumexp": (lambda x: x.logsumexp(-1), lambda x: x.logsumexp(-1)),
    "amax": (lambda x: x.amax(-1) * x.sum(), lambda x: x.amax(-1) * x.sum()),
    "max": (lambda x: x.max() * x.sum(), lambda x: x.max() * x.sum()),
    "max_dim": (lambda x: x.max(-1)[0] * x.sum(), lambda x: x.max(-1)[0] * x.sum()),
    "index": (lambda x: x[1:, ::2] * x[:-1, 1::2], lambda x: x[1:, ::2] * x[:-1, 1::2]),
    "advanced_index": (lambda x: x[[0, 2, 0]] ** 2, lambda x: x[[0, 2, 0]] ** 2),
    "shape": (
        lambda x: x.reshape(-1).unsqueeze(0).expand(2, -1).transpose(0, 1) ** 2,
        lambda x: x.reshape(-1).unsqueeze(0).expand(2, -1).transpose(0, 1) ** 2,
    ),
    "cat": (lambda x: mt.cat([x, x * x], 0) ** 2, lambda x: torch.cat([x, x * x], 0) ** 2),
    "pad": (lambda x: F.pad(x * x, (1, 2)) ** 2, lambda x: TF.pad(x * x, (1, 2)) ** 2),
    "matmul": (lambda x: x @ x.T, lambda x: x @ x.T),
    "layer_norm": (lambda x: F.layer_norm(x, (4,)) * x, lambda x: TF.layer_norm(x, (4,)) * x),
    "batch_norm": (
        lambda x: F.batch_norm(x, None, None, training=True) * x,
        lambda x: TF.batch_norm(x, None, None, training=True) * x,
    ),
    "max_pool": (lambda x: F.max_pool1d(x.unsqueeze(0), 2) ** 2, lambda x: TF.max_pool1d(x.unsqueeze(0), 2) ** 2),
    "avg_pool": (lambda x: F.avg_pool1d(x.unsqueeze(0), 2) ** 2, lambda x: TF.avg_pool1d(x.unsqueeze(0), 2) ** 2),
    "adaptive_avg_pool": (
        lambda x: F.adaptive_avg_pool2d(x.reshape(1, 1, 3, 4), (2, 2)) ** 2,
        lambda x: TF.adaptive_avg_pool2d(x.reshape(1, 1, 3, 4), (2, 2)) ** 2,
    ),
    "mse_loss": (lambda x: F.mse_loss(x * x, x.detach()), lambda x: TF.mse_loss(x * x, x.detach())),
}


@pytest.mark.parametrize("name", sorted(UNARY))
def test_unary_and_reduction_second_derivatives_match_torch(name):
    mt_fn, torch_fn = UNARY[name]
    x = torch.randn(3, 4, dtype=F64, generator=torch.Generator().manual_seed(1))
    second_order(lambda t: mt_fn(t), lambda t: torch_fn(t), [x])


def _targets():
    return torch.tensor([0, 3, 2])


LAYERS = {
    "linear": (lambda x, w: F.linear(x, w, w[:, 0]), lambda x, w: TF.linear(x, w, w[:, 0])),
    "linear_3d": (
        lambda x, w: F.linear(x.reshape(3, 2, 2), w[:, :2]),
        lambda x, w: TF.linear(x.reshape(3, 2, 2), w[:, :2]),
    ),
    "conv1d": (
        lambda x, w: F.conv1d(x.unsqueeze(0), w.reshape(3, 4, 1)[:, :3], padding=1),
        lambda x, w: TF.conv1d(x.unsqueeze(0), w.reshape(3, 4, 1)[:, :3], padding=1),
    ),
    "conv2d_stride_groups": (
        lambda x, w: F.conv2d(
            x.reshape(1, 2, 2, 3), w.reshape(2, 1, 2, 3)[:, :, :, :2], w[0, :2], stride=(1, 2), groups=2
        ),
        lambda x, w: TF.conv2d(
            x.reshape(1, 2, 2, 3), w.reshape(2, 1, 2, 3)[:, :, :, :2], w[0, :2], stride=(1, 2), groups=2
        ),
    ),
    "conv1d_unbatched": (
        lambda x, w: F.conv1d(x, w.reshape(3, 4, 1)[:, :3]),
        lambda x, w: TF.conv1d(x, w.reshape(3, 4, 1)[:, :3]),
    ),
    "layer_norm_affine": (
        lambda x, w: F.layer_norm(x, (4,), w[0], w[1]),
        lambda x, w: TF.layer_norm(x, (4,), w[0], w[1]),
    ),
    "batch_norm_eval": (
        lambda x, w: F.batch_norm(x.T, mt.zeros(3, dtype=F64), mt.ones(3, dtype=F64), w[:, 0], w[:, 1]),
        lambda x, w: TF.batch_norm(x.T, torch.zeros(3, dtype=F64), torch.ones(3, dtype=F64), w[:, 0], w[:, 1]),
    ),
    "cross_entropy": (
        lambda x, w: F.cross_entropy(x * w, mt.tensor(_targets())),
        lambda x, w: TF.cross_entropy(x * w, _targets()),
    ),
    "cross_entropy_smoothing_spatial": (
        lambda x, w: F.cross_entropy(
            (x * w).reshape(3, 2, 2), mt.tensor([[0, 1], [1, 0], [0, 0]]), label_smoothing=0.1
        ),
        lambda x, w: TF.cross_entropy(
            (x * w).reshape(3, 2, 2), torch.tensor([[0, 1], [1, 0], [0, 0]]), label_smoothing=0.1
        ),
    ),
    "cross_entropy_probabilities": (
        lambda x, w: F.cross_entropy(x * w, w.softmax(1)),
        lambda x, w: TF.cross_entropy(x * w, w.softmax(1)),
    ),
    "nll_loss_none": (
        lambda x, w: F.nll_loss((x * w).log_softmax(1), mt.tensor(_targets()), reduction="none"),
        lambda x, w: TF.nll_loss((x * w).log_softmax(1), _targets(), reduction="none"),
    ),
    "bce_with_logits": (
        lambda x, w: F.binary_cross_entropy_with_logits(x * w, w.sigmoid()),
        lambda x, w: TF.binary_cross_entropy_with_logits(x * w, w.sigmoid()),
    ),
}


@pytest.mark.parametrize("name", sorted(LAYERS))
def test_layer_and_loss_second_derivatives_match_torch(name):
    mt_fn, torch_fn = LAYERS[name]
    generator = torch.Generator().manual_seed(2)
    x, w = (torch.randn(3, 4, dtype=F64, generator=generator) for _ in range(2))
    second_order(lambda a, b: mt_fn(a, b), lambda a, b: torch_fn(a, b), [x, w])


@pytest.mark.parametrize("name", sorted(LAYERS))
def test_layer_and_loss_pass_gradgradcheck(name):
    mt_fn, _ = LAYERS[name]
    generator = torch.Generator().manual_seed(3)
    x, w = (mt.tensor(torch.randn(3, 4, dtype=F64, generator=generator), requires_grad=True) for _ in range(2))
    assert mt.autograd.gradgradcheck(mt_fn, (x, w))


@pytest.mark.parametrize("name", ["tanh", "gelu", "softmax", "layer_norm", "max_pool", "std"])
def test_unary_ops_pass_gradgradcheck(name):
    mt_fn, _ = UNARY[name]
    x = mt.tensor(torch.randn(3, 4, dtype=F64, generator=torch.Generator().manual_seed(4)), requires_grad=True)
    assert mt.autograd.gradgradcheck(mt_fn, (x,))


def test_third_derivatives_of_a_chain_match_torch():
    x = torch.tensor([0.3, -1.2, 2.0], dtype=F64)

    def chain(t, lib):
        return (lib.tanh(t * t) * t.exp() + (t.sin() ** 3)).sum()

    ours = mt.tensor(x, requires_grad=True)
    theirs = x.clone().requires_grad_(True)
    g_mt, g_t = mt.autograd.grad(chain(ours, mt), ours, create_graph=True)[0], None
    g_t = torch.autograd.grad(chain(theirs, torch), theirs, create_graph=True)[0]
    h_mt = mt.autograd.grad(g_mt.sum(), ours, create_graph=True)[0]
    h_t = torch.autograd.grad(g_t.sum(), theirs, create_graph=True)[0]
    t_mt = mt.autograd.grad(h_mt.sum(), ours)[0]
    t_t = torch.autograd.grad(h_t.sum(), theirs)[0]
    for a, b in ((g_mt, g_t), (h_mt, h_t), (t_mt, t_t)):
        torch.testing.assert_close(a.torch(), b.detach(), atol=1e-10, rtol=1e-8)


OPS = [
    lambda a, b: a * b,
    lambda a, b: a + b * b,
    lambda a, b: a / (b * b + 1),
    lambda a, b: a.tanh() * b,
    lambda a, b: a.sigmoid() - b.exp(),
    lambda a, b: (a * b).sin(),
]


@FUZZ
@given(
    program=st.lists(
        st.tuples(st.integers(0, len(OPS) - 1), st.integers(0, 9), st.integers(0, 9)), min_size=1, max_size=8
    )
)
def test_random_programs_match_torch_at_second_order(program):
    x = torch.tensor([0.4, -0.7, 1.1], dtype=F64)

    def run(t, lib_values):
        values = [t, t * 0.5 + 1]
        for op, i, j in program:
            values.append(OPS[op](values[i % len(values)], values[j % len(values)]))
        return values[-1].sum()

    second_order(lambda t: run(t, None), lambda t: run(t, None), [x])


def _gradient_penalty_step() -> None:
    w = mt.tensor([1.0, 2.0], requires_grad=True)
    (w**3).sum().backward(create_graph=True)
    assert w.grad.grad_fn is not None
    torch.testing.assert_close(w.grad.torch(), torch.tensor([3.0, 12.0]))
    penalty = (w.grad**2).sum()
    w.grad = None
    penalty.backward()
    torch.testing.assert_close(w.grad.torch(), torch.tensor([2 * 3.0 * 6.0, 2 * 12.0 * 12.0]))


def _cyclic_garbage_of_ours() -> list[str]:
    """The types of the engine's objects (minitorch_rx's, rustworkx's graphs, torch tensors) that
    only the cycle collector would free. Other libraries' garbage (a figure an earlier test drew, in
    random order) is not the engine's and not counted."""
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        gc.collect()
        found = [type(o) for o in gc.garbage]
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
    return [
        f"{t.__module__}.{t.__qualname__}"
        for t in found
        if t.__module__.split(".")[0] in ("minitorch_rx", "rustworkx") or issubclass(t, torch.Tensor)
    ]


def test_backward_create_graph_gives_a_grad_with_history_and_makes_no_cycle():
    _gradient_penalty_step()  # first calls may import and cache (lazily built tables): not counted
    gc.collect()
    gc.disable()
    try:
        _gradient_penalty_step()
        assert _cyclic_garbage_of_ours() == []
    finally:
        gc.enable()


def test_a_leaf_grad_with_history_is_freed_with_it_by_reference_counting():
    import weakref

    gc.disable()
    try:
        w = mt.tensor([1.0, 2.0], requires_grad=True)
        (w.exp() * w).sum().backward(create_graph=True)
        node = weakref.ref(w.grad.grad_fn)
        del w
        assert node() is None
    finally:
        gc.enable()


def test_gradient_penalty_matches_torch():
    generator = torch.Generator().manual_seed(5)
    x = torch.randn(4, 3, dtype=F64, generator=generator)
    weight = torch.randn(2, 3, dtype=F64, generator=generator)

    def penalty(x, weight, lib_F, lib):
        x = x.requires_grad_(True) if isinstance(x, torch.Tensor) else x.requires_grad_()
        out = lib_F.linear(lib.tanh(x), weight).sum()
        (g,) = lib.autograd.grad(out, x, create_graph=True)
        return ((g.norm(2, dim=1) - 1) ** 2).mean() if hasattr(g, "norm") else (((g * g).sum(1).sqrt() - 1) ** 2).mean()

    w_t = weight.clone().requires_grad_(True)
    penalty(x.clone(), w_t, TF, torch).backward()
    w_mt = mt.tensor(weight, requires_grad=True)
    x_mt = mt.tensor(x)
    out = F.linear(x_mt.requires_grad_().tanh(), w_mt).sum()
    (g,) = mt.autograd.grad(out, x_mt, create_graph=True)
    (((g * g).sum(1).sqrt() - 1) ** 2).mean().backward()
    torch.testing.assert_close(w_mt.grad.torch(), w_t.grad)


def test_grad_of_a_non_scalar_needs_grad_outputs():
    x = mt.ones(3, requires_grad=True)
    with pytest.raises(RuntimeError, match="grad can be implicitly created only for scalar outputs"):
        mt.autograd.grad(x * 2, x, create_graph=True)


def test_an_input_outside_the_graph_needs_allow_unused():
    x, y = mt.ones(3, requires_grad=True), mt.ones(3, requires_grad=True)
    with pytest.raises(RuntimeError, match="Set allow_unused=True"):
        mt.autograd.grad((x * 2).sum(), [x, y], create_graph=True)
    gx, gy = mt.autograd.grad((x * 2).sum(), [x, y], allow_unused=True)
    assert gy is None and gx.tolist() == [2.0, 2.0, 2.0]
    assert mt.autograd.grad((x * 2).sum(), [y], materialize_grads=True)[0].tolist() == [0.0, 0.0, 0.0]


def test_grad_runs_only_the_nodes_on_paths_to_its_inputs():
    calls = []

    class Spy(mt.autograd.Function):
        @staticmethod
        def forward(ctx, t):
            return t * 1

        @staticmethod
        def backward(ctx, grad):
            calls.append(1)
            return grad

    a = mt.ones(2, requires_grad=True)
    b = mt.ones(2, requires_grad=True)
    out = (Spy.apply(a) + b * 2).sum()
    (gb,) = mt.autograd.grad(out, b)
    assert gb.tolist() == [2.0, 2.0] and calls == []


def test_a_torch_function_without_a_recorded_equivalent_refuses_create_graph():
    class TorchOnly(mt.autograd.Function):
        @staticmethod
        def forward(ctx, t):
            return t * 2

        @staticmethod
        def backward(ctx, grad):
            return torch.special.i0(grad)

    x = mt.ones(2, requires_grad=True)
    with pytest.raises(RuntimeError, match="create_graph=True: a backward called"):
        mt.autograd.grad(TorchOnly.apply(x).sum(), x, create_graph=True)


X = lambda *shape: mt.randn(*shape, dtype=F64, requires_grad=True)  # noqa: E731

# Every family added in round 2 (math, index, sort, shape, norms, resampling, padding,
# activations, losses, distances, sequence layers): its gradient differentiated again against
# finite differences. Each entry builds (function, inputs).
GRADGRAD = {
    "log1p": lambda: ((lambda a: (a * a).log1p()), [X(3)]),
    "tan": lambda: ((lambda a: (a * 0.3).tan()), [X(3)]),
    "erf": lambda: ((lambda a: a.erf() * a), [X(3)]),
    "atan2": lambda: ((lambda a, b: mt.atan2(a, b)), [X(3), X(3)]),
    "lerp": lambda: ((lambda a, b: mt.lerp(a, b, 0.3) * a), [X(3), X(3)]),
    "prod": lambda: ((lambda a: a.prod(0)), [X(3, 2)]),
    "cumsum": lambda: ((lambda a: (a * a).cumsum(0)), [X(4)]),
    "cumprod": lambda: ((lambda a: a.cumprod(0)), [X(4)]),
    "norm": lambda: ((lambda a: a.norm()), [X(3, 2)]),
    "norm_dim": lambda: ((lambda a: a.norm(p=3, dim=1)), [X(3, 2)]),
    "einsum": lambda: ((lambda a, b: mt.einsum("ij,jk->ik", a, b) * a[:, :1]), [X(2, 3), X(3, 2)]),
    "bmm": lambda: ((lambda a, b: mt.bmm(a, b) ** 2), [X(2, 2, 3), X(2, 3, 2)]),
    "cdist": lambda: ((lambda a, b: mt.cdist(a, b)), [X(3, 2), X(4, 2)]),
    "gather": lambda: ((lambda a: a.gather(1, mt.tensor([[0, 1], [1, 0], [2, 2]])) ** 2), [X(3, 3)]),
    "scatter_add": lambda: (
        (lambda a, b: mt.zeros(3, 3, dtype=F64).scatter_add(1, mt.tensor([[0, 1], [1, 0], [2, 2]]), b) * a),
        [X(3, 3), X(3, 2)],
    ),
    "index_select": lambda: ((lambda a: a.index_select(0, mt.tensor([0, 2, 0])) ** 2), [X(3, 2)]),
    "masked_fill": lambda: ((lambda a: a.masked_fill(mt.tensor([True, False, True]), 0.5) ** 2), [X(3)]),
    "sort": lambda: ((lambda a: a.sort()[0] ** 2), [X(4)]),
    "topk": lambda: ((lambda a: a.topk(2)[0] ** 2), [X(4)]),
    "split": lambda: ((lambda a: a.split(1)[0] * a[1:2]), [X(3)]),
    "flip": lambda: ((lambda a: a.flip(0) * a), [X(3)]),
    "roll": lambda: ((lambda a: a.roll(1) * a), [X(3)]),
    "tril": lambda: ((lambda a: a.tril() ** 2), [X(3, 3)]),
    "repeat": lambda: ((lambda a: a.repeat(2) ** 2), [X(3)]),
    "repeat_interleave": lambda: ((lambda a: a.repeat_interleave(2) ** 2), [X(3)]),
    "unfold": lambda: ((lambda a: a.unfold(0, 2, 1) ** 2), [X(4)]),
    "diag": lambda: ((lambda a: a.diagonal() ** 2), [X(3, 3)]),
    "conv_transpose": lambda: ((lambda a, w: F.conv_transpose1d(a, w, stride=2)), [X(1, 2, 3), X(2, 1, 2)]),
    "group_norm": lambda: ((lambda a: F.group_norm(a, 2) * a), [X(2, 4, 3)]),
    "instance_norm": lambda: ((lambda a: F.instance_norm(a) * a), [X(2, 2, 3)]),
    "interp_linear": lambda: ((lambda a: F.interpolate(a * a, scale_factor=2, mode="linear")), [X(1, 1, 3)]),
    "interp_nearest": lambda: ((lambda a: F.interpolate(a * a, scale_factor=2)), [X(1, 1, 3)]),
    "grid_sample": lambda: (
        (lambda a, g: F.grid_sample(a, g.tanh(), align_corners=False)),
        [X(1, 1, 3, 3), X(1, 2, 2, 2)],
    ),
    "pixel_shuffle": lambda: ((lambda a: F.pixel_shuffle(a, 2) ** 2), [X(1, 4, 1, 1)]),
    "reflect_pad": lambda: ((lambda a: F.pad(a, (1, 1), mode="reflect") ** 2), [X(1, 1, 3)]),
    "replicate_pad": lambda: ((lambda a: F.pad(a, (1, 2, 1, 0), mode="replicate") ** 2), [X(1, 1, 2, 3)]),
    "circular_pad": lambda: ((lambda a: F.pad(a, (1, 1), mode="circular") ** 2), [X(1, 1, 3)]),
    "adaptive_max": lambda: ((lambda a: F.adaptive_max_pool1d(a, 2) ** 2), [X(1, 1, 4)]),
    "lp_pool": lambda: ((lambda a: F.lp_pool1d(a.abs() + 0.5, 2, 2)), [X(1, 1, 4)]),
    "selu": lambda: ((lambda a: F.selu(a) * a), [X(3)]),
    "mish": lambda: ((lambda a: F.mish(a)), [X(3)]),
    "hardswish": lambda: ((lambda a: F.hardswish(a) * a), [X(3)]),
    "glu": lambda: ((lambda a: F.glu(a) * a[:2]), [X(4)]),
    "logsigmoid": lambda: ((lambda a: F.logsigmoid(a)), [X(3)]),
    "softmin": lambda: ((lambda a: F.softmin(a, 0)), [X(3)]),
    "kl_div": lambda: (
        (lambda a, b: F.kl_div(a.log_softmax(1), b.softmax(1), reduction="batchmean")),
        [X(2, 3), X(2, 3)],
    ),
    "smooth_l1": lambda: ((lambda a, b: F.smooth_l1_loss(a * a, b)), [X(3), X(3)]),
    "huber": lambda: ((lambda a, b: F.huber_loss(a * a, b)), [X(3), X(3)]),
    "bce": lambda: ((lambda a, b: F.binary_cross_entropy(a.sigmoid(), b.sigmoid())), [X(3), X(3)]),
    "cosine_sim": lambda: ((lambda a, b: F.cosine_similarity(a, b)), [X(2, 3), X(2, 3)]),
    "pairwise": lambda: ((lambda a, b: F.pairwise_distance(a, b)), [X(2, 3), X(2, 3)]),
    "normalize": lambda: ((lambda a: F.normalize(a)), [X(2, 3)]),
    "triplet": lambda: ((lambda a, b: F.triplet_margin_loss(a, b, b * 0.5)), [X(2, 3), X(2, 3)]),
    "gaussian_nll": lambda: ((lambda a, b: F.gaussian_nll_loss(a, b, b * b + 1)), [X(3), X(3)]),
    "poisson_nll": lambda: ((lambda a, b: F.poisson_nll_loss(a, b.abs())), [X(3), X(3)]),
    "bilinear": lambda: ((lambda a, w: F.bilinear(a, a, w)), [X(2, 3), X(2, 3, 3)]),
    "embedding": lambda: ((lambda w: F.embedding(mt.tensor([0, 2, 2]), w) ** 2), [X(3, 2)]),
    "sdpa": lambda: ((lambda q, k: F.scaled_dot_product_attention(q, k, k, is_causal=True)), [X(1, 3, 2), X(1, 3, 2)]),
    "lstm_cell": lambda: ((lambda x: nn.LSTMCell(2, 2).double()(x)[0]), [X(1, 2)]),
    "gru_cell": lambda: ((lambda x: nn.GRUCell(2, 2).double()(x)), [X(1, 2)]),
    "rnn_cell": lambda: ((lambda x: nn.RNNCell(2, 2).double()(x)), [X(1, 2)]),
}


@pytest.mark.parametrize("name", sorted(GRADGRAD))
def test_round_two_ops_pass_gradgradcheck(name):
    mt.manual_seed(0)
    fn, inputs = GRADGRAD[name]()
    assert mt.autograd.gradgradcheck(lambda *a: (mt.manual_seed(0), fn(*a))[1], inputs, atol=1e-4, rtol=1e-3)


def test_ctc_loss_refuses_create_graph_as_pytorch():
    log_probs = X(4, 1, 3)
    loss = F.ctc_loss(log_probs.log_softmax(2), mt.tensor([[1, 2]]), mt.tensor([4]), mt.tensor([2]))
    with pytest.raises(RuntimeError, match="the derivative for 'ctc_loss_backward' is not implemented"):
        mt.autograd.grad(loss, log_probs, create_graph=True)
