"""In-place ops: plain torch in-place under no_grad; recorded (gradients equal torch's) otherwise,
on views too (the base's history changes, as with PyTorch's CopySlices); PyTorch's errors for a
leaf (or a view of one) that requires grad and for a saved tensor changed before backward."""

from __future__ import annotations

import operator
import re

import pytest
import torch
from helpers import compare_with_torch
from hypothesis import given
from hypothesis import strategies as st
from strategies import FUZZ, broadcast_shapes, scalars, tensors

import minitorch_rx as mt

LEAF_MESSAGE = "a leaf Variable that requires grad is being used in an in-place operation."
MODIFIED_PREFIX = "one of the variables needed for gradient computation has been modified by an inplace operation:"

#: name -> in-place call taking (target, other); the same code runs on mt and torch tensors
BINARY_INPLACE = {
    "add_": lambda t, o: t.add_(o),
    "sub_": lambda t, o: t.sub_(o),
    "mul_": lambda t, o: t.mul_(o),
    "div_": lambda t, o: t.div_(o),
    "iadd": operator.iadd,
    "isub": operator.isub,
    "imul": operator.imul,
    "itruediv": operator.itruediv,
}
#: name -> in-place call taking only the target
UNARY_INPLACE = {
    "zero_": lambda t: t.zero_(),
    "fill_": lambda t: t.fill_(0.25),
    "clamp_": lambda t: t.clamp_(-0.5, 0.5),
    "clamp_min": lambda t: t.clamp_(min=0.0),
    "pow_": lambda t: t.pow_(2),
    "setitem": lambda t: t.__setitem__(0, 3.0),
    "add_scalar": lambda t: t.add_(2.0),
    "iadd_scalar": lambda t: operator.iadd(t, 2),
    "imul_scalar": lambda t: operator.imul(t, -1.5),
    "itruediv_scalar": lambda t: operator.itruediv(t, 4),
}


def _on_a_copy(inplace):
    """``inplace`` applied to a recorded copy of the first input (a leaf itself may not be changed)."""

    def run(x, *rest):
        y = x * 1
        result = inplace(y, *rest)
        return y if result is None else result

    return run


@st.composite
def _target_and_other(draw, name: str = ""):
    """(target, other) where ``other`` broadcasts to ``target``'s shape, as in-place ops need."""
    shape_a, shape_b = draw(broadcast_shapes(max_rank=4))
    target = draw(tensors(torch.broadcast_shapes(shape_a, shape_b)))
    other = draw(tensors(shape_b, margin=0.5 if name in ("div_", "itruediv") else 0.0))
    return target, other


# ------------------------------------------------------------------ recorded
@pytest.mark.parametrize("name", BINARY_INPLACE)
@FUZZ
@given(data=st.data())
def test_recorded_binary_inplace_gradients_match_torch(name, data):
    target, other = data.draw(_target_and_other(name))
    op = _on_a_copy(BINARY_INPLACE[name])
    compare_with_torch(op, op, [target, other])


@pytest.mark.parametrize("name", UNARY_INPLACE)
@FUZZ
@given(x=tensors(st.sampled_from([(3,), (2, 3), (2, 1, 3)])))
def test_recorded_inplace_gradients_match_torch(name, x):
    op = _on_a_copy(UNARY_INPLACE[name])
    compare_with_torch(op, op, [x])


@pytest.mark.parametrize("name", ["add_", "sub_"])
@FUZZ
@given(data=st.data(), alpha=scalars())
def test_recorded_inplace_with_alpha_matches_torch(name, data, alpha):
    target, other = data.draw(_target_and_other())
    op = _on_a_copy(lambda t, o: getattr(t, name)(o, alpha=alpha))
    compare_with_torch(op, op, [target, other])


@FUZZ
@given(data=st.data())
def test_recorded_copy_gradients_match_torch(data):
    target, source = data.draw(_target_and_other())
    op = _on_a_copy(lambda t, s: t.copy_(s))
    compare_with_torch(op, op, [target, source])


