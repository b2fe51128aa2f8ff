"""The engine on the suite's device: gradients land where their tensors live, hooks, create_graph,
version counters, saved-tensor hooks (``save_on_cpu``), checkpointing with the device's random
state, and graphs that free their device memory."""

from __future__ import annotations

import gc
import weakref

import pytest
import torch

import minitorch_rx as mt
import minitorch_rx.nn as nn
import minitorch_rx.nn.functional as F
from minitorch_rx.utils.checkpoint import checkpoint
from tests.device.common import assert_close


def test_gradients_accumulate_on_the_device(device):
    x = mt.randn(3, 4, device=device, requires_grad=True)
    for _ in range(2):
        (x * 2.0 + x.exp()).sum().backward()
    assert x.grad.device == x.device
    assert_close(x.grad, 2 * (2.0 + x.torch().exp()), torch.float32)


def test_backward_with_a_gradient_and_retain_graph_on_the_device(device):
    x = mt.randn(3, device=device, requires_grad=True)
    y = x.tanh() * 3.0
    seed = torch.arange(3.0, device=device)
    y.backward(mt.tensor(seed), retain_graph=True)
    y.backward(seed)
    assert_close(x.grad, 2 * seed * 3 * (1 - x.torch().tanh() ** 2), torch.float32)


def test_tensor_and_module_hooks_run_on_the_device(device):
    x = mt.randn(4, 3, device=device, requires_grad=True)
    seen = []
    x.register_hook(lambda g: seen.append(g.device) or g * 2)
    layer = nn.Linear(3, 2).to(device)
    module_grads = []
    layer.register_full_backward_hook(lambda m, gin, gout: module_grads.append((gin[0].device, gout[0].device)))
    y = layer(x)
    y.retain_grad()
    y.sum().backward()
    assert seen == [x.device] and module_grads == [(x.device, x.device)]
    assert y.grad.device == x.device
    expected = 2 * torch.ones(4, 2, device=device) @ layer.weight.torch()
    assert_close(x.grad, expected, torch.float32)


def test_create_graph_matches_torch_on_the_device(device):
    """Hessian-vector product through tanh, a product and a softmax (float64)."""
    data = torch.randn(5, dtype=torch.float64, device=device)
    w = torch.randn(5, 5, dtype=torch.float64, device=device)
    v = torch.randn(5, dtype=torch.float64, device=device)

    def f(lib, x):
        return (lib.softmax(x.tanh() @ w, 0) * x).sum()

    x = mt.tensor(data, requires_grad=True)
    (g,) = mt.autograd.grad(f(mt, x), x, create_graph=True)
    (hv,) = mt.autograd.grad(g, x, mt.tensor(v))
    x_ref = data.clone().requires_grad_(True)
    (g_ref,) = torch.autograd.grad(f(torch, x_ref), x_ref, create_graph=True)
    (hv_ref,) = torch.autograd.grad(g_ref, x_ref, v)
    assert_close(g, g_ref)
    assert_close(hv, hv_ref)


def test_version_counter_error_on_the_device(device):
    x = mt.randn(3, device=device, requires_grad=True)
    y = x.exp()
    z = y * 2
    y.add_(1)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        z.sum().backward()


def test_save_on_cpu_moves_saved_tensors_and_back(device):
    x = mt.randn(4, 4, device=device, requires_grad=True)
    packed = []

    def pack(t):
        packed.append(t.device)
        return t.torch().cpu()

    def unpack(t):
        return t.to(device)

    with mt.autograd.graph.saved_tensors_hooks(pack, unpack):
        loss = (x.exp() * x).sum()
    loss.backward()
    assert packed and all(d == x.device for d in packed)
    with mt.autograd.graph.save_on_cpu(pin_memory=device.type == "cuda"):
        loss = (x.sin() @ x).sum()
    x.grad = None
    loss.backward()
    ref = x.torch().clone().requires_grad_(True)
    (ref.sin() @ ref).sum().backward()
    assert_close(x.grad, ref.grad, torch.float32)


