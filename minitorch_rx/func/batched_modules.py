"""Batch rules for layers: ``functional_call`` given ``Batched`` inputs or parameters runs each
layer of a known kind on the whole batch, as one call of our op.

Per-sample parameters (``vmap(grad(loss))`` differentiates a copy of each parameter per sample;
an ensemble stacks its models') make a Linear a batched matmul and a convolution one grouped
convolution (the batch folded into the channels, ``groups * batch``), as torch's batch rules do.
Pointwise layers run on the batch as it is; pooling, flatten, softmax and the norms (in eval)
fold it into theirs. A layer of another kind runs its own ``forward`` on ``Batched`` values.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from .. import nn
from ..nn import functional as F
from .batched import Batched, Unbatchable, linear, logical_rank, physical, shift


def _conv(layer: nn.Module, input: object) -> Batched:
    n = len(layer.kernel_size)
    if layer.padding_mode != "zeros":
        raise Unbatchable("padding_mode")
    conv = (F.conv1d, F.conv2d, F.conv3d)[n - 1]
    weight, bias = layer.weight, layer.bias
    options = (layer.stride, layer.padding, layer.dilation)
    unbatched_sample = logical_rank(input) == n + 1  # (C, *spatial): no N
    if isinstance(weight, Batched):
        batch = weight.value.shape[0]
    elif isinstance(input, Batched):
        batch = input.value.shape[0]
    else:
        raise Unbatchable("conv of unbatched operands")
    x = physical(input)
    if not isinstance(input, Batched):
        x = x.expand(batch, *x.shape)
    if unbatched_sample:
        x = x.unsqueeze(1)
    samples, channels, spatial = x.shape[1], x.shape[2], x.shape[3:]
    if isinstance(weight, Batched):
        w = weight.value
        folded = x.transpose(0, 1).reshape(samples, batch * channels, *spatial)
        b = None
        if isinstance(bias, Batched):
            b = bias.value.reshape(-1)
        elif bias is not None:
            b = bias.repeat(batch)
        out = conv(folded, w.reshape(-1, *w.shape[2:]), b, *options, layer.groups * batch)
        out = out.reshape(samples, batch, -1, *out.shape[2:]).transpose(0, 1)
    else:
        b = None if isinstance(bias, Batched) else bias
        out = conv(x.reshape(batch * samples, channels, *spatial), weight, b, *options, layer.groups)
        out = out.reshape(batch, samples, *out.shape[1:])
        if isinstance(bias, Batched):
            out = out + bias.value.reshape(batch, 1, -1, *([1] * n))
    return Batched(out.squeeze(1) if unbatched_sample else out)


def _folding(spatial: int) -> Callable:
    """A layer acting on ``(N, C, *spatial)`` or ``(C, *spatial)``: every leading dimension, the
    batch's too, folded into one ``N``."""

    def rule(layer: nn.Module, input: Batched) -> Batched:
        if getattr(layer, "return_indices", False) or input.dim() not in (spatial + 1, spatial + 2):
            raise Unbatchable("return_indices, or a sample of a rank the layer refuses")
        x = input.value
        lead = x.shape[: x.dim() - spatial - 1]
        out = type(layer).forward(layer, x.reshape(-1, *x.shape[x.dim() - spatial - 1 :]))
        return Batched(out.reshape(*lead, *out.shape[1:]))

    return rule


def _pointwise(layer: nn.Module, input: Batched) -> Batched:
    return Batched(type(layer).forward(layer, input.value))


def _softmax(layer: nn.Module, input: Batched) -> Batched:
    if layer.dim is None:
        raise Unbatchable("softmax without dim")
    fn = F.softmax if isinstance(layer, nn.Softmax) else F.log_softmax
    return Batched(fn(input.value, shift(layer.dim, input.dim())))


def _flatten(layer: nn.Module, input: Batched) -> Batched:
    return input.flatten(layer.start_dim, layer.end_dim)


def _dropout(layer: nn.Module, input: Batched) -> Batched:
    if layer.training and layer.p > 0:
        raise Unbatchable("random")  # the per-sample loop applies vmap's randomness flag
    return input


