"""The reducer behind ``DistributedDataParallel``: gradients averaged in buckets during backward.

Parameters go into buckets in reverse registration order (about the order backward reaches
them): the first bucket of each dtype and device small (1 MiB) so that communication starts
early, the others up to ``bucket_cap_mb``. The engine calls a post-accumulate-grad hook on each
parameter once its ``.grad`` holds this backward's gradient; that marks the parameter ready.
When every parameter of a bucket is ready, its gradients are copied into one flat buffer,
divided by the world size and all-reduced asynchronously while backward goes on with the
layers below. Buckets are launched in bucket order on every rank, because collectives are
matched by order. The hook that launches the last bucket waits for all of them and copies the
averages back into ``.grad``, so the gradients are final when ``backward()`` returns.
"""

from __future__ import annotations

import weakref
from collections.abc import Sequence
from contextlib import contextmanager
from dataclasses import dataclass

import torch
import torch.distributed as dist

from ...autograd.node import AccumulateGrad
from ...autograd.tensor import Tensor

FIRST_BUCKET_BYTES = 1024 * 1024  # torch.distributed._DEFAULT_FIRST_BUCKET_BYTES

_UNFINISHED = (
    "Expected to have finished reduction in the prior iteration before starting a new one. "
    "This error indicates that your module has parameters that were not used in producing loss. "
)
_ENABLE_FIND_UNUSED = (
    "You can enable unused parameter detection by passing the keyword argument "
    "`find_unused_parameters=True` to `mt.nn.parallel.DistributedDataParallel`, and by making sure "
    "all `forward` function outputs participate in calculating loss."
)
_FIND_UNUSED_ENABLED = (
    "Since `find_unused_parameters=True` is enabled, this likely means that not all `forward` "
    "outputs participate in computing loss. You can fix this by making sure all `forward` "
    "function outputs participate in calculating loss."
)


@contextmanager
def collective(what: str, group: dist.ProcessGroup):
    """Re-raise a failed collective with the rank and the likely cause (a peer died or hung)."""
    try:
        yield
    except RuntimeError as error:
        cause = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
        raise RuntimeError(
            f"DistributedDataParallel: {what} failed on rank {group.rank()} of {group.size()}; another "
            f"process of the group has probably crashed, exited or timed out ({cause})"
        ) from error


def assign_buckets(params: Sequence[Tensor], bucket_cap_bytes: int, first_bucket_bytes: int) -> list[list[int]]:
    """Parameter indices grouped into buckets, as torch's ``compute_bucket_assignment_by_size``.

    Parameters are taken in reverse order and grouped by (device, dtype); a bucket closes once it
    holds at least its byte limit (``first_bucket_bytes`` for the first bucket of each group,
    ``bucket_cap_bytes`` after). Buckets come in the order backward is expected to fill them.
    """
    buckets: list[list[int]] = []
    open_buckets: dict[tuple, tuple[list[int], int]] = {}
    closed_groups: set[tuple] = set()
    for index in reversed(range(len(params))):
        param = params[index]
        key = (param.device, param.dtype)
        indices, size = open_buckets.pop(key, ([], 0))
        indices.append(index)
        size += param.numel() * param.element_size()
        if size >= (bucket_cap_bytes if key in closed_groups else first_bucket_bytes):
            buckets.append(indices)
            closed_groups.add(key)
        else:
            open_buckets[key] = (indices, size)
    buckets.extend(indices for indices, _ in open_buckets.values())
    buckets.sort(key=lambda indices: -indices[0])
    return buckets


@dataclass
class _Bucket:
    """A flat buffer over some parameters' gradients and its in-flight all-reduce."""

    indices: list[int]
    buffer: torch.Tensor
    views: list[torch.Tensor]  # one per parameter, shaped like it, into ``buffer``
    pending: int = 0
    work: dist.Work | None = None


class _GradReadyHook:
    """The post-accumulate-grad hook of one parameter; holds its reducer weakly."""

    __slots__ = ("reducer", "index")

    def __init__(self, reducer: Reducer, index: int) -> None:
        self.reducer = weakref.ref(reducer)
        self.index = index

    def __call__(self, param: Tensor) -> None:
        reducer = self.reducer()
        if reducer is not None:
            reducer.grad_ready(self.index)


def _remove_hooks(handles: list) -> None:
    for handle in handles:
        handle.remove()


