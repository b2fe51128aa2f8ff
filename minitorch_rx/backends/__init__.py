"""``minitorch_rx.backends``: torch's backend flags, the very modules (``mt.backends.cudnn`` is
``torch.backends.cudnn``), since our ops run torch's kernels: ``mt.backends.cudnn.benchmark = True``
and ``mt.backends.cuda.matmul.allow_tf32 = True`` set torch's flags. ``import
minitorch_rx.backends.cudnn`` works too: each module is registered under our name as well.

One flag is ours: ``mt.backends.conv`` picks how ``conv1d/2d/3d`` (and ``nn.Conv*``) compute.

- ``"im2col"`` (the default): columns of the input and one product per batch slice
  (``ops/im2col.py``, ``ops/correlation.py``): every step visible, the product this project is defined by.
- ``"native"``: aten's convolution kernel and its backward kernel (oneDNN's direct convolution on
  CPU, cuDNN on CUDA), driven by our engine: the graph, hooks, saved-tensor accounting and
  ``create_graph`` stay ours. For the last step of speed (a ResNet-20 step at torch.nn's time).
  Convolutions with an odd total 'same' padding keep im2col.

Any other value raises ``ValueError`` at the assignment.

``mt.backends.autotune`` (default True; ``MINITORCH_RX_AUTOTUNE=0`` in the environment makes it
False): where two kernels compute the same thing (oneDNN's or MKL's product, a convolution's
column layout and batch-slice size), the first call of each shape times them and keeps the
faster, in memory and in a per-machine cache file (``backends/tuner.py``). False: the fixed
rules' choices, deterministic, nothing timed. ``mt.backends.autotune_report()`` lists the choices
made and the times behind them.
"""

import importlib
import sys
import types

from . import tuner

_BACKENDS = ("cpu", "cuda", "cudnn", "mkl", "mkldnn", "mps", "openmp", "opt_einsum")
CONV_BACKENDS = ("im2col", "native")

for _name in _BACKENDS:
    _module = importlib.import_module(f"torch.backends.{_name}")
    sys.modules[f"{__name__}.{_name}"] = _module
    globals()[_name] = _module

conv = "im2col"
autotune = tuner.enabled
autotune_bitwise = tuner.bitwise
autotune_report = tuner.report


class _BackendsModule(types.ModuleType):
    """This module, refusing an unknown ``conv`` backend when it is set."""

    def __setattr__(self, name: str, value: object) -> None:
        if name == "conv" and value not in CONV_BACKENDS:
            raise ValueError(f"mt.backends.conv must be one of {', '.join(map(repr, CONV_BACKENDS))}, got {value!r}")
        if name in ("autotune", "autotune_bitwise"):
            if not isinstance(value, bool):
                raise TypeError(f"mt.backends.{name} must be a bool, got {type(value).__name__}")
            setattr(tuner, "enabled" if name == "autotune" else "bitwise", value)
        super().__setattr__(name, value)


sys.modules[__name__].__class__ = _BackendsModule

__all__ = [*_BACKENDS, "conv", "autotune", "autotune_bitwise", "autotune_report"]
