"""Layers against their torch.nn twins in float64: state dicts both ways, outputs, gradients,
buffers, default initialization, and a small CNN trained side by side."""

from __future__ import annotations

import re

import pytest
import torch

import minitorch_rx as mt
import minitorch_rx.init as init
import minitorch_rx.nn as nn
import minitorch_rx.nn.functional as F

TOL = {"rtol": 1e-9, "atol": 1e-10}

# (constructor called with nn or torch.nn, input shape). Every layer is built the same way in
# both libraries, so the constructor signatures are checked too.
LAYERS = [
    (lambda lib: lib.Linear(5, 3), (4, 5)),
    (lambda lib: lib.Linear(5, 3, bias=False), (2, 4, 5)),
    (lambda lib: lib.Conv1d(4, 6, 3, stride=2, padding=1), (2, 4, 9)),
    (lambda lib: lib.Conv1d(4, 6, 4, padding="same", padding_mode="reflect"), (2, 4, 9)),
    (lambda lib: lib.Conv2d(4, 6, 3, padding=1), (2, 4, 7, 6)),
    (
        lambda lib: lib.Conv2d(4, 6, (3, 2), (2, 1), (1, 0), (1, 2), groups=2, bias=False),
        (2, 4, 7, 6),
    ),
    (lambda lib: lib.Conv2d(3, 4, 4, padding="same"), (2, 3, 6, 5)),
    (lambda lib: lib.Conv2d(3, 4, 3, padding="valid"), (2, 3, 6, 5)),
    (lambda lib: lib.Conv2d(3, 4, 3, padding=(1, 2), padding_mode="reflect"), (2, 3, 6, 5)),
    (lambda lib: lib.Conv2d(3, 4, 3, padding=(2, 1), padding_mode="replicate"), (2, 3, 6, 5)),
    (lambda lib: lib.Conv2d(3, 4, 3, padding=1, stride=2, padding_mode="circular"), (2, 3, 6, 5)),
    (lambda lib: lib.Conv3d(2, 4, 3, stride=2, padding=1), (2, 2, 5, 6, 4)),
    (
        lambda lib: lib.Conv3d(2, 2, (1, 3, 2), padding=(0, 1, 1), padding_mode="circular", groups=2),
        (1, 2, 3, 4, 4),
    ),
    (lambda lib: lib.BatchNorm1d(4), (8, 4)),
    (lambda lib: lib.BatchNorm1d(4, momentum=None), (8, 4, 5)),
    (lambda lib: lib.BatchNorm2d(3, affine=False), (4, 3, 5, 5)),
    (lambda lib: lib.BatchNorm2d(3, eps=1e-3, track_running_stats=False), (4, 3, 5, 5)),
    (lambda lib: lib.BatchNorm3d(3, momentum=0.3), (2, 3, 4, 3, 3)),
    (lambda lib: lib.LayerNorm((4, 5)), (3, 4, 5)),
    (lambda lib: lib.LayerNorm(5, elementwise_affine=False), (3, 5)),
    (lambda lib: lib.LayerNorm(5, bias=False), (2, 3, 5)),
    (lambda lib: lib.MaxPool1d(3, stride=2, padding=1), (2, 3, 9)),
    (lambda lib: lib.MaxPool2d(2), (2, 3, 6, 6)),
    (lambda lib: lib.MaxPool2d(3, stride=2, padding=1, ceil_mode=True), (2, 3, 8, 7)),
    (lambda lib: lib.MaxPool3d(2), (1, 2, 4, 4, 6)),
    (lambda lib: lib.AvgPool1d(3, stride=2, padding=1), (2, 3, 9)),
    (lambda lib: lib.AvgPool2d(3, stride=2, padding=1, count_include_pad=False), (2, 3, 7, 6)),
    (lambda lib: lib.AvgPool2d(2, ceil_mode=True), (2, 3, 5, 5)),
    (lambda lib: lib.AvgPool3d(2), (1, 2, 4, 4, 6)),
    (lambda lib: lib.AvgPool2d(3, 2, 1, divisor_override=4), (2, 3, 6, 6)),
    (lambda lib: lib.AdaptiveAvgPool1d(3), (2, 3, 8)),
    (lambda lib: lib.AdaptiveAvgPool2d((2, 3)), (2, 3, 7, 8)),
    (lambda lib: lib.AdaptiveAvgPool2d((None, 2)), (2, 3, 5, 7)),
    (lambda lib: lib.AdaptiveAvgPool3d(2), (1, 2, 5, 4, 3)),
    (lambda lib: lib.AdaptiveMaxPool2d((3, 2)), (2, 3, 7, 5)),
    (lambda lib: lib.Dropout(0.3), (6, 7)),
    (lambda lib: lib.Flatten(), (2, 3, 4, 5)),
    (lambda lib: lib.Flatten(0, 1), (2, 3, 4)),
    (lambda lib: lib.Identity(3, key="ignored"), (2, 3)),
    (lambda lib: lib.ReLU(), (3, 4)),
    (lambda lib: lib.LeakyReLU(0.2), (3, 4)),
    (lambda lib: lib.ELU(0.5), (3, 4)),
    (lambda lib: lib.GELU(), (3, 4)),
    (lambda lib: lib.GELU(approximate="tanh"), (3, 4)),
    (lambda lib: lib.SiLU(), (3, 4)),
    (lambda lib: lib.Sigmoid(), (3, 4)),
    (lambda lib: lib.Tanh(), (3, 4)),
    (lambda lib: lib.Softplus(2.0, 1.0), (3, 4)),
    (lambda lib: lib.Softmax(dim=1), (3, 4, 2)),
    (lambda lib: lib.LogSoftmax(dim=-1), (3, 4)),
]

