"""Complex tensors compute (forward only) but never enter autograd (issue 13.9).

minitorch_rx's backward formulas are real derivatives; PyTorch's conjugate Wirtinger convention
for complex gradients is not implemented, so every way a complex tensor could come to require
grad raises one clear error instead of giving wrong gradients.
"""

from __future__ import annotations

import pytest
import torch

import minitorch_rx as mt
import minitorch_rx.nn as nn

REFUSED = "complex autograd"
C64 = torch.complex64


def complex_data() -> torch.Tensor:
    return torch.tensor([1 + 2j, -0.5j], dtype=C64)


LEAVES = {
    "mt.tensor": lambda: mt.tensor(complex_data(), requires_grad=True),
    "mt.tensor from a list": lambda: mt.tensor([1 + 1j, 2.0], requires_grad=True),
    "mt.from_torch": lambda: mt.from_torch(complex_data(), requires_grad=True),
    "mt.Tensor": lambda: mt.Tensor(complex_data(), requires_grad=True),
    "requires_grad_": lambda: mt.tensor(complex_data()).requires_grad_(),
    "requires_grad =": lambda: setattr(mt.tensor(complex_data()), "requires_grad", True),
    "detach().requires_grad_": lambda: mt.tensor(complex_data()).detach().requires_grad_(True),
    "nn.Parameter": lambda: nn.Parameter(mt.tensor(complex_data())),
    "nn.Parameter of torch": lambda: nn.Parameter(complex_data()),
    "mt.zeros": lambda: mt.zeros(2, dtype=C64, requires_grad=True),
    "mt.ones": lambda: mt.ones(2, dtype=C64, requires_grad=True),
    "mt.empty": lambda: mt.empty(2, dtype=C64, requires_grad=True),
    "mt.full": lambda: mt.full((2,), 1j, requires_grad=True),
    "mt.randn": lambda: mt.randn(2, dtype=C64, requires_grad=True),
    "mt.rand": lambda: mt.rand(2, dtype=C64, requires_grad=True),
    "mt.eye": lambda: mt.eye(2, dtype=C64, requires_grad=True),
    "mt.linspace": lambda: mt.linspace(0, 1, 3, dtype=C64, requires_grad=True),
    "mt.zeros_like": lambda: mt.zeros_like(mt.tensor(complex_data()), requires_grad=True),
    "mt.ones_like": lambda: mt.ones_like(mt.zeros(2), dtype=C64, requires_grad=True),
    ".data = complex": lambda: setattr(nn.Parameter(mt.zeros(2)), "data", complex_data()),
    "Module.to(complex64)": lambda: nn.Linear(2, 2).to(C64),
}


@pytest.mark.parametrize("make", list(LEAVES))
def test_a_complex_tensor_cannot_be_made_to_require_grad(make):
    with pytest.raises(RuntimeError, match=REFUSED):
        LEAVES[make]()


def real_leaf() -> mt.Tensor:
    return mt.tensor([0.5, -2.0], requires_grad=True)


OPS = {
    "x * 1j": lambda x: x * 1j,
    "1j * x": lambda x: 1j * x,
    "x + 1j": lambda x: x + 1j,
    "1j - x": lambda x: 1j - x,
    "x / (1 + 1j)": lambda x: x / (1 + 1j),
    "x ** 1j": lambda x: x**1j,
    "mt.mul(x, 1j)": lambda x: mt.mul(x, 1j),
    "x * complex tensor": lambda x: x * mt.tensor(complex_data()),
    "complex tensor * x": lambda x: mt.tensor(complex_data()) * x,
    "x.to(complex64)": lambda x: x.to(C64),
    "x.to(dtype=complex128)": lambda x: x.to(dtype=torch.complex128),
    "mt.cat": lambda x: mt.cat([x, mt.tensor(complex_data())]),
    "mt.stack": lambda x: mt.stack([x, mt.tensor(complex_data())]),
}


@pytest.mark.parametrize("op", list(OPS))
def test_an_op_that_would_make_a_real_tensor_that_requires_grad_complex_raises(op):
    """The way round the leaf check: d|x * w| for complex w was 0.646-0.123j in torch, -0.307+0.582j here."""
    with pytest.raises(RuntimeError, match=REFUSED):
        OPS[op](real_leaf())


