"""Checkpoints, round 3 (issue 25): no damaged file loads silently (a SHA-256 over every byte),
files from before the digest still load, killed saves leave no temporary behind, and a file
that would run code says so and names what it would call.
"""

from __future__ import annotations

import io
import os
import pickle
import random
import signal
import struct
import tarfile
import time
import zipfile
from pathlib import Path

import pytest
import torch

import minitorch_rx as mt
from minitorch_rx.serialization import CheckpointError

pytestmark = pytest.mark.filterwarnings("ignore:Detected pickle protocol:UserWarning")

# Written by mt.save before the digest (main at e3bab15, round 2's format): a torch zip archive
# with no zip comment. Its values are those of ROUND2_VALUES.
ROUND2 = Path(__file__).parent / "checkpoints" / "round2.pt"


def round2_values() -> dict:
    weight = torch.arange(6.0).reshape(2, 3)
    return {"weight": weight, "bias": torch.tensor([0.5, -1.0], dtype=torch.float64), "step": 7, "name": "round 2"}


def assert_round2(loaded: dict) -> None:
    values = round2_values()
    assert torch.equal(loaded["model"]["weight"].torch(), values["weight"])
    assert torch.equal(loaded["model"]["bias"].torch(), values["bias"])
    assert (loaded["step"], loaded["name"]) == (values["step"], values["name"])
    assert loaded["shared"][0] is loaded["shared"][1] is loaded["model"]["weight"]


def flips(path: Path, positions, check) -> None:
    """Flip each bit of ``positions`` (bit indices) in ``path`` in place, call ``check()``, and put
    the bit back: one byte written per flip, not the whole file."""
    original = path.read_bytes()
    handle = os.open(path, os.O_RDWR)
    try:
        for bit in positions:
            byte = bit // 8
            os.pwrite(handle, bytes([original[byte] ^ (1 << bit % 8)]), byte)
            try:
                check(bit)
            finally:
                os.pwrite(handle, original[byte : byte + 1], byte)
    finally:
        os.close(handle)


# ------------------------------------------------------------------------------ the digest
def test_every_single_bit_flip_of_a_checkpoint_is_refused(tmp_path):
    """Issue 25.1: 5 of 1,500 random flips loaded different values (in the zip's headers, central
    directory or names, which the entries' CRC-32s do not cover). Now every bit of the file is
    covered: all of its flips, headers and central directory included, are refused."""
    path = tmp_path / "ck.pt"
    mt.save({"weight": mt.arange(6.0), "step": 7}, path)
    loaded = []

    def check(bit):
        try:
            mt.load(path)
        except CheckpointError as error:
            assert "ck.pt" in str(error) and "corrupted" in str(error), (bit, str(error))
        else:
            loaded.append(bit)

    bits = path.stat().st_size * 8
    flips(path, range(bits), check)
    assert loaded == [], f"{len(loaded)} of {bits} flipped bits loaded"
    assert torch.equal(mt.load(path)["weight"].torch(), torch.arange(6.0))


def digest_record(path: Path) -> tuple[int, bytes]:
    """The zip comment mt.save ends a file with (``mt``'s digest record), and where it starts."""
    with zipfile.ZipFile(path) as archive:
        comment = archive.comment
    return path.stat().st_size - len(comment), comment


def test_the_digest_record_is_the_zip_comment_and_torch_reads_the_file(tmp_path):
    mt.save({"w": mt.ones(3)}, tmp_path / "ck.pt")
    start, comment = digest_record(tmp_path / "ck.pt")
    assert comment.startswith(b"minitorch_rx sha256 ") and len(comment) == 84
    assert torch.equal(torch.load(tmp_path / "ck.pt", weights_only=True)["w"]["__minitorch_rx_tensor__"], torch.ones(3))


@pytest.mark.parametrize(
    "where, message",
    [
        ("tensor data", r"its contents do not match the SHA-256 digest mt\.save wrote into it"),
        ("central directory", r"its contents do not match the SHA-256 digest"),
        ("comment length", r"its zip comment length reads 85, not the 84 bytes of its digest record"),
        ("digest", r"its contents do not match the SHA-256 digest"),
        ("record's name", r"its zip comment is not the digest record mt\.save writes"),
    ],
)
def test_a_damaged_file_is_refused_naming_what_failed(tmp_path, where, message):
    path = tmp_path / "ck.pt"
    mt.save({"w": mt.arange(100.0)}, path)
    data = bytearray(path.read_bytes())
    start, _ = digest_record(path)
    position = {
        "tensor data": data.find(struct.pack("<f", 50.0)),
        "central directory": data.rfind(b"PK\x01\x02") + 20,
        "comment length": start - 2,
        "digest": len(data) - 1,
        "record's name": start + 2,
    }[where]
    data[position] ^= 0x01
    path.write_bytes(bytes(data))
    with pytest.raises(CheckpointError, match=rf"Cannot load '.*ck\.pt': the file is corrupted \({message}"):
        mt.load(path)


