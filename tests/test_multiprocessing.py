"""``minitorch_rx.multiprocessing`` and shared memory: hogwild training, with fork and spawn."""

from __future__ import annotations

import pytest
import torch

import minitorch_rx as mt
import minitorch_rx.multiprocessing as mp
import minitorch_rx.nn as nn
import minitorch_rx.nn.functional as F
import minitorch_rx.optim as optim


def _train(model: nn.Module, steps: int, losses) -> None:
    """A worker's hogwild loop on the shared ``model`` (module level: spawn imports it)."""
    opt = optim.SGD(model.parameters(), lr=0.05)
    x, y = mt.ones(8, 3), mt.full((8, 1), 2.0)
    for _ in range(steps):
        loss = F.mse_loss(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
    losses.put(loss.item())


def test_share_memory_moves_the_data_and_returns_the_tensor():
    t = mt.zeros(3, requires_grad=True)
    assert not t.is_shared()
    assert t.share_memory_() is t and t.is_shared() and t.torch().is_shared()


def test_the_module_is_torch_multiprocessing():
    assert mp.Process is torch.multiprocessing.Process and mp.spawn is torch.multiprocessing.spawn
    assert "get_context" in dir(mp)


@pytest.mark.parametrize("method", ["fork", "spawn"])
def test_hogwild_workers_train_the_parent_model(method):
    torch.manual_seed(0)
    model = nn.Linear(3, 1)
    model.share_memory()
    assert all(p.is_shared() for p in model.parameters())
    start = F.mse_loss(model(mt.ones(8, 3)), mt.full((8, 1), 2.0)).item()
    context = mp.get_context(method)
    losses = context.Queue()
    workers = [context.Process(target=_train, args=(model, 20, losses)) for _ in range(2)]
    for w in workers:
        w.start()
    for w in workers:
        w.join(timeout=120)
        assert w.exitcode == 0
    reached = [losses.get(timeout=10) for _ in workers]
    now = F.mse_loss(model(mt.ones(8, 3)), mt.full((8, 1), 2.0)).item()
    assert now < start / 10 and max(reached) < start
    assert isinstance(model.weight, nn.Parameter) and model.weight.requires_grad
