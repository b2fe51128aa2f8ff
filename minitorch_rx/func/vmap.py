"""``vmap``: ``func`` applied to each slice of the mapped dimension, the results stacked.

First ``func`` is called once on the whole batch (``batched_vmap.py``): each op it runs has a
batch rule, or the attempt is abandoned. Otherwise each sample is one call of ``func`` on
``x.select(in_dim, i)`` (a view, recorded, so gradients flow through ``vmap`` as through any op),
and each output is ``stack``-ed at its ``out_dim``: the result equals PyTorch's by construction,
for every op, at the cost of one call per sample.

``randomness``: ``'error'`` raises PyTorch's error once a sample has drawn random numbers from
torch's default generators (which every random op of ours uses: their state is compared after
each sample, a few microseconds, where a torch function mode watching every call slowed every
op); ``'different'`` draws afresh per sample; ``'same'`` restores the generators' state before
each sample, so every sample draws the same numbers (and skips the batched call).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import torch
from torch.utils._pytree import _broadcast_to_and_flatten, tree_flatten, tree_unflatten

from ..autograd.tensor import Tensor
from ..ops.shape import stack
from ._common import func_name, is_tensor
from .batched import Batched
from .batched_vmap import FAILED, run_batched

__all__ = ["vmap"]

_RANDOMNESS = ("error", "different", "same")

_RANDOM_ERROR = (
    "vmap: called random operation while in randomness error mode. Please either use the 'same' or "
    "'different' randomness flags on vmap or perform the randomness operation out of vmap"
)


class _Generators:
    """The state of torch's default generators (CPU, and CUDA devices once CUDA is initialized)."""

    def __init__(self) -> None:
        self.cpu = torch.get_rng_state()
        self.cuda = torch.cuda.get_rng_state_all() if torch.cuda.is_initialized() else None

    def restore(self) -> None:
        torch.set_rng_state(self.cpu)
        if self.cuda is not None:
            torch.cuda.set_rng_state_all(self.cuda)

    def moved(self) -> bool:
        """Whether a random number was drawn from them since this state was taken."""
        if not torch.equal(self.cpu, torch.get_rng_state()):
            return True
        if torch.cuda.is_initialized():
            now = torch.cuda.get_rng_state_all()
            return self.cuda is None or any(not torch.equal(a, b) for a, b in zip(self.cuda, now))
        return False


def _check_in_dims(in_dims: Any, args: tuple, func: Callable) -> tuple[int, list, list, Any]:
    name = func_name(func)
    if not isinstance(in_dims, (int, tuple)):
        raise ValueError(
            f"vmap({name}, in_dims={in_dims}, ...)(<inputs>): expected `in_dims` to be int or a (potentially "
            f"nested) tuple matching the structure of inputs, got: {type(in_dims)}."
        )
    if len(args) == 0:
        raise ValueError(
            f"vmap({name})(<inputs>): got no inputs. Maybe you forgot to add inputs, or you are trying to vmap "
            "over a function with no inputs. The latter is unsupported."
        )
    flat_args, spec = tree_flatten(args)
    flat_in_dims = _broadcast_to_and_flatten(in_dims, spec)
    if flat_in_dims is None:
        raise ValueError(
            f"vmap({name}, in_dims={in_dims}, ...)(<inputs>): in_dims is not compatible with the structure of "
            f"`inputs`. in_dims has structure {tree_flatten(in_dims)[1]} but inputs has structure {spec}."
        )
    for i, (arg, in_dim) in enumerate(zip(flat_args, flat_in_dims)):
        if not isinstance(in_dim, int) and in_dim is not None:
            raise ValueError(
                f"vmap({name}, in_dims={in_dims}, ...)(<inputs>): Got in_dim={in_dim} for an input but in_dim "
                "must be either an integer dimension or None."
            )
        if isinstance(in_dim, int) and not is_tensor(arg):
            raise ValueError(
                f"vmap({name}, in_dims={in_dims}, ...)(<inputs>): Got in_dim={in_dim} for an input but the input "
                f"is of type {type(arg)}. We cannot vmap over non-Tensor arguments, please use None as the "
                "respective in_dim"
            )
        if in_dim is not None and not -arg.dim() <= in_dim < arg.dim():
            raise ValueError(
                f"vmap({name}, in_dims={in_dims}, ...)(<inputs>): Got in_dim={in_dim} for some input, but that "
                f"input is a Tensor of dimensionality {arg.dim()} so expected in_dim to satisfy "
                f"-{arg.dim()} <= in_dim < {arg.dim()}."
            )
        if in_dim is not None and in_dim < 0:
            flat_in_dims[i] = in_dim % arg.dim()
    sizes = [arg.size(d) for arg, d in zip(flat_args, flat_in_dims) if d is not None]
    if not sizes:
        raise ValueError("vmap: Expected at least one Tensor to vmap over")
    if any(size != sizes[0] for size in sizes):
        raise ValueError(
            "vmap: Expected all tensors to have the same size in the mapped dimension, got sizes "
            f"{sizes} for the mapped dimension"
        )
    return sizes[0], flat_in_dims, flat_args, spec


def flat_out_dims(func: Callable) -> Callable:
    return lambda out_dims, output, spec: _flat_out_dims(out_dims, output, spec, func)


