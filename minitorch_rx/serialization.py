"""``mt.save`` / ``mt.load``: checkpoints that never execute code when loaded, written atomically.

The file is torch's zip format read back with ``torch.load(weights_only=True)``, which refuses any
pickled object other than tensors, numbers, strings and containers of them. ``save`` writes the
SHA-256 of the archive into its zip comment, and ``load`` checks it over every byte before torch
reads any (torch's reader checks nothing; older files without the digest are checked entry by entry
against their CRC-32s). ``mt.Tensor`` values
are stored as tagged dicts and come back as ``mt.Tensor``; ``torch.Tensor`` values come back as is.
Encoding and decoding walk the containers iteratively with a memo, as pickle does: shared and
self-referencing containers come back shared, and no file can make ``load`` visit an object twice.
"""

from __future__ import annotations

import os
import pickle
import re
import secrets
import stat
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import torch

from .autograd.tensor import Tensor, is_torch_data
from .checkpoint_file import (
    NOT_A_CHECKPOINT,
    CheckpointError,
    DigestWriter,
    check_file,
    raise_refusal,
    unpickler_detail,
)

try:
    import fcntl
except ImportError:  # Windows: temporaries of killed saves stay, as tempfile's do
    fcntl = None

# A dict with this key is a record: its one value is a torch.Tensor (an mt.Tensor's data) or a
# dict (a user's dict that itself has this key, escaped so that it round-trips as a dict).
_TAG = "__minitorch_rx_tensor__"


def _is_container(obj: Any) -> bool:
    return isinstance(obj, (dict, list)) or (isinstance(obj, tuple) and not hasattr(obj, "_fields"))


class _Walk:
    """Rebuild a graph of lists, tuples and dicts bottom-up without recursion: each container is
    converted once (memo by id) however many times it is referenced. Lists and dicts are created
    before their items, so a list that contains itself comes back containing its copy; a tuple is
    built after its items, so a cycle that runs through a tuple raises ``CheckpointError`` (torch's
    weights-only reader could not load it back either)."""

    def __init__(self, leaf: Callable[[Any], Any], open_dict: Callable[[dict], Any], budget: int | None = None):
        self.leaf, self.open_dict, self.budget = leaf, open_dict, budget
        self.memo: dict[int, Any] = {}
        self.unfinished_tuples: set[int] = set()

    def run(self, root: Any) -> Any:
        stack: list[list] = []  # frames: [original, items iterator, filler, finish, pending key]
        done, value = self._start(root, stack)
        while stack:
            frame = stack[-1]
            item = next(frame[1], _END)
            if item is _END:
                stack.pop()
                value = frame[3]()
                if not stack:
                    return value
                stack[-1][2](stack[-1][4], value)
                continue
            self._count()
            key, child = item
            frame[4] = key
            done, value = self._start(child, stack)
            if done:
                frame[2](key, value)
        return value

    def _count(self) -> None:
        if self.budget is not None:
            self.budget -= 1
            if self.budget < 0:
                raise _OverBudget

    def _start(self, obj: Any, stack: list[list]) -> tuple[bool, Any]:
        """Convert ``obj`` now (``(True, result)``) or push a frame that will (``(False, None)``)."""
        if not _is_container(obj):
            return True, self.leaf(obj)
        ident = id(obj)
        if ident in self.memo:
            return True, self.memo[ident]
        if ident in self.unfinished_tuples:
            raise CheckpointError(
                "a tuple contains itself (through a list or dict in it): pickle writes that with an opcode "
                "(POP_MARK) that torch's weights-only reader, and so mt.load, refuses; use a list"
            )
        if isinstance(obj, list):
            out: list = []
            self.memo[ident] = out
            stack.append([obj, enumerate(obj), lambda key, value: out.append(value), lambda: out, None])
            return False, None
        if isinstance(obj, tuple):
            items: list = []
            self.unfinished_tuples.add(ident)

            def finish_tuple() -> tuple:
                self.unfinished_tuples.discard(ident)
                self.memo[ident] = result = tuple(items)
                return result

            stack.append([obj, enumerate(obj), lambda key, value: items.append(value), finish_tuple, None])
            return False, None
        opened = self.open_dict(obj)
        if opened[0]:
            self.memo[ident] = opened[1]
            return True, opened[1]
        _, result, target, source = opened
        self.memo[ident] = result
        stack.append([obj, iter(source.items()), target.__setitem__, lambda: result, None])
        return False, None


