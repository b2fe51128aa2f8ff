"""``nn.RNN``/``LSTM``/``GRU`` and their cells against torch.nn in float64: torch's state_dict
loaded into ours, then outputs, final states, input and parameter gradients compared."""

from __future__ import annotations

import functools
import itertools
import re

import pytest
import torch

import minitorch_rx as mt
import minitorch_rx.nn as nn
from minitorch_rx.ops import rnn_cells

F64 = torch.float64
INPUT, HIDDEN, STEPS, BATCH = 4, 5, 3, 2


def _pair(name: str, *args, **kwargs):
    theirs = getattr(torch.nn, name)(*args, **kwargs).double()
    ours = getattr(nn, name)(*args, **kwargs).double()
    ours.load_state_dict(theirs.state_dict())
    return ours, theirs


def _flat(out) -> list:
    flat = []
    for item in out if isinstance(out, tuple) else (out,):
        flat.extend(_flat(item) if isinstance(item, tuple) else [item])
    return flat


def _compare(ours, theirs, inputs: list[torch.Tensor]) -> None:
    """Run both modules on ``inputs`` (nested tuples allowed), compare outputs, then the
    gradients of every input and parameter under the same random output gradients."""

    def build(wrap):
        def convert(x):
            if isinstance(x, tuple):
                return tuple(convert(i) for i in x)
            return wrap(x)

        return [convert(x) for x in inputs]

    mt_leaves, torch_leaves = [], []

    def mt_wrap(x):
        t = mt.tensor(x.clone(), requires_grad=True)
        mt_leaves.append(t)
        return t

    def torch_wrap(x):
        t = x.clone().requires_grad_()
        torch_leaves.append(t)
        return t

    mt_out, torch_out = _flat(ours(*build(mt_wrap))), _flat(theirs(*build(torch_wrap)))
    assert len(mt_out) == len(torch_out)
    for a, b in zip(mt_out, torch_out):
        assert a.shape == b.shape, (a.shape, b.shape)
        torch.testing.assert_close(a.torch(), b.detach())
    grads = [torch.randn(b.shape, dtype=F64) for b in torch_out]
    torch.autograd.backward(torch_out, grads)
    sum((a * mt.tensor(g)).sum() for a, g in zip(mt_out, grads)).backward()
    for a, b in zip(mt_leaves, torch_leaves):
        torch.testing.assert_close(a.grad.torch(), b.grad)
    for (name, p), (torch_name, q) in zip(ours.named_parameters(), theirs.named_parameters(), strict=True):
        assert name == torch_name
        torch.testing.assert_close(p.grad.torch(), q.grad, msg=lambda m, name=name: f"{name}: {m}")


def _inputs(name: str, batched: bool, batch_first: bool, initial: bool, layers: int, proj: int = 0) -> list:
    x_shape = (BATCH, STEPS, INPUT) if batch_first else (STEPS, BATCH, INPUT)
    inputs = [torch.randn(x_shape if batched else (STEPS, INPUT), dtype=F64)]
    if initial:
        batch = (BATCH,) if batched else ()
        h = torch.randn(layers, *batch, proj or HIDDEN, dtype=F64)
        inputs.append((h, torch.randn(layers, *batch, HIDDEN, dtype=F64)) if name == "LSTM" else h)
    return inputs


GRID = list(itertools.product([1, 2], [False, True], [True, False]))  # layers, bidirectional, bias


@pytest.mark.parametrize("name", ["RNN", "LSTM", "GRU"])
@pytest.mark.parametrize(("layers", "bidirectional", "bias"), GRID)
def test_recurrent_layer_matches_torch(name, layers, bidirectional, bias):
    ours, theirs = _pair(name, INPUT, HIDDEN, num_layers=layers, bidirectional=bidirectional, bias=bias)
    states = layers * (2 if bidirectional else 1)
    for batched, initial in [(True, False), (True, True), (False, True)]:
        ours.zero_grad()
        theirs.zero_grad()
        _compare(ours, theirs, _inputs(name, batched, False, initial, states))


@pytest.mark.parametrize("name", ["RNN", "LSTM", "GRU"])
def test_batch_first_matches_torch(name):
    ours, theirs = _pair(name, INPUT, HIDDEN, num_layers=2, batch_first=True)
    _compare(ours, theirs, _inputs(name, True, True, True, 2))


