"""Every public entry point fed bad values, one argument at a time (issue 13.16).

``tests/test_bad_input.py`` pins the exact error of chosen bad inputs; this file sweeps the rest:
each public ``mt.*`` function, ``Tensor`` method, ``F.*`` function, ``nn`` module, optimizer,
scheduler and initializer gets each value of ``bad_values()`` in each argument (the others
valid), and must either work or raise an error that says what was wrong: never an internal one
(``AttributeError: 'str' object has no attribute '_data'``, an ``IndexError`` from a list,
Python's ``'<' not supported between instances``...), unless torch's own function raises that
very error. Each sweep runs with its address space capped (``address_space_limit``): a bad value
that an entry point would allocate until memory runs out (``num_layers=10**20``) fails the test
instead of taking the machine down.
"""

from __future__ import annotations

import contextlib
import inspect
import os
import re
import warnings

import pytest
import torch
from test_bad_input import public_entry_points

import minitorch_rx as mt

INTERNAL = (
    AttributeError,
    KeyError,
    NameError,
    UnboundLocalError,
    AssertionError,
    ZeroDivisionError,
    StopIteration,
    RecursionError,  # a RuntimeError, but always ours: a torch call dispatched back into our function
)
#: Python's wording for a value used as the wrong type inside a function, not a check of it.
PYTHON_INTERNALS = re.compile(
    r"object is not subscriptable|has no len\(\)|not supported between instances|object is not iterable|"
    r"object is not callable|'NoneType' object|cannot unpack|unhashable type|can only concatenate|"
    r"cannot be interpreted as an integer|must be real number"
)
#: Entry points that read or write files or global state, or take no tensor: swept elsewhere.
SKIPPED = {"mt.load", "mt.save", "mt.manual_seed", "mt.seed"}
#: Arguments that get a valid tensor when they are not the one being swept.
TENSOR_ARGUMENTS = {"other", "input", "weight", "target", "tensor", "exponent", "mask", "condition", "mat2"}
#: Small valid values for a module's optional sizes when they are not the one swept: PyTorch's
#: defaults (a 6+6-layer, 512-wide Transformer) cost a second per construction.
SMALL_DEFAULTS = {"d_model": 4, "nhead": 2, "dim_feedforward": 8, "num_encoder_layers": 1, "num_decoder_layers": 1}
#: What one swept call may allocate beyond the process's size before the sweep: a bad value
#: (10**20 layers, a negative size) must be refused up front, not allocated until memory runs out.
MEMORY_HEADROOM = 2**30


def bad_values() -> dict[str, object]:
    return {
        "None": None,
        "str": "float32",
        "list": [1, 2],
        "float": 1.5,
        "negative": -1,
        "huge": 10**20,
        "nan": float("nan"),
        "int64 tensor": mt.ones(2, 3, dtype=torch.int64),
        "empty tensor": mt.ones(0),
        "torch tensor": torch.ones(2, 3),
        "tuple": (1,),
        "dict": {},
        "object": object(),
        "bool": True,
        "0-dim tensor": mt.tensor(1.0),
        "4-D tensor": mt.randn(1, 2, 3, 4),
    }


def torch_equivalent(name: str):
    prefix, _, attr = name.partition(".")
    namespace = {"mt": torch, "Tensor": torch.Tensor, "F": torch.nn.functional}.get(prefix)
    return getattr(namespace, attr, None) if namespace is not None else None


def to_torch(value):
    if isinstance(value, mt.Tensor):
        return value.torch().detach().clone().requires_grad_(value.requires_grad)
    return value


def calls(name: str, fn):
    """``(argument, bad name, args, kwargs)`` for each argument of ``fn`` and each bad value."""
    try:
        signature = inspect.signature(fn)
    except (TypeError, ValueError):
        return
    kinds = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)
    params = [p for p in signature.parameters.values() if p.kind in kinds and p.name != "self"]
    for i, swept in enumerate(params):
        if i == 0 and name.startswith("Tensor."):
            continue  # a method is always called on a tensor
        for bad_name, bad in bad_values().items():
            args, kwargs = [], {}
            for j, param in enumerate(params):
                if j == i:
                    value = bad
                elif param.name in SMALL_DEFAULTS and name.startswith("nn.") and param.default is not None:
                    value = SMALL_DEFAULTS[param.name]
                elif param.default is not inspect.Parameter.empty:
                    continue
                elif name.startswith(("nn.", "optim.", "lr_scheduler.", "init.")):
                    value = constructor_argument(param.name)
                elif j == 0:
                    value = mt.randn(2, 3, requires_grad=True)
                elif param.name in TENSOR_ARGUMENTS:
                    value = mt.randn(2, 3, requires_grad=True)
                elif param.name in ("dim", "dims"):
                    value = 0
                else:
                    break  # a required argument this sweep cannot fill
                if param.kind == inspect.Parameter.KEYWORD_ONLY or param.default is not inspect.Parameter.empty:
                    kwargs[param.name] = value
                else:
                    args.append(value)
            else:
                yield swept.name, bad_name, args, kwargs