@pytest.mark.parametrize("op", list(OPS))
def test_the_same_ops_compute_without_grad(op):
    x = real_leaf()
    with mt.no_grad():
        ours = OPS[op](x)
    assert ours.dtype.is_complex and not ours.requires_grad
    assert torch.equal(OPS[op](x.detach()).torch(), ours.torch())
    if "tensor" not in op and "mt." not in op:  # the same expression on torch tensors
        theirs = OPS[op](x.torch().detach())
        assert ours.dtype == theirs.dtype and torch.allclose(ours.torch(), theirs)


class ToComplex(mt.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x * 1j

    @staticmethod
    def backward(ctx, grad):
        return grad


class SplitComplex(mt.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x * 2, x * 1j

    @staticmethod
    def backward(ctx, first, second):
        return first


@pytest.mark.parametrize("function", [ToComplex, SplitComplex])
def test_a_custom_function_with_a_complex_output_raises(function):
    with pytest.raises(RuntimeError, match=rf"{function.__name__} would give a complex tensor.*{REFUSED}"):
        function.apply(real_leaf())


def test_complex_tensors_without_grad_and_real_parameters_still_work():
    c = mt.tensor(complex_data())
    assert torch.equal((c * c).abs().torch(), (complex_data() * complex_data()).abs())
    frozen = nn.Linear(2, 2).requires_grad_(False).to(C64)  # nothing learnable: allowed, as in torch
    assert frozen.weight.dtype == C64
    weight = nn.Parameter(mt.tensor(complex_data()), requires_grad=False)
    assert weight.dtype == C64 and not weight.requires_grad


COMPLEX_PARTS = {
    "mt.real": lambda t: t.real if isinstance(t, torch.Tensor) else mt.real(t),
    "Tensor.real": lambda t: t.real,
    "mt.conj": lambda t: (
        torch.conj(t).resolve_conj() if isinstance(t, torch.Tensor) else mt.conj(t).torch().resolve_conj()
    ),
    "mt.conj_physical": lambda t: t.conj_physical() if isinstance(t, torch.Tensor) else mt.conj_physical(t),
    "mt.angle": lambda t: t.angle() if isinstance(t, torch.Tensor) else mt.angle(t),
    "mt.sgn": lambda t: t.sgn() if isinstance(t, torch.Tensor) else mt.sgn(t),
    "mt.vdot": lambda t: torch.vdot(t[0], t[1]) if isinstance(t, torch.Tensor) else mt.vdot(t[0], t[1]),
    "mt.cov": lambda t: torch.cov(t) if isinstance(t, torch.Tensor) else mt.cov(t),
    "mt.corrcoef": lambda t: torch.corrcoef(t) if isinstance(t, torch.Tensor) else mt.corrcoef(t),
    "mt.float_power": lambda t: torch.float_power(t, 2) if isinstance(t, torch.Tensor) else mt.float_power(t, 2),
    "mt.svd": lambda t: torch.svd(t).V if isinstance(t, torch.Tensor) else mt.svd(t).V,
    "mt.linalg.vecdot": lambda t: (torch if isinstance(t, torch.Tensor) else mt).linalg.vecdot(t, t),
    "mt.linalg.polar": lambda t: (torch if isinstance(t, torch.Tensor) else mt).linalg.polar(t).H,
    "mt.linalg.lstsq": lambda t: (torch if isinstance(t, torch.Tensor) else mt).linalg.lstsq(t, t).residuals,
    "Tensor.H": lambda t: t.H.resolve_conj() if isinstance(t, torch.Tensor) else t.H.torch().resolve_conj(),
}


@pytest.mark.parametrize("op", list(COMPLEX_PARTS))
def test_ops_of_a_complex_tensor_give_pytorchs_answer(op):
    """They were the identity (``real``, ``conj``, ``H`` without conjugation) or real-only formulas
    (``angle`` gave 0 or pi; ``vdot``, ``linalg.vecdot``, ``svd``'s ``V`` and ``linalg.polar``'s ``H``
    did not conjugate; ``cov``, ``corrcoef`` and ``float_power`` cast to real; ``linalg.lstsq``'s
    residuals were complex) for complex tensors too: silent wrong answers."""
    data = torch.tensor([[1 + 2j, -0.5j], [3.0, -1 + 1j]], dtype=C64)
    ours = COMPLEX_PARTS[op](mt.tensor(data))
    ours = ours.torch() if isinstance(ours, mt.Tensor) else ours
    theirs = COMPLEX_PARTS[op](data)
    assert ours.dtype == theirs.dtype and torch.allclose(ours, theirs, atol=1e-6)
