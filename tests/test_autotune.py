"""``mt.backends.autotune``: kernel choices tried on the first calls of each key, remembered,
reported, and cached per machine on disk; off, the fixed rules' choices. The mechanism, never the
timing: a fake clock gives each candidate its cost where a test depends on which one wins."""

from __future__ import annotations

import json

import pytest
import torch
import torch.nn.functional as TF

import minitorch_rx as mt
from minitorch_rx.backends import tuner
from minitorch_rx.ops import correlation
from minitorch_rx.ops import linear as linear_ops


class FakeClock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock(monkeypatch, tmp_path):
    """The tuner on, with no choices in memory, its cache file under ``tmp_path`` and a fake clock."""
    monkeypatch.setenv("MINITORCH_RX_CACHE_DIR", str(tmp_path))
    tuner.clear()
    fake = FakeClock()
    monkeypatch.setattr(tuner, "_clock", fake)
    mt.backends.autotune = True
    yield fake
    mt.backends.autotune = False
    tuner.clear()


def costing(clock, costs, calls):
    """A ``compute`` that notes the candidate, takes its cost on the clock, and returns its name."""

    def compute(name):
        calls.append(name)
        clock.now += costs[name]
        return name

    return compute


def settle(key, candidates, default, compute, kind="demo"):
    """Run ``key`` until its choice is made; the results of the calls."""
    results = []
    while tuner.decided(kind, key) is None:
        results.append(tuner.run(kind, key, candidates, default, compute))
        assert len(results) <= 2 * (tuner.ROUNDS + 1) * len(candidates)
    return results


def test_the_first_calls_try_each_candidate_then_the_fastest_is_kept_and_reported(clock):
    calls = []
    compute = costing(clock, {"a": 2.0, "b": 1.0}, calls)
    results = settle((3, "x"), ("a", "b"), "a", compute)
    assert results == calls and sorted(calls) == sorted(["a", "b"] * (tuner.ROUNDS + 1))  # each call once
    assert tuner.run("demo", (3, "x"), ("a", "b"), "a", compute) == "b"
    assert tuner.pending() == 0
    (choice,) = tuner.choices()
    assert (choice.kind, choice.key, choice.picked, choice.default, choice.source) == (
        "demo",
        (3, "x"),
        "b",
        "a",
        "measured",
    )
    assert choice.threads == torch.get_num_threads() and choice.times == {"a": 2.0, "b": 1.0}
    report = mt.backends.autotune_report()
    assert "autotune on" in report and "demo (3, 'x')" in report and ": b (fixed rule: a" in report


def test_the_fixed_choice_stays_unless_another_is_clearly_faster(clock):
    settle((1,), ("a", "b"), "a", costing(clock, {"a": 1.0, "b": 1.0 - tuner.MARGIN / 2}, []))
    assert tuner.decided("demo", (1,)) == "a"


def test_of_near_equal_slice_sizes_the_one_needing_least_memory_is_kept(clock):
    assert tuner.MEMORY_COST["conv slice"] is int  # registered by ops/correlation.py
    near = 1.0 + tuner.MARGIN / 2
    costs = {"524288": 1.2, "262144": near, "1048576": 1.0}  # the largest is fastest, by less than the margin
    settle((2,), tuple(costs), "524288", costing(clock, costs, []), kind="conv slice")
    assert tuner.decided("conv slice", (2,)) == "262144"
    costs = {"524288": 1.2, "262144": 1.0 + 2 * tuner.MARGIN, "1048576": 1.0}  # clearly slower: speed wins
    settle((3,), tuple(costs), "524288", costing(clock, costs, []), kind="conv slice")
    assert tuner.decided("conv slice", (3,)) == "1048576"


def test_autotune_off_gives_the_fixed_choice_and_tries_nothing(clock, tmp_path):
    mt.backends.autotune = False
    calls = []
    compute = costing(clock, {"a": 2.0, "b": 1.0}, calls)
    assert [tuner.run("demo", (1,), ("a", "b"), "a", compute) for _ in range(20)] == ["a"] * 20
    assert tuner.choices() == [] and tuner.pending() == 0
    assert not any(tmp_path.iterdir())  # nothing written
    assert "autotune off" in mt.backends.autotune_report()


def test_the_flag_takes_bools_only():
    with pytest.raises(TypeError, match="must be a bool"):
        mt.backends.autotune = "yes"


def test_a_new_process_reads_the_choice_from_the_cache_file(clock):
    settle(((1, 2), None, True), ("a", "b"), "a", costing(clock, {"a": 2.0, "b": 1.0}, []))
    content = json.loads(tuner.cache_file().read_text())
    assert content["machine"] == tuner.machine()
    tuner.clear()  # as a fresh process: nothing in memory
    assert "demo ((1, 2), None, True)" in mt.backends.autotune_report()  # the file's choices are listed
    calls = []
    assert tuner.run("demo", ((1, 2), None, True), ("a", "b"), "a", costing(clock, {"a": 2.0, "b": 1.0}, calls)) == "b"
    assert calls == ["b"] and tuner.choices()[0].source == "cache file"


