"""``mt.amp`` (issue 14): autocast's casts recorded so backward matches PyTorch's autocast, and
GradScaler step for step as ``torch.amp.GradScaler``. Runs on the CPU (bfloat16 autocast, a CPU
scaler); the CUDA-only behaviour checked here is that it disables itself without CUDA, as PyTorch's."""

from __future__ import annotations

import pytest
import torch

import minitorch_rx as mt
import minitorch_rx.nn as nn
import minitorch_rx.nn.functional as F

no_cuda = pytest.mark.skipif(torch.cuda.is_available(), reason="checks the behaviour without CUDA")


def twin_mlps(seed: int = 0) -> tuple[nn.Module, torch.nn.Module]:
    torch.manual_seed(seed)
    theirs = torch.nn.Sequential(torch.nn.Linear(6, 8), torch.nn.ReLU(), torch.nn.Linear(8, 3))
    ours = nn.Sequential(nn.Linear(6, 8), nn.ReLU(), nn.Linear(8, 3))
    ours.load_state_dict(theirs.state_dict())
    return ours, theirs


def test_cpu_autocast_matches_torch_autocast_forward_and_backward():
    ours, theirs = twin_mlps()
    x, y = torch.randn(5, 6), torch.tensor([0, 1, 2, 0, 1])
    with mt.autocast("cpu"):
        out = ours(mt.from_torch(x))
        loss = F.cross_entropy(out, mt.from_torch(y))
    with torch.autocast("cpu"):
        out_ref = theirs(x)
        loss_ref = torch.nn.functional.cross_entropy(out_ref, y)
    assert out.dtype == out_ref.dtype == torch.bfloat16
    assert loss.dtype == loss_ref.dtype == torch.float32
    torch.testing.assert_close(loss.torch(), loss_ref.detach(), atol=1e-2, rtol=1e-2)
    loss.backward()
    loss_ref.backward()
    for p, p_ref in zip(ours.parameters(), theirs.parameters()):
        assert p.grad.dtype == p_ref.grad.dtype == torch.float32
        torch.testing.assert_close(p.grad.torch(), p_ref.grad, atol=2e-2, rtol=2e-2)


def test_conv_under_autocast_runs_in_bfloat16_and_backward_reaches_float32_weights():
    conv = nn.Conv2d(2, 3, 3)
    with mt.autocast("cpu", dtype=torch.bfloat16):
        out = conv(mt.randn(1, 2, 5, 5))
    assert out.dtype == torch.bfloat16
    out.float().sum().backward()
    assert conv.weight.grad.dtype == torch.float32 and conv.bias.grad.dtype == torch.float32


def test_autocast_leaves_float64_and_other_devices_alone():
    w64 = mt.randn(3, 3, dtype=torch.float64)
    with mt.autocast("cpu"):
        assert (w64 @ w64).dtype == torch.float64
    with mt.autocast("cuda", enabled=False):
        assert (mt.randn(2, 2) @ mt.randn(2, 2)).dtype == torch.float32


def test_nested_disabled_autocast_and_exit_restore_float32():
    a = mt.randn(2, 2)
    with mt.autocast("cpu"):
        with mt.autocast("cpu", enabled=False):
            assert (a @ a).dtype == torch.float32
        assert (a @ a).dtype == torch.bfloat16
    assert (a @ a).dtype == torch.float32


def test_autocast_as_a_decorator():
    @mt.amp.autocast("cpu")
    def product(a):
        return a @ a

    assert product(mt.randn(2, 2)).dtype == torch.bfloat16
    assert mt.autocast is mt.amp.autocast


@no_cuda
def test_cuda_autocast_without_cuda_warns_and_changes_nothing():
    with pytest.warns(UserWarning, match="CUDA is not available"):
        context = mt.cuda.amp.autocast()
    with context:
        assert (mt.randn(2, 2) @ mt.randn(2, 2)).dtype == torch.float32


def test_autocast_refuses_a_device_type_that_is_not_a_string():
    with pytest.raises(ValueError, match="Expected `device_type` of type `str`"):
        mt.autocast(0)


# ------------------------------------------------------------------------------- GradScaler
def scaled_steps(scaler, model, optimizer, batches, loss_fn) -> list[float]:
    scales = []
    for x, y, poison in batches:
        optimizer.zero_grad()
        loss = loss_fn(model(x), y)
        scaler.scale(loss).backward()
        if poison:
            next(iter(model.parameters())).grad.view(-1)[0] = float("inf")
        scaler.step(optimizer)
        scaler.update()
        scales.append(scaler.get_scale())
    return scales


