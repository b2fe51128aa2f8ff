"""Transformer layers, stacks and ``nn.Transformer`` against torch.nn in float64 (dropout 0):
torch's state_dict loaded into ours, outputs, input and parameter gradients compared."""

from __future__ import annotations

import re

import pytest
import torch

import minitorch_rx as mt
import minitorch_rx.nn as nn
from tests.helpers import compare_with_torch

# torch's own modules warn about its nested-tensor fast path and mixed mask types; not ours.
pytestmark = [
    pytest.mark.filterwarnings("ignore:enable_nested_tensor is True"),
    pytest.mark.filterwarnings("ignore:Support for mismatched"),
]
F64 = torch.float64
D, HEADS, FF, N, S, T = 8, 2, 16, 2, 5, 4


def _load(ours, theirs):
    ours.load_state_dict(theirs.state_dict())
    return ours, theirs


def _compare(ours, theirs, inputs: list[torch.Tensor], call: dict) -> None:
    torch_in = [x.clone().requires_grad_() for x in inputs]
    mt_in = [mt.tensor(x, requires_grad=True) for x in inputs]
    mt_call = {k: mt.tensor(v) if isinstance(v, torch.Tensor) else v for k, v in call.items()}
    expected, out = theirs(*torch_in, **call), ours(*mt_in, **mt_call)
    assert out.shape == expected.shape
    torch.testing.assert_close(out.torch(), expected.detach())
    grad = torch.randn(expected.shape, dtype=F64)
    expected.backward(grad)
    out.backward(mt.tensor(grad))
    for a, b in zip(mt_in, torch_in):
        torch.testing.assert_close(a.grad.torch(), b.grad)
    for (name, p), (torch_name, q) in zip(ours.named_parameters(), theirs.named_parameters(), strict=True):
        assert name == torch_name
        torch.testing.assert_close(p.grad.torch(), q.grad, msg=lambda m, name=name: f"{name}: {m}")


def _seq(length: int, batch_first: bool, batched: bool = True) -> torch.Tensor:
    if not batched:
        return torch.randn(length, D, dtype=F64)
    return torch.randn((N, length, D) if batch_first else (length, N, D), dtype=F64)


def _padding(length: int) -> torch.Tensor:
    mask = torch.zeros(N, length, dtype=torch.bool)
    mask[1, -2:] = True
    return mask


LAYER_OPTIONS = [
    {},
    {"norm_first": True},
    {"activation": "gelu", "batch_first": True},
    {"activation": torch.nn.functional.gelu, "norm_first": True, "batch_first": True},
    {"bias": False},
]


def _layer_kwargs(options: dict, ours: bool) -> dict:
    kwargs = dict(options)
    if ours and kwargs.get("activation") is torch.nn.functional.gelu:
        kwargs["activation"] = mt.nn.functional.gelu  # the same function, each on its own tensors
    return {"dim_feedforward": FF, "dropout": 0.0, **kwargs}


@pytest.mark.parametrize("options", LAYER_OPTIONS)
def test_encoder_layer_matches_torch(options):
    ours, theirs = _load(
        nn.TransformerEncoderLayer(D, HEADS, **_layer_kwargs(options, True)).double(),
        torch.nn.TransformerEncoderLayer(D, HEADS, **_layer_kwargs(options, False)).double(),
    )
    batch_first = options.get("batch_first", False)
    causal = torch.nn.Transformer.generate_square_subsequent_mask(S, dtype=F64)
    for call in [
        {},
        {"src_mask": causal},
        {"src_key_padding_mask": _padding(S)},
        {"src_mask": causal, "is_causal": True},
    ]:
        ours.zero_grad()
        theirs.zero_grad()
        _compare(ours, theirs, [_seq(S, batch_first)], call)
    ours.zero_grad()
    theirs.zero_grad()
    _compare(ours, theirs, [_seq(S, batch_first, batched=False)], {"src_mask": causal})


@pytest.mark.parametrize("options", LAYER_OPTIONS)
def test_decoder_layer_matches_torch(options):
    ours, theirs = _load(
        nn.TransformerDecoderLayer(D, HEADS, **_layer_kwargs(options, True)).double(),
        torch.nn.TransformerDecoderLayer(D, HEADS, **_layer_kwargs(options, False)).double(),
    )
    batch_first = options.get("batch_first", False)
    causal = torch.nn.Transformer.generate_square_subsequent_mask(T, dtype=F64)
    calls = [
        {},
        {"tgt_mask": causal, "tgt_is_causal": True},
        {"tgt_key_padding_mask": _padding(T), "memory_key_padding_mask": _padding(S)},
        {"memory_mask": torch.randn(T, S, dtype=F64)},
    ]
    for call in calls:
        ours.zero_grad()
        theirs.zero_grad()
        _compare(ours, theirs, [_seq(T, batch_first), _seq(S, batch_first)], call)