def test_recorded_copy_from_float32_sends_a_float32_gradient():
    op = _on_a_copy(lambda t, s: t.copy_(s))
    compare_with_torch(op, op, [torch.ones(2, 3, dtype=torch.float64), torch.ones(3, dtype=torch.float32)])


def test_recorded_fill_with_a_0_dim_tensor_matches_torch():
    op = _on_a_copy(lambda t, v: t.fill_(v))
    compare_with_torch(op, op, [torch.ones(2, 3, dtype=torch.float64), torch.tensor(2.0, dtype=torch.float64)])


@FUZZ
@given(data=st.data())
def test_recorded_clamp_with_tensor_bounds_matches_torch(data):
    target, low = data.draw(_target_and_other())
    op = _on_a_copy(lambda t, lo: t.clamp_(lo))
    compare_with_torch(op, op, [target, low])


def test_float32_target_updated_by_a_float64_operand_keeps_each_gradient_dtype():
    op = _on_a_copy(lambda t, o: t.mul_(o))
    target, other = torch.full((2, 3), 1.5, dtype=torch.float32), torch.full((3,), 2.0, dtype=torch.float64)
    compare_with_torch(op, op, [target, other])


def test_recorded_inplace_on_a_constant_tensor_gives_it_history():
    value = mt.tensor([1.0, 2.0, 3.0], requires_grad=True)
    buffer = mt.zeros(2, 3)
    buffer.add_(value)
    assert buffer.grad_fn is not None
    buffer.sum().backward()
    assert value.grad.tolist() == [2.0, 2.0, 2.0]


def test_inplace_returns_the_target_itself():
    x = mt.ones(3, requires_grad=True)
    y = x * 2
    assert y.mul_(3) is y
    assert y.add_(1) is y


def test_recorded_inplace_advances_the_version_counter():
    x = mt.ones(3, requires_grad=True)
    y = x * 2
    before = y.torch()._version
    y.mul_(3)
    assert y.torch()._version > before


# ------------------------------------------------------------------ __setitem__
SETITEM_CASES = {
    "int": (0, (3,)),
    "slice": ((slice(None), slice(1, None)), (1,)),
    "ellipsis_none": ((Ellipsis, None, 1), ()),
    "index_tensor_with_repeats": (torch.tensor([1, 1, 0]), (3,)),
    "broadcast_value": (slice(None), (1, 3)),
}


@pytest.mark.parametrize("case", SETITEM_CASES)
def test_recorded_setitem_with_a_tensor_value_matches_torch(case):
    index, value_shape = SETITEM_CASES[case]
    target = torch.arange(6, dtype=torch.float64).reshape(2, 3)
    value = torch.arange(1, 1 + torch.Size(value_shape).numel(), dtype=torch.float64).reshape(value_shape) * 10
    op = _on_a_copy(lambda t, v: t.__setitem__(index, v))
    compare_with_torch(op, op, [target, value])


def test_recorded_setitem_with_a_boolean_mask_matches_torch():
    op = _on_a_copy(lambda t, v: t.__setitem__(t > 0, v))
    target = torch.tensor([[1.0, -2.0], [-3.0, 4.0]], dtype=torch.float64)
    compare_with_torch(op, op, [target, torch.tensor(5.0, dtype=torch.float64)])


def test_recorded_setitem_with_an_mt_index_tensor_matches_torch():
    target, value = torch.ones(3, 2, dtype=torch.float64), torch.tensor([7.0, 8.0], dtype=torch.float64)
    compare_with_torch(
        _on_a_copy(lambda t, v: t.__setitem__(mt.tensor([2]), v)),
        _on_a_copy(lambda t, v: t.__setitem__(torch.tensor([2]), v)),
        [target, value],
    )


def test_recorded_setitem_of_a_float32_value_sends_a_float32_gradient():
    op = _on_a_copy(lambda t, v: t.__setitem__(1, v))
    compare_with_torch(op, op, [torch.ones(2, 3, dtype=torch.float64), torch.ones(3, dtype=torch.float32)])


def test_setitem_of_a_value_that_requires_grad_into_a_constant_matches_torch():
    def run(value, zeros):
        out = zeros(2, 3, dtype=torch.float64)
        out[1] = value
        return out

    compare_with_torch(lambda v: run(v, mt.zeros), lambda v: run(v, torch.zeros), [torch.ones(3, dtype=torch.float64)])


