"""Libraries written against torch, given mt tensors (issue 23): torch modules and parameters,
torchvision.ops, einops, torch modules as children of ours, nanoGPT's get_batch, and PyTorch's
creation and method signatures. Outputs and gradients against the same computation on torch
tensors, in float64."""

from __future__ import annotations

import einops
import pytest
import torch
import torchvision.ops as tv_ops
from einops.layers.torch import Rearrange, Reduce

import minitorch_rx as mt
import minitorch_rx.nn as nn

F64 = torch.float64


def pair(*shape: int, seed: int = 0) -> tuple[mt.Tensor, torch.Tensor]:
    data = torch.randn(*shape, dtype=F64, generator=torch.Generator().manual_seed(seed))
    return mt.from_torch(data.clone(), requires_grad=True), data.clone().requires_grad_(True)


def check(ours: mt.Tensor, theirs: torch.Tensor, inputs: list[tuple[object, torch.Tensor]]) -> None:
    """Same values, and after backward of a weighted sum, the same gradient for each input pair."""
    assert isinstance(ours, mt.Tensor) and ours.requires_grad
    torch.testing.assert_close(ours.torch(), theirs.detach())
    weights = torch.linspace(-1, 2, theirs.numel(), dtype=F64).reshape(theirs.shape)
    (ours * weights).sum().backward()
    (theirs * weights).sum().backward()
    for mine, ref in inputs:
        torch.testing.assert_close(mine.grad.torch() if isinstance(mine, mt.Tensor) else mine.grad, ref.grad)


# ------------------------------------------------------------------ torch modules and parameters
def test_torch_module_with_parameters_records_the_input_and_fills_its_parameters_grads():
    torch.manual_seed(0)
    layer = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.GELU(), torch.nn.LayerNorm(4)).double()
    twin = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.GELU(), torch.nn.LayerNorm(4)).double()
    twin.load_state_dict(layer.state_dict())
    x, x_ref = pair(5, 3)
    check(layer(x * 2), twin(x_ref * 2), [(x, x_ref)])
    for p, q in zip(layer.parameters(), twin.parameters()):
        torch.testing.assert_close(p.grad, q.grad)


def test_torch_leaf_in_an_mt_op_gets_its_grad_as_pytorch_gives_it():
    w = torch.randn(3, dtype=F64, requires_grad=True)
    w_ref = w.detach().clone().requires_grad_(True)
    x, x_ref = pair(2, 3)
    check((x * w).exp() + w, (x_ref * w_ref).exp() + w_ref, [(x, x_ref), (w, w_ref)])


def test_torch_tensor_computed_by_torch_passes_its_gradient_on_through_torchs_graph():
    w = torch.randn(3, dtype=F64, requires_grad=True)
    w_ref = w.detach().clone().requires_grad_(True)
    x, x_ref = pair(3)
    check(
        mt.stack([x, w.sin()]).sum(0) * w.cos(),
        torch.stack([x_ref, w_ref.sin()]).sum(0) * w_ref.cos(),
        [(x, x_ref), (w, w_ref)],
    )


def test_torch_leaves_in_mt_ops_make_no_reference_cycle():
    """Reference counting alone frees a graph with torch leaves in it, after backward or dropped
    without one, as it does every other graph."""
    import gc

    from tests.test_higher_order import _cyclic_garbage_of_ours

    w = torch.randn(3, requires_grad=True)
    layer = torch.nn.Linear(3, 2)
    x = mt.randn(3, requires_grad=True)
    (x * w).sum().backward()  # first calls may import and cache: not counted
    gc.collect()
    gc.disable()
    try:
        (x * w + w).sum().backward()
        dropped = layer(x * w).sum()
        del dropped
        layer(x).sum().backward()
        assert _cyclic_garbage_of_ours() == []
    finally:
        gc.enable()
    torch.testing.assert_close(w.grad, 2 * x.torch() + 1)
    assert layer.weight.grad is not None and x.grad is not None


def test_torch_tensor_under_no_grad_is_a_constant():
    w = torch.ones(2, requires_grad=True)
    with mt.no_grad():
        y = mt.ones(2) * w
    assert not y.requires_grad and w.grad is None


