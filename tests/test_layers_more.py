"""Dropout1d/2d/3d, AlphaDropout, FeatureAlphaDropout, Unflatten, Bilinear, ParameterList,
ParameterDict and DataParallel against torch.nn: the same draws after the same seed, values and
gradients in float64, state-dict keys, reprs; gradcheck for bilinear."""

from __future__ import annotations

import warnings

import pytest
import torch
import torch.nn.functional as F
from helpers import compare_with_torch

import minitorch_rx as mt
import minitorch_rx.nn as nn
import minitorch_rx.nn.functional as mF

D = torch.float64
DROPOUTS = [
    ("dropout1d", (3, 4, 5)),
    ("dropout1d", (4, 5)),
    ("dropout2d", (2, 3, 4, 5)),
    ("dropout2d", (3, 4, 5)),
    ("dropout3d", (2, 3, 2, 2, 2)),
    ("dropout3d", (3, 2, 2, 2)),
    ("alpha_dropout", (3, 4, 5)),
    ("feature_alpha_dropout", (3, 4, 5)),
]


@pytest.mark.parametrize(("name", "shape"), DROPOUTS, ids=[f"{n}-{len(s)}d" for n, s in DROPOUTS])
@pytest.mark.parametrize("p", [0.3, 0.7])
def test_dropout_variant_draws_torchs_mask_and_backpropagates_through_it(name, shape, p):
    x = torch.randn(*shape, dtype=D)
    grad = torch.randn(*shape, dtype=D)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        mt.manual_seed(5)
        ours_in = mt.tensor(x, requires_grad=True)
        ours = getattr(mF, name)(ours_in, p, training=True)
        torch.manual_seed(5)
        theirs_in = x.clone().requires_grad_(True)
        theirs = getattr(F, name)(theirs_in, p, training=True)
    ours.backward(grad)
    theirs.backward(grad)
    torch.testing.assert_close(ours.torch(), theirs.detach())
    torch.testing.assert_close(ours_in.grad.torch(), theirs_in.grad)


@pytest.mark.parametrize("name", ["dropout1d", "dropout2d", "dropout3d", "alpha_dropout", "feature_alpha_dropout"])
def test_dropout_variant_is_identity_in_eval_and_with_p_0(name):
    x = mt.randn(*{"dropout1d": (2, 3, 4), "dropout3d": (2, 3, 4, 5, 1)}.get(name, (2, 3, 4, 5)))
    assert getattr(mF, name)(x, 0.5, training=False) is x
    assert getattr(mF, name)(x, 0.0, training=True) is x


@pytest.mark.parametrize("name", ["dropout1d", "dropout2d", "dropout3d"])
def test_channelwise_dropout_zeroes_whole_channels_and_p_1_zeroes_all(name):
    shape = {"dropout1d": (4, 6, 7), "dropout2d": (4, 6, 3, 3), "dropout3d": (4, 6, 2, 2, 2)}[name]
    out = getattr(mF, name)(mt.ones(*shape), 0.5, training=True).torch()
    per_channel = out.reshape(4, 6, -1)
    assert bool(((per_channel == 0).all(-1) | (per_channel == 2).all(-1)).all())
    assert bool((getattr(mF, name)(mt.ones(*shape), 1.0).torch() == 0).all())


@pytest.mark.parametrize("name", ["Dropout1d", "Dropout2d", "Dropout3d", "AlphaDropout", "FeatureAlphaDropout"])
def test_dropout_modules_match_torch(name):
    x = torch.randn(2, 3, 4, 3, 2, dtype=D) if name == "Dropout3d" else torch.randn(2, 3, 4, 5, dtype=D)
    if name == "Dropout1d":
        x = x[..., 0]
    ours, theirs = getattr(nn, name)(p=0.4), getattr(torch.nn, name)(p=0.4)
    assert repr(ours) == repr(theirs)
    mt.manual_seed(2)
    out = ours(mt.tensor(x))
    torch.manual_seed(2)
    torch.testing.assert_close(out.torch(), theirs(x))
    assert ours.eval()(mt.tensor(x)).torch().equal(x)


def test_inplace_dropout2d_overwrites_its_input_like_torch():
    x = torch.randn(2, 3, 4, 4, dtype=D)
    ours = mt.tensor(x.clone())
    mt.manual_seed(9)
    out = nn.Dropout2d(0.5, inplace=True)(ours)
    torch.manual_seed(9)
    expected = torch.nn.Dropout2d(0.5, inplace=True)(x)
    assert out is ours
    torch.testing.assert_close(ours.torch(), expected)


def test_alpha_dropout_keeps_mean_and_variance_of_standard_normal_inputs():
    mt.manual_seed(0)
    out = mF.alpha_dropout(mt.randn(200_000, dtype=D), 0.2, training=True).torch()
    assert abs(out.mean().item()) < 0.01 and abs(out.var().item() - 1) < 0.02


