"""Our modules are torch.nn.Modules and torch's are children of ours (issue 35): torch's containers
take our layers, a torch module with parameters (a torchvision ResNet) is a real child whose
parameters are leaves of our graph, and torch's module machinery (hooks on state dicts, ``to``,
``get_submodule``) works on ours. Values, gradients and running statistics against the same
program on torch, in float64."""

from __future__ import annotations

import copy

import pytest
import torch
import torchvision

import minitorch_rx as mt
import minitorch_rx.nn as nn

F64 = torch.float64


def test_our_modules_are_torch_modules_and_torch_containers_take_them():
    torch.manual_seed(0)
    layers = [nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 2)]
    model = torch.nn.Sequential(*layers).double()
    assert all(isinstance(m, torch.nn.Module) for m in layers)
    assert [name for name, _ in model.named_parameters()] == ["0.weight", "0.bias", "2.weight", "2.bias"]
    assert all(type(p) is nn.Parameter and p.dtype == F64 for p in model.parameters())
    twin = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.Tanh(), torch.nn.Linear(4, 2)).double()
    twin.load_state_dict(model.state_dict())
    x = torch.randn(5, 3, dtype=F64)
    out = model(mt.from_torch(x))
    assert isinstance(out, mt.Tensor) and out.grad_fn is not None
    out.square().sum().backward()
    twin(x).square().sum().backward()
    for (name, p), q in zip(model.named_parameters(), twin.parameters()):
        torch.testing.assert_close(p.grad.torch(), q.grad, msg=name)
    assert repr(model) == repr(twin)
    assert torch.nn.ModuleList(layers)[0] is layers[0] and model.get_submodule("2") is layers[2]


class Siamese(nn.Module):
    """Our module holding a torchvision ResNet-18 (BatchNorm, running statistics) and a head of ours."""

    def __init__(self, backbone: torch.nn.Module) -> None:
        super().__init__()
        self.backbone = backbone
        self.head = nn.Linear(10, 1)

    def forward(self, a, b):
        return self.head((self.backbone(a) - self.backbone(b)).abs())


class TorchSiamese(torch.nn.Module):
    def __init__(self, backbone: torch.nn.Module) -> None:
        super().__init__()
        self.backbone = backbone
        self.head = torch.nn.Linear(10, 1)

    def forward(self, a, b):
        return self.head((self.backbone(a) - self.backbone(b)).abs())


def _siamese_pair() -> tuple[Siamese, TorchSiamese]:
    torch.manual_seed(0)
    ours = Siamese(torchvision.models.resnet18(num_classes=10)).double()
    theirs = TorchSiamese(torchvision.models.resnet18(num_classes=10)).double()
    theirs.load_state_dict(ours.state_dict())
    return ours, theirs


def test_a_torchvision_resnet_is_a_real_child_and_a_training_step_gives_torchs_gradients_and_statistics():
    ours, theirs = _siamese_pair()
    names = [name for name, _ in ours.named_parameters()]
    assert names == [name for name, _ in theirs.named_parameters()] and len(names) == 64
    assert list(ours.state_dict()) == list(theirs.state_dict())
    assert type(ours.backbone.conv1.weight) is torch.nn.Parameter and type(ours.head.weight) is nn.Parameter
    opt = mt.optim.SGD(ours.parameters(), lr=0.01, momentum=0.9)
    ref_opt = torch.optim.SGD(theirs.parameters(), lr=0.01, momentum=0.9)
    gen = torch.Generator().manual_seed(1)
    for _ in range(2):
        a, b = (torch.randn(4, 3, 32, 32, dtype=F64, generator=gen) for _ in range(2))
        opt.zero_grad()
        loss = ours(mt.from_torch(a), mt.from_torch(b)).square().mean()
        assert isinstance(loss, mt.Tensor)
        loss.backward()
        ref_opt.zero_grad()
        ref_loss = theirs(a, b).square().mean()
        ref_loss.backward()
        torch.testing.assert_close(loss.torch(), ref_loss.detach())
        for (name, p), q in zip(ours.named_parameters(), theirs.parameters()):
            grad = p.grad.torch() if isinstance(p.grad, mt.Tensor) else p.grad
            torch.testing.assert_close(grad, q.grad, rtol=1e-9, atol=1e-9 * q.grad.abs().max().item(), msg=name)
        opt.step()
        ref_opt.step()
    for (name, mine), ref in zip(ours.state_dict().items(), theirs.state_dict().values()):
        mine = mine.torch() if isinstance(mine, mt.Tensor) else mine
        torch.testing.assert_close(mine, ref, rtol=1e-9, atol=1e-9, msg=name)