# ------------------------------------------------------------------ not recorded
@pytest.mark.parametrize("name", [*BINARY_INPLACE, "copy_"])
def test_inplace_under_no_grad_changes_a_leaf_without_recording(name):
    op = BINARY_INPLACE.get(name, lambda t, o: t.copy_(o))
    x = mt.tensor([1.0, 2.0, 3.0], requires_grad=True)
    expected = op(torch.tensor([1.0, 2.0, 3.0]), torch.tensor([2.0, 4.0, 8.0]))
    with mt.no_grad():
        result = op(x, mt.tensor([2.0, 4.0, 8.0]))
    assert result is x
    assert x.tolist() == expected.tolist()
    assert x.is_leaf and x.requires_grad and x.grad_fn is None


@pytest.mark.parametrize("name", UNARY_INPLACE)
def test_unary_inplace_under_no_grad_changes_a_leaf_without_recording(name):
    op = UNARY_INPLACE[name]
    x = mt.tensor([1.0, -2.0, 3.0], requires_grad=True)
    expected = torch.tensor([1.0, -2.0, 3.0])
    op(expected)
    with mt.no_grad():
        op(x)
    assert x.tolist() == expected.tolist()
    assert x.is_leaf and x.requires_grad and x.grad_fn is None


@pytest.mark.parametrize("name", BINARY_INPLACE)
def test_inplace_on_tensors_outside_any_graph_matches_torch(name):
    op = BINARY_INPLACE[name]
    x, other = mt.tensor([[1.0, 2.0], [3.0, 4.0]]), mt.tensor([2.0, -1.0])
    expected = op(torch.tensor([[1.0, 2.0], [3.0, 4.0]]), torch.tensor([2.0, -1.0]))
    result = op(x, other)
    assert result is x and x.tolist() == expected.tolist()
    assert x.grad_fn is None and not x.requires_grad


def test_setitem_under_no_grad_writes_through_to_the_data():
    x = mt.zeros(2, 3, requires_grad=True)
    with mt.no_grad():
        x[:, 1] = 5.0
        x[mt.tensor([0])] = mt.tensor([1.0, 2.0, 3.0])
    assert x.tolist() == [[1.0, 2.0, 3.0], [0.0, 5.0, 0.0]]
    assert x.is_leaf


def test_clamp_with_tensor_bounds_under_no_grad_matches_torch():
    x = mt.tensor([-2.0, 0.5, 3.0], requires_grad=True)
    with mt.no_grad():
        x.clamp_(mt.tensor([-1.0, 1.0, 0.0]), mt.tensor(2.0))
    assert x.tolist() == [-1.0, 1.0, 2.0]
    assert x.is_leaf


def test_inplace_ops_under_no_grad_do_not_record_into_the_graph():
    x = mt.ones(3, requires_grad=True)
    with mt.Graph() as graph, mt.no_grad():
        x.add_(1)
        x.mul_(2)
        x.zero_()
    assert graph.num_nodes() == 0


# ------------------------------------------------------------------ errors
def _with_operand(op, operand=2.0):
    return lambda t: op(t, operand)


LEAF_CASES = {
    **{name: _with_operand(op) for name, op in BINARY_INPLACE.items()},
    **UNARY_INPLACE,
    "copy_": lambda t: t.copy_(mt.ones(3)),
    "fill_tensor": lambda t: t.fill_(mt.tensor(1.0)),
    "setitem_tensor": lambda t: t.__setitem__(slice(None), mt.ones(3)),
}


@pytest.mark.parametrize("name", LEAF_CASES)
def test_inplace_on_a_leaf_that_requires_grad_raises(name):
    x = mt.tensor([1.0, -2.0, 3.0], requires_grad=True)
    with pytest.raises(RuntimeError, match=re.escape(LEAF_MESSAGE)):
        LEAF_CASES[name](x)
    assert x.tolist() == [1.0, -2.0, 3.0]


