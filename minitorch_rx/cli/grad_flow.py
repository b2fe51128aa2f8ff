"""Gradient flow during training: per parameter tensor, the gradient norm and the
update-to-weight ratio ``‖Δw‖ / ‖w‖`` over steps, the plot people read to spot dead layers
(gradients that vanish) and bad learning rates (ratios far from about 1e-3)."""

from __future__ import annotations

import math
from pathlib import Path

import torch

#: Up to this many parameter tensors the plot draws one labelled line each; a deeper model gets
#: heatmaps (a row per tensor, a column per sampled step), which stay readable with hundreds.
MAX_LINES = 12


def _norms(tensors: list[torch.Tensor]) -> list[float]:
    """The 2-norm of each tensor, read from the device at once."""
    return torch.stack([torch.linalg.vector_norm(t).double() for t in tensors]).tolist() if tensors else []


class GradFlow:
    """Samples every ``every``-th optimizer step: call ``before_step()`` between backward and
    ``optimizer.step()``, ``after_step()`` after it."""

    def __init__(self, model, every: int = 10) -> None:
        named = [(name, p) for name, p in model.named_parameters() if p.requires_grad]
        self.names = [name for name, _ in named]
        self._params = [p for _, p in named]
        self.every = every
        self.steps: list[int] = []
        self.grad_norms: list[list[float]] = []  # per sampled step, per parameter
        self.update_ratios: list[list[float]] = []  # nan where a weight is all zeros
        self._step = 0
        self._before: list[torch.Tensor] | None = None

    def before_step(self) -> None:
        if self._step % self.every:
            return
        self.steps.append(self._step)
        grads = [p.torch().new_zeros(()) if p.grad is None else p.grad.torch() for p in self._params]
        self.grad_norms.append(_norms(grads))
        self._before = [p.torch().detach().clone() for p in self._params]

    def after_step(self) -> None:
        if self._before is not None:
            weights = _norms(self._before)
            updates = _norms([p.torch() - before for p, before in zip(self._params, self._before)])
            self.update_ratios.append([u / w if w else math.nan for u, w in zip(updates, weights)])
            self._before = None
        self._step += 1

    def plot(self, path: Path) -> None:
        """Two log-scale panels: one line per parameter tensor (coloured from the first layer,
        dark, to the last, yellow) for up to ``MAX_LINES`` tensors, else a heatmap of each."""
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        if len(self.names) <= MAX_LINES:
            figure, panels = plt.subplots(1, 2, figsize=(12, 4.5))
            self._lines(plt, panels)
            figure.text(0.5, 0.01, "colour: first layer (dark) to last (yellow)", ha="center", fontsize=8)
            figure.tight_layout(rect=(0, 0.03, 1, 1))
        else:
            height = min(4 + 0.14 * len(self.names), 40)
            figure, panels = plt.subplots(1, 2, figsize=(15, height), sharey=True)
            self._heatmaps(figure, panels)
            figure.tight_layout()
        figure.savefig(path, dpi=100)
        plt.close(figure)

    def _lines(self, plt, panels) -> None:
        left, right = panels
        colours = plt.cm.viridis([i / max(len(self.names) - 1, 1) for i in range(len(self.names))])
        for i, name in enumerate(self.names):
            left.plot(self.steps, [row[i] for row in self.grad_norms], color=colours[i], label=name, lw=1)
            right.plot(self.steps, [row[i] for row in self.update_ratios], color=colours[i], label=name, lw=1)
        right.axhline(1e-3, color="red", ls="--", lw=1, label="1e-3")
        left.set(yscale="log", xlabel="step", ylabel="‖grad‖", title="Gradient norm per parameter tensor")
        right.set(yscale="log", xlabel="step", ylabel="‖Δw‖ / ‖w‖", title="Update-to-weight ratio")
        for axes in panels:
            axes.legend(fontsize=7, ncol=2)
            axes.grid(alpha=0.3)

    def _heatmaps(self, figure, panels) -> None:
        rows = len(self.names)
        steps = self.steps[: len(self.update_ratios)]
        extent = (steps[0] - 0.5, steps[-1] + 0.5, rows - 0.5, -0.5) if steps else None
        for axes, values, title, label in (
            (panels[0], self.grad_norms, "Gradient norm per parameter tensor", "log10 ‖grad‖"),
            (panels[1], self.update_ratios, "Update-to-weight ratio (1e-3 is typical)", "log10 ‖Δw‖ / ‖w‖"),
        ):
            grid = torch.tensor(values[: len(steps)], dtype=torch.float64).reshape(len(steps), rows).T
            logs = torch.where(grid > 0, grid.clamp(min=1e-30).log10(), torch.nan)
            image = axes.imshow(logs.numpy(), aspect="auto", cmap="viridis", interpolation="nearest", extent=extent)
            figure.colorbar(image, ax=axes, label=label, fraction=0.04, pad=0.02)
            axes.set(xlabel="step", title=title)
        panels[0].set_yticks(range(rows), self.names, fontsize=max(4, min(8, 600 / rows)))
        panels[0].set_ylabel("parameter tensor (first layer at the top; blank: no value)")
