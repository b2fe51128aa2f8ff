"""``jvp`` and ``linearize``: forward mode by the double-vjp construction.

Our engine has no forward mode, so ``J v`` comes from reverse mode twice. With ``u`` a dummy
cotangent that requires grad, one backward recorded with ``create_graph=True`` gives
``g(u) = J^T u``; it is linear in ``u``, so the gradient of ``<g(u), v>`` with respect to ``u``
is ``J v``. Cost: a forward, a recorded backward (about twice a plain one) and a backward
through that backward, so about three to four times ``func`` where real forward mode costs one
to two; and every op in ``func`` must be twice differentiable by the engine. The recorded
backward is built once per call: ``linearize``'s ``jvp_fn`` (and ``jacfwd``'s columns) reuse it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from torch.utils._pytree import tree_flatten, tree_unflatten

from ..autograd.grad_mode import enable_grad
from ._common import (
    as_mt,
    autograd_grad,
    check_outputs_are_tensors,
    depth,
    differentiate_args,
    finish,
    is_tensor,
    nested,
    requires_grad,
    slice_argnums,
    split_aux,
    zeros_like,
)

__all__ = ["jvp", "linearize"]

_JVP = "jvp(f, primals, tangents)"


class ForwardLinearization:
    """``func`` run once at ``args`` and its backward recorded for a dummy cotangent: ``push``
    then gives ``J v`` for any tangent ``v`` of the differentiated inputs."""

    def __init__(self, func: Callable, args: tuple, argnums: int | tuple | None, has_aux: bool) -> None:
        self.keep = depth() > 0 or requires_grad(args)
        with nested(), enable_grad():
            args, diff = differentiate_args(args, argnums, self.keep)
            message = f"{_JVP}: output of function f should be a tuple: (output, aux) if has_aux is True"
            self.output, self.aux = split_aux(func(*args), has_aux, message)
            flat, self.output_spec = tree_flatten(self.output)
            check_outputs_are_tensors(flat, _JVP)
            self.flat_outputs = [as_mt(o) for o in flat]
            self.flat_inputs, self.input_spec = tree_flatten(diff)
            self.dummies = [
                zeros_like(o).requires_grad_(True) if o.is_floating_point() else None for o in self.flat_outputs
            ]
            used = [(o, u) for o, u in zip(self.flat_outputs, self.dummies) if u is not None]
            self.transposed = autograd_grad(
                [o for o, _ in used], self.flat_inputs, [u for _, u in used], create_graph=True, retain_graph=True
            )

    def push(self, tangents: list, strict: bool = False) -> list:
        """``J v`` for each flat output, ``tangents`` one per flat differentiated input (``None``: zero)."""
        create_graph = self.keep or depth() > 0 or requires_grad(tangents)
        pairs = [(g, t) for g, t in zip(self.transposed, tangents) if t is not None]
        dummies = [u for u in self.dummies if u is not None]
        with enable_grad():
            pushed = iter(autograd_grad([g for g, _ in pairs], dummies, [t for _, t in pairs], create_graph, True))
        result = []
        for o, u in zip(self.flat_outputs, self.dummies):
            if strict and not o.requires_grad:
                raise RuntimeError(
                    "jvp(f, primals, tangents, strict=True): The output of f is independent of the inputs. "
                    "This is not allowed with strict=True."
                )
            result.append(zeros_like(o) if u is None else next(pushed))
        return result


def _check_tangents(primals: Any, tangents: Any) -> tuple[list, list]:
    flat_primals, primals_spec = tree_flatten(primals)
    flat_tangents, tangents_spec = tree_flatten(tangents)
    if primals_spec != tangents_spec:
        raise RuntimeError(
            f"{_JVP}: Expected primals and tangents to have the same python structure. For example, if "
            "primals is a tuple of 3 tensors, tangents also must be. Got primals with structure "
            f"{primals_spec} and tangents with structure {tangents_spec}"
        )
    for flat, name in ((flat_primals, "primals"), (flat_tangents, "tangents")):
        if len(flat) == 0:
            raise RuntimeError(f"{_JVP}: Expected {name} to contain at least one Tensor.")
        for x in flat:
            if not is_tensor(x):
                raise RuntimeError(f"{_JVP}: Expected {name} to only contain Tensors, got {type(x)}")
    for p, t in zip(flat_primals, flat_tangents):
        if p.shape != t.shape:
            raise RuntimeError(
                "Trying to set a forward gradient that has a different size than that of the original Tensor, "
                f"this is not supported. Tensor is of size {list(p.shape)} while the given forward gradient is "
                f"of size {list(t.shape)}."
            )
    return flat_primals, [as_mt(t) for t in flat_tangents]


def jvp(func: Callable, primals: tuple, tangents: Any, *, strict: bool = False, has_aux: bool = False):
    """``(func(*primals), J tangents)``, as ``torch.func.jvp``; with ``has_aux``:
    ``(output, jvp_out, aux)``. Computed by the double-vjp construction (this module's docstring:
    about three to four times the cost of ``func``, and ``func`` must be twice differentiable).

    >>> import minitorch_rx as mt
    >>> out, tangent = jvp(lambda x: x * x, (mt.tensor([1.0, 2.0]),), (mt.ones(2),))
    >>> tangent.tolist()
    [2.0, 4.0]
    """
    return jvp_with_argnums(func, primals, tangents, None, strict=strict, has_aux=has_aux)


def jvp_with_argnums(
    func: Callable, primals: tuple, tangents: Any, argnums: int | tuple | None, *, strict: bool, has_aux: bool
):
    if not isinstance(primals, tuple):
        raise RuntimeError(f"{_JVP}: Expected primals to be a tuple. E.g. it should be valid to call f(*primals).")
    diff_args = primals if argnums is None else slice_argnums(primals, argnums)
    _, flat_tangents = _check_tangents(diff_args, tangents)
    run = ForwardLinearization(func, primals, argnums, has_aux)
    pushed = run.push(flat_tangents, strict)
    output = finish(run.output, run.keep)
    jvp_out = tree_unflatten(pushed, run.output_spec)
    if has_aux:
        return output, jvp_out, finish(run.aux, run.keep)
    return output, jvp_out


def linearize(func: Callable, *primals: Any) -> tuple[Any, Callable]:
    """``(func(*primals), jvp_fn)``, as ``torch.func.linearize``: ``jvp_fn(*tangents)`` gives
    ``J tangents`` reusing one recorded backward (the double-vjp construction of ``jvp``)."""
    run = ForwardLinearization(func, primals, None, False)

    def jvp_fn(*tangents: Any):
        _, flat = _check_tangents(primals, tangents)
        return tree_unflatten(run.push(flat), run.output_spec)

    return finish(run.output, run.keep), jvp_fn