@contextlib.contextmanager
def address_space_limit(headroom: int = MEMORY_HEADROOM):
    """Caps this process's address space at its present size plus ``headroom`` (Linux), so that an
    entry point that allocates without bound fails with a MemoryError here instead of taking the
    machine down; the previous limit comes back on exit."""
    try:
        import resource

        with open("/proc/self/statm") as statm:
            size = int(statm.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
    except (ImportError, OSError, ValueError):
        yield
        return
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    limit = size + headroom
    for bound in (soft, hard):
        if bound != resource.RLIM_INFINITY:
            limit = min(limit, bound)
    resource.setrlimit(resource.RLIMIT_AS, (limit, hard))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))


def out_of_memory(error: BaseException) -> bool:
    return isinstance(error, MemoryError) or re.search(r"can't allocate memory|bad_alloc", str(error)) is not None


def raised(fn, args, kwargs) -> BaseException | None:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            fn(*args, **kwargs)
    except Exception as error:
        return error.with_traceback(None)  # its frames may hold what a runaway call allocated
    return None


ENTRY_POINTS = {
    name: obj
    for name, obj in sorted(public_entry_points().items())
    if name.startswith(("mt.", "Tensor.", "F.", "nn.", "optim.", "lr_scheduler.", "init."))
    and name not in SKIPPED
    and not isinstance(obj, property)
}
#: Clear errors that are PyTorch's own, word for word, though of a type listed in ``INTERNAL``.
TORCHS_WORDING = re.compile(
    r"param 'initial_lr' is not specified in param_groups|Padding_idx must be within num_embeddings"
)


def constructor_argument(name: str) -> object:
    """A valid value for a required argument of a module, optimizer, scheduler or initializer."""
    if name == "params":
        return list(mt.nn.Linear(2, 2).parameters())
    if name == "optimizer":
        return mt.optim.SGD(mt.nn.Linear(2, 2).parameters(), lr=0.1)
    if name == "tensor":
        return mt.randn(3, 4)
    if name == "lr_lambda":
        return lambda epoch: 0.9
    if name == "milestones":
        return [1, 2]
    if name == "schedulers":
        return [mt.optim.lr_scheduler.StepLR(mt.optim.SGD(mt.nn.Linear(2, 2).parameters(), lr=0.1), 1)]
    if name == "module":
        return mt.nn.Linear(2, 2)
    return 2  # sizes, counts, kernel sizes


@pytest.fixture(autouse=True)
def global_settings_restored():
    """``mt.set_printoptions`` takes any value as torch's does (a tensor for ``precision`` breaks
    every later repr), and ``mt.set_default_dtype`` and ``mt.set_deterministic_debug_mode`` (a 1
    turns torch's deterministic algorithms on, which later tests' kernels refuse) are global: all
    are undone after each sweep."""
    options, dtype = torch._tensor_str.get_printoptions(), torch.get_default_dtype()
    debug_mode = torch.get_deterministic_debug_mode()
    yield
    torch.set_printoptions(**options)
    torch.set_default_dtype(dtype)
    torch.set_deterministic_debug_mode(debug_mode)


@pytest.mark.parametrize("name", list(ENTRY_POINTS))
def test_bad_values_in_any_argument_raise_no_internal_error(name):
    fn, theirs = ENTRY_POINTS[name], torch_equivalent(name)
    internal = []
    with address_space_limit():
        for argument, bad_name, args, kwargs in calls(name, fn):
            error = raised(fn, args, kwargs)
            if error is None:
                continue
            if out_of_memory(error):
                internal.append(f"{argument}={bad_name}: allocates past {MEMORY_HEADROOM >> 30} GiB: {error!r}")
                continue
            suspicious = isinstance(error, INTERNAL) or (
                isinstance(error, TypeError) and PYTHON_INTERNALS.search(str(error))
            )
            if isinstance(error, IndexError) and not re.search(r"out of range|out of bounds|index", str(error)):
                suspicious = True
            if not suspicious or TORCHS_WORDING.search(str(error)):
                continue
            if callable(theirs):
                torch_args = [to_torch(a) for a in args]
                torch_error = raised(theirs, torch_args, {k: to_torch(v) for k, v in kwargs.items()})
                if type(torch_error) is type(error) and str(torch_error) == str(error):
                    continue  # torch's own error, word for word
            internal.append(f"{argument}={bad_name}: {type(error).__name__}: {error}")
    assert not internal, f"{name}: internal errors:\n" + "\n".join(internal)
