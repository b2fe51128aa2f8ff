"""torch's ecosystem meets our engine (issue 35): torch.distributions, torch.autograd.Function,
torchmetrics, timm and torchvision models trained by our optimizers, torch Module.to() on our
Parameters, and what is refused (torch's forward-mode AD, its legacy vmap, torch.compile), each
against the same computation on torch tensors in float64."""

from __future__ import annotations

import copy

import pytest
import torch

import minitorch_rx as mt

D = torch.distributions
F64 = torch.float64


def data(*shape: int, seed: int = 0) -> torch.Tensor:
    return torch.randn(*shape, dtype=F64, generator=torch.Generator().manual_seed(seed))


def pairs(*tensors: torch.Tensor) -> tuple[list[mt.Tensor], list[torch.Tensor]]:
    """Each tensor as our leaf and as torch's, both requiring grad."""
    return (
        [mt.from_torch(t.clone(), requires_grad=True) for t in tensors],
        [t.clone().requires_grad_(True) for t in tensors],
    )


def assert_same_run(fn, *tensors: torch.Tensor, seed: int = 0) -> None:
    """``fn`` on our leaves and on torch's (the same random stream): our recorded result equals
    torch's, and backward of a weighted sum gives each leaf torch's gradient."""
    ours, theirs = pairs(*tensors)
    torch.manual_seed(seed)
    ref = fn(*theirs)
    torch.manual_seed(seed)
    out = fn(*ours)
    assert type(out) is mt.Tensor and out.grad_fn is not None
    torch.testing.assert_close(out.torch(), ref.detach(), rtol=1e-12, atol=1e-12)
    weights = torch.linspace(-1, 2, ref.numel(), dtype=F64).reshape(ref.shape)
    (ref * weights).sum().backward()
    (out * weights).sum().backward()
    for mine, reference in zip(ours, theirs):
        if reference.grad is None:
            assert mine.grad is None
        else:
            torch.testing.assert_close(mine.grad.torch(), reference.grad, rtol=1e-10, atol=1e-12)


# ------------------------------------------------------------------ torch.distributions
def scale_tril(s):
    return torch.diag(s.exp()) + 0.1 * torch.ones(3, 3, dtype=F64).tril(-1)


def low_rank(s):
    return s.reshape(3, 1) * torch.tensor([[1.0, -0.5]], dtype=F64)


