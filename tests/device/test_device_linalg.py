"""Linear algebra, fft and masked reductions on the device: values and gradients against
torch.autograd on the same device, float64 (the ops build identities, masks and counts on the
input's device)."""

from __future__ import annotations

import pytest
import torch

import minitorch_rx as mt
from tests.device.common import compare_on


def _spd(n: int = 4) -> torch.Tensor:
    a = torch.randn(n, n, dtype=torch.float64, generator=torch.Generator().manual_seed(3))
    return a @ a.mT + n * torch.eye(n, dtype=torch.float64)


def _square(seed: int = 0) -> torch.Tensor:
    return torch.randn(4, 4, dtype=torch.float64, generator=torch.Generator().manual_seed(seed))


CASES = {
    "solve": (lambda m, a, b: m.linalg.solve(a, b), [_square(0), _square(1)]),
    "inv": (lambda m, a: m.linalg.inv(a), [_square(0)]),
    "det": (lambda m, a: m.linalg.det(a), [_square(0)]),
    "slogdet": (lambda m, a: m.linalg.slogdet(a)[1], [_square(0)]),
    "cholesky": (lambda m, a: m.linalg.cholesky(a), [_spd()]),
    "eigh": (lambda m, a: m.linalg.eigh(a)[0], [_spd()]),
    "svdvals": (lambda m, a: m.linalg.svdvals(a), [_square(2)]),
    "qr": (lambda m, a: m.linalg.qr(a)[1], [_square(2)]),
    "lu": (lambda m, a: m.linalg.lu(a)[2], [_square(2)]),
    "pinv": (lambda m, a: m.linalg.pinv(a), [torch.randn(5, 3, dtype=torch.float64)]),
    "matrix_exp": (lambda m, a: m.linalg.matrix_exp(a), [_square(4) * 0.3]),
    "matrix_power": (lambda m, a: m.linalg.matrix_power(a, 0), [_square(4)]),
    "householder_product": (lambda m, a, t: m.linalg.householder_product(a, t), [_square(5), torch.rand(3)]),
    "nuclear norm": (lambda m, a: m.linalg.matrix_norm(a, "nuc"), [_square(6)]),
    "irfft": (lambda m, x: m.fft.irfft(x, n=7), [torch.randn(4, dtype=torch.float64)]),
    "hfft2": (lambda m, x: m.fft.hfft2(x), [torch.randn(3, 4, dtype=torch.float64)]),
    "masked.mean": (lambda m, x: m.masked.mean(x, 1, mask=x.detach() > 0), [_square(7)]),
    "masked.softmax": (lambda m, x: m.masked.softmax(x, 0, mask=x.detach() > -0.5), [_square(8)]),
    "masked.var": (lambda m, x: m.masked.var(x, 1, mask=x.detach() > 0.3), [_square(9)]),
}


@pytest.mark.parametrize("name", CASES)
def test_linear_algebra_op_matches_torch_on_the_device(device, name):
    fn, inputs = CASES[name]
    compare_on(device, lambda *xs: fn(mt, *xs), lambda *xs: fn(torch, *xs), inputs)
