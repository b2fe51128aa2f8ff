"""ResNets: torchvision's ResNet-18/34 (same structure and state-dict keys, so torchvision weights
load), and the CIFAR-10 ResNet-20 of He et al. 2016 (0.27M parameters, identity shortcuts)."""

from __future__ import annotations

from collections.abc import Sequence

from .. import init, nn
from ..autograd.tensor import Tensor
from ..nn import functional as F


def conv3x3(in_planes: int, out_planes: int, stride: int = 1) -> nn.Conv2d:
    return nn.Conv2d(in_planes, out_planes, 3, stride=stride, padding=1, bias=False)


class BasicBlock(nn.Module):
    """Two 3x3 convs with batch norm and a shortcut; ``downsample`` adapts the shortcut if given."""

    expansion = 1

    def __init__(self, in_planes: int, planes: int, stride: int = 1, downsample: nn.Module | None = None) -> None:
        super().__init__()
        self.conv1 = conv3x3(in_planes, planes, stride)
        self.bn1 = nn.BatchNorm2d(planes)
        self.relu = nn.ReLU()
        self.conv2 = conv3x3(planes, planes)
        self.bn2 = nn.BatchNorm2d(planes)
        self.downsample = downsample
        self.stride = stride

    def forward(self, x: Tensor) -> Tensor:
        out = self.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        identity = x if self.downsample is None else self.downsample(x)
        return self.relu(out + identity)


class ResNet(nn.Module):
    """torchvision's ResNet with BasicBlocks (ResNet-18: [2, 2, 2, 2], ResNet-34: [3, 4, 6, 3])."""

    def __init__(self, layers: Sequence[int], num_classes: int = 1000, in_channels: int = 3) -> None:
        super().__init__()
        self.in_planes = 64
        self.conv1 = nn.Conv2d(in_channels, 64, 7, stride=2, padding=3, bias=False)
        self.bn1 = nn.BatchNorm2d(64)
        self.relu = nn.ReLU()
        self.maxpool = nn.MaxPool2d(3, stride=2, padding=1)
        self.layer1 = self._make_layer(64, layers[0])
        self.layer2 = self._make_layer(128, layers[1], stride=2)
        self.layer3 = self._make_layer(256, layers[2], stride=2)
        self.layer4 = self._make_layer(512, layers[3], stride=2)
        self.avgpool = nn.AdaptiveAvgPool2d((1, 1))
        self.fc = nn.Linear(512, num_classes)
        for module in self.modules():
            if isinstance(module, nn.Conv2d):
                init.kaiming_normal_(module.weight, mode="fan_out", nonlinearity="relu")
            elif isinstance(module, nn.BatchNorm2d):
                init.ones_(module.weight)
                init.zeros_(module.bias)

    def _make_layer(self, planes: int, blocks: int, stride: int = 1) -> nn.Sequential:
        downsample = None
        if stride != 1 or self.in_planes != planes:
            downsample = nn.Sequential(
                nn.Conv2d(self.in_planes, planes, 1, stride=stride, bias=False), nn.BatchNorm2d(planes)
            )
        layers = [BasicBlock(self.in_planes, planes, stride, downsample)]
        self.in_planes = planes
        layers += [BasicBlock(planes, planes) for _ in range(1, blocks)]
        return nn.Sequential(*layers)

    def forward(self, x: Tensor) -> Tensor:
        x = self.maxpool(self.relu(self.bn1(self.conv1(x))))
        x = self.layer4(self.layer3(self.layer2(self.layer1(x))))
        return self.fc(self.avgpool(x).flatten(1))


class ChannelPadShortcut(nn.Module):
    """He et al.'s option-A shortcut: subsample by 2 and zero-pad the new channels (no parameters)."""

    def __init__(self, planes: int) -> None:
        super().__init__()
        self.pad = planes // 4

    def forward(self, x: Tensor) -> Tensor:
        return F.pad(x[:, :, ::2, ::2], (0, 0, 0, 0, self.pad, self.pad))

    def extra_repr(self) -> str:
        return f"pad={self.pad}"


class CifarResNet(nn.Module):
    """ResNet-6n+2 for 32x32 CIFAR images (He et al. 2016, section 4.2): 16/32/64 channels."""

    def __init__(self, blocks_per_stage: int = 3, num_classes: int = 10, in_channels: int = 3) -> None:
        super().__init__()
        self.conv1 = conv3x3(in_channels, 16)
        self.bn1 = nn.BatchNorm2d(16)
        self.relu = nn.ReLU()
        stages = []
        in_planes = 16
        for planes, stride in ((16, 1), (32, 2), (64, 2)):
            blocks = []
            for i in range(blocks_per_stage):
                shortcut = ChannelPadShortcut(planes) if i == 0 and stride != 1 else None
                blocks.append(BasicBlock(in_planes, planes, stride if i == 0 else 1, shortcut))
                in_planes = planes
            stages.append(nn.Sequential(*blocks))
        self.layer1, self.layer2, self.layer3 = stages
        self.avgpool = nn.AdaptiveAvgPool2d((1, 1))
        self.fc = nn.Linear(64, num_classes)
        for module in self.modules():
            if isinstance(module, (nn.Conv2d, nn.Linear)):
                init.kaiming_normal_(module.weight)

    def forward(self, x: Tensor) -> Tensor:
        x = self.relu(self.bn1(self.conv1(x)))
        x = self.layer3(self.layer2(self.layer1(x)))
        return self.fc(self.avgpool(x).flatten(1))


def resnet18(num_classes: int = 1000, **kwargs) -> ResNet:
    return ResNet([2, 2, 2, 2], num_classes, **kwargs)


def resnet34(num_classes: int = 1000, **kwargs) -> ResNet:
    return ResNet([3, 4, 6, 3], num_classes, **kwargs)


def resnet20(num_classes: int = 10, **kwargs) -> CifarResNet:
    return CifarResNet(3, num_classes, **kwargs)
