"""PyTorch's own bad inputs (issue 25.5): the ``error_inputs`` of every OpInfo in
``torch.testing._internal.common_methods_invocations.op_db`` for an op mt has (looked up by name,
as ``tests/opinfo_helpers.py`` does, so an op added to mt is walked from the commit that adds
it) must be refused by mt with an exception of the kind torch raises (the nearest built-in class:
``RuntimeError``, ``TypeError``, ``ValueError``, ``IndexError``, ...). An error input that
mt computes silently fails the test: that is the point.

Each input is first given to torch's own op: some that op_db lists, torch computes
(``clamp_max(int_tensor, 2)``, ``Tensor.__rsub__(2, 3)``; torch's own ``test_errors`` expects
those to fail), and mt is held to what torch does. Where a sample passes a keyword mt does not
take (``out=``, ``mean(dtype=)``), mt's ``TypeError`` naming it is a refusal too: mt has no
such keyword, rather than a different answer.
"""

from __future__ import annotations

import re

import pytest

pytest.importorskip("expecttest")  # torch.testing._internal needs it

import minitorch_rx as mt  # noqa: E402
from tests.opinfo_helpers import _to_mt, mt_callable, op_id, torch_op_db  # noqa: E402


def ops_with_error_inputs() -> list:
    return [op for op in torch_op_db() if op.error_inputs_func is not None]


def mt_function(op):
    """The mt callable of an OpInfo: for a reflected operator (``__radd__``), the unbound method of
    ``mt.Tensor``, as the OpInfo's is ``torch.Tensor``'s."""
    if op.name.startswith("__r"):
        return getattr(mt.Tensor, op.name, None)
    return mt_callable(op)


def kind(error: BaseException) -> type:
    """The nearest built-in exception class of ``error`` (``torch.linalg.LinAlgError``: RuntimeError)."""
    return next(cls for cls in type(error).__mro__ if cls.__module__ == "builtins")


def outcome(call):
    try:
        call()
    except Exception as error:
        return error
    return None


def unsupported_keyword(error: Exception, kwargs: dict) -> str | None:
    """The keyword of ``kwargs`` that mt's ``TypeError`` says its function does not take."""
    found = re.search(r"unexpected keyword argument '(\w+)'", str(error))
    return found.group(1) if isinstance(error, TypeError) and found and found.group(1) in kwargs else None


@pytest.mark.parametrize("op", ops_with_error_inputs(), ids=op_id)
def test_pytorchs_error_inputs_are_refused_as_torch_refuses_them(op, record_property):
    function = mt_function(op)
    if function is None:
        pytest.skip("missing in mt")
    computed, other_kind, refused, keywords = [], [], 0, set()
    for error_input in op.error_inputs(device="cpu"):
        sample = error_input.sample_input
        storages = {}  # before torch's call; tensors of one storage stay so
        args, kwargs = _to_mt((sample.input, *sample.args), storages), _to_mt(dict(sample.kwargs), storages)
        theirs = outcome(lambda: op.op(sample.input, *sample.args, **sample.kwargs))  # noqa: B023
        if theirs is None:
            continue  # torch computes it too
        ours = outcome(lambda: function(*args, **kwargs))  # noqa: B023
        case = f"{sample.summary()}: torch raises {type(theirs).__name__}: {str(theirs)[:120]}"
        if ours is None:
            computed.append(case)
        elif isinstance(ours, AttributeError) and "has no attribute" in str(ours) and "minitorch_rx" in str(ours):
            pytest.skip(f"missing in mt ({ours})")
        elif unsupported_keyword(ours, kwargs):
            keywords.add(unsupported_keyword(ours, kwargs))
        elif kind(ours) is not kind(theirs):
            other_kind.append(f"{case}; mt raises {type(ours).__name__}: {str(ours)[:120]}")
        else:
            refused += 1
    record_property("refused with torch's kind / keywords mt lacks", f"{refused} / {sorted(keywords)}")
    assert not computed, "mt computes what torch refuses:\n" + "\n".join(computed)
    assert not other_kind, "mt refuses with another kind of error:\n" + "\n".join(other_kind)