@pytest.mark.parametrize("norm", [False, True])
def test_encoder_stack_matches_torch(norm):
    theirs = torch.nn.TransformerEncoder(
        torch.nn.TransformerEncoderLayer(D, HEADS, FF, 0.0, batch_first=True),
        num_layers=2,
        norm=torch.nn.LayerNorm(D) if norm else None,
        enable_nested_tensor=False,
    ).double()
    ours = nn.TransformerEncoder(
        nn.TransformerEncoderLayer(D, HEADS, FF, 0.0, batch_first=True),
        num_layers=2,
        norm=nn.LayerNorm(D) if norm else None,
    ).double()
    _load(ours, theirs)
    causal = torch.nn.Transformer.generate_square_subsequent_mask(S, dtype=F64)
    for call in [{"mask": causal}, {"mask": causal, "is_causal": True, "src_key_padding_mask": _padding(S)}]:
        ours.zero_grad()
        theirs.zero_grad()
        _compare(ours, theirs, [_seq(S, True)], call)


def test_decoder_stack_matches_torch():
    theirs = torch.nn.TransformerDecoder(
        torch.nn.TransformerDecoderLayer(D, HEADS, FF, 0.0, norm_first=True), num_layers=2, norm=torch.nn.LayerNorm(D)
    ).double()
    ours = nn.TransformerDecoder(
        nn.TransformerDecoderLayer(D, HEADS, FF, 0.0, norm_first=True), num_layers=2, norm=nn.LayerNorm(D)
    ).double()
    _load(ours, theirs)
    causal = torch.nn.Transformer.generate_square_subsequent_mask(T, dtype=F64)
    _compare(ours, theirs, [_seq(T, False), _seq(S, False)], {"tgt_mask": causal})


@pytest.mark.parametrize("batch_first", [False, True])
def test_transformer_matches_torch(batch_first):
    kwargs = {
        "d_model": D,
        "nhead": HEADS,
        "num_encoder_layers": 2,
        "num_decoder_layers": 1,
        "dim_feedforward": FF,
        "dropout": 0.0,
        "batch_first": batch_first,
    }
    ours, theirs = _load(nn.Transformer(**kwargs).double(), torch.nn.Transformer(**kwargs).double())
    call = {
        "tgt_mask": nn.Transformer.generate_square_subsequent_mask(T, dtype=F64).torch(),
        "src_key_padding_mask": _padding(S),
        "memory_key_padding_mask": _padding(S),
    }
    _compare(ours, theirs, [_seq(S, batch_first), _seq(T, batch_first)], call)


def test_layers_are_independent_copies_with_torch_s_names():
    ours = nn.Transformer(D, HEADS, 2, 2, FF)
    theirs = torch.nn.Transformer(D, HEADS, 2, 2, FF)
    assert [(n, p.shape) for n, p in ours.named_parameters()] == [(n, p.shape) for n, p in theirs.named_parameters()]
    first, second = ours.encoder.layers[0].linear1.weight, ours.encoder.layers[1].linear1.weight
    assert first is not second and not torch.equal(first.torch(), second.torch())


def test_square_subsequent_mask_is_torch_s():
    expected = torch.nn.Transformer.generate_square_subsequent_mask(4)
    assert torch.equal(nn.Transformer.generate_square_subsequent_mask(4).torch(), expected)


def test_causal_encoder_never_looks_ahead():
    encoder = nn.TransformerEncoder(nn.TransformerEncoderLayer(D, HEADS, FF, 0.0, batch_first=True), 2).double()
    mask = nn.Transformer.generate_square_subsequent_mask(S, dtype=F64)
    x = torch.randn(1, S, D, dtype=F64)
    changed = x.clone()
    changed[0, -1] += 1.0
    first, second = (encoder(mt.tensor(t), mask=mask, is_causal=True).torch() for t in (x, changed))
    torch.testing.assert_close(first[0, :-1], second[0, :-1])
    assert not torch.allclose(first[0, -1], second[0, -1])


