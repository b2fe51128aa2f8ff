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
from ..ops.conv import conv1d, conv2d, conv3d, fold, im2col, unfold
from ..ops.conv_transpose import conv_transpose1d, conv_transpose2d, conv_transpose3d
from ..ops.dropout import dropout
from ..ops.grid_sample import affine_grid, grid_sample
from ..ops.linear import linear
from ..ops.loss import binary_cross_entropy_with_logits, cross_entropy, l1_loss, mse_loss, nll_loss
from ..ops.norm import batch_norm, group_norm, instance_norm, layer_norm, local_response_norm
from ..ops.pad import pad
from ..ops.pool import (
    adaptive_avg_pool1d,
    adaptive_avg_pool2d,
    adaptive_avg_pool3d,
    adaptive_max_pool1d,
    adaptive_max_pool2d,
    adaptive_max_pool3d,
    avg_pool1d,
    avg_pool2d,
    avg_pool3d,
    lp_pool1d,
    lp_pool2d,
    lp_pool3d,
    max_pool1d,
    max_pool2d,
    max_pool3d,
)
from ..ops.shape import pixel_shuffle, pixel_unshuffle
from ..ops.unpool import max_unpool1d, max_unpool2d, max_unpool3d
from ..ops.upsample import (
    interpolate,
    upsample,
    upsample_bilinear,
    upsample_nearest,
)

__all__ = [
    "adaptive_avg_pool1d",
    "adaptive_avg_pool2d",
    "adaptive_avg_pool3d",
    "adaptive_max_pool1d",
    "adaptive_max_pool2d",
    "adaptive_max_pool3d",
    "affine_grid",
    "avg_pool1d",
    "avg_pool2d",
    "avg_pool3d",
    "batch_norm",
    "binary_cross_entropy_with_logits",
    "conv1d",
    "conv2d",
    "conv3d",
    "conv_transpose1d",
    "conv_transpose2d",
    "conv_transpose3d",
    "cross_entropy",
    "dropout",
    "elu",
    "fold",
    "gelu",
    "grid_sample",
    "group_norm",
    "im2col",
    "instance_norm",
    "interpolate",
    "l1_loss",
    "layer_norm",
    "leaky_relu",
    "linear",
    "local_response_norm",
    "log_softmax",
    "lp_pool1d",
    "lp_pool2d",
    "lp_pool3d",
    "max_pool1d",
    "max_pool2d",
    "max_pool3d",
    "max_unpool1d",
    "max_unpool2d",
    "max_unpool3d",
    "mse_loss",
    "nll_loss",
    "pad",
    "pixel_shuffle",
    "pixel_unshuffle",
    "relu",
    "sigmoid",
    "silu",
    "softmax",
    "softplus",
    "swish",
    "tanh",
    "unfold",
    "upsample",
    "upsample_bilinear",
    "upsample_nearest",
]
