"""``nn.Parameter``: a leaf tensor that a Module registers as one of its parameters."""

from __future__ import annotations

import torch

from ..autograd.tensor import Tensor, detach_torch, safe_globals


class Parameter(Tensor):
    """A leaf ``mt.Tensor`` that modules pick up as a parameter when assigned as an attribute.

    It shares memory with the tensor it is made from, as ``torch.nn.Parameter`` does, and
    requires grad unless told otherwise. It adds no state to ``mt.Tensor``, so the engine treats
    it as any other leaf; ``isinstance(p, torch.nn.Parameter)`` is true, so torch's modules and
    optimizers take it.

    >>> import minitorch_rx as mt, minitorch_rx.nn as nn
    >>> w = nn.Parameter(mt.zeros(2))
    >>> w.requires_grad, w.is_leaf
    (True, True)
    """

    #: What makes ``isinstance(p, torch.nn.Parameter)`` true (torch's own test for a parameter).
    _is_param = True

    def __new__(cls, data: Tensor | torch.Tensor | None = None, requires_grad: bool = True) -> Parameter:
        if data is None:
            data = torch.empty(0)
        elif isinstance(data, Tensor):
            data = data._data
        elif isinstance(data, torch.Tensor):
            data = detach_torch(data)
        else:
            raise TypeError(f"Parameter expects an mt.Tensor or a torch.Tensor, got {type(data).__name__}")
        return super().__new__(cls, data, requires_grad=requires_grad)

    def __repr__(self) -> str:
        return "Parameter containing:\n" + super().__repr__()

    def __deepcopy__(self, memo: dict) -> Parameter:
        if id(self) in memo:
            return memo[id(self)]
        result = type(self)(self._data.clone(memory_format=torch.preserve_format), self._requires_grad)
        memo[id(self)] = result
        return result


safe_globals(Parameter)
