"""``F.scaled_dot_product_attention`` and ``nn.MultiheadAttention`` against PyTorch's, in float64."""

from __future__ import annotations

import re

import pytest
import torch
import torch.nn.functional as TF

import minitorch_rx as mt
import minitorch_rx.nn as nn
import minitorch_rx.nn.functional as F
from minitorch_rx.ops.attention import ScaledDotProductAttention
from tests.helpers import compare_with_torch

F64 = torch.float64


def _qkv(batch=(2, 3), length=4, source=6, width=5, value_width=7) -> list[torch.Tensor]:
    return [
        torch.randn(*batch, length, width, dtype=F64),
        torch.randn(*batch, source, width, dtype=F64),
        torch.randn(*batch, source, value_width, dtype=F64),
    ]


def _bool_mask(*shape: int) -> torch.Tensor:
    mask = torch.rand(*shape) > 0.4
    mask[..., 1, :] = False  # one query with every key masked: zeros, as PyTorch's
    return mask


MASKS = {
    "none": lambda: {},
    "bool 2-D": lambda: {"attn_mask": _bool_mask(4, 6)},
    "bool 4-D": lambda: {"attn_mask": _bool_mask(2, 3, 4, 6)},
    "float broadcast": lambda: {"attn_mask": torch.randn(2, 1, 4, 6, dtype=F64)},
    "float with -inf row": lambda: {
        "attn_mask": torch.zeros(4, 6, dtype=F64).index_fill_(0, torch.tensor([2]), -1e400)
    },
    "causal": lambda: {"is_causal": True},
    "scale": lambda: {"scale": 0.3},
    "bool and scale": lambda: {"attn_mask": _bool_mask(4, 6), "scale": 1.7},
}


def _mt_kwargs(kwargs: dict) -> dict:
    return {k: mt.tensor(v) if isinstance(v, torch.Tensor) else v for k, v in kwargs.items()}


@pytest.mark.parametrize("mask", list(MASKS))
def test_sdpa_matches_torch(mask):
    kwargs = MASKS[mask]()
    compare_with_torch(
        lambda q, k, v: F.scaled_dot_product_attention(q, k, v, **_mt_kwargs(kwargs)),
        lambda q, k, v: TF.scaled_dot_product_attention(q, k, v, **kwargs),
        _qkv(),
    )


@pytest.mark.parametrize("source", [4, 6, 2])
def test_sdpa_causal_on_square_and_rectangular_scores(source):
    compare_with_torch(
        lambda q, k, v: F.scaled_dot_product_attention(q, k, v, is_causal=True),
        lambda q, k, v: TF.scaled_dot_product_attention(q, k, v, is_causal=True),
        _qkv(source=source),
    )


def test_sdpa_unbatched_and_grouped_query_heads():
    compare_with_torch(F.scaled_dot_product_attention, TF.scaled_dot_product_attention, _qkv(batch=()))
    q = _qkv(batch=(2, 6))[0]
    _, k, v = _qkv(batch=(2, 3))
    compare_with_torch(
        lambda q, k, v: F.scaled_dot_product_attention(q, k, v, enable_gqa=True, is_causal=True),
        lambda q, k, v: TF.scaled_dot_product_attention(q, k, v, enable_gqa=True, is_causal=True),
        [q, k, v],
    )


def test_sdpa_broadcasts_batch_dims_and_sums_their_gradients_back():
    q = torch.randn(2, 3, 4, 5, dtype=F64)
    _, k, v = _qkv(batch=(1, 3))
    compare_with_torch(F.scaled_dot_product_attention, TF.scaled_dot_product_attention, [q, k, v])
    _, k, v = _qkv(batch=(3,))
    compare_with_torch(F.scaled_dot_product_attention, TF.scaled_dot_product_attention, [q, k, v])


def test_sdpa_dropout_draws_torch_s_mask_and_scales_the_gradient():
    q, k, v = _qkv()
    torch.manual_seed(0)
    compare_with_torch(
        lambda *a: (torch.manual_seed(0), F.scaled_dot_product_attention(*a, dropout_p=0.4))[1],
        lambda *a: (torch.manual_seed(0), TF.scaled_dot_product_attention(*a, dropout_p=0.4))[1],
        [q, k, v],
    )


def test_sdpa_is_one_node_and_passes_gradcheck():
    q, k, v = (mt.tensor(t, requires_grad=True) for t in _qkv(batch=(2,), length=3, source=4, width=3, value_width=2))
    out = F.scaled_dot_product_attention(q, k, v, attn_mask=mt.tensor(_bool_mask(3, 4)))
    assert type(out.grad_fn).__name__ == "ScaledDotProductAttentionBackward0"
    assert {type(n).__name__ for n, _ in out.grad_fn.next_functions if n is not None} == {"AccumulateGrad"}
    assert mt.autograd.gradcheck(lambda q, k, v: F.scaled_dot_product_attention(q, k, v, is_causal=True), (q, k, v))


