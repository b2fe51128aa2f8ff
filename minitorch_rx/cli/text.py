"""Character-level language models on Tiny Shakespeare: ``minitorch-rx train --model gpt_char
--dataset tinyshakespeare`` (also ``--model char_lstm``) and ``minitorch-rx sample``.

Training follows nanoGPT's ``shakespeare_char`` recipe: random blocks of ``--block-size``
characters from the first 90% of the corpus, AdamW (betas 0.9/0.99, weight decay on matrices
only), linear warmup then cosine decay of the learning rate to ``--min-lr``, gradients clipped to
norm 1, and the loss on ``--eval-iters`` random train and validation batches every
``--eval-interval`` steps. The run folder gets ``checkpoint.pt`` (model, optimizer, step,
hyperparameters, vocabulary; rewritten each evaluation), ``log.csv`` (one row per step) and
``loss.png``.
"""

from __future__ import annotations

import argparse
import math
import time
from pathlib import Path

from .arguments import TEXT_MODELS, TEXT_WEIGHT_DECAY, UsageError


def _lr_at(step: int, lr: float, min_lr: float, warmup: int, total: int) -> float:
    """nanoGPT's schedule: linear warmup over ``warmup`` steps, then cosine decay to ``min_lr`` at ``total``."""
    if step < warmup:
        return lr * (step + 1) / (warmup + 1)
    if step >= total:
        return min_lr
    ratio = (step - warmup) / max(1, total - warmup)
    return min_lr + 0.5 * (1.0 + math.cos(math.pi * ratio)) * (lr - min_lr)


def estimate_loss(model, dataset, batch_size: int, iters: int, generator, device: str = "cpu") -> float:
    """Mean cross-entropy over ``iters`` random batches of ``dataset``, in eval mode without a graph."""
    from ..autograd.grad_mode import no_grad
    from ..nn import functional as F

    was_training = model.training
    model.eval()
    total = 0.0
    with no_grad():
        for _ in range(iters):
            x, y = dataset.get_batch(batch_size, generator=generator, device=device)
            logits = model(x)
            total += F.cross_entropy(logits.reshape(-1, logits.shape[-1]), y.reshape(-1)).item()
    model.train(was_training)
    return total / iters


def split_loss(model, dataset, batch_size: int = 64, device: str = "cpu") -> float:
    """Mean cross-entropy per character over the whole split, cut into consecutive non-overlapping
    blocks of ``dataset.block_size`` (each position predicted from the block's earlier characters;
    the tail shorter than a block is left out): the figure without sampling noise."""
    import torch

    from ..autograd.grad_mode import no_grad
    from ..autograd.tensor import Tensor
    from ..nn import functional as F

    n = (len(dataset.data) - 1) // dataset.block_size
    starts = torch.arange(n) * dataset.block_size
    offsets = starts[:, None] + torch.arange(dataset.block_size)
    was_training = model.training
    model.eval()
    total = 0.0
    with no_grad():
        for first in range(0, n, batch_size):
            rows = offsets[first : first + batch_size]
            x, y = Tensor(dataset.data[rows].to(device)), Tensor(dataset.data[rows + 1].to(device))
            logits = model(x)
            loss = F.cross_entropy(logits.reshape(-1, logits.shape[-1]), y.reshape(-1), reduction="sum")
            total += loss.item()
    model.train(was_training)
    return total / (n * dataset.block_size)


def _model_kwargs(name: str, vocab_size: int, block_size: int) -> dict:
    return {"vocab_size": vocab_size, "block_size": block_size} if name == "gpt_char" else {"vocab_size": vocab_size}


def _check(args: argparse.Namespace) -> str | None:
    if args.model not in TEXT_MODELS:
        return f"--dataset tinyshakespeare trains a character-level model: --model {' or '.join(TEXT_MODELS)}"
    if str(args.dataset).replace("-", "_") != "tinyshakespeare":
        return f"--model {args.model} trains on --dataset tinyshakespeare, got --dataset {args.dataset}"
    for name in ("iters", "block_size", "eval_interval", "eval_iters", "batch_size"):
        if getattr(args, name) <= 0:
            return f"--{name.replace('_', '-')} must be positive, got {getattr(args, name)}"
    if args.warmup_iters < 0 or args.weight_decay < 0 or args.grad_clip < 0 or not args.lr > 0:
        return "--warmup-iters, --weight-decay and --grad-clip must be >= 0 and --lr > 0"
    return None


