"""Kernel choice by measurement (``mt.backends.autotune``), like ``torch.backends.cudnn.benchmark``.

Where two kernels compute the same thing (oneDNN's or MKL's product, a convolution's column
layout, its batch-slice size), the first call for a given key (shapes, dtype, layout; the thread
count is added here) first times the candidates on scratch data, its own operands with outputs
that are thrown away (``choose``'s ``trial``): a warm-up round, then ``ROUNDS`` timed rounds, each
after evicting the caches (this thread's CPU time with one thread, else wall time), the fastest
call of each counting. Only then does the real call run, with the winner: every real call of a
key, from its first, uses the one kernel chosen for it, so results never depend on which
candidate a trial happened to be trying (issue 37: they did when the trials were the real calls),
and a process that reads the choices from the cache file computes what the process that measured
them computed. Threads wait for a choice being made rather than compute with another kernel.

The winner is remembered in memory for the process and, where the cache folder is writable, in a
JSON file keyed by CPU model, torch CPU capability and torch version, so that later processes on
the same machine skip the trials; the file is read once per process and written only with a choice
it does not hold yet. A candidate must beat the fixed rule's choice by ``MARGIN`` to replace it
(noise between two near-equal kernels must not flip the choice). For kinds whose candidates cost
memory (``MEMORY_COST``: a convolution's batch-slice size), of the candidates within ``MARGIN`` of
the fastest the one needing the least memory wins.

With ``mt.backends.autotune = False`` (or ``MINITORCH_RX_AUTOTUNE=0`` in the environment), and
while ``torch.use_deterministic_algorithms(True)`` or ``torch.backends.cudnn.deterministic = True``
is in force, every choice is the fixed rule's: the same on every machine and in every process,
nothing timed, nothing read or written on disk. ``report()`` lists the choices made so far and
why. The cache file lives in ``$MINITORCH_RX_CACHE_DIR``, else ``$XDG_CACHE_HOME/minitorch_rx``,
else ``~/.cache/minitorch_rx``; a file that cannot be read or parsed is ignored (and replaced at
the next save); writers merge under a lock file and replace the file atomically.
"""

from __future__ import annotations

import contextlib
import functools
import glob
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
#: ran in between.
EVICT_ELEMENTS = 1 << 20
#: A candidate replaces the fixed rule's choice only when at least this much faster.
MARGIN = 0.05
#: Bumped when the meaning of a kind's keys or candidates changes (older files are then ignored).
FORMAT = 6
#: kind -> the memory a candidate (by name) needs, for kinds where that differs (``ops/correlation.py``).
MEMORY_COST: dict[str, Callable[[str], float]] = {}

enabled = os.environ.get("MINITORCH_RX_AUTOTUNE", "1").strip().lower() not in ("0", "false", "off", "no")
#: Only candidates whose results are bitwise the fixed rule's may be chosen (``mt.backends.autotune_bitwise``).
bitwise = True

_deterministic_algorithms = torch._C._get_deterministic_algorithms
_cudnn_deterministic = torch._C._get_cudnn_deterministic


@dataclass(frozen=True)
class Choice:
    """One decision for ``key`` of ``kind`` at ``threads`` threads: ``picked``, the fastest by the
    rules below among all candidates, and ``exact``, the fastest among those whose results were
    bitwise the fixed rule's (``default``'s; the others are ``differs``); the best time of each
    candidate in seconds, and where it came from (``"measured"`` in this process or ``"cache file"``)."""

    kind: str
    key: tuple
    threads: int
    picked: str
    exact: str
    default: str
    times: dict[str, float]
    differs: tuple[str, ...]
    source: str


_choices: dict[tuple, Choice] = {}
_loaded = False
_lock = threading.Lock()  # the cache file's writers in this process
_deciding = threading.RLock()  # one choice made at a time (re-entered by the choices a trial makes)


def _clock() -> float:
    """With one thread, this thread's CPU time, which a busy machine's other processes leave alone
    (wall time charged whole preemptions to one candidate: 10.8 against 2.2 ms for a product both
    kernels run in 2 ms); with several, wall time, which counts the other threads' work."""
    return time.thread_time() if torch.get_num_threads() == 1 else time.perf_counter()


def active() -> bool:
    """Whether choices are measured: autotune on, and neither ``torch.use_deterministic_algorithms``
    nor ``torch.backends.cudnn.deterministic`` asking for the fixed rules."""
    return enabled and not _deterministic_algorithms() and not _cudnn_deterministic()


def decided(kind: str, key: tuple) -> str | None:
    """The choice made for ``key`` at this thread count (or read from the cache file), else None
    (also whenever ``active()`` is False: the caller's fixed rule applies)."""
    if not _loaded:
        _load()
    choice = _choices.get((kind, key, torch.get_num_threads()))
    if choice is None or not active():
        return None
    return choice.exact if bitwise else choice.picked