@pytest.mark.parametrize("mode", [torch.no_grad, torch.inference_mode])
def test_torch_functions_under_torchs_no_grad_record_nothing(mode):
    x = mt.randn(3, requires_grad=True)
    with mode():
        y = torch.mul(x, 2) + torch.nn.functional.relu(x)
        y = torch.special.erfcx(y)  # one mt lacks: torch's result, as a constant
    assert not y.requires_grad
    assert torch.mul(x, 2).requires_grad  # recording again after the block


def test_in_place_ops_on_a_parameter_under_torchs_no_grad_are_allowed():
    w = nn.Parameter(mt.ones(2))
    with torch.no_grad():
        w.mul_(3).add_(1)
    assert w.requires_grad and w.grad_fn is None and w.tolist() == [4.0, 4.0]
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad"):
        w.mul_(3)


INITS = {
    "uniform_": lambda t: torch.nn.init.uniform_(t, -0.1, 0.1),
    "normal_": lambda t: torch.nn.init.normal_(t, 0.0, 0.02),
    "trunc_normal_": lambda t: torch.nn.init.trunc_normal_(t, std=0.02),
    "constant_": lambda t: torch.nn.init.constant_(t, 0.5),
    "ones_": torch.nn.init.ones_,
    "zeros_": torch.nn.init.zeros_,
    "eye_": torch.nn.init.eye_,
    "dirac_": torch.nn.init.dirac_,
    "xavier_uniform_": torch.nn.init.xavier_uniform_,
    "xavier_normal_": torch.nn.init.xavier_normal_,
    "kaiming_uniform_": lambda t: torch.nn.init.kaiming_uniform_(t, a=5**0.5),
    "kaiming_normal_": lambda t: torch.nn.init.kaiming_normal_(t, mode="fan_out", nonlinearity="relu"),
    "orthogonal_": torch.nn.init.orthogonal_,
    "sparse_": lambda t: torch.nn.init.sparse_(t, 0.5),
}


@pytest.mark.parametrize("name", list(INITS))
def test_torch_nn_init_fills_our_parameters_as_torchs(name):
    """Third-party layers' reset_parameters call torch.nn.init on their (here: our) parameters."""
    shape = (8, 4, 3) if name == "dirac_" else (8, 12)
    ours, theirs = nn.Parameter(mt.empty(*shape)), torch.nn.Parameter(torch.empty(*shape))
    torch.manual_seed(0)
    result = INITS[name](ours)
    torch.manual_seed(0)
    INITS[name](theirs)
    assert result is ours and ours.requires_grad and ours.grad_fn is None
    values, expected = ours.torch(), theirs.detach()
    if name in ("constant_", "ones_", "zeros_", "eye_", "dirac_"):
        torch.testing.assert_close(values, expected)
    else:  # the same distribution: bounds and spread
        assert values.abs().max() <= 4 * expected.abs().max() and 0.5 < values.std() / expected.std() < 2


# ------------------------------------------------------------------ torch modules as children
def test_parameterless_torch_modules_are_children_of_ours():
    torch.manual_seed(0)
    model = nn.Sequential(Rearrange("b c h w -> b (c h w)"), nn.Linear(12, 4), torch.nn.Identity(), torch.nn.Tanh())
    flat = nn.Sequential(torch.nn.Flatten(), nn.Linear(12, 4), torch.nn.Tanh()).double()
    model.double()
    flat[1].load_state_dict(model[1].state_dict())
    assert [name for name, _ in model.named_parameters()] == ["1.weight", "1.bias"]
    assert list(model.state_dict()) == ["1.weight", "1.bias"] and "Rearrange" in repr(model)
    model.eval().train()
    x, x_ref = pair(2, 3, 2, 2)
    ref = torch.tanh(torch.nn.functional.linear(x_ref.flatten(1), model[1].weight.torch(), model[1].bias.torch()))
    check(model(x), ref, [(x, x_ref)])
    torch.testing.assert_close(flat(x.detach()).torch(), ref.detach())


