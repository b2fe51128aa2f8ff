"""One optimizer step over ResNet-18's parameters (11.7M in 62 tensors, float32) against
torch.optim's default implementation, one thread, interleaved rounds.

    python -m bench.optim [--rounds 9]
"""

from __future__ import annotations

import argparse

import torch
import torchvision

import minitorch_rx as mt
import minitorch_rx.optim as optim

from .common import interleaved, print_table

CASES = {
    "SGD(momentum=0.9)": (optim.SGD, torch.optim.SGD, dict(lr=0.01, momentum=0.9)),
    "SGD(momentum, nesterov, wd)": (
        optim.SGD,
        torch.optim.SGD,
        dict(lr=0.01, momentum=0.9, nesterov=True, weight_decay=1e-4),
    ),
    "Adam": (optim.Adam, torch.optim.Adam, dict(lr=1e-3)),
    "Adam(amsgrad, wd)": (
        optim.Adam,
        torch.optim.Adam,
        dict(lr=1e-3, amsgrad=True, weight_decay=1e-4),
    ),
    "AdamW": (optim.AdamW, torch.optim.AdamW, dict(lr=1e-3)),
}


def resnet18_shapes() -> list[torch.Size]:
    """The shapes of torchvision's ResNet-18 parameters (62 tensors, 11,689,512 numbers)."""
    return [p.shape for p in torchvision.models.resnet18().parameters()]


def _twin_params(shapes: list[torch.Size], device: str = "cpu") -> tuple[list[mt.Tensor], list[torch.Tensor]]:
    generator = torch.Generator().manual_seed(0)
    ours, theirs = [], []
    for shape in shapes:
        weight, grad = (
            torch.randn(shape, generator=generator).to(device),
            (torch.randn(shape, generator=generator) * 1e-3).to(device),
        )
        p = mt.tensor(weight.clone(), requires_grad=True)
        p.grad = mt.Tensor(grad.clone())
        q = torch.nn.Parameter(weight.clone())
        q.grad = grad.clone()
        ours.append(p)
        theirs.append(q)
    return ours, theirs


def run(rounds: int = 9) -> list[tuple[str, float, float]]:
    """(case, our seconds per step, torch's seconds per step) for each optimizer in ``CASES``."""
    shapes = resnet18_shapes()
    rows = []
    for name, (our_cls, torch_cls, kwargs) in CASES.items():
        ours, theirs = _twin_params(shapes)
        our_opt, torch_opt = our_cls(ours, **kwargs), torch_cls(theirs, **kwargs)
        times = interleaved({"minitorch_rx": our_opt.step, "torch": torch_opt.step}, rounds=rounds)
        rows.append((name, times["minitorch_rx"], times["torch"]))
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=9)
    args = parser.parse_args()
    print_table("optimizer step, ResNet-18 parameters (11.7M in 62 tensors), 1 thread", run(args.rounds))


if __name__ == "__main__":
    main()