def test_a_file_written_through_a_file_object_carries_the_digest():
    buffer = io.BytesIO()
    mt.save({"w": mt.ones(2)}, buffer)
    data = bytearray(buffer.getvalue())
    assert data[-84:].startswith(b"minitorch_rx sha256 ")
    data[len(data) // 2] ^= 0x10
    with pytest.raises(CheckpointError, match="do not match the SHA-256 digest"):
        mt.load(io.BytesIO(bytes(data)))


def test_an_appended_byte_is_refused(tmp_path):
    mt.save({"w": mt.ones(2)}, tmp_path / "ck.pt")
    with open(tmp_path / "ck.pt", "ab") as file:
        file.write(b"\0")
    with pytest.raises(CheckpointError, match="zip comment is not the digest record"):
        mt.load(tmp_path / "ck.pt")


# -------------------------------------------------------------- files from before the digest
def test_a_round_2_checkpoint_still_loads():
    assert ROUND2.read_bytes()[-22:-18] == b"PK\x05\x06"  # no zip comment: no digest
    assert_round2(mt.load(ROUND2))


def test_no_flip_of_a_round_2_checkpoint_loads_different_values(tmp_path):
    """Files without the digest keep round 2's checks (each entry against its CRC-32): 1,500
    random bit flips, none of which may load values other than the saved ones."""
    path = tmp_path / "round2.pt"
    path.write_bytes(ROUND2.read_bytes())
    different = []

    def check(bit):
        try:
            loaded = mt.load(path)
        except CheckpointError:
            return
        try:
            assert_round2(loaded)
        except (AssertionError, KeyError, TypeError, IndexError):
            different.append(bit)

    flips(path, random.Random(25).sample(range(path.stat().st_size * 8), 1500), check)
    assert different == []


def test_a_torch_state_dict_still_loads(tmp_path):
    """torch's state dicts BUILD a ``_metadata`` dict onto their OrderedDict: allowed."""
    torch.save(torch.nn.Linear(2, 3).state_dict(), tmp_path / "sd.pt")
    assert list(mt.load(tmp_path / "sd.pt")) == ["weight", "bias"]


# --------------------------------------------------------------------- pickles that run code
def torch_zip_with_pickle(path: Path, pickled: bytes) -> None:
    """A torch zip checkpoint whose ``data.pkl`` is ``pickled``."""
    buffer = io.BytesIO()
    torch.save({}, buffer)
    with zipfile.ZipFile(buffer) as archive:
        entries = {name: archive.read(name) for name in archive.namelist()}
    with zipfile.ZipFile(path, "w") as archive:
        for name, data in entries.items():
            archive.writestr(name, pickled if name.endswith("data.pkl") else data)


# ``collections.OrderedDict()``, then BUILD with a state: a dict that sets its ``items`` (a
# method decoding calls) to a list, or (dict, slots) pair that torch's reader fails on; or, as
# pickle writes an OrderedDict, its items first (SETITEMS), then BUILD with a state that is no dict.
ORDERED_DICT = b"\x80\x02ccollections\nOrderedDict\n)R"
BUILD_STATES = {
    "sets items": b"}X\x05\x00\x00\x00items]K\x01asb.",
    "with slots": b"}}X\x01\x00\x00\x00aK\x01s\x86b.",
    "an int, after its items": b"(X\x01\x00\x00\x00aK\x01uK\x05b.",
    "a list, after an item": b"X\x01\x00\x00\x00aK\x01s]K\x01ab.",
}


@pytest.mark.parametrize("state", BUILD_STATES)
def test_a_pickle_that_builds_on_a_counter_is_refused_as_code(tmp_path, state):
    torch_zip_with_pickle(tmp_path / "evil.pt", ORDERED_DICT.replace(b"OrderedDict", b"Counter") + BUILD_STATES[state])
    with pytest.raises(CheckpointError) as refused:
        mt.load(tmp_path / "evil.pt")
    message = str(refused.value)
    assert "refused: loading would call collections.Counter.__setstate__ (a pickle that runs code)" in message
    assert "of an Counter" not in message


@pytest.mark.parametrize("state", BUILD_STATES)
def test_a_pickle_that_builds_on_an_ordered_dict_is_refused_as_code(tmp_path, state):
    """Issues 25.3 and 37: refused as "not a complete checkpoint (truncated, corrupted ...)", or
    (``sets items``) a raw ``TypeError: 'list' object is not callable`` from the decoder."""
    torch_zip_with_pickle(tmp_path / "evil.pt", ORDERED_DICT + BUILD_STATES[state])
    with pytest.raises(
        CheckpointError,
        match=r"Cannot load '.*evil\.pt': refused: loading would call collections\.OrderedDict\.__setstate__ "
        r"\(a pickle that runs code\)",
    ):
        mt.load(tmp_path / "evil.pt")


class SystemPayload:
    def __reduce__(self):
        return (os.system, ("true",))


def legacy_tar(path: Path, pickle_member: object) -> None:
    """A checkpoint in torch's legacy .tar format (torch < 0.4): pickles in tar members."""
    members = {"sys_info": {"protocol_version": 1001}, "pickle": pickle_member, "storages": 0, "tensors": 0}
    with tarfile.open(path, "w") as archive:
        for name, obj in members.items():
            data = pickle.dumps(obj, protocol=2)
            info = tarfile.TarInfo(name)
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))