# ------------------------------------------------------------------ einops
EINOPS = {
    "rearrange": lambda x: einops.rearrange(x, "b (h w) c -> b c h w", h=2),
    "reduce mean": lambda x: einops.reduce(x, "b s c -> b c", "mean"),
    "reduce max": lambda x: einops.reduce(x, "b (s two) c -> b s c", "max", two=2),
    "repeat": lambda x: einops.repeat(x, "b s c -> b s c r", r=3),
    "einsum": lambda x: einops.einsum(x, x, "b s c, b t c -> b s t"),
    "pack": lambda x: einops.pack([x, x[:, :1]], "b * c")[0],
    "Rearrange layer": lambda x: Rearrange("b s c -> b c s")(x),
    "Reduce layer": lambda x: Reduce("b s c -> b c", "sum")(x),
}


@pytest.mark.parametrize("name", EINOPS)
def test_einops_on_mt_tensors_matches_torch(name):
    x, x_ref = pair(2, 4, 3)
    check(EINOPS[name](x), EINOPS[name](x_ref), [(x, x_ref)])


# ------------------------------------------------------------------ torchvision.ops
TV_OPS = {
    "sigmoid_focal_loss": lambda a, b: tv_ops.sigmoid_focal_loss(a, b.sigmoid(), reduction="sum"),
    "box_iou": lambda a, b: tv_ops.box_iou(a.abs().cumsum(1), b.abs().cumsum(1)),
    "generalized_box_iou_loss": lambda a, b: tv_ops.generalized_box_iou_loss(a.abs().cumsum(1), b.abs().cumsum(1)),
    "distance_box_iou_loss": lambda a, b: tv_ops.distance_box_iou_loss(a.abs().cumsum(1), b.abs().cumsum(1)),
    "box_convert": lambda a, b: tv_ops.box_convert(a + b, "xyxy", "cxcywh"),
}


@pytest.mark.parametrize("name", TV_OPS)
def test_torchvision_ops_on_mt_tensors_match_torch(name):
    (a, a_ref), (b, b_ref) = pair(3, 4), pair(3, 4, seed=1)
    check(TV_OPS[name](a, b), TV_OPS[name](a_ref, b_ref), [(a, a_ref), (b, b_ref)])


def test_torchvision_complete_box_iou_loss_gradient():
    # it makes a term under torch.no_grad(): our ops follow torch's grad mode, so no gradient flows through it
    (a, a_ref), (b, b_ref) = pair(3, 4), pair(3, 4, seed=1)
    loss = tv_ops.complete_box_iou_loss
    check(loss(a.abs().cumsum(1), b.abs().cumsum(1)), loss(a_ref.abs().cumsum(1), b_ref.abs().cumsum(1)), [(a, a_ref)])


def test_torchvision_nms_takes_mt_tensors():
    boxes = mt.tensor([[0.0, 0.0, 2.0, 2.0], [0.1, 0.1, 2.0, 2.0], [3.0, 3.0, 4.0, 4.0]])
    assert tv_ops.nms(boxes, mt.tensor([0.9, 0.8, 0.7]), 0.5).tolist() == [0, 2]


# ------------------------------------------------------------------ a program's own idioms
def test_nanogpts_get_batch():
    data = mt.tensor(list(range(100)), dtype=torch.long)
    block_size, batch_size = 8, 4
    mt.manual_seed(0)
    ix = torch.randint(len(data) - block_size, (batch_size,))
    x = mt.stack([data[i : i + block_size] for i in ix])
    y = mt.stack([data[i + 1 : i + 1 + block_size] for i in ix])
    assert x.shape == (4, 8) and torch.equal((y - x).torch(), torch.ones(4, 8, dtype=torch.long))
    ix2 = mt.randint(len(data) - block_size, (batch_size,), generator=torch.Generator().manual_seed(0))
    assert torch.equal(ix2.torch(), torch.randint(92, (4,), generator=torch.Generator().manual_seed(0)))


# ------------------------------------------------------------------ PyTorch's signatures
def _gen() -> torch.Generator:
    return torch.Generator().manual_seed(0)


