"""Data-parallel training throughput: LeNet-5 images/s in 1 and 2 processes on this machine.

Each process trains LeNet-5 with SGD (momentum 0.9) on ``--batch-size`` random 1x28x28 images
per step; several processes train one model through ``DistributedDataParallel`` over gloo on the
loopback interface. After ``--warmup`` steps, ``--steps`` steps are timed (wall clock, between
two barriers): images/s = processes x batch x steps / seconds. Images per CPU-second (the
processes' CPU time summed) leaves out the waiting for a CPU on a shared machine: it shows what
data parallelism costs in work, while images/s shows what it gains in time. The same runs with
torch.nn's LeNet-5 and torch's own DistributedDataParallel give the reference. Setups take
turns over ``--rounds`` rounds (a busy neighbour slows all alike); the figures are medians.

    python bench/ddp.py [--steps 40] [--batch-size 64] [--rounds 3]
"""

from __future__ import annotations

import argparse
import os
import socket
import statistics
import time
from collections.abc import Callable

import torch
import torch.distributed as dist
import torch.multiprocessing as mp


def _minitorch_step(batch: int, world: int) -> Callable[[], None]:
    import minitorch_rx as mt
    import minitorch_rx.nn.functional as F

    mt.manual_seed(0)
    model = mt.models.lenet5()
    net = mt.nn.parallel.DistributedDataParallel(model) if world > 1 else model
    optimizer = mt.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    images, labels = mt.randn(batch, 1, 28, 28), mt.randint(0, 10, (batch,))

    def step() -> None:
        optimizer.zero_grad()
        F.cross_entropy(net(images), labels).backward()
        optimizer.step()

    return step


def _torch_step(batch: int, world: int) -> Callable[[], None]:
    from torch import nn

    torch.manual_seed(0)
    model = nn.Sequential(
        nn.Conv2d(1, 6, 5, padding=2), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(6, 16, 5), nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(),
        nn.Linear(400, 120), nn.ReLU(), nn.Linear(120, 84), nn.ReLU(), nn.Linear(84, 10),
    )  # fmt: skip
    net = nn.parallel.DistributedDataParallel(model) if world > 1 else model
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    images, labels = torch.randn(batch, 1, 28, 28), torch.randint(0, 10, (batch,))

    def step() -> None:
        optimizer.zero_grad()
        nn.functional.cross_entropy(net(images), labels).backward()
        optimizer.step()

    return step


STEPS = {"minitorch_rx": _minitorch_step, "torch": _torch_step}


def _worker(rank: int, world: int, port: int, engine: str, threads: int, args: argparse.Namespace, results) -> None:
    torch.set_num_threads(threads)
    if world > 1:
        dist.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{port}", rank=rank, world_size=world)
    step = STEPS[engine](args.batch_size, world)
    for _ in range(args.warmup):
        step()
    if world > 1:
        dist.barrier()
    wall, cpu = time.perf_counter(), time.process_time()
    for _ in range(args.steps):
        step()
    if world > 1:
        dist.barrier()
    results.put((time.perf_counter() - wall, time.process_time() - cpu))
    if world > 1:
        dist.destroy_process_group()


def throughput(engine: str, world: int, threads: int, args: argparse.Namespace) -> tuple[float, float]:
    """(images/s, images per CPU-second of all processes) of ``world`` processes with
    ``threads`` threads each."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    results = mp.get_context("spawn").SimpleQueue()
    mp.spawn(_worker, args=(world, port, engine, threads, args, results), nprocs=world)
    walls, cpus = zip(*(results.get() for _ in range(world)), strict=True)
    images = world * args.batch_size * args.steps
    return images / max(walls), images / sum(cpus)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--steps", type=int, default=40)
    parser.add_argument("--warmup", type=int, default=5)
    parser.add_argument("--batch-size", type=int, default=64, help="images per process and step")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    cores = len(os.sched_getaffinity(0))
    setups = {
        "1 process, 1 thread": (1, 1),
        f"1 process, {cores} threads": (1, cores),
        "2 processes (DDP), 1 thread each": (2, 1),
    }
    load_before = os.getloadavg()[0]
    samples: dict[tuple[str, str], list[tuple[float, float]]] = {}
    for _ in range(args.rounds):
        for name, (world, threads) in setups.items():
            for engine in STEPS:
                samples.setdefault((name, engine), []).append(throughput(engine, world, threads, args))
    median = {
        key: tuple(statistics.median(column) for column in zip(*values, strict=True)) for key, values in samples.items()
    }
    load_after = os.getloadavg()[0]
    print(f"\nLeNet-5 training, {args.batch_size} images per process and step, {cores} CPU cores, ", end="")
    print(f"median of {args.rounds} rounds; 1-minute load average {load_before:.1f} before, {load_after:.1f} after")
    print(f"{'':<34}{'images/s (wall clock)':>28}{'images per CPU-second':>28}")
    print(f"{'setup':<34}" + f"{'minitorch_rx':>14}{'torch':>14}" * 2)
    for name in setups:
        (ours, ours_cpu), (theirs, theirs_cpu) = median[(name, "minitorch_rx")], median[(name, "torch")]
        print(f"{name:<34}{ours:>14.0f}{theirs:>14.0f}{ours_cpu:>14.0f}{theirs_cpu:>14.0f}")
    single = median[("1 process, 1 thread", "minitorch_rx")][0]
    double = median[("2 processes (DDP), 1 thread each", "minitorch_rx")][0]
    print(f"minitorch_rx, 2 processes / 1 process: {double / single:.2f}x images/s")


if __name__ == "__main__":
    main()
