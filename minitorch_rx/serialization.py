"""``mt.save`` / ``mt.load``: checkpoints that never execute code when loaded, written atomically.

The file is torch's zip format read back with ``torch.load(weights_only=True)``, which refuses any
pickled object other than tensors, numbers, strings and containers of them; every entry is first
checked against its CRC-32, which torch's reader skips. ``mt.Tensor`` values
are stored as tagged dicts and come back as ``mt.Tensor``; ``torch.Tensor`` values come back as is.
"""

from __future__ import annotations

import os
import pickle
import secrets
import stat
import zipfile
from pathlib import Path
from typing import Any

import torch

from .autograd.tensor import Tensor

_TAG = "__minitorch_rx_tensor__"


class CheckpointError(RuntimeError):
    """A file that is not a loadable minitorch_rx/torch checkpoint (truncated, corrupted, foreign or unsafe)."""


def _encode(obj: Any) -> Any:
    if isinstance(obj, Tensor):
        return {_TAG: obj._data.detach()}
    if isinstance(obj, dict):
        encoded = {k: _encode(v) for k, v in obj.items()}
        return encoded if type(obj) is dict else type(obj)(encoded)
    if isinstance(obj, list):
        return [_encode(v) for v in obj]
    if isinstance(obj, tuple) and not hasattr(obj, "_fields"):
        return tuple(_encode(v) for v in obj)
    return obj


def _decode(obj: Any) -> Any:
    if isinstance(obj, dict):
        if len(obj) == 1 and _TAG in obj:
            return Tensor._make(obj[_TAG], None)
        decoded = {k: _decode(v) for k, v in obj.items()}
        return decoded if type(obj) is dict else type(obj)(decoded)
    if isinstance(obj, list):
        return [_decode(v) for v in obj]
    if isinstance(obj, tuple):
        return tuple(_decode(v) for v in obj)
    return obj


def save(obj: Any, path: str | os.PathLike) -> None:
    """Write ``obj`` (state dicts, checkpoints: tensors, numbers, strings, containers) to ``path``.

    The write is atomic: the data goes to a temporary file in the same folder, is flushed to
    disk, and replaces ``path`` in one rename, so a crash mid-save leaves the old file intact.
    Raises ``TypeError`` (and leaves ``path`` untouched) for an object ``load`` could not read
    back, such as a module or a NumPy array: save ``model.state_dict()`` instead.
    """
    path = Path(path)
    folder = path.parent if str(path.parent) else Path(".")
    folder.mkdir(parents=True, exist_ok=True)
    handle, temporary = _create_temporary(path, folder)
    try:
        with os.fdopen(handle, "wb") as file:
            try:
                torch.save(_encode(obj), file)
            except (pickle.PicklingError, AttributeError, TypeError) as error:
                raise TypeError(f"Cannot save '{path}': {error}") from None
            file.flush()
            os.fsync(file.fileno())
        _check_loadable(temporary, path)
        os.replace(temporary, path)
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


def _check_loadable(temporary: str, path: Path) -> None:
    """Refuse to commit a checkpoint that ``load`` would refuse (one needing code to rebuild):
    reading back its pickle, with the tensor data memory-mapped, not read."""
    try:
        torch.load(temporary, weights_only=True, mmap=True)
    except pickle.UnpicklingError as error:
        raise TypeError(
            f"Cannot save '{path}': mt.load could not read it back, since rebuilding it would run code "
            f"({_unpickler_detail(error)}). Save tensors, numbers, strings and containers of them, "
            "such as model.state_dict()."
        ) from None


def _create_temporary(path: Path, folder: Path) -> tuple[int, str]:
    """A new file next to ``path`` with the mode a plain ``open`` would leave ``path`` with: its
    own mode when it exists, else 0o666 less the umask (``tempfile.mkstemp`` would give 0o600)."""
    mode = stat.S_IMODE(path.stat().st_mode) if path.exists() else 0o666
    while True:
        temporary = os.path.join(folder, f".{path.name}.{secrets.token_hex(8)}.tmp")
        try:
            handle = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0), 0o666)
        except FileExistsError:
            continue
        if mode != 0o666:
            os.chmod(temporary, mode)
        return handle, temporary