# Calls as PyTorch's docs and overloads (``torch._C._VariableFunctions``) give them; each runs on
# torch (``ns`` = torch, ``X`` a torch tensor) and on minitorch_rx (``ns`` = mt, ``X`` an mt tensor).
SIGNATURES = [
    "ns.zeros(2, 3)",
    "ns.zeros((2, 3))",
    "ns.zeros([2, 3])",
    "ns.zeros(size=(2, 3))",
    "ns.zeros(torch.Size([2]))",
    "ns.zeros(2, dtype=F64, device='cpu', layout=torch.strided, pin_memory=False)",
    "ns.zeros(())",
    "ns.ones(size=(2,), dtype=torch.int64)",
    "ns.empty(size=(2, 3), memory_format=torch.contiguous_format).shape",
    "ns.full((2, 3), 1.5)",
    "ns.full(size=(2,), fill_value=2)",
    "ns.rand(2, 3, generator=_gen())",
    "ns.rand(size=(2,), generator=_gen())",
    "ns.randn((2, 3), generator=_gen(), dtype=F64)",
    "ns.randint(10, (3,), generator=_gen())",
    "ns.randint(2, 10, (3,), generator=_gen())",
    "ns.randint(low=2, high=10, size=(3,), generator=_gen())",
    "ns.randint(high=10, size=(3,), generator=_gen())",
    "ns.randint(5, (2, 2), generator=_gen(), dtype=torch.int32, device='cpu')",
    "ns.arange(5)",
    "ns.arange(1, 5, 2)",
    "ns.arange(end=5)",
    "ns.arange(0, 1, 0.25, dtype=F64)",
    "ns.linspace(0, 1, steps=5)",
    "ns.logspace(0, 1, steps=3, base=2.0)",
    "ns.eye(n=2, m=3, dtype=F64)",
    "ns.zeros_like(X, memory_format=torch.preserve_format)",
    "ns.ones_like(input=X)",
    "ns.full_like(X, 3.0)",
    "ns.randn_like(X, dtype=F64).shape",
    "X.new_zeros(size=(2,))",
    "X.new_zeros(2, 3)",
    "X.new_ones((2,), dtype=torch.int64)",
    "X.new_full((2,), 3.0)",
    "X.float(memory_format=torch.preserve_format)",
    "X.double(memory_format=torch.contiguous_format)",
    "X.half(memory_format=torch.preserve_format)",
    "X.long(memory_format=torch.preserve_format)",
    "X.int(memory_format=torch.preserve_format)",
    "X.bool(memory_format=torch.preserve_format)",
    "X.cpu(memory_format=torch.preserve_format)",
    "X.contiguous(memory_format=torch.contiguous_format)",
    "X.is_contiguous(memory_format=torch.channels_last)",
    "X.clone(memory_format=torch.preserve_format)",
    "X.to(F64, memory_format=torch.preserve_format)",
    "X.to('cpu', F64, False, False)",
    "X.div(2, rounding_mode='floor')",
    "ns.div(X, -4, rounding_mode='trunc')",
    "X.div(X + 1, rounding_mode=None)",
    "X.flip(dims=(0,))",
    "X.flip(0, 1)",
    "X.flip([0, 1])",
    "ns.flip(X, dims=[1])",
    "X.std(0, True)",
    "X.std(False)",
    "X.var(False)",
    "X.var(1, False, True)",
    "X.std(dim=1, unbiased=True, keepdim=True)",
    "ns.std(X, 0, True)",
    "ns.var(X, unbiased=False)",
    "X.std(correction=0)",
    "X.view(torch.int64)",
    "X.view(size=(3, 2))",
    "X.reshape(shape=(3, 2))",
    "X.permute(dims=(1, 0))",
]


@pytest.mark.parametrize("call", SIGNATURES)
def test_pytorch_signatures(call):
    data = torch.arange(6.0, dtype=F64).reshape(2, 3)
    theirs = eval(call, {"ns": torch, "torch": torch, "X": data.clone(), "F64": F64, "_gen": _gen})
    ours = eval(call, {"ns": mt, "torch": torch, "X": mt.from_torch(data.clone()), "F64": F64, "_gen": _gen})
    if isinstance(theirs, torch.Tensor):
        assert isinstance(ours, mt.Tensor)
        torch.testing.assert_close(ours.torch(), theirs, rtol=0, atol=0)
        assert ours.torch().stride() == theirs.stride()
    else:
        assert ours == theirs


