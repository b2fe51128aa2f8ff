"""DistributedDataParallel over gloo on the loopback interface, and ``minitorch-rx train --nproc``.

Multi-process tests start their ranks from a forkserver that has imported minitorch_rx once, so
each test pays for process start-up only once; every rank runs one thread.
"""

from __future__ import annotations

import json
import os
import time
import traceback
from datetime import timedelta
from pathlib import Path

import pytest
import torch
import torch.distributed as dist
import torch.multiprocessing as mp

import minitorch_rx as mt
import minitorch_rx.nn as nn
import minitorch_rx.nn.functional as F
from minitorch_rx.cli import main
from minitorch_rx.nn.parallel import DistributedDataParallel
from minitorch_rx.nn.parallel.reducer import assign_buckets

STEPS, BATCH_PER_RANK, WORLD = 5, 4, 2
TIMEOUT = timedelta(seconds=10)


# ----------------------------------------------------------------------------- helpers
def _entry(worker, rank: int, out: Path, timeout: timedelta, args: tuple) -> None:
    torch.set_num_threads(1)
    try:
        # The ranks meet in a file of the test's own folder (a FileStore): no port is chosen, so
        # none can be taken by another process (a port probed free, closed, then bound by rank
        # 0 could be, by another test run on the machine) before the ranks listen.
        dist.init_process_group(
            "gloo", init_method=(out / "rendezvous").as_uri(), rank=rank, world_size=WORLD, timeout=timeout
        )
        worker(rank, out, *args)
    except BaseException:
        (out / f"error{rank}.txt").write_text(traceback.format_exc())
        raise
    dist.destroy_process_group()


def _run_ranks(worker, out: Path, *args, group_timeout: timedelta = TIMEOUT, timeout: float = 90.0) -> list[int | None]:
    """Run ``worker(rank, out, *args)`` in WORLD processes joined in a gloo group whose
    collectives time out after ``group_timeout``; their exit codes (None: killed after ``timeout``)."""
    context = mp.get_context("forkserver")
    context.set_forkserver_preload(["minitorch_rx"])
    processes = [context.Process(target=_entry, args=(worker, rank, out, group_timeout, args)) for rank in range(WORLD)]
    for process in processes:
        process.start()
    deadline = time.monotonic() + timeout
    for process in processes:
        process.join(max(0.0, deadline - time.monotonic()))
    for process in processes:
        if process.is_alive():
            process.kill()
            process.join()
    return [process.exitcode for process in processes]


def _assert_ranks_succeeded(codes: list[int | None], out: Path) -> None:
    errors = "\n".join(p.read_text() for p in sorted(out.glob("error*.txt")))
    assert codes == [0] * WORLD, errors


def _cnn() -> nn.Module:
    """A small CNN on 1x12x12 images, 5 classes, no batch norm (so that shards add up exactly)."""
    return nn.Sequential(
        nn.Conv2d(1, 4, 3), nn.ReLU(), nn.MaxPool2d(2), nn.Conv2d(4, 8, 3), nn.ReLU(), nn.Flatten(), nn.Linear(72, 5)
    )


def _batches(count: int, size: int) -> list[tuple[mt.Tensor, mt.Tensor]]:
    generator = torch.Generator().manual_seed(123)
    return [
        (
            mt.from_torch(torch.randn(size, 1, 12, 12, generator=generator)),
            mt.from_torch(torch.randint(0, 5, (size,), generator=generator)),
        )
        for _ in range(count)
    ]


def _shard(batch: tuple[mt.Tensor, mt.Tensor], rank: int) -> tuple[mt.Tensor, mt.Tensor]:
    images, labels = batch
    rows = slice(rank * BATCH_PER_RANK, (rank + 1) * BATCH_PER_RANK)
    return images[rows], labels[rows]


def _train(model: nn.Module, batches) -> None:
    optimizer = mt.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    for images, labels in batches:
        optimizer.zero_grad()
        F.cross_entropy(model(images), labels).backward()
        optimizer.step()


def _state(module: nn.Module) -> dict[str, torch.Tensor]:
    return {name: value.torch().clone() for name, value in module.state_dict().items()}


