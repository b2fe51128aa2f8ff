"""Kernel choice by measurement (``mt.backends.autotune``), like ``torch.backends.cudnn.benchmark``.

Where two kernels compute the same thing (oneDNN's or MKL's product, a convolution's column
layout, its batch-slice size), the first call for a given key (shapes, dtype, layout; the thread
count is added here) times each candidate on the call's own operands: one warm-up call each, then
``ROUNDS`` interleaved timed calls (this thread's CPU time with one thread, else wall time), each
after evicting the caches, the fastest of each counting. The winner is remembered in
memory for the process and, where the cache folder is writable, in a JSON file keyed by CPU model,
torch CPU capability and torch version, so that later processes on the same machine skip the
measuring. A candidate must beat the fixed rule's choice by ``MARGIN`` to replace it (noise
between two near-equal kernels must not flip the choice).

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

import torch

try:
    import fcntl
except ImportError:  # Windows: writers still replace the file atomically, unserialized
    fcntl = None

#: Timed calls per candidate after its warm-up call; the fastest counts.
ROUNDS = 3
#: Each timed call starts after writing this many floats (4 MiB, past a core's L2), so that the
#: kernels are timed with their operands out of cache, as in a training step where other layers
#: ran in between. In a hot loop (64, 784) x (784, 128) products timed 160 us by oneDNN and 155 by MKL
#: on this project's AMD EPYC; after an eviction 182 and 171, and inside the MLP's step 239 and 189.
EVICT_ELEMENTS = 1 << 20
#: A candidate replaces the fixed rule's choice only when at least this much faster.
MARGIN = 0.05
#: Bumped when the meaning of a kind's keys or candidates changes (older files are then ignored).
FORMAT = 2

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
_loaded = False
_lock = threading.Lock()


def choose(kind: str, key: tuple, candidates: Sequence[str], default: str, run: Callable[[str], object]) -> str:
    """The candidate to use for ``key``: ``default`` when autotune is off or there is one
    candidate; else the remembered choice, measured by ``run(name)`` (which computes the result
    with candidate ``name``) on the first call. ``key`` holds ints, strings, bools, None, tuples."""
    if not enabled or len(candidates) < 2:
        return default
    full = (kind, key, torch.get_num_threads())
    choice = _choices.get(full)
    if choice is None:
        if not _loaded:
            _load()
        choice = _choices.get(full)
    if choice is None or choice.picked not in candidates:
        times = _measure(candidates, run)
        best = min(candidates, key=times.__getitem__)
        if default in times and times[best] > (1 - MARGIN) * times[default]:
            best = default
        choice = Choice(kind, key, full[2], best, default, times, "measured")
        _choices[full] = choice
        _save(choice)
    return choice.picked


def _measure(candidates: Sequence[str], run: Callable[[str], object]) -> dict[str, float]:
    for name in candidates:  # first-use costs: JIT kernels, page faults, nested choices
        run(name)
    best = dict.fromkeys(candidates, float("inf"))
    evict = torch.empty(EVICT_ELEMENTS)
    # One thread: this thread's CPU time, which a busy machine's other processes leave alone (wall
    # time charged whole rounds of preemption to one candidate: 10.8 against 2.2 ms for a product
    # that both kernels run in 2 ms). Several: wall time, which counts the other threads' work.
    clock = time.thread_time if torch.get_num_threads() == 1 else time.perf_counter
    for round_nr in range(ROUNDS):
        for name in candidates if round_nr % 2 == 0 else reversed(candidates):
            evict.fill_(0.0)
            start = clock()
            run(name)
            best[name] = min(best[name], clock() - start)
    return best


def choices() -> list[Choice]:
    """Every choice made or loaded in this process, in the order made."""
    return list(_choices.values())


def clear() -> None:
    """Forget the choices in memory (the cache file stays; it is read again at the next choice)."""
    global _loaded
    _choices.clear()
    _loaded = False


def report() -> str:
    """The choices made so far, one line each: what was picked, the fixed rule's choice, and the
    candidates' best times (the ``why``)."""
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
