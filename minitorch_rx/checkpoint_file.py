"""What a checkpoint file must be: the digest record ``mt.save`` ends it with, and the checks
``mt.load`` makes before torch reads anything from it, including what a refused file's pickles
would have called (found by reading their opcodes, never by running them)."""

from __future__ import annotations

import hashlib
import io
import os
import pickle
import pickletools
import re
import struct
import tarfile
import zipfile
from collections.abc import Iterator
from pathlib import Path

import torch


class CheckpointError(RuntimeError):
    """A file that is not a loadable minitorch_rx/torch checkpoint (truncated, corrupted, foreign or unsafe),
    or an object ``save`` cannot write (nested deeper than pickle goes)."""


# The zip comment that ``save`` ends each file with: this, then the archive's SHA-256 in hex.
_DIGEST = b"minitorch_rx sha256 "
DIGEST_RECORD = len(_DIGEST) + 64
_HEX = re.compile(rb"[0-9a-f]{64}")


class DigestWriter:
    """What ``torch.save`` writes through: the bytes go on to ``file`` and into a SHA-256, all but
    the last two (the length of the zip comment, which closes the archive: torch writes 0), held
    back until ``finish`` writes the digest record's length and the record in their place. The
    digest is of the archive as torch wrote it, comment length 0 included."""

    def __init__(self, file) -> None:
        self.file, self.sha256, self.held = file, hashlib.sha256(), b""

    def write(self, data) -> int:
        view = memoryview(data).cast("B")
        if len(view) < 2:
            data = self.held + view.tobytes()
            self._pass(data[:-2])
            self.held = data[-2:]
        else:
            self._pass(self.held)
            self._pass(view[:-2])
            self.held = view[-2:].tobytes()
        return len(view)

    def _pass(self, data) -> None:
        self.sha256.update(data)
        self.file.write(data)

    def flush(self) -> None:
        self.file.flush()

    def finish(self) -> None:
        if self.held != b"\0\0":  # torch never writes a zip comment: nothing to replace
            raise RuntimeError(f"torch.save ended its archive with {self.held!r}, not an empty zip comment")
        self.sha256.update(self.held)
        record = _DIGEST + self.sha256.hexdigest().encode()
        self.file.write(struct.pack("<H", len(record)) + record)
        self.file.flush()


NOT_A_CHECKPOINT = "not a complete checkpoint (truncated, corrupted or another format)"
_DIRECTORY = 0x10  # the MS-DOS directory bit of a zip entry's external attributes


def check_file(file, path: Path, size: int) -> None:
    """Refuse a damaged file before torch reads it (torch's reader checks nothing, so a flipped
    bit would otherwise load as silently different values). A file ``save`` wrote: its SHA-256,
    over every byte but the digest record's, which must be well formed. Any other zip file: each
    entry against its CRC-32, and no zip comment (torch writes none, so one is a damaged digest
    record). Entries may not unpack to more bytes than the file holds (torch never compresses)."""
    digest = _check_digest(file, path, size)
    file.seek(0)
    try:
        if not zipfile.is_zipfile(file):
            if digest:
                raise CheckpointError(
                    f"Cannot load '{path}': {NOT_A_CHECKPOINT}: its digest matches, but it is no zip archive"
                )
            return  # a legacy torch file, or no checkpoint at all: torch.load tells which
        with zipfile.ZipFile(file) as archive:
            entries = archive.infolist()
            unpacked = sum(info.file_size for info in entries)
            if unpacked > size:
                raise CheckpointError(
                    f"Cannot load '{path}': its entries unpack to {unpacked} bytes, more than the file's {size} "
                    "(a compressed archive: torch.save never compresses)"
                )
            if not digest and archive.comment:
                raise CheckpointError(
                    f"Cannot load '{path}': the file is corrupted "
                    "(its zip comment is not the digest record mt.save writes)"
                )
            # torch's reader takes an entry with the directory attribute for a folder and reads
            # other bytes for it: a damaged attribute, since checkpoints hold files only.
            damaged = next((i.filename for i in entries if i.external_attr & _DIRECTORY), None)
            if damaged is None and not digest:
                damaged = archive.testzip()
    except CheckpointError:
        raise
    except Exception as error:  # whatever a damaged zip structure makes zipfile raise
        raise CheckpointError(f"Cannot load '{path}': {NOT_A_CHECKPOINT}: {type(error).__name__}: {error}") from None
    if damaged is not None:
        raise CheckpointError(
            f"Cannot load '{path}': the file is corrupted (its entry '{damaged}' fails its integrity check)"
        )