@pytest.mark.parametrize("name", [*BINARY_INPLACE, "zero_", "fill_", "clamp_", "setitem"])
def test_changing_a_saved_tensor_raises_at_backward(name):
    change = _with_operand(BINARY_INPLACE[name]) if name in BINARY_INPLACE else UNARY_INPLACE[name]
    x = mt.tensor([0.5, 1.0, 1.5], dtype=mt.float64, requires_grad=True)
    y = x.exp()  # exp saves its output
    change(y)
    with pytest.raises(RuntimeError) as info:
        y.sum().backward()
    message = str(info.value)
    assert message.startswith(MODIFIED_PREFIX)
    assert "[torch.DoubleTensor [3]]" in message
    assert "is at version 1; expected version 0 instead" in message


def test_modified_saved_tensor_error_names_the_op_whose_output_it_is():
    x = mt.tensor([0.5, 1.0, 1.5], dtype=mt.float64, requires_grad=True)
    y = x + 1
    z = y * y  # mul saves its inputs
    y.add_(1)
    with pytest.raises(RuntimeError, match=re.escape(MODIFIED_PREFIX)) as info:
        z.sum().backward()
    assert "output 0 of Add" in str(info.value)


def test_changing_a_saved_leaf_under_no_grad_raises_at_backward():
    x = mt.tensor([0.5, 1.0, 1.5], dtype=mt.float64, requires_grad=True)
    z = x * x
    with mt.no_grad():
        x.add_(1)
    with pytest.raises(RuntimeError, match=re.escape(MODIFIED_PREFIX) + ".*expected version 0 instead"):
        z.sum().backward()


def test_changing_a_saved_tensor_through_a_view_raises_at_backward():
    x = mt.tensor([[0.5, 1.0], [1.5, 2.0]], dtype=mt.float64, requires_grad=True)
    y = x * 1
    z = y.sin()  # sin saves its input
    y[0].mul_(2)
    with pytest.raises(RuntimeError, match=re.escape(MODIFIED_PREFIX)):
        z.sum().backward()


def test_changing_a_tensor_no_backward_needs_is_allowed():
    op = lambda x: (lambda y: (y.mul_(2), y.exp())[1])(x + 1)  # noqa: E731 - add saves nothing
    compare_with_torch(op, op, [torch.tensor([0.5, 1.0], dtype=torch.float64)])


def test_multiplying_a_tensor_in_place_by_itself_matches_torch_values():
    x = torch.tensor([0.5, -1.0, 2.0], dtype=torch.float64)
    compare_with_torch(_on_a_copy(lambda t: t.mul_(t)), lambda t: t * t, [x])


def test_inplace_result_that_cannot_be_cast_to_the_target_dtype_raises():
    x = mt.tensor([1, 2, 3])
    with pytest.raises(RuntimeError, match="result type Float can't be cast to the desired output type Long"):
        x.add_(mt.tensor([0.5, 0.5, 0.5], requires_grad=True))


@pytest.mark.parametrize("recording", [True, False])
def test_inplace_that_would_change_the_target_shape_raises(recording):
    y = mt.ones(3, requires_grad=recording) * 1
    with pytest.raises(RuntimeError, match=re.escape("output with shape [3] doesn't match the broadcast shape [2, 3]")):
        y.add_(mt.ones(2, 3))


# ------------------------------------------------------------------ in-place on views
def test_recorded_inplace_on_a_view_updates_the_gradient_of_its_base():
    def run(x):
        y = x * 1
        y[0].mul_(2)
        return y

    compare_with_torch(run, run, [torch.ones(2, 3, dtype=torch.float64)])


def test_inplace_on_a_view_names_nodes_as_torch():
    for lib in (mt, torch):
        y = lib.ones(2, 3, requires_grad=True) * 1
        early = y[1]
        y[0].mul_(2)
        assert type(y.grad_fn).__name__ == "CopySlices"
        assert type(early.grad_fn).__name__ == "AsStridedBackward0"


