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
from .arguments import DATASETS, MODELS, TrainConfig, UsageError, new_run_folder
from .grad_flow import GradFlow

#: Under data parallelism, the progress bar's running loss and accuracy are summed over the
#: processes every this many steps (and at an epoch's last step).
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
    if config.out is None:
        config = replace(config, out=str(new_run_folder(config.model, config.dataset)))
    out = Path(config.out)
    if workers.is_main:
        out.mkdir(parents=True, exist_ok=True)
    manual_seed(config.seed)
    device = workers.device
    model = models.get(config.model, **model_kwargs(config.model, config.dataset)).to(device)
    optimizer = build_optimizer(config.optimizer, model.parameters(), config.lr, config.momentum, config.weight_decay)
    scheduler = optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=config.epochs)
    data = dict(root=config.data_root, verify=config.verify)
    train_set = _limited(get_dataset(config.dataset, train=True, **data), config.limit)
    test_set = _shard(_limited(get_dataset(config.dataset, train=False, **data), config.limit), workers)
    test_loader = DataLoader(test_set, batch_size=256, num_workers=config.num_workers)
    history = History()
    start_epoch = 0
    if config.resume:
        checkpoint = load(config.resume, map_location="cpu")  # state dicts copy onto the model's device
        start_epoch = checkpoint["epoch"]
        _check_resume(config, json.loads(checkpoint.get("config", "{}")), start_epoch)
        model.load_state_dict(checkpoint["model"])
        optimizer.load_state_dict(checkpoint["optimizer"])
        scheduler.load_state_dict(checkpoint["scheduler"])
        if scheduler.T_max != config.epochs:
            _stretch_schedule(scheduler, config.epochs)
        set_rng_state(checkpoint["rng"])
        history = History(**json.loads(checkpoint["history"]))
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
        shown = (0.0, 0, 0)  # (loss sum, correct, images) over all processes, as the bar shows them
        bar = tqdm(total=len(loader), desc=f"epoch {epoch + 1}/{config.epochs}", disable=not show, unit="step")
        for step, (images, labels) in enumerate(loader, 1):
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
            # The bar shows the running figures over all processes, as the epoch's line does: summed
            # every SYNC_EVERY steps (every rank takes part; one all-reduce of three numbers).
            if workers.world_size == 1 or step % SYNC_EVERY == 0 or step == len(loader):
                shown = tuple(workers.all_sum([loss_sum, correct, seen]))
            if shown[2]:
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
        # Every rank runs the same number of equal-sized steps (DistributedSampler pads), so the
        # mean of the ranks' step losses is the step loss over the whole global batch.
        history.step_losses.extend(total / workers.world_size for total in workers.all_sum(step_losses))
        history.steps_per_epoch.append(len(step_losses))
        loss_sum, correct, seen = shown
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
                f"epoch {epoch + 1}/{config.epochs}: train loss {loss_sum / seen:.4f}, "
                f"train accuracy {correct / seen:.2%}, test loss {test_loss:.4f}, test accuracy {test_accuracy:.2%} "
                f"({time.perf_counter() - started:.0f} s)"
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
        plot_history(history, out / "metrics.png", f"{config.model} on {config.dataset}")
        flow.plot(out / "grad_flow.png")
    return history


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


def plot_history(history: History, path: Path, title: str = "") -> None:
    """Loss (every step, and per epoch) and accuracy per epoch, as a PNG titled ``title`` and the date."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import FuncFormatter, LogLocator, MaxNLocator, NullFormatter

    epochs = range(1, len(history.train_loss) + 1)
    figure, (left, right) = plt.subplots(1, 2, figsize=(11, 4.2))
    steps = _step_positions(history)
    smooth = _moving_average(history.step_losses, max(1, len(steps) // (10 * len(epochs) or 1))) if steps else []
    if steps:
        left.plot(steps, history.step_losses, color="tab:blue", alpha=0.2, lw=0.6, label="train, each step")
        left.plot(steps, smooth, color="tab:blue", alpha=0.7, lw=1.2, label="train, moving average")
    if steps:  # an epoch's mean covers the whole epoch: drawn at its middle
        middles = [e - 0.5 for e in epochs]
        left.plot(middles, history.train_loss, marker="o", color="navy", ls="none", label="train, epoch mean")
    else:
        left.plot(epochs, history.train_loss, marker="o", color="navy", label="train, epoch mean")
    left.plot(epochs, history.test_loss, marker="o", color="tab:orange", label="test")
    # Log scale: an early outlier (a first-epoch test loss of 100) leaves the rest readable. The axis
    # spans the curves (epoch means, test losses, the moving average); single steps below it are cut.
    curves = [v for v in (*smooth, *history.train_loss, *history.test_loss) if v > 0 and math.isfinite(v)]
    if curves:
        left.set_yscale("log")
        finite_steps = [v for v in history.step_losses if math.isfinite(v)]
        low, high = min(curves) / 1.5, max(curves + finite_steps) * 1.3
        left.set_ylim(low, high)
        decades = math.log10(high / low)
        subs = (
            (1.0,)
            if decades > 3
            else (1.0, 2.0, 5.0)
            if decades > 1
            else (1.0, 1.2, 1.5, 2.0, 2.5, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0)
        )
        left.yaxis.set_major_locator(LogLocator(subs=subs))
        left.yaxis.set_major_formatter(FuncFormatter(lambda value, _: f"{value:g}"))
        left.yaxis.set_minor_formatter(NullFormatter())
    left.set(xlabel="epoch (test loss at each epoch's end)", ylabel="cross-entropy loss (log scale)", title="Loss")
    left.legend()
    right.plot(epochs, [100 * a for a in history.train_accuracy], marker="o", label="train")
    right.plot(epochs, [100 * a for a in history.test_accuracy], marker="o", label="test")
    right.set(xlabel="epoch", ylabel="accuracy (%)", title="Accuracy")
    right.legend()
    left.set_xlim(0 if steps else 0.8, len(epochs) + 0.2)
    right.set_xlim(0.8, len(epochs) + 0.2)
    for axes in (left, right):
        axes.xaxis.set_major_locator(MaxNLocator(integer=True))
        axes.grid(alpha=0.3)
    figure.suptitle(f"{title + ', ' if title else ''}{time.strftime('%Y-%m-%d %H:%M')}")
    figure.tight_layout()
    figure.savefig(path, dpi=100)
    plt.close(figure)


def _moving_average(values: list[float], window: int) -> list[float]:
    """The mean of each value and the ``window - 1`` before it (fewer at the start)."""
    out, total = [], 0.0
    for i, value in enumerate(values):
        total += value - (values[i - window] if i >= window else 0.0)
        out.append(total / min(i + 1, window))
    return out


def _step_positions(history: History) -> list[float]:
    """Each step's position in epochs (step i of n in epoch e at e - 1 + i / n), for the step losses."""
    counts = history.steps_per_epoch
    if sum(counts) != len(history.step_losses):  # a history from before steps_per_epoch was kept
        return []
    return [epoch + (i + 1) / n for epoch, n in enumerate(counts) for i in range(n)]
