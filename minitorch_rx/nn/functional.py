"""``nn.functional`` (``F``): the engine's differentiable ops under PyTorch's functional names."""

from __future__ import annotations

from ..ops.activation import (
    elu,
    gelu,
    leaky_relu,
    log_softmax,
    relu,
    sigmoid,
    silu,
    softmax,
    softplus,
    swish,
    tanh,
)
from ..ops.attention import scaled_dot_product_attention
from ..ops.conv import conv1d, conv2d, conv3d, fold, im2col, unfold
from ..ops.dropout import dropout
from ..ops.embedding import embedding, one_hot
from ..ops.linear import linear
from ..ops.loss import binary_cross_entropy_with_logits, cross_entropy, l1_loss, mse_loss, nll_loss
from ..ops.norm import batch_norm, layer_norm
from ..ops.pad import pad
from ..ops.pool import (
    adaptive_avg_pool1d,
    adaptive_avg_pool2d,
    adaptive_avg_pool3d,
    adaptive_max_pool2d,
    avg_pool1d,
    avg_pool2d,
    avg_pool3d,
    max_pool1d,
    max_pool2d,
    max_pool3d,
)

__all__ = [
    "adaptive_avg_pool1d",
    "adaptive_avg_pool2d",
    "adaptive_avg_pool3d",
    "adaptive_max_pool2d",
    "avg_pool1d",
    "avg_pool2d",
    "avg_pool3d",
    "batch_norm",
    "binary_cross_entropy_with_logits",
    "conv1d",
    "conv2d",
    "conv3d",
    "cross_entropy",
    "dropout",
    "elu",
    "embedding",
    "fold",
    "gelu",
    "im2col",
    "l1_loss",
    "layer_norm",
    "leaky_relu",
    "linear",
    "log_softmax",
    "max_pool1d",
    "max_pool2d",
    "max_pool3d",
    "mse_loss",
    "nll_loss",
    "one_hot",
    "pad",
    "relu",
    "scaled_dot_product_attention",
    "sigmoid",
    "silu",
    "softmax",
    "softplus",
    "swish",
    "tanh",
    "unfold",
]
