"""The ``out=`` argument, as PyTorch's: the result is written into ``out`` (a tensor, or a tuple
of tensors for a function with several results) and ``out`` itself is returned.

As in PyTorch:

- an ``out`` of another shape is resized, with torch's deprecation warning when it had elements;
- an ``out`` of a dtype the function does not accept raises torch's error (each function has its
  rule: the exact dtype, one the result safely casts to, a complex or floating kind, ...);
- a function torch computes with one differentiable kernel refuses ``out=`` while grad mode is on
  and an argument (``out`` included) requires grad, naming that kernel; one torch composes from
  other ops writes its result as ``out.copy_(result)``, recorded as any in-place copy;
- writing is an in-place copy into ``out`` (``ops/inplace.py``): its version counter goes up, so
  a node that saved ``out`` earlier raises torch's in-place error at backward.
"""

from __future__ import annotations

import functools
import inspect
import warnings
from collections.abc import Callable

import torch

from ..autograd.grad_mode import state
from ..autograd.tensor import Tensor, rebind
from ..autograd.torch_function import unwrap
from .constants import dtype_name
from .inplace import copy_

#: A dtype rule: ``rule(result_dtype, out_dtype)`` is torch's error message, or None if accepted.
DtypeRule = Callable[[torch.dtype, torch.dtype], "str | None"]

# How torch's "Expected out tensor to have dtype ..." names a dtype: its C++ type.
_CPP_NAMES = {
    torch.float64: "double",
    torch.float32: "float",
    torch.bool: "bool",
    torch.int64: "long int",
    torch.int32: "int",
    torch.int16: "short int",
    torch.int8: "signed char",
    torch.uint8: "unsigned char",
    torch.float16: "c10::Half",
    torch.bfloat16: "c10::BFloat16",
    torch.complex64: "c10::complex<float>",
    torch.complex128: "c10::complex<double>",
}


def _cpp_name(dtype: torch.dtype) -> str:
    return _CPP_NAMES.get(dtype, dtype_name(dtype))


def exact(expected: torch.dtype, got: torch.dtype) -> str | None:
    """The result's own dtype only (most ``torch.linalg`` kernels)."""
    if got == expected:
        return None
    return f"Expected out tensor to have dtype {_cpp_name(expected)}, but got {_cpp_name(got)} instead"


def castable(prefix: str, what: str = "result") -> DtypeRule:
    """Any dtype the result safely casts to (``torch.can_cast``)."""

    def rule(expected: torch.dtype, got: torch.dtype) -> str | None:
        if torch.can_cast(expected, got):
            return None
        return (
            f"{prefix}: Expected {what} to be safely castable from {dtype_name(expected)} dtype, "
            f"but got {what} with dtype {dtype_name(got)}"
        )

    return rule


def same_dtype(message: str) -> DtypeRule:
    """The result's own dtype, with the function's own ``message``: ``{expected}`` and ``{got}``
    name the dtypes as ``Double``, ``{expected_cpp}`` and ``{got_cpp}`` as ``double``."""

    def rule(expected: torch.dtype, got: torch.dtype) -> str | None:
        if got == expected:
            return None
        names = {"expected": dtype_name(expected), "got": dtype_name(got)}
        return message.format(**names, expected_cpp=_cpp_name(expected), got_cpp=_cpp_name(got))

    return rule


def same_kind(kernel: str) -> DtypeRule:
    """A complex ``out`` for a complex result, a floating one for a real result (``torch.fft``)."""

    def rule(expected: torch.dtype, got: torch.dtype) -> str | None:
        if expected.is_complex:
            return None if got.is_complex else f"{kernel} expects a complex output tensor, but got {dtype_name(got)}"
        if got.is_floating_point:
            return None
        return f"{kernel} expects a floating point output tensor, but got {dtype_name(got)}"

    return rule


def any_dtype(expected: torch.dtype, got: torch.dtype) -> str | None:
    """Any dtype: the values are cast (``torch.lu``'s ``copy_``)."""
    return None


_RESIZED = (
    "An output with one or more elements was resized since it had shape {old}, which does not match the "
    "required output shape {new}. This behavior is deprecated, and in a future PyTorch release outputs will not "
    "be resized unless they have zero elements. You can explicitly reuse an out tensor t by resizing it, "
    "inplace, to zero elements with t.resize_(0)."
)


def _requires_grad(values) -> bool:
    for value in values:
        if isinstance(value, Tensor) and value._requires_grad:
            return True
        if isinstance(value, (list, tuple)) and _requires_grad(value):
            return True
    return False


