"""Checkpoints (issue 6): loading never runs code, a damaged or foreign file is refused with
an error naming it, a process killed in the middle of ``mt.save`` leaves the previous file
intact and loadable, and ``map_location`` moves tensors across devices.
"""

from __future__ import annotations

import os
import pickle
import random
import signal
import struct
import time
import zipfile
from pathlib import Path

import numpy as np
import pytest
import torch

import minitorch_rx as mt
from minitorch_rx.serialization import CheckpointError

needs_cuda = pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device")
# torch notes each foreign pickle protocol it meets; refusing those files is the point here.
pytestmark = pytest.mark.filterwarnings("ignore:Detected pickle protocol:UserWarning")


def checkpoint(seed: int = 0) -> dict:
    generator = torch.Generator().manual_seed(seed)
    model = {"weight": mt.from_torch(torch.randn(64, 32, generator=generator)), "bias": mt.zeros(64)}
    return {"model": model, "epoch": 3, "name": "run"}


def assert_same_checkpoint(loaded: dict, saved: dict) -> None:
    assert loaded.keys() == saved.keys()
    for key, value in saved["model"].items():
        assert torch.equal(loaded["model"][key].torch(), value.torch())
    assert (loaded["epoch"], loaded["name"]) == (saved["epoch"], saved["name"])


# ----------------------------------------------------------------------------- code payloads
class Payload:
    """Unpickling this runs code: it creates the file ``marker``."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self):
        return (exec, (f"open({str(self.marker)!r}, 'w').close()",))


def write_payload(path: Path, marker: Path, container: str) -> None:
    """A file whose loading runs ``Payload``: in torch's zip format or as a bare pickle."""
    if container == "torch zip":
        torch.save({"weight": torch.ones(2), "extra": Payload(marker)}, path)
    else:
        path.write_bytes(pickle.dumps({"extra": Payload(marker)}, protocol=int(container.split()[-1])))


CONTAINERS = ["torch zip", "pickle protocol 2", "pickle protocol 5"]


@pytest.mark.parametrize("container", CONTAINERS)
def test_the_payload_runs_when_unpickled_unsafely(tmp_path, container):
    marker = tmp_path / "ran"
    write_payload(tmp_path / "evil.pt", marker, container)
    if container == "torch zip":
        torch.load(tmp_path / "evil.pt", weights_only=False)
    else:
        pickle.loads((tmp_path / "evil.pt").read_bytes())
    assert marker.exists()  # so the next test's "did not run" means something


@pytest.mark.parametrize("container", CONTAINERS)
def test_load_refuses_a_code_payload_and_never_runs_it(tmp_path, container):
    marker = tmp_path / "ran"
    write_payload(tmp_path / "evil.pt", marker, container)
    with pytest.raises(CheckpointError, match="evil.pt"):
        mt.load(tmp_path / "evil.pt")
    assert not marker.exists()


def test_load_says_a_torch_checkpoint_with_a_payload_could_run_code(tmp_path):
    write_payload(tmp_path / "evil.pt", tmp_path / "ran", "torch zip")
    with pytest.raises(CheckpointError, match=r"Refusing to load .*evil\.pt.*could run code.*GLOBAL exec"):
        mt.load(tmp_path / "evil.pt")


def test_save_refuses_an_object_load_could_not_read_back(tmp_path):
    mt.save(checkpoint(), tmp_path / "ck.pt")
    with pytest.raises(TypeError, match=r"Cannot save .*ck\.pt.*mt\.load could not read it back.*Linear"):
        mt.save({"model": mt.nn.Linear(2, 2)}, tmp_path / "ck.pt")
    assert_same_checkpoint(mt.load(tmp_path / "ck.pt"), checkpoint())
    assert sorted(p.name for p in tmp_path.iterdir()) == ["ck.pt"]


# ------------------------------------------------------------------ damaged and foreign files
@pytest.mark.parametrize("kept", [0.02, 0.25, 0.5, 0.75, 0.99])
def test_load_names_a_truncated_file(tmp_path, kept):
    mt.save(checkpoint(), tmp_path / "full.pt")
    data = (tmp_path / "full.pt").read_bytes()
    (tmp_path / "cut.pt").write_bytes(data[: int(len(data) * kept)])
    with pytest.raises(CheckpointError, match=r"Cannot load .*cut\.pt"):
        mt.load(tmp_path / "cut.pt")


