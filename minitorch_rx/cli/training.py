"""The training and evaluation loops behind ``minitorch-rx train`` / ``eval`` (and the examples)."""

from __future__ import annotations

import json
import math
import os
import random
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field, replace
from datetime import timedelta
from pathlib import Path

import numpy as np
import torch
import torch.distributed as dist
from torch.utils.data import Subset
from tqdm import tqdm

from .. import backends, models, optim
from ..autograd.grad_mode import no_grad
from ..data import get_dataset
from ..data.batches import ImageBatches, class_names
from ..nn import Module
from ..nn import functional as F
from ..nn.parallel import DistributedDataParallel
from ..random import manual_seed
from ..serialization import load, save
from .arguments import DATASETS, MODELS, TrainConfig, UsageError, new_run_folder
from .grad_flow import GradFlow
from .plots import plot_confusion, plot_history

#: The progress bar's running loss and accuracy are read from the device (and, under data
#: parallelism, summed over the processes) every this many steps and at an epoch's last step:
#: in between, a GPU's queue of kernels is never drained to read a number.
SYNC_EVERY = 10

#: How long a rank waits in a collective for the others before failing (a crashed or hung peer).
DISTRIBUTED_TIMEOUT = timedelta(minutes=5)


@dataclass
class History:
    train_loss: list[float] = field(default_factory=list)
    train_accuracy: list[float] = field(default_factory=list)
    test_loss: list[float] = field(default_factory=list)
    test_accuracy: list[float] = field(default_factory=list)
    images_per_second: list[float] = field(default_factory=list)
    step_losses: list[float] = field(default_factory=list)  # the loss of every step (over all processes)
    steps_per_epoch: list[int] = field(default_factory=list)


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


def build_optimizer(
    name: str, params, lr: float, momentum: float, weight_decay: float, nesterov: bool = False
) -> optim.Optimizer:
    name = name.lower()
    if name == "sgd":
        return optim.SGD(params, lr=lr, momentum=momentum, weight_decay=weight_decay, nesterov=nesterov)
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


def evaluate(model: Module, batches: ImageBatches, progress: bool = False, desc: str = "eval") -> tuple[float, float]:
    """Mean cross-entropy loss and accuracy (0..1) of ``model`` over ``batches``."""
    loss_sum, confusion = evaluation_sums(model, batches, progress, desc)
    count = max(int(confusion.sum()), 1)
    return loss_sum / count, int(confusion.trace()) / count


def evaluation_sums(
    model: Module, batches: ImageBatches, progress: bool = False, desc: str = "eval"
) -> tuple[float, torch.Tensor]:
    """Summed cross-entropy loss of ``model`` over ``batches``, and the confusion matrix: int64
    (classes, classes) on the CPU, counting the images of true class ``i`` predicted as ``j`` at ``[i, j]``."""
    model.eval()
    classes = DATASETS[batches.name].classes
    loss_sum = torch.zeros((), dtype=torch.float64, device=batches.device)
    confusion = torch.zeros(classes * classes, dtype=torch.int64, device=batches.device)
    with no_grad():
        for images, labels in tqdm(batches.epoch(0), total=len(batches), desc=desc, leave=False, disable=not progress):
            logits = model(images)
            loss_sum += F.cross_entropy(logits, labels, reduction="sum").torch()
            confusion += torch.bincount(labels.torch() * classes + logits.torch().argmax(1), minlength=classes**2)
    return float(loss_sum), confusion.reshape(classes, classes).cpu()


def train(config: TrainConfig) -> History:
    """Train ``config.model`` on ``config.dataset`` (options left at None by its data set's
    recipe); write checkpoint, metrics JSON and plots to ``config.out``.

    Started by ``torchrun`` (or ``--nproc``), each process trains a DistributedDataParallel
    replica on its shard of each epoch's images (``batch_size`` images per process and step) and
    evaluates its shard of the test set; metrics are summed over the processes and only rank 0
    prints progress and writes files.
    """
    config = config.with_recipe()
    if config.threads is not None:
        torch.set_num_threads(config.threads)
    conv = backends.conv
    if config.conv is not None:
        backends.conv = config.conv
    try:
        with process_group(config.device) as workers:
            return _train(config, workers)
    finally:
        backends.conv = conv