class Reducer:
    """Averages the gradients of ``params`` over ``group`` during each synchronised backward.

    ``prepare_for_backward(outputs)`` (called by the wrapper after a forward that must sync) arms
    it for one backward; gradients that arrive when it is not armed stay local (``no_sync``).
    """

    def __init__(
        self,
        params: Sequence[Tensor],
        names: Sequence[str],
        group: dist.ProcessGroup,
        bucket_cap_bytes: int,
        find_unused_parameters: bool,
    ) -> None:
        self.params = list(params)
        self.names = list(names)
        self.group = group
        self.find_unused_parameters = find_unused_parameters
        first = min(FIRST_BUCKET_BYTES, bucket_cap_bytes)
        self.buckets = [self._make_bucket(indices) for indices in assign_buckets(self.params, bucket_cap_bytes, first)]
        self._bucket_of = {index: bucket for bucket in self.buckets for index in bucket.indices}
        self._ready = [False] * len(self.params)
        self._expect_hooks = False
        self._require_finalize = False
        self._unused: list[int] = []
        self._marked_unused = False
        self._used_map: torch.Tensor | None = None
        self._used_work: dist.Work | None = None
        self._next_bucket = 0
        handles = [
            param.register_post_accumulate_grad_hook(_GradReadyHook(self, index))
            for index, param in enumerate(self.params)
        ]
        weakref.finalize(self, _remove_hooks, handles)  # the parameters outlive the wrapper

    def _make_bucket(self, indices: list[int]) -> _Bucket:
        params = [self.params[i] for i in indices]
        buffer = torch.empty(sum(p.numel() for p in params), dtype=params[0].dtype, device=params[0].device)
        views, offset = [], 0
        for param in params:
            views.append(buffer[offset : offset + param.numel()].view(param.shape))
            offset += param.numel()
        return _Bucket(indices, buffer, views)

    # ------------------------------------------------------------------ per iteration
    def ensure_prior_reduction_finished(self) -> None:
        """Raise torch's error when the last synchronised backward left some bucket unreduced."""
        if not self._require_finalize:
            return
        missing = [i for i, ready in enumerate(self._ready) if not ready]
        advice = _FIND_UNUSED_ENABLED if self.find_unused_parameters else _ENABLE_FIND_UNUSED
        raise RuntimeError(
            f"{_UNFINISHED}{advice}\nParameter indices which did not receive grad for rank "
            f"{self.group.rank()}: {' '.join(map(str, missing))}\nTheir names: "
            f"{', '.join(self.names[i] for i in missing)}"
        )

    def prepare_for_backward(self, outputs: object) -> None:
        """Arm the hooks for the backward of ``outputs`` (whose graph is searched for unused
        parameters when ``find_unused_parameters``)."""
        self._expect_hooks = True
        self._ready = [False] * len(self.params)
        for bucket in self.buckets:
            bucket.pending = len(bucket.indices)
        self._next_bucket = 0
        self._marked_unused = False
        if self.find_unused_parameters:
            reached = _leaves_reached(outputs)
            self._unused = [i for i, p in enumerate(self.params) if id(p) not in reached]

    def grad_ready(self, index: int) -> None:
        """The engine accumulated parameter ``index``'s gradient (its hook)."""
        if not self._expect_hooks:
            return
        if not self._marked_unused:
            self._marked_unused = True
            if self.find_unused_parameters:
                self._launch_used_map()
                for unused in self._unused:
                    self._mark_ready(unused)
        self._mark_ready(index)

    def _launch_used_map(self) -> None:
        """All-reduce which parameters each rank used, so that only globally unused ones keep
        their gradient untouched (the first collective of every such backward, on all ranks)."""
        used = torch.ones(len(self.params), dtype=torch.int32, device=self.params[0].device)
        used[self._unused] = 0
        self._used_map = used
        with collective("all-reduce of the used-parameter map", self.group):
            self._used_work = dist.all_reduce(used, group=self.group, async_op=True)

    def _mark_ready(self, index: int) -> None:
        if self._ready[index]:
            raise RuntimeError(
                f"Expected to mark a variable ready only once. Parameter {self.names[index]} (index {index}) "
                "received its gradient twice in one synchronised backward: it is used outside `forward`, or "
                "several backward passes run through one forward's graph. Run the other passes under no_sync()."
            )
        self._ready[index] = True
        self._require_finalize = True
        bucket = self._bucket_of[index]
        bucket.pending -= 1
        if bucket.pending == 0:
            self._launch_ready_buckets()

    def _launch_ready_buckets(self) -> None:
        buckets = self.buckets
        while self._next_bucket < len(buckets) and buckets[self._next_bucket].pending == 0:
            self._launch(buckets[self._next_bucket], self._next_bucket)
            self._next_bucket += 1
        if self._next_bucket == len(buckets):
            self._finalize()

    def _launch(self, bucket: _Bucket, number: int) -> None:
        for index, view in zip(bucket.indices, bucket.views, strict=True):
            grad = self.params[index].grad
            if grad is None:
                view.zero_()
            else:
                view.copy_(grad._data)
        bucket.buffer.div_(self.group.size())
        with collective(f"all-reduce of gradient bucket {number}", self.group):
            bucket.work = dist.all_reduce(bucket.buffer, group=self.group, async_op=True)

    def _finalize(self) -> None:
        """Wait for every bucket and write the averaged gradients back into ``.grad``."""
        self._expect_hooks = False
        globally_used = None
        if self._used_work is not None:
            with collective("all-reduce of the used-parameter map", self.group):
                self._used_work.wait()
            globally_used = self._used_map.tolist()
            self._used_work = self._used_map = None
        for number, bucket in enumerate(self.buckets):
            with collective(f"all-reduce of gradient bucket {number}", self.group):
                bucket.work.wait()
            bucket.work = None
            for index, view in zip(bucket.indices, bucket.views, strict=True):
                if globally_used is not None and not globally_used[index]:
                    continue
                param = self.params[index]
                if param.grad is None:
                    param.grad = Tensor(view.clone())
                else:
                    param.grad._data.copy_(view)
        self._require_finalize = False


def _leaves_reached(outputs: object) -> set[int]:
    """The ids of the leaf tensors whose gradients backward from ``outputs`` can reach."""
    reached: set[int] = set()
    pending = []
    for tensor in _tensors_in(outputs):
        if tensor.grad_fn is None:
            reached.add(id(tensor))
        else:
            pending.append(tensor.grad_fn)
    seen: set[int] = set()
    while pending:
        node = pending.pop()
        if node is None or id(node) in seen:
            continue
        seen.add(id(node))
        if isinstance(node, AccumulateGrad):
            leaf = node.variable
            if leaf is not None:
                reached.add(id(leaf))
        else:
            pending.extend(parent for parent, _ in node.next_functions)
    return reached


def _tensors_in(value: object):
    """Every ``mt.Tensor`` in a (nested) tuple, list or dict output."""
    if isinstance(value, Tensor):
        yield value
    elif isinstance(value, (list, tuple)):
        for item in value:
            yield from _tensors_in(item)
    elif isinstance(value, dict):
        for item in value.values():
            yield from _tensors_in(item)
