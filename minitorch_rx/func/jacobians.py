"""``jacrev`` (one vjp per output element: a row), ``jacfwd`` (one jvp per input element: a
column) and ``hessian`` (``jacfwd(jacrev(f))``). ``func`` runs once; each row is one backward
through its retained graph, each column one backward through the recorded backward (see
``jvp.py``). ``chunk_size`` is accepted and checked as PyTorch checks it: rows are computed one
at a time whatever its value, which equals PyTorch's result and its ``chunk_size=1`` memory use.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import torch
from torch.utils._pytree import tree_flatten, tree_unflatten

from ..autograd.tensor import Tensor
from ..ops.shape import stack
from ._common import error_if_complex, finish, slice_argnums
from .grad import Linearization
from .jvp import ForwardLinearization

__all__ = ["hessian", "jacfwd", "jacrev"]

_RANDOMNESS = ("error", "different", "same")


def _one_hot(like: Tensor, j: int) -> Tensor:
    data = torch.zeros(like.numel(), dtype=like.dtype, device=like.device)
    data[j] = 1
    return Tensor(data.view(like.shape))


def _per_output(flat_primals: list, spec, argnums: int | tuple, blocks: list) -> Any:
    """One output's Jacobian blocks (one per flat primal) in the primals' structure."""
    per_input = tree_unflatten(blocks, spec)
    return per_input[0] if isinstance(argnums, int) else per_input


def jacrev(
    func: Callable,
    argnums: int | tuple[int, ...] = 0,
    *,
    has_aux: bool = False,
    chunk_size: int | None = None,
    _preallocate_and_copy: bool = False,
) -> Callable:
    """The Jacobian of ``func`` with respect to the arguments ``argnums`` picks, by reverse mode,
    as ``torch.func.jacrev``: for each output, a tensor of shape ``output.shape + input.shape``
    per input (in the inputs' pytree structure, a tuple of them for a tuple ``argnums``).

    >>> import minitorch_rx as mt
    >>> jacrev(lambda x: x * x)(mt.tensor([1.0, 2.0])).tolist()
    [[2.0, 0.0], [0.0, 4.0]]
    """
    if not (chunk_size is None or chunk_size > 0):
        raise ValueError("jacrev: `chunk_size` should be greater than 0.")

    @functools.wraps(func)
    def wrapper_fn(*args: Any):
        error_if_complex("jacrev", args, is_input=True)
        run = Linearization(func, args, argnums, has_aux, "vjp(f, *primals)")
        error_if_complex("jacrev", run.flat_outputs, is_input=False)
        flat_primals, primals_spec = tree_flatten(slice_argnums(args, argnums))
        jacobians = []
        for out in run.flat_outputs:
            rows = [run.pullback([out], [_one_hot(out, j)]) for j in range(out.numel())]
            blocks = []
            for k, primal in enumerate(flat_primals):
                shape = (*out.shape, *primal.shape)
                if rows:
                    blocks.append(stack([row[k] for row in rows]).reshape(shape))
                else:
                    blocks.append(Tensor(torch.zeros(shape, dtype=primal.dtype, device=primal.device)))
            jacobians.append(_per_output(flat_primals, primals_spec, argnums, blocks))
        result = tree_unflatten(jacobians, run.output_spec)
        if has_aux:
            return result, finish(run.aux, run.keep)
        return result

    return wrapper_fn


def jacfwd(
    func: Callable, argnums: int | tuple[int, ...] = 0, has_aux: bool = False, *, randomness: str = "error"
) -> Callable:
    """The Jacobian of ``func`` with respect to the arguments ``argnums`` picks, one column per
    input element, as ``torch.func.jacfwd`` (shapes as ``jacrev``'s). Columns are Jacobian-vector
    products by the double-vjp construction (``jvp``'s docstring); ``func`` runs once, so
    ``randomness`` (checked as PyTorch checks it) changes nothing.

    >>> import minitorch_rx as mt
    >>> jacfwd(lambda x: x.sin())(mt.tensor([0.0, 0.0])).tolist()
    [[1.0, 0.0], [0.0, 1.0]]
    """
    if randomness not in _RANDOMNESS:
        raise RuntimeError(f"Only allowed values for randomness are 'error', 'different', or 'same'. Got {randomness}")

    @functools.wraps(func)
    def wrapper_fn(*args: Any):
        error_if_complex("jacfwd", args, is_input=True)
        flat_primals, primals_spec = tree_flatten(slice_argnums(args, argnums))
        run = ForwardLinearization(func, args, argnums, has_aux)
        error_if_complex("jacfwd", run.flat_outputs, is_input=False)
        columns: list[list] = [[] for _ in run.flat_outputs]  # per output, per input element
        for k, primal in enumerate(flat_primals):
            for j in range(primal.numel()):
                tangents = [None] * len(flat_primals)
                tangents[k] = _one_hot(primal, j)
                for per_output, column in zip(columns, run.push(tangents)):
                    per_output.append(column)
        jacobians = []
        for out, cols in zip(run.flat_outputs, columns):
            blocks, start = [], 0
            whole = stack(cols, -1) if cols else None
            for primal in flat_primals:
                shape = (*out.shape, *primal.shape)
                n = primal.numel()
                if n:
                    blocks.append(whole[..., start : start + n].reshape(shape))
                else:
                    blocks.append(Tensor(torch.zeros(shape, dtype=out.dtype, device=out.device)))
                start += n
            jacobians.append(_per_output(flat_primals, primals_spec, argnums, blocks))
        result = tree_unflatten(jacobians, run.output_spec)
        if has_aux:
            return result, finish(run.aux, run.keep)
        return result

    return wrapper_fn


def hessian(func: Callable, argnums: int | tuple[int, ...] = 0) -> Callable:
    """The Hessian of the scalar ``func``, ``jacfwd(jacrev(func, argnums), argnums)``, as
    ``torch.func.hessian`` (forward over reverse: here a double-vjp over a recorded backward).

    >>> import minitorch_rx as mt
    >>> hessian(lambda x: (x ** 3).sum())(mt.tensor([1.0, 2.0])).tolist()
    [[6.0, 0.0], [0.0, 12.0]]
    """
    return jacfwd(jacrev(func, argnums), argnums)
