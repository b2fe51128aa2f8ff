"""PyTorch's ``torch.multiprocessing`` under minitorch_rx's name (``import minitorch_rx.multiprocessing as mp``).

Every name is torch's own: its ``Process``, ``Queue``, ``spawn`` and start methods send tensors
through shared memory, and an ``mt.Tensor`` pickles as its torch data (``Tensor.__reduce_ex__``),
so a tensor or a model's parameters made shared with ``share_memory_()`` / ``Module.share_memory()``
are one memory in every process: hogwild training, with fork or spawn.
"""

from __future__ import annotations

import torch.multiprocessing as _torch_multiprocessing

__all__ = list(_torch_multiprocessing.__all__)


def __getattr__(name: str):
    return getattr(_torch_multiprocessing, name)


def __dir__() -> list[str]:
    return sorted(set(__all__) | set(globals()))
