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


class SystemPayload:
    """Unpickling this runs a shell command (``os.system``)."""

    def __reduce__(self):
        return (os.system, ("true",))


@pytest.mark.parametrize("container", ["torch zip", "torch legacy", *(f"pickle protocol {p}" for p in range(6))])
@pytest.mark.parametrize("payload", ["exec", "system"])
def test_load_says_a_payload_would_have_run_code_and_names_it(tmp_path, container, payload):
    """Issue 13.17: pickle protocols 0, 4 and 5 were refused as "truncated/corrupted"."""
    evil = Payload(tmp_path / "ran") if payload == "exec" else SystemPayload()
    if container.startswith("torch"):
        torch.save(
            {"weight": torch.ones(2), "extra": evil},
            tmp_path / "evil.pt",
            _use_new_zipfile_serialization=container == "torch zip",
        )
    else:
        (tmp_path / "evil.pt").write_bytes(pickle.dumps({"extra": evil}, protocol=int(container.split()[-1])))
    name = "builtins.exec" if payload == "exec" else f"{os.system.__module__}.system"
    with pytest.raises(
        CheckpointError, match=rf"Cannot load .*evil\.pt': refused: loading would call {name} \(a pickle that runs code"
    ):
        mt.load(tmp_path / "evil.pt")
    assert not (tmp_path / "ran").exists()


def test_load_names_a_module_it_refuses(tmp_path):
    torch.save({"model": torch.nn.Linear(2, 2)}, tmp_path / "module.pt")
    with pytest.raises(CheckpointError, match=r"refused: loading would call torch\.nn\.modules\.linear\.Linear \("):
        mt.load(tmp_path / "module.pt")


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


# ------------------------------------------------- shared, self-referencing and deep containers
def shared_chain(levels: int) -> list:
    """``L[k] = [L[k-1], L[k-1]]``: ``levels`` distinct lists, 2**levels paths from the top."""
    chain: list = []
    for _ in range(levels):
        chain = [chain, chain]
    return chain


def test_load_decodes_a_shared_chain_once_per_list(tmp_path):
    """Issue 13.1: forty levels of ``[L, L]`` made the decoder walk 2**40 paths (killed at 1.3 GB)."""
    torch.save(shared_chain(40), tmp_path / "chain.pt")
    assert (tmp_path / "chain.pt").stat().st_size < 4096
    loaded = mt.load(tmp_path / "chain.pt")
    for _ in range(40):
        assert loaded[0] is loaded[1]  # shared as torch.load shares it
        loaded = loaded[0]
    assert loaded == []


def test_load_refuses_a_file_that_unpacks_to_more_than_its_size(tmp_path):
    """The decoder's budget: container items visited, at most the file's bytes."""
    from minitorch_rx.serialization import _decode

    loaded = torch.load(save_plain(tmp_path / "chain.pt", shared_chain(30)), weights_only=True)
    with pytest.raises(CheckpointError, match=r"more objects than its 59 bytes"):
        _decode(loaded, "chain.pt", budget=59)  # 30 lists of 2 items: 60 visits
    _decode(loaded, "chain.pt", budget=60)


def save_plain(path: Path, obj) -> Path:
    torch.save(obj, path)
    return path


def random_shared_structure(seed: int) -> tuple[object, int]:
    """A random DAG of lists, tuples and dicts whose nodes reference earlier nodes any number of
    times, with numbers, strings and mt.Tensors (some shared) as leaves; and its count of
    container items (what a decoder that visits each container once visits)."""
    rng = random.Random(seed)
    leaves = [1, 2.5, "s", None, mt.arange(3.0), mt.ones(2), torch.zeros(2)]
    nodes: list = []
    items = 0
    for _ in range(rng.randint(1, 60)):
        pool = nodes + leaves
        children = [rng.choice(pool) for _ in range(rng.randint(0, 4))]
        kind = rng.choice(["list", "tuple", "dict"])
        node = {f"k{i}": c for i, c in enumerate(children)} if kind == "dict" else children
        nodes.append(tuple(node) if kind == "tuple" else node)
        items += len(children)
    return nodes[-1], items


