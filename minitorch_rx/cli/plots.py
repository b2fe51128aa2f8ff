"""The pictures ``minitorch-rx train`` and ``eval`` write: the loss and accuracy curves
(``metrics.png``) and the confusion matrix with per-class accuracy (``confusion.png``)."""

from __future__ import annotations

import math
import time
from collections.abc import Sequence
from pathlib import Path

import torch


def _pyplot():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def plot_history(history, path: Path, title: str = "") -> None:
    """Loss (every step, and per epoch) and accuracy per epoch, as a PNG titled ``title`` and the date."""
    plt = _pyplot()
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
    right.set(xlabel="epoch", ylabel="accuracy (%)", title="Accuracy", ylim=accuracy_limits(history))
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


def _step_positions(history) -> list[float]:
    """Each step's position in epochs (step i of n in epoch e at e - 1 + i / n), for the step losses."""
    counts = history.steps_per_epoch
    if sum(counts) != len(history.step_losses):  # a history from before steps_per_epoch was kept
        return []
    return [epoch + (i + 1) / n for epoch, n in enumerate(counts) for i in range(n)]


#: The accuracy axis spans at least this many percentage points, so that one epoch's figures
#: (or a plateau) are not stretched over the whole height.
MIN_ACCURACY_SPAN = 10.0


def accuracy_limits(history) -> tuple[float, float]:
    """The accuracy axis: the curves with a margin, at least ``MIN_ACCURACY_SPAN`` points tall, within 0..100."""
    values = [100 * a for a in (*history.train_accuracy, *history.test_accuracy) if math.isfinite(a)]
    if not values:
        return 0.0, 100.0
    low, high = min(values), max(values)
    margin = max((MIN_ACCURACY_SPAN - (high - low)) / 2, 0.05 * (high - low))
    low, high = max(0.0, low - margin), min(100.0, high + margin)
    if high - low < MIN_ACCURACY_SPAN:  # pushed against 0 or 100: widen on the other side
        low, high = (0.0, MIN_ACCURACY_SPAN) if low == 0.0 else (100.0 - MIN_ACCURACY_SPAN, 100.0)
    return low, high


def plot_confusion(confusion: torch.Tensor, classes: Sequence[str], path: Path, title: str = "") -> None:
    """The confusion matrix (rows: true class, columns: predicted; each row as a share of its
    images, with the counts written in) beside each class's accuracy, as a PNG."""
    plt = _pyplot()
    counts = confusion.double()
    totals = counts.sum(1).clamp(min=1)
    shares = counts / totals[:, None]
    per_class = (counts.diagonal() / totals).tolist()
    accuracy = float(counts.trace() / counts.sum().clamp(min=1))
    figure, (left, right) = plt.subplots(1, 2, figsize=(13, 5.6), gridspec_kw={"width_ratios": [1.45, 1]})
    image = left.imshow(shares.numpy(), cmap="Blues", vmin=0, vmax=1)
    for i in range(len(classes)):
        for j in range(len(classes)):
            count = int(confusion[i, j])
            if count:
                colour = "white" if shares[i, j] > 0.5 else "black"
                left.text(j, i, str(count), ha="center", va="center", fontsize=7, color=colour)
    left.set_xticks(range(len(classes)), classes, rotation=45, ha="right")
    left.set_yticks(range(len(classes)), classes)
    left.set(xlabel="predicted class", ylabel="true class", title="Confusion matrix (counts; colour: share of row)")
    figure.colorbar(image, ax=left, fraction=0.046, pad=0.04)
    order = sorted(range(len(classes)), key=lambda i: per_class[i])
    right.barh([classes[i] for i in order], [100 * per_class[i] for i in order], color="tab:blue")
    low = max(0.0, min(100 * min(per_class), 100 * accuracy) - 10)
    for row, i in enumerate(order):
        value = 100 * per_class[i]
        inside = value - low > 0.2 * (100 - low)  # room for the label inside the bar
        right.text(
            value + (-1 if inside else 1) * 0.01 * (100 - low),
            row,
            f"{value:.1f}%",
            ha="right" if inside else "left",
            va="center",
            color="white" if inside else "black",
        )
    right.axvline(100 * accuracy, color="tab:orange", ls="--", label=f"overall {100 * accuracy:.2f}%")
    right.set(xlim=(low, 100), xlabel="accuracy (%)", title="Accuracy per class")
    right.legend(loc="lower right")
    right.grid(axis="x", alpha=0.3)
    figure.suptitle(title)
    figure.tight_layout()
    figure.savefig(path, dpi=100)
    plt.close(figure)
