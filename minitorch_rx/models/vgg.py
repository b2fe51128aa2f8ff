"""VGG-11 with batch norm, in its CIFAR-10 form (32x32 inputs, one 512-wide linear classifier)."""

from __future__ import annotations

from .. import nn
from ..autograd.tensor import Tensor

VGG11 = (64, "M", 128, "M", 256, 256, "M", 512, 512, "M", 512, 512, "M")


class VGG(nn.Module):
    """VGG (Simonyan & Zisserman 2015) with batch norm after each 3x3 conv; five 2x poolings take
    32x32 inputs to 1x1, so the classifier is a single Linear(512, classes)."""

    def __init__(self, config=VGG11, num_classes: int = 10, in_channels: int = 3) -> None:
        super().__init__()
        layers: list[nn.Module] = []
        width = in_channels
        for item in config:
            if item == "M":
                layers.append(nn.MaxPool2d(2))
            else:
                layers += [nn.Conv2d(width, item, 3, padding=1), nn.BatchNorm2d(item), nn.ReLU()]
                width = item
        self.features = nn.Sequential(*layers)
        self.classifier = nn.Linear(width, num_classes)

    def forward(self, x: Tensor) -> Tensor:
        return self.classifier(self.features(x).flatten(1))


def vgg11_bn(num_classes: int = 10, **kwargs) -> VGG:
    return VGG(VGG11, num_classes, **kwargs)
