"""``gradcheck``: the engine's gradients against central finite differences."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import torch

from .grad_mode import enable_grad, no_grad
from .tensor import Tensor


class GradcheckError(RuntimeError):
    """The analytical and numerical Jacobians disagree."""


def _outputs(fn: Callable, inputs: Sequence) -> list[Tensor]:
    if not callable(fn):
        raise TypeError(f"gradcheck's fn must be callable, not {type(fn).__name__}")
    out = fn(*inputs)
    outs = list(out) if isinstance(out, (tuple, list)) else [out]
    return [o for o in outs if isinstance(o, Tensor) and o._data.is_floating_point()]


def gradcheck(
    fn: Callable,
    inputs: Tensor | Sequence,
    eps: float = 1e-6,
    atol: float = 1e-5,
    rtol: float = 1e-3,
    raise_exception: bool = True,
) -> bool:
    """Compare ``d fn(*inputs) / d input`` from the engine with finite differences, for every
    input that requires grad; use float64 inputs. Raises ``GradcheckError`` naming the first
    mismatch (or returns False when ``raise_exception=False``).

    >>> import minitorch_rx as mt
    >>> x = mt.randn(3, dtype=mt.float64, requires_grad=True)
    >>> mt.autograd.gradcheck(lambda t: (t * t).sum(), x)
    True
    """
    from .engine import grad as engine_grad

    if not isinstance(inputs, (Tensor, list, tuple)):
        raise TypeError(f"gradcheck inputs must be an mt.Tensor or a sequence, not {type(inputs).__name__}")
    inputs = (inputs,) if isinstance(inputs, Tensor) else tuple(inputs)
    wrt = [i for i, t in enumerate(inputs) if isinstance(t, Tensor) and t.requires_grad]
    if not wrt:
        raise ValueError("gradcheck expects at least one input tensor to require gradient")
    for i in wrt:
        if inputs[i]._data.dtype != torch.float64:
            raise GradcheckError(f"gradcheck needs float64 inputs for precision; input {i} is {inputs[i]._data.dtype}")
    outputs = _outputs(fn, inputs)
    for k, out in enumerate(outputs):
        n_out = out._data.numel()
        analytical = {
            i: torch.zeros(n_out, inputs[i]._data.numel(), dtype=torch.float64, device=inputs[i]._data.device)
            for i in wrt
        }
        for row in range(n_out):
            outs = _outputs(fn, inputs)
            if not outs[k].requires_grad:  # an output that depends on no input: a zero Jacobian
                break
            seed = torch.zeros_like(outs[k]._data).reshape(-1)
            seed[row] = 1
            grads = engine_grad([outs[k]], [inputs[i] for i in wrt], [seed.view_as(outs[k]._data)], allow_unused=True)
            for i, g in zip(wrt, grads):
                if g is not None:
                    analytical[i][row] = g._data.reshape(-1)
        for i in wrt:
            numerical = _numerical_jacobian(fn, inputs, i, k, eps)
            close = (analytical[i] - numerical).abs() <= atol + rtol * numerical.abs()
            if not bool(close.all()):
                row, col = (~close).nonzero()[0].tolist()
                message = (
                    f"Jacobian mismatch for output {k} with respect to input {i} at [{row}, {col}]: "
                    f"numerical {numerical[row, col].item():.8g} vs analytical {analytical[i][row, col].item():.8g}\n"
                    f"numerical:\n{numerical}\nanalytical:\n{analytical[i]}"
                )
                if raise_exception:
                    raise GradcheckError(message)
                return False
    return True


def _numerical_jacobian(fn: Callable, inputs: tuple, i: int, k: int, eps: float) -> torch.Tensor:
    data = inputs[i]._data
    flat = data.view(-1) if data.is_contiguous() else None
    if flat is None:
        raise GradcheckError(f"gradcheck needs contiguous inputs; input {i} is not")
    columns = []
    with no_grad():
        for j in range(flat.numel()):
            original = flat[j].item()
            flat[j] = original + eps
            plus = _outputs(fn, inputs)[k]._data.reshape(-1).clone()
            flat[j] = original - eps
            minus = _outputs(fn, inputs)[k]._data.reshape(-1).clone()
            flat[j] = original
            columns.append((plus - minus) / (2 * eps))
    n_out = _outputs(fn, inputs)[k]._data.numel() if not columns else columns[0].numel()
    if not columns:
        return torch.zeros(n_out, 0, dtype=torch.float64, device=data.device)
    return torch.stack(columns, 1).to(torch.float64)


def gradgradcheck(
    fn: Callable,
    inputs: Tensor | Sequence,
    grad_outputs: Tensor | Sequence | None = None,
    eps: float = 1e-6,
    atol: float = 1e-5,
    rtol: float = 1e-3,
    raise_exception: bool = True,
) -> bool:
    """``gradcheck`` of the gradient: the vector-Jacobian product of ``fn`` (computed with
    ``create_graph=True``), as a function of the inputs and of the vector, against finite
    differences. ``grad_outputs`` default to random float64 tensors (a fixed seed).

    >>> import minitorch_rx as mt
    >>> x = mt.randn(3, dtype=mt.float64, requires_grad=True)
    >>> mt.autograd.gradgradcheck(lambda t: (t * t * t).sum(), x)
    True
    """
    from .engine import grad as engine_grad

    if not isinstance(inputs, (Tensor, list, tuple)):
        raise TypeError(f"gradgradcheck inputs must be an mt.Tensor or a sequence, not {type(inputs).__name__}")
    inputs = (inputs,) if isinstance(inputs, Tensor) else tuple(inputs)
    outputs = _outputs(fn, inputs)
    if grad_outputs is None:
        generator = torch.Generator().manual_seed(0)
        grad_outputs = [
            Tensor(
                torch.randn(o._data.shape, dtype=torch.float64, generator=generator).to(o._data.device),
                requires_grad=True,
            )
            for o in outputs
        ]
    else:
        grad_outputs = [grad_outputs] if isinstance(grad_outputs, Tensor) else list(grad_outputs)
    wrt = [i for i, t in enumerate(inputs) if isinstance(t, Tensor) and t.requires_grad]
    n = len(inputs)

    def vector_jacobian_product(*args):
        ins, vectors = args[:n], args[n:]
        with enable_grad():  # finite differences call this under no_grad
            outs = _outputs(fn, ins)
            grads = engine_grad(outs, [ins[i] for i in wrt], list(vectors), create_graph=True, allow_unused=True)
        return tuple(g for g in grads if g is not None)

    return gradcheck(vector_jacobian_product, inputs + tuple(grad_outputs), eps, atol, rtol, raise_exception)