STATEFUL = [case for case in LAYERS if len(case[0](torch.nn).state_dict()) > 0]


def _layer_id(case) -> str:
    return repr(case[0](torch.nn)).replace("\n", "")


def _torch_step(module: torch.nn.Module, x: torch.Tensor, seed: int, generator: torch.Generator):
    inp = x.clone().requires_grad_(True)
    torch.manual_seed(seed)
    out = module(inp)
    grad = torch.randn(out.shape, dtype=out.dtype, generator=generator)
    out.backward(grad)
    params = [p.grad for p in module.parameters()]
    return grad, [out.detach(), inp.grad, *params, *(b.clone() for b in module.buffers())]


def _our_step(module: nn.Module, x: torch.Tensor, seed: int, grad: torch.Tensor) -> list[torch.Tensor]:
    inp = mt.tensor(x, requires_grad=True)
    mt.manual_seed(seed)
    out = module(inp)
    out.backward(grad)
    params = [p.grad.torch() for p in module.parameters()]
    return [out.torch(), inp.grad.torch(), *params, *(b.torch().clone() for b in module.buffers())]


def assert_twins_agree(ours: nn.Module, theirs: torch.nn.Module, shape: tuple, training: bool, steps: int = 2):
    """Over ``steps`` forward/backward passes from the same state and the same seed: outputs,
    input and parameter gradients, and buffers (running statistics) agree."""
    ours.train(training)
    theirs.train(training)
    generator = torch.Generator().manual_seed(1)
    for step in range(steps):
        x = torch.randn(shape, dtype=torch.float64, generator=generator)
        ours.zero_grad()
        theirs.zero_grad()
        grad, expected = _torch_step(theirs, x, step, generator)
        got = _our_step(ours, x, step, grad)
        assert len(got) == len(expected)
        for a, b in zip(got, expected, strict=True):
            torch.testing.assert_close(a, b, **TOL)


def _twins(factory) -> tuple[nn.Module, torch.nn.Module]:
    """Our layer and torch's, float64, ours holding a copy of torch's state."""
    theirs = factory(torch.nn).double()
    ours = factory(nn).double()
    ours.load_state_dict(theirs.state_dict())
    return ours, theirs


@pytest.mark.filterwarnings("ignore:Using padding='same' with even kernel lengths")
@pytest.mark.parametrize("training", [True, False], ids=["train", "eval"])
@pytest.mark.parametrize(("factory", "shape"), LAYERS, ids=[_layer_id(c) for c in LAYERS])
def test_layer_matches_its_torch_twin(factory, shape, training):
    ours, theirs = _twins(factory)
    assert_twins_agree(ours, theirs, shape, training)