def test_relu_rnn_matches_torch():
    ours, theirs = _pair("RNN", INPUT, HIDDEN, num_layers=2, nonlinearity="relu", bidirectional=True)
    _compare(ours, theirs, _inputs("RNN", True, False, True, 4))


@pytest.mark.parametrize(("bidirectional", "batched"), [(False, True), (True, True), (True, False)])
def test_lstm_with_projection_matches_torch(bidirectional, batched):
    ours, theirs = _pair("LSTM", INPUT, HIDDEN, num_layers=2, proj_size=3, bidirectional=bidirectional)
    states = 2 * (2 if bidirectional else 1)
    _compare(ours, theirs, _inputs("LSTM", batched, False, True, states, proj=3))


def test_parameter_names_shapes_and_order_are_torch_s():
    for name, kwargs in [
        ("LSTM", {"num_layers": 2, "bidirectional": True, "proj_size": 2}),
        ("GRU", {"bias": False}),
        ("RNN", {"num_layers": 3}),
    ]:
        ours, theirs = _pair(name, INPUT, HIDDEN, **kwargs)
        assert [(n, p.shape) for n, p in ours.named_parameters()] == [
            (n, p.shape) for n, p in theirs.named_parameters()
        ]


def test_initialization_draws_as_torch():
    torch.manual_seed(3)
    theirs = torch.nn.LSTM(INPUT, HIDDEN, num_layers=2)
    mt.manual_seed(3)
    ours = nn.LSTM(INPUT, HIDDEN, num_layers=2)
    for p, q in zip(ours.parameters(), theirs.parameters()):
        assert torch.equal(p.torch(), q.detach())


def test_dropout_between_layers_only_in_training():
    lstm = nn.LSTM(INPUT, HIDDEN, num_layers=2, dropout=0.5).double()
    x = mt.randn(STEPS, BATCH, INPUT, dtype=mt.float64)
    lstm.eval()
    first, second = lstm(x)[0], lstm(x)[0]
    assert torch.equal(first.torch(), second.torch())
    lstm.train()
    mt.manual_seed(0)
    dropped = lstm(x)[0]
    assert not torch.equal(dropped.torch(), first.torch())


@pytest.mark.parametrize("name", ["RNNCell", "LSTMCell", "GRUCell"])
@pytest.mark.parametrize("bias", [True, False])
def test_cells_match_torch(name, bias):
    ours, theirs = _pair(name, INPUT, HIDDEN, bias=bias)
    h = torch.randn(BATCH, HIDDEN, dtype=F64)
    state = (h, torch.randn(BATCH, HIDDEN, dtype=F64)) if name == "LSTMCell" else h
    _compare(ours, theirs, [torch.randn(BATCH, INPUT, dtype=F64), state])
    _compare(ours, theirs, [torch.randn(BATCH, INPUT, dtype=F64)])
    unbatched = (h[0], state[1][0]) if name == "LSTMCell" else h[0]
    _compare(ours, theirs, [torch.randn(INPUT, dtype=F64), unbatched])


def test_relu_cell_matches_torch():
    ours, theirs = _pair("RNNCell", INPUT, HIDDEN, nonlinearity="relu")
    _compare(ours, theirs, [torch.randn(BATCH, INPUT, dtype=F64), torch.randn(BATCH, HIDDEN, dtype=F64)])


@pytest.mark.parametrize(
    ("cell", "shapes"),
    [
        (rnn_cells.LSTMCell.apply, [(2, 12), (2, 12), (2, 3)]),
        (rnn_cells.GRUCell.apply, [(2, 9), (2, 9), (2, 3)]),
        (rnn_cells.RNNTanhCell.apply, [(2, 3), (2, 3)]),
    ],
)
def test_fused_cells_pass_gradcheck(cell, shapes):
    inputs = [mt.randn(*s, dtype=mt.float64, requires_grad=True) for s in shapes]
    assert mt.autograd.gradcheck(cell, inputs)


class _SavedAsMt:
    """A ctx whose saved tensors come back as mt.Tensors, as under ``create_graph=True``."""

    def __init__(self, ctx) -> None:
        self.saved_tensors = tuple(mt.tensor(t) for t in ctx.saved_tensors)


