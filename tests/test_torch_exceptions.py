"""The entries of PyTorch's op database where minitorch_rx differs from torch and torch is the
one that is wrong (``tests/test_opinfo.py`` lists them as expected failures): each is decided
here by central finite differences in float64, which need no reference, or by the same function
computed by another of torch's paths.

- ``masked.logaddexp``, second derivative: at an operand masked out (taken as ``-inf``), torch's
  is NaN (its formula divides ``exp(inf)`` by ``(1 + exp(inf))**2``); the output does not depend on
  a masked-out element at all, so every derivative in it is 0, as ours is, and finite differences
  give ours everywhere else too. At an operand that is -inf itself (no mask), where finite
  differences cannot step, ours is the limit (0) that torch's own values approach.
- ``as_strided_scatter`` into a 0-dim view: torch gives the element ``src`` overwrote a gradient of
  1 and the others 0; the output is ``input`` except that element, so it is 0 and the others 1.
- ``nn.functional.linear_cross_entropy``'s chunked path: its first derivative has no graph in torch
  (no second derivative at all); ours is torch's own unchunked second derivative of the same function.
"""

from __future__ import annotations

import pytest
import torch

import minitorch_rx as mt

pytest.importorskip("expecttest")  # torch.testing._internal needs it

from tests.opinfo_helpers import op_id, torch_op_db  # noqa: E402

STEP = 1e-6


def finite_difference_gradient(f, inputs: list[torch.Tensor]) -> list[torch.Tensor]:
    """The gradient of the scalar ``f(*inputs)`` (float64) by central differences, element by element."""
    gradients = []
    for tensor in inputs:
        gradient = torch.zeros_like(tensor)
        for index in range(tensor.numel()):
            flat = tensor.view(-1)
            saved = flat[index].item()
            flat[index] = saved + STEP
            above = f(*inputs)
            flat[index] = saved - STEP
            below = f(*inputs)
            flat[index] = saved
            gradient.view(-1)[index] = (above - below) / (2 * STEP)
        gradients.append(gradient)
    return gradients


def database_samples(name: str, variant: str = "") -> list:
    (op,) = [op for op in torch_op_db() if op_id(op) == (f"{name}.{variant}" if variant else name)]
    return list(op.sample_inputs("cpu", torch.float64, requires_grad=True))


def as_lib(value, lib, leaf: bool = False):
    """``value`` (a torch tensor or None) for ``lib`` (``mt`` or ``torch``): a copy, a new leaf if ``leaf``."""
    if value is None:
        return None
    value = value.detach().clone()
    return mt.from_torch(value, requires_grad=leaf) if lib is mt else value.requires_grad_(leaf)


def grad_of(lib):
    return mt.autograd.grad if lib is mt else torch.autograd.grad


def masked_logaddexp_derivative(lib, sample, v, x0, y0, second: bool):
    """The ``v``-weighted sum of ``masked.logaddexp``'s first derivatives (a grad_output of ones)
    at ``(x0, y0)``: its value, or (``second``) its gradient in both inputs, as torch tensors."""
    x, y = as_lib(x0, lib, leaf=True), as_lib(y0, lib, leaf=True)
    masks = {key: as_lib(value, lib) for key, value in sample.kwargs.items()}
    out = lib.masked.logaddexp(x, y, **masks)
    first = grad_of(lib)([out], [x, y], [lib.ones_like(out)], create_graph=True)
    total = sum((derivative * as_lib(weights, lib)).sum() for derivative, weights in zip(first, v, strict=True))
    if not second:
        return total.item()
    return [g.torch() if lib is mt else g for g in grad_of(lib)([total], [x, y])]


@pytest.mark.parametrize("number", range(len(database_samples("masked.logaddexp"))))
def test_masked_logaddexp_second_derivative_is_ours_by_finite_differences(number):
    sample = database_samples("masked.logaddexp")[number]
    x0, y0 = sample.input.detach(), sample.args[0].detach()
    generator = torch.Generator().manual_seed(number)
    v = [torch.randn(x0.shape, dtype=torch.float64, generator=generator) for _ in range(2)]
    numeric = finite_difference_gradient(
        lambda x, y: masked_logaddexp_derivative(mt, sample, v, x, y, second=False), [x0.clone(), y0.clone()]
    )
    ours = masked_logaddexp_derivative(mt, sample, v, x0, y0, second=True)
    theirs = masked_logaddexp_derivative(torch, sample, v, x0, y0, second=True)
    for computed, expected in zip(ours, numeric, strict=True):
        torch.testing.assert_close(computed, expected, atol=1e-5, rtol=1e-5)
    for computed, torchs in zip(ours, theirs, strict=True):  # torch differs only by NaN at masked-out operands
        odd = ~torch.isclose(computed, torchs, atol=1e-12, rtol=1e-9)
        assert torch.isnan(torchs[odd]).all() and (computed[odd] == 0).all()


