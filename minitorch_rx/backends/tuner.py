"""Kernel choice by measurement (``mt.backends.autotune``), like ``torch.backends.cudnn.benchmark``.

Where two kernels compute the same thing (oneDNN's or MKL's product, a convolution's column
layout, its batch-slice size), the first calls for a given key (shapes, dtype, layout; the thread
count is added here) try the candidates in turn, each call computing its real result with one of
them: a warm-up round, then ``ROUNDS`` timed rounds (this thread's CPU time with one thread, else
wall time), the fastest call of each counting. Timing the real calls, in their place in a training
step, matters: between two calls of a hot loop oneDNN's (64, 784) x (784, 128) product took 160
us against MKL's 155 on this project's AMD EPYC, inside the MLP's step 239 against 189. The winner
is remembered in memory for the process and, where the cache folder is writable, in a JSON file
keyed by CPU model, torch CPU capability and torch version, so that later processes on the same
machine skip the trials. A candidate must beat the fixed rule's choice by ``MARGIN`` to replace it
(noise between two near-equal kernels must not flip the choice). For kinds whose candidates cost
memory (``MEMORY_COST``: a convolution's batch-slice size), of the candidates within ``MARGIN`` of
the fastest the one needing the least memory wins.

With ``mt.backends.autotune = False`` (or ``MINITORCH_RX_AUTOTUNE=0`` in the environment) every
choice is the fixed rule's: deterministic, nothing timed, nothing read or written on disk.
``report()`` lists the choices made so far and why. The cache file lives in
``$MINITORCH_RX_CACHE_DIR``, else ``$XDG_CACHE_HOME/minitorch_rx``, else ``~/.cache/minitorch_rx``;
a file that cannot be read or parsed is ignored (and replaced at the next save); writers merge
under a lock file and replace the file atomically.
"""

from __future__ import annotations

import ast
import contextlib
import functools
import hashlib
import json
import os
import platform
import tempfile
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

import torch

try:
    import fcntl
except ImportError:  # Windows: writers still replace the file atomically, unserialized
    fcntl = None

#: Timed calls per candidate after its warm-up call; the fastest counts.
ROUNDS = 3
#: A candidate replaces the fixed rule's choice only when at least this much faster.
MARGIN = 0.05
#: Bumped when the meaning of a kind's keys or candidates changes (older files are then ignored).
FORMAT = 5
#: kind -> the memory a candidate (by name) needs, for kinds where that differs (``ops/correlation.py``).
MEMORY_COST: dict[str, Callable[[str], float]] = {}

T = TypeVar("T")

enabled = os.environ.get("MINITORCH_RX_AUTOTUNE", "1").strip().lower() not in ("0", "false", "off", "no")


@dataclass(frozen=True)
class Choice:
    """One decision: ``picked`` among the candidates for ``key`` of ``kind`` at ``threads`` threads,
    the fixed rule's ``default``, the best time of each candidate in seconds, and where it came
    from (``"measured"`` in this process or ``"cache file"``)."""

    kind: str
    key: tuple
    threads: int
    picked: str
    default: str
    times: dict[str, float]
    source: str


_choices: dict[tuple, Choice] = {}
_trials: dict[tuple, _Trial] = {}
_loaded = False
_lock = threading.Lock()


class _Trial:
    """The calls still to make for one key (a warm-up round, then ``ROUNDS`` timed ones, each
    round every candidate in turn, in reversed order every other round) and the best time of each."""

    __slots__ = ("order", "best")

    def __init__(self, candidates: Sequence[str]) -> None:
        rounds = [candidates if number % 2 == 0 else candidates[::-1] for number in range(ROUNDS + 1)]
        self.order = [(name, number > 0) for number, names in enumerate(rounds) for name in names][::-1]
        self.best = dict.fromkeys(candidates, float("inf"))


def _clock() -> float:
    """With one thread, this thread's CPU time, which a busy machine's other processes leave alone
    (wall time charged whole preemptions to one candidate: 10.8 against 2.2 ms for a product both
    kernels run in 2 ms); with several, wall time, which counts the other threads' work."""
    return time.thread_time() if torch.get_num_threads() == 1 else time.perf_counter()


def decided(kind: str, key: tuple) -> str | None:
    """The choice made for ``key`` at this thread count (or read from the cache file), else None."""
    if not _loaded:
        _load()
    choice = _choices.get((kind, key, torch.get_num_threads()))
    return None if choice is None else choice.picked


def run(kind: str, key: tuple, candidates: Sequence[str], default: str, compute: Callable[[str], T]) -> T:
    """``compute(name)`` with the candidate chosen for ``key``: ``default`` when autotune is off or
    there is one candidate; else the remembered choice or, until one is made, the next candidate
    of the trial, timed. ``key`` holds ints, strings, bools, None and tuples."""
    if not enabled or len(candidates) < 2:
        return compute(default)
    picked = decided(kind, key)
    if picked in candidates:
        return compute(picked)
    full = (kind, key, torch.get_num_threads())
    trial = _trials.get(full)
    if trial is None:
        trial = _trials.setdefault(full, _Trial(candidates))
    try:
        name, timed = trial.order.pop()
    except IndexError:  # another thread took the trial's last call: its choice is being made
        return compute(default)
    start = _clock()
    result = compute(name)
    if timed:
        trial.best[name] = min(trial.best[name], _clock() - start)
    if not trial.order and _trials.pop(full, None) is trial:  # one thread decides
        _decide(full, default, trial.best)
    return result