def test_cpu_grad_scaler_matches_torch_step_for_step_including_a_skipped_step():
    ours, theirs = twin_mlps(1)
    torch.manual_seed(2)
    batches = [(torch.randn(4, 6), torch.randint(0, 3, (4,)), step == 2) for step in range(5)]
    ours_opt = mt.optim.SGD(ours.parameters(), lr=0.1, momentum=0.9)
    theirs_opt = torch.optim.SGD(theirs.parameters(), lr=0.1, momentum=0.9)
    options = {"init_scale": 1024.0, "growth_interval": 2}
    scales = scaled_steps(
        mt.amp.GradScaler("cpu", **options),
        ours,
        ours_opt,
        [(mt.from_torch(x), mt.from_torch(y), poison) for x, y, poison in batches],
        F.cross_entropy,
    )
    scales_ref = scaled_steps(
        torch.amp.GradScaler("cpu", **options), theirs, theirs_opt, batches, torch.nn.functional.cross_entropy
    )
    assert scales == scales_ref == [1024.0, 2048.0, 1024.0, 1024.0, 2048.0]
    for p, p_ref in zip(ours.parameters(), theirs.parameters()):
        torch.testing.assert_close(p.torch(), p_ref.detach())


def test_disabled_grad_scaler_is_a_no_op():
    model = nn.Linear(2, 1)
    optimizer = mt.optim.SGD(model.parameters(), lr=0.5)
    scaler = mt.amp.GradScaler(enabled=False)
    loss = model(mt.ones(1, 2)).sum()
    assert scaler.scale(loss) is loss and scaler.get_scale() == 1.0 and not scaler.is_enabled()
    loss.backward()
    before = model.bias.item()
    scaler.step(optimizer)
    scaler.update()
    assert model.bias.item() == pytest.approx(before - 0.5)
    assert scaler.state_dict() == {}


@no_cuda
def test_cuda_grad_scaler_without_cuda_warns_and_disables_itself():
    with pytest.warns(UserWarning, match="CUDA is not available.  Disabling."):
        scaler = mt.cuda.amp.GradScaler()
    assert not scaler.is_enabled()


def test_grad_scaler_refuses_a_second_unscale_before_update():
    model = nn.Linear(2, 1)
    optimizer = mt.optim.SGD(model.parameters(), lr=0.1)
    scaler = mt.amp.GradScaler("cpu")
    scaler.scale(model(mt.ones(1, 2)).sum()).backward()
    scaler.unscale_(optimizer)
    with pytest.raises(RuntimeError, match="unscale_\\(\\) has already been called on this optimizer"):
        scaler.unscale_(optimizer)


def test_grad_scaler_state_dict_has_torchs_keys():
    ours, theirs = mt.amp.GradScaler("cpu", init_scale=8.0), torch.amp.GradScaler("cpu", init_scale=8.0)
    assert ours.state_dict() == theirs.state_dict()


def test_cnn_with_norm_layers_under_cpu_autocast_matches_torch():
    torch.manual_seed(0)
    theirs = torch.nn.Sequential(
        torch.nn.Conv2d(3, 4, 3),
        torch.nn.BatchNorm2d(4),
        torch.nn.ReLU(),
        torch.nn.MaxPool2d(2),
        torch.nn.Flatten(),
        torch.nn.LayerNorm(36),
        torch.nn.Linear(36, 5),
    )
    ours = nn.Sequential(
        nn.Conv2d(3, 4, 3),
        nn.BatchNorm2d(4),
        nn.ReLU(),
        nn.MaxPool2d(2),
        nn.Flatten(),
        nn.LayerNorm(36),
        nn.Linear(36, 5),
    )
    ours.load_state_dict(theirs.state_dict())
    x, y = torch.randn(2, 3, 8, 8), torch.tensor([1, 3])
    with torch.autocast("cpu"):
        loss_ref = torch.nn.functional.cross_entropy(theirs(x), y)
    with mt.autocast("cpu"):
        loss = F.cross_entropy(ours(x), mt.from_torch(y))
    loss_ref.backward()
    loss.backward()
    torch.testing.assert_close(loss.torch(), loss_ref.detach())
    for p, p_ref in zip(ours.parameters(), theirs.parameters()):
        torch.testing.assert_close(p.grad.torch(), p_ref.grad)
