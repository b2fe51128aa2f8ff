"""``DataParallel``: PyTorch's single-process wrapper, as it behaves with one device or none.

On the CPU PyTorch's ``DataParallel`` runs the wrapped module unchanged (``device_ids`` is empty);
this one does that everywhere: ``forward`` calls ``module`` on the inputs as given, on the device
the module lives on. It keeps PyTorch's surface, so code written for it runs: the module is
``.module``, state-dict keys carry the ``module.`` prefix, and ``device_ids``/``output_device``/
``dim`` are kept. Spreading a batch over several GPUs is not done here (use
``DistributedDataParallel``, which PyTorch recommends over ``DataParallel`` anyway).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import torch

from ..module import Module


class DataParallel(Module):
    """Wrap ``module``; calling the wrapper calls ``module`` (see the module docstring).

    >>> import minitorch_rx as mt, minitorch_rx.nn as nn
    >>> model = nn.DataParallel(nn.Linear(2, 3))
    >>> list(model.state_dict()), model(mt.ones(4, 2)).shape
    (['module.weight', 'module.bias'], torch.Size([4, 3]))
    """

    def __init__(
        self,
        module: Module,
        device_ids: Sequence[int | torch.device] | None = None,
        output_device: int | torch.device | None = None,
        dim: int = 0,
    ) -> None:
        super().__init__()
        if not isinstance(module, Module):
            raise TypeError(f"{torch.typename(module)} is not a Module subclass")
        self.module = module
        self.dim = dim
        if not torch.cuda.is_available():
            self.device_ids: list[int] = []
            self.output_device = None
            return
        if device_ids is None:
            device_ids = list(range(torch.cuda.device_count()))
        self.device_ids = [torch.device(d).index if isinstance(d, (str, torch.device)) else d for d in device_ids]
        if output_device is None and self.device_ids:
            output_device = self.device_ids[0]
        self.output_device = output_device

    def forward(self, *inputs: Any, **kwargs: Any) -> Any:
        return self.module(*inputs, **kwargs)
