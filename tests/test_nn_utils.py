"""``mt.nn.utils`` against ``torch.nn.utils`` (issue 14): clipping, parameters as a vector, and the
rnn padding and packing, values and gradients in float64."""

from __future__ import annotations

import pytest
import torch
import torch.nn.utils.rnn as trnn

import minitorch_rx as mt
import minitorch_rx.nn.utils.rnn as rnn

F64 = torch.float64


def grads_pair(seed: int) -> tuple[list[mt.Tensor], list[torch.Tensor]]:
    torch.manual_seed(seed)
    values = [torch.randn(3, 4, dtype=F64) * 5, torch.randn(4, dtype=F64)]
    grads = [torch.randn_like(v) * 3 for v in values]
    ours = [mt.tensor(v, requires_grad=True) for v in values]
    theirs = [v.clone().requires_grad_(True) for v in values]
    for p, q, g in zip(ours, theirs, grads):
        p.grad = mt.tensor(g)
        q.grad = g.clone()
    return ours, theirs


@pytest.mark.parametrize("norm_type", [2.0, 1.0, float("inf")])
def test_clip_grad_norm_matches_torch(norm_type):
    ours, theirs = grads_pair(0)
    total = mt.nn.utils.clip_grad_norm_(ours, max_norm=1.5, norm_type=norm_type)
    total_ref = torch.nn.utils.clip_grad_norm_(theirs, max_norm=1.5, norm_type=norm_type)
    assert isinstance(total, mt.Tensor)
    torch.testing.assert_close(total.torch(), total_ref)
    for p, q in zip(ours, theirs):
        torch.testing.assert_close(p.grad.torch(), q.grad)


def test_clip_grad_norm_leaves_small_gradients_and_takes_one_tensor():
    p = mt.zeros(2, requires_grad=True)
    p.grad = mt.tensor([0.3, 0.4])
    assert mt.nn.utils.clip_grad_norm_(p, 10.0).item() == pytest.approx(0.5)
    assert p.grad.tolist() == pytest.approx([0.3, 0.4])


def test_clip_grad_norm_refuses_a_non_finite_norm_when_asked():
    p = mt.zeros(2, requires_grad=True)
    p.grad = mt.tensor([float("nan"), 1.0])
    with pytest.raises(RuntimeError, match="The total norm of order 2.0 for gradients from `parameters` is non-finite"):
        mt.nn.utils.clip_grad_norm_([p], 1.0, error_if_nonfinite=True)


def test_clip_grad_value_matches_torch():
    ours, theirs = grads_pair(1)
    mt.nn.utils.clip_grad_value_(ours, 0.5)
    torch.nn.utils.clip_grad_value_(theirs, 0.5)
    for p, q in zip(ours, theirs):
        torch.testing.assert_close(p.grad.torch(), q.grad)


def test_parameters_to_vector_matches_torch_and_is_differentiable():
    ours, theirs = grads_pair(2)
    for p in ours:
        p.grad = None
    vec = mt.nn.utils.parameters_to_vector(ours)
    torch.testing.assert_close(vec.torch(), torch.nn.utils.parameters_to_vector(theirs).detach())
    (vec * mt.arange(16.0, dtype=F64)).sum().backward()
    assert torch.equal(ours[0].grad.torch(), torch.arange(12.0, dtype=F64).reshape(3, 4))
    assert torch.equal(ours[1].grad.torch(), torch.arange(12.0, 16.0, dtype=F64))


def test_vector_to_parameters_sets_the_data_of_each_parameter():
    ours, theirs = grads_pair(2)
    new = torch.arange(16.0, dtype=F64)
    mt.nn.utils.vector_to_parameters(mt.tensor(new), ours)
    torch.nn.utils.vector_to_parameters(new, theirs)
    for p, q in zip(ours, theirs):
        assert torch.equal(p.torch(), q.detach()) and p.requires_grad and p.is_leaf


def test_vector_to_parameters_refuses_a_list():
    with pytest.raises(TypeError, match="expected torch.Tensor, but got: list"):
        mt.nn.utils.vector_to_parameters([1.0], [mt.zeros(1)])


