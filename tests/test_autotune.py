"""``mt.backends.autotune``: kernel choices tried on the first calls of each key, remembered,
reported, and cached per machine on disk; off, the fixed rules' choices. The mechanism, never the
timing: a fake clock gives each candidate its cost where a test depends on which one wins."""

from __future__ import annotations

import json
import time

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


def costing(clock, costs, calls, results=None):
    """A trial that notes the candidate, takes its cost on the clock, and returns its result
    (``results[name]``, by default one tensor for all: the candidates agree bit for bit)."""
    same = torch.arange(3.0)

    def trial(name):
        calls.append(name)
        clock.now += costs[name]
        return same if results is None else results[name]

    return trial


def test_the_first_call_times_each_candidate_then_the_fastest_is_kept_and_reported(clock):
    calls = []
    trial = costing(clock, {"a": 2.0, "b": 1.0}, calls)
    assert tuner.choose("demo", (3, "x"), ("a", "b"), "a", trial) == "b"  # decided before the caller computes
    assert calls == ["a", "b"] + ["a", "b", "b", "a", "a", "b"][: 2 * tuner.ROUNDS]  # a warm-up round, then timed
    assert tuner.choose("demo", (3, "x"), ("a", "b"), "a", trial) == "b" and len(calls) == 2 * (tuner.ROUNDS + 1)
    (choice,) = tuner.choices()
    assert (choice.kind, choice.key, choice.picked, choice.exact, choice.default, choice.source) == (
        "demo",
        (3, "x"),
        "b",
        "b",
        "a",
        "measured",
    )
    assert choice.threads == torch.get_num_threads() and choice.times == {"a": 2.0, "b": 1.0}
    report = mt.backends.autotune_report()
    assert "autotune on" in report and "demo (3, 'x')" in report and ": b (fixed rule: a" in report


def test_a_candidate_whose_results_differ_from_the_fixed_rules_is_kept_only_when_asked_for(clock):
    results = {"a": torch.tensor([1.0, 0.0]), "b": torch.tensor([1.0, -0.0])}  # -0.0: other bits
    assert tuner.choose("demo", (1,), ("a", "b"), "a", costing(clock, {"a": 2.0, "b": 1.0}, [], results)) == "a"
    (choice,) = tuner.choices()
    assert (choice.picked, choice.exact, choice.differs) == ("b", "a", ("b",))
    assert "results differ from the fixed rule's: b" in mt.backends.autotune_report()
    mt.backends.autotune_bitwise = False
    try:
        assert tuner.choose("demo", (1,), ("a", "b"), "a", costing(clock, {}, [])) == "b"  # the same measurement
    finally:
        mt.backends.autotune_bitwise = True


def test_results_too_plain_to_tell_the_order_of_operations_count_as_differing(clock):
    zeros = torch.zeros(4)  # what any order of sums gives for zero operands
    trial = costing(clock, {"a": 2.0, "b": 1.0}, [], {"a": zeros, "b": zeros.clone()})
    assert tuner.choose("demo", (1,), ("a", "b"), "a", trial) == "a"
    assert tuner.choices()[0].differs == ("b",)


def test_the_fixed_choice_stays_unless_another_is_clearly_faster(clock):
    tuner.choose("demo", (1,), ("a", "b"), "a", costing(clock, {"a": 1.0, "b": 1.0 - tuner.MARGIN / 2}, []))
    assert tuner.decided("demo", (1,)) == "a"


def test_of_near_equal_slice_sizes_the_one_needing_least_memory_is_kept(clock):
    assert tuner.MEMORY_COST["conv slice"] is int  # registered by ops/correlation.py
    near = 1.0 + tuner.MARGIN / 2
    costs = {"524288": 1.2, "262144": near, "1048576": 1.0}  # the largest is fastest, by less than the margin
    assert tuner.choose("conv slice", (2,), tuple(costs), "524288", costing(clock, costs, [])) == "262144"
    costs = {"524288": 1.2, "262144": 1.0 + 2 * tuner.MARGIN, "1048576": 1.0}  # clearly slower: speed wins
    assert tuner.choose("conv slice", (3,), tuple(costs), "524288", costing(clock, costs, [])) == "1048576"


