"""CIFAR-10 in the zoo: the training recipe, resuming it exactly, the batches it trains on, and
the shipped ResNet-20 weights."""

from __future__ import annotations

import json
import pickle
from pathlib import Path

import numpy as np
import pytest
import torch

import minitorch_rx as mt
from minitorch_rx.cli import main, training
from minitorch_rx.cli.arguments import RECIPES
from minitorch_rx.data.batches import ImageBatches
from minitorch_rx.serialization import save


def _cifar_folder(root: Path, per_batch: int = 64) -> Path:
    """A CIFAR-10 folder in torchvision's layout made of the 50 shipped test images, repeated:
    real photographs, ``per_batch`` in each of the six batch files."""
    samples = mt.data.CIFAR10Samples()
    repeat = np.arange(per_batch) % len(samples)
    folder = root / "cifar-10-batches-py"
    folder.mkdir(parents=True)
    for name in ["data_batch_1", "data_batch_2", "data_batch_3", "data_batch_4", "data_batch_5", "test_batch"]:
        batch = {
            "data": samples.data.numpy()[repeat].reshape(per_batch, 3072),
            "labels": samples.targets[repeat].tolist(),
        }
        (folder / name).write_bytes(pickle.dumps(batch))
    (folder / "batches.meta").write_bytes(pickle.dumps({"label_names": samples.classes}))
    return root


def test_resnet20_trains_one_epoch_of_the_cifar_recipe(tmp_path, capsys):
    data = _cifar_folder(tmp_path / "data")
    argv = ["train", "--model", "resnet20", "--dataset", "cifar10", "--data-root", str(data), "--no-verify"]
    assert main([*argv, "--epochs", "1", "--limit", "256", "--conv", "native", "--out", str(tmp_path / "run")]) == 0
    metrics = json.loads((tmp_path / "run" / "metrics.json").read_text())
    recipe = RECIPES["cifar10"]
    config = metrics["config"]
    assert (config["batch_size"], config["lr"], config["weight_decay"]) == (recipe.batch_size, recipe.lr, 5e-4)
    assert config["augment"] and config["nesterov"] and metrics["steps_per_epoch"] == [2]
    assert {"confusion.png", "grad_flow.png", "metrics.png"} <= {p.name for p in (tmp_path / "run").iterdir()}
    assert mt.backends.conv == "im2col"  # --conv holds for the run only
    assert "test accuracy" in capsys.readouterr().out


def test_a_resumed_cifar_run_sees_the_same_crops_flips_and_learning_rates(tmp_path, monkeypatch):
    data = _cifar_folder(tmp_path / "data")
    argv = ["train", "--model", "mlp", "--dataset", "cifar10", "--data-root", str(data), "--no-verify"]
    argv += ["--epochs", "3", "--limit", "128", "--batch-size", "32", "--quiet"]
    straight, first, resumed = tmp_path / "straight", tmp_path / "first", tmp_path / "resumed"
    assert main([*argv, "--out", str(straight)]) == 0
    saves = []

    def save_then_interrupt(obj, path):
        save(obj, path)
        saves.append(path)
        if len(saves) == 2:
            raise KeyboardInterrupt  # the run dies right after its second checkpoint

    monkeypatch.setattr(training, "save", save_then_interrupt)
    with pytest.raises(KeyboardInterrupt):
        main([*argv, "--out", str(first)])
    monkeypatch.undo()
    assert main([*argv, "--out", str(resumed), "--resume", str(first / "checkpoint.pt")]) == 0
    expected = json.loads((straight / "metrics.json").read_text())
    got = json.loads((resumed / "metrics.json").read_text())
    assert got["step_losses"] == expected["step_losses"] and got["test_loss"] == expected["test_loss"]
    a, b = (mt.load(folder / "checkpoint.pt") for folder in (straight, resumed))
    assert all(torch.equal(a["model"][key].torch(), b["model"][key].torch()) for key in a["model"])
    assert a["scheduler"] == b["scheduler"]


def test_batches_crop_flip_and_normalize_like_torchvision():
    from torchvision.transforms import v2

    samples = mt.data.CIFAR10Samples()
    batches = ImageBatches(samples, "cifar10", batch_size=50, augment=True, seed=3)
    images, labels = next(batches.epoch(0))
    assert (
        images.shape == (50, 3, 32, 32)
        and images.dtype == torch.float32
        and torch.equal(labels.torch(), samples.targets)
    )
    generator = torch.Generator().manual_seed(3 * 1000)
    # the epoch's draws in their order (no shuffle: no permutation drawn): offsets, then flips
    offsets = torch.randint(0, 9, (50, 2), generator=generator)
    flips = torch.rand(50, generator=generator) < 0.5
    mean, std = mt.data.normalization("cifar10")
    normalize = v2.Normalize(mean, std)
    for i in range(50):
        padded = v2.functional.pad(samples.data[i], [4])
        crop = v2.functional.crop(padded, int(offsets[i, 0]), int(offsets[i, 1]), 32, 32)
        if flips[i]:
            crop = v2.functional.horizontal_flip(crop)
        torch.testing.assert_close(images.torch()[i], normalize(crop.float() / 255))
    second = next(ImageBatches(samples, "cifar10", batch_size=50, augment=True, seed=3).epoch(0))[0]
    assert torch.equal(second.torch(), images.torch())  # an epoch is a function of (seed, epoch)
    assert not torch.equal(next(batches.epoch(1))[0].torch(), images.torch())


