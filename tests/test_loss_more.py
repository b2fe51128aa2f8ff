"""The second family of losses (BCE, smooth L1, Huber, KL divergence, Poisson and Gaussian NLL,
soft margin, multilabel soft margin, multi margin, margin ranking, hinge embedding, cosine
embedding, triplet margin, CTC), their modules, and the distance functions (normalize,
pairwise_distance, cosine_similarity) and gumbel_softmax, against torch.autograd in float64, with
every reduction; gradcheck on each."""

from __future__ import annotations

import warnings

import pytest
import torch
import torch.nn.functional as F
from helpers import compare_with_torch
from hypothesis import given
from hypothesis import strategies as st
from strategies import FUZZ, broadcast_shapes, shapes, tensors

import minitorch_rx as mt
import minitorch_rx.nn as nn
import minitorch_rx.nn.functional as mF

D = torch.float64
REDUCTIONS = ["none", "mean", "sum"]
pytestmark = pytest.mark.filterwarnings("ignore:reduction. 'mean' divides the total loss:UserWarning")


def randn(*shape: int, seed: int = 0) -> torch.Tensor:
    return torch.randn(*shape, dtype=D, generator=torch.Generator().manual_seed(seed))


def probabilities(*shape: int, seed: int = 1) -> torch.Tensor:
    return torch.rand(*shape, dtype=D, generator=torch.Generator().manual_seed(seed)) * 0.9 + 0.05


def signs(*shape: int, seed: int = 2) -> torch.Tensor:
    return (torch.randint(0, 2, shape, generator=torch.Generator().manual_seed(seed)) * 2 - 1).to(D)


WEIGHT = probabilities(4, seed=9)
CLASSES = torch.tensor([0, 3, 1, 2, 3])
#: name -> (kwargs -> mt function, kwargs -> torch function, inputs, extra keyword sets)
LOSSES = {
    "binary_cross_entropy": (
        mF.binary_cross_entropy,
        F.binary_cross_entropy,
        [probabilities(5, 4), probabilities(5, 4, seed=3)],
        [{}, {"weight": WEIGHT}],
    ),
    "smooth_l1_loss": (
        mF.smooth_l1_loss,
        F.smooth_l1_loss,
        [randn(5, 4), randn(5, 4, seed=3)],
        [{}, {"beta": 0.5}, {"beta": 0.0}],
    ),
    "huber_loss": (
        mF.huber_loss,
        F.huber_loss,
        [randn(5, 4), randn(5, 4, seed=3)],
        [{}, {"delta": 0.4}, {"delta": 2.0, "weight": probabilities(5, 4)}],
    ),
    "kl_div": (mF.kl_div, F.kl_div, [randn(5, 4).log_softmax(1), probabilities(5, 4)], [{}]),
    "kl_div_log_target": (
        mF.kl_div,
        F.kl_div,
        [randn(5, 4).log_softmax(1), randn(5, 4, seed=3).log_softmax(1)],
        [{"log_target": True}],
    ),
    "poisson_nll_loss": (
        mF.poisson_nll_loss,
        F.poisson_nll_loss,
        [randn(5, 4), probabilities(5, 4) * 5],
        [{}, {"full": True}],
    ),
    "poisson_nll_loss_of_rates": (
        mF.poisson_nll_loss,
        F.poisson_nll_loss,
        [probabilities(5, 4, seed=5) * 3, probabilities(5, 4) * 5],
        [{"log_input": False}, {"log_input": False, "full": True}],
    ),
    "gaussian_nll_loss": (
        mF.gaussian_nll_loss,
        F.gaussian_nll_loss,
        [randn(5, 4), randn(5, 4, seed=3), probabilities(5, 4)],
        [{}, {"full": True, "eps": 0.1}],
    ),
    "gaussian_nll_loss_one_var_per_sample": (
        mF.gaussian_nll_loss,
        F.gaussian_nll_loss,
        [randn(5, 4), randn(5, 4, seed=3), probabilities(5)],
        [{}],
    ),
    "multilabel_soft_margin_loss": (
        mF.multilabel_soft_margin_loss,
        F.multilabel_soft_margin_loss,
        [randn(5, 4), probabilities(5, 4).round()],
        [{}, {"weight": WEIGHT}],
    ),
    "margin_ranking_loss": (
        mF.margin_ranking_loss,
        F.margin_ranking_loss,
        [randn(6), randn(6, seed=3), signs(6)],
        [{}, {"margin": 0.3}],
    ),
    "cosine_embedding_loss": (
        mF.cosine_embedding_loss,
        F.cosine_embedding_loss,
        [randn(6, 3), randn(6, 3, seed=3), signs(6)],
        [{}, {"margin": 0.2}],
    ),
    "cosine_embedding_loss_unbatched": (
        mF.cosine_embedding_loss,
        F.cosine_embedding_loss,
        [randn(3), randn(3, seed=3), signs(1)[0]],
        [{"margin": -0.5}],
    ),
    "hinge_embedding_loss": (
        mF.hinge_embedding_loss,
        F.hinge_embedding_loss,
        [randn(6, 2), signs(6, 2)],
        [{}, {"margin": 0.5}],
    ),
    "triplet_margin_loss": (
        mF.triplet_margin_loss,
        F.triplet_margin_loss,
        [randn(6, 3), randn(6, 3, seed=3), randn(6, 3, seed=4)],
        [{}, {"margin": 2.0, "p": 1}, {"p": 3, "swap": True}],
    ),
}
#: losses whose target PyTorch refuses to differentiate: the target passes as a constant
CONSTANT_TARGET = {
    "soft_margin_loss": (mF.soft_margin_loss, F.soft_margin_loss, [randn(6, 3)], signs(6, 3), [{}]),
    "multi_margin_loss": (
        mF.multi_margin_loss,
        F.multi_margin_loss,
        [randn(5, 4)],
        CLASSES,
        [{}, {"p": 2, "margin": 0.7, "weight": WEIGHT}],
    ),
    "multi_margin_loss_unbatched": (mF.multi_margin_loss, F.multi_margin_loss, [randn(4)], CLASSES[1], [{}]),
}


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("name", LOSSES)
def test_loss_matches_torch_with_every_reduction(name, reduction):
    ours, theirs, inputs, variants = LOSSES[name]
    for kwargs in variants:
        compare_with_torch(
            lambda *t, kw=kwargs: ours(*t, reduction=reduction, **kw),
            lambda *t, kw=kwargs: theirs(*t, reduction=reduction, **kw),
            inputs,
        )


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("name", CONSTANT_TARGET)
def test_loss_with_a_constant_target_matches_torch(name, reduction):
    ours, theirs, inputs, target, variants = CONSTANT_TARGET[name]
    for kwargs in variants:
        compare_with_torch(
            lambda *t, kw=kwargs: ours(*t, target, reduction=reduction, **kw),
            lambda *t, kw=kwargs: theirs(*t, target, reduction=reduction, **kw),
            inputs,
        )