def _grads(module: nn.Module) -> dict[str, torch.Tensor | None]:
    return {name: None if p.grad is None else p.grad.torch().clone() for name, p in module.named_parameters()}


def _assert_close(ours: dict, expected: dict, atol: float = 1e-5) -> None:
    assert ours.keys() == expected.keys()
    for name in ours:
        if expected[name] is None:
            assert ours[name] is None, name
        else:
            torch.testing.assert_close(ours[name], expected[name], atol=atol, rtol=0, msg=name)


@pytest.fixture
def single_process_group() -> dist.ProcessGroup:
    """A gloo group of one process (this one), unregistered: no global state is touched."""
    return dist.ProcessGroupGloo(dist.HashStore(), 0, 1, TIMEOUT)


# ------------------------------------------------------------------ workers (per rank)
def _train_worker(rank: int, out: Path) -> None:
    mt.manual_seed(rank)  # rank 1 starts elsewhere: construction must broadcast rank 0's weights
    model = DistributedDataParallel(_cnn(), bucket_cap_mb=0.001)  # several buckets
    assert len(model.reducer.buckets) > 1
    _train(model, [_shard(batch, rank) for batch in _batches(STEPS, WORLD * BATCH_PER_RANK)])
    torch.save(_state(model.module), out / f"rank{rank}.pt")


def _no_sync_worker(rank: int, out: Path) -> None:
    mt.manual_seed(0)
    model = DistributedDataParallel(_cnn())
    micro_batches = [_shard(batch, rank) for batch in _batches(3, WORLD * BATCH_PER_RANK)]
    with model.no_sync():
        for images, labels in micro_batches[:2]:
            (F.cross_entropy(model(images), labels) / 3).backward()
    local = _grads(model.module)
    images, labels = micro_batches[2]
    (F.cross_entropy(model(images), labels) / 3).backward()
    torch.save({"local": local, "synced": _grads(model.module)}, out / f"rank{rank}.pt")


class _Heads(nn.Module):
    """A trunk and three heads: ``a`` always used, ``b`` used when asked, ``c`` never."""

    def __init__(self) -> None:
        super().__init__()
        self.trunk = nn.Linear(6, 6)
        self.a, self.b, self.c = nn.Linear(6, 2), nn.Linear(6, 2), nn.Linear(6, 2)

    def forward(self, x: mt.Tensor, use_b: bool) -> mt.Tensor:
        h = self.trunk(x).relu()
        return self.a(h) + self.b(h) if use_b else self.a(h)


def _heads_data(rank: int) -> mt.Tensor:
    return mt.from_torch(torch.randn(3, 6, generator=torch.Generator().manual_seed(rank)))


def _unused_worker(rank: int, out: Path) -> None:
    mt.manual_seed(0)
    model = DistributedDataParallel(_Heads(), find_unused_parameters=True)
    for _ in range(2):  # the second iteration checks that the reducer re-arms
        model.zero_grad()
        model(_heads_data(rank), use_b=rank == 0).pow(2).sum().backward()
    torch.save(_grads(model.module), out / f"rank{rank}.pt")


def _buffers_worker(rank: int, out: Path) -> None:
    mt.manual_seed(rank)
    net = nn.Sequential(nn.Conv2d(1, 2, 3), nn.BatchNorm2d(2))
    net[1].running_mean.torch().fill_(rank + 1.0)
    model = DistributedDataParallel(net)
    built = _state(model.module)
    net[1].running_var.torch().fill_(rank + 5.0)  # diverges after construction...
    model.eval()
    with mt.no_grad():
        model(mt.randn(2, 1, 6, 6))  # ...and is overwritten by rank 0's before this forward
    torch.save({"built": built, "after_forward": _state(model.module)}, out / f"rank{rank}.pt")


def _crash_worker(rank: int, out: Path, hang_seconds: float) -> None:
    mt.manual_seed(0)
    model = DistributedDataParallel(_cnn())
    if rank == 1:
        time.sleep(hang_seconds)  # a hung worker: alive, but in no collective
        os._exit(3)  # dies without a word, as a killed or segfaulted worker would
    images, labels = _shard(_batches(1, WORLD * BATCH_PER_RANK)[0], rank)
    started = time.monotonic()
    with pytest.raises(RuntimeError) as failure:
        F.cross_entropy(model(images), labels).backward()
    (out / "rank0.json").write_text(json.dumps({"error": str(failure.value), "seconds": time.monotonic() - started}))