def test_inplace_on_a_view_of_a_leaf_that_requires_grad_raises():
    x = mt.ones(2, 3, requires_grad=True)
    with pytest.raises(RuntimeError, match="a view of a leaf Variable that requires grad is being used in an in-place"):
        x[0].mul_(2)
    with pytest.raises(RuntimeError, match="a view of a leaf Variable that requires grad is being used in an in-place"):
        x.t()[1:].zero_()
    with mt.no_grad():
        x[0].mul_(2)  # allowed, as in PyTorch: it changes the leaf's values
    assert x.tolist() == [[2.0] * 3, [1.0] * 3]


#: name -> code run on a (4, 3) input ``x`` (mt or torch) that does in-place ops on views
VIEW_INPLACE = {
    "row": lambda x: _set(x * 1, lambda y: y[0].mul_(2)),
    "view of a view": lambda x: _set(x * 1, lambda y: y[1:][:, 1].add_(x[:3, 0] * x[:3, 2])),
    "transposed": lambda x: _set(x.sin(), lambda y: y.t()[2].mul_(x[:, 1])),
    "reshaped": lambda x: _set(x * 2, lambda y: y.view(2, 6)[1].clamp_(-0.5, 0.5)),
    "setitem on a view": lambda x: _set(x * 1, lambda y: y[2].__setitem__(slice(0, 2), x[0, 1:] ** 2)),
    "copy into a view": lambda x: _set(x * 1, lambda y: y[:, 0].copy_(x[:, 2].sin())),
    "twice, then the view is used": lambda x: _twice(x),
    "base without grad": lambda x: _set(x.detach() * 0, lambda y: y[1:3].add_(x[1:3] ** 2)),
    # Views taken before the in-place op see its values, and get the matching history.
    "an earlier overlapping view": lambda x: _earlier_view(x * 1, lambda y: y[0:2], lambda y: y[0].mul_(2)),
    "an earlier disjoint view": lambda x: _earlier_view(x * 1, lambda y: y[3], lambda y: y[0].mul_(x[1])),
    "an earlier view, in-place on the base": lambda x: _earlier_view(x * 1, lambda y: y.t()[1], lambda y: y.mul_(x)),
    "an earlier view of a view": lambda x: _earlier_view(
        x * 1, lambda y: y[1:].view(9)[2:5], lambda y: y[:, 2].add_(x[:, 0].exp())
    ),
    "an earlier view, base without grad": lambda x: _earlier_view(
        x.detach() * 0, lambda y: y[1:3], lambda y: y[1].add_(x[1] ** 2)
    ),
}


def _set(y, inplace):
    inplace(y)
    return y


def _earlier_view(y, take_view, inplace):
    view = take_view(y)
    inplace(y)
    return y, view * view


def _twice(x):
    y = x * 1
    row = y[1]
    row.mul_(3)
    row.add_(x[0])
    return y, row * row


@pytest.mark.parametrize("name", VIEW_INPLACE)
def test_recorded_inplace_on_views_matches_torch(name):
    x = torch.linspace(-1, 1, 12, dtype=torch.float64).view(4, 3)
    compare_with_torch(VIEW_INPLACE[name], VIEW_INPLACE[name], [x])


@pytest.mark.parametrize("name", VIEW_INPLACE)
def test_recorded_inplace_on_views_passes_gradcheck(name):
    def outputs(x):
        out = VIEW_INPLACE[name](x)
        return sum(o.sum() for o in out) if isinstance(out, tuple) else out

    x = mt.tensor(torch.linspace(-1, 1, 12, dtype=torch.float64).view(4, 3), requires_grad=True)
    assert mt.autograd.gradcheck(outputs, (x,))


def test_inplace_on_an_expanded_view_raises_as_torch():
    y = mt.ones(1, 3, requires_grad=True) * 1
    with pytest.raises(RuntimeError, match="more than one element of the written-to tensor refers to a single memory"):
        y.expand(4, 3).mul_(2)


def test_inplace_on_a_view_invalidates_what_was_saved_from_its_base():
    x = mt.ones(2, 3, requires_grad=True)
    y = x * 1
    z = y * y  # saves y
    y[0].mul_(2)
    with pytest.raises(RuntimeError, match=re.escape(MODIFIED_PREFIX)):
        z.sum().backward()


