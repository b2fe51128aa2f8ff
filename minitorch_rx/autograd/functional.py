"""``mt.autograd.functional``: Jacobians, Hessians and their products with vectors, built on
``grad(..., create_graph=True)`` with PyTorch's signatures and conventions.

``vectorize=True`` is accepted and computes row by row as ``vectorize=False`` does (there is no
vmap here); ``strategy="forward-mode"`` is refused, as PyTorch refuses it without vectorize.
"""

from __future__ import annotations

from collections.abc import Callable

import torch

from .engine import grad
from .grad_mode import enable_grad
from .tensor import Tensor

__all__ = ["hessian", "hvp", "jacobian", "jvp", "vhp", "vjp"]


def _as_tuple(value, arg_name: str, fn_name: str) -> tuple[bool, tuple]:
    is_tuple = isinstance(value, tuple)
    values = value if is_tuple else (value,)
    for i, v in enumerate(values):
        if not isinstance(v, Tensor):
            where = (
                f"The {arg_name} given to {fn_name}" if not is_tuple else f"Entry {i} in the {arg_name} of {fn_name}"
            )
            kind = type(v).__name__
            raise TypeError(
                f"{where} must be either a Tensor or a tuple of Tensors but the given {arg_name} has type {kind}."
            )
    return is_tuple, values


def _check_func(func: object, fn_name: str) -> None:
    if not callable(func):
        raise TypeError(f"The func given to {fn_name} must be callable, but got {type(func).__name__}")


def _prepare(inputs: tuple, create_graph: bool) -> tuple:
    """Inputs the function can be differentiated at: connected to their history only when the
    result must be differentiable again (``create_graph``), fresh leaves otherwise."""
    prepared = []
    for x in inputs:
        if create_graph and x.requires_grad:
            prepared.append(x.view(x.shape))
        else:
            prepared.append(x.detach().requires_grad_(True))
    return tuple(prepared)


def _finish(values: tuple, create_graph: bool) -> tuple:
    return tuple(v if v is None or create_graph else v.detach() for v in values)


def _grads(outputs, inputs, grad_outputs, create_graph: bool, strict: bool, stage: str) -> tuple:
    wanted = [o for o in outputs if o.requires_grad]
    pairs = [(o, g) for o, g in zip(outputs, grad_outputs) if o.requires_grad]
    if not wanted:
        grads = (None,) * len(inputs)
    else:
        grads = grad([o for o, _ in pairs], list(inputs), [g for _, g in pairs], create_graph=True, allow_unused=True)
    result = []
    for i, (g, x) in enumerate(zip(grads, inputs)):
        if g is None:
            if strict:
                raise RuntimeError(
                    f"The {stage} of the user-provided function is independent of input {i}. "
                    "This is not allowed in strict mode."
                )
            g = Tensor._make(torch.zeros_like(x._data), None)
        result.append(g)
    return tuple(result)


def _check_v(v, outputs: tuple, fn_name: str, what: str) -> tuple:
    if v is None:
        if len(outputs) != 1 or outputs[0].numel() != 1:
            raise RuntimeError(
                f"The vector v can only be None if the {what} user-provided function is a single Tensor "
                "with a single element."
            )
        return (Tensor._make(torch.ones_like(outputs[0]._data), None),)
    _, vs = _as_tuple(v, "v", fn_name)
    if len(vs) != len(outputs):
        raise RuntimeError(f"v has invalid size: should be {len(outputs)} but got {len(vs)}.")
    for i, (a, b) in enumerate(zip(vs, outputs)):
        if a.shape != b.shape:
            raise RuntimeError(f"Entry {i} in v has invalid size: should be {list(b.shape)} but got {list(a.shape)}.")
    return vs


def _call(func: Callable, inputs: tuple, fn_name: str) -> tuple[bool, tuple]:
    with enable_grad():
        out = func(*inputs)
    return _as_tuple(out, "outputs of the user-provided function", fn_name)


def vjp(func: Callable, inputs, v=None, create_graph: bool = False, strict: bool = False):
    """``(func(inputs), v^T J)``: the vector-Jacobian product, as ``torch.autograd.functional.vjp``."""
    _check_func(func, "vjp")
    inputs_tuple, inputs = _as_tuple(inputs, "inputs", "vjp")
    inputs = _prepare(inputs, create_graph)
    outputs_tuple, outputs = _call(func, inputs, "vjp")
    vs = _check_v(v, outputs, "vjp", "output of the")
    with enable_grad():
        result = _grads(outputs, inputs, vs, create_graph, strict, "output")
    out = _finish(outputs, create_graph)
    result = _finish(result, create_graph)
    return (out if outputs_tuple else out[0]), (result if inputs_tuple else result[0])


def jvp(func: Callable, inputs, v=None, create_graph: bool = False, strict: bool = False):
    """``(func(inputs), J v)``: the Jacobian-vector product by the double-vjp trick, as
    ``torch.autograd.functional.jvp``."""
    _check_func(func, "jvp")
    inputs_tuple, inputs = _as_tuple(inputs, "inputs", "jvp")
    inputs = _prepare(inputs, create_graph)
    vs = _check_v(v, inputs, "jvp", "input to the")
    outputs_tuple, outputs = _call(func, inputs, "jvp")
    with enable_grad():
        dummies = tuple(Tensor(torch.zeros_like(o._data), requires_grad=True) for o in outputs)
        grad_inputs = _grads(outputs, inputs, dummies, True, strict, "output")
        result = _grads(grad_inputs, dummies, vs, create_graph, strict, "backward")
    out = _finish(outputs, create_graph)
    result = _finish(result, create_graph)
    return (out if outputs_tuple else out[0]), (result if outputs_tuple else result[0])