# ------------------------------------------------------------------- multi-process tests
def test_two_processes_end_with_the_weights_of_one_process_on_the_concatenated_batch(tmp_path):
    _assert_ranks_succeeded(_run_ranks(_train_worker, tmp_path), tmp_path)
    mt.manual_seed(0)
    reference = _cnn()
    _train(reference, _batches(STEPS, WORLD * BATCH_PER_RANK))
    for rank in range(WORLD):
        _assert_close(torch.load(tmp_path / f"rank{rank}.pt"), _state(reference))


def test_no_sync_accumulates_locally_then_the_next_synced_backward_averages(tmp_path):
    _assert_ranks_succeeded(_run_ranks(_no_sync_worker, tmp_path), tmp_path)
    batches = _batches(3, WORLD * BATCH_PER_RANK)
    mt.manual_seed(0)
    model = _cnn()
    for rank in range(WORLD):
        model.zero_grad()
        for images, labels in (_shard(batch, rank) for batch in batches[:2]):
            (F.cross_entropy(model(images), labels) / 3).backward()
        _assert_close(torch.load(tmp_path / f"rank{rank}.pt")["local"], _grads(model))
    model.zero_grad()
    images, labels = mt.cat([b[0] for b in batches]), mt.cat([b[1] for b in batches])
    F.cross_entropy(model(images), labels).backward()  # one batch of all six micro-batches
    for rank in range(WORLD):
        _assert_close(torch.load(tmp_path / f"rank{rank}.pt")["synced"], _grads(model))


def test_unused_parameters_are_found_and_a_head_used_on_one_rank_is_averaged(tmp_path):
    _assert_ranks_succeeded(_run_ranks(_unused_worker, tmp_path), tmp_path)
    mt.manual_seed(0)
    model = _Heads()
    local = []
    for rank in range(WORLD):
        model.zero_grad()
        model(_heads_data(rank), use_b=rank == 0).pow(2).sum().backward()
        local.append(_grads(model))
    expected = {
        name: None if name.startswith("c.") else sum(g[name] for g in local if g[name] is not None) / WORLD
        for name in local[0]
    }
    for rank in range(WORLD):
        _assert_close(torch.load(tmp_path / f"rank{rank}.pt"), expected)


def test_rank_0s_parameters_and_buffers_win_at_construction_and_before_each_forward(tmp_path):
    _assert_ranks_succeeded(_run_ranks(_buffers_worker, tmp_path), tmp_path)
    rank0, rank1 = (torch.load(tmp_path / f"rank{rank}.pt") for rank in range(WORLD))
    assert torch.equal(rank0["built"]["1.running_mean"], torch.ones(2))
    _assert_close(rank1["built"], rank0["built"], atol=0)
    _assert_close(rank1["after_forward"], rank0["after_forward"], atol=0)


def test_a_crashed_worker_makes_the_others_fail_with_a_clear_error(tmp_path):
    codes = _run_ranks(_crash_worker, tmp_path, 0.0)
    assert codes[1] == 3
    _assert_ranks_succeeded([codes[0], 0], tmp_path)
    report = json.loads((tmp_path / "rank0.json").read_text())
    assert "all-reduce of gradient bucket 0 failed on rank 0 of 2" in report["error"] and "crashed" in report["error"]
    assert report["seconds"] < TIMEOUT.total_seconds()


def test_a_hung_worker_makes_the_others_fail_once_the_group_times_out(tmp_path):
    group_timeout = timedelta(seconds=2)
    codes = _run_ranks(_crash_worker, tmp_path, 5.0, group_timeout=group_timeout)
    _assert_ranks_succeeded([codes[0], 0], tmp_path)
    report = json.loads((tmp_path / "rank0.json").read_text())
    # gloo's own timeout (not the peer's exit 5 s in, which reads "Connection closed") ended it
    assert "failed on rank 0 of 2" in report["error"] and "timed out waiting" in report["error"].lower()
    assert report["seconds"] > group_timeout.total_seconds() - 0.5


