"""The training and evaluation loops behind ``minitorch-rx train`` / ``eval`` (and the examples)."""

from __future__ import annotations

import json
import os
import random
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from datetime import timedelta
from pathlib import Path

import numpy as np
import torch
import torch.distributed as dist
from torch.utils.data import DistributedSampler, Subset
from tqdm import tqdm

from .. import models, optim
from ..autograd.grad_mode import no_grad
from ..data import DataLoader, get_dataset
from ..nn import Module
from ..nn import functional as F
from ..nn.parallel import DistributedDataParallel
from ..random import manual_seed
from ..serialization import load, save
from .grad_flow import GradFlow

#: How long a rank waits in a collective for the others before failing (a crashed or hung peer).
DISTRIBUTED_TIMEOUT = timedelta(minutes=5)


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


@dataclass(frozen=True)
class Workers:
    """This process among the training processes: rank ``rank`` of ``world_size``, computing on
    ``device``. A plain run is rank 0 of 1."""

    rank: int = 0
    world_size: int = 1
    device: str = "cpu"

    @property
    def is_main(self) -> bool:
        """Rank 0: the process that prints progress and writes checkpoints, metrics and plots."""
        return self.rank == 0

    def all_sum(self, values: Sequence[float]) -> list[float]:
        """``values`` summed element-wise over every process (one all-reduce)."""
        if self.world_size == 1:
            return list(values)
        total = torch.tensor(values, dtype=torch.float64, device=self.device)
        dist.all_reduce(total)
        return total.tolist()


@contextmanager
def process_group(device: str) -> Iterator[Workers]:
    """Join the processes that ``torchrun`` (or ``minitorch-rx train --nproc N``) started.

    They are described by the environment variables RANK, WORLD_SIZE, LOCAL_RANK, MASTER_ADDR
    and MASTER_PORT; the group uses NCCL for CUDA devices (local rank i on ``cuda:i``) and gloo
    on the CPU, and is left when the block ends. Without them (or with WORLD_SIZE=1) this is a
    single process.
    """
    world_size = int(os.environ.get("WORLD_SIZE", "1"))
    if world_size == 1:
        yield Workers(device=device)
        return
    cuda = torch.device(device).type == "cuda"
    if cuda:
        local_rank = int(os.environ.get("LOCAL_RANK", "0"))
        device = f"cuda:{local_rank}"
        torch.cuda.set_device(local_rank)
    joined = not dist.is_initialized()
    if joined:
        dist.init_process_group("nccl" if cuda else "gloo", timeout=DISTRIBUTED_TIMEOUT)
    try:
        yield Workers(dist.get_rank(), dist.get_world_size(), device)
    finally:
        if joined:
            dist.destroy_process_group()


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


def evaluate(
    model: Module, loader: DataLoader, device: str = "cpu", progress: bool = False, desc: str = "eval"
) -> tuple[float, float]:
    """Mean cross-entropy loss and accuracy (0..1) of ``model`` over ``loader``."""
    loss_sum, correct, count = evaluation_sums(model, loader, device, progress, desc)
    return loss_sum / max(count, 1), correct / max(count, 1)


def evaluation_sums(
    model: Module, loader: DataLoader, device: str = "cpu", progress: bool = False, desc: str = "eval"
) -> tuple[float, int, int]:
    """Summed cross-entropy loss, number of correct predictions and number of images over ``loader``."""
    model.eval()
    total_loss, correct, count = 0.0, 0, 0
    with no_grad():
        for images, labels in tqdm(loader, desc=desc, leave=False, disable=not progress):
            images, labels = images.to(device), labels.to(device)
            logits = model(images)
            total_loss += F.cross_entropy(logits, labels, reduction="sum").item()
            correct += int((logits.argmax(1) == labels).sum().item())
            count += labels.shape[0]
    return total_loss, correct, count


def train(config: TrainConfig) -> History:
    """Train ``config.model`` on ``config.dataset``; write checkpoint, metrics JSON and plot to ``config.out``.

    Started by ``torchrun`` (or ``--nproc``), each process trains a DistributedDataParallel
    replica on its DistributedSampler shard (``batch_size`` images per process and step) and
    evaluates its shard of the test set; metrics are summed over the processes and only rank 0
    prints progress and writes files.
    """
    with process_group(config.device) as workers:
        return _train(config, workers)


