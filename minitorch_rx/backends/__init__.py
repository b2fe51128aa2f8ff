"""``minitorch_rx.backends``: torch's backend flags, the very modules (``mt.backends.cudnn`` is
``torch.backends.cudnn``), since our ops run torch's kernels: ``mt.backends.cudnn.benchmark = True``
and ``mt.backends.cuda.matmul.allow_tf32 = True`` set torch's flags. ``import
minitorch_rx.backends.cudnn`` works too: each module is registered under our name as well."""

import importlib
import sys

_BACKENDS = ("cpu", "cuda", "cudnn", "mkl", "mkldnn", "mps", "openmp", "opt_einsum")

for _name in _BACKENDS:
    _module = importlib.import_module(f"torch.backends.{_name}")
    sys.modules[f"{__name__}.{_name}"] = _module
    globals()[_name] = _module

__all__ = list(_BACKENDS)
