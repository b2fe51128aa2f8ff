"""PyTorch's own module database (``common_modules.module_db``) run against minitorch_rx.

Each ModuleInput (float64, CPU, training mode) builds torch's module and mt's module of the same
name with the same constructor arguments, copies torch's parameters and buffers into mt's, runs
both forwards, and compares the outputs, then the gradients of the floating inputs and of every
parameter for a random output gradient. Lazy modules are materialized by their first forward in
both before the state is copied. Modules whose forward draws random numbers are compared by
shape and dtype only (``RANDOM``).
"""

from __future__ import annotations

import copy

import pytest
import torch

import minitorch_rx as mt

common_modules = pytest.importorskip("torch.testing._internal.common_modules")  # needs expecttest

# Their forward draws random numbers, which mt draws in another order than torch.
RANDOM = {"Dropout", "Dropout1d", "Dropout2d", "Dropout3d", "AlphaDropout", "FeatureAlphaDropout", "RReLU"}


def _to_mt(value):
    """``value`` with its torch tensors as mt tensors (same ``requires_grad``) and its torch modules
    as mt modules of the same configuration."""
    if isinstance(value, torch.Tensor):
        return mt.tensor(value.detach().clone(), requires_grad=value.requires_grad)
    if isinstance(value, torch.nn.TransformerEncoderLayer):
        return _mt_encoder_layer(value)
    if isinstance(value, (list, tuple)):
        return type(value)(_to_mt(v) for v in value)
    if isinstance(value, dict):
        return {k: _to_mt(v) for k, v in value.items()}
    return value


def _to_torch(value):
    if isinstance(value, torch.Tensor):
        return value.detach().clone().requires_grad_(value.requires_grad)
    if isinstance(value, (list, tuple)):
        return type(value)(_to_torch(v) for v in value)
    if isinstance(value, dict):
        return {k: _to_torch(v) for k, v in value.items()}
    return value


def _mt_encoder_layer(layer: torch.nn.TransformerEncoderLayer):
    """The mt layer configured as torch's ``layer`` (TransformerEncoder takes a layer to clone)."""
    activation = layer.activation
    return mt.nn.TransformerEncoderLayer(
        layer.self_attn.embed_dim,
        layer.self_attn.num_heads,
        layer.linear1.out_features,
        layer.dropout.p,
        activation=getattr(activation, "__name__", None) or type(activation).__name__.lower(),
        layer_norm_eps=layer.norm1.eps,
        batch_first=layer.self_attn.batch_first,
        norm_first=layer.norm_first,
        bias=layer.linear1.bias is not None,
        dtype=layer.linear1.weight.dtype,
    )


def _leaves(value, kind) -> list:
    if isinstance(value, kind):
        return [value]
    if isinstance(value, (list, tuple)):
        return [leaf for v in value for leaf in _leaves(v, kind)]
    if isinstance(value, dict):
        return [leaf for v in value.values() for leaf in _leaves(v, kind)]
    return []


def _module_inputs(info):
    return info.module_inputs_func(info, device="cpu", dtype=torch.float64, requires_grad=True, training=True)


def _build(info, module_input):
    """torch's module and mt's, materialized, with mt holding torch's parameters and buffers."""
    name = info.module_cls.__name__
    args, kwargs = module_input.constructor_input.args, module_input.constructor_input.kwargs
    torch.manual_seed(0)
    theirs = info.module_cls(*copy.deepcopy(args), **copy.deepcopy(kwargs)).to(torch.float64).train()
    ours = getattr(mt.nn, name)(*_to_mt(args), **_to_mt(kwargs)).to(torch.float64).train()
    forward = module_input.forward_input
    if name.startswith("Lazy"):
        with torch.no_grad():
            theirs(*_to_torch(forward.args), **_to_torch(forward.kwargs))
        with mt.no_grad():
            ours(*_to_mt(forward.args), **_to_mt(forward.kwargs))
    state = {k: v.detach().clone() for k, v in theirs.state_dict().items()}
    ours.load_state_dict(state)
    return theirs, ours


# At most this many inputs per module (evenly spread), to keep the sweep within CI's budget:
# LinearCrossEntropyLoss alone has 865, CrossEntropyLoss 105.
MAX_INPUTS = 16


def _assert_close(ours, theirs, what: str) -> None:
    assert isinstance(ours, mt.Tensor), f"{what}: {type(ours).__name__}"
    assert ours.shape == theirs.shape, (what, ours.shape, theirs.shape)
    assert ours.dtype == theirs.dtype, (what, ours.dtype, theirs.dtype)
    torch.testing.assert_close(ours.torch(), theirs.detach(), atol=1e-7, rtol=1e-6, equal_nan=True, msg=what)


@pytest.mark.parametrize("info", common_modules.module_db, ids=lambda info: info.module_cls.__name__)
def test_module_matches_torch(info) -> None:
    inputs = [m for m in _module_inputs(info) if m.forward_input is not None]
    step = -(-len(inputs) // MAX_INPUTS)
    for index, module_input in enumerate(inputs[::step]):
        try:
            _check(info, module_input)
        except Exception as error:
            raise AssertionError(f"{info.module_cls.__name__} input {index * step} ({module_input.desc})") from error


def _check(info, module_input) -> None:
    theirs, ours = _build(info, module_input)
    forward = module_input.forward_input
    torch_args, torch_kwargs = _to_torch(forward.args), _to_torch(forward.kwargs)
    mt_args, mt_kwargs = _to_mt(forward.args), _to_mt(forward.kwargs)
    torch.manual_seed(0)
    expected = theirs(*torch_args, **torch_kwargs)
    torch.manual_seed(0)
    actual = ours(*mt_args, **mt_kwargs)
    expected_out, actual_out = _leaves(expected, torch.Tensor), _leaves(actual, mt.Tensor)
    assert len(expected_out) == len(actual_out)
    name = info.module_cls.__name__
    if name in RANDOM:
        for a, e in zip(actual_out, expected_out):
            assert (a.shape, a.dtype) == (e.shape, e.dtype)
        return
    for k, (a, e) in enumerate(zip(actual_out, expected_out)):
        _assert_close(a, e, f"output {k}")
    pairs = [(a, e) for a, e in zip(actual_out, expected_out) if e.requires_grad]
    if not pairs:
        return
    generator = torch.Generator().manual_seed(1)
    grads = [torch.randn(e.shape, dtype=e.dtype, generator=generator) for _, e in pairs]
    torch_wrt = [t for t in _leaves((torch_args, torch_kwargs), torch.Tensor) if t.requires_grad]
    mt_wrt = [t for t in _leaves((mt_args, mt_kwargs), mt.Tensor) if t.requires_grad]
    torch_wrt += [p for _, p in theirs.named_parameters()]
    mt_wrt += [p for _, p in ours.named_parameters()]
    assert len(torch_wrt) == len(mt_wrt)
    expected_grads = torch.autograd.grad([e for _, e in pairs], torch_wrt, grads, allow_unused=True)
    actual_grads = mt.autograd.grad([a for a, _ in pairs], mt_wrt, grads, allow_unused=True)
    for k, (a, e) in enumerate(zip(actual_grads, expected_grads)):
        if e is None:
            assert a is None or not bool(a.torch().any()), f"gradient {k}: torch gives none"
            continue
        assert a is not None, f"gradient {k}: none from minitorch_rx"
        _assert_close(a, e, f"gradient {k}")