def assert_same_structure(loaded, saved) -> None:
    """Equal values, and the same sharing: two references to one saved object load as one object."""
    seen: dict[int, int] = {}
    pending = [(loaded, saved)]
    while pending:
        ours, theirs = pending.pop()
        if isinstance(theirs, (list, tuple, dict, mt.Tensor)):
            assert seen.setdefault(id(theirs), id(ours)) == id(ours), "sharing lost"
        if isinstance(theirs, mt.Tensor):
            assert isinstance(ours, mt.Tensor) and torch.equal(ours.torch(), theirs.torch())
        elif isinstance(theirs, torch.Tensor):
            assert torch.equal(ours, theirs)
        elif isinstance(theirs, dict):
            assert type(ours) is dict and ours.keys() == theirs.keys()
            pending.extend((ours[k], theirs[k]) for k in theirs)
        elif isinstance(theirs, (list, tuple)):
            assert type(ours) is type(theirs) and len(ours) == len(theirs)
            pending.extend(zip(ours, theirs))
        else:
            assert ours == theirs


@pytest.mark.parametrize("seed", range(25))
def test_random_shared_structures_round_trip_decoding_each_container_once(tmp_path, seed):
    """The class of issue 13.1: any sharing round-trips, and decoding visits each container's items
    once (counted: the decoder refuses to visit more than its budget)."""
    from minitorch_rx.serialization import _decode

    saved, items = random_shared_structure(seed)
    mt.save(saved, tmp_path / "ck.pt")
    assert_same_structure(mt.load(tmp_path / "ck.pt"), saved)
    _decode(torch.load(tmp_path / "ck.pt", weights_only=True), "ck.pt", budget=items)


def test_self_referencing_containers_save_and_load_as_torch_does(tmp_path):
    """Issue 13.2: a list or dict that contains itself raised RecursionError."""
    looped: list = [mt.ones(2)]
    looped.append(looped)
    mapping: dict = {"weight": mt.zeros(1)}
    mapping["self"] = mapping
    mt.save({"list": looped, "dict": mapping}, tmp_path / "loop.pt")
    loaded = mt.load(tmp_path / "loop.pt")
    assert loaded["list"][1] is loaded["list"] and loaded["dict"]["self"] is loaded["dict"]
    assert torch.equal(loaded["list"][0].torch(), torch.ones(2))
    plain: list = [1]  # and a plain torch file with a loop
    plain.append(plain)
    torch.save(plain, tmp_path / "plain.pt")
    loaded = mt.load(tmp_path / "plain.pt")
    assert loaded[1] is loaded


def test_a_cycle_through_a_tuple_is_a_checkpoint_error_on_save(tmp_path):
    """torch.save writes it with POP_MARK, which torch.load(weights_only=True) refuses: say so."""
    inner: list = [mt.ones(1)]
    outer = (inner, "tag")
    inner.append(outer)
    plain: list = [1]
    plain.append((plain, "tag"))
    torch.save(plain[1], tmp_path / "torch.pt")
    with pytest.raises(pickle.UnpicklingError, match="Unsupported operand 48"):  # POP_MARK
        torch.load(tmp_path / "torch.pt", weights_only=True)
    with pytest.raises(CheckpointError, match=r"Cannot save .*ours\.pt.*a tuple contains itself.*POP_MARK"):
        mt.save({"outer": outer}, tmp_path / "ours.pt")
    assert not (tmp_path / "ours.pt").exists()