def choose(kind: str, key: tuple, candidates: Sequence[str], default: str, trial: Callable[[str], object]) -> str:
    """The candidate to compute ``key`` with: ``default`` when not ``active()`` or there is one
    candidate; else the choice made for ``key``, made now if need be by timing ``trial(name)``
    for each candidate. ``trial`` returns the candidate's result (tensors, or tuples of them and
    None), which is compared with the default's and dropped, and leaves the caller's data as it
    was (it computes into scratch outputs): the real computation follows, with the candidate
    returned. ``key`` holds ints, strings, bools, None and tuples."""
    if len(candidates) < 2 or not active():
        return default
    picked = decided(kind, key)
    if picked in candidates:
        return picked
    full = (kind, key, torch.get_num_threads())
    with _deciding:
        choice = _choices.get(full)  # made by another thread while this one waited
        if choice is None or choice.picked not in candidates:
            choice = _decide(full, default, *_measure(candidates, default, trial))
    return choice.exact if bitwise else choice.picked


def _measure(
    candidates: Sequence[str], default: str, trial: Callable[[str], object]
) -> tuple[dict[str, float], tuple[str, ...]]:
    """Each candidate's fastest of ``ROUNDS`` timed trials, after a warm-up round (first-use
    costs: JIT kernels, page faults, the choices nested in a trial) whose results are compared
    with the default's, and the candidates whose results were not bitwise the default's (their
    products sum in another order). The kernels' order of operations depends on shapes, not on
    values, so one comparison holds for every call of the key, unless the values hide the order:
    where a result of the default's is constant (zeros, say), every other candidate counts as
    differing. Every other timed round reversed."""
    reference = _snapshot(trial(default))
    telling = _varied(reference)
    differs = tuple(
        name for name in candidates if name != default and not (_bitwise_equal(trial(name), reference) and telling)
    )
    best = dict.fromkeys(candidates, float("inf"))
    evict = torch.empty(EVICT_ELEMENTS)
    for number in range(ROUNDS):
        for name in candidates if number % 2 == 0 else reversed(candidates):
            evict.fill_(0.0)
            start = _clock()
            trial(name)
            best[name] = min(best[name], _clock() - start)
    return best, differs


def _snapshot(result: object) -> object:
    """``result`` with its tensors copied (a trial's outputs are reused by the next trial)."""
    if isinstance(result, tuple):
        return tuple(map(_snapshot, result))
    return result.clone() if isinstance(result, torch.Tensor) else result


def _varied(result: object) -> bool:
    """Whether every tensor of a trial result holds at least two different values."""
    if isinstance(result, tuple):
        return all(map(_varied, result))
    if not isinstance(result, torch.Tensor):
        return True
    flat = result.reshape(-1)
    return flat.numel() > 1 and not bool((flat == flat[0]).all())


_SAME_WIDTH_INTS = {1: torch.uint8, 2: torch.int16, 4: torch.int32, 8: torch.int64}


def _bitwise_equal(a: object, b: object) -> bool:
    """Whether two trial results hold the same bits (``-0.0`` is not ``0.0``, a NaN equals itself)."""
    if isinstance(a, tuple) and isinstance(b, tuple):
        return len(a) == len(b) and all(map(_bitwise_equal, a, b))
    if isinstance(a, torch.Tensor) and isinstance(b, torch.Tensor):
        if a.shape != b.shape or a.dtype != b.dtype:
            return False
        if a.is_complex():
            a, b = torch.view_as_real(a), torch.view_as_real(b)
        if a.is_floating_point():
            width = _SAME_WIDTH_INTS[a.element_size()]
            a, b = a.contiguous().view(width), b.contiguous().view(width)
        return torch.equal(a, b)
    return a is None and b is None


def _decide(full: tuple, default: str, times: dict[str, float], differs: tuple[str, ...]) -> Choice:
    exact = {name: seconds for name, seconds in times.items() if name not in differs}
    choice = Choice(
        *full, _fastest(full[0], default, times), _fastest(full[0], default, exact), default, times, differs, "measured"
    )
    choice = _share(choice)
    _choices[full] = choice
    return choice


def _fastest(kind: str, default: str, times: dict[str, float]) -> str:
    """The fastest candidate, unless the default is within ``MARGIN`` of it; of those within the
    margin of it, the one needing the least memory where ``MEMORY_COST`` has the kind."""
    best = min(times, key=times.__getitem__)
    if default in times and times[best] > (1 - MARGIN) * times[default]:
        best = default
    cost = MEMORY_COST.get(kind)
    if cost is not None:
        best = min((name for name in times if times[name] <= (1 + MARGIN) * times[best]), key=cost)
    return best


