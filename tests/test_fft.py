"""``mt.fft``: the complex-output transforms forward (their gradients need complex autograd, which
minitorch_rx does not have); the real-output ones are checked with gradients by tests/test_opinfo.py."""

from __future__ import annotations

import pytest
import torch

import minitorch_rx as mt

COMPLEX_OUT = "fft ifft rfft ihfft fft2 ifft2 rfft2 ihfft2 fftn ifftn rfftn ihfftn".split()


@pytest.mark.parametrize("name", COMPLEX_OUT)
def test_a_complex_output_transform_matches_torch_forward(name):
    x = torch.randn(4, 6, dtype=torch.float64, generator=torch.Generator().manual_seed(0))
    for norm in ("backward", "ortho", "forward"):
        ours = getattr(mt.fft, name)(mt.tensor(x), norm=norm)
        torch.testing.assert_close(ours.torch(), getattr(torch.fft, name)(x, norm=norm))


def test_a_complex_output_transform_refuses_a_gradient():
    with pytest.raises(RuntimeError, match="complex autograd"):
        mt.fft.rfft(mt.tensor([1.0, 2.0, 3.0], requires_grad=True))


def test_irfft_of_a_real_half_spectrum_has_torchs_gradient():
    data = torch.randn(5, dtype=torch.float64, generator=torch.Generator().manual_seed(1))
    ours = mt.tensor(data.clone(), requires_grad=True)
    (mt.fft.irfft(ours, n=9) ** 2).sum().backward()
    theirs = data.clone().requires_grad_()
    (torch.fft.irfft(theirs, n=9) ** 2).sum().backward()
    torch.testing.assert_close(ours.grad.torch(), theirs.grad)


def test_fftfreq_and_rfftfreq_match_torch():
    torch.testing.assert_close(mt.fft.fftfreq(5, 0.1).torch(), torch.fft.fftfreq(5, 0.1))
    torch.testing.assert_close(mt.fft.rfftfreq(6).torch(), torch.fft.rfftfreq(6))