def test_autotune_off_gives_the_fixed_choice_and_tries_nothing(clock, tmp_path):
    mt.backends.autotune = False
    calls = []
    trial = costing(clock, {"a": 2.0, "b": 1.0}, calls)
    assert [tuner.choose("demo", (1,), ("a", "b"), "a", trial) for _ in range(20)] == ["a"] * 20
    assert tuner.choices() == [] and calls == []
    assert not any(tmp_path.iterdir())  # nothing written
    assert "autotune off" in mt.backends.autotune_report()


@pytest.mark.parametrize("flag", ["use_deterministic_algorithms", "cudnn.deterministic"])
def test_deterministic_algorithms_ask_for_the_fixed_choice_as_in_pytorch(clock, flag):
    trial = costing(clock, {"a": 2.0, "b": 1.0}, [])
    assert tuner.choose("demo", (1,), ("a", "b"), "a", trial) == "b"
    if flag == "cudnn.deterministic":
        assert mt.backends.cudnn is torch.backends.cudnn
        set_flag = lambda value: setattr(mt.backends.cudnn, "deterministic", value)  # noqa: E731
    else:
        assert mt.use_deterministic_algorithms is torch.use_deterministic_algorithms
        set_flag = torch._C._set_deterministic_algorithms  # the flag it sets (it also imports inductor: 7 s)
    set_flag(True)
    try:
        assert tuner.choose("demo", (1,), ("a", "b"), "a", trial) == "a" and tuner.decided("demo", (1,)) is None
        assert tuner.choose("demo", (2,), ("a", "b"), "a", trial) == "a"  # nothing measured
        assert len(tuner.choices()) == 1 and "while deterministic algorithms" in mt.backends.autotune_report()
        if flag == "use_deterministic_algorithms":
            assert mt.are_deterministic_algorithms_enabled()
            assert torch.isnan(mt.empty(3).torch()).all()  # torch's own effect of the flag holds for ours
    finally:
        set_flag(False)
    assert tuner.decided("demo", (1,)) == "b"


def test_the_flags_take_bools_only():
    with pytest.raises(TypeError, match="autotune must be a bool"):
        mt.backends.autotune = "yes"
    with pytest.raises(TypeError, match="autotune_bitwise must be a bool"):
        mt.backends.autotune_bitwise = 1


def test_a_new_process_reads_the_choice_from_the_cache_file_once_and_writes_nothing(monkeypatch, clock):
    tuner.choose("demo", ((1, 2), None, True), ("a", "b"), "a", costing(clock, {"a": 2.0, "b": 1.0}, []))
    path = tuner.cache_file()
    content = json.loads(path.read_text())
    assert content["machine"] == tuner.machine()
    assert content["choices"][0]["key"] == [[1, 2], None, True]  # JSON throughout, no Python literals
    written = path.stat().st_mtime_ns, path.read_bytes()
    tuner.clear()  # as a fresh process: nothing in memory
    reads = []
    real_read = tuner._read
    monkeypatch.setattr(tuner, "_read", lambda path: reads.append(path) or real_read(path))
    assert "demo ((1, 2), None, True)" in mt.backends.autotune_report()  # the file's choices are listed
    calls = []
    for _ in range(5):
        trial = costing(clock, {"a": 2.0, "b": 1.0}, calls)
        assert tuner.choose("demo", ((1, 2), None, True), ("a", "b"), "a", trial) == "b"
        assert tuner.decided("demo", ((1, 2), None, True)) == "b"
    assert calls == [] and tuner.choices()[0].source == "cache file" and len(reads) == 1
    assert (path.stat().st_mtime_ns, path.read_bytes()) == written


def test_a_choice_another_process_wrote_meanwhile_is_adopted(clock):
    tuner.choose("demo", (1,), ("a", "b"), "a", costing(clock, {"a": 2.0, "b": 1.0}, []))
    tuner.clear()
    assert tuner.decided("demo", (5,)) is None  # this process has read the file
    other = tuner.Choice("demo", (5,), torch.get_num_threads(), "b", "b", "a", {"a": 2.0, "b": 1.0}, (), "measured")
    tuner._share(other)  # as another process, after this one read the file
    # this process measures "a" faster, but computes as the other process did
    assert tuner.choose("demo", (5,), ("a", "b"), "a", costing(clock, {"a": 1.0, "b": 2.0}, [])) == "b"
    assert tuner.choices()[-1].source == "cache file"