@pytest.mark.parametrize(
    ("call", "error", "message"),
    [
        (
            lambda: nn.TransformerEncoderLayer(10, 4),
            ValueError,
            "embed_dim must be divisible by num_heads, got embed_dim=10 and num_heads=4",
        ),
        (
            lambda: nn.TransformerEncoderLayer(8, 2, activation="tanh"),
            RuntimeError,
            "activation should be relu/gelu, not tanh",
        ),
        (
            lambda: nn.TransformerEncoderLayer(8, 2)(mt.randn(5, 2, 8), src_mask=mt.zeros(4, 4)),
            RuntimeError,
            "The shape of the 2D attn_mask is torch.Size([4, 4]), but should be (5, 5).",
        ),
        (
            lambda: nn.Transformer(8, 2, 1, 1, 16)(mt.randn(5, 2, 8), mt.randn(4, 3, 8)),
            RuntimeError,
            "the batch number of src and tgt must be equal, got 2 and 3",
        ),
        (
            lambda: nn.TransformerDecoderLayer(8, 2)(
                mt.randn(4, 2, 8), mt.randn(5, 2, 8), memory_key_padding_mask=mt.zeros(2, 4, dtype=mt.bool)
            ),
            AssertionError,
            "expected shape of key_padding_mask to be (2, 5), but got (2, 4)",
        ),
    ],
)
def test_bad_input_names_the_shapes(call, error, message):
    with pytest.raises(error, match=re.escape(message)):
        call()


@pytest.mark.parametrize("batch_first", [False, True])
def test_training_with_dropout_draws_torch_s_masks(batch_first):
    """Dropout in attention, after attention and in the feed-forward block: after the same seed,
    the same masks as torch.nn's layers (each layer's outputs laid out in memory as torch's)."""
    for ours_cls, theirs_cls, inputs in [
        (nn.TransformerEncoderLayer, torch.nn.TransformerEncoderLayer, [_seq(S, batch_first)]),
        (nn.TransformerDecoderLayer, torch.nn.TransformerDecoderLayer, [_seq(T, batch_first), _seq(S, batch_first)]),
    ]:
        ours, theirs = _load(
            ours_cls(D, HEADS, FF, 0.3, batch_first=batch_first).double(),
            theirs_cls(D, HEADS, FF, 0.3, batch_first=batch_first).double(),
        )
        torch.manual_seed(0)
        expected = theirs(*inputs)
        mt.manual_seed(0)
        torch.testing.assert_close(ours(*[mt.tensor(x) for x in inputs]).torch(), expected.detach())


@pytest.mark.parametrize("approximate", ["none", "tanh"])
def test_gelu_then_linear_as_one_node_keeps_its_input_alone_and_passes_gradcheck(approximate):
    from minitorch_rx.ops.linear import gelu_linear

    h = mt.randn(2, 3, 4, dtype=F64, requires_grad=True)
    w, b = mt.randn(5, 4, dtype=F64, requires_grad=True), mt.randn(5, dtype=F64, requires_grad=True)
    out = gelu_linear(h, w, b, approximate)
    assert type(out.grad_fn).__name__ == "GELULinearBackward0"
    assert [t.data_ptr() for t in out.grad_fn.saved_tensors] == [h.torch().data_ptr(), w.torch().data_ptr()]
    expected = torch.nn.functional.linear(
        torch.nn.functional.gelu(h.torch(), approximate=approximate), w.torch(), b.torch()
    )
    torch.testing.assert_close(out.torch(), expected)
    fused = lambda h, w, b: gelu_linear(h, w, b, approximate)  # noqa: E731
    compare_with_torch(
        fused,
        lambda h, w, b: torch.nn.functional.linear(torch.nn.functional.gelu(h, approximate=approximate), w, b),
        [h.torch(), w.torch(), b.torch()],
    )
    assert mt.autograd.gradcheck(fused, (h, w, b))
    assert mt.autograd.gradgradcheck(fused, (h, w, b))
    assert mt.autograd.gradcheck(lambda h, w: gelu_linear(h, w, None, approximate), (h, w))


def test_the_feed_forward_block_fuses_gelu_and_linear2_only_where_nothing_observes_them():
    layer = nn.TransformerEncoderLayer(D, HEADS, dim_feedforward=FF, dropout=0.0, activation="gelu")
    x = mt.randn(S, N, D)
    names = lambda out: {type(node).__name__ for node in _nodes(out.grad_fn)}  # noqa: E731
    assert "GELULinearBackward0" in names(layer(x))
    seen = []
    layer.linear2.register_forward_hook(lambda *args: seen.append(1))
    assert "GELULinearBackward0" not in names(layer(x)) and seen
    dropping = nn.TransformerEncoderLayer(D, HEADS, dim_feedforward=FF, dropout=0.1, activation="gelu")
    assert "GELULinearBackward0" not in names(dropping(x))
    assert "GELULinearBackward0" in names(dropping.eval()(x))


def _nodes(root) -> list:
    seen, stack = [], [root]
    while stack:
        node = stack.pop()
        if node is None or any(node is s for s in seen):
            continue
        seen.append(node)
        stack.extend(n for n, _ in node.next_functions)
    return seen