def test_kl_div_batchmean_divides_by_the_batch_size():
    compare_with_torch(
        lambda a, b: mF.kl_div(a, b, reduction="batchmean"),
        lambda a, b: F.kl_div(a, b, reduction="batchmean"),
        [randn(5, 4).log_softmax(1), probabilities(5, 4)],
    )


def test_kl_div_mean_warns_as_torch():
    with pytest.warns(UserWarning, match="'batchmean' divides only by the batch size"):
        mF.kl_div(mt.zeros(2, 2), mt.ones(2, 2))


@pytest.mark.parametrize("name", list(LOSSES) + list(CONSTANT_TARGET))
def test_gradcheck_passes(name):
    if name in LOSSES:
        ours, _, inputs, variants = LOSSES[name]
        constant = ()
    else:
        ours, _, inputs, target, variants = CONSTANT_TARGET[name]
        constant = (mt.tensor(target),)
    kwargs = variants[-1]
    leaves = [mt.tensor(t, requires_grad=True) for t in inputs]
    differentiable = [leaf for leaf in leaves if name not in ("cosine_embedding_loss", "hinge_embedding_loss")]
    assert mt.autograd.gradcheck(lambda *t: ours(*t, *constant, reduction="sum", **kwargs), differentiable or leaves)


@FUZZ
@given(data=st.data(), shape=shapes(max_rank=4))
def test_smooth_l1_and_huber_match_torch_on_generated_shapes(data, shape):
    x, y = data.draw(tensors(shape)), data.draw(tensors(shape))
    beta = data.draw(st.sampled_from([0.5, 1.0, 1.5]))
    compare_with_torch(
        lambda a, b: mF.smooth_l1_loss(a, b, beta=beta), lambda a, b: F.smooth_l1_loss(a, b, beta=beta), [x, y]
    )
    compare_with_torch(
        lambda a, b: mF.huber_loss(a, b, delta=beta), lambda a, b: F.huber_loss(a, b, delta=beta), [x, y]
    )