def choices() -> list[Choice]:
    """Every choice made or loaded in this process, in the order made."""
    return list(_choices.values())


def clear() -> None:
    """Forget the choices in memory (the cache file stays; it is read again at the next choice,
    as by a new process)."""
    global _loaded
    _choices.clear()
    _loaded = False


def report() -> str:
    """The choices made so far or read from the cache file, one line each: what was picked, the
    fixed rule's choice, and the candidates' best times (the ``why``)."""
    if enabled and not _loaded:
        _load()
    lines = [f"autotune {'on' if enabled else 'off'}; {machine()}; cache file: {cache_file()}"]
    if not enabled:
        lines.append("every kernel is the fixed rule's choice")
    elif not active():
        lines.append("every kernel is the fixed rule's choice while deterministic algorithms are asked for")
    for choice in _choices.values():
        times = ", ".join(f"{name} {seconds * 1e6:.0f} us" for name, seconds in choice.times.items())
        differs = f"; results differ from the fixed rule's: {', '.join(choice.differs)}" if choice.differs else ""
        lines.append(
            f"{choice.kind} {choice.key} {choice.threads} thread(s): {choice.exact if bitwise else choice.picked} "
            f"(fixed rule: {choice.default}; fastest: {choice.picked}; {times}{differs}; {choice.source})"
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


def _as_tuple(value):
    """A key read back from JSON: its lists as tuples again (JSON has no tuples)."""
    return tuple(map(_as_tuple, value)) if isinstance(value, list) else value


def _record(choice: Choice) -> dict:
    return {
        "kind": choice.kind,
        "key": choice.key,
        "threads": choice.threads,
        "picked": choice.picked,
        "exact": choice.exact,
        "default": choice.default,
        "times": choice.times,
        "differs": choice.differs,
    }


def _from_record(record: object) -> Choice | None:
    """The choice a file's record holds, or None where it is not what ``_record`` writes."""
    try:
        kind, key, threads = record["kind"], _as_tuple(record["key"]), record["threads"]
        picked, exact, default = record["picked"], record["exact"], record["default"]
        times = {str(name): float(seconds) for name, seconds in record["times"].items()}
        differs = tuple(map(str, record["differs"]))
    except (TypeError, KeyError, ValueError, AttributeError):
        return None
    if not (isinstance(kind, str) and isinstance(key, tuple) and type(threads) is int):
        return None
    if not all(isinstance(name, str) and name in times for name in (picked, exact, default)):
        return None
    return Choice(kind, key, threads, picked, exact, default, times, differs, "cache file")


def _read(path: Path) -> dict[tuple, Choice]:
    """The file's choices by (kind, key, threads), or none where it is missing, unreadable, or not
    what ``_share`` writes (a malformed record is skipped, the others kept)."""
    try:
        content = json.loads(path.read_text())
    except (OSError, ValueError):
        return {}
    if not isinstance(content, dict) or content.get("machine") != machine():
        return {}
    records = content.get("choices")
    read = {}
    for record in records if isinstance(records, list) else ():
        choice = _from_record(record)
        if choice is not None:
            read[choice.kind, choice.key, choice.threads] = choice
    return read


def _load() -> None:
    """Fill the in-memory choices from the cache file, once (entries measured in this process win)."""
    global _loaded
    _loaded = True
    for full, choice in _read(cache_file()).items():
        _choices.setdefault(full, choice)


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


def _share(choice: Choice) -> Choice:
    """The choice to keep for ``choice``'s key: the cache file's where another process wrote one
    since this process read the file (all processes then compute alike), else ``choice``, merged
    into the file. A cache folder that cannot be written keeps ``choice`` in memory only."""
    path = cache_file()
    full = (choice.kind, choice.key, choice.threads)
    with _lock, contextlib.suppress(OSError):
        path.parent.mkdir(parents=True, exist_ok=True)
        with _file_lock(path):
            held = _read(path)
            if full in held and held[full].times.keys() == choice.times.keys():
                return held[full]
            held[full] = choice
            if fcntl is not None:  # writers hold the lock while their temporary exists: these are killed writers'
                for stale in path.parent.glob(f"{glob.escape(path.name)}*.tmp"):
                    stale.unlink(missing_ok=True)
            handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=path.name, suffix=".tmp")
            try:
                with os.fdopen(handle, "w") as out:  # (``json.dumps``, unindented: C code, no cyclic garbage)
                    records = [_record(each) for each in held.values()]
                    out.write(json.dumps({"machine": machine(), "format": FORMAT, "choices": records}))
                os.replace(temporary, path)
            except BaseException:
                with contextlib.suppress(OSError):
                    os.unlink(temporary)
                raise
    return choice
