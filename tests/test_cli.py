"""The minitorch-rx command line on tiny runs."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

import minitorch_rx as mt
from minitorch_rx.cli import main, training
from minitorch_rx.serialization import save

TINY = ["--limit", "512", "--batch-size", "64", "--quiet"]


def test_train_writes_checkpoint_metrics_and_plot(tmp_path, capsys):
    assert main(["train", "--epochs", "1", "--out", str(tmp_path), *TINY]) == 0
    assert {"checkpoint.pt", "metrics.json", "metrics.png", "grad_flow.png"} <= {p.name for p in tmp_path.iterdir()}
    metrics = json.loads((tmp_path / "metrics.json").read_text())
    assert len(metrics["test_accuracy"]) == 1
    assert "test accuracy" in capsys.readouterr().out


def test_eval_reports_a_checkpoints_accuracy(tmp_path, capsys):
    main(["train", "--epochs", "1", "--out", str(tmp_path), *TINY])
    capsys.readouterr()
    assert main(["eval", "--checkpoint", str(tmp_path / "checkpoint.pt"), "--quiet"]) == 0
    assert "accuracy" in capsys.readouterr().out


def test_resumed_run_follows_the_uninterrupted_trajectory(tmp_path, monkeypatch):
    straight, first, resumed = tmp_path / "straight", tmp_path / "first", tmp_path / "resumed"
    main(["train", "--epochs", "2", "--out", str(straight), *TINY])

    def save_then_interrupt(obj, path):
        save(obj, path)
        raise KeyboardInterrupt  # the run dies right after its first checkpoint

    monkeypatch.setattr(training, "save", save_then_interrupt)
    with pytest.raises(KeyboardInterrupt):
        main(["train", "--epochs", "2", "--out", str(first), *TINY])
    monkeypatch.undo()
    main(["train", "--epochs", "2", "--out", str(resumed), "--resume", str(first / "checkpoint.pt"), *TINY])
    expected = json.loads((straight / "metrics.json").read_text())["step_losses"]
    assert json.loads((resumed / "metrics.json").read_text())["step_losses"] == expected


def test_graph_writes_dot(tmp_path):
    out = tmp_path / "lenet5.dot"
    assert main(["graph", "--model", "lenet5", "--out", str(out)]) == 0
    text = out.read_text()
    assert text.startswith("digraph") and "AccumulateGrad" in text and "->" in text


def test_graph_draws_svg_and_html_without_graphviz(tmp_path):
    for name in ("g.svg", "g.html"):
        assert main(["graph", "--model", "lenet5", "--out", str(tmp_path / name), "--grads"]) == 0
    assert "conv1.weight" in (tmp_path / "g.svg").read_text() and "<svg" in (tmp_path / "g.html").read_text()
    assert main(["graph", "--model", "lenet5", "--out", str(tmp_path / "g.png")]) == 2


def test_python_dash_m_runs_the_cli():
    result = subprocess.run(
        [sys.executable, "-m", "minitorch_rx", "--help"], capture_output=True, text=True, check=True
    )
    assert "train" in result.stdout and "graph" in result.stdout
    assert mt.models.list()