def _check_digest(file, path: Path, size: int) -> bool:
    """Whether the file ends with ``save``'s digest record (the zip comment); ``CheckpointError``
    if it does and the SHA-256 of the rest (with the comment length read as 0, as torch wrote
    it), or the comment length, disagree with it."""
    end = size - DIGEST_RECORD - 2  # where the comment length starts
    if end < 0:
        return False
    file.seek(end)
    tail = file.read()
    record = tail[2:]
    if not (record.startswith(_DIGEST) and _HEX.fullmatch(record, len(_DIGEST))):
        return False
    (length,) = struct.unpack("<H", tail[:2])
    if length != DIGEST_RECORD:
        raise CheckpointError(
            f"Cannot load '{path}': the file is corrupted (its zip comment length reads {length}, "
            f"not the {DIGEST_RECORD} bytes of its digest record)"
        )
    sha256 = hashlib.sha256()
    buffer = memoryview(bytearray(min(end, 1 << 22)))
    file.seek(0)
    remaining = end
    while remaining:
        n = file.readinto(buffer[: min(remaining, len(buffer))])
        if not n:
            break
        sha256.update(buffer[:n])
        remaining -= n
    sha256.update(b"\0\0")
    if remaining or sha256.hexdigest().encode() != record[len(_DIGEST) :]:
        raise CheckpointError(
            f"Cannot load '{path}': the file is corrupted (its contents do not match the SHA-256 digest "
            "mt.save wrote into it)"
        )
    return True


def raise_refusal(file, path: Path) -> None:
    """``CheckpointError`` saying what loading would have called, if the file's pickles call
    anything that is not allowed (found by reading their opcodes, never running them)."""
    file.seek(0)
    legacy_tar = _is_tar(file)
    for kind, name in _calls(file, legacy_tar):
        if kind == "build" or name not in _allowed_globals():
            where = ", in torch's legacy .tar format: CVE-2025-32434's shape" if legacy_tar else ""
            raise CheckpointError(
                f"Cannot load '{path}': refused: loading would call {name} (a pickle that runs code{where}); "
                "only tensors, numbers, strings and containers of them are allowed"
            ) from None
    if legacy_tar:
        raise CheckpointError(
            f"Cannot load '{path}': refused: torch's legacy .tar format, which torch's weights-only reader "
            "cannot check (its pickles could run code: CVE-2025-32434)"
        ) from None


def _is_tar(file) -> bool:
    try:
        file.seek(0)
        with tarfile.open(fileobj=file, mode="r:"):
            return True
    except Exception:
        return False


def _allowed_globals() -> set[str]:
    """The ``module.name`` of every global ``torch.load(weights_only=True)`` allows."""
    try:
        allowed = set(torch._weights_only_unpickler._get_allowed_globals())
        allowed |= {
            f"{g.__module__}.{g.__qualname__}"
            for g in torch.serialization.get_safe_globals()
            if hasattr(g, "__qualname__")
        }
    except Exception:  # torch's private list moved: name the first import of all
        allowed = set()
    return allowed


def _pickles(file, legacy_tar: bool) -> Iterator[bytes]:
    """The pickle streams of a checkpoint: each ``.pkl`` entry of a zip file, each member of a
    legacy tar file, or the whole of a legacy/bare pickle file (its consecutive pickles are
    read one after another)."""
    size = os.fstat(file.fileno()).st_size
    try:
        file.seek(0)
        if legacy_tar:
            with tarfile.open(fileobj=file, mode="r:") as archive:
                for member in archive.getmembers():
                    if member.isfile() and member.size <= size:
                        yield archive.extractfile(member).read()
            return
        if zipfile.is_zipfile(file):
            with zipfile.ZipFile(file) as archive:
                for info in archive.infolist():
                    if info.filename.endswith(".pkl") and info.file_size <= size:
                        yield archive.read(info)
            return
        file.seek(0)
        yield file.read()
    except Exception:  # a damaged archive: nothing more to read
        return


# Types that torch's own files BUILD (set the state of) after rebuilding them.
_BUILT_BY_TORCH = ("torch._utils.", "torch.nn.parameter.Parameter", "torch.Tensor", "torch._tensor.Tensor")