# ------------------------------------------------------------------------------- Unflatten
@pytest.mark.parametrize(("dim", "sizes"), [(1, (2, 3)), (-1, [3, -1]), (0, (4, 1))])
def test_unflatten_matches_torch(dim, sizes):
    x = torch.randn(4, 6, dtype=D)
    ours, theirs = nn.Unflatten(dim, sizes), torch.nn.Unflatten(dim, sizes)
    assert repr(ours) == repr(theirs)
    compare_with_torch(ours, theirs, [x])


# -------------------------------------------------------------------------------- Bilinear
@pytest.mark.parametrize("bias", [True, False])
@pytest.mark.parametrize("batch", [(), (5,), (2, 3)])
def test_bilinear_matches_torch_including_initialisation(bias, batch):
    torch.manual_seed(4)
    theirs = torch.nn.Bilinear(3, 4, 2, bias=bias).double()
    torch.manual_seed(4)
    ours = nn.Bilinear(3, 4, 2, bias=bias).double()
    assert repr(ours) == repr(theirs)
    assert list(ours.state_dict()) == list(theirs.state_dict())
    for (_, p), (_, q) in zip(ours.named_parameters(), theirs.named_parameters(), strict=True):
        torch.testing.assert_close(p.torch(), q.detach())
    x1, x2 = torch.randn(*batch, 3, dtype=D), torch.randn(*batch, 4, dtype=D)
    params = [p.detach() for p in theirs.parameters()]
    compare_with_torch(mF.bilinear, F.bilinear, [x1, x2, *params])


def test_bilinear_gradcheck():
    inputs = [mt.randn(*shape, dtype=D, requires_grad=True) for shape in ((3, 2), (3, 4), (5, 2, 4), (5,))]
    assert mt.autograd.gradcheck(mF.bilinear, inputs)


# ------------------------------------------------------------------ ParameterList / Dict
class Holder(nn.Module):
    def __init__(self, module_lib, tensor_lib) -> None:
        super().__init__()
        self.listed = module_lib.ParameterList([tensor_lib.ones(2), tensor_lib.zeros(3, 2)])
        self.named = module_lib.ParameterDict({"beta": tensor_lib.ones(1), "alpha": tensor_lib.zeros(2)})


class TorchHolder(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.listed = torch.nn.ParameterList([torch.ones(2), torch.zeros(3, 2)])
        self.named = torch.nn.ParameterDict({"beta": torch.ones(1), "alpha": torch.zeros(2)})


def test_parameter_containers_register_like_torch():
    ours, theirs = Holder(nn, mt), TorchHolder()
    assert list(ours.state_dict()) == list(theirs.state_dict()) == ["listed.0", "listed.1", "named.alpha", "named.beta"]
    assert repr(ours.listed) == repr(theirs.listed)
    assert repr(ours.named) == repr(theirs.named)
    assert all(isinstance(p, nn.Parameter) for p in ours.parameters())
    assert len(list(ours.parameters())) == 4


def test_parameter_containers_load_torchs_state_dict_and_train():
    ours, theirs = Holder(nn, mt), TorchHolder()
    for p in theirs.parameters():
        torch.nn.init.normal_(p)
    ours.load_state_dict(theirs.state_dict())
    loss = ours.listed[1].sum() * ours.named["alpha"].sum() + ours.listed[0].sum()
    loss.backward()
    assert ours.named["alpha"].grad.torch().tolist() == [ours.listed[1].torch().sum().item()] * 2
    torch.testing.assert_close(ours.listed[1].torch(), theirs.listed[1].detach())


def test_parameter_list_supports_list_operations():
    params = nn.ParameterList()
    params.append(mt.ones(1)).extend([mt.zeros(2), mt.zeros(3)])
    params[0] = mt.full((4,), 2.0)
    assert [p.shape[0] for p in params] == [4, 2, 3] and len(params) == 3 and len(params[1:]) == 2
    assert params[-1] is params[2]
    with pytest.raises(IndexError, match="index 3 is out of range"):
        params[3]


def test_parameter_dict_supports_dict_operations():
    params = nn.ParameterDict()
    params["w"] = mt.ones(2)
    params.update([("b", mt.zeros(1))])
    assert list(params) == ["w", "b"] and "b" in params and params.get("missing") is None
    assert params.pop("w").shape == (2,) and list(params.keys()) == ["b"]


# ---------------------------------------------------------------------------- DataParallel
def test_data_parallel_passes_through_with_module_prefixed_state_dict():
    torch.manual_seed(1)
    theirs = torch.nn.DataParallel(torch.nn.Linear(3, 2).double())
    ours = nn.DataParallel(nn.Linear(3, 2).double())
    assert repr(ours) == repr(theirs)
    assert list(ours.state_dict()) == list(theirs.state_dict()) == ["module.weight", "module.bias"]
    ours.load_state_dict(theirs.state_dict())
    assert isinstance(ours.module, nn.Linear)
    x = torch.randn(4, 3, dtype=D)
    compare_with_torch(ours, theirs, [x])
    assert ours.device_ids == ([] if not torch.cuda.is_available() else theirs.device_ids)