@pytest.mark.parametrize(
    ("cell", "shapes", "outputs"),
    [
        (rnn_cells.LSTMCell, [(2, 12), (2, 12), (2, 3)], 2),
        (rnn_cells.GRUCell, [(2, 9), (2, 9), (2, 3)], 1),
        (rnn_cells.RNNTanhCell, [(2, 3), (2, 3)], 1),
        (rnn_cells.RNNReLUCell, [(2, 3), (2, 3)], 1),
    ],
)
def test_fused_cell_backward_runs_on_mt_tensors_alike(cell, shapes, outputs):
    """The create_graph branch (gradients as mt.Tensors, gates recomputed) gives the first-order values."""
    inputs = [mt.randn(*s, dtype=mt.float64, requires_grad=True) for s in shapes]
    out = cell.apply(*inputs)
    out = out if isinstance(out, tuple) else (out,)
    grads = [torch.randn(o.shape, dtype=F64) for o in out]
    plain = cell.backward(out[0].grad_fn, *grads)
    recomputed = cell.backward(_SavedAsMt(out[0].grad_fn), *[mt.tensor(g) for g in grads])
    assert len(out) == outputs
    for a, b in zip(plain, recomputed):
        assert isinstance(b, mt.Tensor)
        torch.testing.assert_close(b.torch(), a)


def test_an_op_fed_an_unbound_step_and_a_product_routes_both_gradients():
    """An op whose first input is one output of a multi-output node and whose second is an
    ordinary op's output: each gradient reaches its own input (an engine fix made for the RNNs)."""
    x = mt.randn(3, 2, 12, dtype=mt.float64, requires_grad=True)
    w = mt.randn(12, 3, dtype=mt.float64, requires_grad=True)
    steps = rnn_cells.unbind(x)
    h, c = rnn_cells.LSTMCell.apply(
        steps[1], mt.randn(2, 3, dtype=mt.float64) @ w.t(), mt.zeros(2, 3, dtype=mt.float64)
    )
    (h.sum() + c.sum()).backward()
    assert x.grad.torch()[0].abs().sum() == 0 and x.grad.torch()[1].abs().sum() > 0
    assert w.grad.shape == w.shape


@pytest.mark.parametrize(
    ("call", "error", "message"),
    [
        (
            lambda: nn.LSTM(4, 5)(mt.randn(3, 2, 4), (mt.randn(2, 2, 5), mt.randn(1, 2, 5))),
            RuntimeError,
            "Expected hidden[0] size (1, 2, 5), got [2, 2, 5]",
        ),
        (
            lambda: nn.LSTM(4, 5)(mt.randn(3, 2, 4), (mt.randn(1, 2, 5), mt.randn(1, 3, 5))),
            RuntimeError,
            "Expected hidden[1] size (1, 2, 5), got [1, 3, 5]",
        ),
        (
            lambda: nn.GRU(4, 5, num_layers=2)(mt.randn(3, 2, 4), mt.randn(1, 2, 5)),
            RuntimeError,
            "Expected hidden size (2, 2, 5), got [1, 2, 5]",
        ),
        (
            lambda: nn.RNN(4, 5)(mt.randn(3, 4), mt.randn(1, 2, 5)),
            RuntimeError,
            "For unbatched 2-D input, hx should also be 2-D but got 3-D tensor",
        ),
        (
            lambda: nn.RNN(4, 5)(mt.randn(3, 2, 6)),
            RuntimeError,
            "input.size(-1) must be equal to input_size. Expected 4, got 6",
        ),
        (lambda: nn.GRU(4, 5)(mt.randn(1, 3, 2, 4)), ValueError, "GRU: Expected input to be 2D or 3D, got 4D instead"),
        (
            lambda: nn.GRUCell(4, 5)(mt.randn(2, 4), mt.randn(3, 5)),
            RuntimeError,
            "GRUCell: Expected hx size (2, 5), got [3, 5]",
        ),
        (
            lambda: nn.LSTMCell(4, 5)(mt.randn(2, 3)),
            RuntimeError,
            "input has inconsistent input_size: got 3 expected 4",
        ),
        (
            lambda: nn.RNN(4, 5, nonlinearity="gelu"),
            ValueError,
            "Unknown nonlinearity 'gelu'. Select from 'tanh' or 'relu'.",
        ),
        (
            lambda: nn.GRU(4, 5, proj_size=2),
            ValueError,
            "proj_size argument is only supported for LSTM, not RNN or GRU",
        ),
        (lambda: nn.LSTM(4, 5, proj_size=5), ValueError, "proj_size has to be smaller than hidden_size"),
    ],
)
def test_bad_input_names_the_shapes(call, error, message):
    with pytest.raises(error, match=re.escape(message)):
        call()