def _calls(file, legacy_tar: bool) -> Iterator[tuple[str, str]]:
    """What unpickling the file's pickles would call, in file order: ``("import", "module.name")``
    for each global they import (GLOBAL, INST, STACK_GLOBAL), and ``("build", "module.Type.__setstate__")``
    for each BUILD on an object that is not a tensor (it sets the object's state: ``__setstate__``).
    The stack is followed symbolically: which global each object was made by, nothing else."""
    for data in _pickles(file, legacy_tar):
        stream = io.BytesIO(data)
        while stream.tell() < len(data):
            stack: list = []  # per item: a str argument, _Made(global) / _Global(name), _MARK, or None
            memo: dict = {}
            try:
                for opcode, argument, _ in pickletools.genops(stream):
                    name = opcode.name
                    if name == "STOP":
                        break
                    if name in ("MEMOIZE", "PUT", "BINPUT", "LONG_BINPUT"):
                        memo[len(memo) if name == "MEMOIZE" else argument] = stack[-1] if stack else None
                        continue
                    before = opcode.stack_before
                    if pickletools.markobject in before:
                        mark = max((i for i, item in enumerate(stack) if item is _MARK), default=0)
                        start = max(mark - before.index(pickletools.markobject), 0)
                    else:
                        start = max(len(stack) - len(before), 0)
                    taken = stack[start:]
                    del stack[start:]
                    if name in ("GLOBAL", "INST", "STACK_GLOBAL"):
                        if name == "STACK_GLOBAL":
                            module, attribute = (taken + [None, None])[:2]
                            computed = not (isinstance(module, str) and isinstance(attribute, str))
                            made = "an import whose name is computed" if computed else _python3_name(module, attribute)
                        else:
                            made = _python3_name(*argument.split(" ", 1))
                        yield "import", made
                        stack.append(_Made(made) if name == "INST" else _Global(made))
                    elif name in ("REDUCE", "NEWOBJ", "NEWOBJ_EX", "OBJ"):
                        maker = next((item for item in taken if isinstance(item, _Global)), None)
                        stack.append(_Made(maker) if maker is not None else None)
                    elif name == "BUILD":
                        built, state = (taken + [None, None])[:2]
                        # torch sets a dict state as an OrderedDict's attributes (torch's own state
                        # dicts' _metadata; ``load`` checks their names): any other state runs code
                        plain = built in _ATTRIBUTES_SET and state is _DICT
                        if isinstance(built, _Made) and not built.startswith(_BUILT_BY_TORCH) and not plain:
                            yield "build", f"{built}.__setstate__"
                        stack.append(built)
                    elif name in ("EMPTY_DICT", "DICT"):
                        stack.append(_DICT)
                    elif name in ("GET", "BINGET", "LONG_BINGET"):
                        stack.append(memo.get(argument))
                    elif name == "DUP":
                        stack.extend(taken * 2)
                    elif name in _FILLS:  # the container filled stays what it was made by (a BUILD may follow)
                        stack.append(taken[0] if taken else None)
                    else:
                        for item in opcode.stack_after:
                            stack.append(
                                _MARK
                                if item is pickletools.markobject
                                else argument
                                if isinstance(argument, str)
                                else None
                            )
                else:
                    return
            except Exception:  # the rest is not a pickle (a legacy file's raw storage bytes)
                break


# The types whose BUILD torch's reader turns into ``__dict__.update(state)``.
_ATTRIBUTES_SET = ("collections.OrderedDict", "collections.Counter")
# A dict made by the pickle itself, on the symbolic stack of ``_calls``.
_DICT = object()
# Opcodes that add items to the container below them on the stack, which stays there.
_FILLS = ("APPEND", "APPENDS", "SETITEM", "SETITEMS", "ADDITEMS")


class _Global(str):
    """An imported global on the symbolic stack of ``_calls``."""


class _Made(str):
    """An object made by calling a global (REDUCE, NEWOBJ, INST, OBJ) on the symbolic stack."""


_MARK = object()


def _python3_name(module: str, attribute: str) -> str:
    """``module.attribute`` as Python 3 spells it (pickle protocols 0-2 write Python 2's ``__builtin__``)."""
    return f"{'builtins' if module == '__builtin__' else module}.{attribute}"


def unpickler_detail(error: pickle.UnpicklingError) -> str:
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
