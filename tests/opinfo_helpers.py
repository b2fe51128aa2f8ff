"""PyTorch's own op database (``op_db``) run against minitorch_rx, as a new user's test would.

Each OpInfo's sample inputs (float64, CPU, every sample) are converted to mt tensors; the mt
function of the same name runs on them and its outputs, gradients (``autograd.grad`` with a
random ``grad_outputs``) and, where torch has them (``supports_gradgrad``), second derivatives
(the gradient of ``<grads, v>`` with respect to the inputs and ``grad_outputs``) are compared
with ``torch.autograd``'s on the same values.

Counted: every OpInfo whose name does not start with ``_`` (private and reflected ``__r*__``
entries) and that supports float64 on the CPU (so integer-only and complex-only ops are out),
less the CUDA-only jiterator entries. Random ops (:data:`RANDOM`) are compared by output shape
and dtype, and by gradient shape.

``python -m tests.opinfo_helpers --report`` prints the table; ``--only NAME`` checks some ops
and ``--failures`` lists each failing op with its first failing sample.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
import time
from collections.abc import Callable

import torch

import minitorch_rx as mt

RTOL = ATOL = 1e-6

#: Ops whose values are draws from a random generator (or uninitialised memory): only the
#: shapes and dtypes of their outputs and gradients are compared.
RANDOM = frozenset(
    """bernoulli cauchy exponential geometric log_normal multinomial normal normal.in_place
    normal.number_mean uniform rand_like randn randn_like randint randint_like empty empty_like
    empty_strided empty_permuted new_empty new_empty_strided nn.functional.dropout
    nn.functional.dropout2d nn.functional.dropout3d nn.functional.alpha_dropout
    nn.functional.feature_alpha_dropout.with_train nn.functional.rrelu
    nn.functional.fractional_max_pool2d nn.functional.fractional_max_pool3d svd_lowrank pca_lowrank
    torch.empty_permuted""".split()
)


def _method(name: str) -> Callable:
    def call(mt_, x, *args, **kwargs):
        return getattr(x, name)(*args, **kwargs)

    return call


#: OpInfos whose ``op`` is a lambda that is not ``torch.<name>(*sample)``: how the same call reads in mt.
ADAPTERS: dict[str, Callable] = {
    "where": lambda mt_, x, condition, other, **kw: mt_.where(condition, x, other, **kw),
    "einsum": lambda mt_, tensors, equation: mt_.einsum(equation, tensors),
    "nn.functional.embedding": lambda mt_, weight, idx, **kw: mt_.nn.functional.embedding(idx, weight, **kw),
    "nn.functional.embedding_bag": lambda mt_, weight, idx, **kw: mt_.nn.functional.embedding_bag(idx, weight, **kw),
    "T": lambda mt_, x: x.T,
    "H": lambda mt_, x: x.H,
    "mT": lambda mt_, x: x.mT,
    "mH": lambda mt_, x: x.mH,
    "resize_": lambda mt_, x, shape: x.clone().resize_(shape),
    "resize_as_": lambda mt_, x, other: x.clone().resize_as_(other),
    "zero_": lambda mt_, x: x.clone().zero_(),
    "linalg.lstsq.grad_oriented": lambda mt_, a, b, driver: mt_.linalg.lstsq(a, b, driver=driver)[:2],
    "linalg.pinv.singular": lambda mt_, a, b: mt_.linalg.pinv(a @ b.mT),
    "svd_lowrank": lambda mt_, a, b, **kw: mt_.svd_lowrank(a @ b.mT, **kw),
    "pca_lowrank": lambda mt_, a, b, **kw: mt_.pca_lowrank(a @ b.mT, **kw),
    "normal.number_mean": lambda mt_, std, mean, *a, **kw: mt_.normal(mean, std, *a, **kw),
    "normal.in_place": _method("normal_"),
}
for _n in range(5):
    ADAPTERS[f"polygamma.polygamma_n_{_n}"] = lambda mt_, x, n, **kw: mt_.polygamma(n, x, **kw)
ADAPTERS["special.polygamma.special_polygamma_n_0"] = lambda mt_, x, n, **kw: mt_.special.polygamma(n, x, **kw)
#: OpInfos whose ``op`` is ``lambda x, *args: x.<method>(*args)``: Tensor methods without a function.
for _name in """contiguous sum_to_size expand expand_as to reshape_as view view_as bfloat16 bool byte char
    double float half int long short chalf cdouble cfloat new_zeros new_ones new_empty new_empty_strided new_full unfold
    repeat to_sparse item""".split():
    ADAPTERS[_name] = _method(_name)
for _name in "cauchy exponential geometric log_normal uniform".split():
    ADAPTERS[_name] = _method(_name + "_")

STATUSES = ("pass", "missing", "error", "wrong")


@dataclasses.dataclass
class Result:
    """One OpInfo's outcome: ``status`` of forward + backward over all samples, and of the second
    derivatives (``None`` where torch has none or first order failed); ``detail`` names the
    first failing sample."""

    id: str
    status: str
    detail: str = ""
    gradgrad: str | None = None
    gradgrad_detail: str = ""
    samples: int = 0
    seconds: float = 0.0


def op_id(op) -> str:
    return op.name + (f".{op.variant_test_name}" if op.variant_test_name else "")


def torch_op_db() -> list:
    """``torch.testing._internal``'s ``op_db``."""
    from torch.testing._internal.common_methods_invocations import op_db

    # Importing torch's test utilities freezes torch.backends' flags for torch's own runner (which
    # would break later tests that set them); unfreeze them.
    torch.backends.flags_frozen.__globals__["__allow_nonbracketed_mutation_flag"] = True
    return op_db