def _flat_out_dims(out_dims: Any, output: Any, spec, func: Callable) -> list:
    def incompatible() -> ValueError:
        return ValueError(
            f"vmap({func_name(func)}, ..., out_dims={out_dims})(<inputs>): out_dims is not compatible with the "
            f"structure of `outputs`. out_dims has structure {tree_flatten(out_dims)[1]} but outputs has "
            f"structure {spec}."
        )

    if is_tensor(output) or isinstance(output, Batched):
        if isinstance(out_dims, int) or out_dims is None:
            return [out_dims]
        if isinstance(out_dims, tuple) and len(out_dims) == 1:
            return list(out_dims)
        raise incompatible()
    flat = _broadcast_to_and_flatten(out_dims, spec)
    if flat is None:
        raise incompatible()
    for d in flat:
        if d is not None and not isinstance(d, int):
            raise ValueError(
                f"vmap({func_name(func)}, ..., out_dims={out_dims}): `out_dims` must be an int, None or a python "
                "collection of ints representing where in the outputs the vmapped dimension should appear."
            )
    return flat


def _stack(samples: list, dim: int) -> Tensor | torch.Tensor:
    if any(isinstance(s, Tensor) for s in samples):
        return stack(samples, dim)
    return torch.stack(samples, dim)


def _select(x: Tensor | torch.Tensor, dim: int | None, i: int):
    return x if dim is None else x.select(dim, i)


def vmap(
    func: Callable,
    in_dims: int | tuple = 0,
    out_dims: int | tuple | None = 0,
    randomness: str = "error",
    *,
    chunk_size: int | None = None,
) -> Callable:
    """``func`` mapped over a dimension of its inputs, as ``torch.func.vmap``: ``in_dims`` says
    which dimension of each input is mapped (an int, ``None`` for an input passed whole to every
    call, or a nested tuple following the inputs' structure), ``out_dims`` where each output
    gets it. Keyword arguments are passed whole. Nests (``vmap(vmap(f))``) and composes with the
    other transforms (``vmap(grad(f))``, ``grad(vmap(f))``); ``chunk_size`` is checked as PyTorch
    checks it and changes nothing here (the batched call takes the whole batch, the loop one
    sample at a time).

    >>> import minitorch_rx as mt
    >>> vmap(lambda x, y: x @ y, in_dims=(0, None))(mt.ones(4, 3), mt.ones(3)).tolist()
    [3.0, 3.0, 3.0, 3.0]
    """
    if randomness not in _RANDOMNESS:
        raise RuntimeError(f"Only allowed values for randomness are 'error', 'different', or 'same'. Got {randomness}")
    if not (chunk_size is None or chunk_size > 0):
        raise ValueError(f"vmap: chunk_size should be None or greater than 0. (got {chunk_size})")

    @functools.wraps(func)
    def wrapped(*args: Any, **kwargs: Any):
        batch_size, flat_in_dims, flat_args, spec = _check_in_dims(in_dims, args, func)
        before = _Generators()
        if randomness != "same":
            done = run_batched(func, before, flat_args, flat_in_dims, spec, kwargs, out_dims, flat_out_dims(func))
            if done is not FAILED:
                return done
        if batch_size == 0:
            raise ValueError(
                f"vmap({func_name(func)})(<inputs>): the mapped dimension has size 0 and func has an op without a "
                "batch rule; run one call per sample, minitorch_rx cannot tell the shape of an empty result"
            )
        outputs = []
        for i in range(batch_size):
            if randomness == "same":
                before.restore()
            sample = [_select(x, d, i) for x, d in zip(flat_args, flat_in_dims)]
            outputs.append(func(*tree_unflatten(sample, spec), **kwargs))
            if randomness == "error" and before.moved():
                raise RuntimeError(_RANDOM_ERROR)
        return _stack_outputs(outputs, out_dims, func)

    return wrapped


def _same(a: object, b: object) -> bool:
    """Whether two samples' outputs for ``out_dims=None`` are one value: torch refuses a mapped one."""
    if not (is_tensor(a) and is_tensor(b)):
        return True
    a, b = (x.torch() if isinstance(x, Tensor) else x for x in (a, b))
    return a is b or (a.shape == b.shape and torch.equal(a, b))


def _stack_outputs(outputs: list, out_dims: Any, func: Callable) -> Any:
    flat, spec = tree_flatten(outputs[0])
    dims = _flat_out_dims(out_dims, outputs[0], spec, func)
    per_sample = [tree_flatten(o)[0] for o in outputs]
    result = []
    for k, (first, dim) in enumerate(zip(flat, dims)):
        if dim is None:
            if any(not _same(first, sample[k]) for sample in per_sample[1:]):
                name = func_name(func)
                raise ValueError(f"vmap({name}, ...): `{name}` can not return a BatchedTensor when out_dim is None")
            result.append(first)
            continue
        if not is_tensor(first):
            name = func_name(func)
            raise ValueError(
                f"vmap({name}, ...): `{name}` must only return Tensors, got type {type(first)}. "
                "Did you mean to set out_dims= to None for output?"
            )
        result.append(_stack([sample[k] for sample in per_sample], dim))
    return tree_unflatten(result, spec)