def test_load_names_an_empty_file(tmp_path):
    (tmp_path / "empty.pt").write_bytes(b"")
    with pytest.raises(CheckpointError, match=r"Cannot load .*empty\.pt.*: the file is empty"):
        mt.load(tmp_path / "empty.pt")


def entry_offsets(path: Path) -> dict[str, int]:
    """Where each entry's data starts in a zip checkpoint, by name inside the archive folder:
    after its local header (30 bytes, then the name and the extra field, whose lengths are
    the header's last two 16-bit fields)."""
    data = path.read_bytes()
    offsets = {}
    with zipfile.ZipFile(path) as archive:
        for info in archive.infolist():
            name_length, extra_length = struct.unpack_from("<HH", data, info.header_offset + 26)
            offsets[info.filename.split("/", 1)[1]] = info.header_offset + 30 + name_length + extra_length
    return offsets


@pytest.mark.parametrize("entry", ["data.pkl", "data/0", "data/1"])
def test_load_names_a_file_with_a_flipped_byte_in_an_entry(tmp_path, entry):
    mt.save(checkpoint(), tmp_path / "ck.pt")
    data = bytearray((tmp_path / "ck.pt").read_bytes())
    data[entry_offsets(tmp_path / "ck.pt")[entry] + 10] ^= 0x01
    (tmp_path / "flipped.pt").write_bytes(bytes(data))
    with pytest.raises(CheckpointError, match=r"flipped\.pt"):
        mt.load(tmp_path / "flipped.pt")


def test_no_flipped_byte_anywhere_loads_as_different_numbers(tmp_path, full_size):
    """Every single-byte corruption of a small checkpoint (every fourth byte unless
    ``--runslow``) either raises ``CheckpointError`` or loads exactly the saved values
    (the byte was padding or an unused header field)."""
    saved = {"weight": mt.arange(6.0), "step": 7}
    mt.save(saved, tmp_path / "ck.pt")
    original = (tmp_path / "ck.pt").read_bytes()
    damaged = tmp_path / "damaged.pt"
    refused = tried = 0
    for position in range(0, len(original), 1 if full_size else 4):
        tried += 1
        data = bytearray(original)
        data[position] ^= 0xFF
        damaged.write_bytes(bytes(data))
        try:
            loaded = mt.load(damaged)
        except CheckpointError:
            refused += 1
            continue
        assert torch.equal(loaded["weight"].torch(), saved["weight"].torch()), position
        assert loaded["step"] == 7, position
    assert refused > tried // 2


def foreign_file(kind: str, path: Path) -> None:
    if kind == "text":
        path.write_text("epoch 3, loss 0.25\nnot a checkpoint\n")
    elif kind == "random bytes":
        path.write_bytes(random.Random(0).randbytes(4096))
    elif kind == "zip of something else":
        with zipfile.ZipFile(path, "w") as archive:
            archive.writestr("notes/readme.txt", "hello")
    elif kind == "numpy npz":
        with open(path, "wb") as file:
            np.savez(file, a=np.ones(3))
    elif kind == "json":
        path.write_text('{"weight": [1.0, 2.0]}')
    elif kind == "plain pickle":
        path.write_bytes(pickle.dumps({"weight": [1.0, 2.0]}))


@pytest.mark.parametrize("kind", ["text", "random bytes", "zip of something else", "numpy npz", "json", "plain pickle"])
def test_load_names_a_foreign_file(tmp_path, kind):
    foreign_file(kind, tmp_path / "foreign.pt")
    with pytest.raises(CheckpointError, match=r"Cannot load .*foreign\.pt.*not a complete checkpoint"):
        mt.load(tmp_path / "foreign.pt")


def test_load_names_a_missing_file(tmp_path):
    with pytest.raises(FileNotFoundError, match=r"No such checkpoint: .*missing\.pt"):
        mt.load(tmp_path / "missing.pt")


def test_load_reads_a_plain_torch_checkpoint(tmp_path):
    torch.save({"weight": torch.ones(3)}, tmp_path / "torch.pt")
    assert torch.equal(mt.load(tmp_path / "torch.pt")["weight"], torch.ones(3))


