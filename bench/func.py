"""Per-sample gradients of a small CNN with ``vmap(grad(loss))`` and ``functional_call``:
minitorch_rx.func against torch.func on the same model and batch (float32, one thread).

    python -m bench.func [--batch 64] [--rounds 9]

The CNN: Conv2d(1, 8, 3), ReLU, MaxPool2d(2), Conv2d(8, 16, 3), ReLU, MaxPool2d(2), Flatten,
Linear(400, 10) on 28x28 images. Rows:

- ``vmap(grad), torch functions``: the loss written as torch.func's tutorial writes it
  (``torch.nn.functional.cross_entropy``): vmap's batched call, one for the batch;
- ``vmap(grad), our functions``: the same loss with ``minitorch_rx.nn.functional``'s
  ``cross_entropy`` (the name in the loss's code takes the batch rule of torch's);
- ``Python loop``: ``grad(loss)`` per sample in a loop, in both libraries (torch.func's loop
  with torch.func's ``grad``).
"""

from __future__ import annotations

import argparse

import torch
import torch.func as tf

import minitorch_rx as mt
import minitorch_rx.nn as nn
import minitorch_rx.nn.functional as F
from bench.common import compare, print_table
from minitorch_rx import func


def _cnn(lib):
    return lib.Sequential(
        lib.Conv2d(1, 8, 3),
        lib.ReLU(),
        lib.MaxPool2d(2),
        lib.Conv2d(8, 16, 3),
        lib.ReLU(),
        lib.MaxPool2d(2),
        lib.Flatten(),
        lib.Linear(16 * 5 * 5, 10),
    )


def cases(batch: int) -> dict[str, tuple]:
    """Name -> (ours, theirs): callables computing the same per-sample gradients."""
    torch.manual_seed(0)
    theirs_model = _cnn(torch.nn)
    ours_model = _cnn(nn)
    ours_model.load_state_dict({k: v.detach().clone() for k, v in theirs_model.state_dict().items()})
    x, y = torch.randn(batch, 1, 28, 28), torch.randint(0, 10, (batch,))
    xs, ys = mt.tensor(x), mt.tensor(y)
    t_params = {k: v.detach() for k, v in theirs_model.named_parameters()}
    params = {k: v.detach() for k, v in ours_model.named_parameters()}

    def t_loss(p, xi, yi):
        return torch.nn.functional.cross_entropy(
            tf.functional_call(theirs_model, p, (xi.unsqueeze(0),)), yi.unsqueeze(0)
        )

    def torch_style_loss(p, xi, yi):
        return torch.nn.functional.cross_entropy(
            func.functional_call(ours_model, p, (xi.unsqueeze(0),)), yi.unsqueeze(0)
        )

    def our_loss(p, xi, yi):
        return F.cross_entropy(func.functional_call(ours_model, p, (xi.unsqueeze(0),)), yi.unsqueeze(0))

    in_dims = (None, 0, 0)
    theirs_vmap = tf.vmap(tf.grad(t_loss), in_dims)
    t_grad, grad = tf.grad(t_loss), func.grad(our_loss)
    return {
        "vmap(grad), torch functions": (
            lambda: func.vmap(func.grad(torch_style_loss), in_dims)(params, xs, ys),
            lambda: theirs_vmap(t_params, x, y),
        ),
        "vmap(grad), our functions": (
            lambda: func.vmap(func.grad(our_loss), in_dims)(params, xs, ys),
            lambda: theirs_vmap(t_params, x, y),
        ),
        "Python loop": (
            lambda: [grad(params, xs[i], ys[i]) for i in range(batch)],
            lambda: [t_grad(t_params, x[i], y[i]) for i in range(batch)],
        ),
    }


def check(batch: int) -> float:
    """The largest difference between ours and torch.func's per-sample gradients."""
    worst = 0.0
    for ours, theirs in list(cases(batch).values())[:2]:
        mine, reference = ours(), theirs()
        worst = max(worst, *((mine[k].torch() - reference[k]).abs().max().item() for k in reference))
    return worst


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--batch", type=int, default=64)
    parser.add_argument("--rounds", type=int, default=9)
    args = parser.parse_args(argv)
    print(f"largest difference from torch.func's gradients: {check(args.batch):.2e}")
    rows = [(name, compare(ours, theirs, rounds=args.rounds)) for name, (ours, theirs) in cases(args.batch).items()]
    print(f"per-sample gradients, small CNN, batch {args.batch}, float32, {torch.get_num_threads()} thread")
    print_table("ours vs torch.func", rows)


if __name__ == "__main__":
    main()
