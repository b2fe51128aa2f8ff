"""``mt.autograd.profile()``: what the engine ran, how long each op took, what it saved.

>>> import minitorch_rx as mt
>>> x = mt.randn(8, requires_grad=True)
>>> with mt.autograd.profile() as prof:
...     (x.exp() * 2).sum().backward()
>>> [e.name for e in prof.events]
['Exp', 'Mul', 'Sum', 'SumBackward0', 'MulBackward0', 'ExpBackward0', 'AccumulateGrad']

It records the ops that record a node (grad mode on, some input requiring grad) and every node
that backward runs; ops that record nothing (under ``no_grad``) are not seen. Times are the wall
time of each call on the CPU: on a GPU, where kernels run asynchronously, they measure the
launch unless something synchronizes. Costs nothing outside the block (``autograd/observe.py``
says how); inside it, ops take the engine's general path and each event costs a few microseconds.
"""

from __future__ import annotations

import json
import os
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import NamedTuple

from . import observe
from .memory import format_bytes, node_saved_bytes


class Event(NamedTuple):
    """One op run forward (``kind == 'forward'``) or one node run by backward (``'backward'``).

    A tuple of plain values, so that the cycle collector stops tracking it (profiles of long
    runs hold many)."""

    name: str
    kind: str
    input_shapes: tuple[tuple[int, ...], ...]
    start_ns: int  # time.perf_counter_ns() clock
    duration_ns: int
    saved_bytes: int  # what the node keeps (forward) or kept until it ran (backward) for backward
    thread: int = 0


@dataclass
class KeyAverage:
    """The events of one name together, a row of ``profile.table()``."""

    name: str
    kind: str
    calls: int = 0
    total_ns: int = 0
    saved_bytes: int = 0
    input_shapes: set = field(default_factory=set)

    @property
    def avg_ns(self) -> float:
        return self.total_ns / self.calls if self.calls else 0.0


_SORT_KEYS = {
    "total_time": lambda row: -row.total_ns,
    "cpu_time_total": lambda row: -row.total_ns,  # torch.profiler's names for the same orders
    "self_cpu_time_total": lambda row: -row.total_ns,
    "avg_time": lambda row: -row.avg_ns,
    "cpu_time": lambda row: -row.avg_ns,
    "calls": lambda row: -row.calls,
    "count": lambda row: -row.calls,
    "saved_bytes": lambda row: -row.saved_bytes,
    "name": lambda row: row.name,
}


def _shapes(values) -> tuple[tuple[int, ...], ...]:
    shapes = []
    for value in values:
        data = getattr(value, "_data", value)
        shape = getattr(data, "shape", None)
        shapes.append(() if shape is None else tuple(shape))
    return tuple(shapes)


