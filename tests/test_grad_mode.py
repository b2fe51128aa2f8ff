"""Grad-mode switches as contexts and decorators, against PyTorch's (issue 13.12).

Each scenario runs once with ``lib = torch`` and once with ``lib = minitorch_rx`` and records
``lib.is_grad_enabled()`` at every point that matters; the two traces must be equal. The
switches decorate functions, methods and generator functions (each step of a generator runs in
the mode, the caller's code between steps in the caller's), with or without parentheses.
"""

from __future__ import annotations

import re

import pytest
import torch

import minitorch_rx as mt


def generator_steps(lib, switch):
    trace = []

    @switch
    def numbers():
        trace.append(("start", lib.is_grad_enabled()))
        received = yield 1
        trace.append(("sent", received, lib.is_grad_enabled()))
        try:
            yield 2
        except ValueError:
            trace.append(("thrown", lib.is_grad_enabled()))
            yield 3
        finally:
            trace.append(("finally", lib.is_grad_enabled()))

    steps = numbers()
    trace.append(("caller before", lib.is_grad_enabled()))
    trace.append(next(steps))
    trace.append(("caller between", lib.is_grad_enabled()))
    trace.append(steps.send("hello"))
    trace.append(steps.throw(ValueError("x")))
    steps.close()
    trace.append(("caller after", lib.is_grad_enabled()))
    return trace


def generator_return_value(lib, switch):
    @switch
    def inner():
        yield lib.is_grad_enabled()
        return "done"

    def outer():
        result = yield from inner()
        yield result

    return list(outer()) + [lib.is_grad_enabled()]


def function_call(lib, switch):
    @switch
    def f(a, *, b):
        """docstring kept"""
        return a + b, lib.is_grad_enabled()

    return [lib.is_grad_enabled(), f(1, b=2), lib.is_grad_enabled(), f.__name__, f.__doc__]


def method_call(lib, switch):
    class Model:
        scale = 3

        @switch
        def forward(self, value):
            return value * self.scale, lib.is_grad_enabled()

        @staticmethod
        @switch
        def helper():
            return lib.is_grad_enabled()

    return [Model().forward(2), Model.helper(), lib.is_grad_enabled()]


def exception_restores(lib, switch):
    @switch
    def fails():
        raise KeyError("boom")

    with pytest.raises(KeyError):
        fails()
    return [lib.is_grad_enabled()]


def recursion(lib, switch):
    trace = []

    @switch
    def countdown(n):
        trace.append(lib.is_grad_enabled())
        if n:
            countdown(n - 1)

    countdown(2)
    return trace + [lib.is_grad_enabled()]


SCENARIOS = [generator_steps, generator_return_value, function_call, method_call, exception_restores, recursion]
SWITCHES = {
    "no_grad()": lambda lib: lib.no_grad(),
    "no_grad bare": lambda lib: lib.no_grad,
    "enable_grad()": lambda lib: lib.enable_grad(),
    "enable_grad bare": lambda lib: lib.enable_grad,
    "set_grad_enabled(False)": lambda lib: lib.set_grad_enabled(False),
    "set_grad_enabled(True)": lambda lib: lib.set_grad_enabled(True),
    "inference_mode()": lambda lib: lib.inference_mode(),
    "inference_mode bare": lambda lib: lib.inference_mode,
    "inference_mode(False)": lambda lib: lib.inference_mode(False),
}


@pytest.mark.parametrize("outer_mode", [True, False], ids=["grad on", "grad off"])
@pytest.mark.parametrize("switch", list(SWITCHES))
@pytest.mark.parametrize("scenario", SCENARIOS, ids=lambda s: s.__name__)
def test_decorators_match_pytorchs(scenario, switch, outer_mode):
    traces = []
    for lib in (torch, mt):
        previous = lib.is_grad_enabled()
        lib.set_grad_enabled(outer_mode)
        try:
            traces.append(scenario(lib, SWITCHES[switch](lib)))
        finally:
            lib.set_grad_enabled(previous)
    assert traces[1] == traces[0]


