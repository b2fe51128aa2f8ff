"""Small models: an MLP and LeNet-5 for 28x28 images, M5 for raw audio, a small C3D for volumes."""

from __future__ import annotations

from collections.abc import Sequence

from .. import nn
from ..autograd.tensor import Tensor
from ..nn import functional as F


class MLP(nn.Module):
    """Flatten, then Linear + ReLU per hidden size, then a Linear classifier (784-128-10 by default)."""

    def __init__(self, in_features: int = 784, hidden: Sequence[int] = (128,), num_classes: int = 10) -> None:
        super().__init__()
        layers: list[nn.Module] = [nn.Flatten()]
        width = in_features
        for size in hidden:
            layers += [nn.Linear(width, size), nn.ReLU()]
            width = size
        layers.append(nn.Linear(width, num_classes))
        self.layers = nn.Sequential(*layers)

    def forward(self, x: Tensor) -> Tensor:
        return self.layers(x)


class LeNet5(nn.Module):
    """LeNet-5 (LeCun et al. 1998) for 1x28x28 inputs: conv 5x5 (padded) 6, pool, conv 5x5 16,
    pool, then 120-84-classes fully connected, with ReLU and max pooling."""

    def __init__(self, num_classes: int = 10, in_channels: int = 1) -> None:
        super().__init__()
        self.conv1 = nn.Conv2d(in_channels, 6, 5, padding=2)
        self.conv2 = nn.Conv2d(6, 16, 5)
        self.fc1 = nn.Linear(16 * 5 * 5, 120)
        self.fc2 = nn.Linear(120, 84)
        self.fc3 = nn.Linear(84, num_classes)

    def forward(self, x: Tensor) -> Tensor:
        x = F.max_pool2d(F.relu(self.conv1(x)), 2)
        x = F.max_pool2d(F.relu(self.conv2(x)), 2)
        x = x.flatten(1)
        x = F.relu(self.fc1(x))
        x = F.relu(self.fc2(x))
        return self.fc3(x)


class M5(nn.Module):
    """M5 (Dai et al. 2017, "Very deep convolutional neural networks for raw waveforms"): a 1-D
    conv net on raw audio (N, 1, samples): an 80-wide strided first conv, three 3-wide convs, each
    with batch norm, ReLU and 4x max pooling, global average pooling and a linear classifier."""

    def __init__(
        self,
        num_classes: int = 10,
        in_channels: int = 1,
        channels: Sequence[int] = (128, 128, 256, 512),
        stride: int = 4,
    ) -> None:
        super().__init__()
        layers: list[nn.Module] = []
        width = in_channels
        for i, out in enumerate(channels):
            kernel, conv_stride = (80, stride) if i == 0 else (3, 1)
            layers += [
                nn.Conv1d(width, out, kernel, stride=conv_stride, padding=0 if i == 0 else 1),
                nn.BatchNorm1d(out),
                nn.ReLU(),
                nn.MaxPool1d(4),
            ]
            width = out
        self.features = nn.Sequential(*layers)
        self.pool = nn.AdaptiveAvgPool1d(1)
        self.fc = nn.Linear(width, num_classes)

    def forward(self, x: Tensor) -> Tensor:
        return self.fc(self.pool(self.features(x)).flatten(1))


class C3DSmall(nn.Module):
    """A small C3D-style (Tran et al. 2015) 3-D conv net for volumes or clips (N, C, D, H, W):
    three 3x3x3 conv blocks (16, 32, 64 channels) with batch norm, ReLU and 2x pooling, then
    global average pooling and a linear classifier."""

    def __init__(self, num_classes: int = 10, in_channels: int = 1, channels: Sequence[int] = (16, 32, 64)) -> None:
        super().__init__()
        layers: list[nn.Module] = []
        width = in_channels
        for i, out in enumerate(channels):
            layers += [nn.Conv3d(width, out, 3, padding=1, bias=False), nn.BatchNorm3d(out), nn.ReLU()]
            if i < len(channels) - 1:
                layers.append(nn.MaxPool3d(2))
            width = out
        self.features = nn.Sequential(*layers)
        self.pool = nn.AdaptiveAvgPool3d(1)
        self.fc = nn.Linear(width, num_classes)

    def forward(self, x: Tensor) -> Tensor:
        return self.fc(self.pool(self.features(x)).flatten(1))
