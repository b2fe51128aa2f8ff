"""Anomaly mode (issue 6): under ``mt.autograd.detect_anomaly()`` a NaN or Inf produced in
backward raises an error naming the op's Function and the forward line (file and line of the
user's code) that created it."""

from __future__ import annotations

import inspect

import pytest

import minitorch_rx as mt
import minitorch_rx.nn as nn


def next_line() -> int:
    """The number of the caller's next line: where the op under test is written."""
    return inspect.currentframe().f_back.f_lineno + 1


def forward_line(line: int) -> str:
    """How the error's forward stack names ``line`` of this file."""
    return f'File "{__file__}", line {line}'


def test_anomaly_error_names_the_function_and_the_forward_line_of_a_nan():
    x = mt.tensor([-1.0, 4.0], requires_grad=True)
    with mt.autograd.detect_anomaly():
        line = next_line()
        y = x.sqrt()  # nan at -1, and a nan gradient in backward
        with pytest.raises(RuntimeError, match=r"Function 'SqrtBackward0' returned nan values in its 0th") as error:
            y.sum().backward()
    assert forward_line(line) in str(error.value)
    assert "y = x.sqrt()" in str(error.value)


def test_anomaly_error_names_the_function_and_the_forward_line_of_an_inf():
    x = mt.tensor([1.0, 2.0], requires_grad=True)
    with mt.autograd.detect_anomaly():
        line = next_line()
        y = x / 0.0  # a Python scalar: the one-input fast path records this op
        with pytest.raises(RuntimeError, match=r"Function 'DivBackward0' returned inf values in its 0th") as error:
            y.sum().backward()
    assert forward_line(line) in str(error.value)


class LogOfSquare(nn.Module):
    def forward(self, x: mt.Tensor) -> mt.Tensor:
        return (x * x).log()  # LOG LINE


def test_anomaly_error_names_the_line_inside_a_modules_forward_and_the_call():
    model = LogOfSquare()
    x = mt.tensor([0.0, 1.0], requires_grad=True)
    with mt.autograd.detect_anomaly():
        line = next_line()
        y = model(x)
        with pytest.raises(RuntimeError, match=r"Function 'LogBackward0' returned (nan|inf) values") as error:
            y.sum().backward()
    message = str(error.value)
    log_line = next(i for i, text in enumerate(inspect.getsourcelines(LogOfSquare)[0]) if "LOG LINE" in text)
    assert forward_line(inspect.getsourcelines(LogOfSquare)[1] + log_line) in message
    assert forward_line(line) in message


def test_anomaly_error_names_a_user_function_and_the_line_that_applied_it():
    class Explode(mt.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x.clone()

        @staticmethod
        def backward(ctx, grad):
            return grad * float("inf")

    x = mt.tensor([1.0], requires_grad=True)
    with mt.autograd.detect_anomaly():
        line = next_line()
        y = Explode.apply(x)
        with pytest.raises(RuntimeError, match=r"Function 'ExplodeBackward' returned inf values") as error:
            y.sum().backward()
    assert forward_line(line) in str(error.value)


def test_without_anomaly_mode_a_nan_gradient_passes_silently_as_in_pytorch():
    x = mt.tensor([-1.0], requires_grad=True)
    x.sqrt().sum().backward()
    assert bool(x.grad.torch().isnan().all())


def test_anomaly_mode_ends_with_its_block_even_after_an_error():
    with pytest.raises(ValueError), mt.autograd.detect_anomaly():
        assert mt.autograd.is_anomaly_enabled()
        raise ValueError("leaving the block")
    assert not mt.autograd.is_anomaly_enabled()