def counted_ops() -> list:
    """The OpInfos the table counts (see the module docstring)."""
    return [
        op
        for op in torch_op_db()
        if not op.name.startswith(("_", "jiterator_")) and torch.float64 in op.supported_dtypes("cpu")
    ]


def mt_callable(op) -> Callable | None:
    """The mt function an OpInfo's samples are called with, or ``None`` where mt has none."""
    adapter = ADAPTERS.get(op_id(op)) or ADAPTERS.get(op.name)
    if adapter is not None:
        return lambda *args, **kwargs: adapter(mt, *args, **kwargs)
    target = mt
    for part in op.name.split("."):
        target = getattr(target, part, None)
        if target is None:
            return None
    return target


def method_names(ops) -> list[str]:
    """The Tensor methods torch has for the counted OpInfos: method and in-place variants."""
    names = set()
    for op in ops:
        last = op.name.split(".")[-1]
        for variant, suffix in ((op.method_variant, ""), (op.inplace_variant, "_")):
            if variant is None:
                continue
            name = getattr(variant, "__name__", "<lambda>")
            if name == "<lambda>" or not hasattr(torch.Tensor, name):
                name = last + suffix
            if hasattr(torch.Tensor, name):
                names.add(name)
    return sorted(names)


# ------------------------------------------------------------------ conversion
def _copy(t: torch.Tensor, storages: dict | None = None) -> torch.Tensor:
    """A copy of ``t`` with its own storage of the same geometry (size, strides, offset), so that
    ops that read the storage (``as_strided``) see what torch's see. Tensors whose memory overlaps
    get one copy of it when they share ``storages`` (a sample's ``out=`` that overlaps its input
    stays so)."""
    data = t.detach()
    source = data.untyped_storage()
    start, size, offset = source.data_ptr(), source.nbytes(), data.storage_offset()
    storages = {} if storages is None else storages
    held = [k for k in storages if type(k) is tuple and size and k[2] == data.device and k[0] <= start < k[1]]
    if held and start + size <= held[0][1]:
        copy = storages[held[0]]
        offset += (start - held[0][0]) // data.element_size()
    else:
        copy = storages[(start, start + size, data.device)] = source.clone()
    return torch.empty(0, dtype=data.dtype, device=data.device).set_(copy, offset, data.shape, data.stride())


def _to_mt(value, storages: dict | None = None):
    storages = {} if storages is None else storages
    if isinstance(value, torch.Tensor):  # one tensor given twice (an input as ``out=``) stays one
        if id(value) not in storages:
            storages[id(value)] = mt.from_torch(_copy(value, storages), requires_grad=value.requires_grad)
        return storages[id(value)]
    if type(value) in (list, tuple):
        return type(value)(_to_mt(v, storages) for v in value)
    if type(value) is dict:
        return {k: _to_mt(v, storages) for k, v in value.items()}
    return value


def _leaves(value) -> list:
    """The tensors in ``value`` (a sample's input, args or kwargs) that require grad, in order."""
    if isinstance(value, (torch.Tensor, mt.Tensor)):
        return [value] if value.requires_grad else []
    if isinstance(value, (list, tuple)):
        return [leaf for v in value for leaf in _leaves(v)]
    if isinstance(value, dict):
        return [leaf for v in value.values() for leaf in _leaves(v)]
    return []


