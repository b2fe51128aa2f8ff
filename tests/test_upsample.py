"""interpolate / Upsample, grid_sample and affine_grid, against torch in float64."""

from __future__ import annotations

import pytest
import torch
import torch.nn.functional as TF
from hypothesis import given
from hypothesis import strategies as st

import minitorch_rx as mt
import minitorch_rx.nn.functional as F
from tests.helpers import compare_with_torch
from tests.strategies import FUZZ
from tests.test_layers import _twins, assert_twins_agree


def randn(*shape: int, seed: int = 0) -> torch.Tensor:
    return torch.randn(shape, dtype=torch.float64, generator=torch.Generator().manual_seed(seed))


def compare_interpolate(shape, **kwargs):
    compare_with_torch(lambda x: F.interpolate(x, **kwargs), lambda x: TF.interpolate(x, **kwargs), [randn(*shape)])


INTERPOLATE_CASES = [
    ((2, 3, 5), {"scale_factor": 2}),
    ((2, 3, 5), {"size": 3}),
    ((2, 3, 5), {"size": 8, "mode": "nearest-exact"}),
    ((2, 3, 5), {"scale_factor": 1.7, "mode": "linear"}),
    ((2, 3, 5), {"scale_factor": 1.7, "mode": "linear", "align_corners": True}),
    ((2, 3, 5), {"scale_factor": 0.6, "mode": "linear", "recompute_scale_factor": True}),
    ((2, 2, 5, 4), {"size": (7, 3), "mode": "bilinear"}),
    ((2, 2, 5, 4), {"scale_factor": 1.1, "mode": "bilinear"}),
    ((2, 2, 5, 4), {"size": (5, 4), "mode": "bilinear"}),
    ((2, 2, 5, 4), {"size": (8, 2), "mode": "bicubic"}),
    ((2, 2, 4, 3), {"scale_factor": (1.5, 2.3), "mode": "bicubic", "align_corners": True}),
    ((2, 2, 4, 3), {"scale_factor": 2, "mode": "nearest"}),
    ((1, 2, 3, 4, 5), {"scale_factor": 2, "mode": "trilinear"}),
    ((1, 2, 3, 4, 5), {"size": (2, 5, 3), "mode": "trilinear", "align_corners": True}),
    ((1, 2, 3, 4, 5), {"size": (2, 5, 3), "mode": "nearest"}),
    ((2, 2, 6, 6), {"size": (4, 3), "mode": "area"}),
    ((2, 2, 6, 6), {"scale_factor": 0.5, "mode": "area"}),
]


@pytest.mark.parametrize("shape, kwargs", INTERPOLATE_CASES)
def test_interpolate_matches_torch(shape, kwargs):
    compare_interpolate(shape, **kwargs)


@st.composite
def interpolate_configs(draw):
    rank = draw(st.integers(1, 3))
    mode = draw(
        st.sampled_from(
            {
                1: ["nearest", "nearest-exact", "linear"],
                2: ["nearest", "bilinear", "bicubic"],
                3: ["nearest", "trilinear"],
            }[rank]
        )
    )
    shape = (draw(st.integers(1, 2)), draw(st.integers(1, 2)), *(draw(st.integers(1, 5)) for _ in range(rank)))
    kwargs = {"mode": mode}
    if mode not in ("nearest", "nearest-exact"):
        kwargs["align_corners"] = draw(st.booleans())
    if draw(st.booleans()):
        kwargs["size"] = tuple(draw(st.integers(1, 7)) for _ in range(rank))
    else:
        kwargs["scale_factor"] = tuple(draw(st.sampled_from([0.5, 0.75, 1.0, 1.5, 2.0, 2.6, 3.0])) for _ in range(rank))
        kwargs["recompute_scale_factor"] = draw(st.sampled_from([None, True]))
        if any(int(s * f) < 1 for s, f in zip(shape[2:], kwargs["scale_factor"])):
            kwargs["scale_factor"] = (2.0,) * rank
    return shape, kwargs


@FUZZ
@given(interpolate_configs())
def test_generated_interpolations_match_torch(config):
    shape, kwargs = config
    compare_interpolate(shape, **kwargs)


def test_interpolation_passes_gradcheck():
    x = mt.tensor(randn(1, 2, 3, 3), requires_grad=True)
    assert mt.autograd.gradcheck(lambda t: F.interpolate(t, scale_factor=1.5, mode="bicubic"), (x,))
    assert mt.autograd.gradcheck(lambda t: F.interpolate(t, size=(5, 2), mode="bilinear", align_corners=True), (x,))
    assert mt.autograd.gradcheck(lambda t: F.interpolate(t, size=(5, 2)), (x,))


@pytest.mark.parametrize("padding_mode", ["zeros", "border", "reflection"])
@pytest.mark.parametrize("align_corners", [True, False])
@pytest.mark.parametrize("shape, grid_shape", [((2, 3, 4, 5), (2, 3, 6, 2)), ((1, 2, 3, 4, 3), (1, 2, 3, 2, 3))])
def test_bilinear_grid_sample_matches_torch_in_input_and_grid(padding_mode, align_corners, shape, grid_shape):
    grid = torch.rand(grid_shape, dtype=torch.float64, generator=torch.Generator().manual_seed(1)) * 3 - 1.5
    compare_with_torch(
        lambda x, g: F.grid_sample(x, g, "bilinear", padding_mode, align_corners),
        lambda x, g: TF.grid_sample(x, g, "bilinear", padding_mode, align_corners),
        [randn(*shape), grid],
    )


