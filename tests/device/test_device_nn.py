"""Layers, model-zoo training steps and optimizers on the suite's device against torch.nn and
torch.optim on the same device: parameters, buffers, gradients and optimizer state stay there."""

from __future__ import annotations

import pytest
import torch

import minitorch_rx as mt
import minitorch_rx.nn as nn
import minitorch_rx.nn.functional as F
import minitorch_rx.optim as optim
from bench.models import CASES as MODEL_CASES
from bench.models import twins
from tests.device.common import assert_close, compare_grads, twin_modules

LAYERS = {
    "linear": (lambda m: m.Linear(5, 3), (4, 5)),
    "bilinear": (lambda m: m.Bilinear(5, 5, 2), None),
    "conv2d": (lambda m: m.Conv2d(3, 4, 3, padding=1, stride=2), (2, 3, 7, 7)),
    "conv_transpose2d": (lambda m: m.ConvTranspose2d(3, 2, 3, stride=2), (2, 3, 4, 4)),
    "batchnorm2d": (lambda m: m.BatchNorm2d(3), (4, 3, 5, 5)),
    "batchnorm1d": (lambda m: m.BatchNorm1d(5), (6, 5)),
    "layernorm": (lambda m: m.LayerNorm(5), (2, 3, 5)),
    "groupnorm": (lambda m: m.GroupNorm(2, 4), (2, 4, 3, 3)),
    "prelu": (lambda m: m.PReLU(3), (2, 3, 4)),
    "lstm": (lambda m: m.LSTM(5, 6, num_layers=2), (4, 2, 5)),
    "gru": (lambda m: m.GRU(5, 6, batch_first=True, bidirectional=True), (2, 4, 5)),
    "rnn": (lambda m: m.RNN(5, 6), (4, 2, 5)),
    "mha": (lambda m: m.MultiheadAttention(8, 2, batch_first=True), None),
    "transformer_layer": (
        lambda m: m.TransformerEncoderLayer(8, 2, 16, dropout=0.0, batch_first=True, norm_first=True),
        (2, 5, 8),
    ),
}


def _run(module, x, name):
    if name == "bilinear":
        return module(x, x * 2)
    if name == "mha":
        return module(x, x, x, need_weights=False)[0]
    out = module(x)
    return out[0] if isinstance(out, tuple) else out


@pytest.mark.parametrize("dtype", [torch.float64, torch.float32], ids=["f64", "f32"])
@pytest.mark.parametrize("name", list(LAYERS))
def test_layer_matches_torch_nn_on_the_device(device, name, dtype):
    build, shape = LAYERS[name]
    torch.manual_seed(0)
    ours, theirs = twin_modules(build(nn), build(torch.nn), device, dtype)
    shape = shape or ((3, 5) if name == "bilinear" else (2, 4, 8))
    x = torch.randn(shape, generator=torch.Generator().manual_seed(1)).to(device, dtype)
    out = _run(ours, mt.tensor(x, requires_grad=True), name)
    ref = _run(theirs, x, name)
    assert out.device == ref.device
    assert_close(out, ref, dtype, "output")
    (out * out).sum().backward()
    (ref * ref).sum().backward()
    compare_grads(ours, theirs, dtype, scale=5.0)
    for (key, buf), ref_buf in zip(ours.state_dict().items(), theirs.state_dict().values()):
        assert buf.device == ref_buf.device, key
        assert_close(buf, ref_buf, dtype, key)