X3 = data(3, seed=5)
UNIT = torch.tensor([0.2, 0.5, 0.7], dtype=F64)
SIMPLEX = torch.tensor([0.2, 0.5, 0.3], dtype=F64)
DISTRIBUTIONS = {
    "Normal.log_prob": lambda a, b: D.Normal(a, b.exp()).log_prob(X3),
    "Normal.rsample": lambda a, b: D.Normal(a, b.exp()).rsample((2,)),
    "Normal.entropy": lambda a, b: D.Normal(a, b.exp()).entropy(),
    "Normal.cdf": lambda a, b: D.Normal(a, b.exp()).cdf(X3),
    "Normal.icdf": lambda a, b: D.Normal(a, b.exp()).icdf(UNIT),
    "kl(Normal, Normal)": lambda a, b: D.kl_divergence(D.Normal(a, b.exp()), D.Normal(2 * a, b.exp() + 1)),
    "Categorical.log_prob": lambda a, b: D.Categorical(logits=a).log_prob(torch.tensor([0, 1, 2])),
    "Categorical(probs).entropy": lambda a, b: D.Categorical(probs=(a * b).softmax(-1)).entropy(),
    "kl(Categorical, Categorical)": lambda a, b: D.kl_divergence(
        D.Categorical(logits=a), D.Categorical(probs=b.softmax(-1))
    ),
    "Bernoulli.log_prob": lambda a, b: D.Bernoulli(logits=a).log_prob(torch.tensor([0.0, 1.0, 1.0], dtype=F64)),
    "kl(Bernoulli, Bernoulli)": lambda a, b: D.kl_divergence(D.Bernoulli(logits=a), D.Bernoulli(probs=b.sigmoid())),
    "MultivariateNormal.log_prob": lambda a, b: D.MultivariateNormal(a, scale_tril=scale_tril(b)).log_prob(X3),
    "MultivariateNormal.rsample": lambda a, b: D.MultivariateNormal(a, scale_tril=scale_tril(b)).rsample((2,)),
    "MultivariateNormal(covariance).entropy": lambda a, b: D.MultivariateNormal(
        a, covariance_matrix=torch.diag(b.exp()) + 0.1
    ).entropy(),
    "kl(MultivariateNormal, MultivariateNormal)": lambda a, b: D.kl_divergence(
        D.MultivariateNormal(a, covariance_matrix=torch.diag(b.exp()) + 0.1),
        D.MultivariateNormal(torch.zeros(3, dtype=F64), torch.eye(3, dtype=F64)),
    ),
    "Beta.log_prob": lambda a, b: D.Beta(a.exp(), b.exp()).log_prob(UNIT),
    "Beta.rsample": lambda a, b: D.Beta(a.exp(), b.exp()).rsample((2,)),
    "Beta.entropy": lambda a, b: D.Beta(a.exp(), b.exp()).entropy(),
    "Gamma.log_prob": lambda a, b: D.Gamma(a.exp(), b.exp()).log_prob(UNIT),
    "Gamma.rsample": lambda a, b: D.Gamma(a.exp(), b.exp()).rsample((2,)),
    "kl(Gamma, Gamma)": lambda a, b: D.kl_divergence(D.Gamma(a.exp(), b.exp()), D.Gamma(b.exp(), a.exp())),
    "Dirichlet.log_prob": lambda a, b: D.Dirichlet(a.exp()).log_prob(SIMPLEX),
    "Dirichlet.rsample": lambda a, b: D.Dirichlet(a.exp() + b.exp()).rsample(),
    "kl(Dirichlet, Dirichlet)": lambda a, b: D.kl_divergence(D.Dirichlet(a.exp()), D.Dirichlet(b.exp())),
    "Laplace.rsample": lambda a, b: D.Laplace(a, b.exp()).rsample(),
    "Exponential.rsample": lambda a, b: D.Exponential(b.exp()).rsample((2,)),
    "Uniform.rsample": lambda a, b: D.Uniform(a, a + b.exp()).rsample(),
    "LogNormal.rsample": lambda a, b: D.LogNormal(a, b.exp()).rsample(),
    "RelaxedBernoulli.rsample": lambda a, b: D.RelaxedBernoulli(torch.tensor(0.5, dtype=F64), logits=a).rsample(),
    "Independent(Normal).log_prob": lambda a, b: D.Independent(D.Normal(a, b.exp()), 1).log_prob(X3),
    "TransformedDistribution(tanh).log_prob": lambda a, b: D.TransformedDistribution(
        D.Normal(a, b.exp()), [D.transforms.TanhTransform()]
    ).log_prob(UNIT - 0.4),
    "StudentT.log_prob": lambda a, b: D.StudentT(3.0, a, b.exp()).log_prob(X3),
    "Poisson.log_prob": lambda a, b: D.Poisson(b.exp()).log_prob(torch.tensor([0.0, 2.0, 3.0], dtype=F64)),
    "LowRankMultivariateNormal.rsample": lambda a, b: D.LowRankMultivariateNormal(a, low_rank(b), b.exp()).rsample(),
    "kl(LowRankMultivariateNormal, MultivariateNormal)": lambda a, b: D.kl_divergence(
        D.LowRankMultivariateNormal(a, low_rank(b), b.exp()),
        D.MultivariateNormal(torch.zeros(3, dtype=F64), torch.eye(3, dtype=F64)),
    ),
    "Wishart.rsample": lambda a, b: D.Wishart(df=torch.tensor(4.0, dtype=F64), scale_tril=scale_tril(b)).rsample(),
    "kl(Beta, Beta)": lambda a, b: D.kl_divergence(D.Beta(a.exp(), b.exp()), D.Beta(b.exp(), a.exp())),
    "StudentT.rsample": lambda a, b: D.StudentT(a.exp() + 2, a, b.exp()).rsample(),
    "FisherSnedecor.rsample": lambda a, b: D.FisherSnedecor(a.exp() + 2, b.exp() + 2).rsample(),
    "Kumaraswamy.rsample": lambda a, b: D.Kumaraswamy(a.exp(), b.exp()).rsample(),
    "RelaxedOneHotCategorical.rsample": lambda a, b: D.RelaxedOneHotCategorical(
        torch.tensor(0.7, dtype=F64), logits=a
    ).rsample(),
    "ContinuousBernoulli.rsample": lambda a, b: D.ContinuousBernoulli(logits=a).rsample(),
    "VonMises.log_prob": lambda a, b: D.VonMises(a, b.exp()).log_prob(UNIT),
    "NegativeBinomial.log_prob": lambda a, b: D.NegativeBinomial(3.0, logits=a).log_prob(  # F.logsigmoid
        torch.tensor([0.0, 2.0, 3.0], dtype=F64)
    ),
    "MixtureSameFamily.log_prob": lambda a, b: D.MixtureSameFamily(
        D.Categorical(logits=a), D.Normal(a, b.exp())
    ).log_prob(data(4, 1, seed=7)),
}


