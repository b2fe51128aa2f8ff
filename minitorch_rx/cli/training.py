"""The training and evaluation loops behind ``minitorch-rx train`` / ``eval`` (and the examples)."""

from __future__ import annotations

import json
import random
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np
import torch
from tqdm import tqdm

from .. import models, optim
from ..autograd.grad_mode import no_grad
from ..data import DataLoader, get_dataset
from ..nn import Module
from ..nn import functional as F
from ..random import manual_seed
from ..serialization import load, save


@dataclass
class TrainConfig:
    model: str = "lenet5"
    dataset: str = "mnist"
    data_root: str | None = None
    epochs: int = 8
    batch_size: int = 64
    lr: float = 0.05
    optimizer: str = "sgd"
    momentum: float = 0.9
    weight_decay: float = 0.0
    device: str = "cpu"
    out: str = "runs/latest"
    resume: str | None = None
    seed: int = 0
    num_workers: int = 0
    limit: int | None = None  # train (and test) on the first `limit` images only: quick smoke runs
    progress: bool = True


@dataclass
class History:
    train_loss: list[float] = field(default_factory=list)
    train_accuracy: list[float] = field(default_factory=list)
    test_loss: list[float] = field(default_factory=list)
    test_accuracy: list[float] = field(default_factory=list)
    images_per_second: list[float] = field(default_factory=list)
    step_losses: list[float] = field(default_factory=list)


def build_optimizer(name: str, params, lr: float, momentum: float, weight_decay: float) -> optim.Optimizer:
    name = name.lower()
    if name == "sgd":
        return optim.SGD(params, lr=lr, momentum=momentum, weight_decay=weight_decay)
    if name == "adam":
        return optim.Adam(params, lr=lr, weight_decay=weight_decay)
    if name == "adamw":
        return optim.AdamW(params, lr=lr, weight_decay=weight_decay or 1e-2)
    raise ValueError(f"unknown optimizer '{name}'; choose sgd, adam or adamw")


def rng_state() -> dict:
    return {
        "torch": torch.get_rng_state(),
        "numpy": torch.from_numpy(np.random.get_state()[1].astype(np.int64)),
        "numpy_pos": int(np.random.get_state()[2]),
        "python": repr(random.getstate()),
    }


def set_rng_state(state: dict) -> None:
    import ast

    torch.set_rng_state(state["torch"])
    keys = state["numpy"].numpy().astype(np.uint32)
    np.random.set_state(("MT19937", keys, state["numpy_pos"], 0, 0.0))
    random.setstate(ast.literal_eval(state["python"]))


def evaluate(model: Module, loader: DataLoader, device: str = "cpu", progress: bool = False, desc: str = "eval") -> tuple[float, float]:
    """Mean cross-entropy loss and accuracy (0..1) of ``model`` over ``loader``."""
    model.eval()
    total_loss, correct, count = 0.0, 0, 0
    with no_grad():
        for images, labels in tqdm(loader, desc=desc, leave=False, disable=not progress):
            images, labels = images.to(device), labels.to(device)
            logits = model(images)
            total_loss += F.cross_entropy(logits, labels, reduction="sum").item()
            correct += int((logits.argmax(1) == labels).sum().item())
            count += labels.shape[0]
    return total_loss / max(count, 1), correct / max(count, 1)


