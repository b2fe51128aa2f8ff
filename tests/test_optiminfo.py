"""PyTorch's own optimizer database (``common_optimizers.optim_db``) run against minitorch_rx.

For every OptimizerInfo and each of its option sets (float64, CPU), torch's optimizer and mt's
of the same name and options run the same steps on the same starting parameters, each step's
gradients coming from the same loss through a closure (computed by each framework's own
autograd); the parameters must agree after every step. SparseAdam, which takes sparse gradients
only, gets the loss's gradient as a sparse tensor instead.
"""

from __future__ import annotations

import pytest
import torch

import minitorch_rx as mt

common_optimizers = pytest.importorskip("torch.testing._internal.common_optimizers")  # needs expecttest

STEPS = 4


def _starting_params(name: str) -> list[torch.Tensor]:
    generator = torch.Generator().manual_seed(0)
    weight = torch.randn(4, 3, dtype=torch.float64, generator=generator)
    bias = torch.randn(3, dtype=torch.float64, generator=generator)
    return [weight] if name == "Muon" else [weight, bias]  # Muon takes 2-D parameters only


def _loss(params, x, target):
    """Bounded above and below (a sine inside), so that ``maximize`` stays finite too."""
    out = x @ params[0]
    if len(params) > 1:
        out = out + params[1]
    return ((out.sin() - target) ** 2).sum()


def _data():
    generator = torch.Generator().manual_seed(1)
    x = torch.randn(5, 4, dtype=torch.float64, generator=generator)
    return x, torch.randn(5, 3, dtype=torch.float64, generator=generator)


def _kwargs(kwargs: dict, convert) -> dict:
    return {k: convert(v) if isinstance(v, torch.Tensor) else v for k, v in kwargs.items()}


@pytest.mark.parametrize("info", common_optimizers.optim_db, ids=lambda info: info.optim_cls.__name__)
def test_optimizer_matches_torch(info) -> None:
    name = info.optim_cls.__name__
    for optim_input in info.optim_inputs_func(device="cpu", dtype=torch.float64):
        try:
            _check(info, name, optim_input.kwargs)
        except Exception as error:
            raise AssertionError(f"{name} with {optim_input.kwargs} ({optim_input.desc})") from error


def _check(info, name: str, kwargs: dict) -> None:
    start = _starting_params(name)
    theirs = [p.clone().requires_grad_() for p in start]
    ours = [mt.tensor(p.clone(), requires_grad=True) for p in start]
    torch_opt = info.optim_cls(theirs, **_kwargs(kwargs, lambda v: v.clone()))
    mt_opt = getattr(mt.optim, name)(ours, **_kwargs(kwargs, lambda v: v.clone()))
    x, target = _data()
    mt_x, mt_target = mt.tensor(x), mt.tensor(target)
    sparse = info.only_supports_sparse_grads

    def torch_closure():
        torch_opt.zero_grad()
        loss = _loss(theirs, x, target)
        loss.backward()
        if sparse:
            for p in theirs:
                p.grad = p.grad.to_sparse()
        return loss

    def mt_closure():
        mt_opt.zero_grad()
        loss = _loss(ours, mt_x, mt_target)
        loss.backward()
        if sparse:
            for p in ours:
                p.grad = mt.tensor(p.grad.torch().to_sparse())
        return loss

    for step in range(STEPS):
        if info.step_requires_closure:
            torch_opt.step(torch_closure)
            mt_opt.step(mt_closure)
        else:
            torch_closure()
            torch_opt.step()
            mt_closure()
            mt_opt.step()
        for i, (a, e) in enumerate(zip(ours, theirs)):
            torch.testing.assert_close(a.torch(), e.detach(), atol=1e-10, rtol=1e-8, msg=f"step {step}, param {i}")