@pytest.mark.filterwarnings("ignore:Singular sample detected")  # torch's Wishart.rsample, on torch's tensors too
@pytest.mark.parametrize("name", list(DISTRIBUTIONS))
def test_distribution_on_our_tensors_records_torchs_values_and_gradients(name):
    assert_same_run(DISTRIBUTIONS[name], data(3), data(3, seed=1))


def test_distribution_samples_carry_no_gradient_and_validation_errors_are_torchs():
    loc, scale = mt.zeros(3, requires_grad=True), mt.ones(3, requires_grad=True)
    sample = D.Normal(loc, scale).sample((2,))
    assert type(sample) is mt.Tensor and not sample.requires_grad and sample.shape == (2, 3)
    for tensor in (torch.tensor, mt.tensor):
        with pytest.raises(ValueError, match="Expected parameter scale .* to satisfy the constraint GreaterThan"):
            D.Normal(tensor([0.0, 1.0]), tensor([1.0, -1.0]))
        with pytest.raises(ValueError, match=r"Expected value argument .* within the support \(Interval"):
            D.Beta(tensor([1.0]), tensor([1.0])).log_prob(tensor([2.0]))


def test_minitorch_rx_distributions_is_torchs():
    assert mt.distributions.Normal is D.Normal and mt.distributions.kl_divergence is D.kl_divergence
    assert set(mt.distributions.__all__) == set(D.__all__)


# ------------------------------------------------------------------ torch.autograd.Function
class StraightThroughRound(torch.autograd.Function):
    """Rounds, and passes the gradient through scaled: only its own backward gives this gradient."""

    @staticmethod
    def forward(ctx, x, scale=3.0):
        ctx.scale = scale
        return x.round()

    @staticmethod
    def backward(ctx, grad):
        return grad * ctx.scale, None


class ScaledExp(torch.autograd.Function):
    """The ``setup_context`` form: ``forward`` takes no ctx."""

    @staticmethod
    def forward(x, y):
        return x.exp() * y, x.exp()

    @staticmethod
    def setup_context(ctx, inputs, output):
        ctx.save_for_backward(inputs[1], output[1])
        ctx.mark_non_differentiable(output[1])

    @staticmethod
    def backward(ctx, grad, _):
        y, ex = ctx.saved_tensors
        return grad * ex * y, grad * ex