def _flat(out) -> list:
    if isinstance(out, (list, tuple)):
        return [o for v in out for o in _flat(v)]
    return [out]


def _fresh(value):
    """Torch sample values as new leaves (a wrapper's transformed inputs are not leaves)."""
    if isinstance(value, torch.Tensor):
        return value.detach().clone().requires_grad_(value.requires_grad)
    if type(value) in (list, tuple):
        return type(value)(_fresh(v) for v in value)
    if type(value) is dict:
        return {k: _fresh(v) for k, v in value.items()}
    return value


def _wrapped_sample(op, sample) -> tuple:
    """The sample's ``(input, args, kwargs)``; for an op with a gradcheck wrapper (symmetrising,
    triangularising), the values the wrapper passes to the op, as new leaves."""
    args, kwargs = (sample.input, *sample.args), dict(sample.kwargs)
    wrapper = op.gradcheck_wrapper
    if getattr(wrapper, "__name__", "<lambda>") == "<lambda>":
        return args, kwargs
    captured = []

    def capture(*a, **k):
        captured.append((a, k))
        return a[0]

    try:
        wrapper(capture, *args, **kwargs)
    except Exception:  # a wrapper that post-processes the output (masked ops): call the op as is
        return args, kwargs
    a, k = captured[0]
    return _fresh(a), _fresh(k)


# ------------------------------------------------------------------ comparison
class Mismatch(Exception):
    """mt computed a different value than torch (as opposed to raising)."""


def _compare(ours, theirs, what: str, values: bool = True) -> None:
    if isinstance(theirs, torch.Tensor):
        if isinstance(ours, mt.Tensor):
            ours = ours.torch()
        if not isinstance(ours, torch.Tensor):
            raise Mismatch(f"{what}: a {type(ours).__name__}, torch gives a Tensor")
        if ours.shape != theirs.shape or ours.dtype != theirs.dtype:
            raise Mismatch(f"{what}: {ours.dtype}{list(ours.shape)}, torch {theirs.dtype}{list(theirs.shape)}")
        if values:
            try:
                torch.testing.assert_close(ours.detach(), theirs.detach(), rtol=RTOL, atol=ATOL, equal_nan=True)
            except AssertionError as e:
                raise Mismatch(f"{what}: {str(e).splitlines()[-3:]}") from None
    elif values and ours != theirs and not (ours != ours and theirs != theirs):
        raise Mismatch(f"{what}: {ours!r}, torch {theirs!r}")


def _compare_grads(ours, theirs, what: str, values: bool) -> None:
    """Gradients compared as values: a missing one (``None``, unused) counts as zeros."""
    for i, (g, t) in enumerate(zip(ours, theirs)):
        if g is None and t is None:
            continue
        if t is None:
            t = torch.zeros_like(g.torch())
        if g is None:
            g = torch.zeros_like(t)
        _compare(g, t, f"{what} {i}", values)


def _differentiable(outs: list) -> list[int]:
    return [i for i, o in enumerate(outs) if isinstance(o, torch.Tensor) and o.requires_grad]


