"""PyTorch's op database against minitorch_rx: every counted OpInfo of
``torch.testing._internal.common_methods_invocations.op_db``, every float64 CPU sample,
forward, gradients and (where torch has them) second derivatives compared with torch.autograd
(``tests/opinfo_helpers.py`` does the comparing; ``python -m tests.opinfo_helpers --report``
prints the table).

An op mt does not have is skipped ("missing in mt"), so that each op is tested from the
commit that adds it. The entries below fail today, each for the reason given; an entry that
starts passing is reported by ``--report`` and should leave the list.
"""

from __future__ import annotations

import pytest
import torch

pytest.importorskip("expecttest")  # torch.testing._internal needs it

from tests.opinfo_helpers import check_op, counted_ops, op_id  # noqa: E402

#: op id -> why forward or first-order backward fails today.
KNOWN_FAILURES = {
    "cfloat": "complex autograd is out of scope (docs): a complex result that requires grad is refused",
    "cdouble": "complex autograd is out of scope (docs): a complex result that requires grad is refused",
    "chalf": "complex autograd is out of scope (docs): a complex result that requires grad is refused",
    "as_strided_scatter": "torch's gradient for a 0-dim view (size []) is 1 at the element src overwrote; ours is 0, "
    "as finite differences give (tests/test_torch_exceptions.py)",
    "fft.fft": "a complex output: mt has no complex autograd (forward only)",
    "fft.ifft": "a complex output: mt has no complex autograd (forward only)",
    "fft.rfft": "a complex output: mt has no complex autograd (forward only)",
    "fft.ihfft": "a complex output: mt has no complex autograd (forward only)",
    "fft.fft2": "a complex output: mt has no complex autograd (forward only)",
    "fft.ifft2": "a complex output: mt has no complex autograd (forward only)",
    "fft.rfft2": "a complex output: mt has no complex autograd (forward only)",
    "fft.ihfft2": "a complex output: mt has no complex autograd (forward only)",
    "fft.fftn": "a complex output: mt has no complex autograd (forward only)",
    "fft.ifftn": "a complex output: mt has no complex autograd (forward only)",
    "fft.rfftn": "a complex output: mt has no complex autograd (forward only)",
    "fft.ihfftn": "a complex output: mt has no complex autograd (forward only)",
}

#: op id -> why its second derivative differs from torch's today.
KNOWN_GRADGRAD_FAILURES = {
    "nn.functional.ctc_loss": "ctc_loss has no double backward",
    "nn.functional.linear_cross_entropy.chunked": "torch's chunked path has no second derivative; ours is torch's "
    "unchunked one (tests/test_torch_exceptions.py)",
    "masked.logaddexp": "torch's second derivative is NaN at a masked-out (-inf) operand, ours 0, as finite "
    "differences give: the output does not depend on it (tests/test_torch_exceptions.py)",
    "linalg.norm": "an empty vector, ord=3.5: torch's second derivative in grad_output is NaN, mt's 0",
    "linalg.norm.subgradients_at_zero": "an empty vector: torch's second derivative in grad_output is NaN, mt's 0",
}

#: The slowest entries (the max pools' thousand-odd samples each, grid_sampler_3d's 3-D second
#: derivatives: 70 s of the sweep's 150): every 8th sample unless ``--runslow``.
SLOW = {"nn.functional.max_pool1d", "nn.functional.max_pool2d", "nn.functional.max_pool3d", "grid_sampler_3d"}

OPS = counted_ops()
pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")  # torch's own deprecation notes


@pytest.fixture(scope="module", autouse=True)
def one_thread():
    """Thousands of tiny ops: torch's thread pool only adds waiting (10x on a loaded 2-core machine)."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


@pytest.mark.parametrize("op", OPS, ids=[op_id(op) for op in OPS])
def test_op_matches_torch(op, full_size):
    ident = op_id(op)
    result = check_op(op, every=1 if full_size or ident not in SLOW else 8)
    if result.status == "missing":
        pytest.skip(f"missing in mt: {result.detail}")
    if result.status != "pass" and ident in KNOWN_FAILURES:
        pytest.xfail(KNOWN_FAILURES[ident])
    assert result.status == "pass", result.detail
    if result.gradgrad not in (None, "pass") and ident in KNOWN_GRADGRAD_FAILURES:
        pytest.xfail(KNOWN_GRADGRAD_FAILURES[ident])
    assert result.gradgrad in (None, "pass"), result.gradgrad_detail
