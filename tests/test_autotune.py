"""``mt.backends.autotune``: kernel choices measured once per key, remembered, reported, and
cached per machine on disk; off, the fixed rules' choices. The mechanism, never the timing:
measured times are stubbed where a test depends on which candidate wins."""

from __future__ import annotations

import json

import pytest
import torch
import torch.nn.functional as TF

import minitorch_rx as mt
from minitorch_rx.backends import tuner
from minitorch_rx.ops import linear as linear_ops
from tests.helpers import compare_with_torch


@pytest.fixture
def autotune(monkeypatch, tmp_path):
    """The tuner on, with no choices in memory and its cache file under ``tmp_path``."""
    monkeypatch.setenv("MINITORCH_RX_CACHE_DIR", str(tmp_path))
    tuner.clear()
    mt.backends.autotune = True
    yield tmp_path
    mt.backends.autotune = False
    tuner.clear()


def stub_times(monkeypatch, times):
    """Make every measurement report ``times`` (seconds per candidate) after running each once."""

    def measure(candidates, run):
        for name in candidates:
            run(name)
        return {name: times[name] for name in candidates}

    monkeypatch.setattr(tuner, "_measure", measure)


def test_a_choice_is_measured_once_then_remembered_and_reported(monkeypatch, autotune):
    stub_times(monkeypatch, {"a": 2.0, "b": 1.0})
    calls = []
    assert tuner.choose("demo", (3, "x"), ("a", "b"), "a", calls.append) == "b"
    assert calls == ["a", "b"]
    assert tuner.choose("demo", (3, "x"), ("a", "b"), "a", calls.append) == "b"
    assert calls == ["a", "b"]  # not measured again
    (choice,) = tuner.choices()
    assert (choice.kind, choice.key, choice.picked, choice.default, choice.source) == (
        "demo",
        (3, "x"),
        "b",
        "a",
        "measured",
    )
    assert choice.threads == torch.get_num_threads()
    report = mt.backends.autotune_report()
    assert "autotune on" in report and "demo (3, 'x')" in report and ": b (fixed rule: a" in report


def test_the_fixed_choice_stays_unless_another_is_clearly_faster(monkeypatch, autotune):
    stub_times(monkeypatch, {"a": 1.0, "b": 1.0 - tuner.MARGIN / 2})
    assert tuner.choose("demo", (1,), ("a", "b"), "a", lambda name: None) == "a"


def test_autotune_off_gives_the_fixed_choice_without_measuring(monkeypatch, autotune):
    mt.backends.autotune = False
    run = pytest.fail  # any measurement fails the test
    assert all(tuner.choose("demo", (1,), ("a", "b"), "a", run) == "a" for _ in range(3))
    assert tuner.choices() == []
    assert not any(autotune.iterdir())  # nothing written
    assert "autotune off" in mt.backends.autotune_report()


def test_the_flag_takes_bools_only():
    with pytest.raises(TypeError, match="must be a bool"):
        mt.backends.autotune = "yes"


def test_a_new_process_reads_the_choice_from_the_cache_file(monkeypatch, autotune):
    stub_times(monkeypatch, {"a": 2.0, "b": 1.0})
    tuner.choose("demo", ((1, 2), None, True), ("a", "b"), "a", lambda name: None)
    content = json.loads(tuner.cache_file().read_text())
    assert content["machine"] == tuner.machine()
    tuner.clear()  # as a fresh process: nothing in memory
    assert tuner.choose("demo", ((1, 2), None, True), ("a", "b"), "a", pytest.fail) == "b"
    assert tuner.choices()[0].source == "cache file"


@pytest.mark.parametrize(
    "content", ["{not json", "[1, 2]", '{"machine": "another CPU", "choices": {}}', "\x00\xff", '{"choices": 3}']
)
def test_a_corrupt_or_foreign_cache_file_is_ignored_and_replaced(monkeypatch, autotune, content):
    path = tuner.cache_file()
    path.write_bytes(content.encode("latin-1"))
    stub_times(monkeypatch, {"a": 2.0, "b": 1.0})
    calls = []
    assert tuner.choose("demo", (1,), ("a", "b"), "a", calls.append) == "b"
    assert calls == ["a", "b"]  # measured: the file gave nothing
    assert "('demo', (1,), " in next(iter(json.loads(path.read_text())["choices"]))


def test_a_malformed_entry_is_skipped_and_the_others_kept(monkeypatch, autotune):
    stub_times(monkeypatch, {"a": 2.0, "b": 1.0})
    tuner.choose("demo", (1,), ("a", "b"), "a", lambda name: None)
    path = tuner.cache_file()
    content = json.loads(path.read_text())
    content["choices"]["('demo', (2,), 1)"] = {"picked": "a"}  # no times
    content["choices"]["not a key"] = {}
    path.write_text(json.dumps(content))
    tuner.clear()
    assert tuner.choose("demo", (1,), ("a", "b"), "a", pytest.fail) == "b"
    assert [choice.key for choice in tuner.choices()] == [(1,)]


def test_an_unwritable_cache_folder_keeps_the_choice_in_memory(monkeypatch, autotune):
    blocker = autotune / "file"
    blocker.write_text("")
    monkeypatch.setenv("MINITORCH_RX_CACHE_DIR", str(blocker / "below"))
    stub_times(monkeypatch, {"a": 2.0, "b": 1.0})
    assert tuner.choose("demo", (1,), ("a", "b"), "a", lambda name: None) == "b"
    assert tuner.choose("demo", (1,), ("a", "b"), "a", pytest.fail) == "b"


@pytest.mark.parametrize("winner", linear_ops.PRODUCT_KERNELS)
def test_products_follow_the_measured_kernel_and_match_torch(monkeypatch, autotune, winner):
    if linear_ops.ONEDNN is None:
        pytest.skip("this torch build has no oneDNN")
    stub_times(monkeypatch, {name: 1.0 if name == winner else 2.0 for name in linear_ops.PRODUCT_KERNELS})
    x, w, b = torch.randn(64, 784), torch.randn(128, 784), torch.randn(128)
    assert linear_ops.uses_onednn(x, w, b) == (winner == "onednn")
    (choice,) = tuner.choices()
    assert choice.kind == "product" and choice.picked == winner
    torch.testing.assert_close(linear_ops.product(x, w, b), torch.addmm(b, x, w.t()), atol=1e-3, rtol=1e-4)


@pytest.mark.parametrize("winner", ["channels-first", "channels-last", "row-shifted"])
def test_convolutions_follow_the_measured_layout_and_match_torch(monkeypatch, autotune, winner):
    times = {"channels-first": 2.0, "channels-last": 2.0, "row-shifted": 2.0, winner: 1.0}
    stub_times(monkeypatch, {**times, **{str(chunk): 1.0 for chunk in (1 << 17, 1 << 18, 1 << 19, 1 << 20, 1 << 21)}})
    x, w, b = torch.randn(4, 16, 8, 8), torch.randn(8, 16, 3, 3), torch.randn(8)
    compare_with_torch(
        lambda x, w, b: mt.nn.functional.conv2d(x, w, b, padding=1),
        lambda x, w, b: TF.conv2d(x, w, b, padding=1),
        [x, w, b],
        atol=2e-4,
        rtol=1e-4,
    )
    layouts = [choice for choice in tuner.choices() if choice.kind == "conv layout"]
    assert layouts and all(choice.picked == winner for choice in layouts)
    assert {choice.key[-1] for choice in layouts} >= {(True, False)}  # the forward's, keyed apart from backward's