def _decide(full: tuple, default: str, times: dict[str, float]) -> None:
    best = min(times, key=times.__getitem__)
    if default in times and times[best] > (1 - MARGIN) * times[default]:
        best = default
    cost = MEMORY_COST.get(full[0])
    if cost is not None:  # as fast, within the margin: the one needing the least memory
        best = min((name for name in times if times[name] <= (1 + MARGIN) * times[best]), key=cost)
    choice = Choice(*full, best, default, times, "measured")
    _choices[full] = choice
    _save(choice)


def pending() -> int:
    """How many keys are still being tried (their choices not made yet)."""
    return len(_trials)


def choices() -> list[Choice]:
    """Every choice made or loaded in this process, in the order made."""
    return list(_choices.values())


def clear() -> None:
    """Forget the choices and trials in memory (the cache file stays; it is read again at the next
    choice)."""
    global _loaded
    _choices.clear()
    _trials.clear()
    _loaded = False


def report() -> str:
    """The choices made so far or read from the cache file, one line each: what was picked, the
    fixed rule's choice, and the candidates' best times (the ``why``)."""
    if enabled and not _loaded:
        _load()
    lines = [f"autotune {'on' if enabled else 'off'}; {machine()}; cache file: {cache_file()}"]
    if not enabled:
        lines.append("every kernel is the fixed rule's choice")
    for choice in _choices.values():
        times = ", ".join(f"{name} {seconds * 1e6:.0f} us" for name, seconds in choice.times.items())
        lines.append(
            f"{choice.kind} {choice.key} {choice.threads} thread(s): {choice.picked} "
            f"(fixed rule: {choice.default}; {times}; {choice.source})"
        )
    if enabled and not _choices:
        lines.append("no choice made yet")
    return "\n".join(lines)


# ------------------------------------------------------------------ the machine and the cache file
@functools.cache
def cpu_model() -> str:
    """The CPU's model name (``/proc/cpuinfo``'s on Linux), else ``platform.processor()``."""
    with contextlib.suppress(OSError):
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    return platform.processor() or platform.machine() or "unknown CPU"


@functools.cache
def machine() -> str:
    """CPU model, torch's CPU capability and torch's version: what the choices depend on."""
    return f"{cpu_model()}, capability {torch.backends.cpu.get_cpu_capability()}, torch {torch.__version__}"


def cache_file() -> Path:
    """This machine's cache file (its name hashes ``machine()``, so machines sharing a home folder differ)."""
    folder = os.environ.get("MINITORCH_RX_CACHE_DIR")
    if not folder:
        base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
        folder = os.path.join(base, "minitorch_rx")
    digest = hashlib.sha256(f"{FORMAT} {machine()}".encode()).hexdigest()[:16]
    return Path(folder) / f"autotune-{digest}.json"


def _entry_name(choice: Choice) -> str:
    return repr((choice.kind, choice.key, choice.threads))


def _read(path: Path) -> dict[str, dict]:
    """The file's entries, or none where it is missing, unreadable, or not what ``_save`` writes."""
    try:
        content = json.loads(path.read_text())
    except (OSError, ValueError):
        return {}
    if not isinstance(content, dict) or content.get("machine") != machine():
        return {}
    entries = content.get("choices")
    return entries if isinstance(entries, dict) else {}


def _load() -> None:
    """Fill the in-memory choices from the cache file (entries measured in this process win)."""
    global _loaded
    _loaded = True
    for name, entry in _read(cache_file()).items():
        try:
            kind, key, threads = ast.literal_eval(name)
            picked, default, times = entry["picked"], entry["default"], entry["times"]
            choice = Choice(kind, key, threads, picked, default, {k: float(v) for k, v in times.items()}, "cache file")
        except (ValueError, TypeError, KeyError, SyntaxError, AttributeError, MemoryError, RecursionError):
            continue
        _choices.setdefault((kind, key, threads), choice)


@contextlib.contextmanager
def _file_lock(path: Path):
    """Serializes read-merge-write of the cache file between processes (where ``fcntl`` exists)."""
    if fcntl is None:
        yield
        return
    with open(path.with_suffix(".lock"), "a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def _save(choice: Choice) -> None:
    """Merge ``choice`` into the cache file; a cache folder that cannot be written is skipped."""
    path = cache_file()
    entry = {"picked": choice.picked, "default": choice.default, "times": choice.times}
    with _lock, contextlib.suppress(OSError):
        path.parent.mkdir(parents=True, exist_ok=True)
        with _file_lock(path):
            entries = _read(path)
            entries[_entry_name(choice)] = entry
            handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=path.name, suffix=".tmp")
            try:
                with os.fdopen(handle, "w") as out:
                    json.dump({"machine": machine(), "format": FORMAT, "choices": entries}, out, indent=1)
                os.replace(temporary, path)
            except BaseException:
                with contextlib.suppress(OSError):
                    os.unlink(temporary)
                raise
