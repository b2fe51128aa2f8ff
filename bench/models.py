"""Training steps of the model zoo against PyTorch: the same weights, the same batch, one thread.

Each case builds a minitorch_rx model and a torch twin with the same state dict, then times one
SGD step (zero_grad, forward, cross entropy, backward, step) of both, interleaved round by round.

    python -m bench.models [--rounds 9] [--reps N] [--only mlp,lenet5,lenet5-im2col,resnet20]
                           [--conv im2col|native]

Without ``--reps``, each timed sample runs steps for about 0.2 s (one ResNet-20 step, some 150 MLP
steps): single millisecond steps vary 2x on a shared machine. ``--conv native`` sets
``mt.backends.conv`` (aten's convolution kernels under our engine); the bars are im2col's.

Cases (bars of issues 7 and 26; the native convolution's: at most 1.0x):
- ``mlp``: MLP 784-128-10, batch 64, SGD, against torch.nn (at most 0.95x).
- ``lenet5-im2col``: LeNet-5, batch 64, SGD with momentum, against torch.autograd running
  im2col itself (columns from ``Tensor.unfold`` views, one matmul per conv; at most 0.9x).
- ``lenet5``: the same step against torch.nn with its native convolution (at most 1.15x).
- ``resnet20``: ResNet-20 on CIFAR-10 shapes, batch 128, SGD with momentum (at most 1.30x).
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from dataclasses import dataclass

import torch
import torch.nn as tnn
import torch.nn.functional as TF

import minitorch_rx as mt
import minitorch_rx.nn.functional as F
import minitorch_rx.optim as optim

from .common import Timing, compare, print_table, synchronized


# ------------------------------------------------------------------ torch twins (same state-dict keys)
class TorchMLP(tnn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.layers = tnn.Sequential(tnn.Flatten(), tnn.Linear(784, 128), tnn.ReLU(), tnn.Linear(128, 10))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.layers(x)


class TorchLeNet5(tnn.Module):
    """LeNet-5 as ``mt.models.lenet5``, with torch's native convolution or, with ``im2col``,
    convolutions computed from ``Tensor.unfold`` columns and one matmul each."""

    def __init__(self, im2col: bool = False) -> None:
        super().__init__()
        self.conv1 = tnn.Conv2d(1, 6, 5, padding=2)
        self.conv2 = tnn.Conv2d(6, 16, 5)
        self.fc1 = tnn.Linear(16 * 5 * 5, 120)
        self.fc2 = tnn.Linear(120, 84)
        self.fc3 = tnn.Linear(84, 10)
        self.im2col = im2col

    def _conv(self, conv: tnn.Conv2d, x: torch.Tensor) -> torch.Tensor:
        if not self.im2col:
            return conv(x)
        return conv2d_im2col(x, conv.weight, conv.bias, conv.padding[0])

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = TF.max_pool2d(TF.relu(self._conv(self.conv1, x)), 2)
        x = TF.max_pool2d(TF.relu(self._conv(self.conv2, x)), 2)
        x = x.flatten(1)
        x = TF.relu(self.fc1(x))
        x = TF.relu(self.fc2(x))
        return self.fc3(x)


def conv2d_im2col(x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor, padding: int) -> torch.Tensor:
    """Stride-1 2-D convolution under torch.autograd as im2col: columns (C*k*k, N*L) gathered
    from ``Tensor.unfold`` views, one ``addmm`` with the bias, the output viewed back to NCHW."""
    if padding:
        x = TF.pad(x, (padding,) * 4)
    n, c = x.shape[:2]
    out_channels, _, kh, kw = weight.shape
    windows = x.unfold(2, kh, 1).unfold(3, kw, 1)  # (N, C, OH, OW, kh, kw), a view
    oh, ow = windows.shape[2:4]
    cols = windows.permute(1, 4, 5, 0, 2, 3).reshape(c * kh * kw, n * oh * ow)
    out = torch.addmm(bias.unsqueeze(1), weight.reshape(out_channels, -1), cols)
    return out.view(out_channels, n, oh, ow).transpose(0, 1)


class TorchBasicBlock(tnn.Module):
    def __init__(self, in_planes: int, planes: int, stride: int) -> None:
        super().__init__()
        self.conv1 = tnn.Conv2d(in_planes, planes, 3, stride=stride, padding=1, bias=False)
        self.bn1 = tnn.BatchNorm2d(planes)
        self.relu = tnn.ReLU()
        self.conv2 = tnn.Conv2d(planes, planes, 3, padding=1, bias=False)
        self.bn2 = tnn.BatchNorm2d(planes)
        self.pad = planes // 4 if stride != 1 else 0

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        out = self.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        identity = TF.pad(x[:, :, ::2, ::2], (0, 0, 0, 0, self.pad, self.pad)) if self.pad else x
        return self.relu(out + identity)


class TorchResNet20(tnn.Module):
    """``mt.models.resnet20`` in torch.nn: option-A shortcuts, 16/32/64 channels."""

    def __init__(self) -> None:
        super().__init__()
        self.conv1 = tnn.Conv2d(3, 16, 3, padding=1, bias=False)
        self.bn1 = tnn.BatchNorm2d(16)
        self.relu = tnn.ReLU()
        stages, in_planes = [], 16
        for planes, stride in ((16, 1), (32, 2), (64, 2)):
            stages.append(
                tnn.Sequential(
                    *(
                        TorchBasicBlock(in_planes if i == 0 else planes, planes, stride if i == 0 else 1)
                        for i in range(3)
                    )
                )
            )
            in_planes = planes
        self.layer1, self.layer2, self.layer3 = stages
        self.avgpool = tnn.AdaptiveAvgPool2d((1, 1))
        self.fc = tnn.Linear(64, 10)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.relu(self.bn1(self.conv1(x)))
        x = self.layer3(self.layer2(self.layer1(x)))
        return self.fc(self.avgpool(x).flatten(1))


# ------------------------------------------------------------------ cases
@dataclass(frozen=True)
class Case:
    name: str
    label: str
    model: str  # mt.models name
    torch_model: Callable[[], tnn.Module]
    input_shape: tuple[int, ...]
    batch: int
    momentum: float
    bar: float


#: The bar of the convolution cases under ``mt.backends.conv = "native"`` (issue 26).
NATIVE_BAR = 1.0

CASES = {
    "mlp": Case("mlp", "MLP 784-128-10 step, batch 64 (torch.nn)", "mlp", TorchMLP, (1, 28, 28), 64, 0.0, 0.95),
    "lenet5-im2col": Case(
        "lenet5-im2col",
        "LeNet-5 step, batch 64 (torch im2col)",
        "lenet5",
        lambda: TorchLeNet5(im2col=True),
        (1, 28, 28),
        64,
        0.9,
        0.9,
    ),
    "lenet5": Case("lenet5", "LeNet-5 step, batch 64 (torch.nn)", "lenet5", TorchLeNet5, (1, 28, 28), 64, 0.9, 1.15),
    "resnet20": Case(
        "resnet20", "ResNet-20 step, batch 128 (torch.nn)", "resnet20", TorchResNet20, (3, 32, 32), 128, 0.9, 1.30
    ),
}


def twins(case: Case, seed: int = 0) -> tuple[mt.nn.Module, tnn.Module]:
    """The minitorch_rx model and its torch twin, holding equal weights and buffers."""
    mt.manual_seed(seed)
    ours = mt.models.get(case.model)
    theirs = case.torch_model()
    theirs.load_state_dict({k: v.torch().clone() for k, v in ours.state_dict().items()})
    return ours, theirs


def batch(case: Case, size: int | None = None, seed: int = 1) -> tuple[torch.Tensor, torch.Tensor]:
    """A fixed random batch of ``size`` (default: the case's) inputs and class labels."""
    generator = torch.Generator().manual_seed(seed)
    size = size or case.batch
    x = torch.randn(size, *case.input_shape, generator=generator)
    y = torch.randint(0, 10, (size,), generator=generator)
    return x, y


def training_steps(
    case: Case, size: int | None = None, lr: float = 0.01, device: str = "cpu"
) -> tuple[Callable[[], object], Callable[[], object]]:
    """(minitorch_rx step, torch step) on twin models and one fixed batch, on ``device``; each
    returns its loss (on CUDA, after waiting for the step's kernels)."""
    ours, theirs = twins(case)
    ours.to(device)
    theirs.to(device)
    x, y = (t.to(device) for t in batch(case, size))
    mt_x, mt_y = mt.from_torch(x.clone()), mt.from_torch(y.clone())
    mt_opt = optim.SGD(ours.parameters(), lr=lr, momentum=case.momentum)
    torch_opt = torch.optim.SGD(theirs.parameters(), lr=lr, momentum=case.momentum)

    def mt_step() -> mt.Tensor:
        mt_opt.zero_grad()
        loss = F.cross_entropy(ours(mt_x), mt_y)
        loss.backward()
        mt_opt.step()
        return loss

    def torch_step() -> torch.Tensor:
        torch_opt.zero_grad()
        loss = TF.cross_entropy(theirs(x), y)
        loss.backward()
        torch_opt.step()
        return loss

    return synchronized(mt_step, device), synchronized(torch_step, device)


def run(
    names: list[str] | None = None,
    rounds: int = 9,
    reps: int | None = None,
    size: int | None = None,
    conv: str = "im2col",
    device: str = "cpu",
) -> list[tuple[str, Timing]]:
    """(label, timing against torch) for each case on ``device``; ``size`` overrides the batch size,
    ``conv`` is ``mt.backends.conv`` meanwhile (a label says when it is not the default)."""
    rows = []
    default, mt.backends.conv = mt.backends.conv, conv
    try:
        for name in names or list(CASES):
            case = CASES[name]
            label = case.label if size is None else case.label.replace(f"batch {case.batch}", f"batch {size}")
            if conv != "im2col":
                label += f", {conv} conv"
            rows.append((label, compare(*training_steps(case, size, device=device), rounds=rounds, repeat=reps)))
    finally:
        mt.backends.conv = default
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=9)
    parser.add_argument("--reps", type=int, default=None, help="steps per timed sample (default: about 0.2 s)")
    parser.add_argument("--only", default=",".join(CASES), help="comma-separated: " + ", ".join(CASES))
    parser.add_argument("--conv", default="im2col", choices=mt.backends.CONV_BACKENDS, help="mt.backends.conv")
    args = parser.parse_args()
    unknown = set(args.only.split(",")) - set(CASES)
    if unknown:
        parser.error(f"unknown case(s) in --only: {', '.join(sorted(unknown))}; the cases: {', '.join(CASES)}")
    rows = run(args.only.split(","), args.rounds, args.reps, conv=args.conv)
    steps = ", ".join(f"{timing.repeat}" for _, timing in rows)
    print_table(f"training steps, 1 thread, median of {args.rounds} rounds x ({steps}) steps", rows)


if __name__ == "__main__":
    main()
