"""The ``out=`` argument of every function that takes one, against PyTorch: the result written
into ``out`` and ``out`` returned, a wrong-shape ``out`` resized (with torch's warning), a
wrong-dtype ``out`` refused with torch's error, ``out=`` refused while an argument requires
grad, and the write seen by the version counter."""

from __future__ import annotations

import warnings

import pytest
import torch

import minitorch_rx as mt

torch.manual_seed(0)
D = torch.float64


def _spd(n: int = 3) -> torch.Tensor:
    a = torch.randn(n, n, dtype=D)
    return a @ a.mT + n * torch.eye(n, dtype=D)


A = _spd()
B = torch.randn(3, 2, dtype=D)
LU, PIV = torch.linalg.lu_factor(A)
LD, LDL_PIV = torch.linalg.ldl_factor(A)
GEQRF_A, GEQRF_TAU = torch.geqrf(torch.randn(4, 3, dtype=D))
L = torch.linalg.cholesky(A)
U3, V3 = torch.randn(2, 3, dtype=D), torch.randn(2, 3, dtype=D)
T4 = (torch.randn(6, 6, dtype=D) + 6 * torch.eye(6, dtype=D)).reshape(2, 3, 2, 3)
X = torch.randn(4, 6, dtype=D)

# (id, torch function, minitorch_rx function, args, kwargs)
CASES = [
    ("linalg.eigh", torch.linalg.eigh, mt.linalg.eigh, (A,), {}),
    ("linalg.eigvalsh", torch.linalg.eigvalsh, mt.linalg.eigvalsh, (A,), {}),
    ("linalg.svd", torch.linalg.svd, mt.linalg.svd, (A,), {}),
    ("linalg.svdvals", torch.linalg.svdvals, mt.linalg.svdvals, (A,), {}),
    ("linalg.qr", torch.linalg.qr, mt.linalg.qr, (A,), {}),
    ("linalg.lu", torch.linalg.lu, mt.linalg.lu, (A,), {}),
    ("linalg.pinv", torch.linalg.pinv, mt.linalg.pinv, (A,), {}),
    ("linalg.matrix_power", torch.linalg.matrix_power, mt.linalg.matrix_power, (A, 3), {}),
    ("linalg.matrix_power(n=-1)", torch.linalg.matrix_power, mt.linalg.matrix_power, (A, -1), {}),
    ("linalg.matrix_power(n=1)", torch.linalg.matrix_power, mt.linalg.matrix_power, (A, 1), {}),
    ("linalg.matrix_power(n=0)", torch.linalg.matrix_power, mt.linalg.matrix_power, (A, 0), {}),
    ("linalg.matrix_rank", torch.linalg.matrix_rank, mt.linalg.matrix_rank, (A,), {}),
    ("linalg.multi_dot", torch.linalg.multi_dot, mt.linalg.multi_dot, ([A, A, B],), {}),
    ("linalg.cond", torch.linalg.cond, mt.linalg.cond, (A,), {}),
    ("linalg.cross", torch.linalg.cross, mt.linalg.cross, (U3, V3), {}),
    ("linalg.vecdot", torch.linalg.vecdot, mt.linalg.vecdot, (U3, V3), {}),
    ("linalg.householder_product", torch.linalg.householder_product, mt.linalg.householder_product,
     (GEQRF_A, GEQRF_TAU), {}),
    ("ormqr", torch.ormqr, mt.ormqr, (GEQRF_A, GEQRF_TAU, torch.randn(4, 2, dtype=D)), {}),
    ("geqrf", torch.geqrf, mt.geqrf, (A,), {}),
    ("linalg.tensorinv", torch.linalg.tensorinv, mt.linalg.tensorinv, (T4,), {}),
    ("linalg.tensorsolve", torch.linalg.tensorsolve, mt.linalg.tensorsolve, (T4, torch.randn(2, 3, dtype=D)), {}),
    ("linalg.lu_factor_ex", torch.linalg.lu_factor_ex, mt.linalg.lu_factor_ex, (A,), {}),
    ("linalg.lu_factor", torch.linalg.lu_factor, mt.linalg.lu_factor, (A,), {}),
    ("lu_unpack", torch.lu_unpack, mt.lu_unpack, (LU, PIV), {}),
    ("linalg.lu_solve", torch.linalg.lu_solve, mt.linalg.lu_solve, (LU, PIV, B), {}),
    ("linalg.ldl_factor_ex", torch.linalg.ldl_factor_ex, mt.linalg.ldl_factor_ex, (A,), {}),
    ("linalg.ldl_factor", torch.linalg.ldl_factor, mt.linalg.ldl_factor, (A,), {}),
    ("linalg.ldl_solve", torch.linalg.ldl_solve, mt.linalg.ldl_solve, (LD, LDL_PIV, B), {}),
    ("svd", torch.svd, mt.svd, (A,), {}),
    ("svd(compute_uv=False)", torch.svd, mt.svd, (A,), {"compute_uv": False}),
    ("lu", torch.lu, mt.lu, (A,), {}),
    ("lu_solve", torch.lu_solve, mt.lu_solve, (B, LU, PIV), {}),
    ("linalg.polar", torch.linalg.polar, mt.linalg.polar, (A,), {}),
    ("cross", torch.cross, mt.cross, (U3, V3), {"dim": 1}),
    ("linalg.solve", torch.linalg.solve, mt.linalg.solve, (A, B), {}),
    ("linalg.solve_ex", torch.linalg.solve_ex, mt.linalg.solve_ex, (A, B), {}),
    ("linalg.solve_triangular", torch.linalg.solve_triangular, mt.linalg.solve_triangular, (L, B), {"upper": False}),
    ("linalg.inv", torch.linalg.inv, mt.linalg.inv, (A,), {}),
    ("linalg.inv_ex", torch.linalg.inv_ex, mt.linalg.inv_ex, (A,), {}),
    ("linalg.det", torch.linalg.det, mt.linalg.det, (A,), {}),
    ("linalg.slogdet", torch.linalg.slogdet, mt.linalg.slogdet, (A,), {}),
    ("linalg.cholesky_ex", torch.linalg.cholesky_ex, mt.linalg.cholesky_ex, (A,), {}),
    ("linalg.cholesky", torch.linalg.cholesky, mt.linalg.cholesky, (A,), {}),
    ("cholesky_solve", torch.cholesky_solve, mt.cholesky_solve, (B, L), {}),
    ("cholesky_inverse", torch.cholesky_inverse, mt.cholesky_inverse, (L,), {}),
    ("tensordot", torch.tensordot, mt.tensordot, (A, B), {"dims": 1}),
] + [
    (f"fft.{name}", getattr(torch.fft, name), getattr(mt.fft, name), (X,), {})
    for name in (
        "fft", "ifft", "rfft", "ihfft", "fft2", "ifft2", "rfft2", "ihfft2", "fftn", "ifftn", "rfftn", "ihfftn",
        "irfft", "hfft", "irfft2", "hfft2", "irfftn", "hfftn",
    )
]  # fmt: skip
# torch 2.14 removed torch.qr and torch.cholesky (they raise); minitorch_rx keeps them, with the
# out= of the linalg functions they call, so they are checked against those.
REMOVED_IN_TORCH = [
    ("qr", torch.linalg.qr, mt.qr, (A,), {}),
    ("cholesky", torch.linalg.cholesky, mt.cholesky, (A,), {}),
]
# ``ifft``/``ihfft`` of a real input that requires grad: torch records them, minitorch_rx has no
# complex autograd (``tests/test_complex_dtypes.py``), with or without out=.
NO_COMPLEX_AUTOGRAD = {"fft.ifft", "fft.ihfft"}


