"""nn.Module, nn.Parameter and the containers: registration, traversal, modes, state dicts, repr."""

from __future__ import annotations

import copy
import importlib
import inspect
from collections import OrderedDict

import pytest
import torch

import minitorch_rx as mt
import minitorch_rx.nn as nn


class Block(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.fc = nn.Linear(3, 4)
        self.bn = nn.BatchNorm1d(4)
        self.register_buffer("steps", mt.zeros(1))
        self.register_buffer("scratch", mt.zeros(2), persistent=False)
        self.scale = nn.Parameter(mt.ones(1))

    def forward(self, x):
        return self.bn(self.fc(x)) * self.scale


class TorchBlock(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.fc = torch.nn.Linear(3, 4)
        self.bn = torch.nn.BatchNorm1d(4)
        self.register_buffer("steps", torch.zeros(1))
        self.register_buffer("scratch", torch.zeros(2), persistent=False)
        self.scale = torch.nn.Parameter(torch.ones(1))


# ------------------------------------------------------------------------------- Parameter
def test_parameter_is_a_leaf_tensor_that_requires_grad():
    p = nn.Parameter(mt.randn(2, 3))
    assert isinstance(p, mt.Tensor)
    assert p.is_leaf and p.requires_grad and p.grad_fn is None


def test_parameter_can_be_made_without_grad():
    assert not nn.Parameter(mt.zeros(2), requires_grad=False).requires_grad


def test_parameter_is_a_torch_parameter_that_torch_modules_register():
    p = nn.Parameter(mt.zeros(2))
    assert isinstance(p, torch.nn.Parameter) and isinstance(p, torch.Tensor)
    assert not isinstance(mt.zeros(2), torch.nn.Parameter)
    holder = torch.nn.Module()
    holder.weight = p
    assert dict(holder.named_parameters()) == {"weight": p}


def test_parameter_shares_memory_with_its_source():
    source = torch.zeros(3)
    p = nn.Parameter(source)
    source[0] = 5.0
    assert p.torch()[0].item() == 5.0


def test_parameter_receives_gradients_from_the_engine():
    p = nn.Parameter(mt.tensor([1.0, 2.0]))
    (p * p).sum().backward()
    assert p.grad.tolist() == [2.0, 4.0]


def test_parameter_repr_matches_torch():
    data = torch.tensor([1.0, 2.0])
    assert repr(nn.Parameter(data)) == repr(torch.nn.Parameter(data))


def test_deepcopied_parameter_owns_its_data():
    p = nn.Parameter(mt.zeros(2))
    q = copy.deepcopy(p)
    q.torch().fill_(1.0)
    assert type(q) is nn.Parameter and q.requires_grad and p.torch().sum().item() == 0.0


# ------------------------------------------------------------------------------ registration
def test_assigned_parameters_modules_and_buffers_are_registered():
    block = Block()
    assert list(block._parameters) == ["scale"]
    assert list(block._modules) == ["fc", "bn"]
    assert list(block._buffers) == ["steps", "scratch"]


def test_named_parameters_follow_torch_order_and_names():
    ours = [(n, tuple(p.shape)) for n, p in Block().named_parameters()]
    theirs = [(n, tuple(p.shape)) for n, p in TorchBlock().named_parameters()]
    assert ours == theirs


def test_named_buffers_include_non_persistent_ones():
    ours = [n for n, _ in Block().named_buffers()]
    assert ours == [n for n, _ in TorchBlock().named_buffers()]
    assert "scratch" in ours


def test_parameters_without_recurse_are_the_modules_own():
    assert [tuple(p.shape) for p in Block().parameters(recurse=False)] == [(1,)]


def test_unknown_attribute_raises_attribute_error():
    with pytest.raises(AttributeError, match="'Block' object has no attribute 'weight'"):
        Block().weight  # noqa: B018


def test_assigning_a_plain_tensor_to_a_parameter_name_raises():
    with pytest.raises(TypeError, match="cannot assign .* as parameter 'weight'"):
        nn.Linear(2, 2).weight = mt.zeros(2, 2)


def test_assigning_none_to_a_parameter_keeps_the_slot():
    layer = nn.Linear(2, 2)
    layer.bias = None
    assert "bias" in layer._parameters and layer.bias is None
    assert [n for n, _ in layer.named_parameters()] == ["weight"]


def test_assigning_a_tensor_to_a_buffer_name_replaces_the_buffer():
    block = Block()
    block.steps = torch.full((1,), 3.0)
    assert isinstance(block.steps, mt.Tensor) and block.steps.item() == 3.0
    assert "steps" in block._buffers


def test_deleting_an_attribute_unregisters_it():
    block = Block()
    del block.fc
    del block.steps
    assert "fc" not in block._modules and "steps" not in block._buffers


def test_register_buffer_rejects_a_dotted_name():
    with pytest.raises(KeyError, match=r'buffer name can.+t contain "\."'):
        nn.Module().register_buffer("a.b", mt.zeros(1))


def test_register_buffer_rejects_an_existing_attribute():
    with pytest.raises(KeyError, match="attribute 'training' already exists"):
        nn.Module().register_buffer("training", mt.zeros(1))


def test_register_parameter_rejects_a_plain_tensor():
    with pytest.raises(TypeError, match="to parameter 'w'"):
        nn.Module().register_parameter("w", mt.zeros(1))


def test_add_module_rejects_a_non_module():
    with pytest.raises(TypeError, match="is not a Module subclass"):
        nn.Module().add_module("x", 3)


def test_assigning_before_init_raises():
    class Broken(nn.Module):
        def __init__(self) -> None:
            self.w = nn.Parameter(mt.zeros(1))

    with pytest.raises(AttributeError, match=r"cannot assign parameters before Module.__init__\(\) call"):
        Broken()


def test_forward_missing_raises():
    with pytest.raises(NotImplementedError, match='missing the required "forward" function'):
        nn.Module()(mt.zeros(1))


# ------------------------------------------------------------------------------- traversal
def test_shared_parameter_is_yielded_once():
    a, b = nn.Linear(2, 2), nn.Linear(2, 2)
    b.weight = a.weight
    model = nn.Sequential(a, b)
    assert len(list(model.parameters())) == 3
    assert [n for n, _ in model.named_parameters()] == ["0.weight", "0.bias", "1.bias"]


def test_shared_submodule_is_yielded_once():
    shared = nn.Linear(2, 2)
    model = nn.Sequential(shared, nn.ReLU(), shared)
    assert [n for n, _ in model.named_modules()] == ["", "0", "1"]
    assert len(list(model.parameters())) == 2
    assert len(list(model.children())) == 2


def test_named_modules_without_deduplication_yields_every_path():
    shared = nn.Linear(2, 2)
    model = nn.Sequential(shared, shared)
    assert [n for n, _ in model.named_modules(remove_duplicate=False)] == ["", "0", "1"]


def test_named_modules_gives_dotted_paths():
    names = [n for n, _ in nn.Sequential(Block(), nn.ReLU()).named_modules()]
    assert names == ["", "0", "0.fc", "0.bn", "1"]


def test_apply_visits_children_before_the_parent():
    model = nn.Sequential(nn.Linear(1, 1), nn.Sequential(nn.ReLU()))
    seen = []
    assert model.apply(lambda m: seen.append(type(m).__name__)) is model
    assert seen == ["Linear", "ReLU", "Sequential", "Sequential"]


# ------------------------------------------------------------------------------------ modes
def test_train_and_eval_propagate_to_every_descendant():
    model = nn.Sequential(Block(), nn.Dropout())
    assert model.eval() is model
    assert not any(m.training for m in model.modules())
    model.train()
    assert all(m.training for m in model.modules())


def test_train_rejects_a_non_boolean_mode():
    with pytest.raises(ValueError, match="training mode is expected to be boolean"):
        nn.Linear(1, 1).train(1)


def test_zero_grad_sets_gradients_to_none_by_default():
    layer = nn.Linear(2, 1)
    layer(mt.ones(3, 2)).sum().backward()
    layer.zero_grad()
    assert layer.weight.grad is None and layer.bias.grad is None


def test_zero_grad_can_zero_in_place():
    layer = nn.Linear(2, 1)
    layer(mt.ones(3, 2)).sum().backward()
    grad = layer.weight.grad
    layer.zero_grad(set_to_none=False)
    assert layer.weight.grad is grad and grad.torch().abs().sum().item() == 0.0


def test_requires_grad_false_freezes_every_parameter():
    model = Block().requires_grad_(False)
    assert not any(p.requires_grad for p in model.parameters())


# ----------------------------------------------------------------------------- device/dtype
def test_to_dtype_casts_floating_tensors_and_keeps_parameter_identity():
    block = Block()
    weight = block.fc.weight
    block.to(torch.float64)
    assert block.fc.weight is weight and weight.dtype == torch.float64
    assert block.bn.running_mean.dtype == torch.float64
    assert block.bn.num_batches_tracked.dtype == torch.int64


def test_to_casts_gradients_too():
    layer = nn.Linear(2, 1)
    layer(mt.ones(1, 2)).sum().backward()
    layer.double()
    assert layer.weight.grad.dtype == torch.float64


def test_to_rejects_an_integer_dtype():
    with pytest.raises(TypeError, match="nn.Module.to only accepts floating point or complex dtypes"):
        nn.Linear(1, 1).to(torch.int64)


def test_to_accepts_a_device_and_a_dtype_keyword():
    layer = nn.Linear(2, 2).to("cpu", dtype=torch.float64)
    assert layer.weight.device.type == "cpu" and layer.bias.dtype == torch.float64


TO_POSITIONAL_FORMS = [
    ("cpu", None, False),  # what torch's own Module.to calls on every tensor a module holds
    (None, torch.float64),
    (None,),
    (None, None, False, True),
    ("cpu", torch.float64, False, True),
    (torch.float32, False, True),
    (torch.float64, True),
    ("other", False, True),
    ("other",),
]


@pytest.mark.parametrize("form", TO_POSITIONAL_FORMS, ids=repr)
def test_tensor_to_takes_torchs_positional_forms(form):
    x = mt.randn(3, requires_grad=True)
    data = x.detach()._data
    other = torch.zeros(1, dtype=torch.float64)
    ours = x.to(*(other if a == "other" else a for a in form))
    theirs = data.to(*(other if a == "other" else a for a in form))
    assert (ours is x) == (theirs is data)
    assert ours.dtype == theirs.dtype and ours.device == theirs.device
    assert ours.grad_fn is None if ours is x else ours.grad_fn is not None
    ours.sum().backward()
    assert torch.equal(x.grad._data, torch.ones(3))


def test_module_to_takes_torchs_positional_form():
    block, torch_block = Block(), TorchBlock()
    for form in [("cpu", None, False), (None, torch.float64, False), ("cpu", torch.float32, True)]:
        block.to(*form)
        torch_block.to(*form)
        assert [t.dtype for t in block.state_dict().values()] == [t.dtype for t in torch_block.state_dict().values()]


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device")
def test_cuda_moves_parameters_and_buffers_keeping_parameter_identity():
    block = Block()
    weight = block.fc.weight
    block.cuda()
    assert block.fc.weight is weight and weight.device.type == "cuda"
    assert all(b.device.type == "cuda" for b in block.buffers())
    assert block(mt.randn(5, 3).cuda()).device.type == "cuda"


# ------------------------------------------------------------------------------ state dicts
def test_state_dict_keys_match_torch_and_skip_non_persistent_buffers():
    assert list(Block().state_dict()) == list(TorchBlock().state_dict())


def test_state_dict_values_are_detached_tensors_sharing_memory():
    layer = nn.Linear(2, 2)
    sd = layer.state_dict()
    value = sd["weight"]
    assert type(value) is mt.Tensor and not value.requires_grad
    value.torch()[0, 0] = 42.0
    assert layer.weight.torch()[0, 0].item() == 42.0


def test_state_dict_keep_vars_gives_the_parameters():
    layer = nn.Linear(2, 2)
    assert layer.state_dict(keep_vars=True)["weight"] is layer.weight


def test_state_dict_metadata_carries_versions():
    metadata = nn.Sequential(nn.Linear(1, 1), nn.BatchNorm1d(1)).state_dict()._metadata
    assert metadata == {"": {"version": 1}, "0": {"version": 1}, "1": {"version": 2}}


def test_load_state_dict_accepts_torch_and_mt_tensors():
    layer = nn.Linear(2, 2)
    result = layer.load_state_dict({"weight": torch.ones(2, 2), "bias": mt.full((2,), 3.0)})
    assert layer.weight.torch().sum().item() == 4.0 and layer.bias.tolist() == [3.0, 3.0]
    assert result.missing_keys == [] and result.unexpected_keys == []
    assert repr(result) == "<All keys matched successfully>"


def test_load_state_dict_copies_into_the_existing_parameters():
    layer = nn.Linear(2, 2)
    weight = layer.weight
    source = torch.ones(2, 2)
    layer.load_state_dict({"weight": source, "bias": torch.zeros(2)})
    source.fill_(7.0)
    assert layer.weight is weight and layer.weight.torch().sum().item() == 4.0


def test_load_state_dict_non_strict_reports_missing_and_unexpected_keys():
    layer = nn.Linear(2, 2)
    result = layer.load_state_dict({"weight": torch.ones(2, 2), "extra": torch.ones(1)}, strict=False)
    assert result.missing_keys == ["bias"] and result.unexpected_keys == ["extra"]
    assert result == torch.nn.Linear(2, 2).load_state_dict(
        {"weight": torch.ones(2, 2), "extra": torch.ones(1)}, strict=False
    )


@pytest.mark.parametrize(
    ("state", "strict"),
    [
        ({"weight": torch.zeros(3, 2)}, True),
        ({"weight": torch.zeros(3, 2)}, False),
        (
            {
                "weight": torch.zeros(2, 2),
                "bias": torch.zeros(2),
                "bias2": torch.zeros(1),
                "sub.x": torch.zeros(1),
            },
            True,
        ),
        ({"weight": torch.zeros(2, 2)}, True),
        ({"weight": torch.zeros(2, 2), "bias": torch.zeros(3)}, False),
    ],
)
def test_load_state_dict_errors_word_for_word_as_torch(state, strict):
    with pytest.raises(RuntimeError) as theirs:
        torch.nn.Linear(2, 2).load_state_dict(state, strict=strict)
    with pytest.raises(RuntimeError) as ours:
        nn.Linear(2, 2).load_state_dict(state, strict=strict)
    assert str(ours.value) == str(theirs.value)


def test_load_state_dict_error_text_for_missing_key_and_size_mismatch():
    with pytest.raises(RuntimeError) as error:
        nn.Linear(2, 2).load_state_dict({"weight": torch.zeros(3, 2)})
    assert str(error.value) == (
        "Error(s) in loading state_dict for Linear:\n"
        '\tMissing key(s) in state_dict: "bias". \n'
        "\tsize mismatch for weight: copying a param with shape torch.Size([3, 2]) from checkpoint, "
        "the shape in current model is torch.Size([2, 2])."
    )


def test_load_state_dict_rejects_non_mappings():
    with pytest.raises(TypeError, match="Expected state_dict to be dict-like"):
        nn.Linear(1, 1).load_state_dict([("weight", torch.zeros(1, 1))])


def test_load_state_dict_with_assign_takes_the_checkpoint_tensors():
    layer = nn.Linear(2, 2)
    weight = torch.ones(2, 2, dtype=torch.float64)
    layer.load_state_dict({"weight": weight, "bias": torch.zeros(2, dtype=torch.float64)}, assign=True)
    assert isinstance(layer.weight, nn.Parameter) and layer.weight.requires_grad
    assert layer.weight.dtype == torch.float64
    weight.fill_(2.0)
    assert layer.weight.torch().sum().item() == 8.0


def test_state_dict_round_trips_through_torch_both_ways():
    torch.manual_seed(0)
    theirs = TorchBlock()
    ours = Block()
    ours.load_state_dict(theirs.state_dict())
    for name, value in ours.state_dict().items():
        assert torch.equal(value.torch(), theirs.state_dict()[name])
    back = TorchBlock()
    back.load_state_dict({k: v.torch() for k, v in ours.state_dict().items()})
    for name, value in back.state_dict().items():
        assert torch.equal(value, theirs.state_dict()[name])


def test_deepcopied_module_is_independent():
    layer = nn.Linear(2, 2)
    twin = copy.deepcopy(layer)
    twin.weight.torch().fill_(0.0)
    assert layer.weight.torch().abs().sum().item() > 0
    twin(mt.ones(1, 2)).sum().backward()
    assert twin.weight.grad is not None and layer.weight.grad is None


# ------------------------------------------------------------------------------------ repr
def _torch_twin_tree(lib):
    return lib.Sequential(
        lib.Conv2d(3, 8, 3, padding=1, bias=False),
        lib.BatchNorm2d(8, momentum=None),
        lib.ReLU(inplace=True),
        lib.ModuleList([lib.Linear(4, 4) for _ in range(3)] + [lib.Dropout(0.2)]),
        lib.ModuleDict({"pool": lib.MaxPool2d(2), "act": lib.LeakyReLU(0.2)}),
        lib.Sequential(lib.Flatten(), lib.LayerNorm([4, 2]), lib.Softmax(dim=1), lib.Identity()),
        lib.Conv1d(4, 4, 2, stride=2, dilation=2, groups=2, padding_mode="circular"),
        lib.AvgPool2d(3, stride=2),
        lib.AdaptiveAvgPool2d((1, None)),
        lib.GELU(approximate="tanh"),
        lib.CrossEntropyLoss(),
    )


def test_repr_matches_torch_for_a_nested_model():
    assert repr(_torch_twin_tree(nn)) == repr(_torch_twin_tree(torch.nn))


def test_repr_uses_extra_repr_of_custom_modules():
    class Scale(nn.Module):
        def extra_repr(self) -> str:
            return "factor=2"

    assert repr(nn.Sequential(Scale())) == "Sequential(\n  (0): Scale(factor=2)\n)"


# ------------------------------------------------------------------------------ containers
def test_sequential_applies_modules_in_order():
    model = nn.Sequential(nn.Linear(2, 2), nn.ReLU())
    x = mt.randn(4, 2)
    assert torch.equal(model(x).torch(), model[1](model[0](x)).torch())


def test_sequential_indexing_supports_negative_indices_and_slices():
    a, b, c = nn.ReLU(), nn.Tanh(), nn.Sigmoid()
    model = nn.Sequential(a, b, c)
    assert model[-1] is c
    head = model[:2]
    assert type(head) is nn.Sequential and list(head) == [a, b]


def test_sequential_index_out_of_range_raises():
    with pytest.raises(IndexError, match="index 3 is out of range"):
        nn.Sequential(nn.ReLU())[3]


def test_sequential_keeps_ordered_dict_names():
    model = nn.Sequential(OrderedDict([("fc", nn.Linear(1, 1)), ("act", nn.ReLU())]))
    assert [n for n, _ in model.named_children()] == ["fc", "act"]
    assert list(model.state_dict()) == ["fc.weight", "fc.bias"]


def test_sequential_append_and_delete_renumber():
    model = nn.Sequential(nn.ReLU(), nn.Tanh()).append(nn.Sigmoid())
    assert len(model) == 3
    del model[0]
    assert list(model._modules) == ["0", "1"] and type(model[0]) is nn.Tanh


def test_sequential_setitem_replaces_a_module():
    model = nn.Sequential(nn.ReLU(), nn.Tanh())
    model[1] = nn.Sigmoid()
    assert type(model[1]) is nn.Sigmoid


def test_sequential_insert_shifts_later_modules():
    model = nn.Sequential(nn.ReLU(), nn.Tanh())
    model.insert(1, nn.Sigmoid())
    assert [type(m).__name__ for m in model] == ["ReLU", "Sigmoid", "Tanh"]


def test_module_list_registers_its_modules():
    layers = nn.ModuleList([nn.Linear(2, 2), nn.Linear(2, 2)])
    layers.append(nn.Linear(2, 1))
    layers.extend([nn.ReLU()])
    assert len(layers) == 4 and type(layers[-1]) is nn.ReLU
    assert [n for n, _ in layers.named_parameters()][-2:] == ["2.weight", "2.bias"]
    assert type(layers[1:]) is nn.ModuleList and len(layers[1:]) == 3


def test_module_list_insert_and_pop():
    layers = nn.ModuleList([nn.ReLU(), nn.Tanh()])
    layers.insert(0, nn.Sigmoid())
    assert type(layers.pop(1)) is nn.ReLU
    assert [type(m).__name__ for m in layers] == ["Sigmoid", "Tanh"]


def test_module_list_extend_rejects_non_iterables():
    with pytest.raises(TypeError, match="ModuleList.extend should be called with an iterable"):
        nn.ModuleList().extend(nn.ReLU())


def test_module_dict_behaves_like_an_ordered_dict():
    layers = nn.ModuleDict({"a": nn.Linear(1, 1)})
    layers["b"] = nn.ReLU()
    layers.update([("c", nn.Tanh())])
    assert list(layers) == ["a", "b", "c"] and "b" in layers and len(layers) == 3
    assert type(layers.pop("b")) is nn.ReLU
    assert list(layers.keys()) == ["a", "c"]
    assert [n for n, _ in layers.named_parameters()] == ["a.weight", "a.bias"]


def test_module_dict_update_rejects_bad_pairs():
    with pytest.raises(ValueError, match="ModuleDict update sequence element #0 has length 3; 2 is required"):
        nn.ModuleDict().update([("a", nn.ReLU(), 1)])


# ------------------------------------------------------------------ torch.nn.modules.* paths
def test_nn_modules_paths_hold_our_classes_under_torchs_names():
    for name in mt.nn.modules.__all__:
        ours, theirs = getattr(mt.nn.modules, name), getattr(torch.nn.modules, name)
        if inspect.ismodule(ours):
            assert ours.__all__ and all(hasattr(theirs, k) for k in ours.__all__), name
            assert all(getattr(ours, k) is getattr(mt.nn, k) for k in ours.__all__ if hasattr(mt.nn, k))
        else:
            assert ours is getattr(mt.nn, name, ours) and ours.__name__ == theirs.__name__


def _focal_loss_program(nn_, F, optim):
    """A loss ported as a user would: ``class FocalLoss(_Loss)`` from ``torch.nn.modules.loss``."""
    _Loss = importlib.import_module(nn_.__name__ + ".modules.loss")._Loss

    class FocalLoss(_Loss):
        def __init__(self, gamma: float = 2.0, reduction: str = "mean") -> None:
            super().__init__(reduction=reduction)
            self.gamma = gamma

        def forward(self, input, target):
            logp = F.log_softmax(input, dim=1).gather(1, target.unsqueeze(1)).squeeze(1)
            loss = -((1 - logp.exp()) ** self.gamma) * logp
            return loss.mean() if self.reduction == "mean" else loss.sum()

    gen = torch.Generator().manual_seed(0)
    x, y = torch.randn(32, 5, generator=gen, dtype=torch.float64), torch.randint(0, 3, (32,), generator=gen)
    w = torch.randn(3, 5, generator=gen, dtype=torch.float64)
    model = nn_.Linear(5, 3).double()
    with torch.no_grad():
        model.weight.copy_(w), model.bias.zero_()
    criterion, opt = FocalLoss(reduction="sum"), optim.SGD(model.parameters(), lr=0.05)
    assert criterion.reduction == "sum"
    losses = []
    for _ in range(5):
        opt.zero_grad()
        loss = criterion(model(x), y)
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return losses


def test_a_loss_ported_from_torch_nn_modules_loss_trains_as_on_torch():
    from minitorch_rx.nn.modules.loss import _Loss

    assert _Loss is mt.nn.loss._Loss
    ours = _focal_loss_program(mt.nn, mt.nn.functional, mt.optim)
    theirs = _focal_loss_program(torch.nn, torch.nn.functional, torch.optim)
    assert ours == theirs and ours[-1] < ours[0]