def test_as_strided_scatter_into_a_0_dim_view_gives_finite_differences_gradient():
    x0, src0 = torch.arange(5.0, dtype=torch.float64), torch.tensor(9.0, dtype=torch.float64)
    weights = torch.arange(1.0, 6.0, dtype=torch.float64)  # a grad_output that tells the elements apart

    def weighted_sum(lib, x, src):
        return (lib.as_strided_scatter(x, src, (), (), 2) * as_lib(weights, lib)).sum()

    numeric = finite_difference_gradient(lambda x, src: weighted_sum(torch, x, src).item(), [x0.clone(), src0.clone()])
    assert numeric[0].tolist() == pytest.approx([1.0, 2.0, 0.0, 4.0, 5.0])
    for lib in (mt, torch):
        x, src = as_lib(x0, lib, leaf=True), as_lib(src0, lib, leaf=True)
        gradients = [g.torch() if lib is mt else g for g in grad_of(lib)(weighted_sum(lib, x, src), [x, src])]
        if lib is mt:
            for computed, expected in zip(gradients, numeric, strict=True):
                torch.testing.assert_close(computed, expected)
        else:
            assert gradients[0].tolist() == [0.0, 0.0, 3.0, 0.0, 0.0]  # torch's: the overwritten element's only


def linear_cross_entropy_second_derivative(lib, sample, kwargs):
    """The gradient of the squared norm of ``linear_cross_entropy``'s first derivatives in input
    and weight, or None where the first derivatives have no graph."""
    leaves = [as_lib(sample.input, lib, leaf=True), as_lib(sample.args[0], lib, leaf=True)]
    out = lib.nn.functional.linear_cross_entropy(*leaves, as_lib(sample.args[1], lib), **kwargs)
    first = grad_of(lib)([out.sum()], leaves, create_graph=True)
    total = sum((derivative * derivative).sum() for derivative in first)
    if not total.requires_grad:
        return None
    return [g.torch() if lib is mt else g for g in grad_of(lib)([total], leaves)]


@pytest.mark.parametrize("variant", ["chunked", "chunked_none"])
@pytest.mark.filterwarnings("ignore:linear_cross_entropy. ``options`` ignored")  # torch's, on the unchunked samples
def test_linear_cross_entropy_chunked_second_derivative_is_torchs_unchunked_one(variant):
    without_graph = 0
    for sample in database_samples("nn.functional.linear_cross_entropy", variant):
        unchunked = {key: value for key, value in sample.kwargs.items() if key != "options"}
        expected = linear_cross_entropy_second_derivative(torch, sample, unchunked)
        chunked = linear_cross_entropy_second_derivative(torch, sample, sample.kwargs)
        without_graph += chunked is None  # (torch takes the chunked path where its options allow)
        ours = linear_cross_entropy_second_derivative(mt, sample, sample.kwargs)
        for computed, torchs in zip(ours, expected, strict=True):
            torch.testing.assert_close(computed, torchs)
    assert without_graph  # torch's chunked path: first derivatives without a graph, no second derivative


def logaddexp_second_derivatives(lib, x_value: float, y_value: float) -> list[float]:
    """All second derivatives of ``masked.logaddexp`` (no mask) in ``x`` and ``y`` at a point."""
    grad = grad_of(lib)
    x, y = (as_lib(torch.tensor([value], dtype=torch.float64), lib, leaf=True) for value in (x_value, y_value))
    out = lib.masked.logaddexp(x, y)
    firsts = grad([out], [x, y], [lib.ones_like(out)], create_graph=True)
    return [float(g.item()) for first in firsts for g in grad([first], [x, y], retain_graph=True)]


def test_logaddexp_second_derivative_at_a_minus_inf_operand_is_the_limit():
    """Finite differences cannot step from -inf: the second derivatives there are the limit of
    their values at y -> -inf, which torch's own finite values approach (0), where it gives NaN."""
    inf = float("inf")
    approach = [logaddexp_second_derivatives(torch, 0.5, -distance) for distance in (10.0, 20.0, 40.0)]
    assert all(abs(value) < 1e-3 for value in approach[0]) and all(abs(value) < 1e-15 for value in approach[-1])
    assert logaddexp_second_derivatives(mt, 0.5, -inf) == [0.0, 0.0, 0.0, 0.0]
    assert any(value != value for value in logaddexp_second_derivatives(torch, 0.5, -inf))  # torch's: NaN