def test_ranks_split_each_epoch_into_equal_disjoint_shards():
    samples = mt.data.CIFAR10Samples()
    shards = [ImageBatches(samples, "cifar10", batch_size=7, shuffle=True, rank=r, world_size=3) for r in range(3)]
    seen = [torch.cat([labels.torch() for _, labels in shard.epoch(2)]) for shard in shards]
    assert [len(s) for s in seen] == [17, 17, 17] and all(len(shard) == 3 for shard in shards)
    whole = torch.cat([images.torch() for images, _ in ImageBatches(samples, "cifar10", 50).epoch(0)])
    firsts = [next(shard.epoch(2))[0].torch()[0] for shard in shards]
    assert all(any(torch.equal(first, image) for image in whole) for first in firsts)


def test_the_shipped_resnet20_classifies_the_shipped_cifar_samples():
    model = mt.models.get("resnet20", pretrained=True).eval()
    assert mt.models.get("resnet20", pretrained="cifar10").state_dict().keys() == model.state_dict().keys()
    samples = mt.data.CIFAR10Samples()
    images, labels = next(ImageBatches(samples, "cifar10", batch_size=50).epoch(0))
    with mt.no_grad():
        predicted = model(images).argmax(1).torch()
    correct = int((predicted == labels.torch()).sum())
    assert correct >= 42, f"{correct} of 50"  # the weights score 88.6% on the whole test set
    first = torch.stack([samples[i][0] for i in range(5)])  # the Dataset's own items agree with the batches
    torch.testing.assert_close(first, images.torch()[:5])


class _TorchBlock(torch.nn.Module):
    """torch.nn's copy of ``mt.models.resnet.BasicBlock`` with the option-A shortcut."""

    def __init__(self, planes_in: int, planes: int, stride: int) -> None:
        super().__init__()
        nn = torch.nn
        self.conv1 = nn.Conv2d(planes_in, planes, 3, stride, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(planes)
        self.conv2 = nn.Conv2d(planes, planes, 3, 1, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(planes)
        self.pad = planes // 4 if stride != 1 else None

    def forward(self, x):
        out = self.bn2(self.conv2(torch.relu(self.bn1(self.conv1(x)))))
        shortcut = (
            x if self.pad is None else torch.nn.functional.pad(x[:, :, ::2, ::2], (0, 0, 0, 0, self.pad, self.pad))
        )
        return torch.relu(out + shortcut)


class _TorchResNet20(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.conv1 = torch.nn.Conv2d(3, 16, 3, 1, 1, bias=False)
        self.bn1 = torch.nn.BatchNorm2d(16)
        stages, planes_in = [], 16
        for planes, stride in ((16, 1), (32, 2), (64, 2)):
            blocks = [_TorchBlock(planes_in if i == 0 else planes, planes, stride if i == 0 else 1) for i in range(3)]
            stages.append(torch.nn.Sequential(*blocks))
            planes_in = planes
        self.layer1, self.layer2, self.layer3 = stages
        self.fc = torch.nn.Linear(64, 10)

    def forward(self, x):
        x = self.layer3(self.layer2(self.layer1(torch.relu(self.bn1(self.conv1(x))))))
        return self.fc(x.mean((2, 3)))


@pytest.mark.parametrize("conv", ["im2col", "native"])
def test_the_cifar_recipe_steps_exactly_as_torch_nn_and_torch_optim(conv, monkeypatch):
    monkeypatch.setattr(mt.backends, "conv", conv)
    mt.manual_seed(0)
    ours = mt.models.get("resnet20").double()
    theirs = _TorchResNet20().double()
    theirs.load_state_dict({key: value.torch().clone() for key, value in ours.state_dict().items()})
    recipe = RECIPES["cifar10"]
    options = dict(lr=recipe.lr, momentum=0.9, weight_decay=recipe.weight_decay, nesterov=recipe.nesterov)
    our_optimizer, their_optimizer = (
        mt.optim.SGD(ours.parameters(), **options),
        torch.optim.SGD(theirs.parameters(), **options),
    )
    batches = ImageBatches(mt.data.CIFAR10Samples(), "cifar10", batch_size=16, shuffle=True, augment=True)
    for _, (images, labels) in zip(range(2), batches.epoch(0)):  # two steps: momentum buffers in use
        loss = mt.nn.functional.cross_entropy(ours(images.double()), labels)
        our_optimizer.zero_grad()
        loss.backward()
        our_optimizer.step()
        expected = torch.nn.functional.cross_entropy(theirs(images.torch().double()), labels.torch())
        their_optimizer.zero_grad()
        expected.backward()
        their_optimizer.step()
        torch.testing.assert_close(loss.torch(), expected.detach(), rtol=1e-12, atol=1e-12)
    expected = theirs.state_dict()
    for key, value in ours.state_dict().items():
        torch.testing.assert_close(value.torch(), expected[key], rtol=1e-10, atol=1e-12, msg=key)