def _train(config: TrainConfig, workers: Workers) -> History:
    if config.out is None:
        config = replace(config, out=str(new_run_folder(config.model, config.dataset)))
    out = Path(config.out)
    if workers.is_main:
        out.mkdir(parents=True, exist_ok=True)
    manual_seed(config.seed)
    device = workers.device
    model = models.get(config.model, **model_kwargs(config.model, config.dataset)).to(device)
    optimizer = build_optimizer(
        config.optimizer, model.parameters(), config.lr, config.momentum, config.weight_decay, config.nesterov
    )
    scheduler = optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=config.epochs)
    train_batches, test_batches = _batches(config, workers)
    history = History()
    start_epoch = 0
    if config.resume:
        checkpoint = load(config.resume, map_location=device)
        start_epoch = checkpoint["epoch"]
        _check_resume(config, json.loads(checkpoint.get("config", "{}")), start_epoch)
        model.load_state_dict(checkpoint["model"])
        optimizer.load_state_dict(checkpoint["optimizer"])
        scheduler.load_state_dict(checkpoint["scheduler"])
        if scheduler.T_max != config.epochs:
            _stretch_schedule(scheduler, config.epochs)
        set_rng_state(checkpoint["rng"])
        history = History(**json.loads(checkpoint["history"]))
    net = model
    if workers.world_size > 1:
        local = torch.device(device)
        net = DistributedDataParallel(model, device_ids=[local.index] if local.type == "cuda" else None)
    show = config.progress and workers.is_main
    flow = GradFlow(model)  # grad_flow.png: this run's steps (not those before a --resume)
    for epoch in range(start_epoch, config.epochs):
        model.train()
        # (loss sum, correct, images) of this process, kept on the device between reads
        sums = torch.zeros(3, dtype=torch.float64, device=device)
        step_losses, started = [], time.perf_counter()
        shown = (0.0, 0, 0)  # the same over all processes, as the bar shows them
        steps = len(train_batches)
        bar = tqdm(total=steps, desc=f"epoch {epoch + 1}/{config.epochs}", disable=not show, unit="step")
        for step, (images, labels) in enumerate(train_batches.epoch(epoch), 1):
            logits = net(images)
            loss = F.cross_entropy(logits, labels)
            optimizer.zero_grad()
            loss.backward()
            flow.before_step()
            optimizer.step()
            flow.after_step()
            batch = labels.shape[0]
            loss_value = loss.torch().detach()
            step_losses.append(loss_value)
            correct = (logits.torch().argmax(1) == labels.torch()).sum()
            sums += torch.stack([loss_value.double() * batch, correct.double(), sums.new_tensor(batch)])
            if step % SYNC_EVERY == 0 or step == steps:
                shown = tuple(workers.all_sum(sums.tolist()))
                rate = shown[2] / (time.perf_counter() - started)
                bar.set_postfix(
                    loss=f"{shown[0] / shown[2]:.4f}",
                    acc=f"{shown[1] / shown[2]:.4f}",
                    img_s=f"{rate:.0f}",
                    refresh=False,
                )
            bar.update()
        bar.close()
        scheduler.step()
        # Every rank runs the same number of equal-sized steps (the order is padded to a multiple of
        # the ranks), so the mean of the ranks' step losses is the step loss over the global batch.
        step_losses = torch.stack(step_losses).double().tolist()
        history.step_losses.extend(total / workers.world_size for total in workers.all_sum(step_losses))
        history.steps_per_epoch.append(len(step_losses))
        loss_sum, correct, seen = shown
        history.train_loss.append(loss_sum / seen)
        history.train_accuracy.append(correct / seen)
        history.images_per_second.append(seen / (time.perf_counter() - started))
        test_loss_sum, confusion = evaluation_sums(model, test_batches, show)
        test_loss_sum, *counts = workers.all_sum([test_loss_sum, *confusion.flatten().tolist()])
        test_count = max(sum(counts), 1)
        test_loss, test_accuracy = test_loss_sum / test_count, sum(counts[:: len(confusion) + 1]) / test_count
        history.test_loss.append(test_loss)
        history.test_accuracy.append(test_accuracy)
        confusion = torch.tensor(counts, dtype=torch.int64).reshape(confusion.shape)
        if not workers.is_main:
            continue
        if show:
            tqdm.write(
                f"epoch {epoch + 1}/{config.epochs}: train loss {loss_sum / seen:.4f}, "
                f"train accuracy {correct / seen:.2%}, test loss {test_loss:.4f}, test accuracy {test_accuracy:.2%} "
                f"({time.perf_counter() - started:.0f} s)"
            )
        checkpoint = {
            "model": model.state_dict(),
            "optimizer": optimizer.state_dict(),
            "scheduler": scheduler.state_dict(),
            "epoch": epoch + 1,
            "rng": rng_state(),
            "history": json.dumps(asdict(history)),
            "config": json.dumps(asdict(config)),
        }
        if epoch + 1 < config.epochs:
            save(checkpoint, out / "checkpoint.pt")
    if workers.is_main:
        # The last checkpoint is written after the metrics and plots: a run killed before it is
        # resumed from the one before (and trains its last epoch again, alike), never from a
        # finished checkpoint whose outputs are missing.
        metrics = {"config": asdict(config), "world_size": workers.world_size, **asdict(history)}
        (out / "metrics.json").write_text(json.dumps(metrics, indent=2))
        title = f"{config.model} on {config.dataset}"
        plot_history(history, out / "metrics.png", title)
        classes = class_names(test_batches.dataset, len(confusion))  # _check_resume left an epoch to train
        plot_confusion(confusion, classes, out / "confusion.png", f"{title}, test set after epoch {config.epochs}")
        flow.plot(out / "grad_flow.png")
        save(checkpoint, out / "checkpoint.pt")
    return history


