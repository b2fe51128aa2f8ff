"""``grad``, ``grad_and_value`` and ``vjp``: reverse mode, one backward of our engine each."""

from __future__ import annotations

import functools
import weakref
from collections.abc import Callable
from typing import Any, NamedTuple

from torch.utils._pytree import tree_flatten, tree_unflatten, treespec_pprint

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
    split_aux,
)

__all__ = ["grad", "grad_and_value", "vjp"]

HAS_AUX_ERROR = "grad_and_value(f)(*args): output of function f should be a tuple: (output, aux) if has_aux is True"


class GradSpec(NamedTuple):
    """What a function ``grad`` or ``grad_and_value`` made differentiates (``vmap`` reads it)."""

    func: Callable
    argnums: int | tuple
    has_aux: bool
    with_value: bool


#: The functions ``grad`` and ``grad_and_value`` returned, and what each differentiates.
GRADS: weakref.WeakKeyDictionary[Callable, GradSpec] = weakref.WeakKeyDictionary()


def grad_and_value(func: Callable, argnums: int | tuple[int, ...] = 0, has_aux: bool = False) -> Callable:
    """A function returning ``(gradient, value)`` of the scalar ``func`` with respect to the
    arguments ``argnums`` picks (each may be a pytree of tensors), as ``torch.func.grad_and_value``;
    with ``has_aux`` ``func`` returns ``(value, aux)`` and this ``(gradient, (value, aux))``.

    >>> import minitorch_rx as mt
    >>> g, v = grad_and_value(lambda x: (x * x).sum())(mt.tensor([1.0, 2.0]))
    >>> g.tolist(), v.item()
    ([2.0, 4.0], 5.0)
    """

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any):
        keep = depth() > 0 or requires_grad((args, kwargs))
        with nested(), enable_grad():
            args, diff = differentiate_args(args, argnums, keep)
            output, aux = split_aux(func(*args, **kwargs), has_aux, HAS_AUX_ERROR)
            if not is_tensor(output):
                raise RuntimeError(
                    f"grad_and_value(f)(*args): Expected f(*args) to return a Tensor, got {type(output)}"
                )
            if output.dim() != 0:
                raise RuntimeError(
                    "grad_and_value(f)(*args): Expected f(*args) to return a scalar Tensor, got tensor with "
                    f"{output.dim()} dims. Maybe you wanted to use the vjp or jacrev APIs instead?"
                )
            flat_diff, spec = tree_flatten(diff)
            grads = autograd_grad([as_mt(output)], flat_diff, None, create_graph=keep)
        gradient = tree_unflatten(list(grads), spec)
        value = finish(output, keep)
        if has_aux:
            return gradient, (value, finish(aux, keep))
        return gradient, value

    GRADS[wrapper] = GradSpec(func, argnums, has_aux, True)
    return wrapper


def grad(func: Callable, argnums: int | tuple[int, ...] = 0, has_aux: bool = False) -> Callable:
    """A function returning the gradient of the scalar ``func`` with respect to the arguments
    ``argnums`` picks, as ``torch.func.grad``: ``grad(grad(f))`` is a second derivative, and
    ``vmap(grad(f))`` gives per-sample gradients. With ``has_aux``: ``(gradient, aux)``.

    >>> import minitorch_rx as mt
    >>> grad(grad(lambda x: x ** 3))(mt.tensor(2.0)).item()
    12.0
    """
    inner = grad_and_value(func, argnums, has_aux)

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any):
        gradient, value = inner(*args, **kwargs)
        return (gradient, value[1]) if has_aux else gradient

    GRADS[wrapper] = GradSpec(func, argnums, has_aux, False)
    return wrapper


class Linearization:
    """A function run once, with what a transform needs to differentiate it (``vjp``, ``jacrev``)."""

    def __init__(self, func: Callable, args: tuple, argnums: int | tuple | None, has_aux: bool, api: str) -> None:
        self.keep = depth() > 0 or requires_grad(args)
        with nested(), enable_grad():
            args, diff = differentiate_args(args, argnums, self.keep)
            message = f"{api}: output of function f should be a tuple: (output, aux) if has_aux is True"
            self.output, self.aux = split_aux(func(*args), has_aux, message)
            flat, self.output_spec = tree_flatten(self.output)
            check_outputs_are_tensors(flat, api)
            for o in flat:
                if not (o.is_floating_point() or o.is_complex()):
                    raise RuntimeError(
                        "vjp(f, ...): All outputs of f must be floating-point or complex Tensors, got Tensor "
                        f"with dtype {o.dtype}"
                    )
        self.flat_outputs = [as_mt(o) for o in flat]
        self.flat_inputs, self.input_spec = tree_flatten(diff)

    def pullback(
        self, outputs: list, cotangents: list, create_graph: bool | None = None, retain_graph: bool = True
    ) -> tuple:
        """The gradients of ``outputs`` (some of ``flat_outputs``) for ``cotangents`` with respect
        to every differentiated input, recorded when something outside can use them."""
        if create_graph is None:
            create_graph = self.keep or depth() > 0 or requires_grad(cotangents)
        with enable_grad():
            return autograd_grad(outputs, self.flat_inputs, cotangents, create_graph, retain_graph)


def vjp(func: Callable, *primals: Any, has_aux: bool = False):
    """``(func(*primals), vjp_fn)``, as ``torch.func.vjp``: ``vjp_fn(cotangents)`` gives the
    vector-Jacobian product with respect to each primal (a tuple, one per primal), and may be
    called again with other cotangents; with ``has_aux``: ``(output, vjp_fn, aux)``.

    >>> import minitorch_rx as mt
    >>> out, vjp_fn = vjp(lambda x: x * x, mt.tensor([1.0, 2.0]))
    >>> vjp_fn(mt.ones(2))[0].tolist()
    [2.0, 4.0]
    """
    run = Linearization(func, primals, None, has_aux, "vjp(f, *primals)")

    def vjp_fn(cotangents: Any, retain_graph: bool = True, create_graph: bool | None = None):
        flat, spec = tree_flatten(cotangents)
        if spec != run.output_spec:
            raise RuntimeError(
                "Expected pytree structure of cotangents to be the same as pytree structure of outputs to "
                f"the function. cotangents: {treespec_pprint(spec)}, primal output: "
                f"{treespec_pprint(run.output_spec)}"
            )
        grads = run.pullback(run.flat_outputs, flat, create_graph, retain_graph)
        return tree_unflatten(list(grads), run.input_spec)

    output = finish(run.output, run.keep)
    if has_aux:
        return output, vjp_fn, finish(run.aux, run.keep)
    return output, vjp_fn