@pytest.mark.parametrize(
    "fn",
    [
        lambda x, y: StraightThroughRound.apply(x * 2) * y,
        lambda x, y: StraightThroughRound.apply(x, scale=-1.5) + y,
        lambda x, y: ScaledExp.apply(x, y)[0],
    ],
    ids=["ctx", "keyword", "setup_context"],
)
def test_torch_autograd_function_on_our_tensors_runs_its_own_backward_on_our_engine(fn):
    assert_same_run(fn, data(4), data(4, seed=1))
    x, y = mt.tensor([0.5]), mt.tensor([2.0])
    out = fn(x, y)  # nothing requires grad: torch's apply, as on torch tensors
    assert isinstance(out, mt.Tensor) and not out.requires_grad


def test_torch_autograd_function_records_under_its_name_and_its_mark_non_differentiable():
    x = mt.tensor([1.0, 2.0], dtype=mt.float64, requires_grad=True)
    out, ex = ScaledExp.apply(x, mt.ones(2, dtype=mt.float64))
    assert type(out.grad_fn).__name__ == "ScaledExpBackward" and not ex.requires_grad


@pytest.mark.parametrize("name", ["SwishMe", "MishMe", "HardSwishMe", "HardSigmoidMe"])
def test_timms_memory_efficient_activations_run_their_torch_functions_on_our_engine(name):
    activations_me = pytest.importorskip("timm.layers.activations_me", reason="timm is not installed")
    layer = getattr(activations_me, name)()  # each a torch.autograd.Function with its own backward
    assert_same_run(lambda x, y: layer(x * 3) * y, data(6), data(6, seed=1))


# ------------------------------------------------------------------ torchmetrics
try:
    import torchmetrics as tm
except ImportError:
    tm = None
needs_torchmetrics = pytest.mark.skipif(tm is None, reason="torchmetrics is not installed")


def classifier_outputs():
    gen = torch.Generator().manual_seed(0)
    return torch.randn(20, 4, dtype=F64, generator=gen), torch.randint(0, 4, (20,), generator=gen)


METRICS = {
    "Accuracy": lambda: tm.Accuracy(task="multiclass", num_classes=4),
    "F1Score": lambda: tm.F1Score(task="multiclass", num_classes=4, average="macro"),
    "Precision": lambda: tm.Precision(task="multiclass", num_classes=4),
    "AUROC": lambda: tm.AUROC(task="multiclass", num_classes=4),
    "ConfusionMatrix": lambda: tm.ConfusionMatrix(task="multiclass", num_classes=4),
    "MeanSquaredError": lambda: tm.MeanSquaredError(),
    "MeanAbsoluteError": lambda: tm.MeanAbsoluteError(),
    "R2Score": lambda: tm.R2Score(),
    "PearsonCorrCoef": lambda: tm.PearsonCorrCoef(),
    "MetricCollection": lambda: tm.MetricCollection(
        [tm.Accuracy(task="multiclass", num_classes=4), tm.F1Score(task="multiclass", num_classes=4)]
    ),
}
REGRESSION = {"MeanSquaredError", "MeanAbsoluteError", "R2Score", "PearsonCorrCoef"}


@needs_torchmetrics
@pytest.mark.parametrize("name", list(METRICS))
def test_torchmetrics_updated_from_our_model_outputs_computes_torchs_value(name):
    logits, target = classifier_outputs()
    if name in REGRESSION:
        logits, target = logits[:, 0], logits[:, 1] * 0.5 + logits[:, 2]
    ours, theirs = METRICS[name](), METRICS[name]()
    weight, weight_ref = mt.ones(1, dtype=mt.float64, requires_grad=True), torch.ones(1, dtype=F64, requires_grad=True)
    for rows in (slice(0, 12), slice(12, 20)):  # two batches, each by update() then forward()
        # model outputs, recorded (ours on our engine, torch's on torch's)
        preds, preds_ref = mt.tensor(logits[rows]) * weight, logits[rows] * weight_ref
        target_rows = mt.tensor(target[rows])
        ours.update(preds, target_rows)
        theirs.update(preds_ref, target[rows])
        if name in REGRESSION:  # float states: forward() of outputs that require grad is refused, see below
            preds, preds_ref = preds.detach(), preds_ref.detach()
        assert_same_values(ours(preds, target_rows), theirs(preds_ref, target[rows]))
    assert_same_values(ours.compute(), theirs.compute())
    assert weight.grad is None