def test_creation_keywords_requires_grad_and_out():
    x = mt.zeros(2, 3, dtype=F64, requires_grad=True)
    assert x.requires_grad and x.is_leaf
    out = mt.empty(3)
    assert mt.arange(3, out=out) is out and out.tolist() == [0.0, 1.0, 2.0]
    with pytest.raises(RuntimeError, match="only Tensors of floating point and complex dtype can require gradients"):
        mt.randint(3, (2,), requires_grad=True)
    with pytest.raises(RuntimeError, match=r"zeros\(\): functions with out=... arguments don't support automatic"):
        mt.zeros(2, out=mt.empty(2, requires_grad=True))


def test_div_with_rounding_has_pytorchs_zero_gradient():
    x, x_ref = pair(4)
    check(mt.div(x * 3, 2, rounding_mode="floor"), torch.div(x_ref * 3, 2, rounding_mode="floor"), [(x, x_ref)])


# ----------------------------------------- libraries that check isinstance(x, torch.Tensor) (issue 34)
def test_mt_tensors_are_torch_tensors_and_torch_tensor_methods_record():
    x, x_ref = pair(2, 3)
    assert isinstance(x, torch.Tensor) and torch.is_tensor(x) and x.is_leaf
    check(torch.Tensor.add(x, 1).exp(), torch.Tensor.add(x_ref, 1).exp(), [(x, x_ref)])


def test_making_a_tensor_ours_never_changes_the_callers_torch_tensor():
    t = torch.randn(3)
    for made in (mt.as_tensor(t), mt.from_torch(t), mt.Tensor(t), nn.Parameter(t), mt.tensor(t)):
        assert isinstance(made, mt.Tensor)
    assert type(t) is torch.Tensor and not t.requires_grad


@pytest.mark.parametrize("create_graph", [False, True])
def test_torch_autograd_grad_runs_our_engine(create_graph):
    x, x_ref = pair(4)
    (g,) = torch.autograd.grad((x**3).sum(), x, create_graph=create_graph)
    (g_ref,) = torch.autograd.grad((x_ref**3).sum(), x_ref, create_graph=create_graph)
    assert isinstance(g, mt.Tensor) and g.requires_grad == create_graph
    torch.testing.assert_close(g.torch(), g_ref.detach())
    if create_graph:  # a gradient penalty: the gradient's own gradient
        check((g**2).sum().reshape(1), (g_ref**2).sum().reshape(1), [(x, x_ref)])


def test_torch_autograd_backward_runs_our_engine():
    x, x_ref = pair(3)
    torch.autograd.backward([(x * 2).sin().sum()])
    torch.autograd.backward([(x_ref * 2).sin().sum()])
    torch.testing.assert_close(x.grad.torch(), x_ref.grad)


def test_torch_optimizer_trains_our_parameters_step_for_step():
    torch.manual_seed(0)
    ours, theirs = nn.Linear(3, 2).double(), torch.nn.Linear(3, 2).double()
    theirs.load_state_dict({k: v.torch() for k, v in ours.state_dict().items()})
    opt, opt_ref = torch.optim.Adam(ours.parameters(), lr=0.1), torch.optim.Adam(theirs.parameters(), lr=0.1)
    x = torch.randn(5, 3, dtype=F64)
    for _ in range(3):
        for model, o in ((ours, opt), (theirs, opt_ref)):
            o.zero_grad()
            model(mt.tensor(x) if model is ours else x).pow(2).sum().backward()
            o.step()
    torch.testing.assert_close(ours.weight.torch(), theirs.weight.detach(), rtol=0, atol=0)
    assert isinstance(ours.weight, torch.nn.Parameter) and ours.weight.grad_fn is None


