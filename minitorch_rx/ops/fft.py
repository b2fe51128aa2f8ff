"""Discrete Fourier transforms, as ``torch.fft``'s.

minitorch_rx differentiates real tensors only (``tests/test_complex_dtypes.py``), so:

- the transforms of a real input to a real output (``irfft``/``irfftn`` and ``hfft``/``hfftn``
  of a real input, which treat it as the non-negative-frequency half of a Hermitian spectrum) are
  differentiable: ``C2R`` below, whose gradient is its exact transpose ``C2RAdjoint`` (PyTorch's
  ``fft_c2r_backward``: the one-sided real FFT of the gradient, the mirrored bins doubled, then
  the input's real part), each the other's backward, so every order of derivative exists;
- the transforms with a complex output (``fft``, ``rfft``, ``ihfft``, ...) compute forward only:
  asking for their gradient raises minitorch_rx's complex-autograd error;
- ``fftshift``/``ifftshift`` are ``roll``s, differentiable on real tensors.
"""

from __future__ import annotations

import torch

from ..autograd.function import Function, call
from ..autograd.tensor import Tensor
from .constants import tensor_arg
from .out_arg import same_kind, writes_out

_ADJOINT_NORM = {"backward": "forward", "forward": "backward", "ortho": "ortho"}
_SWAPPED_NORM = _ADJOINT_NORM  # hfft of a real input is irfft with the other normalization


def _norm(norm: str | None) -> str:
    if norm is None:
        return "backward"
    if norm not in _ADJOINT_NORM:
        raise RuntimeError(f'Invalid normalization mode: "{norm}"')
    return norm


class C2R(Function):
    """``irfft``/``irfftn`` (or ``hfft``/``hfftn``, the same map with the other normalization) of
    a real ``x``: real in, real out, linear. ``name`` is torch's function, which computes it and
    checks the arguments; ``dims`` are the transformed dims."""

    @staticmethod
    def forward(ctx, x, name, s, dims, norm):
        one_dim = name in ("irfft", "hfft")
        torch_fn = getattr(torch.fft, name)
        out = torch_fn(x, s, dims[0], norm) if one_dim else torch_fn(x, s, dims, norm)
        sizes = tuple(out.shape[d] for d in dims)
        effective = _ADJOINT_NORM[norm] if name.startswith("h") else norm  # hfft: irfft, other norm
        ctx.meta = (tuple(x.shape), sizes, dims, effective)
        return out

    @staticmethod
    def backward(ctx, grad):
        shape, sizes, dims, norm = ctx.meta
        return call(C2RAdjoint, grad, shape, sizes, dims, norm), None, None, None, None


class C2RAdjoint(Function):
    """The transpose of ``C2R`` (its gradient): ``Re(rfftn(g))`` with the bins whose mirror image
    falls outside the one-sided half doubled, fitted back to the input's sizes."""

    @staticmethod
    def forward(ctx, grad, shape, sizes, dims, norm):
        ctx.meta = (sizes, dims, norm)
        spectrum = torch.fft.rfftn(grad, s=sizes, dim=dims, norm=_ADJOINT_NORM[norm])
        last = dims[-1]
        doubled = sizes[-1] - spectrum.shape[last]
        if doubled > 0:
            spectrum.narrow(last, 1, doubled).mul_(2)
        result = spectrum.real
        for d in dims:  # undo the forward's zero-padding (slice) or trimming (zeros)
            size = shape[d]
            if result.shape[d] > size:
                result = result.narrow(d, 0, size)
            elif result.shape[d] < size:
                pad_shape = list(result.shape)
                pad_shape[d] = size - result.shape[d]
                result = torch.cat([result, result.new_zeros(pad_shape)], d)
        return result.contiguous()

    @staticmethod
    def backward(ctx, grad):
        sizes, dims, norm = ctx.meta
        return call(C2R, grad, "irfftn", sizes, dims, norm), None, None, None, None


def _dims(x: Tensor, s, dim, one_dim: bool) -> tuple[int, ...]:
    """The transformed dims, non-negative (torch's defaults for ``None``)."""
    ndim = max(x.dim(), 1)
    if one_dim:
        return (dim % ndim,)
    if dim is None:
        return tuple(range(x.dim())) if s is None else tuple(range(x.dim() - len(s), x.dim()))
    return tuple(d % ndim for d in ((dim,) if isinstance(dim, int) else dim))


def _c2r(name: str, x, s, dim, norm) -> Tensor:
    x = tensor_arg(x, f"fft_{name}")
    norm = _norm(norm)
    one_dim = name in ("irfft", "hfft")
    if not x.dtype.is_floating_point:  # complex (or integer) input: forward only
        kwargs = {"n": s, "dim": dim} if one_dim else {"s": s, "dim": dim}
        return _forward_only(x, name, kwargs, norm)
    return C2R.apply(x, name, s, _dims(x, s, dim, one_dim), norm)


