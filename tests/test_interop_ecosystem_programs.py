"""Public-style programs built on torch.distributions and torchmetrics (issue 35), in
tests/programs/, each run twice: as written, on torch, and with its torch imports renamed to
minitorch_rx (libraries' imports, torchmetrics', kept). Both runs in float64, from one seed:
the same losses, scores and weights."""

from __future__ import annotations

import re
import types
from pathlib import Path

import pytest
import torch

import minitorch_rx as mt

PROGRAMS = Path(__file__).parent / "programs"
# torch's imports, minitorch_rx's names: ``import torch``, ``import torch.nn as nn``, ``from torch import optim``
RENAMES = [
    (re.compile(r"^import torch$", re.M), "import minitorch_rx as torch"),
    (re.compile(r"^(import|from) torch\b", re.M), r"\1 minitorch_rx"),
]


def load(name: str, ours: bool) -> types.ModuleType:
    """The program, as written or with its imports renamed, as a fresh module."""
    path = PROGRAMS / f"{name}.py"
    source = path.read_text()
    if ours:
        for pattern, replacement in RENAMES:
            source = pattern.sub(replacement, source)
    module = types.ModuleType(f"{name}_{'ours' if ours else 'torch'}")
    exec(compile(source, str(path), "exec"), module.__dict__)
    return module


@pytest.fixture
def float64():
    previous = torch.get_default_dtype()
    torch.set_default_dtype(torch.float64)
    yield
    torch.set_default_dtype(previous)


def run_both(name: str) -> tuple:
    theirs = load(name, ours=False).main()
    ours = load(name, ours=True).main()
    assert all(isinstance(p, mt.nn.Parameter) for p in ours[1].parameters())
    for (key, p), q in zip(ours[1].state_dict().items(), theirs[1].state_dict().values()):
        assert (p.torch() - q).abs().max() <= 1e-10, key
    return ours[0], theirs[0]


def test_renaming_makes_torchs_imports_minitorch_rxs_and_leaves_the_libraries():
    vae, classifier = load("vae_distributions", ours=True), load("classifier_torchmetrics", ours=True)
    assert vae.torch is mt and vae.nn is mt.nn and vae.F is mt.nn.functional and vae.optim is mt.optim
    assert vae.Normal is torch.distributions.Normal and classifier.torchmetrics.__name__ == "torchmetrics"
    assert load("vae_distributions", ours=False).torch is torch


def test_vae_with_torch_distributions_trains_as_on_torch(float64):
    losses, losses_ref = run_both("vae_distributions")
    assert losses == pytest.approx(losses_ref, rel=1e-12, abs=0) and losses[-1] < losses[0]


def test_reinforce_with_a_categorical_policy_trains_as_on_torch(float64):
    losses, losses_ref = run_both("reinforce_categorical")
    assert losses == pytest.approx(losses_ref, rel=1e-10, abs=1e-12)


def test_classifier_scored_by_torchmetrics_trains_as_on_torch(float64):
    pytest.importorskip("torchmetrics", reason="torchmetrics is not installed")
    history, history_ref = run_both("classifier_torchmetrics")
    assert [list(h) for h in history] == [list(h) for h in history_ref]
    for scores, scores_ref in zip(history, history_ref):
        for key, value in scores_ref.items():
            torch.testing.assert_close(mt.as_tensor(scores[key]).torch(), value, rtol=1e-12, atol=0, msg=key)
    assert history[-1]["loss"] < history[0]["loss"]