def train(config: TrainConfig) -> History:
    """Train ``config.model`` on ``config.dataset``; write checkpoint, metrics JSON and plot to ``config.out``."""
    out = Path(config.out)
    out.mkdir(parents=True, exist_ok=True)
    manual_seed(config.seed)
    model = models.get(config.model, **_model_kwargs(config.model, config.dataset)).to(config.device)
    optimizer = build_optimizer(config.optimizer, model.parameters(), config.lr, config.momentum, config.weight_decay)
    scheduler = optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=config.epochs)
    train_set = _limited(get_dataset(config.dataset, config.data_root, train=True), config.limit)
    test_set = _limited(get_dataset(config.dataset, config.data_root, train=False), config.limit)
    test_loader = DataLoader(test_set, batch_size=256, num_workers=config.num_workers)
    history = History()
    start_epoch = 0
    if config.resume:
        checkpoint = load(config.resume)
        model.load_state_dict(checkpoint["model"])
        optimizer.load_state_dict(checkpoint["optimizer"])
        scheduler.load_state_dict(checkpoint["scheduler"])
        set_rng_state(checkpoint["rng"])
        history = History(**json.loads(checkpoint["history"]))
        start_epoch = checkpoint["epoch"]
    for epoch in range(start_epoch, config.epochs):
        # The shuffle order depends only on (seed, epoch), so a resumed run sees the same batches.
        loader = DataLoader(train_set, batch_size=config.batch_size, shuffle=True, seed=config.seed * 1000 + epoch, num_workers=config.num_workers)
        model.train()
        seen, correct, loss_sum, started = 0, 0, 0.0, time.perf_counter()
        bar = tqdm(loader, desc=f"epoch {epoch + 1}/{config.epochs}", disable=not config.progress)
        for images, labels in bar:
            images, labels = images.to(config.device), labels.to(config.device)
            logits = model(images)
            loss = F.cross_entropy(logits, labels)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            batch = labels.shape[0]
            value = loss.item()
            history.step_losses.append(value)
            loss_sum += value * batch
            correct += int((logits.argmax(1) == labels).sum().item())
            seen += batch
            bar.set_postfix(loss=f"{loss_sum / seen:.4f}", acc=f"{correct / seen:.4f}", img_s=f"{seen / (time.perf_counter() - started):.0f}")
        scheduler.step()
        history.train_loss.append(loss_sum / seen)
        history.train_accuracy.append(correct / seen)
        history.images_per_second.append(seen / (time.perf_counter() - started))
        test_loss, test_accuracy = evaluate(model, test_loader, config.device, config.progress)
        history.test_loss.append(test_loss)
        history.test_accuracy.append(test_accuracy)
        if config.progress:
            tqdm.write(f"epoch {epoch + 1}: train loss {loss_sum / seen:.4f}, test loss {test_loss:.4f}, test accuracy {test_accuracy:.2%}")
        save(
            {
                "model": model.state_dict(),
                "optimizer": optimizer.state_dict(),
                "scheduler": scheduler.state_dict(),
                "epoch": epoch + 1,
                "rng": rng_state(),
                "history": json.dumps(asdict(history)),
                "config": json.dumps(asdict(config)),
            },
            out / "checkpoint.pt",
        )
    (out / "metrics.json").write_text(json.dumps({"config": asdict(config), **asdict(history)}, indent=2))
    plot_history(history, out / "metrics.png")
    return history


def _limited(dataset, limit: int | None):
    return dataset if limit is None else torch.utils.data.Subset(dataset, range(min(limit, len(dataset))))


def _model_kwargs(model: str, dataset: str) -> dict:
    channels = 3 if dataset.lower() == "cifar10" else 1
    if model in ("lenet5", "resnet20", "vgg11_bn", "resnet18", "resnet34"):
        return {"in_channels": channels, "num_classes": 10}
    if model == "mlp":
        return {"in_features": channels * (32 * 32 if channels == 3 else 28 * 28), "num_classes": 10}
    return {}


def plot_history(history: History, path: Path) -> None:
    """Loss and accuracy per epoch, as a PNG."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    epochs = range(1, len(history.train_loss) + 1)
    figure, (left, right) = plt.subplots(1, 2, figsize=(10, 4))
    left.plot(epochs, history.train_loss, marker="o", label="train")
    left.plot(epochs, history.test_loss, marker="o", label="test")
    left.set(xlabel="epoch", ylabel="cross-entropy loss", title="Loss")
    left.legend()
    right.plot(epochs, [100 * a for a in history.train_accuracy], marker="o", label="train")
    right.plot(epochs, [100 * a for a in history.test_accuracy], marker="o", label="test")
    right.set(xlabel="epoch", ylabel="accuracy (%)", title="Accuracy")
    right.legend()
    figure.tight_layout()
    figure.savefig(path, dpi=100)
    plt.close(figure)