@pytest.mark.parametrize("padding_mode", ["zeros", "border", "reflection"])
@pytest.mark.parametrize("align_corners", [True, False])
def test_nearest_grid_sample_matches_torch(padding_mode, align_corners):
    grid = torch.rand(2, 4, 3, 2, dtype=torch.float64, generator=torch.Generator().manual_seed(2)) * 3 - 1.5
    compare_with_torch(
        lambda x: F.grid_sample(x, mt.tensor(grid), "nearest", padding_mode, align_corners),
        lambda x: TF.grid_sample(x, grid, "nearest", padding_mode, align_corners),
        [randn(2, 3, 4, 5)],
    )


@pytest.mark.filterwarnings("ignore:Since version 1.3.0, affine_grid behavior has changed for unit-size grids")
@pytest.mark.parametrize("size, align_corners", [((2, 3, 4, 5), False), ((2, 1, 3, 1), True), ((2, 3, 2, 3, 4), True)])
def test_affine_grid_matches_torch(size, align_corners):
    nd = len(size) - 2
    compare_with_torch(
        lambda t: F.affine_grid(t, size, align_corners),
        lambda t: TF.affine_grid(t, size, align_corners),
        [randn(size[0], nd, nd + 1)],
    )


def test_spatial_transformer_passes_gradcheck_in_theta_and_input():
    theta = mt.tensor(randn(1, 2, 3) * 0.5, requires_grad=True)
    x = mt.tensor(randn(1, 2, 3, 4, seed=3), requires_grad=True)

    def transform(t, x):
        return F.grid_sample(x, F.affine_grid(t, (1, 2, 3, 2), False), align_corners=False, padding_mode="border")

    assert mt.autograd.gradcheck(transform, (theta, x))


def test_default_align_corners_warns_as_torch():
    with pytest.warns(UserWarning, match="align_corners=False since 1.3.0"):
        F.affine_grid(mt.zeros(1, 2, 3), (1, 1, 2, 2))


LAYERS = [
    (lambda lib: lib.Upsample(scale_factor=2), (2, 3, 4, 4)),
    (lambda lib: lib.Upsample(size=(3, 7), mode="bilinear", align_corners=True), (2, 3, 4, 4)),
    (lambda lib: lib.Upsample(scale_factor=(1.5, 2.0, 0.5), mode="trilinear"), (1, 2, 2, 3, 4)),
    (lambda lib: lib.Upsample(size=7, mode="linear"), (2, 3, 4)),
    (lambda lib: lib.UpsamplingNearest2d(scale_factor=3), (2, 1, 2, 3)),
    (lambda lib: lib.UpsamplingBilinear2d(size=(5, 3)), (2, 1, 2, 3)),
]


@pytest.mark.parametrize(("factory", "shape"), LAYERS)
def test_upsample_layer_matches_its_torch_twin(factory, shape):
    ours, theirs = _twins(factory)
    assert repr(ours) == repr(theirs)
    assert_twins_agree(ours, theirs, shape, training=True)


@pytest.mark.parametrize(
    "name, expected",
    [
        ("upsample", lambda x: TF.interpolate(x, scale_factor=2, mode="nearest")),
        ("upsample_nearest", lambda x: TF.interpolate(x, scale_factor=2, mode="nearest")),
        ("upsample_bilinear", lambda x: TF.interpolate(x, scale_factor=2, mode="bilinear", align_corners=True)),
    ],
)
def test_deprecated_upsample_functions_warn_and_interpolate(name, expected):
    x = randn(1, 2, 3, 3)
    with pytest.warns(UserWarning, match=f"`nn.functional.{name}` is deprecated"):
        got = getattr(F, name)(mt.tensor(x), scale_factor=2)
    torch.testing.assert_close(got.torch(), expected(x))


@pytest.mark.parametrize("padding_mode", ["zeros", "border", "reflection"])
@pytest.mark.parametrize("align_corners", [True, False])
def test_bicubic_grid_sample_matches_torch_in_input_and_grid(padding_mode, align_corners):
    grid = torch.rand(2, 3, 4, 2, dtype=torch.float64, generator=torch.Generator().manual_seed(4)) * 3 - 1.5
    compare_with_torch(
        lambda x, g: F.grid_sample(x, g, "bicubic", padding_mode, align_corners),
        lambda x, g: TF.grid_sample(x, g, "bicubic", padding_mode, align_corners),
        [randn(2, 3, 4, 5), grid],
    )


def test_gather_pair_backward_on_recorded_tensors_is_the_adjoint_and_differentiable():
    """IndexSelect's and IndexAdd's create_graph paths, called as the engine will call them."""
    from types import SimpleNamespace

    from minitorch_rx.ops.upsample import IndexAdd, IndexSelect

    index = torch.tensor([0, 2, 2, 1])
    g, v = randn(3, 4), randn(3, 3, seed=1)
    grad = mt.tensor(g, requires_grad=True)
    added = IndexSelect.backward(SimpleNamespace(args=(1, index, 3)), grad)[0]
    torch.testing.assert_close(added.torch(), torch.zeros(3, 3, dtype=torch.float64).index_add_(1, index, g))
    (again,) = mt.autograd.grad((added * mt.tensor(v)).sum(), [grad])
    torch.testing.assert_close(again.torch(), v.index_select(1, index))
    grad = mt.tensor(v, requires_grad=True)
    selected = IndexAdd.backward(SimpleNamespace(args=(1, index)), grad)[0]
    torch.testing.assert_close(selected.torch(), v.index_select(1, index))
    (again,) = mt.autograd.grad((selected * mt.tensor(g)).sum(), [grad])
    torch.testing.assert_close(again.torch(), torch.zeros(3, 3, dtype=torch.float64).index_add_(1, index, g))