@pytest.mark.parametrize(("factory", "shape"), LAYERS, ids=[_layer_id(c) for c in LAYERS])
def test_layer_repr_matches_torch(factory, shape):
    assert repr(factory(nn)) == repr(factory(torch.nn))


@pytest.mark.parametrize(("factory", "shape"), STATEFUL, ids=[_layer_id(c) for c in STATEFUL])
def test_our_state_dict_loads_into_torch_with_identical_outputs(factory, shape):
    ours = factory(nn).double()
    theirs = factory(torch.nn).double()
    assert [(k, v.shape, v.dtype) for k, v in ours.state_dict().items()] == [
        (k, v.shape, v.dtype) for k, v in theirs.state_dict().items()
    ]
    theirs.load_state_dict({k: v.torch() for k, v in ours.state_dict().items()})
    for training in (True, False):
        assert_twins_agree(ours, theirs, shape, training, steps=1)


@pytest.mark.parametrize(
    "factory",
    [
        lambda lib: lib.Linear(7, 5),
        lambda lib: lib.Dense(3, 2) if lib is nn else lib.Linear(3, 2),
        lambda lib: lib.Conv1d(4, 6, 3),
        lambda lib: lib.Conv2d(4, 6, (3, 2), groups=2),
        lambda lib: lib.Conv3d(2, 3, 2, bias=False),
        lambda lib: lib.BatchNorm2d(5),
        lambda lib: lib.LayerNorm((2, 3)),
    ],
)
def test_default_initialization_draws_what_torch_draws_under_one_seed(factory):
    torch.manual_seed(11)
    expected = factory(torch.nn).state_dict()
    mt.manual_seed(11)
    got = factory(nn).state_dict()
    assert list(got) == list(expected)
    for key, value in got.items():
        assert torch.equal(value.torch(), expected[key]), key


def test_dense_is_linear():
    assert nn.Dense is nn.Linear


def test_functional_namespace_holds_the_ops_with_im2col_as_unfold():
    assert all(callable(getattr(F, name)) for name in F.__all__)
    assert F.im2col is F.unfold
    assert {"conv1d", "conv2d", "conv3d", "fold", "max_pool3d", "adaptive_avg_pool3d", "pad"} <= set(F.__all__)


def test_nn_init_is_minitorch_rx_init():
    assert nn.init is init


# ----------------------------------------------------------------------------- BatchNorm
def test_batchnorm_counts_batches_and_uses_a_cumulative_average_without_momentum():
    bn = nn.BatchNorm1d(3, momentum=None).double()
    batches = [torch.randn(6, 3, dtype=torch.float64) * (i + 1) + i for i in range(3)]
    for x in batches:
        bn(mt.tensor(x))
    assert bn.num_batches_tracked.item() == 3
    expected_mean = torch.stack([x.mean(0) for x in batches]).mean(0)
    torch.testing.assert_close(bn.running_mean.torch(), expected_mean, **TOL)


def test_batchnorm_in_eval_mode_leaves_running_statistics_alone():
    bn = nn.BatchNorm2d(2).eval()
    bn(mt.randn(3, 2, 4, 4))
    assert bn.num_batches_tracked.item() == 0
    assert bn.running_mean.torch().abs().sum().item() == 0.0


def test_batchnorm_without_running_stats_has_no_buffers():
    bn = nn.BatchNorm2d(2, affine=False, track_running_stats=False)
    assert list(bn.state_dict()) == [] and list(bn.buffers()) == []


@pytest.mark.parametrize(
    ("factory", "shape", "message"),
    [
        (nn.BatchNorm1d, (2, 3, 4, 5), "expected 2D or 3D input (got 4D input)"),
        (nn.BatchNorm2d, (2, 3, 4), "expected 4D input (got 3D input)"),
        (nn.BatchNorm3d, (2, 3, 4, 4), "expected 5D input (got 4D input)"),
    ],
)
def test_batchnorm_rejects_inputs_of_the_wrong_rank(factory, shape, message):
    with pytest.raises(ValueError, match=re.escape(message)):
        factory(3)(mt.randn(*shape))