def _batches(config: TrainConfig, workers: Workers) -> tuple[ImageBatches, ImageBatches]:
    """The training batches (this process's share of each epoch, by the recipe) and this
    process's shard of the test set."""
    data = dict(root=config.data_root, verify=config.verify)
    name = config.dataset.lower().replace("-", "_")
    train_set = _limited(get_dataset(config.dataset, train=True, **data), config.limit)
    test_set = _shard(_limited(get_dataset(config.dataset, train=False, **data), config.limit), workers)
    train = ImageBatches(
        train_set,
        name,
        config.batch_size,
        shuffle=True,
        augment=config.augment,
        seed=config.seed,
        device=workers.device,
        rank=workers.rank,
        world_size=workers.world_size,
    )
    return train, ImageBatches(test_set, name, TEST_BATCH, device=workers.device)


#: Images per step when evaluating.
TEST_BATCH = 500


def _check_resume(config: TrainConfig, trained: dict, done: int) -> None:
    """A resumed run continues the checkpoint's: the same model and data set, and epochs left to train."""
    for key in ("model", "dataset"):
        if key in trained and trained[key] != getattr(config, key):
            raise UsageError(
                f"--resume {config.resume} continues a run of --{key} {trained[key]}, not {getattr(config, key)}"
            )
    if config.epochs <= done:
        raise UsageError(
            f"--resume {config.resume} has already trained {done} of --epochs {config.epochs}; "
            f"pass --epochs N with N > {done} to train further"
        )


def _stretch_schedule(scheduler, epochs: int) -> None:
    """Make a resumed cosine schedule ``epochs`` long: the learning rate continues from the new
    schedule's value at the epoch reached (so resuming a finished 2-epoch run with 3 epochs trains
    its third epoch at a quarter of the initial rate, instead of at the old schedule's 0)."""
    scheduler.T_max = epochs
    for group, base_lr in zip(scheduler.optimizer.param_groups, scheduler.base_lrs, strict=True):
        group["lr"] = (
            scheduler.eta_min
            + (base_lr - scheduler.eta_min) * (1 + math.cos(math.pi * scheduler.last_epoch / epochs)) / 2
        )
    scheduler._last_lr = [group["lr"] for group in scheduler.optimizer.param_groups]


def _limited(dataset, limit: int | None):
    return dataset if limit is None else Subset(dataset, range(min(limit, len(dataset))))


def _shard(dataset, workers: Workers):
    """Every ``world_size``-th image from ``rank`` on: disjoint shards that together hold each image once."""
    if workers.world_size == 1:
        return dataset
    return Subset(dataset, range(workers.rank, len(dataset), workers.world_size))


def model_kwargs(model: str, dataset: str) -> dict:
    """The arguments that fit zoo model ``model`` to data set ``dataset`` (its channels, classes)."""
    spec = DATASETS[dataset.lower().replace("-", "_")]
    if MODELS.get(model) != "image" or spec.kind != "image":
        return {}
    if model == "mlp":
        return {"in_features": math.prod(spec.shape), "num_classes": spec.classes}
    return {"in_channels": spec.shape[0], "num_classes": spec.classes}