def test_train_with_nproc_2_trains_end_to_end_and_only_rank_0_writes(tmp_path, capfd):
    out = tmp_path / "run"
    assert main(["train", "--nproc", "2", "--limit", "256", "--epochs", "1", "--quiet", "--out", str(out)]) == 0
    assert {p.name for p in out.iterdir()} == {
        "checkpoint.pt",
        "metrics.json",
        "metrics.png",
        "grad_flow.png",
        "confusion.png",
    }
    metrics = json.loads((out / "metrics.json").read_text())
    assert metrics["world_size"] == 2
    assert len(metrics["step_losses"]) == 2  # 256 images, 64 per process and step, 2 processes
    assert capfd.readouterr().out.count("test accuracy") == 1  # printed by rank 0 only


# ------------------------------------------------------------------- one-process tests
def test_buckets_take_parameters_in_reverse_order_up_to_the_cap():
    params = [mt.zeros(256) for _ in range(6)]  # 1 KiB each
    assert assign_buckets(params, bucket_cap_bytes=2048, first_bucket_bytes=1024) == [[5], [4, 3], [2, 1], [0]]


def test_buckets_never_mix_dtypes():
    params = [mt.zeros(4), mt.zeros(4, dtype=torch.float64), mt.zeros(4)]
    assert assign_buckets(params, bucket_cap_bytes=1 << 20, first_bucket_bytes=1 << 20) == [[2, 0], [1]]


def test_one_process_group_gives_the_plain_gradients(single_process_group):
    mt.manual_seed(0)
    model = DistributedDataParallel(_cnn(), process_group=single_process_group, bucket_cap_mb=0.001)
    images, labels = _batches(1, 4)[0]
    F.cross_entropy(model(images), labels).backward()
    ddp_grads = _grads(model.module)
    model.module.zero_grad()
    F.cross_entropy(model.module(images), labels).backward()
    _assert_close(ddp_grads, _grads(model.module), atol=0)


def test_a_dropped_wrapper_takes_its_hooks_off_the_parameters(single_process_group):
    module = nn.Linear(2, 3)
    model = DistributedDataParallel(module, process_group=single_process_group)
    assert all(p._hooks.post_accumulate for p in module.parameters())
    del model
    assert not any(p._hooks.post_accumulate for p in module.parameters())
    module(mt.ones(1, 2)).sum().backward()  # still trains alone


def test_state_dict_keys_carry_the_module_prefix(single_process_group):
    model = DistributedDataParallel(nn.Linear(2, 3), process_group=single_process_group)
    assert list(model.state_dict()) == ["module.weight", "module.bias"]


def test_a_parameter_without_gradient_fails_the_next_forward_unless_found(single_process_group):
    model = DistributedDataParallel(_Heads(), process_group=single_process_group)
    x = _heads_data(0)
    model(x, use_b=False).sum().backward()
    with pytest.raises(RuntimeError, match="Expected to have finished reduction in the prior iteration") as failure:
        model(x, use_b=False)
    assert "find_unused_parameters=True" in str(failure.value) and "b.weight, b.bias, c.weight, c.bias" in str(
        failure.value
    )


def test_forward_without_backward_needs_no_reduction(single_process_group):
    model = DistributedDataParallel(_Heads(), process_group=single_process_group)
    model(_heads_data(0), use_b=False)
    model(_heads_data(0), use_b=True).sum().backward()
    assert model.module.b.weight.grad is not None


def test_device_ids_on_a_cpu_module_is_an_error(single_process_group):
    with pytest.raises(ValueError, match="device_ids"):
        DistributedDataParallel(nn.Linear(2, 2), device_ids=[0], process_group=single_process_group)


def test_a_module_without_trainable_parameters_is_an_error(single_process_group):
    with pytest.raises(RuntimeError, match="doesn't have any parameter that requires a gradient"):
        DistributedDataParallel(nn.ReLU(), process_group=single_process_group)


def test_without_a_process_group_construction_names_init_process_group():
    with pytest.raises(ValueError, match="init_process_group"):
        DistributedDataParallel(nn.Linear(2, 2))