def test_sdpa_backward_runs_on_mt_tensors_alike():
    """The create_graph branch (gradients as mt.Tensors, probabilities recomputed) gives the first-order values."""
    q, k, v = (mt.tensor(t, requires_grad=True) for t in _qkv())
    out = F.scaled_dot_product_attention(q, k, v, attn_mask=mt.tensor(_bool_mask(4, 6)))
    ctx = out.grad_fn
    grads = [torch.randn(out.shape, dtype=F64), torch.randn(2, 3, 4, 6, dtype=F64)]
    plain = ScaledDotProductAttention.backward(ctx, *grads)

    class SavedAsMt:
        params = ctx.params
        needs_input_grad = ctx.needs_input_grad
        saved_tensors = tuple(None if t is None else mt.tensor(t) for t in ctx.saved_tensors)

    recomputed = ScaledDotProductAttention.backward(SavedAsMt(), *[mt.tensor(g) for g in grads])
    for a, b in zip(plain[:3], recomputed[:3]):
        assert isinstance(b, mt.Tensor)
        torch.testing.assert_close(b.torch(), a)


# ----------------------------------------------------------------------------- MultiheadAttention
E, HEADS, N, L, S = 8, 2, 2, 3, 4


def _some_keys_masked(mask: torch.Tensor) -> torch.Tensor:
    mask[..., 0] = False  # every query keeps a key (PyTorch's MHA gives NaN for a fully masked one)
    return mask


def _mha_pair(**kwargs):
    theirs = torch.nn.MultiheadAttention(E, HEADS, **kwargs).double()
    ours = nn.MultiheadAttention(E, HEADS, **kwargs).double()
    ours.load_state_dict(theirs.state_dict())
    return ours, theirs


def _compare_mha(ours, theirs, inputs: list[torch.Tensor], self_attention: bool, call: dict) -> None:
    if self_attention:
        t = inputs[0].clone().requires_grad_()
        m = mt.tensor(inputs[0], requires_grad=True)
        torch_args, mt_args, leaves = [t, t, t], [m, m, m], [(m, t)]
    else:
        torch_args = [x.clone().requires_grad_() for x in inputs]
        mt_args = [mt.tensor(x, requires_grad=True) for x in inputs]
        leaves = list(zip(mt_args, torch_args))
    torch_out = [o for o in theirs(*torch_args, **call) if o is not None]
    mt_out = [o for o in ours(*mt_args, **_mt_kwargs(call)) if o is not None]
    assert len(mt_out) == len(torch_out)
    for a, b in zip(mt_out, torch_out):
        assert a.shape == b.shape
        torch.testing.assert_close(a.torch(), b.detach())
    grads = [torch.randn(b.shape, dtype=F64) for b in torch_out]
    torch.autograd.backward(torch_out, grads)
    sum((a * mt.tensor(g)).sum() for a, g in zip(mt_out, grads)).backward()
    for a, b in leaves:
        torch.testing.assert_close(a.grad.torch(), b.grad)
    for (name, p), (_, q) in zip(ours.named_parameters(), theirs.named_parameters(), strict=True):
        torch.testing.assert_close(p.grad.torch(), q.grad, msg=lambda m, name=name: f"{name}: {m}")


CALLS = {
    "plain": lambda b: {},
    "no weights": lambda b: {"need_weights": False},
    "per-head weights": lambda b: {"average_attn_weights": False},
    "bool attn_mask": lambda b: {"attn_mask": _some_keys_masked(torch.rand(L, S) > 0.6)},
    "float attn_mask": lambda b: {"attn_mask": torch.randn(L, S, dtype=F64)},
    "3-D attn_mask": lambda b: {"attn_mask": _some_keys_masked(torch.rand(N * HEADS, L, S) > 0.6)} if b else {},
    "key_padding_mask": lambda b: {"key_padding_mask": torch.tensor([[False, False, True, True]] * N)} if b else {},
    "both masks": lambda b: (
        {
            "key_padding_mask": torch.tensor([[False, True, False, True]] * N),
            "attn_mask": _some_keys_masked(torch.rand(L, S) > 0.6),
        }
        if b
        else {}
    ),
}


@pytest.mark.parametrize(("batch_first", "batched"), [(False, True), (True, True), (False, False)])
@pytest.mark.parametrize("call", list(CALLS))
def test_multihead_attention_matches_torch(batch_first, batched, call):
    ours, theirs = _mha_pair(batch_first=batch_first)
    for self_attention in (True, False):
        length, source = (L, L) if self_attention else (L, S)
        shape = (lambda n: (N, n, E) if batch_first else (n, N, E)) if batched else (lambda n: (n, E))
        inputs = [torch.randn(shape(length), dtype=F64), torch.randn(shape(source), dtype=F64)]
        inputs.append(torch.randn(shape(source), dtype=F64))
        kwargs = CALLS[call](batched)
        if self_attention and kwargs:  # masks sized for L x L
            kwargs = {k: v[..., :L] for k, v in kwargs.items() if isinstance(v, torch.Tensor)} | {
                k: v for k, v in kwargs.items() if not isinstance(v, torch.Tensor)
            }
        ours.zero_grad()
        theirs.zero_grad()
        _compare_mha(ours, theirs, inputs, self_attention, kwargs)


