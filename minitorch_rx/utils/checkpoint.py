"""Activation checkpointing: a segment's saved activations are not kept after forward; backward
recomputes them (``torch.utils.checkpoint``'s non-reentrant design).

The segment runs under ``saved_tensors_hooks`` whose pack keeps an empty holder instead of each
tensor an op saves. The first unpack in backward runs the segment again, with the random number
generators as they were, and fills the holders in the order the tensors were saved. The
segment's graph is recorded as usual, so parameters, ``autograd.grad`` and hooks work as without
checkpointing.
"""

from __future__ import annotations

import warnings
import weakref
from collections.abc import Callable, Iterable
from typing import Any

import torch

from ..autograd import grad_mode
from ..autograd.saved_tensors import saved_tensors_hooks
from ..autograd.tensor import Tensor

__all__ = ["CheckpointError", "checkpoint", "checkpoint_sequential"]


class CheckpointError(RuntimeError):
    """The recomputation did not save what the original forward saved."""


def checkpoint(
    function: Callable,
    *args: Any,
    use_reentrant: bool | None = None,
    preserve_rng_state: bool = True,
    **kwargs: Any,
) -> Any:
    """``function(*args, **kwargs)``, keeping none of its saved activations for backward: they are
    recomputed when backward needs them. ``use_reentrant=True`` is accepted for PyTorch's code and
    behaves as PyTorch's where it differs visibly: with no input requiring grad it warns and its
    output requires no grad.

    >>> import minitorch_rx as mt
    >>> x = mt.randn(4, requires_grad=True)
    >>> y = mt.utils.checkpoint.checkpoint(lambda t: t.exp().sin(), x)
    >>> y.sum().backward(); x.grad.shape
    torch.Size([4])
    """
    if not callable(function):
        raise TypeError(f"checkpoint expects a callable, got {type(function).__name__}")
    if use_reentrant:
        if kwargs:
            raise ValueError("Unexpected keyword arguments: " + ",".join(kwargs))
        if not any(isinstance(a, Tensor) and a.requires_grad for a in args):
            warnings.warn("None of the inputs have requires_grad=True. Gradients will be None", stacklevel=2)
            with grad_mode.no_grad():
                return function(*args)
    if not grad_mode.is_grad_enabled():
        return function(*args, **kwargs)
    frame = _Frame(function, args, kwargs, _RngState(args) if preserve_rng_state else None)
    with saved_tensors_hooks(frame.pack, frame.unpack):
        return function(*args, **kwargs)


def checkpoint_sequential(
    functions: Iterable[Callable], segments: int, input: Any, use_reentrant: bool | None = None, **kwargs: Any
) -> Any:
    """Run ``functions`` (a Sequential or a list of callables) in ``segments`` chunks, each but the
    last checkpointed, as ``torch.utils.checkpoint.checkpoint_sequential``."""
    if hasattr(functions, "children"):
        functions = list(functions.children())
    functions = list(functions)
    for index, function in enumerate(functions):
        if not callable(function):
            raise TypeError(
                f"checkpoint_sequential: functions must be a Sequential or a list of callables, "
                f"got {type(function).__name__} at index {index}"
            )
    if not isinstance(segments, int) or segments < 1:
        raise ValueError(f"segments must be a positive int, got {segments}")
    size = len(functions) // segments
    end = -1
    for start in range(0, size * (segments - 1), size):
        end = start + size - 1
        input = checkpoint(_run(functions[start : end + 1]), input, use_reentrant=use_reentrant, **kwargs)
    return _run(functions[end + 1 :])(input)


def _run(functions: list[Callable]) -> Callable:
    def forward(x):
        for f in functions:
            x = f(x)
        return x

    return forward


class _Holder:
    """What backward keeps of one saved tensor until recomputation fills it."""

    __slots__ = ("tensor", "__weakref__")

    def __init__(self) -> None:
        self.tensor: torch.Tensor | None = None


class _Frame:
    """One checkpointed call: what it needs to run again, and weak references to its holders (the
    graph's nodes own them, so they die with the graph)."""

    def __init__(self, function: Callable, args: tuple, kwargs: dict, rng: _RngState | None) -> None:
        self.function, self.args, self.kwargs, self.rng = function, args, kwargs, rng
        self.holders: list[weakref.ref] = []
        self.recomputed = False

    def pack(self, tensor: Tensor) -> _Holder:
        holder = _Holder()
        self.holders.append(weakref.ref(holder))
        return holder

    def unpack(self, holder: _Holder) -> torch.Tensor:
        if not self.recomputed:
            self._recompute()
        if holder.tensor is None:
            raise CheckpointError(
                "torch.utils.checkpoint: Unpack is being triggered for a tensor that was already unpacked "
                "once and freed, or that the recomputation did not save."
            )
        return holder.tensor

    def _recompute(self) -> None:
        count = 0

        def refill(tensor: Tensor) -> None:
            nonlocal count
            if count < len(self.holders):
                holder = self.holders[count]()
                if holder is not None:
                    holder.tensor = tensor._data
            count += 1

        args = tuple(a.detach().requires_grad_(a.requires_grad) if isinstance(a, Tensor) else a for a in self.args)
        with _restored(self.rng), grad_mode.enable_grad(), saved_tensors_hooks(refill, _never_unpacked):
            self.function(*args, **self.kwargs)
        self.recomputed = True
        if count != len(self.holders):
            raise CheckpointError(
                "torch.utils.checkpoint: A different number of tensors was saved during the original forward "
                f"and recomputation.\nNumber of tensors saved during forward: {len(self.holders)}\n"
                f"Number of tensors saved during recomputation: {count}"
            )


def _never_unpacked(_: object) -> None:
    raise CheckpointError("a tensor saved during checkpoint recomputation was unpacked")


class _RngState:
    """The CPU (and, for CUDA inputs, CUDA) random number generators' states at the forward."""

    def __init__(self, args: tuple) -> None:
        self.cpu = torch.get_rng_state()
        devices = {a.device for a in args if isinstance(a, Tensor) and a.device.type == "cuda"}
        self.cuda = {d: torch.cuda.get_rng_state(d) for d in devices}


class _restored:
    """Context: the generators as ``rng`` recorded them, and back as they were afterwards."""

    def __init__(self, rng: _RngState | None) -> None:
        self.rng = rng

    def __enter__(self) -> None:
        if self.rng is None:
            return
        self.saved = _RngState(())
        self.saved.cuda = {d: torch.cuda.get_rng_state(d) for d in self.rng.cuda}
        torch.set_rng_state(self.rng.cpu)
        for device, value in self.rng.cuda.items():
            torch.cuda.set_rng_state(value, device)

    def __exit__(self, *exc: object) -> None:
        if self.rng is None:
            return
        torch.set_rng_state(self.saved.cpu)
        for device, value in self.saved.cuda.items():
            torch.cuda.set_rng_state(value, device)