def test_the_legacy_tar_format_with_a_payload_names_what_it_would_call(tmp_path):
    """Issue 25.3: CVE-2025-32434's shape was refused as "not a complete checkpoint"."""
    legacy_tar(tmp_path / "old.tar.pt", {"extra": SystemPayload()})
    with pytest.raises(
        CheckpointError,
        match=rf"refused: loading would call {os.system.__module__}\.system \(a pickle that runs code, "
        r"in torch's legacy \.tar format: CVE-2025-32434's shape\)",
    ):
        mt.load(tmp_path / "old.tar.pt")


def test_the_legacy_tar_format_is_refused_as_unverifiable(tmp_path):
    legacy_tar(tmp_path / "old.tar.pt", {"weight": [1.0]})
    with pytest.raises(CheckpointError, match=r"refused: torch's legacy \.tar format, which torch's weights-only"):
        mt.load(tmp_path / "old.tar.pt")


# ------------------------------------------------------------------- killed saves, temporaries
def temporaries(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.endswith(".tmp"))


def start_saving(path: Path, weights: torch.Tensor, before_save=None) -> int:
    """Fork a process that saves to ``path`` until killed (``before_save()`` first, in it)."""
    pid = os.fork()
    if pid == 0:
        try:
            torch.set_num_threads(1)
            if before_save is not None:
                before_save()
            while True:
                mt.save({"weights": mt.from_torch(weights)}, path)
        finally:
            os._exit(1)
    return pid


def kill(pid: int) -> None:
    os.kill(pid, signal.SIGKILL)
    os.waitpid(pid, 0)


@pytest.mark.skipif(not hasattr(os, "fork"), reason="forks the saving process")
def test_kill_9_loop_the_next_save_removes_every_orphaned_temporary(tmp_path):
    """Issue 25.2: after saves killed mid-write, a 96 MB temporary stayed beside the file."""
    path = tmp_path / "ckpt.pt"
    weights = torch.zeros(2_000_000)
    mt.save({"weights": mt.from_torch(weights)}, path)
    timing = random.Random(2)
    orphaned = 0
    for _ in range(8):
        pid = start_saving(path, weights)
        time.sleep(timing.uniform(0.02, 0.25))
        kill(pid)
        orphaned += bool(temporaries(tmp_path))
        mt.save({"weights": mt.from_torch(weights)}, path)
        assert temporaries(tmp_path) == []
        assert torch.equal(mt.load(path)["weights"].torch(), weights)
    assert orphaned > 0, "no kill landed in the middle of a save: the test proved nothing"


@pytest.mark.skipif(not hasattr(os, "fork"), reason="forks the saving process")
def test_a_fork_of_a_killed_save_does_not_keep_its_temporary(tmp_path):
    """The lock that marks a temporary live belongs to the open file: a process forked during a
    save (a data-loader worker) held a copy, so the temporary outlived the killed saver for as
    long as the fork lived. A fork now closes its copies."""
    path = tmp_path / "ckpt.pt"
    mt.save({"weights": mt.ones(4)}, path)
    ready_read, ready_write = os.pipe()
    release_read, release_write = os.pipe()  # the worker lives until the test closes its end

    def fork_in_the_middle_of_the_save():
        # The save stops at its flush to disk, its temporary written and locked; then a
        # worker is forked, which outlives this process, and the test is told to kill it.
        def stalled_fsync(handle):
            if os.fork() == 0:
                os.close(release_write)
                os.read(release_read, 1)
                os._exit(0)
            os.write(ready_write, b"x")
            time.sleep(60)

        os.fsync = stalled_fsync

    pid = start_saving(path, torch.ones(4), fork_in_the_middle_of_the_save)
    try:
        os.read(ready_read, 1)
        assert len(temporaries(tmp_path)) == 1
        kill(pid)
        mt.save({"weights": mt.ones(4)}, path)
        assert temporaries(tmp_path) == []
    finally:
        for handle in (ready_read, ready_write, release_read, release_write):
            os.close(handle)