@pytest.mark.parametrize(
    "kwargs",
    [{"kdim": 5, "vdim": 6}, {"bias": False}, {"add_bias_kv": True}, {"add_zero_attn": True}],
)
def test_multihead_attention_options_match_torch(kwargs):
    ours, theirs = _mha_pair(**kwargs)
    inputs = [
        torch.randn(L, N, E, dtype=F64),
        torch.randn(S, N, kwargs.get("kdim", E), dtype=F64),
        torch.randn(S, N, kwargs.get("vdim", E), dtype=F64),
    ]
    _compare_mha(ours, theirs, inputs, False, {"key_padding_mask": torch.tensor([[False, False, False, True]] * N)})


def test_multihead_attention_causal_hint_matches_torch():
    ours, theirs = _mha_pair()
    mask = torch.nn.Transformer.generate_square_subsequent_mask(L, dtype=F64)
    for need_weights in (False, True):
        ours.zero_grad()
        theirs.zero_grad()
        call = {"attn_mask": mask, "is_causal": True, "need_weights": need_weights}
        _compare_mha(ours, theirs, [torch.randn(L, N, E, dtype=F64)], True, call)


def test_multihead_attention_parameters_and_init_are_torch_s():
    for kwargs in ({}, {"kdim": 3, "vdim": 5, "add_bias_kv": True}):
        torch.manual_seed(1)
        theirs = torch.nn.MultiheadAttention(E, HEADS, **kwargs)
        mt.manual_seed(1)
        ours = nn.MultiheadAttention(E, HEADS, **kwargs)
        expected = theirs.state_dict()
        assert list(ours.state_dict()) == list(expected)
        for name, value in ours.state_dict().items():
            assert torch.equal(value.torch(), expected[name]), name


@pytest.mark.parametrize(
    ("call", "error", "message"),
    [
        (
            lambda: nn.MultiheadAttention(10, 3),
            ValueError,
            "embed_dim must be divisible by num_heads, got embed_dim=10 and num_heads=3",
        ),
        (
            lambda: nn.MultiheadAttention(4, 2)(
                mt.randn(3, 1, 4), mt.randn(3, 1, 4), mt.randn(3, 1, 4), attn_mask=mt.ones(3, 4, dtype=mt.bool)
            ),
            RuntimeError,
            "The shape of the 2D attn_mask is torch.Size([3, 4]), but should be (3, 3).",
        ),
        (
            lambda: nn.MultiheadAttention(4, 2)(
                mt.randn(3, 1, 4), mt.randn(3, 1, 4), mt.randn(3, 1, 4), attn_mask=mt.ones(3, 3, dtype=mt.int64)
            ),
            AssertionError,
            "only bool and floating types of attn_mask are supported, got torch.int64",
        ),
        (
            lambda: nn.MultiheadAttention(4, 2)(
                mt.randn(3, 2, 4), mt.randn(3, 2, 4), mt.randn(3, 2, 4), key_padding_mask=mt.ones(3, 2, dtype=mt.bool)
            ),
            AssertionError,
            "expected shape of key_padding_mask to be (2, 3), but got (3, 2)",
        ),
        (
            lambda: F.scaled_dot_product_attention(
                mt.randn(2, 3, 4), mt.randn(2, 5, 4), mt.randn(2, 5, 4), attn_mask=mt.ones(4, 5, dtype=mt.bool)
            ),
            RuntimeError,
            "attn_mask of shape [4, 5] does not broadcast to the attention scores' shape [2, 3, 5]",
        ),
        (
            lambda: F.scaled_dot_product_attention(
                mt.randn(2, 3, 4), mt.randn(2, 5, 4), mt.randn(2, 5, 4), attn_mask=mt.ones(3, 5, dtype=mt.int64)
            ),
            RuntimeError,
            "Expected attn_mask dtype to be bool or float or to match query dtype, but got attn_mask.dtype: long int",
        ),
        (
            lambda: F.scaled_dot_product_attention(
                mt.randn(3, 4), mt.randn(5, 4), mt.randn(5, 4), attn_mask=mt.ones(3, 5, dtype=mt.bool), is_causal=True
            ),
            RuntimeError,
            "Explicit attn_mask should not be set when is_causal=True",
        ),
    ],
)
def test_bad_input_names_the_shapes_and_dtypes(call, error, message):
    with pytest.raises(error, match=re.escape(message)):
        call()


def test_sdpa_float_mask_that_requires_grad_gets_torchs_gradient():
    q, k, v = _qkv()
    mask = torch.randn(4, 6, dtype=F64)
    compare_with_torch(
        lambda q, k, v, m: F.scaled_dot_product_attention(q, k, v, attn_mask=m),
        torch.nn.functional.scaled_dot_product_attention,
        [q, k, v, mask],
    )