def test_torchvision_make_grid_and_save_image_take_mt_tensors(tmp_path):
    import torchvision.utils as vutils

    images = torch.rand(4, 3, 6, 5, dtype=F64)
    grid = vutils.make_grid(mt.tensor(images), nrow=2, padding=1, normalize=True)
    assert isinstance(grid, mt.Tensor)
    torch.testing.assert_close(grid.torch(), vutils.make_grid(images, nrow=2, padding=1, normalize=True))
    vutils.save_image(mt.tensor(images), tmp_path / "ours.png")
    vutils.save_image(images, tmp_path / "theirs.png")
    assert (tmp_path / "ours.png").read_bytes() == (tmp_path / "theirs.png").read_bytes()


def test_torchvision_draw_bounding_boxes_takes_mt_tensors():
    import torchvision.utils as vutils

    image = (torch.rand(3, 20, 20) * 255).to(torch.uint8)
    boxes = torch.tensor([[2.0, 3.0, 12.0, 15.0]])
    drawn = vutils.draw_bounding_boxes(mt.tensor(image), mt.tensor(boxes), colors="red")
    assert torch.equal(
        drawn.torch() if isinstance(drawn, mt.Tensor) else drawn, vutils.draw_bounding_boxes(image, boxes, colors="red")
    )


def _v2_transforms():
    import torchvision.transforms.v2 as T

    return {
        "Resize": T.Resize((5, 7), antialias=True),
        "Resize-bicubic": T.Resize(6, interpolation=T.InterpolationMode.BICUBIC, antialias=True),
        "CenterCrop": T.CenterCrop(5),
        "RandomCrop": T.RandomCrop(6, padding=1),
        "RandomResizedCrop": T.RandomResizedCrop(6, antialias=True),
        "RandomHorizontalFlip": T.RandomHorizontalFlip(1.0),
        "RandomVerticalFlip": T.RandomVerticalFlip(1.0),
        "Normalize-after-Resize": T.Compose([T.Resize((4, 4), antialias=True), T.Normalize([0.5] * 3, [0.25] * 3)]),
        "ColorJitter": T.ColorJitter(0.4, 0.4, 0.4),
    }


@pytest.mark.parametrize("name", list(_v2_transforms()))
def test_torchvision_transforms_v2_on_mt_tensor_images_match_torch(name):
    transform = _v2_transforms()[name]
    x, x_ref = pair(2, 3, 10, 9)
    x_ref.data, x.data = x_ref.data.sigmoid(), x.torch().sigmoid()  # an image in [0, 1]
    torch.manual_seed(3)
    ours = transform(x)
    torch.manual_seed(3)
    theirs = transform(x_ref)
    check(ours, theirs, [(x, x_ref)])


def test_torchvision_color_jitter_hue_on_mt_tensor_images_matches_torch():
    import torchvision.transforms.v2 as T

    image = torch.rand(2, 3, 6, 6, dtype=F64)  # hue's kernel is in place on unbind's views: no gradient, in torch too
    torch.manual_seed(1)
    ours = T.ColorJitter(hue=0.2)(mt.tensor(image))
    torch.manual_seed(1)
    assert isinstance(ours, mt.Tensor)
    torch.testing.assert_close(ours.torch(), T.ColorJitter(hue=0.2)(image))


@pytest.mark.parametrize("name", ["gaussian_blur2d", "sobel", "ssim_loss", "total_variation", "rgb_to_grayscale"])
def test_kornia_filters_and_losses_on_mt_tensors_match_torch(name):
    kornia = pytest.importorskip("kornia", reason="kornia is not installed")
    calls = {
        "gaussian_blur2d": lambda t: kornia.filters.gaussian_blur2d(t, (3, 3), (1.0, 1.0)),
        "sobel": lambda t: kornia.filters.sobel(t),
        "ssim_loss": lambda t: kornia.losses.ssim_loss(t, t.detach() * 0.5 + 0.1, 3).reshape(1),
        "total_variation": lambda t: kornia.losses.total_variation(t),
        "rgb_to_grayscale": lambda t: kornia.color.rgb_to_grayscale(t),
    }
    x, x_ref = pair(2, 3, 8, 8)
    check(calls[name](x), calls[name](x_ref), [(x, x_ref)])