_END = object()


class _OverBudget(Exception):
    pass


def _new_dict_like(obj: dict) -> dict:
    return {} if type(obj) is dict else type(obj)()


def _encode(obj: Any) -> Any:
    records: dict[int, dict] = {}  # one record per mt.Tensor, so that a shared tensor loads shared

    def leaf(value: Any) -> Any:
        if not isinstance(value, Tensor):
            return value
        if id(value) not in records:
            records[id(value)] = {_TAG: value._data.detach()}
        return records[id(value)]

    def open_dict(value: dict) -> tuple:
        out = _new_dict_like(value)
        return (False, {_TAG: out} if _TAG in value else out, out, value)

    return _Walk(leaf, open_dict).run(obj)


def _decode(obj: Any, path: Path | str, budget: int) -> Any:
    """``obj`` with every tensor record replaced by an ``mt.Tensor``, visiting at most ``budget``
    container items (a file of n bytes holds fewer than n: each item costs a pickle opcode)."""

    def open_dict(value: dict) -> tuple:
        if type(value) is not dict:
            _check_built_state(value, path)
        if _TAG not in value:
            out = _new_dict_like(value)
            return (False, out, out, value)
        record = value[_TAG]
        if len(value) == 1 and is_torch_data(record):
            return (True, Tensor._make(record.detach() if record.requires_grad else record, None))
        if len(value) == 1 and isinstance(record, dict):  # an escaped user dict: its keys are plain
            out = _new_dict_like(record)
            return (False, out, out, record)
        holds = f"{len(value)} entries" if len(value) != 1 else f"a {type(record).__name__}"
        raise CheckpointError(
            f"Cannot load '{path}': a minitorch_rx tensor record ({_TAG!r}) holds {holds}, "
            "not one tensor (the file is forged or damaged)"
        )

    try:
        return _Walk(lambda value: value, open_dict, budget).run(obj)
    except _OverBudget:
        raise CheckpointError(
            f"Cannot load '{path}': it unpacks to more objects than its {budget} bytes can hold (a forged file)"
        ) from None


def _check_built_state(value: dict, path: Path | str) -> None:
    """Refuse an OrderedDict (or Counter) whose pickle set attributes on it (BUILD), other than
    the ``_metadata`` dict of torch's state dicts: an attribute shadows a method of the same name,
    which decoding or the caller would then call (``items``, ``keys``)."""
    state = vars(value)  # (the type's __dict__ descriptor: no attribute can shadow it)
    odd = next((key for key in state if key != "_metadata" or not isinstance(state[key], dict)), None)
    if odd is not None:
        kind = type(value)
        article = "an" if kind.__name__[0] in "AEIOU" else "a"
        raise CheckpointError(
            f"Cannot load '{path}': refused: loading would call {kind.__module__}.{kind.__qualname__}.__setstate__ "
            f"(a pickle that runs code): it sets the attribute {odd!r} of {article} {kind.__name__}"
        )