@pytest.mark.parametrize("backend", ["im2col", "native"])
@pytest.mark.parametrize("model", ["lenet5", "resnet20"])
def test_model_zoo_training_steps_match_torch_on_the_device(device, model, backend):
    """Two SGD steps of the bench's twin models (float64; ResNet-20 on 16x16 images): losses and
    weights stay torch's."""
    case = MODEL_CASES[model]
    ours, theirs = twins(case)
    ours.to(device, torch.float64)
    theirs.to(device, torch.float64)
    generator = torch.Generator().manual_seed(2)
    shape = (3, 16, 16) if model == "resnet20" else case.input_shape
    x = torch.randn(2, *shape, generator=generator).to(device, torch.float64)
    y = torch.randint(0, 10, (2,), generator=generator).to(device)
    opt = optim.SGD(ours.parameters(), lr=0.05, momentum=0.9)
    ref_opt = torch.optim.SGD(theirs.parameters(), lr=0.05, momentum=0.9)
    default, mt.backends.conv = mt.backends.conv, backend
    try:
        for _ in range(2):
            loss = F.cross_entropy(ours(mt.tensor(x)), mt.tensor(y))
            ref = torch.nn.functional.cross_entropy(theirs(x), y)
            assert_close(loss, ref, torch.float64, "loss", scale=100.0)
            opt.zero_grad()
            loss.backward()
            opt.step()
            ref_opt.zero_grad()
            ref.backward()
            ref_opt.step()
    finally:
        mt.backends.conv = default
    for (key, ours_t), theirs_t in zip(ours.state_dict().items(), theirs.state_dict().values()):
        assert ours_t.device == theirs_t.device, key
        assert_close(ours_t, theirs_t, torch.float64, key, scale=1e3)


def test_module_to_and_back_keeps_parameters_and_optimizer_working(device):
    model = nn.Sequential(nn.Linear(3, 4), nn.BatchNorm1d(4), nn.Linear(4, 2))
    opt = optim.Adam(model.parameters(), lr=0.1)
    first = model[0].weight
    model.to(device)
    assert model[0].weight is first and first.device.type == device.type
    assert all(b.device.type == device.type for b in model.buffers())
    if device.type == "cuda":
        model.cpu()
        assert first.device.type == "cpu"
        model.cuda()
        assert first.device.type == "cuda"
    loss = model(mt.randn(5, 3, device=device)).sum()
    loss.backward()
    opt.step()
    state = opt.state[first]
    assert state["exp_avg"].device == first.device and state["step"].device.type == "cpu"  # torch's step
    assert model[1].num_batches_tracked.item() == 1


OPTIMIZERS = {
    "sgd": (optim.SGD, torch.optim.SGD, dict(lr=0.1, momentum=0.9, nesterov=True, weight_decay=0.01)),
    "adam": (optim.Adam, torch.optim.Adam, dict(lr=0.05, amsgrad=True)),
    "adamw": (optim.AdamW, torch.optim.AdamW, dict(lr=0.05, weight_decay=0.1)),
    "rmsprop": (optim.RMSprop, torch.optim.RMSprop, dict(lr=0.01, momentum=0.5, centered=True)),
    "adagrad": (optim.Adagrad, torch.optim.Adagrad, dict(lr=0.1)),
    "nadam": (optim.NAdam, torch.optim.NAdam, dict(lr=0.05)),
    "radam": (optim.RAdam, torch.optim.RAdam, dict(lr=0.05)),
    "adamax": (optim.Adamax, torch.optim.Adamax, dict(lr=0.05)),
    "adadelta": (optim.Adadelta, torch.optim.Adadelta, dict(lr=0.5)),
    "asgd": (optim.ASGD, torch.optim.ASGD, dict(lr=0.05, t0=2)),  # scalars on the parameter's device
    "rprop": (optim.Rprop, torch.optim.Rprop, dict(lr=0.01)),  # its step on the CPU
    "rprop-capturable": (optim.Rprop, torch.optim.Rprop, dict(lr=0.01, capturable=True)),  # on the device
}


