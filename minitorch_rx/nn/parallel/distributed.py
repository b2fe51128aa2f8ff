"""``DistributedDataParallel``: one model replica per process, gradients averaged over a
``torch.distributed`` process group, as ``torch.nn.parallel.DistributedDataParallel``.

Communication is PyTorch's (gloo on CPU, NCCL on GPUs); the averaging itself is the
:class:`~minitorch_rx.nn.parallel.reducer.Reducer`, driven by the engine's
post-accumulate-grad hooks.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import torch
import torch.distributed as dist

from ...autograd.grad_mode import is_grad_enabled
from ...autograd.tensor import Tensor
from ..module import Module
from .reducer import Reducer, collective

BROADCAST_BUCKET_BYTES = 250 * 1024 * 1024  # as torch's _sync_module_states


class DistributedDataParallel(Module):
    """Data parallelism: wrap the model in every process, feed each its own shard of the data.

    At construction the parameters and buffers of the group's rank 0 are broadcast to every
    rank (and the buffers again before each forward, ``broadcast_buffers=True``). During a
    backward that follows a forward through this wrapper, gradients are averaged over the group
    bucket by bucket as they become ready, overlapping the rest of backward; when
    ``backward()`` returns every rank holds the same averaged ``.grad``. ``no_sync()`` keeps
    gradients local for accumulation. ``state_dict()`` keys carry the ``module.`` prefix.

    ``device_ids``: ``None`` for CPU modules, or ``[i]`` for a module on ``cuda:i`` (inputs are
    moved there; ``output_device`` is accepted for torch's signature and defaults to ``i``, the
    output staying where the module computed it, as in torch). ``process_group``: any
    ``torch.distributed`` group (default: the world group). ``find_unused_parameters``: search
    each forward's graph for the parameters it does not use, so that backward does not wait for
    them; without it such a parameter makes the next forward raise torch's "Expected to have
    finished reduction" error.

    In each of N processes (started by ``torchrun``, say)::

        torch.distributed.init_process_group("gloo")  # "nccl" for GPUs
        model = nn.parallel.DistributedDataParallel(mt.models.lenet5())
        F.cross_entropy(model(images), labels).backward()  # .grad: the mean over the N processes
    """

    def __init__(
        self,
        module: Module,
        device_ids: Sequence[int | torch.device] | None = None,
        output_device: int | torch.device | None = None,
        *,
        broadcast_buffers: bool = True,
        process_group: dist.ProcessGroup | None = None,
        bucket_cap_mb: float = 25,
        find_unused_parameters: bool = False,
    ) -> None:
        super().__init__()
        named = [(name, p) for name, p in module.named_parameters() if p.requires_grad]
        if not named:
            raise RuntimeError(
                "DistributedDataParallel is not needed when a module doesn't have any parameter "
                "that requires a gradient."
            )
        self.module = module
        self.process_group = _group(process_group)
        self.device_ids = _device_ids(device_ids, output_device, [p for _, p in named])
        self.output_device = None if self.device_ids is None else _device_index(output_device, self.device_ids[0])
        self.broadcast_buffers = broadcast_buffers
        self.find_unused_parameters = find_unused_parameters
        self.bucket_bytes_cap = int(bucket_cap_mb * 1024 * 1024)
        self.require_backward_grad_sync = True
        _verify_same_parameters([p for _, p in named], self.process_group)
        _broadcast_coalesced([p._data for p in module.parameters()] + self._buffer_data(), self.process_group)
        self.reducer = Reducer(
            [p for _, p in named],
            [name for name, _ in named],
            self.process_group,
            self.bucket_bytes_cap,
            find_unused_parameters,
        )

    def forward(self, *inputs: Any, **kwargs: Any) -> Any:
        """The wrapped module's forward; arms gradient averaging for the following backward
        when grad mode is on and no ``no_sync()`` is active."""
        grad_sync = is_grad_enabled() and self.require_backward_grad_sync
        if grad_sync:
            self.reducer.ensure_prior_reduction_finished()
        if self.broadcast_buffers and self.process_group.size() > 1:
            _broadcast_coalesced(self._buffer_data(), self.process_group)
        if self.device_ids:
            device = torch.device("cuda", self.device_ids[0])
            inputs, kwargs = _to_device(inputs, device), _to_device(kwargs, device)
        output = self.module(*inputs, **kwargs)
        if grad_sync:
            self.reducer.prepare_for_backward(output)
        return output

    @contextmanager
    def no_sync(self) -> Iterator[None]:
        """Gradients of the backward passes of forwards run inside this block accumulate
        locally; the first synchronised backward after it averages the accumulated sums.

        ::

            with ddp.no_sync():
                for images, labels in micro_batches[:-1]:
                    F.cross_entropy(ddp(images), labels).backward()  # local only
            images, labels = micro_batches[-1]
            F.cross_entropy(ddp(images), labels).backward()  # the sums, averaged over ranks
        """
        previous = self.require_backward_grad_sync
        self.require_backward_grad_sync = False
        try:
            yield
        finally:
            self.require_backward_grad_sync = previous

    def _buffer_data(self) -> list[torch.Tensor]:
        return [buffer._data for buffer in self.module.buffers()]


def _group(process_group: dist.ProcessGroup | None) -> dist.ProcessGroup:
    if process_group is not None:
        return process_group
    if not dist.is_initialized():
        raise ValueError("Default process group has not been initialized, please make sure to call init_process_group.")
    return dist.group.WORLD


def _device_ids(
    device_ids: Sequence[int | torch.device] | None, output_device: int | torch.device | None, params: list[Tensor]
) -> list[int] | None:
    """torch's checks: one device type; ``device_ids`` only for a module on one CUDA device."""
    if device_ids is not None and len(device_ids) > 1:
        raise ValueError("device_ids can only be None or contain a single element.")
    devices = {p.device for p in params}
    types = {device.type for device in devices}
    if len(types) != 1:
        raise ValueError(
            "DistributedDataParallel's input module must be on the same type of devices, but input "
            f"module parameters locate in {types}."
        )
    if not device_ids or types != {"cuda"} or len(devices) > 1:
        if device_ids or output_device:
            raise ValueError(
                "DistributedDataParallel device_ids and output_device arguments only work with "
                "single-device/multiple-device GPU modules or CPU modules, but got device_ids "
                f"{device_ids}, output_device {output_device}, and module parameters {devices}."
            )
        return None
    return [_device_index(device_ids[0], 0)]