def test_dropout_between_layers_draws_torch_s_masks():
    ours, theirs = _pair("LSTM", INPUT, HIDDEN, num_layers=3, dropout=0.5)
    x = torch.randn(STEPS, BATCH, INPUT, dtype=F64)
    torch.manual_seed(0)
    expected = theirs(x)[0]
    mt.manual_seed(0)
    torch.testing.assert_close(ours(mt.tensor(x))[0].torch(), expected.detach())


@pytest.mark.parametrize("bidirectional", [False, True])
def test_lstm_layer_second_order_matches_torch(bidirectional):
    """The fused LSTM layer (one node per layer and direction) under create_graph: its backward
    re-runs the steps recorded, so gradients of gradients equal torch's."""
    ours, theirs = _pair("LSTM", INPUT, HIDDEN, num_layers=2, bidirectional=bidirectional)
    states = 2 * (2 if bidirectional else 1)
    x = torch.randn(STEPS, BATCH, INPUT, dtype=F64)
    h0, c0 = torch.randn(states, BATCH, HIDDEN, dtype=F64), torch.randn(states, BATCH, HIDDEN, dtype=F64)
    weights = [torch.randn(STEPS, BATCH, HIDDEN * (2 if bidirectional else 1), dtype=F64)]
    weights += [torch.randn(states, BATCH, HIDDEN, dtype=F64) for _ in range(2)]
    results = []
    for model, wrap in (
        (ours, lambda t: mt.tensor(t, requires_grad=True)),
        (theirs, lambda t: t.clone().requires_grad_()),
    ):
        inputs = [wrap(x), wrap(h0), wrap(c0)]
        out, (h_n, c_n) = model(inputs[0], (inputs[1], inputs[2]))
        loss = sum((y * w).sum() for y, w in zip((out, h_n, c_n), weights))
        wrt = inputs + list(model.parameters())
        autograd = mt.autograd if model is ours else torch.autograd
        first = autograd.grad(loss, wrt, create_graph=True)
        second = autograd.grad(sum((g * g).sum() for g in first), wrt)
        results.append([g.torch() if isinstance(g, mt.Tensor) else g for g in (*first, *second)])
    for a, b in zip(*results):
        torch.testing.assert_close(a.detach(), b.detach())


def test_lstm_layer_passes_gradcheck():
    x = mt.randn(3, 2, 5, dtype=F64, requires_grad=True)
    w_ih, b_ih = mt.randn(8, 5, dtype=F64, requires_grad=True), mt.randn(8, dtype=F64, requires_grad=True)
    h0, c0 = mt.randn(2, 2, dtype=F64, requires_grad=True), mt.randn(2, 2, dtype=F64, requires_grad=True)
    w_hh, b_hh = mt.randn(8, 2, dtype=F64, requires_grad=True), mt.randn(8, dtype=F64, requires_grad=True)
    for reverse in (False, True):
        layer = functools.partial(_layer, reverse=reverse)
        assert mt.autograd.gradcheck(layer, (x, w_ih, b_ih, h0, c0, w_hh, b_hh))
        without_biases = functools.partial(_layer_without_biases, reverse=reverse)
        assert mt.autograd.gradcheck(without_biases, (x, w_ih, h0, c0, w_hh))


def _layer(*args, reverse):
    return rnn_cells.LSTMLayer.apply(*args, reverse)


def _layer_without_biases(x, w_ih, h0, c0, w_hh, reverse):
    return rnn_cells.LSTMLayer.apply(x, w_ih, None, h0, c0, w_hh, None, reverse)
