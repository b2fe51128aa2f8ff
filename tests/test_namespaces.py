"""The names every PyTorch program touches in its first lines (issue 14): devices and backends,
dtype aliases, legacy constructors, settings, ``compile``, and the module paths PyTorch code imports."""

from __future__ import annotations

import importlib
import warnings

import numpy as np
import pytest
import torch

import minitorch_rx as mt
import minitorch_rx.settings


def test_dtype_aliases_are_torchs_dtypes():
    pairs = {"float": torch.float32, "double": torch.float64, "half": torch.float16, "long": torch.int64}
    pairs.update({"int": torch.int32, "short": torch.int16, "bool": torch.bool, "cfloat": torch.complex64})
    for name, dtype in pairs.items():
        assert getattr(mt, name) is dtype
    assert mt.zeros(2, dtype=mt.long).dtype == torch.int64
    assert mt.Size is torch.Size and mt.dtype is torch.dtype and mt.Generator is torch.Generator


def test_device_queries_are_torchs():
    assert mt.cuda.is_available() == torch.cuda.is_available()
    assert mt.cuda.device_count() == torch.cuda.device_count()
    assert mt.accelerator.is_available() == torch.accelerator.is_available()
    assert mt.backends.mps.is_available() == torch.backends.mps.is_available()
    mt.cuda.manual_seed(0)
    mt.cuda.manual_seed_all(0)


def test_backend_flags_set_torchs_flags_and_import_under_our_name():
    cudnn = importlib.import_module("minitorch_rx.backends.cudnn")
    assert cudnn is torch.backends.cudnn is mt.backends.cudnn
    before = (torch.backends.cudnn.benchmark, torch.backends.cudnn.deterministic)
    try:
        mt.backends.cudnn.benchmark = True
        mt.backends.cudnn.deterministic = True
        assert torch.backends.cudnn.benchmark and torch.backends.cudnn.deterministic
    finally:
        torch.backends.cudnn.benchmark, torch.backends.cudnn.deterministic = before


def test_pytorch_module_paths_import():
    for path in (
        "minitorch_rx.nn.init",
        "minitorch_rx.utils.data",
        "minitorch_rx.nn.utils.rnn",
        "minitorch_rx.cuda.amp",
    ):
        importlib.import_module(path)
    assert importlib.import_module("minitorch_rx.nn.init") is mt.init is mt.nn.init


def test_deprecated_init_names_warn_and_fill():
    w = mt.empty(3, 4)
    with pytest.warns(FutureWarning, match="`nn.init.xavier_uniform` is now deprecated in favor of"):
        assert mt.nn.init.xavier_uniform(w) is w
    with pytest.warns(FutureWarning):
        mt.nn.init.constant(w, 0.5)
    assert w.torch().eq(0.5).all()


# ------------------------------------------------------------------------ legacy constructors
def test_legacy_tensor_constructor_takes_data_or_sizes():
    assert mt.Tensor([1, 2]).dtype == torch.float32 and mt.Tensor([1, 2]).tolist() == [1.0, 2.0]
    assert mt.Tensor(2, 3).shape == (2, 3) and mt.Tensor(mt.Size([4])).shape == (4,)
    assert mt.Tensor().shape == (0,)
    assert mt.Tensor(np.array([1, 2])).dtype == torch.float32


def test_wrapping_a_torch_tensor_still_shares_memory():
    data = torch.zeros(2)
    t = mt.Tensor(data, requires_grad=True)
    assert t.torch() is data and t.requires_grad


def test_legacy_constructor_follows_the_default_dtype():
    before = torch.get_default_dtype()
    try:
        mt.set_default_dtype(torch.float64)
        assert mt.get_default_dtype() is torch.float64
        assert mt.Tensor([1.0]).dtype == torch.float64 and mt.tensor([1.0]).dtype == torch.float64
    finally:
        torch.set_default_dtype(before)


def test_legacy_typed_constructors_and_isinstance():
    assert mt.FloatTensor([1, 2]).dtype == torch.float32
    assert mt.LongTensor([1, 2]).dtype == torch.int64 and mt.LongTensor(2, 2).shape == (2, 2)
    assert mt.DoubleTensor(3).dtype == torch.float64 and mt.IntTensor([1]).dtype == torch.int32
    assert mt.BoolTensor([True]).dtype == torch.bool
    assert isinstance(mt.ones(1), mt.FloatTensor) and not isinstance(mt.ones(1), mt.LongTensor)
    assert isinstance(mt.zeros(1, dtype=torch.int64), mt.LongTensor) and not isinstance(torch.ones(1), mt.FloatTensor)


# ------------------------------------------------------------------------------ tensor queries
def test_is_tensor_numel_and_is_floating_point():
    assert mt.is_tensor(mt.ones(1)) and mt.is_tensor(torch.ones(1)) and not mt.is_tensor([1.0])
    assert mt.numel(mt.ones(2, 3)) == 6 and mt.is_floating_point(mt.ones(1))
    assert not mt.is_floating_point(mt.ones(1, dtype=torch.int64))


def test_from_numpy_shares_memory():
    array = np.zeros(3, dtype=np.float32)
    t = mt.from_numpy(array)
    array[0] = 7.0
    assert type(t) is mt.Tensor and t.tolist() == [7.0, 0.0, 0.0]


def test_as_tensor_copies_only_when_it_must():
    t = mt.ones(2, requires_grad=True)
    assert mt.as_tensor(t) is t
    cast = mt.as_tensor(t, dtype=torch.float64)
    cast.sum().backward()
    assert cast.dtype == torch.float64 and t.grad.tolist() == [1.0, 1.0]
    data = torch.zeros(2)
    assert mt.as_tensor(data).torch().data_ptr() == data.data_ptr()
    assert mt.as_tensor([1, 2]).dtype == torch.int64


# ------------------------------------------------------------------------- settings, compile
def test_compile_returns_the_model_and_notes_it_once(monkeypatch):
    monkeypatch.setattr(minitorch_rx.settings, "_compile_noted", False)
    model = mt.nn.Linear(2, 2)
    with pytest.warns(UserWarning, match="returns the model unchanged"):
        assert mt.compile(model) is model
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert mt.compile(model, mode="max-autotune") is model

        @mt.compile
        def f(v):
            return v

        @mt.compile(fullgraph=True)
        def g(v):
            return v

    assert f(1) == 1 and g(2) == 2


def test_thread_count_round_trips():
    before = mt.get_num_threads()
    try:
        mt.set_num_threads(1)
        assert torch.get_num_threads() == 1
    finally:
        mt.set_num_threads(before)


def test_print_options_reach_our_tensors():
    try:
        mt.set_printoptions(precision=2)
        assert repr(mt.tensor([1.23456])) == "tensor([1.23])"
    finally:
        mt.set_printoptions(profile="default")


def test_old_pytorch_spellings_still_work():
    x = mt.ones(2, 3)
    assert mt.autograd.Variable(x) is x
    v = mt.autograd.Variable(x, requires_grad=True)
    assert v.requires_grad and v.is_leaf
    assert isinstance(x, mt.FloatTensor) and not isinstance(x, mt.cuda.FloatTensor)
    assert x.resize_(3, 2).shape == (3, 2)