def test_batchnorm_loads_an_old_state_dict_without_num_batches_tracked():
    sd = {k: v for k, v in torch.nn.BatchNorm1d(3).state_dict().items() if k != "num_batches_tracked"}
    assert nn.BatchNorm1d(3).load_state_dict(sd) == torch.nn.BatchNorm1d(3).load_state_dict(sd)


def test_batchnorm_version_2_state_dict_must_have_num_batches_tracked():
    sd = torch.nn.BatchNorm1d(3).state_dict()
    del sd["num_batches_tracked"]
    with pytest.raises(RuntimeError, match=re.escape('Missing key(s) in state_dict: "num_batches_tracked"')):
        nn.BatchNorm1d(3).load_state_dict(sd)


# ------------------------------------------------------------------------- other layers
def test_dropout_in_eval_mode_is_the_identity():
    x = mt.randn(4, 5)
    assert nn.Dropout(0.5).eval()(x) is x


def test_dropout_in_training_zeroes_a_fraction_p_and_rescales():
    y = nn.Dropout(0.4)(mt.ones(200_000)).torch()
    assert abs((y == 0).double().mean().item() - 0.4) < 0.01
    assert torch.allclose(y[y != 0], torch.tensor(1 / 0.6))


def test_dropout_rejects_a_probability_outside_zero_one():
    with pytest.raises(ValueError, match="dropout probability has to be between 0 and 1, but got 1.5"):
        nn.Dropout(1.5)


def test_swish_is_x_times_sigmoid_of_beta_x():
    x = torch.randn(3, 4, dtype=torch.float64)
    got = nn.Swish(beta=1.5)(mt.tensor(x)).torch()
    torch.testing.assert_close(got, x * torch.sigmoid(1.5 * x), **TOL)


def test_softmax_without_dim_warns_and_picks_torch_s_legacy_dim():
    x = torch.randn(3, 4, dtype=torch.float64)
    with pytest.warns(UserWarning, match="Implicit dimension choice for softmax has been deprecated"):
        got = nn.Softmax()(mt.tensor(x)).torch()
    torch.testing.assert_close(got, torch.softmax(x, 1), **TOL)


def test_conv_rejects_channels_not_divisible_by_groups():
    with pytest.raises(ValueError, match="in_channels must be divisible by groups"):
        nn.Conv2d(3, 4, 3, groups=2)


def test_conv_rejects_an_unknown_padding_mode():
    with pytest.raises(ValueError, match="padding_mode must be one of"):
        nn.Conv2d(3, 4, 3, padding_mode="mirror")


def test_conv_rejects_same_padding_with_stride():
    with pytest.raises(ValueError, match="padding='same' is not supported for strided convolutions"):
        nn.Conv1d(3, 4, 3, stride=2, padding="same")


# ------------------------------------------------------------------------------- losses
def _logits_and_classes(generator):
    logits = torch.randn(6, 4, dtype=torch.float64, generator=generator)
    classes = torch.tensor([0, 1, 3, 2, 1, 1])
    return logits, classes


CLASS_WEIGHT = torch.tensor([1.0, 2.0, 0.5, 1.0], dtype=torch.float64)
POS_WEIGHT = torch.full((4,), 3.0, dtype=torch.float64)

LOSSES = [
    (lambda lib: lib.CrossEntropyLoss(), "classes"),
    (
        lambda lib: lib.CrossEntropyLoss(weight=CLASS_WEIGHT, ignore_index=1, label_smoothing=0.1),
        "classes",
    ),
    (lambda lib: lib.CrossEntropyLoss(reduction="sum"), "probabilities"),
    (lambda lib: lib.NLLLoss(weight=CLASS_WEIGHT, reduction="sum"), "classes"),
    (lambda lib: lib.MSELoss(reduction="none"), "values"),
    (lambda lib: lib.L1Loss(), "values"),
    (lambda lib: lib.BCEWithLogitsLoss(weight=CLASS_WEIGHT, pos_weight=POS_WEIGHT), "binary"),
]