# ------------------------------------------------------------------------------- modules
MODULES = [
    ("BCELoss", {"weight": WEIGHT}, [probabilities(5, 4), probabilities(5, 4, seed=3)]),
    ("SmoothL1Loss", {"beta": 0.5, "reduction": "sum"}, [randn(5, 4), randn(5, 4, seed=3)]),
    ("HuberLoss", {"delta": 0.5}, [randn(5, 4), randn(5, 4, seed=3)]),
    ("KLDivLoss", {"reduction": "batchmean", "log_target": True}, [randn(5, 4), randn(5, 4, seed=3)]),
    ("PoissonNLLLoss", {"full": True}, [randn(5, 4), probabilities(5, 4) * 5]),
    ("GaussianNLLLoss", {"full": True}, [randn(5, 4), randn(5, 4, seed=3), probabilities(5, 4)]),
    ("SoftMarginLoss", {}, [randn(5, 4), signs(5, 4)]),
    ("MultiLabelSoftMarginLoss", {"weight": WEIGHT}, [randn(5, 4), probabilities(5, 4).round()]),
    ("MultiMarginLoss", {"p": 2, "weight": WEIGHT}, [randn(5, 4), CLASSES]),
    ("MarginRankingLoss", {"margin": 0.2}, [randn(6), randn(6, seed=3), signs(6)]),
    ("CosineEmbeddingLoss", {"margin": 0.1, "reduction": "none"}, [randn(6, 3), randn(6, 3, seed=3), signs(6)]),
    ("HingeEmbeddingLoss", {"margin": 0.5}, [randn(6, 2), signs(6, 2)]),
    ("TripletMarginLoss", {"margin": 0.5, "swap": True}, [randn(6, 3), randn(6, 3, seed=3), randn(6, 3, seed=4)]),
]


@pytest.mark.parametrize(("name", "kwargs", "inputs"), MODULES, ids=[m[0] for m in MODULES])
def test_module_matches_torch_module(name, kwargs, inputs):
    ours, theirs = getattr(nn, name)(**kwargs), getattr(torch.nn, name)(**kwargs)
    assert repr(ours) == repr(theirs)
    assert list(ours.state_dict()) == list(theirs.state_dict())
    constant = {"SoftMarginLoss", "MultiMarginLoss", "CosineEmbeddingLoss", "HingeEmbeddingLoss"}
    if name in constant:
        *inputs, target = inputs
        compare_with_torch(lambda *t: ours(*t, mt.tensor(target)), lambda *t: theirs(*t, target), inputs)
    else:
        compare_with_torch(ours, theirs, inputs)


def test_legacy_size_average_and_reduce_give_torchs_reduction():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert nn.SmoothL1Loss(size_average=False).reduction == torch.nn.SmoothL1Loss(size_average=False).reduction
        assert nn.BCELoss(reduce=False).reduction == "none"
        value = mF.kl_div(mt.zeros(2, 2), mt.ones(2, 2) / 2, size_average=False)
    assert value.item() == pytest.approx(F.kl_div(torch.zeros(2, 2), torch.ones(2, 2) / 2, reduction="sum").item())