def test_modes_zero_grad_to_and_load_state_dict_reach_a_torch_child():
    ours, theirs = _siamese_pair()
    ours.eval()
    assert all(not m.training for m in ours.modules())
    ours.train()
    assert ours.backbone.bn1.training
    ours(mt.from_torch(torch.randn(2, 3, 32, 32, dtype=F64)), mt.randn(2, 3, 32, 32, dtype=F64)).sum().backward()
    assert ours.backbone.fc.weight.grad is not None and ours.head.weight.grad is not None
    ours.zero_grad()
    assert all(p.grad is None for p in ours.parameters())
    ours.float()
    assert {p.dtype for p in ours.parameters()} == {torch.float32}
    assert ours.backbone.bn1.running_mean.dtype == torch.float32
    state = {k: v.double() + 1 for k, v in theirs.state_dict().items() if v.is_floating_point()}
    ours.load_state_dict(state, strict=False)
    torch.testing.assert_close(ours.backbone.conv1.weight, state["backbone.conv1.weight"].float())
    torch.testing.assert_close(ours.head.bias.torch(), state["head.bias"].float())


def test_torch_state_dict_hooks_and_submodule_paths_work_on_ours():
    model = nn.Sequential(nn.Linear(2, 3), nn.BatchNorm1d(3))
    seen = []
    model.register_state_dict_post_hook(lambda module, state, prefix, local: seen.append(sorted(state)))
    model[1].register_load_state_dict_pre_hook(lambda module, state, prefix, *rest: seen.append(prefix))
    state = model.state_dict()
    assert seen == [sorted(state)]
    model.load_state_dict(state)
    assert seen[-1] == "1."
    assert model.get_parameter("0.weight") is model[0].weight
    assert model.get_buffer("1.running_mean") is model[1].running_mean
    assert isinstance(model[1].running_mean, mt.Tensor)


def test_a_torch_tensor_buffer_becomes_ours_over_the_same_memory():
    model = nn.Module()
    data = torch.zeros(3)
    model.register_buffer("stat", data)
    assert type(model.stat) is mt.Tensor and model.stat.data_ptr() == data.data_ptr()
    model.stat = torch.ones(2)
    assert type(model.stat) is mt.Tensor and "stat" in model.state_dict()
    model.plain = torch.ones(2)  # not a buffer: stays torch's
    assert type(model.plain) is torch.Tensor


def test_load_state_dict_with_assign_keeps_our_parameter_type():
    model, source = nn.Linear(2, 2), torch.nn.Linear(2, 2)
    model.load_state_dict(source.state_dict(), assign=True)
    assert type(model.weight) is nn.Parameter and model.weight.requires_grad
    assert model.weight.data_ptr() == source.weight.data_ptr()


def test_deepcopy_of_a_model_with_a_torch_child_is_independent():
    ours, _ = _siamese_pair()
    clone = copy.deepcopy(ours)
    with torch.no_grad():
        clone.backbone.fc.bias.add_(1)
        clone.head.bias.add_(1)
    assert not torch.equal(clone.backbone.fc.bias, ours.backbone.fc.bias)
    assert not torch.equal(clone.head.bias.torch(), ours.head.bias.torch())


def test_the_deprecated_non_full_backward_hook_is_refused_not_ignored():
    with pytest.raises(RuntimeError, match="use register_full_backward_hook"):
        nn.Linear(2, 2).register_backward_hook(lambda *args: None)


def test_a_module_built_on_the_meta_device_is_materialized_by_to_empty():
    model = nn.Linear(3, 2, device="meta")
    assert model.weight.is_meta
    model.to_empty(device="cpu")
    assert type(model.weight) is nn.Parameter and model.weight.device.type == "cpu" and model.weight.requires_grad
    model.reset_parameters()
    model(mt.randn(4, 3)).sum().backward()
    assert model.weight.grad.shape == (2, 3)


def test_torchs_hook_based_weight_norm_trains_our_linear_as_torchs():
    torch.manual_seed(0)
    ours, theirs = nn.Linear(3, 2).double(), torch.nn.Linear(3, 2).double()
    theirs.load_state_dict(ours.state_dict())
    ours, theirs = torch.nn.utils.weight_norm(ours), torch.nn.utils.weight_norm(theirs)
    assert [name for name, _ in ours.named_parameters()] == ["bias", "weight_g", "weight_v"]
    x = torch.randn(4, 3, dtype=F64)
    out, ref = ours(mt.from_torch(x)), theirs(x)
    torch.testing.assert_close(out.torch(), ref.detach())
    out.square().sum().backward()
    ref.square().sum().backward()
    for (name, p), q in zip(ours.named_parameters(), theirs.parameters()):
        torch.testing.assert_close(p.grad.torch(), q.grad, msg=name)