# minitorch_rx's linalg.slogdet is its torch.slogdet too, whose result type is torch.slogdet's.
RETURN_TYPE_DIFFERS = {"linalg.slogdet"}
# Where torch's answer with out= and autograd is not minitorch_rx's, with the reason:
# ldl_*: torch's results require grad (a NotImplemented grad_fn), minitorch_rx's do not;
# svd, lu: torch does not refuse an out that requires grad but fails on it later (a leaf written
# in place, "cannot resize variables that require grad"), minitorch_rx refuses it / names the leaf;
# matrix_power(n=0): torch fills out with the identity unrecorded, minitorch_rx copies its identity
# (a function of A whose gradient is zero) in, recorded.
AUTOGRAD_DIFFERS = {"linalg.ldl_factor_ex", "linalg.ldl_factor", "linalg.ldl_solve", "svd", "lu"}
AUTOGRAD_DIFFERS |= {"linalg.matrix_power(n=0)"}


def _ids(case) -> str:
    return case[0]


def _mt(value):
    if isinstance(value, torch.Tensor):
        return mt.tensor(value)
    if isinstance(value, list):
        return [_mt(v) for v in value]
    return value


def _torch(value) -> torch.Tensor:
    return value._data if isinstance(value, mt.Tensor) else value


def _results(value) -> tuple:
    return (value,) if isinstance(value, (torch.Tensor, mt.Tensor)) else tuple(value)


