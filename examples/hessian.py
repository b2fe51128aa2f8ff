"""The sharpest direction of LeNet-5's loss: the top Hessian eigenvalue by power iteration on
Hessian-vector products.

    python examples/hessian.py --iterations 20

Each product ``H v`` is the gradient of ``<grad L, v>``: one backward with ``create_graph=True``
gives ``grad L`` recorded, a second backward differentiates it (``mt.autograd.functional.hvp``
does the same for functions of a few tensors). Uses the shipped pretrained weights and a batch
of the shipped MNIST test subset.
"""

from __future__ import annotations

import argparse
import time

import minitorch_rx as mt
import minitorch_rx.nn.functional as F


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--iterations", type=int, default=20)
    parser.add_argument("--batch-size", type=int, default=256)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()

    mt.manual_seed(args.seed)
    model = mt.models.get("lenet5", pretrained=True)
    images, labels = next(iter(mt.data.DataLoader(mt.data.MNIST(train=False), batch_size=args.batch_size)))
    params = list(model.parameters())
    start = time.perf_counter()
    loss = F.cross_entropy(model(images), labels)
    grads = mt.autograd.grad(loss, params, create_graph=True)
    v = [mt.randn_like(p) for p in params]
    eigenvalue = 0.0
    for i in range(1, args.iterations + 1):
        norm = sum((x * x).sum() for x in v).sqrt()
        v = [x / norm for x in v]
        hv = mt.autograd.grad(grads, params, v, retain_graph=True)
        eigenvalue = sum((h * x).sum() for h, x in zip(hv, v)).item()  # Rayleigh quotient v.Hv
        v = [h.detach() for h in hv]
        print(f"iteration {i:2d}  top eigenvalue estimate {eigenvalue:10.4f}")
    print(f"loss {loss.item():.4f}; top Hessian eigenvalue ~ {eigenvalue:.4f} ({time.perf_counter() - start:.1f} s)")


if __name__ == "__main__":
    main()