def test_a_no_grad_generator_records_no_graph():
    """Issue 13.12: ``@mt.no_grad()`` on a generator function recorded graphs."""
    weight = mt.ones(2, requires_grad=True)

    @mt.no_grad()
    def outputs():
        for _ in range(2):
            yield weight * 2

    assert not any(out.requires_grad for out in outputs())
    assert (weight * 2).requires_grad


def test_set_grad_enabled_as_a_decorator_leaves_grad_mode_on():
    """Issue 13.12: ``@mt.set_grad_enabled(False)`` left grad mode off for the rest of the thread."""

    @mt.set_grad_enabled(False)
    def evaluate(x):
        return x * 2

    assert mt.is_grad_enabled()
    x = mt.ones(1, requires_grad=True)
    assert not evaluate(x).requires_grad
    assert mt.is_grad_enabled() and (x * 2).requires_grad


@pytest.mark.parametrize("lib", [torch, mt], ids=["torch", "mt"])
def test_contexts_nest_as_pytorchs(lib):
    trace = []
    with lib.no_grad():
        trace.append(lib.is_grad_enabled())
        with lib.inference_mode(False):
            trace.append(lib.is_grad_enabled())
        with lib.enable_grad():
            trace.append(lib.is_grad_enabled())
            with lib.inference_mode():
                trace.append(lib.is_grad_enabled())
        lib.set_grad_enabled(True)
        trace.append(lib.is_grad_enabled())
    trace.append(lib.is_grad_enabled())
    with lib.set_grad_enabled(False):
        trace.append(lib.is_grad_enabled())
    trace.append(lib.is_grad_enabled())
    assert trace == [False, True, True, False, True, True, False, True]


def test_inference_mode_records_nothing():
    x = mt.ones(2, requires_grad=True)
    with mt.inference_mode():
        assert not (x * 2).requires_grad
    assert mt.inference_mode is mt.autograd.inference_mode


def test_decorating_a_class_warns_as_pytorch_does():
    with pytest.warns(FutureWarning, match="Decorating classes is deprecated"):

        @mt.no_grad()
        class Maker:
            def __init__(self):
                self.mode = mt.is_grad_enabled()

    assert Maker().mode is False


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: mt.set_grad_enabled(1), "set_grad_enabled(): argument 'enabled' (position 1) must be bool, not int"),
        (lambda: mt.set_grad_enabled("no"), "must be bool, not str"),
        (lambda: mt.inference_mode("yes"), "inference_mode() takes a bool mode or a function to decorate, got str"),
        (lambda: mt.no_grad()(3), "no_grad() decorates a function, got int"),
    ],
)
def test_bad_modes_raise_type_errors_and_change_nothing(call, message):
    with pytest.raises(TypeError, match=re.escape(message)):
        call()
    assert mt.is_grad_enabled()


def test_torchs_grad_mode_turns_our_recording_off_as_the_one_mode_of_pytorch():
    p, w = mt.nn.Parameter(mt.ones(3)), mt.randn(3, 3, requires_grad=True)
    for context in (torch.no_grad, lambda: torch.set_grad_enabled(False), torch.inference_mode):
        with context():
            assert not mt.is_grad_enabled()
            outs = [p * 2, 2 * p, p + p, p.sin(), p @ w, mt.nn.functional.linear(p, w), p.exp().sum(), p[1:]]
            assert not any(t.requires_grad or t.grad_fn is not None for t in outs)
            with torch.enable_grad():
                assert (p * 2).grad_fn is not None
    y = p * 2
    assert mt.is_grad_enabled() and y.grad_fn is not None
    with torch.no_grad():
        z = y * 3  # a recorded input: still nothing recorded
    assert z.grad_fn is None and not z.requires_grad