def test_checkpoint_replays_dropout_with_the_devices_random_state(device):
    """Recomputation in backward draws the same dropout mask (the device's generator restored)."""
    layer = nn.Linear(8, 8).to(device)
    x = mt.randn(16, 8, device=device, requires_grad=True)

    def block(t):
        return F.dropout(layer(t).relu(), 0.5, training=True)

    torch.manual_seed(5)
    out = checkpoint(block, x, use_reentrant=False)
    out.sum().backward()
    grad_checkpointed = x.grad.torch().clone()
    x.grad = None
    torch.manual_seed(5)
    block(x).sum().backward()
    torch.testing.assert_close(grad_checkpointed, x.grad.torch())


def test_a_dropped_graph_frees_its_device_memory(device):
    """No reference cycle: outputs, graph and saved tensors die by reference counting alone."""
    layer = nn.Linear(256, 256).to(device)
    x = mt.randn(64, 256, device=device, requires_grad=True)

    def step() -> weakref.ref:
        out = F.gelu(layer(x)).softmax(1)
        ref = weakref.ref(out)
        out.sum().backward()
        return ref

    gc.disable()
    try:
        step()  # warm: gradients allocated
        before = torch.cuda.memory_allocated(device) if device.type == "cuda" else None
        refs = [step() for _ in range(5)]
        assert all(r() is None for r in refs)
        if before is not None:
            torch.cuda.synchronize(device)
            assert torch.cuda.memory_allocated(device) == before
        y = F.gelu(layer(x)) * 2.0  # never backpropagated: dropping it frees everything too
        ref = weakref.ref(y)
        del y
        assert ref() is None
        if before is not None:
            assert torch.cuda.memory_allocated(device) == before
    finally:
        gc.enable()


def test_graph_of_a_device_computation_counts_saved_bytes(device):
    x = mt.randn(10, device=device, requires_grad=True)
    with mt.Graph() as g:
        loss = (x.exp() * 2.0).sum()
    assert g.num_nodes() == 4 and not g.has_cycle()
    assert g.saved_bytes() >= 40
    loss.backward()
    assert g.num_nodes() == 0


def test_anomaly_mode_names_the_op_on_the_device(device):
    x = mt.tensor([0.0, 1.0], device=device, requires_grad=True)
    with mt.autograd.detect_anomaly(), pytest.raises(RuntimeError, match="'SqrtBackward0' returned inf"):
        x.sqrt().sum().backward()


def test_a_gradient_on_another_device_is_torchs_error_meta_and_cpu():
    """The device check of backward's gradients, exercised without a GPU: a meta output, a CPU gradient."""
    x = mt.randn(3, device="meta", requires_grad=True)
    ref = torch.randn(3, device="meta", requires_grad=True)
    with pytest.raises(RuntimeError) as expected:
        (ref * 2).backward(torch.ones(3))
    with pytest.raises(RuntimeError) as actual:
        (x * 2).backward(torch.ones(3))
    assert str(actual.value) == str(expected.value)


def test_second_order_through_cached_constants_on_the_device(device):
    """``x * 2.5``-style ops keep a cached CPU constant (binary kernels take one CPU scalar); under
    create_graph their backward is recorded with it, on the device's tensors."""
    data = torch.randn(6, dtype=torch.float64, device=device)
    x = mt.tensor(data, requires_grad=True)
    x_ref = data.clone().requires_grad_(True)
    for _ in range(2):  # the second time the constants are cached
        (g,) = mt.autograd.grad(((x * 2.5 + 1.5) ** 3 / 3.0 - x * 0.5).sum(), x, create_graph=True)
        (h,) = mt.autograd.grad((g * g).sum(), x)
    (g_ref,) = torch.autograd.grad(((x_ref * 2.5 + 1.5) ** 3 / 3.0 - x_ref * 0.5).sum(), x_ref, create_graph=True)
    (h_ref,) = torch.autograd.grad((g_ref * g_ref).sum(), x_ref)
    assert g.device == h.device == x.device
    assert_close(g, g_ref)
    assert_close(h, h_ref)