def _outs(results, make) -> tuple:
    """The torch and minitorch_rx ``out`` for ``results`` (torch's): ``make(result, its index)``."""
    torch_outs = [make(r, i) for i, r in enumerate(_results(results))]
    mt_outs = [mt.tensor(o.detach().clone()).requires_grad_(o.requires_grad) for o in torch_outs]
    if isinstance(results, torch.Tensor):
        return torch_outs[0], mt_outs[0]
    return tuple(torch_outs), tuple(mt_outs)


def _assert_written(mt_out, torch_out):
    for got, expected in zip(_results(mt_out), _results(torch_out)):
        got = _torch(got)
        assert got.shape == expected.shape and got.dtype == expected.dtype
        torch.testing.assert_close(got, expected, equal_nan=True)


def _outcome(fn, *args, **kwargs):
    """``("ok", resize warnings)`` or ``(exception type, message)`` of ``fn(*args, **kwargs)``."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            fn(*args, **kwargs)
        except Exception as error:
            return type(error), str(error).splitlines()[0]
    resized = [str(w.message) for w in caught if str(w.message).startswith("An output with one or more")]
    return "ok", resized


@pytest.mark.parametrize("case", CASES + REMOVED_IN_TORCH, ids=_ids)
def test_the_result_is_written_into_out_and_out_returned(case):
    _, torch_fn, mt_fn, args, kwargs = case
    expected = torch_fn(*args, **kwargs)
    torch_out, mt_out = _outs(expected, lambda r, i: torch.full_like(r, 7))
    returned = mt_fn(*_mt(args), **kwargs, out=mt_out)
    if isinstance(mt_out, tuple):
        torch_returned = torch_fn(*args, **kwargs, out=torch_out)
        assert type(returned).__name__ == type(torch_returned).__name__ or case[0] in RETURN_TYPE_DIFFERS
        assert all(r is o for r, o in zip(returned, mt_out, strict=True))
    else:
        assert returned is mt_out
    _assert_written(mt_out, expected)


@pytest.mark.parametrize("case", CASES, ids=_ids)
def test_an_out_of_another_shape_is_resized_as_torch_does(case):
    _, torch_fn, mt_fn, args, kwargs = case
    expected = torch_fn(*args, **kwargs)
    for make in (lambda r, i: torch.zeros(7, dtype=r.dtype), lambda r, i: torch.empty(0, dtype=r.dtype)):
        torch_out, mt_out = _outs(expected, make)
        torch_kind, torch_warnings = _outcome(torch_fn, *args, **kwargs, out=torch_out)
        mt_kind, mt_warnings = _outcome(mt_fn, *_mt(args), **kwargs, out=mt_out)
        assert torch_kind == mt_kind == "ok"
        assert sorted(w.split(" (Triggered internally")[0] for w in torch_warnings) == sorted(mt_warnings)
        _assert_written(mt_out, expected)


def _wrong_dtypes(results):
    """Per result, the dtypes to try: all outs of one wrong dtype, then only the first or last."""
    n = len(_results(results))
    for bad in (torch.int32, torch.float32, torch.complex128, torch.int64):
        yield [bad] * n
        if n > 1:
            yield [bad] + [None] * (n - 1)
            yield [None] * (n - 1) + [bad]


@pytest.mark.parametrize("case", CASES, ids=_ids)
def test_an_out_of_another_dtype_is_refused_or_cast_as_torch_does(case):
    _, torch_fn, mt_fn, args, kwargs = case
    expected = torch_fn(*args, **kwargs)
    for dtypes in _wrong_dtypes(expected):
        torch_out, mt_out = _outs(expected, lambda r, i, dtypes=dtypes: torch.zeros_like(r, dtype=dtypes[i] or r.dtype))
        torch_outcome = _outcome(torch_fn, *args, **kwargs, out=torch_out)
        assert _outcome(mt_fn, *_mt(args), **kwargs, out=mt_out) == torch_outcome, dtypes
        if torch_outcome[0] == "ok":
            _assert_written(mt_out, torch_out)


def _requiring_grad(args, mt_side: bool):
    """``args`` with the floating tensors requiring grad (as minitorch_rx tensors if ``mt_side``)."""
    made = []
    for a in args:
        if isinstance(a, list):
            made.append(_requiring_grad(a, mt_side))
        elif isinstance(a, torch.Tensor) and a.is_floating_point():
            made.append(_mt(a).requires_grad_() if mt_side else a.clone().requires_grad_())
        else:
            made.append(_mt(a) if mt_side else a)
    return made


@pytest.mark.parametrize("case", [c for c in CASES if c[0] not in NO_COMPLEX_AUTOGRAD], ids=_ids)
def test_out_meets_autograd_as_in_torch(case):
    _, torch_fn, mt_fn, args, kwargs = case
    expected = torch_fn(*args, **kwargs)
    torch_out, mt_out = _outs(expected, lambda r, i: torch.zeros_like(r))
    torch_args, mt_args = _requiring_grad(args, False), _requiring_grad(args, True)
    torch_outcome = _outcome(torch_fn, *torch_args, **kwargs, out=torch_out)
    assert _outcome(mt_fn, *mt_args, **kwargs, out=mt_out) == torch_outcome
    for got, written in zip(_results(mt_out), _results(torch_out)):  # a composite's out: a recorded copy
        assert got.requires_grad == written.requires_grad or case[0] in AUTOGRAD_DIFFERS
        torch.testing.assert_close(_torch(got).detach(), written.detach(), equal_nan=True)
    with torch.no_grad(), mt.no_grad():  # no autograd: written
        torch_out, mt_out = _outs(expected, lambda r, i: torch.zeros_like(r))
        mt_fn(*mt_args, **kwargs, out=mt_out)
        _assert_written(mt_out, expected)
    # an out that requires grad is an argument that requires grad
    torch_out, mt_out = _outs(expected, lambda r, i: torch.zeros_like(r).requires_grad_(r.is_floating_point()))
    torch_outcome = _outcome(torch_fn, *args, **kwargs, out=torch_out)
    assert _outcome(mt_fn, *_mt(args), **kwargs, out=mt_out) == torch_outcome or case[0] in AUTOGRAD_DIFFERS


@pytest.mark.parametrize("case", CASES, ids=_ids)
def test_an_out_saved_for_backward_then_overwritten_fails_backward(case):
    _, torch_fn, mt_fn, args, kwargs = case
    expected = torch_fn(*args, **kwargs)
    _, mt_out = _outs(expected, lambda r, i: torch.zeros_like(r))
    versions = [o._version for o in _results(mt_out)]
    real = next(o for o in _results(mt_out) + (mt.zeros(1),) if not o.dtype.is_complex)  # no complex autograd
    loss = (mt.ones(real.shape, dtype=D, requires_grad=True) * real).sum()  # saves ``real``
    mt_fn(*_mt(args), **kwargs, out=mt_out)
    assert [o._version for o in _results(mt_out)] > versions
    if real.shape != (1,):
        with pytest.raises(RuntimeError, match="modified by an inplace operation"):
            loss.backward()


def test_an_out_of_another_kind_is_a_type_error_as_torch_gives():
    with pytest.raises(TypeError, match=r"^linalg_inv\(\): argument 'out' must be Tensor, not int$"):
        mt.linalg.inv(mt.tensor(A), out=3)
    with pytest.raises(TypeError, match=r"^linalg_eigh\(\): argument 'out' must be tuple of Tensors, not Tensor$"):
        mt.linalg.eigh(mt.tensor(A), out=mt.zeros(3, dtype=D))
    with pytest.raises(TypeError, match=r"^linalg_inv\(\): argument 'out' must be Tensor, not int$"):
        torch.linalg.inv(A, out=3)


@pytest.mark.parametrize(
    "method", ["det", "slogdet", "inverse", "cholesky", "svd", "qr", "lu", "matrix_power", "cross", "geqrf"]
)
def test_tensor_methods_take_no_out_argument_as_torchs(method):
    x = mt.randn(3, 3)
    with pytest.raises(TypeError):
        getattr(x.torch(), method)(out=torch.empty(0))
    with pytest.raises(TypeError, match="unexpected keyword argument 'out'"):
        getattr(x, method)(out=mt.empty(0))


# ------------------------------------------- torch's out= on the functions that lacked one
def _torch_takes_out(fn) -> bool:
    """Whether torch's function ``fn`` takes ``out=``: from its signature (a Python function), its
    documented signature, or the signatures torch's argument parser lists when the call is wrong."""
    import inspect
    import re

    try:
        return "out" in inspect.signature(fn).parameters
    except (TypeError, ValueError):
        pass
    if re.search(r"\bout=None", (fn.__doc__ or "").strip().split("\n\n")[0]):
        return True
    try:
        fn(object(), __probe__=None)
    except TypeError as error:
        return bool(re.search(r"\bTensors? out\b|Tensor\)? out\b|\bout=", str(error)))
    except Exception:
        return False
    return False


