"""Schedulers made of schedulers: ``SequentialLR`` and ``ChainedScheduler``, as
``torch.optim.lr_scheduler``'s (imported from there)."""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Sequence
from typing import Any

from .lr_scheduler import LRScheduler, ReduceLROnPlateau, _group_values
from .optimizer import Optimizer


def _check_sequence(owner: str, schedulers: object) -> None:
    if not isinstance(schedulers, (list, tuple)):
        raise TypeError(f"{owner} expects a list of schedulers, but got {type(schedulers).__name__}")


def _check_schedulers(owner: str, optimizer: Optimizer, schedulers: Sequence[LRScheduler]) -> None:
    for index, scheduler in enumerate(schedulers):
        if not hasattr(scheduler, "optimizer"):
            raise TypeError(f"{owner} at index {index} should have `optimizer` as its attribute.")
        if isinstance(scheduler, ReduceLROnPlateau):
            raise ValueError(
                f"{owner} does not support `ReduceLROnPlateau` scheduler as it requires additional kwargs to be "
                f"specified when calling `step`, but got one at index {index} in the given schedulers sequence."
            )
        if optimizer != scheduler.optimizer:
            raise ValueError(
                f"{owner} expects all schedulers to belong to the same optimizer, but got scheduler "
                f"{type(scheduler).__name__} at index {index} has {scheduler.optimizer}, which is different "
                f"from {type(optimizer).__name__}."
            )


class _Composite:
    """State dicts that hold each inner scheduler's state dict under ``_schedulers``."""

    _schedulers: list[LRScheduler]

    def state_dict(self) -> dict[str, Any]:
        """Every attribute except the optimizer, with the inner schedulers' state dicts."""
        state = {key: value for key, value in self.__dict__.items() if key not in ("optimizer", "_schedulers")}
        state["_schedulers"] = [s.state_dict() for s in self._schedulers]
        return state

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        """Restore what ``state_dict()`` returned, inner schedulers included."""
        state = dict(state_dict)
        inner = state.pop("_schedulers")
        self.__dict__.update(state)
        for scheduler, saved in zip(self._schedulers, inner, strict=True):
            scheduler.load_state_dict(saved)


class SequentialLR(_Composite, LRScheduler):
    """Run ``schedulers`` one after another, switching at each epoch of ``milestones``.

    >>> import minitorch_rx as mt
    >>> from minitorch_rx.optim import SGD
    >>> from minitorch_rx.optim.lr_scheduler import ConstantLR, ExponentialLR
    >>> opt = SGD([mt.zeros(1, requires_grad=True)], lr=1.0)
    >>> warmup, decay = ConstantLR(opt, factor=0.1, total_iters=2), ExponentialLR(opt, gamma=0.5)
    >>> sched = SequentialLR(opt, [warmup, decay], milestones=[2])
    >>> lrs = []
    >>> for _ in range(4):
    ...     opt.step(); sched.step(); lrs.append(sched.get_last_lr()[0])
    >>> lrs
    [0.1, 1.0, 0.5, 0.25]
    """

    def __init__(
        self, optimizer: Optimizer, schedulers: list[LRScheduler], milestones: list[int], last_epoch: int = -1
    ) -> None:
        owner = type(self).__name__
        _check_sequence(owner, schedulers)
        if len(schedulers) < 1:
            raise ValueError(f"{owner} expects at least one scheduler, but got no scheduler.")
        _check_schedulers(owner, optimizer, schedulers)
        if len(milestones) != len(schedulers) - 1:
            raise ValueError(
                "Sequential Schedulers expects number of schedulers provided to be one more than the number of "
                f"milestone points, but got number of schedulers {len(schedulers)} and the number of milestones "
                f"to be equal to {len(milestones)}"
            )
        self._schedulers = schedulers
        self._milestones = milestones
        self.last_epoch = last_epoch + 1
        self.optimizer = optimizer
        for group in optimizer.param_groups:
            group["lr"] = group["initial_lr"]
        self._undo_steps(self)
        first = self._schedulers[bisect_right(self._milestones, 0)]
        first._step_count = 0
        first._is_initial = True
        try:
            first.step()
        finally:
            first._is_initial = False
        self._last_lr = first.get_last_lr()

    def _undo_steps(self, scheduler: Any) -> None:
        """Take back the first step each inner scheduler took at its construction."""
        if hasattr(scheduler, "_schedulers"):
            for inner in scheduler._schedulers:
                self._undo_steps(inner)
        elif hasattr(scheduler, "last_epoch"):
            scheduler.last_epoch -= 1

    def step(self) -> None:  # type: ignore[override]
        """Advance one epoch: restart the next scheduler at a milestone, else step the current one."""
        self.last_epoch += 1
        index = bisect_right(self._milestones, self.last_epoch)
        scheduler = self._schedulers[index]
        if index > 0 and self._milestones[index - 1] == self.last_epoch:
            scheduler.last_epoch = 0
            closed_form = getattr(scheduler, "_get_closed_form_lr", None)
            values = closed_form() if closed_form is not None else scheduler.get_lr()
            for group, lr in zip(self.optimizer.param_groups, values, strict=True):
                group["lr"] = lr
            scheduler._last_lr = _group_values(self.optimizer, "lr")
        else:
            scheduler.step()
        self._last_lr = scheduler.get_last_lr()


class ChainedScheduler(_Composite, LRScheduler):
    """Step every scheduler of ``schedulers`` at each ``step()``, so their changes compose.

    >>> import minitorch_rx as mt
    >>> from minitorch_rx.optim import SGD
    >>> from minitorch_rx.optim.lr_scheduler import ConstantLR, ExponentialLR
    >>> opt = SGD([mt.zeros(1, requires_grad=True)], lr=1.0)
    >>> sched = ChainedScheduler([ConstantLR(opt, factor=0.5, total_iters=2), ExponentialLR(opt, gamma=0.5)])
    >>> opt.step(); sched.step(); sched.get_last_lr()
    [0.25]
    """

    def __init__(self, schedulers: Sequence[LRScheduler], optimizer: Optimizer | None = None) -> None:
        owner = type(self).__name__
        _check_sequence(owner, schedulers)
        if len(schedulers) < 1:
            raise ValueError(f"{owner} expects at least one scheduler to be chained, but got no scheduler.")
        optimizer = optimizer or getattr(schedulers[0], "optimizer", None)
        _check_schedulers(owner, optimizer, schedulers)
        self._schedulers = list(schedulers)
        self.optimizer = optimizer
        self._last_lr = _group_values(self._schedulers[-1].optimizer, "lr")

    def step(self) -> None:  # type: ignore[override]
        """Step each inner scheduler in order."""
        for scheduler in self._schedulers:
            scheduler.step()
        self._last_lr = _group_values(self._schedulers[-1].optimizer, "lr")