@pytest.mark.parametrize(
    "content", ["{not json", "[1, 2]", '{"machine": "another CPU", "choices": []}', "\x00\xff", '{"choices": 3}']
)
def test_a_corrupt_or_foreign_cache_file_is_ignored_and_replaced(clock, content):
    path = tuner.cache_file()
    path.write_bytes(content.encode("latin-1"))
    calls = []
    assert tuner.choose("demo", (1,), ("a", "b"), "a", costing(clock, {"a": 2.0, "b": 1.0}, calls)) == "b"
    assert len(calls) == 2 * (tuner.ROUNDS + 1)  # tried: the file gave nothing
    assert json.loads(path.read_text())["choices"][0]["key"] == [1]


def test_a_malformed_entry_is_skipped_and_the_others_kept(clock):
    tuner.choose("demo", (1,), ("a", "b"), "a", costing(clock, {"a": 2.0, "b": 1.0}, []))
    path = tuner.cache_file()
    content = json.loads(path.read_text())
    content["choices"] += [{**content["choices"][0], "key": [2], "times": []}, {"kind": "demo"}, 3, None]
    content["choices"].append({**content["choices"][0], "key": [4], "picked": "z"})  # not a candidate timed
    path.write_text(json.dumps(content))
    tuner.clear()
    assert tuner.decided("demo", (1,)) == "b"
    assert [choice.key for choice in tuner.choices()] == [(1,)]


def test_a_new_choice_removes_the_temporaries_of_killed_cache_writers(clock):
    path = tuner.cache_file()
    path.parent.mkdir(parents=True, exist_ok=True)
    stale = path.parent / f"{path.name}k1ll3d.tmp"
    other = path.parent / "notes.tmp"
    stale.write_text("{")
    other.write_text("")
    tuner.choose("demo", (1,), ("a", "b"), "a", costing(clock, {"a": 2.0, "b": 1.0}, []))
    assert not stale.exists() and other.exists()
    assert sorted(p.name for p in path.parent.iterdir()) == sorted(
        [path.name, path.with_suffix(".lock").name, "notes.tmp"]
    )