def train_text(args: argparse.Namespace) -> int:
    """``minitorch-rx train --model gpt_char|char_lstm --dataset tinyshakespeare``."""
    default_batch, default_lr, default_min_lr = TEXT_MODELS.get(args.model, (12, 1e-3, 1e-4))
    if args.batch_size is None:
        args.batch_size = default_batch
    if args.lr is None:
        args.lr = default_lr
    if args.weight_decay is None:
        args.weight_decay = TEXT_WEIGHT_DECAY
    if args.min_lr is None:
        args.min_lr = default_min_lr if args.lr == default_lr else args.lr / 10
    error = _check(args)
    if error:
        raise UsageError(error)

    import torch
    from tqdm import tqdm

    from .. import models, optim
    from ..data import TinyShakespeare
    from ..nn import functional as F
    from ..nn.utils import clip_grad_norm_
    from ..random import manual_seed
    from ..serialization import load, save

    if args.threads:
        torch.set_num_threads(args.threads)
    manual_seed(args.seed)
    train_set = TinyShakespeare(args.data_root, "train", args.block_size)
    val_set = TinyShakespeare(args.data_root, "val", args.block_size)
    if args.limit is not None:  # --limit N: the first N characters of each split (quick smoke runs)
        if args.limit <= args.block_size:
            raise UsageError(f"--limit ({args.limit}) must be larger than --block-size ({args.block_size})")
        for split in (train_set, val_set):
            split.data = split.data[: args.limit]
    model = models.get(args.model, **_model_kwargs(args.model, train_set.vocab_size, args.block_size)).to(args.device)
    decay = [p for p in model.parameters() if p.dim() >= 2]
    no_decay = [p for p in model.parameters() if p.dim() < 2]
    optimizer = optim.AdamW(
        [{"params": decay, "weight_decay": args.weight_decay}, {"params": no_decay, "weight_decay": 0.0}],
        lr=args.lr,
        betas=(0.9, 0.99),
    )
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    start, log = 0, []
    if args.resume:
        state = load(args.resume, map_location="cpu")  # the model is on --device: load_state_dict copies there
        model.load_state_dict(state["model"])
        optimizer.load_state_dict(state["optimizer"])
        start, log = state["iter"], state.get("log", [])
    # a resumed run draws other blocks than those its first part saw (seeded by the step it starts at)
    batches = torch.Generator().manual_seed(args.seed + 1000 * start)
    evals = torch.Generator().manual_seed(args.seed + 1000 * start + 1)
    hyper = {k: v for k, v in vars(args).items() if k != "run"}

    def evaluate(step: int) -> dict:
        row = {
            "iter": step,
            "train_loss": estimate_loss(model, train_set, args.batch_size, args.eval_iters, evals, args.device),
            "val_loss": estimate_loss(model, val_set, args.batch_size, args.eval_iters, evals, args.device),
        }
        save(
            {"model": model.state_dict(), "optimizer": optimizer.state_dict(), "iter": step, "config": hyper}
            | {"vocab": train_set.vocab, "log": log + [row]},
            out / "checkpoint.pt",
        )
        return row

    tokens = args.batch_size * args.block_size
    bar = tqdm(range(start, args.iters), desc=f"{args.model}", disable=args.quiet, initial=start, total=args.iters)
    began = time.perf_counter()
    csv = (out / "log.csv").open("a")
    if start == 0:
        csv.write("iter,lr,train_loss,val_loss,seconds\n")
    evals_done = []
    for step in bar:
        if step % args.eval_interval == 0:
            row = evaluate(step)
            evals_done.append(row)
            tqdm.write(f"step {step}: train loss {row['train_loss']:.4f}, val loss {row['val_loss']:.4f}")
            csv.write(f"{step},,{row['train_loss']:.5f},{row['val_loss']:.5f},{time.perf_counter() - began:.1f}\n")
        lr = _lr_at(step, args.lr, args.min_lr, args.warmup_iters, args.iters)
        for group in optimizer.param_groups:
            group["lr"] = lr
        tick = time.perf_counter()
        x, y = train_set.get_batch(args.batch_size, generator=batches, device=args.device)
        logits = model(x)
        loss = F.cross_entropy(logits.reshape(-1, logits.shape[-1]), y.reshape(-1))
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        if args.grad_clip:
            clip_grad_norm_(model.parameters(), args.grad_clip)
        optimizer.step()
        value = loss.item()
        log.append({"iter": step, "loss": value})
        csv.write(f"{step},{lr:.6g},{value:.5f},,{time.perf_counter() - began:.1f}\n")
        csv.flush()
        bar.set_postfix(loss=f"{value:.4f}", tok_s=f"{tokens / (time.perf_counter() - tick):.0f}")
    row = evaluate(args.iters)
    evals_done.append(row)
    csv.write(f"{args.iters},,{row['train_loss']:.5f},{row['val_loss']:.5f},{time.perf_counter() - began:.1f}\n")
    csv.close()
    save(model.state_dict(), out / "weights.pt")
    full = split_loss(model, val_set, device=args.device)
    tqdm.write(f"validation loss over the whole val split ({len(val_set.data)} characters): {full:.4f}")
    plot_loss(out / "log.csv", out / "loss.png", title=f"{args.model} on Tiny Shakespeare")
    print(
        f"{args.model}: step {args.iters}, train loss {row['train_loss']:.4f}, val loss {row['val_loss']:.4f} "
        f"({time.perf_counter() - began:.0f} s); wrote {out}/checkpoint.pt, weights.pt, log.csv, loss.png"
    )
    return 0


