"""mt tensors and torch tensors meeting (issue 14): torch's functions on mt tensors, torch tensors in
mt ops and modules, ``default_collate``, torchvision transforms, ``.data``, ``next_functions``, ``__format__``."""

from __future__ import annotations

import copy
import operator
import pickle
import re

import pytest
import torch
import torch.utils.data
import torchvision.transforms as T
from PIL import Image

import minitorch_rx as mt
import minitorch_rx.nn as nn
import minitorch_rx.nn.functional as F

F64 = torch.float64


def leaf(*values: float) -> mt.Tensor:
    return mt.tensor(list(values), dtype=F64, requires_grad=True)


# ------------------------------------------------------------------ torch functions on mt tensors
def both(values: list[float], *shape: int) -> tuple[mt.Tensor, torch.Tensor]:
    data = torch.tensor(values, dtype=F64).reshape(shape or (-1,))
    return mt.from_torch(data.clone(), requires_grad=True), data.clone().requires_grad_(True)


TORCH_CALLS = {
    "torch.sin": lambda x: torch.sin(x),
    "torch.stack": lambda x: torch.stack([x, x * 2], dim=1),
    "torch.einsum": lambda x: torch.einsum("ij,kj->ik", x, x),
    "F.gelu": lambda x: torch.nn.functional.gelu(x),
    "F.softmax": lambda x: torch.nn.functional.softmax(x, dim=-1),
    "F.layer_norm": lambda x: torch.nn.functional.layer_norm(x, (3,)),
    "torch.linalg.vector_norm": lambda x: torch.linalg.vector_norm(x, dim=1),
    "torch.add": lambda x: torch.add(x, x, alpha=2),
    "torch.where": lambda x: torch.where(x > 0, x, x * x),
    "torch.cat": lambda x: torch.cat([x, torch.ones(2, 3, dtype=F64)]),
}


@pytest.mark.parametrize("name", TORCH_CALLS)
def test_torch_function_on_mt_tensors_records_as_torch_autograd_does(name):
    call = TORCH_CALLS[name]
    x, x_ref = both([0.5, -1.0, 2.0, 0.25, 1.5, -0.75], 2, 3)
    out, ref = call(x), call(x_ref)
    assert type(out) is mt.Tensor and out.grad_fn is not None
    torch.testing.assert_close(out.torch(), ref.detach())
    weights = torch.linspace(-1, 1, ref.numel(), dtype=F64).reshape(ref.shape)
    (out * weights).sum().backward()
    (ref * weights).sum().backward()
    torch.testing.assert_close(x.grad.torch(), x_ref.grad)


# torch functions minitorch_rx may not define (the first it lacks is the one tested), by their names.
_CANDIDATES_LACKING = {
    "torch.special.erfcx": torch.special.erfcx,
    "torch.special.scaled_modified_bessel_k1": torch.special.scaled_modified_bessel_k1,
    "torch.special.spherical_bessel_j0": torch.special.spherical_bessel_j0,
    "torch.fft.ihfft2": torch.fft.ihfft2,
    "torch.nuclear_norm": torch.nuclear_norm,
}


def _lacking():
    from minitorch_rx.autograd.torch_function import _mt_function

    for name, func in _CANDIDATES_LACKING.items():
        if _mt_function(func) is None:
            return name, func
    pytest.fail("minitorch_rx now defines every candidate: add a function it lacks to _CANDIDATES_LACKING")


def test_torch_function_mt_lacks_raises_for_inputs_that_require_grad():
    name, func = _lacking()
    x = leaf(0.5, 1.0).reshape(2, 1)
    message = (
        f"{name} is not differentiable by minitorch_rx yet (called with minitorch_rx tensors that require "
        "grad); use x.detach() to call it as a constant"
    )
    with pytest.raises(RuntimeError, match=f"^{re.escape(message)}$"):
        func(x)
    with pytest.raises(RuntimeError, match=re.escape(name)):
        func(input=x * 2)  # keywords, and a tensor with history


