"""Backward from several threads, and the dtype of a leaf's gradient (issue 13, items 11, 13, 14)."""

from __future__ import annotations

import threading

import pytest
import torch

import minitorch_rx as mt


def test_a_float64_gradient_of_a_float32_output_leaves_a_float32_grad():
    w = mt.ones(3, requires_grad=True)
    (w * 2).backward(torch.ones(3, dtype=torch.float64))
    assert w.grad.dtype == torch.float32
    opt = mt.optim.Adam([w], lr=0.1)
    opt.step()  # failed when the grad was float64
    assert w.dtype == torch.float32


def test_hogwild_threads_lose_no_gradient_of_a_shared_leaf():
    w = mt.zeros(2_000_000, requires_grad=True)  # big: torch's kernels run without the GIL
    steps, threads = 20, 4
    start = threading.Barrier(threads)

    def work():
        start.wait()
        for _ in range(steps):
            with mt.Graph():
                (w * 1.0).sum().backward()

    workers = [threading.Thread(target=work) for _ in range(threads)]
    for t in workers:
        t.start()
    for t in workers:
        t.join()
    assert w.grad.torch().eq(steps * threads).all()


def test_two_threads_backward_through_one_graph_take_turns():
    x = mt.randn(200, requires_grad=True)
    y = x
    for _ in range(2000):
        y = y * 1.001 + 0.001
    loss = y.sum()
    errors, done = [], []
    start = threading.Barrier(2)

    def work():
        start.wait()
        try:
            loss.backward()
            done.append(1)
        except RuntimeError as error:
            errors.append(str(error))

    workers = [threading.Thread(target=work) for _ in range(2)]
    for t in workers:
        t.start()
    for t in workers:
        t.join()
    assert len(done) == 1 and len(errors) == 1
    assert "Trying to backward through the graph a second time" in errors[0]


def test_two_threads_backward_through_a_retained_graph_both_accumulate():
    x = mt.randn(50, requires_grad=True)
    loss = (x * x).sum()

    def work():
        loss.backward(retain_graph=True)

    workers = [threading.Thread(target=work) for _ in range(2)]
    for t in workers:
        t.start()
    for t in workers:
        t.join()
    torch.testing.assert_close(x.grad.torch(), 4 * x.torch())


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
def test_a_gradient_of_another_dtype_is_cast_to_the_leafs(dtype):
    w = mt.ones(2, dtype=dtype, requires_grad=True)
    (w * 3).backward(torch.ones(2))
    assert w.grad.dtype == dtype and w.grad.tolist() == [3.0, 3.0]


@pytest.mark.parametrize("threads", [2, 8])
@pytest.mark.parametrize("shared", ["loss", "history"])
def test_threads_backward_through_one_graph_one_wins_the_others_are_told(threads, shared):
    """Issue 25.4: per round, one thread gets the gradient and every other one PyTorch's error,
    whether the threads call backward on one loss or each records its own loss (in its own
    graph) on one shared history, which the first backward frees. Before the fix, passes whose
    graphs were linked ran at once: two threads of eight both "succeeded" (with each other's
    gradients mixed in), or one walked nodes the other was removing (``IndexError``)."""
    rounds = 1600 // threads
    start = threading.Barrier(threads)
    for _ in range(rounds):
        x = mt.randn(8, requires_grad=True)
        h = x.tanh()
        for _ in range(4):
            h = (h * 1.01).sin()
        loss = (h * h).sum() if shared == "loss" else None
        results = []

        def work(h, loss, results):
            start.wait()
            try:
                (loss if loss is not None else (h * h).sum()).backward()
                results.append("ok")
            except RuntimeError as error:
                results.append(str(error))

        workers = [threading.Thread(target=work, args=(h, loss, results)) for _ in range(threads)]
        for t in workers:
            t.start()
        for t in workers:
            t.join()
        assert results.count("ok") == 1, results
        assert all("Trying to backward through the graph a second time" in r for r in results if r != "ok")
        expected = x.detach().requires_grad_()
        e = expected.tanh()
        for _ in range(4):
            e = (e * 1.01).sin()
        (e * e).sum().backward()
        torch.testing.assert_close(x.grad.torch(), expected.grad.torch(), rtol=0, atol=0)