def _check_sample(op, fn: Callable, sample, generator, random_op: bool, gradgrad: bool) -> str | None:
    """Compare one sample, raising ``Mismatch`` (wrong values) or mt's exception (an error).
    Returns the second derivatives' failure (or ``None``), which does not stop the op."""
    args, kwargs = _wrapped_sample(op, sample)
    # attention with dropout draws a mask (multi_head_attention_forward: dropout_p is its 11th argument)
    mha = op.name == "nn.functional.multi_head_attention_forward"
    dropout_p = kwargs.get("dropout_p", args[10] if mha else 0.0)
    random_op = random_op or (dropout_p > 0 and kwargs.get("training", True))
    storages = {}
    mt_args, mt_kwargs = _to_mt(args, storages), _to_mt(kwargs, storages)
    try:
        expected = op.op(*args, **kwargs)
    except Exception:  # torch itself refuses this sample: nothing to compare
        return None
    actual = fn(*mt_args, **mt_kwargs)
    _compare_structure(actual, expected)
    for i, (ours, theirs) in enumerate(zip(_flat(actual), _flat(expected))):
        _compare(ours, theirs, f"output {i}", values=not random_op)
    if not op.supports_autograd:
        return None
    expected = _flat(sample.output_process_fn_grad(expected))
    actual = _flat(sample.output_process_fn_grad(actual))
    wanted = _differentiable(expected)
    inputs, mt_inputs = _leaves((args, kwargs)), _leaves((mt_args, mt_kwargs))
    if not wanted or not inputs:
        return None
    for i in wanted:
        if not isinstance(actual[i], mt.Tensor):
            raise Mismatch(f"output {i} is a {type(actual[i]).__name__}, not an mt.Tensor")
    grad_outputs = [torch.randn(expected[i].shape, dtype=expected[i].dtype, generator=generator) for i in wanted]
    keep = gradgrad and not random_op  # the graphs are differentiated again below
    try:
        grads = torch.autograd.grad(
            [expected[i] for i in wanted], inputs, grad_outputs, retain_graph=keep, allow_unused=True
        )
    except RuntimeError:  # torch has no derivative for this op or sample: nothing to compare
        return None
    # An mt output without a graph is a constant to mt: the gradients then show whether it should have had one.
    live = [(actual[i], g) for i, g in zip(wanted, grad_outputs) if actual[i].requires_grad]
    mt_grads = [None] * len(mt_inputs)
    if live:
        mt_grads = mt.autograd.grad(
            [o for o, _ in live], mt_inputs, [g for _, g in live], retain_graph=keep, allow_unused=True
        )
    _compare_grads(mt_grads, grads, "gradient of input", values=not random_op)
    if not keep:
        return None
    try:
        _check_gradgrad(expected, actual, wanted, inputs, mt_inputs, grad_outputs, generator)
    except Mismatch as e:
        return f"wrong: {e}"
    except Exception as e:  # noqa: BLE001  (any exception of mt's is the finding)
        return f"error: {type(e).__name__}: {str(e)[:300]}"
    return None


def _check_gradgrad(expected, actual, wanted, inputs, mt_inputs, grad_outputs, generator) -> None:
    torch_go = [g.clone().requires_grad_() for g in grad_outputs]
    mt_go = [mt.from_torch(g.clone(), requires_grad=True) for g in grad_outputs]
    try:
        first = torch.autograd.grad(
            [expected[i] for i in wanted], inputs, torch_go, create_graph=True, allow_unused=True
        )
    except RuntimeError:  # no double backward in torch for this sample
        return
    live = [(actual[i], g) for i, g in zip(wanted, mt_go) if actual[i].requires_grad]
    mt_first = [None] * len(mt_inputs)
    if live:
        mt_first = mt.autograd.grad(
            [o for o, _ in live], mt_inputs, [g for _, g in live], create_graph=True, allow_unused=True
        )
    keep = [i for i, g in enumerate(first) if g is not None and g.requires_grad]
    if not keep:
        return
    vs = [torch.randn(first[i].shape, dtype=first[i].dtype, generator=generator) for i in keep]
    try:
        second = torch.autograd.grad([first[i] for i in keep], inputs + torch_go, vs, allow_unused=True)
    except RuntimeError:
        return
    pairs = [(mt_first[i], v) for i, v in zip(keep, vs) if mt_first[i] is not None and mt_first[i].requires_grad]
    if not pairs:
        mt_second = [None] * len(second)
    else:
        mt_second = mt.autograd.grad([g for g, _ in pairs], mt_inputs + mt_go, [v for _, v in pairs], allow_unused=True)
    _compare_grads(mt_second, second, "second derivative wrt input", values=True)


def _compare_structure(actual, expected) -> None:
    if isinstance(expected, (list, tuple)):
        if not isinstance(actual, (list, tuple)) or len(actual) != len(expected):
            raise Mismatch(f"a {type(actual).__name__}, torch gives a {type(expected).__name__} of {len(expected)}")


def check_op(op, gradgrad: bool = True, every: int = 1) -> Result:
    """Run every float64 CPU sample of ``op`` (every ``every``-th) through mt and torch; see :class:`Result`."""
    start = time.perf_counter()
    ident = op_id(op)
    fn = mt_callable(op)
    if fn is None:
        return Result(ident, "missing", f"mt has no {op.name}")
    random_op = ident in RANDOM or op.name in RANDOM
    want_gradgrad = gradgrad and op.supports_autograd and op.supports_gradgrad
    generator = torch.Generator().manual_seed(0)
    result = Result(ident, "pass", gradgrad="pass" if want_gradgrad and not random_op else None)
    samples = op.sample_inputs("cpu", torch.float64, requires_grad=op.supports_autograd)
    for n, sample in enumerate(samples):
        if n % every:
            continue
        result.samples += 1
        try:
            failure = _check_sample(op, fn, sample, generator, random_op, want_gradgrad)
        except Mismatch as e:
            result.status, result.detail = "wrong", f"sample {n} ({_describe(sample)}): {e}"
            break
        except Exception as e:  # noqa: BLE001  (any exception of mt's is the finding)
            if isinstance(e, AttributeError) and _names_mt(str(e)):
                result.status, result.detail = "missing", f"mt has no {str(e).split()[-1]}"
                break
            if isinstance(e, RuntimeError) and " is not differentiable by minitorch_rx yet" in str(e):
                # torch's own method, which an mt tensor inherits, refused where it would record nothing
                result.status, result.detail = "missing", f"mt has no differentiable {str(e).split()[0]}"
                break
            result.status = "error"
            result.detail = f"sample {n} ({_describe(sample)}): {type(e).__name__}: {str(e)[:300]}"
            break
        if failure and result.gradgrad == "pass":
            result.gradgrad, result.gradgrad_detail = failure.split(":")[0], f"sample {n}: {failure}"
    if result.status != "pass":
        result.gradgrad = None
    result.seconds = time.perf_counter() - start
    return result


