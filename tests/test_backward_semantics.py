"""PyTorch's backward semantics, rule by rule, with PyTorch 2.14's error wording."""

from __future__ import annotations

import pytest
import torch

import minitorch_rx as mt

SECOND_TIME = "Trying to backward through the graph a second time"


def test_gradients_accumulate_across_uses_of_a_leaf():
    x = mt.tensor([1.0, 2.0], requires_grad=True)
    (x * 3 + x * x).sum().backward()
    assert x.grad.tolist() == [5.0, 7.0]


def test_gradients_accumulate_across_backward_calls():
    x = mt.tensor([1.0, 2.0], requires_grad=True)
    (x * 2).sum().backward()
    (x * 2).sum().backward()
    assert x.grad.tolist() == [4.0, 4.0]


def test_leaf_grads_of_one_add_do_not_share_memory():
    a = mt.tensor([1.0, 2.0], requires_grad=True)
    b = mt.tensor([3.0, 4.0], requires_grad=True)
    (a + b).sum().backward()
    a.grad.torch().mul_(10)
    assert b.grad.tolist() == [1.0, 1.0]


def test_leaf_grad_is_not_an_expanded_view():
    x = mt.tensor([1.0, 2.0, 3.0], requires_grad=True)
    x.sum().backward()
    assert x.grad.torch()._base is None
    x.sum().backward()
    assert x.grad.tolist() == [2.0, 2.0, 2.0]


def test_user_gradient_is_copied_into_a_leaf_grad():
    x = mt.tensor([1.0, 2.0], requires_grad=True)
    seed = mt.tensor([1.0, 1.0])
    x.backward(seed)
    x.grad.torch().zero_()
    assert seed.tolist() == [1.0, 1.0]


def test_non_leaf_grad_is_none_without_retain_grad():
    x = mt.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2
    y.sum().backward()
    assert y.grad is None
    assert x.grad is not None


def test_retain_grad_keeps_a_non_leaf_gradient():
    x = mt.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2
    y.retain_grad()
    (y * y).sum().backward()
    assert y.retains_grad
    assert y.grad.tolist() == [4.0, 8.0]


def test_retain_graph_allows_a_second_backward():
    x = mt.tensor([1.0, 2.0], requires_grad=True)
    y = (x.exp() * x).sum()
    y.backward(retain_graph=True)
    first = x.grad.torch().clone()
    y.backward()
    torch.testing.assert_close(x.grad.torch(), 2 * first)


def test_second_backward_through_a_freed_graph_raises():
    x = mt.tensor([1.0, 2.0], requires_grad=True)
    y = (x.exp() * x).sum()
    y.backward()
    with pytest.raises(RuntimeError, match=SECOND_TIME):
        y.backward()


def test_non_scalar_output_needs_gradient():
    x = mt.tensor([1.0, 2.0], requires_grad=True)
    with pytest.raises(RuntimeError, match="grad can be implicitly created only for scalar outputs"):
        (x * 2).backward()


def test_gradient_shape_is_checked():
    x = mt.tensor([1.0, 2.0, 3.0], requires_grad=True)
    message = (
        r"Mismatch in shape: grad_output\[0\] has a shape of torch.Size\(\[2\]\) and output\[0\] "
        r"has a shape of torch.Size\(\[3\]\)."
    )
    with pytest.raises(RuntimeError, match=message):
        (x * 2).backward(mt.ones(2))


def test_non_scalar_backward_with_gradient():
    x = mt.tensor([1.0, 2.0, 3.0], requires_grad=True)
    (x * x).backward(mt.tensor([1.0, 0.0, 2.0]))
    assert x.grad.tolist() == [2.0, 0.0, 12.0]


def test_backward_of_tensor_without_grad_raises():
    x = mt.tensor([1.0])
    with pytest.raises(RuntimeError, match="element 0 of tensors does not require grad and does not have a grad_fn"):
        (x * 2).sum().backward()


def test_no_grad_records_nothing():
    x = mt.tensor([1.0], requires_grad=True)
    with mt.no_grad():
        y = x * 2
        assert not mt.is_grad_enabled()
    assert mt.is_grad_enabled()
    assert y.grad_fn is None and not y.requires_grad


def test_enable_grad_inside_no_grad():
    x = mt.tensor([1.0], requires_grad=True)
    with mt.no_grad():
        with mt.enable_grad():
            y = x * 2
    assert y.requires_grad


def test_no_grad_as_decorator():
    @mt.no_grad()
    def double(t):
        return t * 2

    assert not double(mt.tensor([1.0], requires_grad=True)).requires_grad


def test_set_grad_enabled_as_context():
    x = mt.tensor([1.0], requires_grad=True)
    with mt.set_grad_enabled(False):
        y = x * 2
    assert not y.requires_grad and mt.is_grad_enabled()