# ------------------------------------------------------------------------------------- rnn
def sequences(lengths: list[int], seed: int = 0) -> tuple[list[mt.Tensor], list[torch.Tensor]]:
    torch.manual_seed(seed)
    data = [torch.randn(n, 3, dtype=F64) for n in lengths]
    return [mt.tensor(d, requires_grad=True) for d in data], [d.clone().requires_grad_(True) for d in data]


def assert_grads_match(ours: list[mt.Tensor], theirs: list[torch.Tensor]) -> None:
    for p, q in zip(ours, theirs):
        torch.testing.assert_close(p.grad.torch(), q.grad)


@pytest.mark.parametrize(("batch_first", "side"), [(False, "right"), (True, "right"), (True, "left")])
def test_pad_sequence_matches_torch_with_gradients(batch_first, side):
    ours, theirs = sequences([2, 4, 1])
    out = rnn.pad_sequence(ours, batch_first=batch_first, padding_value=-1.0, padding_side=side)
    ref = trnn.pad_sequence(theirs, batch_first=batch_first, padding_value=-1.0, padding_side=side)
    torch.testing.assert_close(out.torch(), ref.detach())
    weights = torch.randn(ref.shape, dtype=F64)
    (out * mt.tensor(weights)).sum().backward()
    (ref * weights).sum().backward()
    assert_grads_match(ours, theirs)


@pytest.mark.parametrize("enforce_sorted", [True, False])
def test_pack_and_pad_round_trip_match_torch_with_gradients(enforce_sorted):
    lengths = [4, 2, 1] if enforce_sorted else [2, 4, 1]
    ours, theirs = sequences(lengths, seed=3)
    padded = rnn.pad_sequence(ours, batch_first=True)
    padded_ref = trnn.pad_sequence(theirs, batch_first=True)
    packed = rnn.pack_padded_sequence(padded, lengths, batch_first=True, enforce_sorted=enforce_sorted)
    packed_ref = trnn.pack_padded_sequence(padded_ref, lengths, batch_first=True, enforce_sorted=enforce_sorted)
    torch.testing.assert_close(packed.data.torch(), packed_ref.data.detach())
    assert packed.batch_sizes.tolist() == packed_ref.batch_sizes.tolist()
    for ours_index, ref_index in [(packed.sorted_indices, packed_ref.sorted_indices)]:
        assert (ours_index is None) == (ref_index is None)
        assert ours_index is None or ours_index.tolist() == ref_index.tolist()
    out, out_lengths = rnn.pad_packed_sequence(packed, batch_first=True, padding_value=9.0, total_length=5)
    ref, ref_lengths = trnn.pad_packed_sequence(packed_ref, batch_first=True, padding_value=9.0, total_length=5)
    torch.testing.assert_close(out.torch(), ref.detach())
    assert out_lengths.tolist() == ref_lengths.tolist() == lengths
    weights = torch.randn(ref.shape, dtype=F64)
    (out * mt.tensor(weights)).sum().backward()
    (ref * weights).sum().backward()
    assert_grads_match(ours, theirs)


def test_pack_sequence_and_unpack_sequence_round_trip():
    ours, _ = sequences([1, 3, 2], seed=4)
    packed = rnn.pack_sequence(ours, enforce_sorted=False)
    assert isinstance(packed, rnn.PackedSequence) and packed.data.shape == (6, 3)
    for back, original in zip(rnn.unpack_sequence(packed), ours):
        assert torch.equal(back.torch(), original.torch())


def test_packed_sequence_is_a_named_tuple_that_moves_like_a_tensor():
    ours, _ = sequences([2, 1], seed=5)
    packed = rnn.pack_sequence(ours)
    data, batch_sizes, sorted_indices, unsorted_indices = packed
    assert sorted_indices is None and unsorted_indices is None and batch_sizes.tolist() == [2, 1]
    assert packed.float().data.dtype == torch.float32 and not packed.is_cuda


def test_pack_padded_sequence_refuses_unsorted_lengths_when_sorting_is_enforced():
    with pytest.raises(RuntimeError, match="`lengths` array must be sorted in decreasing order"):
        rnn.pack_padded_sequence(mt.zeros(3, 2), [1, 3])