def save(obj: Any, path: str | os.PathLike) -> None:
    """Write ``obj`` (state dicts, checkpoints: tensors, numbers, strings, containers) to ``path``.

    The write is atomic: the data goes to a temporary file ``.NAME.<16 hex digits>.tmp`` in the
    folder of ``path`` (of its target, where ``path`` is a symbolic link: the link is kept and its
    target replaced, as ``torch.save`` writes through it), is flushed to disk, and replaces the file
    in one rename, so a crash mid-save leaves the old file intact. A process killed mid-save leaves
    its temporary behind; the next ``save`` to the same file removes it (on POSIX systems, where a
    lock tells a dead writer's temporary from a live one's). The file ends with the SHA-256 of the
    rest (its zip comment), which ``load`` checks.
    Shared and self-referencing containers are saved as pickle saves them.
    Raises ``TypeError`` (and leaves ``path`` untouched) for an object ``load`` could not read
    back, such as a module or a NumPy array: save ``model.state_dict()`` instead; and
    ``CheckpointError`` for containers nested deeper than pickle can write. ``path`` may also be
    a binary file object (``io.BytesIO``, an open file), written as ``torch.save`` writes it (with the digest).
    """
    if hasattr(path, "write"):
        try:
            _write(_encode(obj), path)
        except RecursionError:
            raise CheckpointError("Cannot save: its containers are nested deeper than pickle can write") from None
        return
    path = Path(path)
    target = Path(os.path.realpath(path)) if path.is_symlink() else path
    folder = target.parent if str(target.parent) else Path(".")
    folder.mkdir(parents=True, exist_ok=True)
    try:
        encoded = _encode(obj)
    except CheckpointError as error:
        raise CheckpointError(f"Cannot save '{path}': {error}") from None
    _remove_stale_temporaries(target, folder)
    handle, temporary = _create_temporary(target, folder)
    try:
        with os.fdopen(handle, "wb") as file:
            try:
                _write_or_explain(encoded, file, path)
                file.flush()
                os.fsync(file.fileno())
                _check_loadable(temporary, path)
                if fcntl is not None:
                    os.replace(temporary, target)  # while locked: no other save takes it for stale
            finally:
                _LOCKED.discard(handle)  # (before the close: a fork must not close a reused number)
        if fcntl is None:
            os.replace(temporary, target)  # Windows renames closed files only
    except BaseException:
        if os.path.exists(temporary):
            os.unlink(temporary)
        raise
    if hasattr(os, "O_DIRECTORY"):
        directory = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
        try:
            os.fsync(directory)
        finally:
            os.close(directory)


def _write_or_explain(encoded: Any, file, path: Path) -> None:
    try:
        _write(encoded, file)
    except RecursionError:
        raise CheckpointError(
            f"Cannot save '{path}': its containers are nested deeper than pickle can write "
            f"(Python's recursion limit, {sys.getrecursionlimit()})"
        ) from None
    except (pickle.PicklingError, AttributeError, TypeError) as error:
        raise TypeError(f"Cannot save '{path}': {error}") from None


def _check_loadable(temporary: str, path: Path) -> None:
    """Refuse to commit a checkpoint that ``load`` would refuse (one needing code to rebuild):
    reading back its pickle, with the tensor data memory-mapped, not read (nor copied back to the
    GPU its tensors came from)."""
    try:
        torch.load(temporary, weights_only=True, mmap=True, map_location="cpu")
    except pickle.UnpicklingError as error:
        raise TypeError(
            f"Cannot save '{path}': mt.load could not read it back, since rebuilding it would run code "
            f"({unpickler_detail(error)}). Save tensors, numbers, strings and containers of them, "
            "such as model.state_dict()."
        ) from None


def _write(encoded: Any, file) -> None:
    """``torch.save(encoded, file)``, then the SHA-256 of what torch wrote as the zip comment."""
    writer = DigestWriter(file)
    torch.save(encoded, writer)
    writer.finish()


def _temporary_pattern(path: Path) -> re.Pattern:
    return re.compile(rf"\.{re.escape(path.name)}\.[0-9a-f]{{16}}\.tmp")


def _create_temporary(path: Path, folder: Path) -> tuple[int, str]:
    """A new file next to ``path`` with the mode a plain ``open`` would leave ``path`` with: its
    own mode when it exists, else 0o666 less the umask (``tempfile.mkstemp`` would give 0o600).
    It is locked while this process writes it, so that another save knows it is not stale."""
    mode = stat.S_IMODE(path.stat().st_mode) if path.exists() else 0o666
    while True:
        temporary = os.path.join(folder, f".{path.name}.{secrets.token_hex(8)}.tmp")
        try:
            handle = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0), 0o666)
        except FileExistsError:
            continue
        if fcntl is not None:
            fcntl.flock(handle, fcntl.LOCK_EX)
            # another save may have taken it for stale and removed it between the open and the lock
            if not os.path.exists(temporary) or os.stat(temporary).st_ino != os.fstat(handle).st_ino:
                os.close(handle)
                continue
            _LOCKED.add(handle)
        if mode != 0o666:
            os.chmod(temporary, mode)
        return handle, temporary