def assert_same_values(ours, theirs) -> None:
    if isinstance(theirs, dict):
        assert ours.keys() == theirs.keys()
        for key in theirs:
            assert_same_values(ours[key], theirs[key])
        return
    # a metric's state, and what compute() makes of it, may be torch's own tensor
    assert isinstance(ours, torch.Tensor) and ours.requires_grad == theirs.requires_grad
    torch.testing.assert_close(mt.as_tensor(ours).torch(), theirs.detach(), rtol=1e-12, atol=0)


@needs_torchmetrics
def test_torchmetrics_forward_of_outputs_that_require_grad_into_a_float_state_is_refused():
    # torchmetrics adds the batch's (recorded) value into its torch.Tensor state in place: a torch
    # tensor cannot take our history, and dropping it would hand back a value without its gradient.
    metric = tm.MeanSquaredError()
    preds = mt.tensor([0.5, 1.0], requires_grad=True) * 2
    with pytest.raises(RuntimeError, match="torch.Tensor.add_ on a torch.Tensor with minitorch_rx tensors"):
        metric(preds, mt.tensor([1.0, 1.0]))


# ------------------------------------------------------------------ library models, our optimizers
def installed(name: str):
    try:
        return __import__(name)
    except ImportError:
        return None


timm, torchvision = installed("timm"), installed("torchvision")
MODELS = {
    # a timm model (timm's own small test ResNet: its BatchNorm, its create_model) trained by our Adam
    "timm test_resnet, Adam": (timm, lambda: timm.create_model("test_resnet", num_classes=10), "Adam", {"lr": 1e-3}),
    "torchvision VisionTransformer, AdamW": (  # torch.nn.MultiheadAttention inside
        torchvision,
        lambda: torchvision.models.VisionTransformer(
            image_size=32, patch_size=8, num_layers=2, num_heads=2, hidden_dim=16, mlp_dim=32, num_classes=10
        ),
        "AdamW",
        {"lr": 1e-3},
    ),
    "torchvision resnet18, SGD": (
        torchvision,
        lambda: torchvision.models.resnet18(num_classes=10),
        "SGD",
        {"lr": 0.05, "momentum": 0.9, "weight_decay": 1e-4},
    ),
}


@pytest.mark.parametrize("name", list(MODELS))
def test_library_model_trained_by_our_optimizer_on_our_engine_as_by_torch(name):
    library, make, optimizer, options = MODELS[name]
    if library is None:
        pytest.skip(f"{name.split()[0]} is not installed")
    torch.manual_seed(0)
    ours = make().double()
    theirs = copy.deepcopy(ours)
    opt = getattr(mt.optim, optimizer)(ours.parameters(), **options)
    opt_ref = getattr(torch.optim, optimizer)(theirs.parameters(), **options)
    gen = torch.Generator().manual_seed(1)
    x, y = torch.randn(4, 3, 32, 32, dtype=F64, generator=gen), torch.randint(0, 10, (4,), generator=gen)
    losses = []
    for _ in range(3):
        opt.zero_grad()
        out = ours(mt.tensor(x))  # records on our engine; the torch Parameters are leaves of our graph
        assert type(out) is mt.Tensor and out.grad_fn is not None
        loss = mt.nn.functional.cross_entropy(out, mt.tensor(y))
        loss.backward()
        opt.step()
        opt_ref.zero_grad()
        loss_ref = torch.nn.functional.cross_entropy(theirs(x), y)  # torch's autograd, torch.optim
        loss_ref.backward()
        opt_ref.step()
        assert abs(loss.item() - loss_ref.item()) <= 1e-10
        losses.append(loss.item())
    assert losses[-1] < losses[0]
    assert all(type(p) is torch.nn.Parameter and p.grad is not None for p in ours.parameters())
    # weights and BatchNorm's running statistics (measured after 3 steps: 1.2e-11 at most, from
    # the order of float64 sums in our batch_norm and torch's kernel, compounding through the layers)
    for (key, p), q in zip(ours.state_dict().items(), theirs.state_dict().values()):
        if p.is_floating_point():
            assert (p - q).abs().max() <= 1e-10, key
        else:  # BatchNorm's num_batches_tracked
            assert torch.equal(p, q), key