# --------------------------------------------------------------------------- atomic writes
def kill_while_saving(path: Path, first_step: int, seconds: float, weights: torch.Tensor) -> bool:
    """Fork a process that saves checkpoints ``first_step, first_step + 1, ...`` to ``path`` in a
    loop, SIGKILL it after ``seconds``; whether it died in the middle of a save (it left its
    temporary file behind)."""
    temporaries = set(path.parent.glob(f".{path.name}.*.tmp"))
    pid = os.fork()
    if pid == 0:  # the child: save until killed, never return into pytest
        try:
            torch.set_num_threads(1)  # a forked process must not enter the parent's thread pool
            step = first_step
            while True:
                weights.fill_(float(step))
                mt.save({"step": step, "weights": mt.from_torch(weights)}, path)
                step += 1
        finally:
            os._exit(1)
    time.sleep(seconds)
    os.kill(pid, signal.SIGKILL)
    os.waitpid(pid, 0)
    return bool(set(path.parent.glob(f".{path.name}.*.tmp")) - temporaries)


@pytest.mark.skipif(not hasattr(os, "fork"), reason="forks the saving process")
def test_a_process_killed_in_the_middle_of_save_leaves_the_previous_file_intact(tmp_path, full_size, record_property):
    kills = 25 if full_size else 5
    path = tmp_path / "checkpoint.pt"
    weights = torch.zeros(4_000_000)  # 16 MB: most of each save is spent writing it
    mt.save({"step": 0, "weights": mt.from_torch(weights)}, path)
    timing = random.Random(0)
    step, mid_write = 0, 0
    for _ in range(kills):
        mid_write += kill_while_saving(path, step + 1, timing.uniform(0.02, 0.4), weights)
        loaded = mt.load(path)
        assert loaded["step"] >= step
        assert bool((loaded["weights"].torch() == loaded["step"]).all())  # all of one save, none of another
        step = loaded["step"]
    record_property("kills / of them in the middle of a save / saves completed", f"{kills} / {mid_write} / {step}")
    assert mid_write > 0, "no kill landed in the middle of a save: the test proved nothing"
    assert step > 0, "no save completed between kills"


def test_save_gives_a_new_file_the_usual_permissions(tmp_path):
    umask = os.umask(0o022)
    os.umask(umask)
    mt.save(checkpoint(), tmp_path / "ck.pt")
    assert (tmp_path / "ck.pt").stat().st_mode & 0o777 == 0o666 & ~umask


def test_save_keeps_the_permissions_of_the_file_it_replaces(tmp_path):
    mt.save(checkpoint(), tmp_path / "ck.pt")
    os.chmod(tmp_path / "ck.pt", 0o640)
    mt.save(checkpoint(1), tmp_path / "ck.pt")
    assert (tmp_path / "ck.pt").stat().st_mode & 0o777 == 0o640


# ----------------------------------------------------------------------------- map_location
@pytest.mark.parametrize("map_location", ["cpu", torch.device("cpu")], ids=["str", "torch.device"])
def test_map_location_cpu_loads_onto_the_cpu(tmp_path, map_location):
    mt.save(checkpoint(), tmp_path / "ck.pt")
    loaded = mt.load(tmp_path / "ck.pt", map_location=map_location)
    assert loaded["model"]["weight"].device == torch.device("cpu")
    assert_same_checkpoint(loaded, checkpoint())


def test_map_location_with_an_unknown_device_raises_torchs_error(tmp_path):
    mt.save(checkpoint(), tmp_path / "ck.pt")
    with pytest.raises(RuntimeError, match="Expected one of cpu, cuda") as error:
        mt.load(tmp_path / "ck.pt", map_location="nodevice")
    assert not isinstance(error.value, CheckpointError)  # the file is fine


@needs_cuda
def test_map_location_cpu_loads_a_gpu_checkpoint_onto_the_cpu(tmp_path):
    saved = {"weight": mt.randn(4, 3).cuda()}
    mt.save(saved, tmp_path / "gpu.pt")
    loaded = mt.load(tmp_path / "gpu.pt", map_location="cpu")
    assert loaded["weight"].device == torch.device("cpu")
    assert torch.equal(loaded["weight"].torch(), saved["weight"].torch().cpu())


@needs_cuda
def test_map_location_cuda_loads_a_cpu_checkpoint_onto_the_gpu(tmp_path):
    mt.save(checkpoint(), tmp_path / "ck.pt")
    loaded = mt.load(tmp_path / "ck.pt", map_location="cuda")
    assert loaded["model"]["weight"].device.type == "cuda"
    assert torch.equal(loaded["model"]["weight"].torch().cpu(), checkpoint()["model"]["weight"].torch())