def test_torchs_global_module_hooks_run_on_ours_in_torchs_order():
    from torch.nn.modules import module as torch_module

    def record(model, x):
        seen = []
        handles = [
            torch_module.register_module_forward_pre_hook(lambda m, args: seen.append(("pre", type(m).__name__))),
            torch_module.register_module_forward_hook(
                lambda m, args, kwargs, out: seen.append(("fwd", type(m).__name__)), with_kwargs=True
            ),
            torch_module.register_module_full_backward_hook(
                lambda m, grad_in, grad_out: seen.append(("bwd", type(m).__name__, grad_out[0].shape))
            ),
        ]
        local = model[0].register_forward_hook(lambda m, args, out: seen.append(("local", type(m).__name__)))
        try:
            out = model(x)
            out.sum().backward()
        finally:
            for handle in [*handles, local]:
                handle.remove()
        model(x)  # removed: nothing more is seen
        return seen

    torch.manual_seed(0)
    ours = nn.Sequential(nn.Linear(3, 2), nn.Tanh())
    theirs = torch.nn.Sequential(torch.nn.Linear(3, 2), torch.nn.Tanh())
    x = torch.randn(4, 3, requires_grad=True)
    seen = record(ours, mt.from_torch(x.detach(), requires_grad=True))
    assert seen == record(theirs, x)
    assert seen[:3] == [("pre", "Sequential"), ("pre", "Linear"), ("fwd", "Linear")]


class _Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(3, 4)
        self.act = torch.nn.Tanh()
        self.out = nn.Sequential(nn.ReLU(), nn.Linear(4, 2))

    def forward(self, x):
        return self.out(self.act(self.fc(x)) * 2).sum(-1)


def test_fx_traces_our_module_with_our_layers_as_leaves_and_the_graph_trains_them():
    model = _Block().double()
    traced = torch.fx.symbolic_trace(model)
    called = [n.target for n in traced.graph.nodes if n.op == "call_module"]
    assert called == ["fc", "act", "out.0", "out.1"]
    x = mt.randn(5, 3, dtype=F64)
    y = traced(x)
    assert isinstance(y, mt.Tensor)
    torch.testing.assert_close(y.torch(), model(x).torch())
    y.sum().backward()
    assert model.fc.weight.grad is not None and model.out[1].bias.grad is not None


def test_torchvision_feature_extractor_takes_a_resnet_with_our_first_conv():
    from torchvision.models.feature_extraction import create_feature_extractor

    resnet = torchvision.models.resnet18(weights=None)
    resnet.conv1 = nn.Conv2d(3, 64, 7, stride=2, padding=3, bias=False)
    extractor = create_feature_extractor(resnet, return_nodes={"layer1": "feat"})
    x = mt.randn(1, 3, 32, 32)
    feat = extractor(x)["feat"]
    assert isinstance(feat, mt.Tensor) and feat.shape == (1, 64, 8, 8)
    feat.sum().backward()
    assert resnet.conv1.weight.grad is not None and resnet.bn1.weight.grad is not None


def test_forward_hooks_live_in_torchs_dicts_with_torchs_handles():
    layer = nn.Linear(2, 2)
    handle = layer.register_forward_hook(lambda m, args, out: out * 2)
    assert len(layer._forward_hooks) == 1 and isinstance(handle, torch.utils.hooks.RemovableHandle)
    x = mt.randn(3, 2)
    torch.testing.assert_close(layer(x).torch(), 2 * torch.nn.functional.linear(x.torch(), layer.weight, layer.bias))
    handle.remove()
    assert not layer._forward_hooks
    torch.testing.assert_close(layer(x).torch(), torch.nn.functional.linear(x.torch(), layer.weight, layer.bias))


def test_torchs_prune_remove_finds_the_pruning_hook_on_our_layer():
    layer = nn.Linear(4, 3)
    nn.utils.prune.l1_unstructured(layer, "weight", amount=0.5)
    assert nn.utils.prune.is_pruned(layer)
    nn.utils.prune.remove(layer, "weight")
    assert not nn.utils.prune.is_pruned(layer) and int((layer.weight == 0).sum()) == 6