class Transform(Function):
    """A transform with a complex output (or input): forward only. It has no backward: recording
    it (a real input that requires grad) raises minitorch_rx's complex-autograd error."""

    @staticmethod
    def forward(ctx, x, name, kwargs):
        return getattr(torch.fft, name)(x, **kwargs)


def _forward_only(x: Tensor, name: str, kwargs: dict, norm: str) -> Tensor:
    return Transform.apply(x, name, {**kwargs, "norm": norm})


# For ``out=``: torch's kernel each transform names in its dtype error, and the one its autograd
# refusal names for a real input (None: torch composes it from ops and copies the result in).
_KERNEL = {
    "fft2": "fftn", "ifft2": "fftn", "ifftn": "fftn", "rfft2": "rfftn", "ihfft2": "ihfftn",
    "irfft2": "irfftn", "hfft2": "hfftn",
}  # fmt: skip
_REFUSED_AS = {
    **dict.fromkeys(("fft", "rfft", "rfft2", "rfftn"), "_fft_r2c"),
    **dict.fromkeys(("irfft", "hfft", "irfft2", "hfft2", "irfftn", "hfftn"), "_fft_c2r"),
    "ifft": None,
    "ihfft": None,
}  # the others: "_fft_c2c"


def _with_out(transform):
    name = transform.__name__
    refuse = _REFUSED_AS.get(name, "_fft_c2c")
    return writes_out(f"fft_{name}", refuse=refuse, dtype=same_kind(_KERNEL.get(name, name)))(transform)


def _complex_out(name: str, one_dim: bool):
    def transform(input: Tensor, *args, norm: str | None = None, **kwargs) -> Tensor:
        input = tensor_arg(input, f"fft_{name}")
        names = ("n", "dim") if one_dim else ("s", "dim")
        kwargs.update(zip(names, args))
        return _forward_only(input, name, kwargs, _norm(norm))

    transform.__name__ = transform.__qualname__ = name
    transform.__doc__ = f"As ``torch.fft.{name}`` (a complex output: forward only, no gradient)."
    return _with_out(transform)


def _real_out(name: str, kernel: str, default_dim):
    one_dim = kernel in ("irfft", "hfft")

    def transform(input: Tensor, *args, norm: str | None = None, **kwargs) -> Tensor:
        kwargs.update(zip(("n", "dim") if one_dim else ("s", "dim"), args))
        size = kwargs.get("n" if one_dim else "s")
        return _c2r(kernel, input, size, kwargs.get("dim", default_dim), norm)

    transform.__name__ = transform.__qualname__ = name
    transform.__doc__ = (
        f"As ``torch.fft.{name}``: a real output, differentiable for a real input (the input's "
        "entries are the non-negative-frequency half of a Hermitian spectrum)."
    )
    return _with_out(transform)


fft = _complex_out("fft", True)
ifft = _complex_out("ifft", True)
rfft = _complex_out("rfft", True)
ihfft = _complex_out("ihfft", True)
fft2 = _complex_out("fft2", False)
ifft2 = _complex_out("ifft2", False)
rfft2 = _complex_out("rfft2", False)
ihfft2 = _complex_out("ihfft2", False)
fftn = _complex_out("fftn", False)
ifftn = _complex_out("ifftn", False)
rfftn = _complex_out("rfftn", False)
ihfftn = _complex_out("ihfftn", False)
irfft = _real_out("irfft", "irfft", -1)
hfft = _real_out("hfft", "hfft", -1)
irfft2 = _real_out("irfft2", "irfftn", (-2, -1))
hfft2 = _real_out("hfft2", "hfftn", (-2, -1))
irfftn = _real_out("irfftn", "irfftn", None)
hfftn = _real_out("hfftn", "hfftn", None)


def fftshift(input: Tensor, dim=None) -> Tensor:
    """The zero-frequency bin moved to the centre of ``dim`` (all dims by default): a ``roll``."""
    input = tensor_arg(input, "fft_fftshift")
    dims = tuple(range(input.dim())) if dim is None else ((dim,) if isinstance(dim, int) else tuple(dim))
    return input.roll(tuple(input.shape[d] // 2 for d in dims), dims)


def ifftshift(input: Tensor, dim=None) -> Tensor:
    """The inverse of ``fftshift``."""
    input = tensor_arg(input, "fft_ifftshift")
    dims = tuple(range(input.dim())) if dim is None else ((dim,) if isinstance(dim, int) else tuple(dim))
    return input.roll(tuple(-(input.shape[d] // 2) for d in dims), dims)