def test_an_unwritable_cache_folder_keeps_the_choice_in_memory(monkeypatch, clock, tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("")
    monkeypatch.setenv("MINITORCH_RX_CACHE_DIR", str(blocker / "below"))
    tuner.choose("demo", (1,), ("a", "b"), "a", costing(clock, {"a": 2.0, "b": 1.0}, []))
    assert tuner.decided("demo", (1,)) == "b"


@pytest.fixture(params=[True, False], ids=["bitwise", "any-bits"])
def bitwise(request, monkeypatch):
    """``mt.backends.autotune_bitwise`` on (the default) or off for one test."""
    monkeypatch.setattr(mt.backends, "autotune_bitwise", request.param)
    return request.param


@pytest.mark.parametrize("winner", linear_ops.PRODUCT_KERNELS)
def test_every_product_of_a_key_is_the_chosen_kernels_from_the_first_call(monkeypatch, clock, winner, bitwise):
    if linear_ops.ONEDNN is None:
        pytest.skip("this torch build has no oneDNN")
    real = linear_ops._product

    def product(kernel, *args):
        clock.now += 1.0 if kernel == winner else 2.0
        return real(kernel, *args)

    monkeypatch.setattr(linear_ops, "_product", product)
    x, w, b = torch.randn(64, 784), torch.randn(128, 784), torch.randn(128)  # 784 terms: the kernels' sums differ
    results = [linear_ops.product(x, w.t(), b) for _ in range(3)]
    (choice,) = tuner.choices()
    assert choice.kind == "product" and choice.picked == winner and choice.differs == ("mkl",)
    in_force = choice.exact if bitwise else choice.picked
    assert in_force == ("onednn" if bitwise else winner)  # bitwise: the fixed rule's oneDNN
    for result in results:  # the first call's too: the trials ran before it, on throwaway outputs
        assert torch.equal(result, real(in_force, x, w.t(), b))
    torch.testing.assert_close(results[0], torch.addmm(b, x, w.t()), atol=1e-3, rtol=1e-4)


def convolution_steps(x, w, b, steps=3):
    """``steps`` forward and backward passes of one convolution: output and gradients of each."""
    results = []
    for _ in range(steps):
        inputs = [mt.from_torch(t.clone()).requires_grad_() for t in (x, w, b)]
        out = mt.nn.functional.conv2d(*inputs, padding=1)
        out.backward(mt.from_torch(torch.ones(out.shape)))
        results.append([out.torch(), *(t.grad.torch() for t in inputs)])
    return results


@pytest.mark.parametrize("winner", ["channels-first", "channels-last", "row-shifted"])
def test_every_convolution_of_a_key_computes_alike_from_the_first_call(monkeypatch, clock, winner, bitwise):
    real = correlation._Correlation._run

    def run(self, layout, *args):
        clock.now += 1.0 if layout == winner else 2.0
        return real(self, layout, *args)

    monkeypatch.setattr(correlation._Correlation, "_run", run)
    x, w, b = torch.randn(4, 16, 8, 8), torch.randn(8, 16, 3, 3), torch.randn(8)
    first = convolution_steps(x, w, b)
    layouts = [choice for choice in tuner.choices() if choice.kind == "conv layout"]
    forward = next(choice for choice in layouts if choice.key[-1] == (True, False))  # keyed apart from backward's
    assert forward.picked == winner
    tuner.clear()  # as a new process that reads the choices from the cache file
    later = convolution_steps(x, w, b, steps=1)
    mt.backends.autotune = False
    fixed = convolution_steps(x, w, b, steps=1)
    for step in [*first, *later]:  # every call alike, the first included, measured or read from the file
        assert all(map(torch.equal, step, first[0]))
    assert all(map(torch.equal, first[0], fixed[0])) or not bitwise  # bitwise: the fixed rules' very results
    expected = TF.conv2d(x, w, b, padding=1)
    torch.testing.assert_close(first[0][0], expected, atol=2e-4, rtol=1e-4)


def test_threads_wait_for_a_choice_being_made_and_all_compute_with_it(clock):
    import threading

    results, errors, trials = [], [], []
    started = threading.Event()

    def trial(name):
        trials.append(name)
        started.set()
        time.sleep(0.002)  # (other threads call meanwhile)
        clock.now += {"a": 2.0, "b": 1.0}[name]  # (the fake clock is shared: "b" wins on every count)
        return torch.arange(2.0)

    def work():
        try:
            started.wait()
            results.extend(tuner.choose("demo", (7,), ("a", "b"), "a", trial) for _ in range(20))
        except Exception as error:  # noqa: BLE001 (any error fails the test below)
            errors.append(error)

    workers = [threading.Thread(target=work) for _ in range(4)]
    for worker in workers:
        worker.start()
    results.append(tuner.choose("demo", (7,), ("a", "b"), "a", trial))
    for worker in workers:
        worker.join()
    assert not errors and results == ["b"] * 81  # never the fixed rule's "a" while "b" was being chosen
    assert len(trials) == 2 * (tuner.ROUNDS + 1) and [choice.key for choice in tuner.choices()] == [(7,)]


def build_train_and_drop():
    model = mt.models.lenet5()
    optimizer = mt.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    scheduler = mt.optim.lr_scheduler.StepLR(optimizer, 1)
    model(mt.randn(4, 1, 28, 28)).sum().backward()
    optimizer.step()
    scheduler.step()


def test_models_optimizers_and_schedulers_leave_no_cyclic_garbage_with_the_tuner_on(monkeypatch, tmp_path):
    """Issue 37: reading the cache file with ``ast.literal_eval`` and writing it with an indented
    ``json.dump`` left closures in cycles (about 2,000 cells and functions per 30 builds)."""
    import gc

    monkeypatch.setenv("MINITORCH_RX_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(mt.backends, "autotune", True)
    tuner.clear()
    gc.collect()
    gc.disable()
    gc.set_debug(gc.DEBUG_SAVEALL)  # what the collector finds goes to gc.garbage
    try:
        for number in range(30):
            if number == 15:
                tuner.clear()  # as a new process: the choices read from the file the first builds wrote
            build_train_and_drop()
        gc.collect()
        garbage = [type(thing).__qualname__ for thing in gc.garbage]
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
        gc.enable()
        tuner.clear()
    assert any(tmp_path.glob("autotune-*.json"))  # the tuner measured and wrote, and read back
    assert garbage == []