@pytest.mark.parametrize(("factory", "target_kind"), LOSSES, ids=[_layer_id((c[0], None)) + c[1] for c in LOSSES])
def test_loss_module_matches_torch(factory, target_kind):
    generator = torch.Generator().manual_seed(3)
    logits, classes = _logits_and_classes(generator)
    targets = {
        "classes": classes,
        "probabilities": torch.softmax(torch.randn(6, 4, dtype=torch.float64, generator=generator), 1),
        "values": torch.randn(6, 4, dtype=torch.float64, generator=generator),
        "binary": torch.randint(0, 2, (6, 4), generator=generator).double(),
    }
    target = targets[target_kind]
    if isinstance(factory(torch.nn), torch.nn.NLLLoss):
        logits = torch.log_softmax(logits, 1)
    theirs, ours = factory(torch.nn), factory(nn)
    assert list(ours.state_dict()) == list(theirs.state_dict())
    x = logits.clone().requires_grad_(True)
    expected = theirs(x, target)
    grad = torch.randn(expected.shape, dtype=torch.float64, generator=generator)
    expected.backward(grad)
    ours_x = mt.tensor(logits, requires_grad=True)
    got = ours(ours_x, mt.tensor(target))
    got.backward(grad)
    torch.testing.assert_close(got.torch(), expected.detach(), **TOL)
    torch.testing.assert_close(ours_x.grad.torch(), x.grad, **TOL)


# ----------------------------------------------------------------------- a small CNN
def small_cnn(lib):
    return lib.Sequential(
        lib.Conv2d(1, 4, 3, padding=1),
        lib.BatchNorm2d(4),
        lib.ReLU(inplace=True),
        lib.MaxPool2d(2),
        lib.Conv2d(4, 8, 3, padding=1, padding_mode="reflect", bias=False),
        lib.BatchNorm2d(8, momentum=None),
        lib.ReLU(),
        lib.AdaptiveAvgPool2d(2),
        lib.Flatten(),
        lib.Dropout(0.25),
        lib.Linear(32, 10),
    )


CNN_INPUT = (8, 1, 12, 12)


@pytest.mark.parametrize("training", [True, False], ids=["train", "eval"])
def test_small_cnn_loads_torch_state_dict_with_identical_outputs(training):
    torch.manual_seed(0)
    ours, theirs = _twins(small_cnn)
    assert_twins_agree(ours, theirs, CNN_INPUT, training, steps=3)


@pytest.mark.parametrize("training", [True, False], ids=["train", "eval"])
def test_small_cnn_state_dict_loads_into_torch_with_identical_outputs(training):
    mt.manual_seed(0)
    ours = small_cnn(nn).double()
    ours.train()
    for _ in range(2):  # move the running statistics away from their defaults
        ours(mt.randn(*CNN_INPUT, dtype=torch.float64))
    theirs = small_cnn(torch.nn).double()
    theirs.load_state_dict({k: v.torch() for k, v in ours.state_dict().items()})
    assert_twins_agree(ours, theirs, CNN_INPUT, training, steps=3)


def test_small_cnn_trains_step_for_step_with_its_torch_twin():
    torch.manual_seed(0)
    ours, theirs = _twins(small_cnn)
    ours.train()
    theirs.train()
    lr = 0.1
    generator = torch.Generator().manual_seed(5)
    our_loss_fn, their_loss_fn = nn.CrossEntropyLoss(), torch.nn.CrossEntropyLoss()
    for step in range(5):
        x = torch.randn(CNN_INPUT, dtype=torch.float64, generator=generator)
        y = torch.randint(0, 10, (CNN_INPUT[0],), generator=generator)
        torch.manual_seed(step)
        their_loss = their_loss_fn(theirs(x), y)
        theirs.zero_grad()
        their_loss.backward()
        with torch.no_grad():
            for p in theirs.parameters():
                p -= lr * p.grad
        mt.manual_seed(step)
        our_loss = our_loss_fn(ours(mt.tensor(x)), mt.tensor(y))
        ours.zero_grad()
        our_loss.backward()
        for p in ours.parameters():
            p.data -= lr * p.grad.data
        torch.testing.assert_close(our_loss.torch(), their_loss.detach(), **TOL)
        theirs_now = theirs.state_dict()
        for key, value in ours.state_dict().items():
            torch.testing.assert_close(value.torch(), theirs_now[key], **TOL, msg=f"step {step}: {key} differs")
