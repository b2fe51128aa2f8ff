"""``mt.save`` / ``mt.load``: checkpoints that never execute code when loaded, written atomically.

The file is torch's zip format read back with ``torch.load(weights_only=True)``, which refuses any
pickled object other than tensors, numbers, strings and containers of them. ``mt.Tensor`` values
are stored as tagged dicts and come back as ``mt.Tensor``; ``torch.Tensor`` values come back as is.
"""

from __future__ import annotations

import os
import pickle
import tempfile
from pathlib import Path
from typing import Any

import torch

from .autograd.tensor import Tensor

_TAG = "__minitorch_rx_tensor__"


class CheckpointError(RuntimeError):
    """A file that is not a loadable minitorch_rx/torch checkpoint (truncated, corrupted, foreign or unsafe)."""


def _encode(obj: Any) -> Any:
    if isinstance(obj, Tensor):
        return {_TAG: obj.data.detach()}
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
    """
    path = Path(path)
    folder = path.parent if str(path.parent) else Path(".")
    folder.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=folder)
    try:
        with os.fdopen(handle, "wb") as file:
            torch.save(_encode(obj), file)
            file.flush()
            os.fsync(file.fileno())
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
    try:
        obj = torch.load(path, map_location=map_location, weights_only=True)
    except pickle.UnpicklingError as error:
        raise CheckpointError(
            f"Refusing to load '{path}': it holds objects that could run code when loaded "
            f"(only tensors, numbers, strings and containers are allowed). Details: {error}"
        ) from None
    except (RuntimeError, EOFError, ValueError, OSError, KeyError, IndexError) as error:
        raise CheckpointError(f"Cannot load '{path}': not a complete checkpoint (truncated, corrupted or another format): {error}") from None
    return _decode(obj)
