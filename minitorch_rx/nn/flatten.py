"""``Flatten``: merge a range of dims (by default all but the batch dim); ``Unflatten``: split one."""

from __future__ import annotations

import math

from ..autograd.tensor import Tensor
from .module import Module


class Flatten(Module):
    """Flatten dims ``start_dim`` through ``end_dim`` into one."""

    def __init__(self, start_dim: int = 1, end_dim: int = -1) -> None:
        super().__init__()
        self.start_dim = start_dim
        self.end_dim = end_dim

    def forward(self, input: Tensor) -> Tensor:
        return input.flatten(self.start_dim, self.end_dim)

    def extra_repr(self) -> str:
        return f"start_dim={self.start_dim}, end_dim={self.end_dim}"


class Unflatten(Module):
    """Split dim ``dim`` into ``unflattened_size`` (a tuple or list of ints; one may be -1).

    >>> import minitorch_rx as mt
    >>> Unflatten(1, (2, 3))(mt.zeros(4, 6)).shape
    torch.Size([4, 2, 3])
    """

    def __init__(self, dim: int, unflattened_size: tuple[int, ...] | list[int]) -> None:
        super().__init__()
        if not isinstance(dim, int) or isinstance(dim, bool):
            raise TypeError("invalid argument type for dim parameter")
        if not isinstance(unflattened_size, (tuple, list)):
            raise TypeError(
                f"unflattened_size must be a tuple of ints, but found type {type(unflattened_size).__name__}"
            )
        for position, size in enumerate(unflattened_size):
            if not isinstance(size, int) or isinstance(size, bool):
                raise TypeError(
                    "unflattened_size must be tuple of ints, but found element of type "
                    f"{type(size).__name__} at pos {position}"
                )
        self.dim = dim
        self.unflattened_size = unflattened_size

    def forward(self, input: Tensor) -> Tensor:
        shape = list(input.shape)
        dim = self.dim + len(shape) if self.dim < 0 else self.dim
        if not 0 <= dim < len(shape):
            low, high = -max(len(shape), 1), max(len(shape), 1) - 1
            raise IndexError(f"Dimension out of range (expected to be in range of [{low}, {high}], but got {self.dim})")
        sizes = list(self.unflattened_size)
        known = math.prod(s for s in sizes if s != -1)
        if sizes.count(-1) > 1:
            raise RuntimeError("only one dimension can be inferred")
        if -1 in sizes and known and shape[dim] % known == 0:
            sizes[sizes.index(-1)] = shape[dim] // known
        if -1 in sizes or math.prod(sizes) != shape[dim]:
            raise RuntimeError(
                f"unflatten: Provided sizes {list(self.unflattened_size)} don't multiply up to the size of dim "
                f"{self.dim} ({shape[dim]}) in the input tensor"
            )
        return input.reshape(shape[:dim] + sizes + shape[dim + 1 :])

    def extra_repr(self) -> str:
        return f"dim={self.dim}, unflattened_size={self.unflattened_size}"