# ------------------------------------------------------------------ gradcheck
def _small(*shape, seed=0):
    generator = torch.Generator().manual_seed(seed)
    values = torch.rand(shape, generator=generator, dtype=torch.float64) * 3 - 1.5
    return mt.tensor(torch.where(values.abs() < 0.3, 0.5, values), requires_grad=True)


GRADCHECKS = {
    **{name: _on_a_copy(op) for name, op in BINARY_INPLACE.items()},
    "copy_": _on_a_copy(lambda t, s: t.copy_(s)),
    "fill_": _on_a_copy(lambda t, v: t.fill_(v.sum())),
    "clamp_": _on_a_copy(lambda t, low: t.clamp_(low)),
    "setitem": _on_a_copy(lambda t, v: t.__setitem__(0, v)),
    "setitem_index_tensor": _on_a_copy(lambda t, v: t.__setitem__((slice(None), mt.tensor([2, 0])), v[:2])),
}


@pytest.mark.parametrize("name", GRADCHECKS)
def test_gradcheck_passes(name):
    assert mt.autograd.gradcheck(GRADCHECKS[name], [_small(2, 3), _small(3, seed=1)])


# ------------------------------------------------------------------ generated sequences of views and in-place ops
#: name -> a view of the (4, 3) base
VIEWS = {
    "row 1": lambda t: t[1],
    "rows 0-1": lambda t: t[0:2],
    "column 2": lambda t: t[:, 2],
    "transposed": lambda t: t.t(),
    "flat 2-8": lambda t: t.reshape(12)[2:8],
    "unsqueezed row 3": lambda t: t[3].unsqueeze(0),
}
#: name -> a view of a view: of a 2-D one (any shape), or ``t[1:]`` of a 1-D one
VIEWS_OF_VIEWS = {
    "first row": lambda t: t[0] if t.dim() == 2 else t[1:],
    "last column": lambda t: t[:, -1] if t.dim() == 2 else t[1:],
    "transposed": lambda t: t.t() if t.dim() == 2 else t[1:],
}
#: name -> an in-place op on ``target`` that reads the input ``x`` (same code on mt and torch)
INPLACE_ON_VIEWS = {
    "mul_ by x": lambda target, x: target.mul_(x[0, 0] + 1.5),
    "add_ sin(x)": lambda target, x: target.add_(x.flatten()[: target.shape[-1]].sin()),
    "clamp_": lambda target, x: target.clamp_(-0.4, 0.6),
    "copy_ of x": lambda target, x: target.copy_(x.flatten()[12 - target.shape[-1] :] * 2),
}


@st.composite
def view_programs(draw):
    """Views taken (of the base, or of an earlier view) and in-place ops (on the base or on a
    view), interleaved: (kind, index of the tensor acted on (-1: the base), name)."""
    steps = []
    n_views = 0
    for _ in range(draw(st.integers(2, 7))):
        acted_on = draw(st.integers(-1, n_views - 1))
        if n_views and draw(st.booleans()):
            steps.append(("inplace", acted_on, draw(st.sampled_from(sorted(INPLACE_ON_VIEWS)))))
        else:
            names = VIEWS if acted_on < 0 else VIEWS_OF_VIEWS
            steps.append(("view", acted_on, draw(st.sampled_from(sorted(names)))))
            n_views += 1
    return steps


def _run_program(steps, x):
    base = x * 1
    views = []
    for kind, index, name in steps:
        holder = base if index < 0 else views[index]
        if kind == "inplace":
            INPLACE_ON_VIEWS[name](holder, x)
        else:
            views.append((VIEWS if index < 0 else VIEWS_OF_VIEWS)[name](holder))
    return (base, *(v * v for v in views))


@FUZZ
@given(view_programs())
def test_generated_views_and_inplace_ops_match_torch(steps):
    """Every view, taken before or after in-place ops on its base or on other views, gives
    torch.autograd's values and gradients."""
    x = torch.linspace(-1, 1, 12, dtype=torch.float64).view(4, 3)
    compare_with_torch(lambda t: _run_program(steps, t), lambda t: _run_program(steps, t), [x])
