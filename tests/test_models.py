"""The model zoo: every model trains one step, and the ones with a torch twin load its weights."""

from __future__ import annotations

import pytest
import torch

import minitorch_rx as mt
import minitorch_rx.nn as nn


@pytest.mark.parametrize("name", [n for n in mt.models.INPUT_SHAPES if n not in ("resnet18", "resnet34")])
def test_zoo_model_runs_forward_and_backward(name):
    model = mt.models.get(name)
    x = mt.randn(2, *mt.models.INPUT_SHAPES[name])
    loss = nn.functional.cross_entropy(model(x), mt.tensor([1, 3]))
    loss.backward()
    assert all(p.grad is not None and bool(torch.isfinite(p.grad.torch()).all()) for p in model.parameters())


def test_list_names_every_model():
    assert mt.models.list() == [
        "c3d_small",
        "char_lstm",
        "gpt_char",
        "lenet5",
        "m5",
        "mlp",
        "resnet18",
        "resnet20",
        "resnet34",
        "vgg11_bn",
    ]
    # the image models (the text models, gpt_char and char_lstm, are tested in test_gpt_char.py)
    assert set(mt.models.INPUT_SHAPES) == set(mt.models.list()) - {"char_lstm", "gpt_char"}


def test_unknown_model_raises():
    with pytest.raises(ValueError, match="unknown model 'resnet1000'"):
        mt.models.get("resnet1000")


def test_resnet20_has_the_papers_parameter_count():
    assert sum(p.numel() for p in mt.models.resnet20().parameters()) == 269_722


@pytest.mark.parametrize("name", ["resnet18", "resnet34"])
def test_torchvision_resnet_state_dict_loads_and_outputs_agree(name):
    import torchvision

    torch.manual_seed(0)
    theirs = getattr(torchvision.models, name)().eval().double()
    ours = mt.models.get(name).eval().double()
    result = ours.load_state_dict(theirs.state_dict())
    assert not result.missing_keys and not result.unexpected_keys
    x = torch.randn(1, 3, 64, 64, dtype=torch.float64)
    with torch.no_grad():
        expected = theirs(x)
    # float64, so the comparison sees the model, not float32 rounding of im2col vs native conv.
    torch.testing.assert_close(ours(mt.from_torch(x)).torch(), expected, atol=1e-5, rtol=1e-5)


class TorchLeNet5(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = torch.nn.Conv2d(1, 6, 5, padding=2)
        self.conv2 = torch.nn.Conv2d(6, 16, 5)
        self.fc1 = torch.nn.Linear(400, 120)
        self.fc2 = torch.nn.Linear(120, 84)
        self.fc3 = torch.nn.Linear(84, 10)

    def forward(self, x):
        F = torch.nn.functional
        x = F.max_pool2d(F.relu(self.conv1(x)), 2)
        x = F.max_pool2d(F.relu(self.conv2(x)), 2).flatten(1)
        return self.fc3(F.relu(self.fc2(F.relu(self.fc1(x)))))


def test_lenet5_matches_its_torch_twin():
    theirs = TorchLeNet5().double()
    ours = mt.models.lenet5().double()
    ours.load_state_dict(theirs.state_dict())
    x = torch.randn(3, 1, 28, 28, dtype=torch.float64)
    torch.testing.assert_close(ours(mt.from_torch(x)).torch(), theirs(x).detach())


def test_pretrained_lenet5_loads_the_shipped_weights():
    model = mt.models.get("lenet5", pretrained=True).eval()
    images, labels = next(iter(mt.data.DataLoader(mt.data.MNIST(train=False), batch_size=500)))
    with mt.no_grad():
        accuracy = (model(images).argmax(1) == labels).float().mean().item()
    assert accuracy > 0.98


def test_pretrained_weights_missing_for_a_model_raises():
    with pytest.raises(ValueError, match="no pretrained weights are shipped for 'vgg11_bn'"):
        mt.models.get("vgg11_bn", pretrained=True)


def test_pretrained_names_the_dataset_of_the_weights():
    with pytest.raises(ValueError, match="no pretrained weights of 'lenet5' for 'cifar10'"):
        mt.models.get("lenet5", pretrained="cifar10")