# ----------------------------------------------------------------------------------- CTC
def _ctc_case(steps, batch, classes, longest, seed, blank=0):
    generator = torch.Generator().manual_seed(seed)
    log_probs = torch.randn(steps, batch, classes, dtype=D, generator=generator).log_softmax(2)
    labels = torch.tensor([c for c in range(classes) if c != blank])
    targets = labels[torch.randint(0, len(labels), (batch, longest), generator=generator)]
    target_lengths = torch.randint(0, longest + 1, (batch,), generator=generator)
    input_lengths = torch.randint(max(1, steps // 2), steps + 1, (batch,), generator=generator)
    return log_probs, targets, input_lengths, target_lengths


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("concatenated", [False, True], ids=["padded", "concatenated"])
@pytest.mark.parametrize("blank", [0, 2])
def test_ctc_loss_values_and_gradients_match_torch(reduction, concatenated, blank):
    log_probs, targets, input_lengths, target_lengths = _ctc_case(14, 4, 5, 5, seed=blank, blank=blank)
    if concatenated:
        targets = torch.cat([targets[b, : target_lengths[b]] for b in range(4)])

    lengths = tuple(input_lengths.tolist()), tuple(target_lengths.tolist())

    def ours(lp):
        return mF.ctc_loss(lp, mt.tensor(targets), *lengths, blank, reduction)

    def theirs(lp):
        return F.ctc_loss(lp, targets, *lengths, blank, reduction)

    compare_with_torch(ours, theirs, [log_probs], atol=1e-9, rtol=1e-7)


@pytest.mark.parametrize("zero_infinity", [False, True])
def test_ctc_loss_of_an_impossible_alignment_is_infinite_or_zeroed_as_torch(zero_infinity):
    log_probs, targets, _, _ = _ctc_case(6, 3, 4, 5, seed=3)
    targets[0] = torch.tensor([1, 1, 1, 1, 1])  # five repeats need 9 steps
    input_lengths, target_lengths = torch.tensor([6, 2, 5]), torch.tensor([5, 3, 0])
    lp_ours = mt.tensor(log_probs, requires_grad=True)
    lp_theirs = log_probs.clone().requires_grad_(True)
    ours = mF.ctc_loss(
        lp_ours, mt.tensor(targets), input_lengths, target_lengths, reduction="none", zero_infinity=zero_infinity
    )
    theirs = F.ctc_loss(
        lp_theirs, targets, input_lengths, target_lengths, reduction="none", zero_infinity=zero_infinity
    )
    torch.testing.assert_close(ours.torch(), theirs.detach())
    assert bool(torch.isinf(ours.torch()[:2]).all()) != zero_infinity
    ours.backward(torch.ones(3, dtype=D))
    theirs.backward(torch.ones(3, dtype=D))
    torch.testing.assert_close(lp_ours.grad.torch(), lp_theirs.grad, equal_nan=True)


def test_ctc_loss_unbatched_matches_torch():
    log_probs = randn(9, 4).log_softmax(1)
    targets = torch.tensor([1, 3, 3])
    compare_with_torch(
        lambda lp: mF.ctc_loss(lp, mt.tensor(targets), mt.tensor(9), mt.tensor(3), reduction="none"),
        lambda lp: F.ctc_loss(lp, targets, torch.tensor(9), torch.tensor(3), reduction="none"),
        [log_probs],
    )


def test_ctc_loss_gradcheck_through_log_softmax():
    _, targets, input_lengths, target_lengths = _ctc_case(7, 2, 4, 3, seed=5)
    logits = mt.tensor(randn(7, 2, 4, seed=6), requires_grad=True)
    assert mt.autograd.gradcheck(
        lambda z: mF.ctc_loss(z.log_softmax(2), mt.tensor(targets), input_lengths, target_lengths), [logits]
    )


def test_ctc_module_matches_torch_module():
    log_probs, targets, input_lengths, target_lengths = _ctc_case(10, 3, 6, 4, seed=7)
    ours, theirs = nn.CTCLoss(blank=5, zero_infinity=True), torch.nn.CTCLoss(blank=5, zero_infinity=True)
    targets = targets.clamp(max=4)
    assert repr(ours) == repr(theirs)
    compare_with_torch(
        lambda lp: ours(lp, mt.tensor(targets), input_lengths, target_lengths),
        lambda lp: theirs(lp, targets, input_lengths, target_lengths),
        [log_probs],
    )


# ------------------------------------------------------------------------- distances
@FUZZ
@given(data=st.data(), shapes_=broadcast_shapes(min_rank=1, max_rank=4, min_side=1))
def test_pairwise_distance_and_cosine_similarity_match_torch(data, shapes_):
    x1, x2 = data.draw(tensors(shapes_[0])), data.draw(tensors(shapes_[1]))
    p = data.draw(st.sampled_from([1.0, 2.0, 3.0, float("inf")]))
    keepdim = data.draw(st.booleans())
    compare_with_torch(
        lambda a, b: mF.pairwise_distance(a, b, p, keepdim=keepdim),
        lambda a, b: F.pairwise_distance(a, b, p, keepdim=keepdim),
        [x1, x2],
    )
    rank = max(len(shapes_[0]), len(shapes_[1]))
    dim = data.draw(st.integers(-rank, rank - 1))
    compare_with_torch(
        lambda a, b: mF.cosine_similarity(a, b, dim), lambda a, b: F.cosine_similarity(a, b, dim), [x1, x2]
    )


@FUZZ
@given(data=st.data(), shape=shapes(min_rank=1, max_rank=4))
def test_normalize_matches_torch(data, shape):
    x = data.draw(tensors(shape))
    p = data.draw(st.sampled_from([1.0, 2.0, 3.0, float("inf")]))
    dim = data.draw(st.integers(-len(shape), len(shape) - 1))
    if p == float("inf") and shape[dim] == 0:  # no identity for the max: both refuse
        with pytest.raises(RuntimeError, match="cannot compute the inf norm"):
            F.normalize(x, p, dim)
        with pytest.raises(RuntimeError, match="cannot compute the inf norm"):
            mF.normalize(mt.tensor(x), p, dim)
        return
    compare_with_torch(lambda t: mF.normalize(t, p, dim), lambda t: F.normalize(t, p, dim), [x])


def test_normalize_of_a_zero_vector_has_torchs_gradient():
    compare_with_torch(mF.normalize, F.normalize, [torch.zeros(2, 3, dtype=D)])


def test_distance_modules_match_torch():
    x1, x2 = randn(4, 5), randn(4, 5, seed=3)
    for ours, theirs in (
        (nn.CosineSimilarity(dim=0, eps=1e-6), torch.nn.CosineSimilarity(dim=0, eps=1e-6)),
        (nn.PairwiseDistance(p=1.5, keepdim=True), torch.nn.PairwiseDistance(p=1.5, keepdim=True)),
    ):
        assert repr(ours) == repr(theirs)
        compare_with_torch(ours, theirs, [x1, x2])


@pytest.mark.parametrize("function", ["normalize", "pairwise_distance", "cosine_similarity"])
def test_distance_gradcheck(function):
    inputs = [mt.tensor(randn(3, 4), requires_grad=True)]
    if function != "normalize":
        inputs.append(mt.tensor(randn(3, 4, seed=5), requires_grad=True))
    assert mt.autograd.gradcheck(getattr(mF, function), inputs)


# ---------------------------------------------------------------------------- gumbel softmax
@pytest.mark.parametrize("hard", [False, True])
def test_gumbel_softmax_draws_torchs_noise_and_straight_through_gradient(hard):
    logits = randn(4, 6)
    grad = randn(4, 6, seed=8)
    mt.manual_seed(11)
    ours_in = mt.tensor(logits, requires_grad=True)
    ours = mF.gumbel_softmax(ours_in, tau=0.7, hard=hard, dim=1)
    ours.backward(grad)
    torch.manual_seed(11)
    theirs_in = logits.clone().requires_grad_(True)
    theirs = F.gumbel_softmax(theirs_in, tau=0.7, hard=hard, dim=1)
    theirs.backward(grad)
    torch.testing.assert_close(ours.torch(), theirs.detach())
    torch.testing.assert_close(ours_in.grad.torch(), theirs_in.grad)
    if hard:
        assert ours.torch().sum(1).tolist() == [1.0] * 4


def test_hinge_embedding_loss_of_integer_tensors_is_torchs():
    """torch computes it in the input's integer dtype (the margin truncated); ours gave floats."""
    input, target = torch.tensor([-5, -2, 3]), torch.tensor([-1, -1, 1])
    for margin in (2.7, -0.5, -2.5):
        for reduction in ("none", "sum"):
            theirs = F.hinge_embedding_loss(input, target, margin=margin, reduction=reduction)
            ours = mt.nn.functional.hinge_embedding_loss(
                mt.tensor(input), mt.tensor(target), margin=margin, reduction=reduction
            )
            assert ours.dtype == theirs.dtype and torch.equal(ours.torch(), theirs)


@pytest.mark.parametrize("name", ["huber_loss", "soft_margin_loss", "binary_cross_entropy_with_logits"])
@pytest.mark.parametrize(
    "dtypes", [(torch.float32, torch.float64), (torch.float64, torch.float32)], ids=["f32-f64", "f64-f32"]
)
def test_a_loss_of_mixed_float_dtypes_gives_torchs_dtype_and_value(name, dtypes):
    """torch's kernels compute huber and soft margin in the input's dtype, BCE with logits in the
    target's; the input's gradient comes back in its own dtype."""
    generator = torch.Generator().manual_seed(0)
    data = torch.randn(5, dtype=dtypes[0], generator=generator)
    target = torch.rand(5, dtype=dtypes[1], generator=generator)
    ours = mt.tensor(data, requires_grad=True)
    out = getattr(mt.nn.functional, name)(ours, mt.tensor(target))
    theirs = data.clone().requires_grad_(True)
    expected = getattr(torch.nn.functional, name)(theirs, target)
    assert out.dtype == expected.dtype
    torch.testing.assert_close(out.torch(), expected.detach())
    out.backward()
    assert ours.grad.dtype == data.dtype
    if (
        name != "huber_loss"
    ):  # torch's own huber backward refuses mixed dtypes ("Found dtype Double but expected Float")
        expected.backward()
        torch.testing.assert_close(ours.grad.torch(), theirs.grad)
