"""``functional_call`` (a module run with other tensors in place of its parameters and buffers)
and ``stack_module_state`` (many models' parameters as one stacked tensor each, for ``vmap``)."""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import contextmanager
from typing import Any

from torch.utils._pytree import tree_flatten

from ..autograd.tensor import Tensor
from ..nn.module import Module
from ..ops.shape import stack
from .batched import Batched
from .batched_modules import batch_rules

__all__ = ["functional_call", "stack_module_state"]

_MISSING = object()


def _owner(module: Any, name: str) -> tuple[Any, str]:
    *path, leaf = name.split(".")
    for part in path:
        module = getattr(module, part)
    return module, leaf


def _swap(module: Any, name: str, value: Any) -> Any:
    """Put ``value`` where ``module``'s member ``name`` is (a parameter or buffer slot, else an
    attribute) and return what was there (``_MISSING`` for nothing)."""
    owner, leaf = _owner(module, name)
    for table in ("_parameters", "_buffers"):
        members = owner.__dict__.get(table)
        if members is not None and leaf in members:
            old = members[leaf]
            if value is _MISSING:
                del members[leaf]
            else:
                members[leaf] = value
            return old
    old = owner.__dict__.get(leaf, _MISSING)
    if value is _MISSING:
        owner.__dict__.pop(leaf, None)
    else:
        owner.__dict__[leaf] = value
    return old


def _untie(module: Any, values: dict) -> dict:
    """``values`` plus, for each given tensor that is tied to others in ``module`` (one tensor
    under several names), the same value under the other names, as PyTorch's ``tie_weights``."""
    names_of: dict[int, list[str]] = {}
    for name, t in (*module.named_parameters(remove_duplicate=False), *module.named_buffers(remove_duplicate=False)):
        names_of.setdefault(id(t), []).append(name)
    result = dict(values)
    for tied in names_of.values():
        given = [n for n in tied if n in values]
        if len(tied) < 2 or not given:
            continue
        if len({id(values[n]) for n in given}) != 1:
            raise ValueError(
                f"functional_call got multiple values for keys {sorted(given)}, which are tied. Consider using "
                "tie_weights=False"
            )
        for n in tied:
            result[n] = values[given[0]]
    return result


@contextmanager
def _reparametrized(module: Any, values: dict, tie_weights: bool, strict: bool):
    if tie_weights:
        values = _untie(module, values)
    if strict:
        expected = {n for n, _ in module.named_parameters(remove_duplicate=False)}
        expected |= {n for n, _ in module.named_buffers(remove_duplicate=False)}
        errors = []
        unexpected = sorted(set(values) - expected)
        missing = sorted(expected - set(values))
        if unexpected:
            errors.append(f"Unexpected key(s): {', '.join(map(repr, unexpected))}.")
        if missing:
            errors.append(f"Missing key(s): {', '.join(map(repr, missing))}.")
        if errors:
            raise RuntimeError(f"Error(s) in reparametrizing for {type(module).__name__}:\n\t" + "\n\t".join(errors))
    originals: dict[str, Any] = {}
    try:
        for name, value in values.items():
            originals[name] = _swap(module, name, value)
        yield
    finally:
        for name, old in reversed(originals.items()):
            _swap(module, name, old)


def functional_call(
    module: Module,
    parameter_and_buffer_dicts: dict | Sequence[dict],
    args: Any = None,
    kwargs: dict | None = None,
    *,
    tie_weights: bool = True,
    strict: bool = False,
) -> Any:
    """``module(*args, **kwargs)`` with the tensors of ``parameter_and_buffer_dicts`` (a dict
    from names such as ``"fc.weight"`` to tensors, or a sequence of such dicts) in place of the
    module's own for this call only, as ``torch.func.functional_call``. ``args`` that is not a
    tuple is the one positional argument.

    >>> import minitorch_rx as mt, minitorch_rx.nn as nn
    >>> layer = nn.Linear(2, 1, bias=False)
    >>> functional_call(layer, {"weight": mt.ones(1, 2)}, (mt.tensor([[1.0, 2.0]]),)).tolist()
    [[3.0]]
    """
    if isinstance(parameter_and_buffer_dicts, dict):
        values = parameter_and_buffer_dicts
    elif isinstance(parameter_and_buffer_dicts, Sequence):
        if not all(isinstance(d, dict) for d in parameter_and_buffer_dicts):
            raise ValueError("Expected all elements of parameter_and_buffer_dicts to be dictionaries")
        keys = [k for d in parameter_and_buffer_dicts for k in d]
        repeated = [k for k in dict.fromkeys(keys) if keys.count(k) > 1]
        if repeated:
            raise ValueError(f"{repeated} appeared in multiple dictionaries; behavior of functional call is ambiguous")
        values = {k: v for d in parameter_and_buffer_dicts for k, v in d.items()}
    else:
        raise ValueError(
            "Expected parameter_and_buffer_dicts to be a dict, or a list/tuple of dicts, but got "
            f"{type(parameter_and_buffer_dicts)}"
        )
    if args is None:
        args = ()
    elif not isinstance(args, tuple):
        args = (args,)
    kwargs = kwargs or {}
    if _any_batched(values, args, kwargs):  # inside vmap's batched attempt
        with _reparametrized(module, values, tie_weights, strict), batch_rules(module):
            return module(*args, **kwargs)
    with _reparametrized(module, values, tie_weights, strict):
        return module(*args, **kwargs)


def _any_batched(*trees: Any) -> bool:
    return any(isinstance(leaf, Batched) for leaf in tree_flatten(trees)[0])


def _stacked_leaf(tensors: list, name: str) -> Tensor:
    needs = [t.requires_grad for t in tensors]
    if any(needs) and not all(needs):
        raise RuntimeError(f"Expected {name} from each model to have the same .requires_grad")
    result = stack([t.detach() if isinstance(t, Tensor) else Tensor(t) for t in tensors])
    return result.requires_grad_(True) if all(needs) else result


def stack_module_state(models: Sequence[Module]) -> tuple[dict[str, Tensor], dict[str, Tensor]]:
    """``(params, buffers)``: each name's tensors of all ``models`` stacked into one new leaf
    (requiring grad where the models' do), as ``torch.func.stack_module_state``; with
    ``vmap(lambda p, b, x: functional_call(models[0], (p, b), (x,)), in_dims=(0, 0, None))`` an
    ensemble runs as one call."""
    if len(models) == 0:
        raise RuntimeError("stack_module_state: Expected at least one model, got 0.")
    if not (all(m.training for m in models) or all(not m.training for m in models)):
        raise RuntimeError("stack_module_state: Expected all models to have the same training/eval mode.")
    if not all(type(m) is type(models[0]) for m in models):
        raise RuntimeError("stack_module_state: Expected all models to be of the same class.")
    params = [dict(m.named_parameters()) for m in models]
    buffers = [dict(m.named_buffers()) for m in models]
    stacked_params = {k: _stacked_leaf([p[k] for p in params], k) for k in params[0]}
    stacked_buffers = {k: _stacked_leaf([b[k] for b in buffers], k) for k in buffers[0]}
    return stacked_params, stacked_buffers