def jacobian(
    func: Callable,
    inputs,
    create_graph: bool = False,
    strict: bool = False,
    vectorize: bool = False,
    strategy: str = "reverse-mode",
):
    """The Jacobian of ``func`` at ``inputs``: for each output and input, a tensor of shape
    ``output.shape + input.shape``, nested as ``torch.autograd.functional.jacobian`` nests them."""
    if strategy not in ("reverse-mode", "forward-mode"):
        raise ValueError('Expected strategy to be either "forward-mode" or "reverse-mode".')
    if strategy == "forward-mode":
        raise NotImplementedError(
            "jacobian(strategy='forward-mode') needs vectorize=True and vmap, which minitorch_rx has not."
        )
    _check_func(func, "jacobian")
    inputs_tuple, inputs = _as_tuple(inputs, "inputs", "jacobian")
    inputs = _prepare(inputs, create_graph)
    outputs_tuple, outputs = _call(func, inputs, "jacobian")
    jacobians = []
    for i, out in enumerate(outputs):
        rows: list[list] = [[] for _ in inputs]
        flat = out.reshape(-1)
        for j in range(flat.numel()):
            seed = torch.zeros_like(out._data).reshape(-1)
            seed[j] = 1
            with enable_grad():
                if out.requires_grad:
                    grads = grad([out], list(inputs), [seed.view_as(out._data)], create_graph=True, allow_unused=True)
                else:
                    grads = (None,) * len(inputs)
            for k, (g, x) in enumerate(zip(grads, inputs)):
                if g is None:
                    if strict:
                        raise RuntimeError(
                            f"Output {i} of the user-provided function is independent of input {k}. This is not "
                            "allowed in strict mode."
                        )
                    g = Tensor._make(torch.zeros_like(x._data), None)
                rows[k].append(g if create_graph else g.detach())
        per_input = []
        for k, x in enumerate(inputs):
            if rows[k]:
                from ..ops.shape import stack  # ops build on autograd: imported when first used

                jac = stack(rows[k], 0).reshape(*out.shape, *x.shape)
            else:
                jac = Tensor._make(torch.zeros(*out.shape, *x.shape, dtype=x.dtype, device=x.device), None)
            per_input.append(jac)
        jacobians.append(tuple(per_input) if inputs_tuple else per_input[0])
    return tuple(jacobians) if outputs_tuple else jacobians[0]


def hessian(
    func: Callable,
    inputs,
    create_graph: bool = False,
    strict: bool = False,
    vectorize: bool = False,
    outer_jacobian_strategy: str = "reverse-mode",
):
    """The Hessian of the scalar function ``func`` at ``inputs``, as ``torch.autograd.functional.hessian``."""
    _check_func(func, "hessian")
    inputs_tuple, inputs = _as_tuple(inputs, "inputs", "hessian")

    def gradient(*xs):
        out = func(*xs)
        _, outs = _as_tuple(out, "outputs of the user-provided function", "hessian")
        if len(outs) != 1 or outs[0].numel() != 1:
            raise RuntimeError("The function given to hessian should return a single Tensor with a single element.")
        grads = _grads(outs, xs, (Tensor._make(torch.ones_like(outs[0]._data), None),), True, strict, "output")
        return grads

    result = jacobian(gradient, inputs, create_graph=create_graph, strict=strict, strategy=outer_jacobian_strategy)
    if inputs_tuple:
        return result
    return result[0][0] if isinstance(result[0], tuple) else result[0]


def vhp(func: Callable, inputs, v=None, create_graph: bool = False, strict: bool = False):
    """``(func(inputs), v^T H)``, as ``torch.autograd.functional.vhp``."""
    return _hessian_product("vhp", func, inputs, v, create_graph, strict)


def hvp(func: Callable, inputs, v=None, create_graph: bool = False, strict: bool = False):
    """``(func(inputs), H v)``, as ``torch.autograd.functional.hvp`` (equal to ``vhp`` for the
    symmetric Hessians of twice-differentiable functions)."""
    return _hessian_product("hvp", func, inputs, v, create_graph, strict)


def _hessian_product(name: str, func: Callable, inputs, v, create_graph: bool, strict: bool):
    _check_func(func, name)
    inputs_tuple, inputs = _as_tuple(inputs, "inputs", name)
    inputs = _prepare(inputs, create_graph)
    _, outputs = _call(func, inputs, name)
    if len(outputs) != 1 or outputs[0].numel() != 1:
        raise RuntimeError(f"The function given to {name} should return a single Tensor with a single element.")
    vs = _check_v(v, inputs, name, "input to the")
    with enable_grad():
        ones = (Tensor._make(torch.ones_like(outputs[0]._data), None),)
        gradients = _grads(outputs, inputs, ones, True, strict, "output")
        result = _grads(gradients, inputs, vs, create_graph, strict, "jacobian")
    out = _finish(outputs, create_graph)[0]
    result = _finish(result, create_graph)
    return out, (result if inputs_tuple else result[0])
