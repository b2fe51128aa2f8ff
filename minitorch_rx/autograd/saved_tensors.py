"""``saved_tensors_hooks`` and ``save_on_cpu``: what ops keep for backward, as the user decides.

Inside ``with saved_tensors_hooks(pack, unpack):`` every tensor an op saves for backward is
handed to ``pack`` (as an mt.Tensor) and only what ``pack`` returns is kept; backward calls
``unpack`` on it to get the tensor back. Ops recorded outside the context are not affected.
"""

from __future__ import annotations

from collections.abc import Callable

import torch

from .grad_mode import state
from .tensor import Tensor


class saved_tensors_hooks:
    """Context in which the tensors saved for backward go through ``pack_hook`` and come back
    through ``unpack_hook``, as ``torch.autograd.graph.saved_tensors_hooks``.

    >>> import minitorch_rx as mt
    >>> x = mt.ones(3, requires_grad=True)
    >>> with mt.autograd.graph.saved_tensors_hooks(lambda t: t * 1, lambda t: t):
    ...     y = (x * x).sum()
    >>> y.backward(); x.grad.tolist()
    [2.0, 2.0, 2.0]
    """

    def __init__(self, pack_hook: Callable[[Tensor], object], unpack_hook: Callable[[object], Tensor]) -> None:
        if not callable(pack_hook) or not callable(unpack_hook):
            raise TypeError("saved_tensors_hooks expects two callables: pack_hook and unpack_hook")
        self.pack_hook = pack_hook
        self.unpack_hook = unpack_hook

    def __enter__(self) -> saved_tensors_hooks:
        state.saved_tensors_hooks.append((self.pack_hook, self.unpack_hook))
        state._refresh()
        return self

    def __exit__(self, *exc: object) -> None:
        state.saved_tensors_hooks.pop()
        state._refresh()


class save_on_cpu(saved_tensors_hooks):
    """Context in which the tensors saved for backward are moved to the CPU (optionally pinned)
    and moved back to their device in backward, as ``torch.autograd.graph.save_on_cpu``."""

    def __init__(self, pin_memory: bool = False, device_type: str = "cuda") -> None:
        def pack(t: Tensor) -> tuple:
            data = t._data
            on_cpu = data.to("cpu", copy=True)
            if pin_memory and torch.cuda.is_available() and data.device.type != "cpu":
                on_cpu = on_cpu.pin_memory()
            return data.device, on_cpu

        def unpack(packed: tuple) -> torch.Tensor:
            device, on_cpu = packed
            return on_cpu.to(device, non_blocking=pin_memory)

        super().__init__(pack, unpack)