def plot_loss(csv_path: Path, png: Path, title: str = "") -> None:
    """The training loss per step (and its 100-step mean) with the evaluated train/val losses, as a PNG."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    steps, losses, evals = [], [], []
    for line in Path(csv_path).read_text().splitlines()[1:]:
        if not line or line.startswith("iter"):
            continue
        step, _, train, val, _ = line.split(",")
        if val:
            evals.append((int(step), float(train), float(val)))
        else:
            steps.append(int(step))
            losses.append(float(train))
    figure, axis = plt.subplots(figsize=(8, 4.5))
    axis.plot(steps, losses, color="0.8", linewidth=0.5, label="training batch loss")
    if len(losses) >= 100:
        smooth = np.convolve(losses, np.ones(100) / 100, mode="valid")
        axis.plot(steps[99:], smooth, color="C0", label="training loss, 100-step mean")
    if evals:
        e = np.array(evals)
        axis.plot(e[:, 0], e[:, 1], "o-", color="C1", markersize=3, label="train (eval)")
        axis.plot(e[:, 0], e[:, 2], "o-", color="C3", markersize=3, label="validation (eval)")
    axis.set(xlabel="step", ylabel="cross-entropy (nats per character)", title=title)
    axis.set_ylim(1.0, 4.5)
    axis.grid(alpha=0.3)
    axis.legend()
    figure.tight_layout()
    figure.savefig(png, dpi=100)
    plt.close(figure)


def sample(args: argparse.Namespace) -> int:
    """``minitorch-rx sample --model gpt_char [--checkpoint PATH] --prompt ... --tokens N``."""
    if args.tokens < 0 or not args.temperature > 0 or (args.top_k is not None and args.top_k <= 0):
        raise UsageError("--tokens must be >= 0, --temperature > 0 and --top-k > 0")
    from .. import models
    from ..data import TinyShakespeare
    from ..random import manual_seed
    from ..serialization import load

    vocab = TinyShakespeare(split="val", block_size=1)
    if args.checkpoint is None:
        model = models.get(args.model, pretrained=True)
    else:
        state = load(args.checkpoint, map_location="cpu")  # trained on a GPU, usable without one
        config = state.get("config", {}) if isinstance(state, dict) else {}
        kwargs = _model_kwargs(args.model, vocab.vocab_size, config.get("block_size", 64))
        model = models.get(args.model, **kwargs)
        model.load_state_dict(state["model"] if "model" in state else state)
    model.to(args.device)
    try:
        idx = vocab.encode(args.prompt).to(args.device)
    except ValueError as error:
        raise UsageError(str(error)) from None
    if idx.numel() == 0:
        raise UsageError("--prompt must not be empty")
    manual_seed(args.seed)
    out = model.generate(idx.unsqueeze(0), args.tokens, temperature=args.temperature, top_k=args.top_k)
    print(vocab.decode(out[0]))
    return 0