def _names_mt(message: str) -> bool:
    """Whether an AttributeError says that mt lacks a name (an adapter's call of a missing op)."""
    return message.startswith(("module 'minitorch_rx", "'Tensor' object has no attribute"))


def _describe(sample) -> str:
    def short(v):
        if isinstance(v, torch.Tensor):
            return f"{v.dtype}{list(v.shape)}".replace("torch.", "")
        if isinstance(v, (list, tuple)):
            return "[" + ", ".join(short(x) for x in v) + "]"
        return repr(v)

    parts = [short(sample.input)] + [short(a) for a in sample.args]
    parts += [f"{k}={short(v)}" for k, v in sample.kwargs.items()]
    return ", ".join(parts)[:200]


# ------------------------------------------------------------------ the table
def report(results: list[Result], methods: list[str]) -> str:
    counts = {s: sum(r.status == s for r in results) for s in STATUSES}
    with_gg = [r for r in results if r.gradgrad is not None]
    gg_pass = sum(r.gradgrad == "pass" for r in with_gg)
    have = [m for m in methods if hasattr(mt.Tensor, m)]
    total = len(results)
    passing = f"{counts['pass']} ({100 * counts['pass'] / total:.0f}%)"
    lines = [
        "| measure | minitorch_rx |",
        "|---|---|",
        f"| op_db entries passing forward + backward (of {total}) | {passing} |",
        f"| missing / error / wrong | {counts['missing']} / {counts['error']} / {counts['wrong']} |",
        f"| second derivatives equal torch's (of passing entries torch has them for) | {gg_pass} / {len(with_gg)}"
        f" ({100 * gg_pass / max(len(with_gg), 1):.0f}%) |",
        f"| Tensor methods torch has (method and in-place variants of the counted entries) | {len(have)} / "
        f"{len(methods)} ({100 * len(have) / max(len(methods), 1):.0f}%) |",
    ]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--report", action="store_true", help="print the table (the default)")
    parser.add_argument("--only", nargs="*", help="op ids (name or name.variant) to check")
    parser.add_argument("--failures", action="store_true", help="list every failing entry and why")
    parser.add_argument("--missing", action="store_true", help="list the missing entries")
    parser.add_argument("--methods", action="store_true", help="list the Tensor methods mt lacks")
    parser.add_argument("--no-gradgrad", action="store_true", help="skip second derivatives")
    options = parser.parse_args(argv)
    torch.set_num_threads(1)
    ops = counted_ops()
    if options.only:
        ops = [op for op in ops if op_id(op) in options.only or op.name in options.only]
    start = time.perf_counter()
    results = [check_op(op, gradgrad=not options.no_gradgrad) for op in ops]
    for r in results:
        if options.failures and r.status in ("error", "wrong"):
            print(f"{r.status:7s} {r.id}: {r.detail}")
        if options.failures and r.gradgrad not in (None, "pass"):
            print(f"gradgrad {r.gradgrad:5s} {r.id}: {r.gradgrad_detail}")
        if options.missing and r.status == "missing":
            print(f"missing {r.id}")
    if options.methods:
        print("methods mt lacks:", " ".join(m for m in method_names(counted_ops()) if not hasattr(mt.Tensor, m)))
    print(report(results, method_names(counted_ops())))
    slowest = sorted(results, key=lambda r: -r.seconds)[:5]
    print(f"{time.perf_counter() - start:.1f} s; slowest: " + ", ".join(f"{r.id} {r.seconds:.1f} s" for r in slowest))
    return 0


if __name__ == "__main__":
    sys.exit(main())