def _train(config: TrainConfig, workers: Workers) -> History:
    out = Path(config.out)
    if workers.is_main:
        out.mkdir(parents=True, exist_ok=True)
    manual_seed(config.seed)
    device = workers.device
    model = models.get(config.model, **_model_kwargs(config.model, config.dataset)).to(device)
    optimizer = build_optimizer(config.optimizer, model.parameters(), config.lr, config.momentum, config.weight_decay)
    scheduler = optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=config.epochs)
    train_set = _limited(get_dataset(config.dataset, config.data_root, train=True), config.limit)
    test_set = _shard(_limited(get_dataset(config.dataset, config.data_root, train=False), config.limit), workers)
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
    net, sampler = model, None
    if workers.world_size > 1:
        local = torch.device(device)
        net = DistributedDataParallel(model, device_ids=[local.index] if local.type == "cuda" else None)
        sampler = DistributedSampler(
            train_set, num_replicas=workers.world_size, rank=workers.rank, shuffle=True, seed=config.seed
        )
    show = config.progress and workers.is_main
    flow = GradFlow(model)  # grad_flow.png: this run's steps (not those before a --resume)
    for epoch in range(start_epoch, config.epochs):
        # The shuffle order depends only on (seed, epoch), so a resumed run sees the same batches.
        if sampler is None:
            loader = DataLoader(
                train_set,
                batch_size=config.batch_size,
                shuffle=True,
                seed=config.seed * 1000 + epoch,
                num_workers=config.num_workers,
            )
        else:
            sampler.set_epoch(epoch)
            loader = DataLoader(
                train_set, batch_size=config.batch_size, sampler=sampler, num_workers=config.num_workers
            )
        model.train()
        seen, correct, loss_sum, step_losses, started = 0, 0, 0.0, [], time.perf_counter()
        bar = tqdm(loader, desc=f"epoch {epoch + 1}/{config.epochs}", disable=not show)
        for images, labels in bar:
            images, labels = images.to(device), labels.to(device)
            logits = net(images)
            loss = F.cross_entropy(logits, labels)
            optimizer.zero_grad()
            loss.backward()
            flow.before_step()
            optimizer.step()
            flow.after_step()
            batch = labels.shape[0]
            value = loss.item()
            step_losses.append(value)
            loss_sum += value * batch
            correct += int((logits.argmax(1) == labels).sum().item())
            seen += batch
            rate = seen * workers.world_size / (time.perf_counter() - started)
            bar.set_postfix(loss=f"{loss_sum / seen:.4f}", acc=f"{correct / seen:.4f}", img_s=f"{rate:.0f}")
        scheduler.step()
        # Every rank runs the same number of equal-sized steps (DistributedSampler pads), so the
        # mean of the ranks' step losses is the step loss over the whole global batch.
        history.step_losses.extend(total / workers.world_size for total in workers.all_sum(step_losses))
        loss_sum, correct, seen = workers.all_sum([loss_sum, correct, seen])
        history.train_loss.append(loss_sum / seen)
        history.train_accuracy.append(correct / seen)
        history.images_per_second.append(seen / (time.perf_counter() - started))
        test_loss_sum, test_correct, test_count = workers.all_sum(evaluation_sums(model, test_loader, device, show))
        test_loss, test_accuracy = test_loss_sum / max(test_count, 1), test_correct / max(test_count, 1)
        history.test_loss.append(test_loss)
        history.test_accuracy.append(test_accuracy)
        if not workers.is_main:
            continue
        if show:
            tqdm.write(
                f"epoch {epoch + 1}: train loss {loss_sum / seen:.4f}, test loss {test_loss:.4f}, "
                f"test accuracy {test_accuracy:.2%}"
            )
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
    if workers.is_main:
        metrics = {"config": asdict(config), "world_size": workers.world_size, **asdict(history)}
        (out / "metrics.json").write_text(json.dumps(metrics, indent=2))
        plot_history(history, out / "metrics.png")
        flow.plot(out / "grad_flow.png")
    return history


def _limited(dataset, limit: int | None):
    return dataset if limit is None else Subset(dataset, range(min(limit, len(dataset))))


def _shard(dataset, workers: Workers):
    """Every ``world_size``-th image from ``rank`` on: disjoint shards that together hold each image once."""
    if workers.world_size == 1:
        return dataset
    return Subset(dataset, range(workers.rank, len(dataset), workers.world_size))


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