ATTENTION = {
    "masks": {},
    "batch_first": {"batch_first": True},
    "no bias": {"bias": False},
    "bias_kv": {"add_bias_kv": True},
    "zero_attn": {"add_zero_attn": True},
    "kdim, vdim": {"kdim": 3, "vdim": 5},
}


@pytest.mark.filterwarnings("ignore:Support for mismatched key_padding_mask and attn_mask is deprecated")
@pytest.mark.parametrize("name", list(ATTENTION))
def test_torch_multihead_attention_on_our_tensors_records_torchs_values_and_gradients(name):
    # torch's module calls torch.nn.functional.multi_head_attention_forward: ours runs
    options = ATTENTION[name]
    torch.manual_seed(0)
    ours = torch.nn.MultiheadAttention(8, 2, **options).double()
    theirs = copy.deepcopy(ours)
    q, k, v = data(4, 3, 8), data(5, 3, options.get("kdim", 8), seed=1), data(5, 3, options.get("vdim", 8), seed=2)
    if options.get("batch_first"):
        q, k, v = (t.transpose(0, 1).contiguous() for t in (q, k, v))
    padding = torch.tensor([[False, True, False, False, True]] * 3)
    attn_mask = data(4, 5, seed=3)
    (x, key), (x_ref, key_ref) = pairs(q, k)
    out, weights = ours(x, key, mt.tensor(v), key_padding_mask=mt.tensor(padding), attn_mask=mt.tensor(attn_mask))
    ref, weights_ref = theirs(x_ref, key_ref, v, key_padding_mask=padding, attn_mask=attn_mask)
    assert type(out) is mt.Tensor and out.grad_fn is not None
    torch.testing.assert_close(out.torch(), ref.detach())
    torch.testing.assert_close(weights.torch(), weights_ref.detach())
    (out**2).sum().backward()
    (ref**2).sum().backward()
    for mine, reference in [(x, x_ref), (key, key_ref), *zip(ours.parameters(), theirs.parameters())]:
        torch.testing.assert_close(mt.as_tensor(mine.grad).torch(), reference.grad)


# ------------------------------------------------------------------ torch's Module.to() on our Parameters
@pytest.mark.parametrize(
    "convert",
    [lambda m: m.double(), lambda m: m.to(torch.float64), lambda m: m.to("cpu", torch.float64)],
    ids=["double", "to(dtype)", "to(device, dtype)"],
)
def test_torch_module_to_converts_our_parameter_in_place_keeping_it_ours(convert):
    layer = torch.nn.Linear(3, 2)
    weight = layer.weight = mt.nn.Parameter(mt.randn(2, 3))
    (layer(mt.randn(4, 3)) ** 2).sum().backward()  # a grad, converted too
    assert convert(layer) is layer
    assert layer.weight is weight and type(weight) is mt.nn.Parameter and weight.requires_grad
    assert weight.dtype == weight.grad.dtype == layer.bias.dtype == torch.float64
    with torch._C.DisableTorchFunctionSubclass():  # what torch's kernels see of the instance itself
        assert weight._data.dtype == torch.Tensor.dtype.__get__(weight) == torch.float64
    x = mt.randn(4, 3, dtype=mt.float64)
    out = layer(x)
    assert type(out) is mt.Tensor and out.dtype == torch.float64
    torch.testing.assert_close(out.torch(), x.torch() @ weight.torch().T + layer.bias.detach())
    layer.float()
    assert layer.weight is weight and weight.dtype == torch.float32