def test_load_refuses_a_compressed_archive_that_unpacks_beyond_its_size(tmp_path):
    """A zip bomb: checking CRCs would inflate every entry; torch.save never compresses."""
    torch.save({"weight": torch.ones(2)}, tmp_path / "ck.pt")
    with zipfile.ZipFile(tmp_path / "ck.pt") as archive:
        entries = {info.filename: archive.read(info) for info in archive.infolist()}
    with zipfile.ZipFile(tmp_path / "bomb.pt", "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for name, data in entries.items():
            archive.writestr(name, data)
        archive.writestr("ck/data/padding", bytes(20_000_000))
    with pytest.raises(CheckpointError, match=r"bomb\.pt.*unpack to \d+ bytes, more than the file's"):
        mt.load(tmp_path / "bomb.pt")


def test_a_container_nested_deeper_than_pickle_goes_is_a_checkpoint_error_on_save(tmp_path):
    deep: list = []
    for _ in range(5000):
        deep = [deep]
    mt.save(checkpoint(), tmp_path / "ck.pt")
    with pytest.raises(CheckpointError, match=r"Cannot save .*ck\.pt.*nested deeper than pickle"):
        mt.save(deep, tmp_path / "ck.pt")
    assert_same_checkpoint(mt.load(tmp_path / "ck.pt"), checkpoint())
    assert sorted(p.name for p in tmp_path.iterdir()) == ["ck.pt"]


def with_pickle(path: Path, pickled: bytes) -> None:
    """A torch zip checkpoint whose ``data.pkl`` is ``pickled`` (the other entries from a real save)."""
    torch.save([], path)
    with zipfile.ZipFile(path) as archive:
        entries = {info.filename: archive.read(info) for info in archive.infolist()}
    with zipfile.ZipFile(path, "w") as archive:
        for name, data in entries.items():
            archive.writestr(name, pickled if name.endswith("data.pkl") else data)


def test_load_reads_a_very_deep_container(tmp_path):
    """A hand-made pickle 100,000 lists deep (torch.load reads it; the decoder recursed)."""
    depth = 100_000
    with_pickle(tmp_path / "deep.pt", b"\x80\x02" + b"]" * depth + b"a" * (depth - 1) + b".")
    loaded = mt.load(tmp_path / "deep.pt")
    for _ in range(depth - 1):
        (loaded,) = loaded
    assert loaded == []


# --------------------------------------------------------------------------- tagged records
TAG = "__minitorch_rx_tensor__"


@pytest.mark.parametrize(
    "forged",
    [{TAG: "some string"}, {TAG: 3}, {TAG: [torch.ones(1)]}, {TAG: torch.ones(1), "other": 1}, {TAG: None}],
    ids=["str", "int", "list", "extra key", "None"],
)
def test_load_refuses_a_forged_tensor_record(tmp_path, forged):
    """Issue 13.3: ``{TAG: "some string"}`` loaded as an mt.Tensor holding a str."""
    torch.save({"weight": forged}, tmp_path / "forged.pt")
    with pytest.raises(CheckpointError, match=r"Cannot load .*forged\.pt.*tensor record .* not one tensor"):
        mt.load(tmp_path / "forged.pt")


@pytest.mark.parametrize(
    "user_dict",
    [{TAG: "s"}, {TAG: 3, "other": 1}, {TAG: {TAG: "x"}}, {TAG: torch.ones(2)}, {"a": {TAG: [1, 2]}}],
    ids=["str", "two keys", "nested", "torch tensor", "inside"],
)
def test_user_dicts_with_the_tag_as_a_key_round_trip_as_dicts(tmp_path, user_dict):
    mt.save(user_dict, tmp_path / "ck.pt")
    assert_same_structure(mt.load(tmp_path / "ck.pt"), user_dict)


def test_a_user_dict_with_the_tag_holding_an_mt_tensor_round_trips(tmp_path):
    mt.save({TAG: mt.arange(3.0)}, tmp_path / "ck.pt")
    loaded = mt.load(tmp_path / "ck.pt")
    assert type(loaded) is dict and list(loaded) == [TAG]
    assert isinstance(loaded[TAG], mt.Tensor) and torch.equal(loaded[TAG].torch(), torch.arange(3.0))


def test_shared_mt_tensors_load_as_one_tensor(tmp_path):
    weight = mt.randn(3)
    mt.save({"encoder": weight, "decoder": weight}, tmp_path / "tied.pt")
    loaded = mt.load(tmp_path / "tied.pt")
    assert loaded["encoder"] is loaded["decoder"]


# ------------------------------------------------------------------ temporaries and symlinks
def test_save_removes_temporaries_that_killed_saves_of_the_same_file_left(tmp_path):
    """Issue 13.4: a SIGKILL mid-save left ``.NAME.<hex>.tmp`` beside the file, never removed."""
    stale = [tmp_path / f".ck.pt.{i:016x}.tmp" for i in range(3)]
    others = [tmp_path / ".other.pt.0123456789abcdef.tmp", tmp_path / ".ck.pt.notours.tmp", tmp_path / "notes.txt"]
    for path in stale + others:
        path.write_bytes(b"partial")
    mt.save(checkpoint(), tmp_path / "ck.pt")
    assert not any(path.exists() for path in stale)
    assert all(path.exists() for path in others)


@pytest.mark.skipif(not hasattr(os, "fork"), reason="POSIX locks")
def test_save_keeps_the_temporary_of_a_save_in_progress(tmp_path):
    import fcntl

    live = tmp_path / ".ck.pt.00000000000000aa.tmp"
    live.write_bytes(b"being written")
    with open(live, "rb") as writer:
        fcntl.flock(writer, fcntl.LOCK_EX)  # what a live mt.save holds on its temporary
        mt.save(checkpoint(), tmp_path / "ck.pt")
        assert live.exists()
    mt.save(checkpoint(), tmp_path / "ck.pt")
    assert not live.exists()


@pytest.mark.skipif(not hasattr(os, "fork"), reason="forks the saving process")
def test_the_next_save_after_kills_in_a_row_leaves_no_temporary(tmp_path):
    """Issue 37: 4 kills in a row, then a save (each killed save may remove its predecessors'
    temporaries, or die doing so)."""
    path = tmp_path / "checkpoint.pt"
    weights = torch.zeros(4_000_000)
    mt.save({"step": 0, "weights": mt.from_torch(weights)}, path)
    landed = [kill_while_saving(path, 1, seconds, weights) for seconds in (0.05, 0.1, 0.2, 0.3)]
    if not any(landed):
        pytest.skip("no kill landed in the middle of a save")
    mt.save({"step": 0, "weights": mt.from_torch(weights)}, path)
    assert [p.name for p in tmp_path.iterdir()] == ["checkpoint.pt"]


@pytest.mark.skipif(not hasattr(os, "symlink"), reason="symbolic links")
@pytest.mark.parametrize("link_kind", ["absolute", "relative", "chain", "dangling"])
def test_save_through_a_symlink_replaces_its_target_atomically(tmp_path, link_kind):
    """Issue 13.5: saving through a link replaced the link by a file and left its target stale."""
    (tmp_path / "store").mkdir()
    target = tmp_path / "store" / "real.pt"
    if link_kind != "dangling":
        mt.save(checkpoint(0), target)
    inode = target.stat().st_ino if target.exists() else None
    link = tmp_path / "link.pt"
    if link_kind == "absolute":
        link.symlink_to(target)
    elif link_kind == "relative" or link_kind == "dangling":
        link.symlink_to(Path("store") / "real.pt")
    else:
        (tmp_path / "middle.pt").symlink_to(target)
        link.symlink_to(tmp_path / "middle.pt")
    mt.save(checkpoint(1), link)
    assert link.is_symlink()
    assert_same_checkpoint(mt.load(target), checkpoint(1))
    assert_same_checkpoint(mt.load(link), checkpoint(1))
    assert target.stat().st_ino != inode  # replaced by a rename, not rewritten in place
    assert sorted(p.name for p in (tmp_path / "store").iterdir()) == ["real.pt"]


def test_save_and_load_take_file_objects_as_torch_does():
    import io

    buffer = io.BytesIO()
    mt.save({"w": mt.ones(2), "step": 3}, buffer)
    buffer.seek(0)
    loaded = mt.load(buffer)
    assert loaded["step"] == 3 and loaded["w"].tolist() == [1.0, 1.0]