class profile(observe.Observer):
    """Context that records every op the engine records and every node backward runs, with its
    name, input shapes, wall time and saved bytes (as ``torch.autograd.profiler.profile``).

    ``prof.events`` lists them in order; ``prof.key_averages()`` groups them by name;
    ``prof.table(sort_by='total_time', row_limit=20)`` prints those groups as a table;
    ``prof.export_chrome_trace(path)`` writes a trace that Perfetto and chrome://tracing open.
    """

    def __init__(self, enabled: bool = True) -> None:
        self.enabled = enabled
        self.events: list[Event] = []
        self._active = False

    def __enter__(self) -> profile:
        if self._active:
            raise RuntimeError("profiler context manager is not reentrant")
        if self.enabled:
            self._active = True
            observe.attach(self)
        return self

    def __exit__(self, *exc: object) -> None:
        if self._active:
            observe.detach(self)
            self._active = False

    def on_forward(self, node, args: tuple, result, start_ns: int, end_ns: int) -> None:
        function = node._function
        name = function._recorded_as or function.__name__
        self.events.append(
            Event(
                name,
                "forward",
                _shapes(args),
                start_ns,
                end_ns - start_ns,
                node_saved_bytes(node),
                threading.get_ident(),
            )
        )

    def on_backward(self, node, grads: tuple, start_ns: int, end_ns: int) -> None:
        self.events.append(
            Event(
                type(node).__name__,
                "backward",
                _shapes(grads),
                start_ns,
                end_ns - start_ns,
                node_saved_bytes(node),
                threading.get_ident(),
            )
        )

    # ------------------------------------------------------------------ summaries
    def key_averages(self) -> list[KeyAverage]:
        """The events grouped by name, in order of first appearance."""
        rows: dict[str, KeyAverage] = {}
        for event in self.events:
            row = rows.get(event.name)
            if row is None:
                row = rows[event.name] = KeyAverage(event.name, event.kind)
            row.calls += 1
            row.total_ns += event.duration_ns
            row.saved_bytes += event.saved_bytes
            row.input_shapes.add(str(event.input_shapes))
        return list(rows.values())

    @property
    def total_ns(self) -> int:
        """Wall time of all events together."""
        return sum(event.duration_ns for event in self.events)

    def table(self, sort_by: str = "total_time", row_limit: int = 20) -> str:
        """A text table of ``key_averages()``: name, forward/backward, calls, total and average
        time, share of the profiled time, bytes saved for backward. ``sort_by``: ``total_time``,
        ``avg_time``, ``calls``, ``saved_bytes``, ``name`` (or torch.profiler's
        ``cpu_time_total``, ``cpu_time``, ``count``); ``row_limit < 0`` shows every row."""
        if sort_by not in _SORT_KEYS:
            raise ValueError(f"sort_by must be one of {sorted(_SORT_KEYS)}, got {sort_by!r}")
        rows = sorted(self.key_averages(), key=_SORT_KEYS[sort_by])
        if row_limit >= 0:
            rows = rows[:row_limit]
        total = self.total_ns or 1
        header = ("Name", "Kind", "Calls", "Total", "Avg", "% total", "Saved")
        lines = [
            (row.name, row.kind, str(row.calls), _time(row.total_ns), _time(row.avg_ns),
             f"{100 * row.total_ns / total:.2f}%", format_bytes(row.saved_bytes))
            for row in rows
        ]  # fmt: skip
        widths = [max(len(cell) for cell in column) for column in zip(header, *lines)]
        rule = "  ".join("-" * w for w in widths)

        def fmt(cells: tuple) -> str:
            first = cells[0].ljust(widths[0])
            return "  ".join([first, *(c.rjust(w) for c, w in zip(cells[1:], widths[1:]))])

        body = [rule, fmt(header), rule, *map(fmt, lines), rule]
        body.append(f"Total time: {_time(self.total_ns)} in {len(self.events)} events")
        return "\n".join(body)

    def export_chrome_trace(self, path: str | os.PathLike) -> None:
        """Write the events as Chrome trace JSON (complete ``"X"`` events, microseconds):
        forward ops and backward nodes on one timeline, one track each, per thread."""
        if not self.events:
            origin = 0
        else:
            origin = min(event.start_ns for event in self.events)
        pid = os.getpid()
        threads = sorted({event.thread for event in self.events})
        tracks = {
            (t, kind): 2 * i + (kind == "backward") for i, t in enumerate(threads) for kind in ("forward", "backward")
        }
        trace = [
            {"name": "thread_name", "ph": "M", "pid": pid, "tid": tid, "args": {"name": _track_name(kind, t, threads)}}
            for (t, kind), tid in tracks.items()
        ]
        for event in self.events:
            trace.append(
                {
                    "name": event.name,
                    "cat": event.kind,
                    "ph": "X",
                    "ts": (event.start_ns - origin) / 1000,
                    "dur": event.duration_ns / 1000,
                    "pid": pid,
                    "tid": tracks[(event.thread, event.kind)],
                    "args": {"input_shapes": event.input_shapes, "saved_bytes": event.saved_bytes},
                }
            )
        Path(path).write_text(json.dumps({"traceEvents": trace, "displayTimeUnit": "ms"}))

    def __repr__(self) -> str:
        return f"profile(events={len(self.events)}, total={_time(self.total_ns)})"


def _track_name(kind: str, thread: int, threads: list[int]) -> str:
    return kind if len(threads) == 1 else f"{kind} (thread {threads.index(thread) + 1})"


def _time(ns: float) -> str:
    if ns >= 1e9:
        return f"{ns / 1e9:.3f}s"
    if ns >= 1e6:
        return f"{ns / 1e6:.3f}ms"
    return f"{ns / 1e3:.3f}us"