@pytest.mark.parametrize("dtype", [torch.float64, torch.float32], ids=["f64", "f32"])
@pytest.mark.parametrize("name", list(OPTIMIZERS))
def test_optimizer_steps_match_torch_optim_on_the_device(device, name, dtype):
    ours_cls, torch_cls, kwargs = OPTIMIZERS[name]
    if kwargs.get("capturable") and device.type != "cuda":
        pytest.skip("torch's capturable optimizers take CUDA parameters only")
    torch.manual_seed(0)
    ours, theirs = twin_modules(nn.Linear(6, 3), torch.nn.Linear(6, 3), device, dtype)
    opt, ref_opt = ours_cls(ours.parameters(), **kwargs), torch_cls(theirs.parameters(), **kwargs)
    x = torch.randn(8, 6, generator=torch.Generator().manual_seed(1)).to(device, dtype)
    for _ in range(4):
        for model, optimizer, inp in ((ours, opt, mt.tensor(x)), (theirs, ref_opt, x)):
            optimizer.zero_grad()
            (model(inp) ** 2).mean().backward()
            optimizer.step()
    for (key, p), q in zip(ours.state_dict().items(), theirs.state_dict().values()):
        assert_close(p, q, dtype, key, scale=10.0)
    for p, q in zip(ours.parameters(), theirs.parameters()):
        for key, value in ref_opt.state[q].items():
            mine = opt.state[p][key]
            mine = mine.torch() if isinstance(mine, mt.Tensor) else mine
            assert mine.device == value.device, (key, mine.device, value.device)
            assert_close(mine, value, dtype, key, scale=10.0)


def test_optimizer_state_dict_loads_onto_the_parameters_device(device):
    """Saved from the CPU, loaded by an optimizer whose parameters are on the device (or back):
    the state follows the parameters, as torch.optim's load_state_dict casts it."""
    model = nn.Linear(3, 2)
    opt = optim.Adam(model.parameters())
    model(mt.randn(4, 3)).sum().backward()
    opt.step()
    state = opt.state_dict()
    model.to(device)
    fresh = optim.Adam(model.parameters())
    fresh.load_state_dict(state)
    for p in model.parameters():
        assert fresh.state[p]["exp_avg"].device == p.device
    model(mt.randn(4, 3, device=device)).sum().backward()
    fresh.step()


def test_clip_grad_norm_on_the_device(device):
    torch.manual_seed(0)
    ours, theirs = twin_modules(nn.Linear(4, 3), torch.nn.Linear(4, 3), device)
    x = torch.randn(5, 4, dtype=torch.float64, device=device)
    (ours(mt.tensor(x)) * 10).sum().backward()
    (theirs(x) * 10).sum().backward()
    norm = nn.utils.clip_grad_norm_(ours.parameters(), 1.0)
    ref = torch.nn.utils.clip_grad_norm_(theirs.parameters(), 1.0)
    assert_close(norm, ref)
    nn.utils.clip_grad_value_(ours.parameters(), 0.1)
    torch.nn.utils.clip_grad_value_(theirs.parameters(), 0.1)
    compare_grads(ours, theirs, torch.float64)


def test_data_loader_moves_batches_to_the_device(device):
    data = torch.utils.data.TensorDataset(torch.randn(10, 3), torch.arange(10))
    loader = mt.data.DataLoader(data, batch_size=4, device=device, pin_memory=device.type == "cuda")
    for x, y in loader:
        assert isinstance(x, mt.Tensor) and x.device.type == device.type and y.device.type == device.type


def test_image_batches_on_the_device_are_the_cpus(device):
    """The training loop's batches (cut from the data set held on the device, augmented there)
    equal the CPU's for the same seed: the order and augmentation are drawn on the CPU."""
    from minitorch_rx.data.batches import ImageBatches

    test_set = mt.data.MNIST(train=False)
    kwargs = dict(batch_size=256, shuffle=True, augment=True, seed=3)
    on_device = ImageBatches(test_set, "mnist", device=device, **kwargs)
    on_cpu = ImageBatches(test_set, "mnist", **kwargs)
    for (x, y), (x_cpu, y_cpu) in zip(on_device.epoch(1), on_cpu.epoch(1)):
        assert x.device == device and y.device == device
        torch.testing.assert_close(x.torch().cpu(), x_cpu.torch())
        assert torch.equal(y.torch().cpu(), y_cpu.torch())