def test_detach_shares_data_and_leaves_the_graph():
    x = mt.tensor([1.0, 2.0], requires_grad=True)
    y = (x * 2).detach()
    assert y.is_leaf and not y.requires_grad
    z = x.detach()
    z.torch()[0] = 5.0
    assert x.tolist()[0] == 5.0


def test_requires_grad_on_an_integer_tensor_raises():
    with pytest.raises(RuntimeError, match="only Tensors of floating point and complex dtype can require gradients"):
        mt.tensor([1, 2]).requires_grad_()


def test_requires_grad_cannot_be_cleared_on_a_non_leaf():
    y = mt.tensor([1.0], requires_grad=True) * 2
    with pytest.raises(RuntimeError, match="you can only change requires_grad flags of leaf variables"):
        y.requires_grad = False


def test_grad_assignment_checks_shape():
    x = mt.tensor([1.0, 2.0], requires_grad=True)
    x.grad = mt.zeros(2)
    with pytest.raises(RuntimeError, match="assigned grad has data of a different size"):
        x.grad = mt.zeros(3)


def test_autograd_grad_leaves_dot_grad_untouched():
    x = mt.tensor([1.0, 2.0], requires_grad=True)
    (gx,) = mt.autograd.grad((x * x).sum(), x)
    assert gx.tolist() == [2.0, 4.0]
    assert x.grad is None


def test_autograd_grad_of_a_non_leaf_input():
    x = mt.tensor([1.0, 2.0], requires_grad=True)
    y = x * 3
    (gy,) = mt.autograd.grad((y * y).sum(), y)
    assert gy.tolist() == [6.0, 12.0]


def test_autograd_grad_unused_input_raises_unless_allowed():
    x = mt.tensor([1.0], requires_grad=True)
    unused = mt.tensor([1.0], requires_grad=True)
    with pytest.raises(RuntimeError, match="appears to not have been used in the graph"):
        mt.autograd.grad((x * 2).sum(), [x, unused])
    gx, gu = mt.autograd.grad((x * 2).sum(), [x, unused], allow_unused=True)
    assert gx.tolist() == [2.0] and gu is None


def test_autograd_grad_with_grad_outputs():
    x = mt.tensor([1.0, 2.0], requires_grad=True)
    (gx,) = mt.autograd.grad(x * x, x, grad_outputs=mt.tensor([1.0, -1.0]))
    assert gx.tolist() == [2.0, -4.0]


def test_broadcasting_is_undone_for_prepended_and_size_one_dims():
    a = mt.randn(3, 1, 5, dtype=torch.float64, requires_grad=True)
    b = mt.randn(4, 1, dtype=torch.float64, requires_grad=True)
    (a * b).sum().backward()
    ta = a.torch().clone().requires_grad_()
    tb = b.torch().clone().requires_grad_()
    (ta * tb).sum().backward()
    torch.testing.assert_close(a.grad.torch(), ta.grad)
    torch.testing.assert_close(b.grad.torch(), tb.grad)


def test_mixed_dtypes_give_each_input_its_own_grad_dtype():
    a = mt.ones(2, dtype=torch.float32, requires_grad=True)
    b = mt.ones(2, dtype=torch.float64, requires_grad=True)
    (a * b).sum().backward()
    assert a.grad.dtype == torch.float32 and b.grad.dtype == torch.float64


def test_leaf_backward_accumulates_ones():
    x = mt.tensor(3.0, requires_grad=True)
    x.backward()
    assert x.grad.item() == 1.0


def test_shared_subgraph_gets_the_sum_of_both_paths():
    x = mt.tensor([2.0], requires_grad=True)
    h = x.exp()
    (h * 2 + h * 3).sum().backward()
    torch.testing.assert_close(x.grad.torch(), 5 * torch.exp(torch.tensor([2.0])))


def test_multi_output_op_gets_zero_for_unused_output():
    x = mt.tensor([[1.0, 5.0], [7.0, 2.0]], requires_grad=True)
    values, indices = x.max(1)
    values.sum().backward()
    assert x.grad.tolist() == [[0.0, 1.0], [1.0, 0.0]]
    assert not indices.requires_grad


def test_leaf_inplace_while_recording_raises():
    x = mt.tensor([1.0], requires_grad=True)
    with pytest.raises(
        RuntimeError, match="a leaf Variable that requires grad is being used in an in-place operation."
    ):
        x.add_(1)


def test_leaf_inplace_under_no_grad_is_allowed():
    x = mt.tensor([1.0], requires_grad=True)
    with mt.no_grad():
        x.add_(1)
    assert x.tolist() == [2.0]


def test_modifying_a_saved_tensor_raises_at_backward():
    x = mt.tensor([1.0, 2.0], requires_grad=True)
    y = x.exp()
    z = (y * y).sum()
    y.add_(1)
    with pytest.raises(RuntimeError) as error:
        z.backward()
    message = str(error.value)
    assert message.startswith(
        "one of the variables needed for gradient computation has been modified by an inplace operation:"
    )
    assert (
        "[torch.FloatTensor [2]], which is output 0 of AddBackward0, is at version 1; expected version 0 instead"
        in message
    )