def _device_index(device: int | torch.device | str | None, default: int) -> int:
    if device is None:
        return default
    return device if isinstance(device, int) else torch.device(device).index


def _verify_same_parameters(params: list[Tensor], group: dist.ProcessGroup) -> None:
    """Every rank must wrap the same model: compare parameter counts and shapes across ranks."""
    shapes = [tuple(p.shape) for p in params]
    summary = torch.tensor(
        [len(params), sum(p.numel() for p in params), hash(tuple(shapes)) % (2**61)],
        dtype=torch.int64,
        device=params[0].device,
    )
    gathered = [torch.empty_like(summary) for _ in range(group.size())]
    with collective("comparing the model across ranks", group):
        dist.all_gather(gathered, summary, group=group)
    for rank, other in enumerate(gathered):
        if not torch.equal(other, summary):
            raise RuntimeError(
                f"DDP expects same model across all ranks, but Rank {group.rank()} has {len(params)} params "
                f"({int(summary[1])} elements), while rank {rank} has inconsistent {int(other[0])} params "
                f"({int(other[1])} elements) or different parameter shapes."
            )


def _broadcast_coalesced(tensors: list[torch.Tensor], group: dist.ProcessGroup) -> None:
    """Overwrite ``tensors`` with the group's rank 0 values: one broadcast per dtype and
    device per ~250 MB, through a flat buffer."""
    if group.size() == 1:
        return
    batches: dict[tuple, list[list[torch.Tensor]]] = {}
    sizes: dict[tuple, int] = {}
    for tensor in tensors:
        key = (tensor.device, tensor.dtype)
        batch_list = batches.setdefault(key, [[]])
        if sizes.get(key, 0) >= BROADCAST_BUCKET_BYTES:
            batch_list.append([])
            sizes[key] = 0
        batch_list[-1].append(tensor)
        sizes[key] = sizes.get(key, 0) + tensor.numel() * tensor.element_size()
    for batch_list in batches.values():
        for batch in batch_list:
            flat = torch.cat([t.reshape(-1) for t in batch])
            with collective("broadcast of rank 0's parameters and buffers", group):
                dist.broadcast(flat, group=group, group_src=0)
            for tensor, chunk in zip(batch, flat.split([t.numel() for t in batch]), strict=True):
                tensor.copy_(chunk.view_as(tensor))


def _to_device(value: Any, device: torch.device) -> Any:
    """``value`` with every tensor (``mt.Tensor`` or ``torch.Tensor``) in it moved to ``device``."""
    if isinstance(value, (Tensor, torch.Tensor)):
        return value.to(device)
    if isinstance(value, tuple) and hasattr(value, "_fields"):  # a namedtuple
        return type(value)(*(_to_device(item, device) for item in value))
    if isinstance(value, (list, tuple)):
        return type(value)(_to_device(item, device) for item in value)
    if isinstance(value, dict):
        return {key: _to_device(item, device) for key, item in value.items()}
    return value