def test_every_function_whose_torch_twin_takes_out_takes_it():
    import inspect

    pairs = [(torch, mt), (torch.linalg, mt.linalg), (torch.special, mt.special), (torch.fft, mt.fft)]
    pairs.append((torch.nn.functional, mt.nn.functional))
    missing = []
    for torch_module, module in pairs:
        for name in dir(module):
            ours, theirs = getattr(module, name), getattr(torch_module, name, None)
            if name.startswith("_") or not callable(ours) or not callable(theirs) or isinstance(theirs, type):
                continue
            if ours is theirs or not _torch_takes_out(theirs):
                continue
            parameters = inspect.signature(ours).parameters.values()
            if not any(p.name == "out" or p.kind is p.VAR_KEYWORD for p in parameters):
                missing.append(f"{torch_module.__name__}.{name}")
    assert missing == []


def test_matmul_writes_into_out_and_returns_it():
    a, b = mt.randn(3, 4, dtype=mt.float64), mt.randn(4, 2, dtype=mt.float64)
    out = mt.empty(3, 2, dtype=mt.float64)
    assert torch.matmul(a, b, out=out) is out and mt.matmul(a, b, out=out) is out
    torch.testing.assert_close(out.torch(), a.torch() @ b.torch())
    assert out._version == 2