def _write(target: Tensor, result: Tensor, warn: bool) -> None:
    shape = result._data.shape
    if target._data.shape != shape:
        if warn and target._data.numel():
            old, new = list(target._data.shape), list(shape)
            warnings.warn(_RESIZED.format(old=old, new=new), UserWarning, stacklevel=3)
        target._data.resize_(shape)
        rebind(target, target._data)
    copy_(target, result)


def writes_out(
    name: str,
    *,
    refuse: str | None = None,
    dtype: DtypeRule | tuple[DtypeRule, ...] = exact,
    warn: bool = True,
    rules_for: Callable[..., tuple] | None = None,
) -> Callable[[Callable], Callable]:
    """Give ``fn`` torch's ``out=`` keyword. ``name`` is torch's name of the function in argument
    errors (``linalg_inv``); ``refuse`` the kernel named when ``out=`` meets autograd (None: the
    result is copied in, recorded); ``dtype`` the rule for ``out``'s dtype (one per result);
    ``warn`` False where torch resizes without a warning (``torch.lu``); ``rules_for``, called
    with the call's arguments, gives ``(refuse, dtype)`` where they depend on them."""

    def decorate(fn: Callable) -> Callable:
        @functools.wraps(fn)
        def with_out(*args, out=None, **kwargs):
            if out is None:
                return fn(*args, **kwargs)
            outs = (out,) if isinstance(out, Tensor) else tuple(out) if isinstance(out, (tuple, list)) else None
            if outs is None or not all(isinstance(o, Tensor) for o in outs):
                raise TypeError(f"{name}(): argument 'out' must be Tensor, not {type(out).__name__}")
            refused, dtypes = rules_for(*args, **kwargs) if rules_for is not None else (refuse, dtype)
            if refused is not None and state.grad_enabled and _requires_grad((*args, *kwargs.values(), *outs)):
                raise RuntimeError(
                    f"{refused}(): functions with out=... arguments don't support automatic differentiation, "
                    "but one of the arguments requires grad."
                )
            result = fn(*args, **kwargs)
            single = isinstance(result, Tensor)
            results = (result,) if single else tuple(result)
            if single and not isinstance(out, Tensor):
                raise TypeError(f"{name}(): argument 'out' must be Tensor, not {type(out).__name__}")
            if not single and isinstance(out, Tensor):
                raise TypeError(f"{name}(): argument 'out' must be tuple of Tensors, not Tensor")
            if len(outs) != len(results):
                raise TypeError(f"expected tuple of {len(results)} elements but got {len(outs)}")
            rules = dtypes if isinstance(dtypes, tuple) else (dtypes,) * len(results)
            for target, value, rule in zip(outs, results, rules):
                message = rule(value.dtype, target.dtype)
                if message is not None:
                    raise RuntimeError(message)
            for target, value in zip(outs, results):
                _write(target, value, warn)
            if single:
                return out
            return getattr(torch.return_types, f"{type(result).__name__}_out", type(result))(outs)  # as torch's

        signature = inspect.signature(fn)
        params = list(signature.parameters.values())
        at = len(params) - (bool(params) and params[-1].kind is inspect.Parameter.VAR_KEYWORD)
        params.insert(at, inspect.Parameter("out", inspect.Parameter.KEYWORD_ONLY, default=None))
        with_out.__signature__ = signature.replace(parameters=params)
        with_out.without_out = fn  # for Tensor methods: torch's take no out=
        return with_out

    return decorate


