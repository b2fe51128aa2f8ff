"""Long runs and scale (issue 6): memory stays flat over thousands of training steps, a failure
in the middle of a pass leaks nothing, deep and wide graphs back-propagate and are freed, and
threads train independent models at once.

Where memory is measured the cycle collector is off, so reference counting alone must free
everything. The long tests run shortened by default; ``pytest --runslow`` runs them at full
size (2,000 steps, 1,000 passes, a million nodes) and lists the figures they record.
"""

from __future__ import annotations

import gc
import os
import sys
import threading
import time

import pytest
import torch

import minitorch_rx as mt
import minitorch_rx.nn as nn
import minitorch_rx.nn.functional as F
from minitorch_rx.autograd.node import Node

RSS_TOLERANCE = 0.02


@pytest.fixture(autouse=True)
def one_intra_op_thread():
    """Tiny kernels on a busy two-core machine run up to 40x slower on torch's thread pool."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


@pytest.fixture
def no_cycle_collector():
    gc.collect()
    gc.disable()
    yield
    gc.enable()


def live_engine_objects() -> tuple[int, int]:
    """How many graph nodes and mt.Tensors exist (``type``, not ``isinstance``: some torch
    objects warn when their ``__class__`` is read)."""
    nodes = tensors = 0
    for obj in gc.get_objects():
        kind = type(obj)
        if issubclass(kind, Node):
            nodes += 1
        elif issubclass(kind, mt.Tensor):
            tensors += 1
    return nodes, tensors


def live_nodes() -> int:
    return live_engine_objects()[0]


def rss_bytes() -> int:
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


needs_proc = pytest.mark.skipif(not os.path.exists("/proc/self/statm"), reason="reads RSS from /proc")


def small_cnn() -> nn.Module:
    """Convolution, batch norm, pooling, dropout and a linear head: every kind of layer state."""
    return nn.Sequential(
        nn.Conv2d(1, 8, 3, padding=1),
        nn.BatchNorm2d(8),
        nn.ReLU(),
        nn.MaxPool2d(2),
        nn.Conv2d(8, 16, 3),
        nn.ReLU(),
        nn.AdaptiveAvgPool2d(1),
        nn.Flatten(),
        nn.Dropout(0.1),
        nn.Linear(16, 10),
    )


def batch(seed: int = 0) -> tuple[mt.Tensor, mt.Tensor]:
    generator = torch.Generator().manual_seed(seed)
    images = torch.randn(16, 1, 12, 12, generator=generator)
    labels = torch.randint(0, 10, (16,), generator=generator)
    return mt.from_torch(images), mt.from_torch(labels)


@needs_proc
def test_training_steps_keep_engine_objects_and_rss_flat(no_cycle_collector, full_size, record_property):
    steps = 2_000 if full_size else 200
    warmup = steps // 10
    mt.manual_seed(0)
    model = small_cnn()
    optimizer = mt.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    images, labels = batch()
    for step in range(steps):
        optimizer.zero_grad()
        loss = F.cross_entropy(model(images), labels)
        loss.backward()
        optimizer.step()
        if step + 1 == warmup:
            objects_warm, rss_warm = live_engine_objects(), rss_bytes()
    objects_end, rss_end = live_engine_objects(), rss_bytes()
    record_property("steps", steps)
    record_property("live nodes, tensors after warm-up / at the end", f"{objects_warm} / {objects_end}")
    record_property("RSS after warm-up / at the end (MiB)", f"{rss_warm / 2**20:.1f} / {rss_end / 2**20:.1f}")
    assert objects_end == objects_warm
    assert rss_end <= rss_warm * (1 + RSS_TOLERANCE)
    assert mt.autograd.current_graph().num_nodes() == 0


@needs_proc
def test_forward_passes_in_train_mode_without_backward_stay_flat(no_cycle_collector, full_size, record_property):
    passes = 1_000 if full_size else 100
    warmup = passes // 10
    model = small_cnn().train()
    images, _ = batch()
    for i in range(passes):
        model(images)
        if i + 1 == warmup:
            objects_warm, rss_warm = live_engine_objects(), rss_bytes()
    objects_end, rss_end = live_engine_objects(), rss_bytes()
    record_property("forward passes", passes)
    record_property("live nodes, tensors after warm-up / at the end", f"{objects_warm} / {objects_end}")
    record_property("RSS after warm-up / at the end (MiB)", f"{rss_warm / 2**20:.1f} / {rss_end / 2**20:.1f}")
    assert objects_end == objects_warm
    assert objects_end[0] == 0  # no node outlives its pass
    assert rss_end <= rss_warm * (1 + RSS_TOLERANCE)
    assert mt.autograd.current_graph().num_nodes() == 0


class FailingBackward(mt.autograd.Function):
    """Identity forward; a backward that raises, as a buggy user op would."""

    @staticmethod
    def forward(ctx, x):
        return x.clone()

    @staticmethod
    def backward(ctx, grad):
        raise ValueError("backward failed on purpose")


def raises(exception: type[BaseException], fn, *args) -> bool:
    """Call ``fn``; whether it raised ``exception``. The exception (and the frames its traceback
    keeps alive) is gone when this returns."""
    try:
        fn(*args)
    except exception:
        return True
    return False


def assert_repeats_leave_nothing(attempt, repeats: int = 20) -> None:
    """``attempt()`` (which must return True) run ``repeats`` times leaves fewer than ``repeats``
    new objects: a leak of even one object per run fails, while a stray object made by another
    thread of the test process (tqdm's monitor, say) does not."""
    assert attempt()  # warm-up: first-use caches
    before = len(gc.get_objects())
    for _ in range(repeats):
        assert attempt()
    assert len(gc.get_objects()) - before < repeats


def reference_gradients(model: nn.Module, images: mt.Tensor, labels: mt.Tensor) -> list[torch.Tensor]:
    model.zero_grad()
    F.cross_entropy(model(images), labels).backward()
    return [p.grad.torch().clone() for p in model.parameters()]


def test_exception_in_the_middle_of_a_forward_leaks_nothing_and_leaves_the_engine_usable(no_cycle_collector):
    mt.manual_seed(0)
    model = small_cnn().eval()
    broken = nn.Sequential(*list(model)[:4], nn.Flatten(), nn.Linear(999, 10))  # 8 * 6 * 6 = 288 features, not 999
    images, labels = batch()
    expected = reference_gradients(model, images, labels)
    assert_repeats_leave_nothing(lambda: raises(RuntimeError, broken, images))
    assert live_nodes() == 0
    assert mt.autograd.current_graph().num_nodes() == 0
    assert mt.is_grad_enabled()
    for got, want in zip(reference_gradients(model, images, labels), expected, strict=True):
        assert torch.equal(got, want)


def test_exception_in_the_middle_of_a_backward_leaks_nothing_and_leaves_the_engine_usable(no_cycle_collector):
    mt.manual_seed(0)
    model = small_cnn().eval()
    images, labels = batch()
    expected = reference_gradients(model, images, labels)
    model.zero_grad()

    def failing_step():
        F.cross_entropy(FailingBackward.apply(model(images)), labels).backward()

    assert_repeats_leave_nothing(lambda: raises(ValueError, failing_step))
    assert live_nodes() == 0
    assert mt.autograd.current_graph().num_nodes() == 0
    assert all(p.grad is None for p in model.parameters())  # the failure came before any of them
    assert mt.is_grad_enabled()
    for got, want in zip(reference_gradients(model, images, labels), expected, strict=True):
        assert torch.equal(got, want)


def test_backward_through_a_100k_op_chain_at_the_default_recursion_limit(no_cycle_collector, record_property):
    assert sys.getrecursionlimit() <= 1_000
    x = mt.tensor([1.0, 2.0], dtype=torch.float64, requires_grad=True)
    y = x
    for _ in range(50_000):
        y = y * 1.0001
        y = y - 0.0001
    started = time.perf_counter()
    y.sum().backward()
    record_property("backward seconds", f"{time.perf_counter() - started:.2f}")
    torch.testing.assert_close(x.grad.torch(), torch.full((2,), 1.0001**50_000, dtype=torch.float64), rtol=1e-9, atol=0)
    del y
    assert live_nodes() == 0


def tree_sum(terms: list[mt.Tensor]) -> mt.Tensor:
    """Pairwise sum: a graph as wide as ``terms`` and only log2(len(terms)) deep."""
    while len(terms) > 1:
        pairs = [terms[i] + terms[i + 1] for i in range(0, len(terms) - 1, 2)]
        if len(terms) % 2:
            pairs.append(terms[-1])
        terms = pairs
    return terms[0]


@needs_proc
def test_a_graph_of_a_million_nodes_back_propagates_and_is_freed(no_cycle_collector, full_size, record_property):
    nodes = 1_000_000 if full_size else 100_000
    weights = [float(k % 7 + 1) for k in range(nodes // 2)]
    x = mt.tensor([1.0, 2.0], dtype=torch.float64, requires_grad=True)
    started, rss_before = time.perf_counter(), rss_bytes()
    with mt.Graph() as graph:
        total = tree_sum([x * w for w in weights]).sum()
    recorded, recorded_at, rss_recorded = graph.num_nodes(), time.perf_counter(), rss_bytes()
    total.backward()
    record_property("recorded graph nodes", recorded)
    seconds = f"{recorded_at - started:.1f} / {time.perf_counter() - recorded_at:.1f}"
    record_property("seconds to record / to back-propagate", seconds)
    record_property("RSS growth while recorded (MiB)", f"{(rss_recorded - rss_before) / 2**20:.0f}")
    assert recorded >= nodes
    assert x.grad.tolist() == [sum(weights)] * 2  # integers below 2**53: exact in float64
    assert graph.num_nodes() == 0
    del total
    assert live_nodes() == 0


def mlp(seed: int, width: int) -> nn.Module:
    mt.manual_seed(seed)
    return nn.Sequential(nn.Linear(12, width), nn.Tanh(), nn.Linear(width, 3))


def train(model: nn.Module, seed: int, steps: int, graphs: list | None = None) -> list[list[torch.Tensor]]:
    """``steps`` SGD steps on fixed data; every step's gradients, copied."""
    generator = torch.Generator().manual_seed(seed)
    inputs = mt.from_torch(torch.randn(32, 12, generator=generator))
    targets = mt.from_torch(torch.randint(0, 3, (32,), generator=generator))
    optimizer = mt.optim.SGD(model.parameters(), lr=0.1)
    history = []
    for _ in range(steps):
        optimizer.zero_grad()
        F.cross_entropy(model(inputs), targets).backward()
        history.append([p.grad.torch().clone() for p in model.parameters()])
        optimizer.step()
    if graphs is not None:
        graphs.append(mt.autograd.current_graph())
    return history


def test_two_threads_training_two_models_at_once_get_correct_independent_gradients(full_size):
    steps = 300 if full_size else 60
    expected = [train(mlp(seed, width), seed, steps) for seed, width in ((1, 16), (2, 24))]
    models = [mlp(1, 16), mlp(2, 24)]
    results: list = [None, None]
    spans: list = [None, None]
    graphs: list = []
    start = threading.Barrier(2)

    def worker(i: int) -> None:
        start.wait()
        began = time.perf_counter()
        results[i] = train(models[i], i + 1, steps, graphs)
        spans[i] = (began, time.perf_counter())

    switch_interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # switch threads as often as possible: the ops interleave
    try:
        threads = [threading.Thread(target=worker, args=(i,)) for i in range(2)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    finally:
        sys.setswitchinterval(switch_interval)
    for got, want in zip(results, expected, strict=True):
        assert got is not None, "a training thread failed"
        for got_step, want_step in zip(got, want, strict=True):
            assert all(torch.equal(g, w) for g, w in zip(got_step, want_step, strict=True))
    assert spans[0][0] < spans[1][1] and spans[1][0] < spans[0][1]  # the trainings overlapped
    assert graphs[0] is not graphs[1]  # each thread records into its own default graph
    assert graphs[0].num_nodes() == graphs[1].num_nodes() == 0


def test_no_grad_in_one_thread_leaves_recording_on_in_another():
    entered, checked = threading.Event(), threading.Event()

    def quiet() -> None:
        with mt.no_grad():
            entered.set()
            checked.wait(timeout=10)

    thread = threading.Thread(target=quiet)
    thread.start()
    try:
        assert entered.wait(timeout=10)
        y = mt.ones(2, requires_grad=True) * 2
        assert y.requires_grad and y.grad_fn is not None
    finally:
        checked.set()
        thread.join()