def load(path: str | os.PathLike, map_location: str | torch.device | None = None) -> Any:
    """Read a file written by ``mt.save`` (or a plain ``torch.save`` of tensors and containers).

    Never runs code: pickled objects other than tensors and plain containers are refused.
    ``map_location`` moves the tensors (e.g. ``"cpu"`` for a checkpoint saved on a GPU).
    Raises ``FileNotFoundError`` for a missing file and ``CheckpointError`` naming the file for
    a truncated, corrupted, foreign or unsafe one.
    """
    path = Path(path)
    if not path.exists():
        raise FileNotFoundError(f"No such checkpoint: '{path}'")
    if isinstance(map_location, str):
        map_location = torch.device(map_location)  # a bad device name is torch's error, not the file's
    if path.is_file() and path.stat().st_size == 0:
        raise CheckpointError(f"Cannot load '{path}': the file is empty")
    _check_archive(path)
    try:
        obj = torch.load(path, map_location=map_location, weights_only=True)
    except pickle.UnpicklingError as error:
        detail = _unpickler_detail(error)
        if "GLOBAL" in detail:  # an import: what any pickle that runs code needs
            raise CheckpointError(
                f"Refusing to load '{path}': it holds objects that could run code when loaded "
                f"(only tensors, numbers, strings and containers are allowed): {detail}"
            ) from None
        raise CheckpointError(f"Cannot load '{path}': {_NOT_A_CHECKPOINT}: {detail}") from None
    except Exception as error:  # what a damaged file makes torch's reader raise varies with the damage
        raise CheckpointError(f"Cannot load '{path}': {_NOT_A_CHECKPOINT}: {type(error).__name__}: {error}") from None
    return _decode(obj)


_NOT_A_CHECKPOINT = "not a complete checkpoint (truncated, corrupted or another format)"
_DIRECTORY = 0x10  # the MS-DOS directory bit of a zip entry's external attributes


def _check_archive(path: Path) -> None:
    """Read every entry of a zip checkpoint against its CRC-32. torch's reader checks none, so a
    flipped bit in tensor data would otherwise load as silently wrong numbers."""
    try:
        if not path.is_file() or not zipfile.is_zipfile(path):
            return  # a legacy torch file, or no checkpoint at all: torch.load tells which
        with zipfile.ZipFile(path) as archive:
            # torch's reader takes an entry with the directory attribute for a folder and reads
            # other bytes for it: a damaged attribute, since checkpoints hold files only.
            damaged = next((i.filename for i in archive.infolist() if i.external_attr & _DIRECTORY), None)
            damaged = damaged or archive.testzip()
    except Exception as error:  # whatever a damaged zip structure makes zipfile raise
        raise CheckpointError(f"Cannot load '{path}': {_NOT_A_CHECKPOINT}: {type(error).__name__}: {error}") from None
    if damaged is not None:
        raise CheckpointError(
            f"Cannot load '{path}': the file is corrupted (its entry '{damaged}' fails its integrity check)"
        )


def _unpickler_detail(error: pickle.UnpicklingError) -> str:
    """The one informative line of torch's weights-only refusal (the rest is advice on turning
    the protection off, which ``load`` never does)."""
    text = str(error)
    text = text.split("WeightsUnpickler error:", 1)[-1]
    for line in text.splitlines():
        line = line.strip()
        if line and not line.startswith(_TORCH_ADVICE):
            return line.split(". Please use")[0]
    return text.strip()


_TORCH_ADVICE = ("Weights only load failed", "Check the documentation", "Please file an issue", "(1)", "(2)")