def _batch_norm(layer: nn.Module, input: Batched) -> Batched:
    stats = (layer.running_mean, layer.running_var)
    if layer.training or stats[0] is None or any(isinstance(t, Batched) for t in stats) or input.dim() < 2:
        raise Unbatchable("batch norm statistics of a batch")
    x = input.value  # (batch, N, C, *spatial)
    weight, bias = layer.weight, layer.bias
    per_sample = isinstance(weight, Batched) or isinstance(bias, Batched)
    affine = (None, None) if per_sample else (weight, bias)
    out = F.batch_norm(x.reshape(-1, *x.shape[2:]), *stats, *affine, False, 0.0, layer.eps).reshape(x.shape)
    if per_sample:
        shape = (-1, *([1] * (x.dim() - 3)))
        if weight is not None:
            out = out * _per_channel(weight, shape)
        if bias is not None:
            out = out + _per_channel(bias, shape)
    return Batched(out)


def _per_channel(t: object, shape: tuple) -> object:
    """A ``(C,)`` parameter shaped to multiply ``(batch, N, C, *spatial)``."""
    if isinstance(t, Batched):
        return t.value.reshape(t.value.shape[0], 1, *shape)
    return t.reshape(shape)


def _layer_norm(layer: nn.Module, input: Batched) -> Batched:
    weight, bias = layer.weight, layer.bias
    shape = layer.normalized_shape
    if not (isinstance(weight, Batched) or isinstance(bias, Batched)):
        return Batched(F.layer_norm(input.value, shape, weight, bias, layer.eps))
    out = Batched(F.layer_norm(input.value, shape, None, None, layer.eps))
    if weight is not None:
        out = out * weight
    return out if bias is None else out + bias


_POINTWISE_LAYERS = (
    nn.ReLU,
    nn.ReLU6,
    nn.LeakyReLU,
    nn.ELU,
    nn.GELU,
    nn.SiLU,
    nn.Sigmoid,
    nn.Tanh,
    nn.Softplus,
    nn.Identity,
    nn.Hardtanh,
    nn.Mish,
)


def _rule(layer: nn.Module) -> Callable | None:
    if isinstance(layer, nn.Linear):
        return lambda layer, input: linear(input, layer.weight, layer.bias)
    if isinstance(layer, (nn.Conv1d, nn.Conv2d, nn.Conv3d)):
        return _conv
    if isinstance(layer, _POINTWISE_LAYERS):
        return _pointwise
    if isinstance(layer, (nn.MaxPool1d, nn.AvgPool1d, nn.AdaptiveAvgPool1d)):
        return _folding(1)
    if isinstance(layer, (nn.MaxPool2d, nn.AvgPool2d, nn.AdaptiveAvgPool2d)):
        return _folding(2)
    if isinstance(layer, (nn.MaxPool3d, nn.AvgPool3d, nn.AdaptiveAvgPool3d)):
        return _folding(3)
    if isinstance(layer, (nn.Softmax, nn.LogSoftmax)):
        return _softmax
    if isinstance(layer, nn.Flatten):
        return _flatten
    if isinstance(layer, nn.Dropout):
        return _dropout
    if isinstance(layer, nn.LayerNorm):
        return _layer_norm
    if isinstance(layer, (nn.BatchNorm1d, nn.BatchNorm2d, nn.BatchNorm3d)):
        return _batch_norm
    return None


def _batched_forward(layer: nn.Module, rule: Callable) -> Callable:
    def forward(input: object, *args: Any, **kwargs: Any) -> Batched:
        if args or kwargs or (not isinstance(input, Batched) and not _has_batched_parameters(layer)):
            return type(layer).forward(layer, input, *args, **kwargs)
        return rule(layer, input)

    return forward


def _has_batched_parameters(layer: nn.Module) -> bool:
    return any(isinstance(p, Batched) for p in layer._parameters.values())


@contextmanager
def batch_rules(module: nn.Module) -> Iterator[None]:
    """While active, each layer of ``module`` of a known kind runs its batch rule as ``forward``."""
    installed = []
    try:
        for layer in module.modules():
            rule = _rule(layer)
            if rule is not None:
                layer.__dict__["forward"] = _batched_forward(layer, rule)
                installed.append(layer)
        yield
    finally:
        for layer in installed:
            del layer.__dict__["forward"]