def test_torch_function_mt_lacks_runs_on_the_data_without_grad():
    _, func = _lacking()
    x = mt.tensor([[0.5], [1.0]], dtype=F64)
    out = func(x)
    assert type(out) is mt.Tensor and not out.requires_grad and torch.equal(out.torch(), func(x.torch()))
    with mt.no_grad():
        assert torch.equal(func(x.requires_grad_(True)), out)
    assert torch.equal(func(x.detach()), out)


def test_torch_tensor_method_with_an_mt_operand_that_requires_grad_records():
    a = torch.tensor([0.5, 2.0], dtype=F64)
    b, b_ref = both([1.5, 3.0])
    out = a.mul(b).exp()
    assert isinstance(out, mt.Tensor)
    out.sum().backward()
    a.mul(b_ref).exp().sum().backward()
    torch.testing.assert_close(b.grad.torch(), b_ref.grad)


def test_torch_tensor_in_place_with_an_mt_operand_that_requires_grad_raises():
    with pytest.raises(
        RuntimeError, match="torch.Tensor.add_ on a torch.Tensor with minitorch_rx tensors that require grad"
    ):
        torch.zeros(2, dtype=F64).add_(leaf(1.0, 2.0))


def test_torch_functions_take_lists_and_keywords_of_mt_tensors():
    a, b = mt.ones(2), mt.zeros(2)
    assert torch.equal(torch.stack([a, b]), torch.tensor([[1.0, 1.0], [0.0, 0.0]]))
    assert torch.equal(torch.where(b > 0, input=a, other=b), torch.zeros(2))


def test_torch_tensor_methods_take_mt_operands_on_the_data():
    t = torch.zeros(2, dtype=F64)
    t.add_(leaf(1.0, 2.0).detach())
    assert t.tolist() == [1.0, 2.0]
    t[mt.tensor([0])] = mt.tensor([5.0], dtype=F64)
    assert t.tolist() == [5.0, 2.0]
    rows = torch.arange(6.0).reshape(3, 2)
    assert torch.equal(rows[mt.tensor([2, 0] * 16)], rows[torch.tensor([2, 0] * 16)])


@pytest.mark.parametrize(
    "op", [operator.add, operator.sub, operator.mul, operator.truediv, operator.pow, operator.matmul]
)
def test_torch_tensor_operator_mt_tensor_is_a_recorded_mt_tensor(op):
    a = torch.tensor([0.5, 2.0], dtype=F64)
    b = leaf(1.5, 3.0)
    out = op(a, b)
    assert isinstance(out, mt.Tensor) and out.grad_fn is not None
    out.sum().backward()
    b_ref = b.torch().clone().requires_grad_(True)
    op(a, b_ref).sum().backward()
    torch.testing.assert_close(out.torch(), op(a, b_ref).detach())
    torch.testing.assert_close(b.grad.torch(), b_ref.grad)


@pytest.mark.parametrize("op", [operator.eq, operator.ne, operator.lt, operator.le, operator.gt, operator.ge])
def test_torch_tensor_compared_with_mt_tensor_is_an_mt_tensor(op):
    a, b = torch.tensor([1.0, 2.0]), mt.tensor([2.0, 2.0])
    out = op(a, b)
    assert isinstance(out, mt.Tensor)
    assert out.tolist() == op(a, b.torch()).tolist()


def test_in_place_operator_on_a_torch_tensor_stays_in_place():
    total = torch.zeros(2)
    same = total
    total += mt.ones(2)
    assert total is same and total.tolist() == [1.0, 1.0]


# ------------------------------------------------------------------ torch tensors into mt
def test_module_takes_a_torch_batch_as_a_constant():
    torch.manual_seed(0)
    model = nn.Sequential(nn.Conv2d(1, 2, 3), nn.ReLU(), nn.Flatten(), nn.Linear(8, 3))
    criterion = nn.CrossEntropyLoss()
    images, labels = torch.randn(5, 1, 4, 4), torch.tensor([0, 1, 2, 0, 1])
    loss = criterion(model(images), labels)
    loss.backward()
    assert all(p.grad is not None for p in model.parameters())
    assert torch.equal(loss.torch(), criterion(model(mt.from_torch(images)), mt.from_torch(labels)).torch())