#: torch's functions that take ``out=`` where minitorch_rx's function of the name had none, per
#: torch namespace: swept from torch's own signatures (``tests/test_out_argument.py`` sweeps them
#: again and fails on one missing). ``with_torch_out`` gives them torch's ``out=``.
TORCH_OUT = {
    "torch": """
        add addbmm addcdiv addcmul addmm addmv addr all amax amin aminmax any argsort baddbmm
        bernoulli bitwise_and bitwise_left_shift bitwise_not bitwise_or bitwise_right_shift
        bitwise_xor bmm bucketize cat ceil clamp clamp_max clamp_min clip column_stack concat
        concatenate conj_physical copysign cos cosh cummax cummin cumprod cumsum deg2rad diag
        digamma div divide dot dstack eq erf erfc erfinv exp exp2 expm1 fix float_power floor
        floor_divide fmax fmin fmod frac frexp gather gcd ge ger greater greater_equal gt
        heaviside histc histogram histogramdd hstack hypot i0 igamma igammac index_select inner
        isin isneginf isposinf kron kthvalue lcm ldexp le lerp less less_equal lgamma log log1p
        logaddexp logaddexp2 logcumsumexp logical_and logical_not logical_or logit logsumexp lt
        masked_select matmul max maximum mean min minimum mm mode mul multinomial multiply mv
        mvlgamma nan_to_num nanmean nanquantile narrow_copy ne neg negative nextafter nonzero
        norm normal not_equal outer polygamma pow prod quantile randperm reciprocal remainder
        renorm round row_stack rsqrt scatter searchsorted sgn sigmoid sign signbit sin sinc sinh
        sort sqrt stack std std_mean sub subtract sum take_along_dim tan tanh topk
        triangular_solve tril triu true_divide trunc var var_mean vdot vstack where xlogy
    """.split(),
    "torch.linalg": """
        matmul matrix_norm norm vector_norm
    """.split(),
    "torch.special": """
        airy_ai bessel_j0 bessel_j1 bessel_y0 bessel_y1 chebyshev_polynomial_t
        chebyshev_polynomial_u chebyshev_polynomial_v chebyshev_polynomial_w digamma entr erf
        erfc erfcx erfinv exp2 expit expm1 gammainc gammaincc gammaln hermite_polynomial_h
        hermite_polynomial_he i0 i0e i1 i1e laguerre_polynomial_l legendre_polynomial_p log1p
        log_ndtr logit logsumexp modified_bessel_i0 modified_bessel_i1 modified_bessel_k0
        modified_bessel_k1 multigammaln ndtr ndtri polygamma psi round scaled_modified_bessel_k0
        scaled_modified_bessel_k1 shifted_chebyshev_polynomial_t shifted_chebyshev_polynomial_u
        shifted_chebyshev_polynomial_v shifted_chebyshev_polynomial_w sinc spherical_bessel_j0
        xlog1py xlogy zeta
    """.split(),
    "torch.nn.functional": """
        normalize
    """.split(),
}


def with_torch_out(fn: Callable, torch_fn: Callable) -> Callable:
    """``fn`` taking torch's ``out=``: given one, torch's own function writes into ``out``'s data, so
    shapes, dtypes, resizing and their errors and warnings are torch's, and ``out`` is returned. As
    in torch, no gradient is recorded through ``out=``: an argument (``out`` included) that requires
    grad, with grad mode on, is torch's RuntimeError."""

    @functools.wraps(fn)
    def with_out(*args, out=None, **kwargs):
        if out is None:
            return fn(*args, **kwargs)
        if state.grad_enabled and _requires_grad((*args, *kwargs.values(), out)):
            raise RuntimeError(
                f"{torch_fn.__name__}(): functions with out=... arguments don't support automatic "
                "differentiation, but one of the arguments requires grad."
            )
        result = torch_fn(*unwrap(args), out=unwrap(out), **unwrap(kwargs))
        outs = out if isinstance(out, (tuple, list)) else (out,)
        for target in outs:
            if isinstance(target, Tensor):
                rebind(target, target._data)  # a resized ``out``: the instance shows its new shape
        if isinstance(result, torch.Tensor):
            return out
        return type(result)(outs) if hasattr(type(result), "n_fields") else tuple(outs)

    signature = inspect.signature(fn)
    params = list(signature.parameters.values())
    at = len(params) - (bool(params) and params[-1].kind is inspect.Parameter.VAR_KEYWORD)
    params.insert(at, inspect.Parameter("out", inspect.Parameter.KEYWORD_ONLY, default=None))
    with_out.__signature__ = signature.replace(parameters=params)
    with_out.without_out = fn  # as ``writes_out``'s: the function itself, for Tensor methods
    return with_out


def give_torch_out(modules: dict[str, object]) -> None:
    """Replace each ``TORCH_OUT`` function of ``modules`` (torch namespace name -> minitorch_rx
    module) by ``with_torch_out`` of it."""
    import importlib

    wrapped: dict[Callable, Callable] = {}  # one wrapper per function: aliases stay one function
    for namespace, names in TORCH_OUT.items():
        module, torch_module = modules[namespace], importlib.import_module(namespace)
        for name in names:
            fn = getattr(module, name)
            if fn not in wrapped:
                wrapped[fn] = with_torch_out(fn, getattr(torch_module, name))
            setattr(module, name, wrapped[fn])