# ------------------------------------------------------------------ devices
def test_torch_module_on_another_device_than_our_input_raises_torchs_device_error():
    # no GPU here: the "meta" device gives torch's own check and wording, for torch's tensors and ours
    layer = torch.nn.Linear(3, 2, device="meta")
    for x in (torch.randn(4, 3, requires_grad=True), mt.randn(4, 3, requires_grad=True), mt.randn(4, 3)):
        with pytest.raises(RuntimeError, match="Tensor on device meta is not on the expected device cpu!"):
            layer(x)
    with pytest.raises(RuntimeError, match="Tensor on device cpu is not on the expected device meta!"):
        torch.nn.Linear(3, 2)(mt.randn(4, 3, device="meta", requires_grad=True))


# ------------------------------------------------------------------ what is refused, clearly
def test_torch_forward_mode_ad_on_our_tensors_is_refused_naming_minitorch_rx_func():
    import torch.autograd.forward_ad as fwAD

    with fwAD.dual_level():
        with pytest.raises(
            NotImplementedError, match=r"torch._make_dual: torch's forward-mode AD .* minitorch_rx.func.jvp"
        ):
            fwAD.make_dual(mt.tensor([1.0, 2.0]), mt.ones(2))
        dual = fwAD.make_dual(torch.tensor([1.0, 2.0]), torch.ones(2))
        with pytest.raises(NotImplementedError, match="torch._unpack_dual: torch's forward-mode AD"):
            fwAD.unpack_dual(dual * mt.tensor([3.0, 4.0]))
    with pytest.raises(NotImplementedError, match=r"torch's vmap .* minitorch_rx.func.vmap, jacrev or jacfwd"):
        torch.autograd.functional.jacobian(torch.sin, mt.tensor([1.0, 2.0]), strategy="forward-mode", vectorize=True)


@pytest.mark.parametrize(
    "transform",
    [
        lambda f, x, v: torch.func.jvp(f, (x,), (v,)),
        lambda f, x, v: torch.autograd.functional.jvp(f, x, v, create_graph=True),
        lambda f, x, v: (f(x), torch.autograd.functional.jacobian(f, x) @ v),
    ],
    ids=["torch.func.jvp", "torch.autograd.functional.jvp", "torch.autograd.functional.jacobian"],
)
def test_torchs_jacobian_vector_products_on_our_tensors_run_our_engine(transform):
    def f(x):
        return (x.sin() * x).cumsum(0)

    x, v = data(4), data(4, seed=1)
    out, tangent = transform(f, mt.tensor(x), mt.tensor(v))
    out_ref, tangent_ref = torch.func.jvp(f, (x,), (v,))
    assert type(tangent) is mt.Tensor
    torch.testing.assert_close(out.torch(), out_ref)
    torch.testing.assert_close(tangent.torch(), tangent_ref)


COMPILED = {
    "a function": (lambda: lambda a: a.sin() * 2, lambda: mt.tensor([[1.0, 2.0]], requires_grad=True)),
    "a torch module": (lambda: torch.nn.Linear(2, 2), lambda: mt.tensor([[1.0, 2.0]], requires_grad=True)),
    "our module on a torch tensor": (lambda: mt.nn.Linear(2, 2), lambda: torch.tensor([[1.0, 2.0]])),
}


@pytest.mark.parametrize("target", list(COMPILED))
def test_torch_compile_on_our_tensors_is_refused_naming_the_alternative(target):
    make, make_input = COMPILED[target]
    with pytest.raises(RuntimeError, match="torch.compile does not support minitorch_rx tensors") as raised:
        torch.compile(make(), backend="eager")(make_input())
    assert "run the function or module uncompiled (minitorch_rx.compile returns it unchanged)" in str(raised.value)
    torch._dynamo.reset()