# The descriptors of the temporaries this process's saves hold locked. A process forked in the
# middle of a save (a data-loader worker, say) closes its copies at once: the lock belongs to the
# open file, which a copy would keep locked, and so the temporary alive, after the saving
# process was killed, for as long as the fork lives.
_LOCKED: set[int] = set()


def _close_inherited_temporaries() -> None:
    for handle in _LOCKED:
        try:
            os.close(handle)
        except OSError:
            pass
    _LOCKED.clear()


if fcntl is not None:
    os.register_at_fork(after_in_child=_close_inherited_temporaries)


def _remove_stale_temporaries(path: Path, folder: Path) -> None:
    """Remove the temporaries that killed saves to ``path`` left: those no live process holds locked."""
    if fcntl is None:
        return
    pattern = _temporary_pattern(path)
    try:
        names = [name for name in os.listdir(folder) if pattern.fullmatch(name)]
    except OSError:
        return
    for name in names:
        candidate = os.path.join(folder, name)
        try:
            handle = os.open(candidate, os.O_RDONLY)
        except OSError:
            continue  # gone already, or not ours to read
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(handle)  # a save in progress
            continue
        try:
            if os.path.exists(candidate) and os.stat(candidate).st_ino == os.fstat(handle).st_ino:
                os.unlink(candidate)
        except OSError:
            pass
        finally:
            os.close(handle)


def load(path: str | os.PathLike, map_location: str | torch.device | dict | Callable | None = None) -> Any:
    """Read a file written by ``mt.save`` (or a plain ``torch.save`` of tensors and containers).

    Never runs code: pickled objects other than tensors and plain containers are refused, with an
    error naming what loading would have called. ``map_location`` moves the tensors as
    ``torch.load``'s does (a device, a ``{"cuda:0": "cpu"}`` dict or a function): ``"cpu"`` reads a
    checkpoint saved on a GPU on a machine without one, where loading it as saved is torch's
    RuntimeError naming ``map_location``. Raises ``FileNotFoundError`` for a missing file and
    ``CheckpointError`` naming the file for a truncated, corrupted, foreign or unsafe one: every
    byte of a file ``mt.save`` wrote is checked against its SHA-256 before anything is read from
    it (of an older file or a ``torch.save`` one, every entry against its CRC-32). ``path`` may
    also be a binary file object, read from its current position (checked as a file is).
    """
    if hasattr(path, "read"):
        with tempfile.TemporaryDirectory() as folder:
            copy = Path(folder) / "checkpoint.pt"
            copy.write_bytes(path.read())
            return load(copy, map_location)
    path = Path(path)
    if not path.exists():
        raise FileNotFoundError(f"No such checkpoint: '{path}'")
    if isinstance(map_location, str):
        map_location = torch.device(map_location)  # a bad device name is torch's error, not the file's
    if not path.is_file():
        raise CheckpointError(f"Cannot load '{path}': {NOT_A_CHECKPOINT}: not a regular file")
    with open(path, "rb") as file:  # one open file for the checks and the read: no other file slips in
        size = os.fstat(file.fileno()).st_size
        if size == 0:
            raise CheckpointError(f"Cannot load '{path}': the file is empty")
        check_file(file, path, size)
        file.seek(0)
        try:
            obj = torch.load(file, map_location=map_location, weights_only=True)
        except Exception as error:  # what a damaged file makes torch's reader raise varies with the damage
            if isinstance(error, RuntimeError) and "map_location" in str(error):
                raise  # a sound file of tensors on a device this machine lacks: torch's error says what to pass
            raise_refusal(file, path)
            detail = (
                unpickler_detail(error)
                if isinstance(error, pickle.UnpicklingError)
                else f"{type(error).__name__}: {error}"
            )
            raise CheckpointError(f"Cannot load '{path}': {NOT_A_CHECKPOINT}: {detail}") from None
    return _decode(obj, path, budget=max(size, 1024))
