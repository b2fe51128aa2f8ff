"""Gradient flow during training: per parameter tensor, the gradient norm and the
update-to-weight ratio ``‖Δw‖ / ‖w‖`` over steps, the plot people read to spot dead layers
(gradients that vanish) and bad learning rates (ratios far from about 1e-3)."""

from __future__ import annotations

from pathlib import Path

import torch


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
        self.update_ratios: list[list[float]] = []
        self._step = 0
        self._before: list[torch.Tensor] | None = None

    def before_step(self) -> None:
        if self._step % self.every:
            return
        self.steps.append(self._step)
        self.grad_norms.append(
            [0.0 if p.grad is None else float(torch.linalg.vector_norm(p.grad.torch())) for p in self._params]
        )
        self._before = [p.torch().detach().clone() for p in self._params]

    def after_step(self) -> None:
        if self._before is not None:
            ratios = []
            for p, before in zip(self._params, self._before):
                weight = float(torch.linalg.vector_norm(before))
                ratios.append(float(torch.linalg.vector_norm(p.torch() - before)) / weight if weight else 0.0)
            self.update_ratios.append(ratios)
            self._before = None
        self._step += 1

    def plot(self, path: Path) -> None:
        """Two log-scale panels, one line per parameter tensor, coloured from the first layer
        (dark) to the last (yellow)."""
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        figure, (left, right) = plt.subplots(1, 2, figsize=(12, 4.5))
        colours = plt.cm.viridis([i / max(len(self.names) - 1, 1) for i in range(len(self.names))])
        for i, name in enumerate(self.names):
            label = name if len(self.names) <= 12 else None
            left.plot(self.steps, [row[i] for row in self.grad_norms], color=colours[i], label=label, lw=1)
            right.plot(self.steps, [row[i] for row in self.update_ratios], color=colours[i], label=label, lw=1)
        right.axhline(1e-3, color="red", ls="--", lw=1, label="1e-3")
        left.set(yscale="log", xlabel="step", ylabel="‖grad‖", title="Gradient norm per parameter tensor")
        right.set(yscale="log", xlabel="step", ylabel="‖Δw‖ / ‖w‖", title="Update-to-weight ratio")
        for axes in (left, right):
            axes.legend(fontsize=7, ncol=2)
        note = "colour: first layer (dark) to last (yellow)"
        figure.text(0.5, 0.01, note, ha="center", fontsize=8)
        figure.tight_layout(rect=(0, 0.03, 1, 1))
        figure.savefig(path, dpi=100)
        plt.close(figure)
