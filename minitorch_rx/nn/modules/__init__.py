"""``torch.nn.modules`` under our name: ``from minitorch_rx.nn.modules.loss import _Loss`` as PyTorch's
``from torch.nn.modules.loss import _Loss``; each submodule re-exports our classes (no copies)."""

from . import (
    activation,
    batchnorm,
    container,
    conv,
    distance,
    dropout,
    flatten,
    fold,
    instancenorm,
    linear,
    loss,
    module,
    normalization,
    padding,
    pixelshuffle,
    pooling,
    rnn,
    sparse,
    transformer,
    upsampling,
    utils,
)

_SUBMODULES = (
    activation,
    batchnorm,
    container,
    conv,
    distance,
    dropout,
    flatten,
    fold,
    instancenorm,
    linear,
    loss,
    module,
    normalization,
    padding,
    pixelshuffle,
    pooling,
    rnn,
    sparse,
    transformer,
    upsampling,
    utils,
)

# The package holds every public class of its submodules, as torch.nn.modules does.
for _submodule in _SUBMODULES:
    globals().update({name: getattr(_submodule, name) for name in _submodule.__all__ if not name.startswith("_")})

__all__ = sorted(
    [name for submodule in _SUBMODULES for name in submodule.__all__ if not name.startswith("_")]
    + [submodule.__name__.rsplit(".", 1)[1] for submodule in _SUBMODULES]
)
del _submodule