def test_default_collate_stacks_mt_samples_into_an_mt_batch():
    batch = torch.utils.data.default_collate([(mt.ones(2), 0), (mt.zeros(2), 1)])
    assert type(batch[0]) is mt.Tensor and batch[0].tolist() == [[1.0, 1.0], [0.0, 0.0]]
    assert batch[1].tolist() == [0, 1]


@pytest.mark.parametrize("context", ["fork", "spawn"])
def test_torch_dataloader_workers_collate_mt_samples_into_mt_batches(context):
    dataset = torch.utils.data.TensorDataset(mt.arange(8.0).reshape(4, 2), mt.tensor([0, 1, 0, 1]))
    loader = torch.utils.data.DataLoader(dataset, batch_size=2, num_workers=2, multiprocessing_context=context)
    batches = list(loader)
    assert all(type(x) is mt.Tensor and type(y) is mt.Tensor for x, y in batches)
    assert [x.tolist() for x, _ in batches] == [[[0.0, 1.0], [2.0, 3.0]], [[4.0, 5.0], [6.0, 7.0]]]


def test_torch_dataloader_batches_a_dataset_of_mt_tensors():
    dataset = torch.utils.data.TensorDataset(mt.arange(8.0).reshape(4, 2), mt.tensor([0, 1, 0, 1]))
    x, y = next(iter(torch.utils.data.DataLoader(dataset, batch_size=3)))
    assert x.tolist() == [[0.0, 1.0], [2.0, 3.0], [4.0, 5.0]] and y.tolist() == [0, 1, 0]


def test_mt_dataloader_is_torchs_and_yields_mt_tensors():
    dataset = mt.utils.data.TensorDataset(torch.arange(8.0).reshape(4, 2), torch.tensor([0, 1, 0, 1]))
    loader = mt.utils.data.DataLoader(dataset, batch_size=2, shuffle=True, generator=torch.Generator().manual_seed(0))
    assert isinstance(loader, torch.utils.data.DataLoader) and len(loader) == 2
    batches = list(loader)
    assert all(type(x) is mt.Tensor and type(y) is mt.Tensor for x, y in batches)
    assert sorted(v for _, y in batches for v in y.tolist()) == [0, 0, 1, 1]


def test_mt_dataloader_wraps_dicts_and_named_tuples():
    from collections import namedtuple

    Pair = namedtuple("Pair", "x y")
    loader = mt.utils.data.DataLoader([{"a": torch.ones(2), "b": Pair(torch.zeros(1), 3)}] * 2, batch_size=2)
    batch = next(iter(loader))
    assert type(batch["a"]) is mt.Tensor and type(batch["b"]) is Pair and type(batch["b"].x) is mt.Tensor


def test_random_split_and_subset_are_torchs():
    parts = mt.utils.data.random_split(range(10), [7, 3], generator=torch.Generator().manual_seed(0))
    assert [len(p) for p in parts] == [7, 3] and isinstance(parts[0], mt.utils.data.Subset)
    assert mt.utils.data.DataLoader is not torch.utils.data.DataLoader
    assert mt.utils.data.Dataset is torch.utils.data.Dataset


def test_mt_op_inside_a_torchvision_transform_reaches_default_collate():
    transform = T.Compose([T.ToTensor(), T.Lambda(lambda x: mt.from_torch(x) * 2 - 1)])
    images = [Image.new("L", (4, 4), color=c) for c in (0, 255)]
    dataset = [(transform(img), i) for i, img in enumerate(images)]
    assert type(dataset[0][0]) is mt.Tensor
    x, y = next(iter(mt.utils.data.DataLoader(dataset, batch_size=2)))
    assert x.shape == (2, 1, 4, 4) and x[:, 0, 0, 0].tolist() == [-1.0, 1.0] and y.tolist() == [0, 1]


def test_pickling_keeps_data_and_requires_grad_and_makes_a_leaf():
    w = leaf(1.0, 2.0)
    back = pickle.loads(pickle.dumps((w * 2, mt.nn.Parameter(mt.ones(1)))))
    assert back[0].is_leaf and back[0].requires_grad and back[0].tolist() == [2.0, 4.0]
    assert type(back[1]) is mt.nn.Parameter