@pytest.mark.parametrize(
    "content", ["{not json", "[1, 2]", '{"machine": "another CPU", "choices": {}}', "\x00\xff", '{"choices": 3}']
)
def test_a_corrupt_or_foreign_cache_file_is_ignored_and_replaced(clock, content):
    path = tuner.cache_file()
    path.write_bytes(content.encode("latin-1"))
    calls = []
    settle((1,), ("a", "b"), "a", costing(clock, {"a": 2.0, "b": 1.0}, calls))
    assert len(calls) == 2 * (tuner.ROUNDS + 1)  # tried: the file gave nothing
    assert tuner.decided("demo", (1,)) == "b"
    assert "('demo', (1,), " in next(iter(json.loads(path.read_text())["choices"]))


def test_a_malformed_entry_is_skipped_and_the_others_kept(clock):
    settle((1,), ("a", "b"), "a", costing(clock, {"a": 2.0, "b": 1.0}, []))
    path = tuner.cache_file()
    content = json.loads(path.read_text())
    content["choices"]["('demo', (2,), 1)"] = {"picked": "a"}  # no times
    content["choices"]["not a key"] = {}
    path.write_text(json.dumps(content))
    tuner.clear()
    assert tuner.decided("demo", (1,)) == "b"
    assert [choice.key for choice in tuner.choices()] == [(1,)]


def test_an_unwritable_cache_folder_keeps_the_choice_in_memory(monkeypatch, clock, tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("")
    monkeypatch.setenv("MINITORCH_RX_CACHE_DIR", str(blocker / "below"))
    settle((1,), ("a", "b"), "a", costing(clock, {"a": 2.0, "b": 1.0}, []))
    assert tuner.decided("demo", (1,)) == "b"


@pytest.mark.parametrize("winner", linear_ops.PRODUCT_KERNELS)
def test_products_follow_the_faster_kernel_and_match_torch_throughout(monkeypatch, clock, winner):
    if linear_ops.ONEDNN is None:
        pytest.skip("this torch build has no oneDNN")
    real = linear_ops._product

    def product(kernel, *args):
        clock.now += 1.0 if kernel == winner else 2.0
        return real(kernel, *args)

    monkeypatch.setattr(linear_ops, "_product", product)
    x, w, b = torch.randn(64, 784), torch.randn(128, 784), torch.randn(128)
    for _ in range(2 * (tuner.ROUNDS + 1) + 1):
        torch.testing.assert_close(linear_ops.product(x, w.t(), b), torch.addmm(b, x, w.t()), atol=1e-3, rtol=1e-4)
    (choice,) = tuner.choices()
    assert choice.kind == "product" and choice.picked == winner and tuner.pending() == 0


@pytest.mark.parametrize("winner", ["channels-first", "channels-last", "row-shifted"])
def test_convolutions_follow_the_faster_layout_and_match_torch_throughout(monkeypatch, clock, winner):
    real = correlation._Correlation._run

    def run(self, layout, *args):
        clock.now += 1.0 if layout == winner else 2.0
        return real(self, layout, *args)

    monkeypatch.setattr(correlation._Correlation, "_run", run)
    x, w, b = torch.randn(4, 16, 8, 8), torch.randn(8, 16, 3, 3), torch.randn(8)
    expected = TF.conv2d(x, w, b, padding=1)
    for _ in range(4 * 2 * (tuner.ROUNDS + 1)):
        out = mt.nn.functional.conv2d(mt.from_torch(x), mt.from_torch(w), mt.from_torch(b), padding=1)
        torch.testing.assert_close(out.torch(), expected, atol=2e-4, rtol=1e-4)
    (layout,) = [choice for choice in tuner.choices() if choice.kind == "conv layout"]
    assert layout.picked == winner and layout.key[-1] == (True, False)  # the forward's: keyed apart from backward's
    assert tuner.pending() == 0


def test_threads_sharing_a_trial_each_get_a_result_and_one_choice_is_made(clock):
    import threading

    results, errors = [], []

    def work():
        try:
            for _ in range(20):
                results.append(tuner.run("demo", (7,), ("a", "b"), "a", lambda name: name))
        except Exception as error:  # noqa: BLE001 (any error fails the test below)
            errors.append(error)

    workers = [threading.Thread(target=work) for _ in range(4)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    assert not errors and len(results) == 80 and set(results) <= {"a", "b"}
    assert [choice.key for choice in tuner.choices()] == [(7,)] and tuner.pending() == 0
