"""Datasets, the mt.Tensor loader, and mt.save / mt.load."""

from __future__ import annotations

import collections
import shutil
from pathlib import Path

import pytest
import torch

import minitorch_rx as mt

SHARED_DATA = Path(__file__).resolve().parents[2] / "shared" / "data"


def test_shipped_mnist_subset_is_real_mnist():
    train, test = mt.data.MNIST(train=True), mt.data.MNIST(train=False)
    assert (len(train), len(test)) == (10_000, 2_000)
    image, label = train[0]
    assert image.shape == (1, 28, 28) and label == 5  # MNIST's first training image is a 5


def test_loader_yields_mt_tensor_batches():
    images, labels = next(iter(mt.data.DataLoader(mt.data.MNIST(train=False), batch_size=32)))
    assert isinstance(images, mt.Tensor) and isinstance(labels, mt.Tensor)
    assert images.shape == (32, 1, 28, 28) and labels.dtype == torch.int64


def test_loader_shuffle_is_reproducible_with_a_seed():
    def first_labels(seed):
        return next(iter(mt.data.DataLoader(mt.data.MNIST(train=False), batch_size=16, shuffle=True, seed=seed)))[
            1
        ].tolist()

    assert first_labels(3) == first_labels(3)
    assert first_labels(3) != first_labels(4)


@pytest.mark.skipif(not (SHARED_DATA / "MNIST").exists(), reason="needs ../shared/data")
def test_torchvision_mnist_from_a_data_root(tmp_path):
    shutil.copytree(SHARED_DATA / "MNIST", tmp_path / "MNIST")
    test = mt.data.MNIST(tmp_path, train=False, download=True)
    assert len(test) == 10_000
    assert torch.equal(test[0][0], mt.data.MNIST(train=False)[0][0])


def test_unknown_dataset_raises():
    with pytest.raises(ValueError, match="unknown dataset 'imagenet'"):
        mt.data.get_dataset("imagenet")


def test_save_and_load_round_trip_a_checkpoint(tmp_path):
    model = mt.nn.Linear(3, 2)
    optimizer = mt.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    model(mt.randn(4, 3)).sum().backward()
    optimizer.step()
    path = tmp_path / "ck.pt"
    mt.save(
        {"model": model.state_dict(), "optimizer": optimizer.state_dict(), "epoch": 3, "rng": torch.get_rng_state()},
        path,
    )
    loaded = mt.load(path)
    assert isinstance(loaded["model"], collections.OrderedDict)
    assert isinstance(loaded["model"]["weight"], mt.Tensor)
    assert torch.equal(loaded["model"]["weight"].torch(), model.weight.torch())
    assert loaded["epoch"] == 3
    restored = mt.optim.SGD(mt.nn.Linear(3, 2).parameters(), lr=0.1, momentum=0.9)
    restored.load_state_dict(loaded["optimizer"])


def test_save_replaces_the_file_atomically(tmp_path):
    path = tmp_path / "weights.pt"
    mt.save({"v": mt.ones(2)}, path)
    mt.save({"v": mt.zeros(2)}, path)
    assert mt.load(path)["v"].tolist() == [0.0, 0.0]
    assert [p.name for p in tmp_path.iterdir()] == ["weights.pt"]


def test_load_refuses_a_pickle_that_would_run_code(tmp_path):
    marker = tmp_path / "ran"

    class Payload:
        def __reduce__(self):
            return (Path.touch, (marker,))

    torch.save({"x": Payload()}, tmp_path / "evil.pt")
    with pytest.raises(mt.serialization.CheckpointError, match="evil.pt"):
        mt.load(tmp_path / "evil.pt")
    assert not marker.exists()


def test_load_names_a_truncated_file(tmp_path):
    mt.save({"v": mt.ones(100)}, tmp_path / "full.pt")
    (tmp_path / "cut.pt").write_bytes((tmp_path / "full.pt").read_bytes()[:200])
    with pytest.raises(mt.serialization.CheckpointError, match="cut.pt"):
        mt.load(tmp_path / "cut.pt")