def test_pack_padded_sequence_refuses_an_empty_sequence():
    with pytest.raises(RuntimeError, match="Length of all samples has to be greater than 0"):
        rnn.pack_padded_sequence(mt.zeros(3, 2), [3, 0])


def test_pad_packed_sequence_refuses_a_short_total_length():
    packed = rnn.pack_sequence([mt.zeros(3), mt.zeros(2)])
    with pytest.raises(ValueError, match="Expected total_length to be at least the length of the longest sequence"):
        rnn.pad_packed_sequence(packed, total_length=2)


@pytest.mark.parametrize("dim", [0, 1, 2, -2, -1])
def test_norm_except_dim_and_weight_norm_match_torch_with_gradients(dim):
    torch.manual_seed(0)
    v = torch.randn(3, 4, 5, dtype=F64)
    g = torch.rand_like(torch.norm_except_dim(v, 2, dim)) + 0.5
    ours = [mt.tensor(t, requires_grad=True) for t in (v, g)]
    theirs = [t.clone().requires_grad_(True) for t in (v, g)]
    torch.testing.assert_close(mt.norm_except_dim(ours[0], 3, dim).torch(), torch.norm_except_dim(theirs[0], 3, dim))
    out, ref = torch._weight_norm(*ours, dim), torch._weight_norm(*theirs, dim)
    assert isinstance(out, mt.Tensor)
    torch.testing.assert_close(out.torch(), ref)
    weights = torch.linspace(-1, 2, ref.numel(), dtype=F64).reshape(ref.shape)
    (out * weights).sum().backward()
    (ref * weights).sum().backward()
    for mine, expected in zip(ours, theirs):
        torch.testing.assert_close(mine.grad.torch(), expected.grad)


@pytest.mark.filterwarnings("ignore:`torch.nn.utils.weight_norm` is deprecated:FutureWarning")
@pytest.mark.parametrize("reparametrise", ["spectral_norm", "weight_norm", "prune"])
def test_torch_reparametrisations_under_our_names_train_our_layer_as_torchs(reparametrise):
    import minitorch_rx.nn.utils.prune as prune

    def apply(module, utils):
        torch.manual_seed(1)  # spectral_norm's first power-iteration vector is random
        if reparametrise == "prune":
            return prune.l1_unstructured(module, "weight", amount=0.5)
        return getattr(utils, reparametrise)(module)

    torch.manual_seed(0)
    ours, theirs = mt.nn.Linear(4, 3).double(), torch.nn.Linear(4, 3).double()
    theirs.load_state_dict(ours.state_dict())
    ours, theirs = apply(ours, mt.nn.utils), apply(theirs, torch.nn.utils)
    x = torch.randn(5, 4, dtype=F64)
    for model, tensor in ((ours, mt.tensor), (theirs, torch.as_tensor)):
        opt = torch.optim.SGD(model.parameters(), lr=0.1)
        for _ in range(3):
            opt.zero_grad()
            model(tensor(x)).pow(2).mean().backward()
            opt.step()
    with torch.no_grad():
        torch.testing.assert_close(ours(mt.tensor(x)).torch(), theirs(x))
    if reparametrise != "prune":
        getattr(mt.nn.utils, f"remove_{reparametrise}")(ours)
        assert isinstance(ours.weight, torch.nn.Parameter)


@pytest.mark.parametrize("dim", [0, 2, -1])
def test_weight_norm_second_derivatives_pass_gradgradcheck(dim):
    torch.manual_seed(0)
    v = mt.tensor(torch.randn(2, 3, 4, dtype=F64), requires_grad=True)
    g = mt.tensor(torch.rand_like(torch.norm_except_dim(v.torch(), 2, dim)) + 0.5, requires_grad=True)
    assert mt.autograd.gradgradcheck(lambda a, b: mt._weight_norm(a, b, dim), (v, g))
    assert mt.autograd.gradgradcheck(lambda a: mt.norm_except_dim(a, 2, dim), (v,))