def test_torch_out_resizes_with_torch_warning_and_shows_the_new_shape():
    out = mt.zeros(5)
    with pytest.warns(UserWarning, match="An output with one or more elements was resized"):
        mt.exp(mt.zeros(2, 3), out=out)
    assert out.shape == (2, 3) and isinstance(out, torch.Tensor)
    with torch._C.DisableTorchFunctionSubclass():  # the instance itself, as torch code reads it
        assert torch.Tensor.shape.__get__(out) == (2, 3)


def test_torch_out_of_a_wrong_dtype_is_torch_error():
    with pytest.raises(RuntimeError) as theirs:
        torch.exp(torch.zeros(2), out=torch.zeros(2, dtype=torch.long))
    with pytest.raises(RuntimeError) as ours:
        mt.exp(mt.zeros(2), out=mt.zeros(2, dtype=mt.long))
    assert str(ours.value) == str(theirs.value)


def test_torch_out_refuses_arguments_that_require_grad_in_torch_words():
    with pytest.raises(RuntimeError) as theirs:
        torch.mul(torch.ones(2, requires_grad=True), 2, out=torch.empty(2))
    with pytest.raises(RuntimeError) as ours:
        torch.mul(mt.ones(2, requires_grad=True), 2, out=mt.empty(2))
    assert str(ours.value) == str(theirs.value)
    with mt.no_grad():
        assert mt.mul(mt.ones(2, requires_grad=True), 2, out=mt.empty(2)).tolist() == [2.0, 2.0]


def test_torch_out_tuple_is_returned_as_torch_return_type():
    a = mt.tensor([[1.0, 5.0], [7.0, 2.0]])
    values, indices = mt.empty(2), mt.empty(2, dtype=mt.long)
    result = mt.max(a, 1, out=(values, indices))
    assert type(result) is torch.return_types.max_out and result.values is values and result.indices is indices
    assert values.tolist() == [5.0, 7.0] and indices.tolist() == [1, 0]