def test_deepcopy_copies_a_leaf_with_its_grad():
    w = leaf(1.0, 2.0)
    w.grad = mt.ones(2, dtype=F64)
    twin = copy.deepcopy(w)
    assert twin.requires_grad and twin.grad.tolist() == [1.0, 1.0]
    assert twin.torch().data_ptr() != w.torch().data_ptr() and twin.grad is not w.grad


def test_dataloader_workers_started_by_spawn_take_mt_datasets():
    dataset = torch.utils.data.TensorDataset(mt.arange(8.0).reshape(4, 2), mt.tensor([0, 1, 0, 1]))
    loader = mt.utils.data.DataLoader(dataset, batch_size=2, num_workers=1, multiprocessing_context="spawn")
    assert [x.tolist() for x, _ in loader] == [[[0.0, 1.0], [2.0, 3.0]], [[4.0, 5.0], [6.0, 7.0]]]


# ------------------------------------------------------------------ .data, as PyTorch's
def test_manual_sgd_through_data_matches_torch():
    w_mt, w_t = leaf(1.0, -2.0), torch.tensor([1.0, -2.0], dtype=F64, requires_grad=True)
    x = torch.tensor([0.5, 3.0], dtype=F64)
    for _ in range(3):
        for w in (w_mt, w_t):
            ((w * x).sum() ** 2).backward()
            w.data.add_(-0.1 * w.grad)
            w.grad.data.zero_()
    torch.testing.assert_close(w_mt.torch(), w_t.detach())
    assert w_mt.grad.tolist() == [0.0, 0.0] and w_mt.is_leaf and w_mt.requires_grad


def test_data_copy_and_assignment_change_the_parameter():
    w = leaf(1.0, 2.0)
    w.data.copy_(mt.tensor([3.0, 4.0], dtype=F64))
    assert w.tolist() == [3.0, 4.0]
    w.data = mt.zeros(3, dtype=F64)
    assert w.shape == (3,) and w.requires_grad


def test_data_in_place_change_is_not_seen_by_backward_checks():
    w = leaf(1.0, 2.0)
    y = w.exp()  # saves its output
    w.data.mul_(2)  # PyTorch's .data: its own version counter
    y.sum().backward()
    assert w.grad is not None


# ------------------------------------------------------------------ grad_fn, format
def test_next_functions_are_node_and_input_nr_pairs():
    w, x = leaf(1.0, 2.0), mt.tensor([3.0, 4.0], dtype=F64)
    y = w * x
    (acc, nr), (missing, missing_nr) = y.grad_fn.next_functions
    assert acc.name() == "torch::autograd::AccumulateGrad" and acc.variable is w and nr == 0
    assert missing is None and missing_nr == 0
    assert y.grad_fn.name() == "MulBackward0"


class _Halves(mt.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x[:1].clone(), x[1:].clone()

    @staticmethod
    def backward(ctx, grad_first, grad_second):
        return torch.cat([grad_first, grad_second])


def test_next_functions_name_which_output_of_a_multi_output_node():
    first, second = _Halves.apply(leaf(1.0, 2.0, 3.0))
    ((node, nr),) = second.exp().grad_fn.next_functions
    assert node is second.grad_fn and nr == 1
    assert first.exp().grad_fn.next_functions == ((first.grad_fn, 0),)


def test_loss_grad_fn_chain_walks_as_in_the_pytorch_tutorial():
    model = nn.Linear(3, 1)
    loss = F.mse_loss(model(mt.randn(2, 3)), mt.zeros(2, 1))
    names = [loss.grad_fn.name(), loss.grad_fn.next_functions[0][0].name()]
    assert names[0].endswith("Backward0") and names[1] == "LinearBackward0"
    leaves = {n.variable for n, _ in loss.grad_fn.next_functions[0][0].next_functions if n is not None}
    assert leaves == {model.weight, model.bias}


def test_zero_dim_tensor_formats_as_its_value():
    loss = mt.tensor(1.23456, requires_grad=True) * 1
    assert f"{loss:.4f}" == "1.2346" and "{:.2e}".format(loss) == "1.23e+00"  # noqa: UP032  (the tutorials' spelling)
    assert f"{mt.tensor([1.0, 2.0])}" == str(mt.tensor([1.0, 2.0]))
