"""The model zoo: ``mt.models.get(name, pretrained=False, **kwargs)`` and ``mt.models.list()``.

>>> import minitorch_rx as mt
>>> mt.models.list()
['c3d_small', 'char_lstm', 'gpt_char', 'lenet5', 'm5', 'mlp', 'resnet18', 'resnet20', 'resnet34', 'vgg11_bn']
"""

from __future__ import annotations

import builtins
from collections.abc import Callable
from importlib import resources

from ..nn import Module
from .char_lstm import CharLSTM, char_lstm
from .gpt import GPT, gpt_char
from .resnet import CifarResNet, ResNet, resnet18, resnet20, resnet34
from .small import M5, MLP, C3DSmall, LeNet5
from .vgg import VGG, vgg11_bn


def mlp(**kwargs) -> MLP:
    return MLP(**kwargs)


def lenet5(**kwargs) -> LeNet5:
    return LeNet5(**kwargs)


def m5(**kwargs) -> M5:
    return M5(**kwargs)


def c3d_small(**kwargs) -> C3DSmall:
    return C3DSmall(**kwargs)


_BUILDERS: dict[str, Callable[..., Module]] = {
    "mlp": mlp,
    "lenet5": lenet5,
    "resnet18": resnet18,
    "resnet34": resnet34,
    "resnet20": resnet20,
    "vgg11_bn": vgg11_bn,
    "m5": m5,
    "c3d_small": c3d_small,
    "gpt_char": gpt_char,
    "char_lstm": char_lstm,
}

#: The shape of one example each model expects (channels first), e.g. for ``minitorch-rx graph``.
INPUT_SHAPES = {
    "mlp": (1, 28, 28),
    "lenet5": (1, 28, 28),
    "resnet18": (3, 224, 224),
    "resnet34": (3, 224, 224),
    "resnet20": (3, 32, 32),
    "vgg11_bn": (3, 32, 32),
    "m5": (1, 8000),
    "c3d_small": (1, 16, 16, 16),
}

#: Weights shipped in ``minitorch_rx/models/weights``: model name -> {dataset: file}; the first is the default.
PRETRAINED = {
    "lenet5": {"mnist": "lenet5_mnist.pt", "fashion_mnist": "lenet5_fashion_mnist.pt"},
    "resnet20": {"cifar10": "resnet20_cifar10.pt"},
    "gpt_char": {"tinyshakespeare": "gpt_char_tinyshakespeare.pt"},
    "char_lstm": {"tinyshakespeare": "char_lstm_tinyshakespeare.pt"},
}


def list() -> builtins.list[str]:  # noqa: A001 - the API's name
    """The names ``get`` accepts."""
    return sorted(_BUILDERS)


def get(name: str, pretrained: bool | str = False, **kwargs) -> Module:
    """Build zoo model ``name``. ``pretrained=True`` loads the weights shipped with the package
    (for ``lenet5``: MNIST; for ``resnet20``: CIFAR-10; for ``gpt_char`` and ``char_lstm``: Tiny
    Shakespeare, the default configuration); a data set name picks among them
    (``pretrained="fashion_mnist"``)."""
    if name not in _BUILDERS:
        raise ValueError(f"unknown model '{name}'; available: {', '.join(list())}")
    model = _BUILDERS[name](**kwargs)
    if pretrained:
        if name not in PRETRAINED:
            raise ValueError(
                f"no pretrained weights are shipped for '{name}'; models with weights: {', '.join(sorted(PRETRAINED))}"
            )
        weights = PRETRAINED[name]
        dataset = next(iter(weights)) if pretrained is True else pretrained
        if dataset not in weights:
            raise ValueError(f"no pretrained weights of '{name}' for '{dataset}'; available: {', '.join(weights)}")
        from ..serialization import load

        with resources.as_file(resources.files(__package__).joinpath("weights", weights[dataset])) as path:
            model.load_state_dict(load(path))
    return model


__all__ = [
    "C3DSmall",
    "CharLSTM",
    "GPT",
    "CifarResNet",
    "LeNet5",
    "M5",
    "MLP",
    "ResNet",
    "VGG",
    "c3d_small",
    "char_lstm",
    "get",
    "gpt_char",
    "lenet5",
    "list",
    "m5",
    "mlp",
    "resnet18",
    "resnet20",
    "resnet34",
    "vgg11_bn",
]