def test_inplace_on_a_non_leaf_is_differentiated():
    x = mt.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2
    y.mul_(x)
    y.sum().backward()
    assert x.grad.tolist() == [4.0, 8.0]


def test_anomaly_mode_names_the_op_that_produced_nan():
    x = mt.tensor([0.0], requires_grad=True)
    with mt.autograd.detect_anomaly():
        y = x.sqrt() * 0
        with pytest.raises(
            RuntimeError, match=r"Function 'SqrtBackward0' returned nan values in its 0th output."
        ) as error:
            y.sum().backward()
    assert "test_anomaly_mode_names_the_op_that_produced_nan" in str(error.value)


def test_exception_in_backward_leaves_the_engine_usable():
    class Boom(mt.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 1

        @staticmethod
        def backward(ctx, grad):
            raise ValueError("boom")

    x = mt.tensor([1.0], requires_grad=True)
    with pytest.raises(ValueError, match="boom"):
        (Boom.apply(x) + x).sum().backward()
    (x * 2).sum().backward()
    assert x.grad.tolist() == [2.0]


def test_post_accumulate_grad_hook_runs_after_accumulation_and_can_be_removed():
    x = mt.tensor([1.0, 2.0], requires_grad=True)
    seen = []
    handle = x.register_post_accumulate_grad_hook(lambda t: seen.append(t.grad.tolist()))
    (x * 3).sum().backward()
    handle.remove()
    (x * 3).sum().backward()
    assert seen == [[3.0, 3.0]]


# ------------------------------------------------------------------ gradient buffers summed in place
class _Aliasing(mt.autograd.Function):
    """Hands its inputs gradients that share memory: a fresh tensor, a view of it, an expanded view."""

    @staticmethod
    def forward(ctx, a, b, c):
        return a + b + c.sum()

    @staticmethod
    def backward(ctx, grad):
        fresh = grad.clone()  # only the engine will hold it...
        return fresh, fresh.view(fresh.shape), fresh.sum().expand(())  # ...and a view of its memory


def test_fan_out_gradients_are_summed_in_their_buffer(monkeypatch):
    """A buffer only the engine holds takes the next gradients in place (no fresh tensor)."""
    added_into = []
    add_ = torch.Tensor.add_
    monkeypatch.setattr(torch.Tensor, "add_", lambda self, *args: added_into.append(self.shape) or add_(self, *args))
    x = mt.randn(5, requires_grad=True)
    y = x * 2
    (y.exp() + y.sin() + y.cos()).sum().backward()
    assert added_into == [(5,), (5,)]  # y's buffer took the second and third gradients
    y = x.detach() * 2
    torch.testing.assert_close(x.grad.torch(), 2 * (y.exp() + y.cos() - y.sin()).torch())


def test_a_buffer_is_summed_in_place_only_when_nothing_else_sees_it():
    from minitorch_rx.autograd.engine import _sum

    class Slot:
        pass

    def summed_in_place(buffer, g=None):
        slot = Slot()
        slot.grad = buffer
        del buffer
        return _sum(slot.grad, torch.ones(3) if g is None else g) is slot.grad

    fresh = summed_in_place(torch.zeros(3))  # not in the assert: pytest would keep the argument
    assert fresh
    base = torch.zeros(3)
    assert not summed_in_place(base)  # the test's own name for it
    view = torch.zeros(3)
    alias = view.view(3)  # noqa: F841 (a view of its memory)
    assert not summed_in_place(view)
    assert not summed_in_place(torch.zeros(1).expand(3))
    assert not summed_in_place(torch.zeros(3, 2).t()[0])
    assert not summed_in_place(torch.zeros(3), torch.ones(2, 3))  # broadcasting: a new shape
    assert not summed_in_place(torch.zeros(3, dtype=torch.float32), torch.ones(3, dtype=torch.float64))


def test_gradients_that_share_memory_are_summed_out_of_place():
    """Buffers aliased by another input's gradient, a retained gradient or the user's gradient
    are never added into: each gradient as torch.autograd computes it."""

    def run(lib, aliasing):
        x = lib.tensor([1.0, -2.0, 3.0], dtype=torch.float64, requires_grad=True)
        a, b, c = x * 2, x * 3, x * 1
        earlier = c.cos() + b.sin() + a.exp()  # its gradients reach a, then b, c, after aliasing's
        out = aliasing(a, b, c)
        b.retain_grad()
        seed = lib.ones(3, dtype=torch.float64)
        (out * 1 + earlier).backward(seed)
        return x.grad, b.grad, seed

    torch_run = run(torch, lambda a, b, c: a + b + c.sum())
    ours = run(mt, _Aliasing.apply)
    for got, want in zip(ours, torch_run):
        torch.testing.assert_close(got.torch(), want)
