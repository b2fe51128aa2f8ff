"""``ctc_loss``: the connectionist temporal classification loss, by the forward-backward (alpha-beta)
recursion in log space, vectorised over the batch and the extended label sequence (labels with
blanks between them), one time step at a time.

Forward computes alpha and the negative log likelihood; backward computes beta and, from
``alpha + beta``, the gradient as PyTorch's kernel reports it: ``exp(lp) - exp(lcab + nll - lp)``
per time step and class (``lcab`` the log of the summed ``alpha * beta`` over the extended
positions holding that class). That is the gradient of the loss with respect to the logits behind a
``log_softmax`` (the usual case: through ``log_softmax``'s backward it equals the exact
derivative), not the bare partial derivative with respect to ``log_probs``; it is zero past each
sequence's input length. The op has no second derivative (PyTorch's has none either): under
``create_graph=True`` its gradient is recorded as a constant.
"""

from __future__ import annotations

from collections.abc import Sequence

import torch

from ..autograd.function import Function
from ..autograd.tensor import Tensor, is_torch_data
from .constants import tensor_arg
from .loss import MEAN, NONE, SUM, _reduction

NEG_INF = float("-inf")


def _shift(values: torch.Tensor, by: int) -> torch.Tensor:
    """``values`` moved ``by`` places along the last dim (right for positive), filled with -inf."""
    out = torch.full_like(values, NEG_INF)
    if by > 0:
        out[..., by:] = values[..., :-by]
    else:
        out[..., :by] = values[..., -by:]
    return out


def _logsumexp3(a: torch.Tensor, b: torch.Tensor, c: torch.Tensor) -> torch.Tensor:
    """``log(exp(a) + exp(b) + exp(c))`` elementwise, -inf where all three are (a few elementwise
    kernels: ``torch.logsumexp`` over a stacked dim costs far more at these sizes)."""
    top = torch.maximum(torch.maximum(a, b), c)
    top = top.masked_fill(torch.isinf(top), 0.0)
    return ((a - top).exp_() + (b - top).exp_() + (c - top).exp_()).log_() + top


def _extended(targets: torch.Tensor, blank: int) -> tuple[torch.Tensor, torch.Tensor]:
    """The extended label sequences ``(N, 2S + 1)`` (blank, l1, blank, l2, ..., blank) and the
    mask of positions that may be reached by skipping a blank (a label unlike the one two back)."""
    batch, length = targets.shape
    extended = torch.full((batch, 2 * length + 1), blank, dtype=torch.long, device=targets.device)
    extended[:, 1::2] = targets
    skip = torch.zeros_like(extended, dtype=torch.bool)
    skip[:, 2:] = (extended[:, 2:] != blank) & (extended[:, 2:] != extended[:, :-2])
    return extended, skip


def _alpha(lp_ext: torch.Tensor, skip: torch.Tensor) -> torch.Tensor:
    steps = lp_ext.shape[0]
    alpha = torch.full_like(lp_ext, NEG_INF)
    alpha[0, :, :2] = lp_ext[0, :, :2]
    for t in range(1, steps):
        previous = alpha[t - 1]
        skipped = _shift(previous, 2).masked_fill(~skip, NEG_INF)
        alpha[t] = _logsumexp3(previous, _shift(previous, 1), skipped) + lp_ext[t]
    return alpha


def _beta(lp_ext, skip, input_lengths, last, last_label):
    """beta[t, b, s]: log probability of emitting the rest of the labels from position ``s`` at
    ``t`` (``lp`` at ``t`` included), started at each sequence's own last step."""
    steps, batch, width = lp_ext.shape
    beta = torch.full_like(lp_ext, NEG_INF)
    positions = torch.arange(width, device=lp_ext.device)
    at_end = (positions == last.unsqueeze(1)) | (positions == last_label.unsqueeze(1))
    skip_from = torch.zeros_like(skip)  # skipping from s to s + 2 is allowed where skip[s + 2]
    skip_from[:, :-2] = skip[:, 2:]
    for t in range(steps - 1, -1, -1):
        start = lp_ext[t].masked_fill(~at_end, NEG_INF)
        if t == steps - 1:
            step = torch.full_like(start, NEG_INF)
        else:
            following = beta[t + 1]
            skipped = _shift(following, -2).masked_fill(~skip_from, NEG_INF)
            step = _logsumexp3(following, _shift(following, -1), skipped) + lp_ext[t]
        is_last = (input_lengths == t + 1).unsqueeze(1)
        inside = (input_lengths > t + 1).unsqueeze(1)
        beta[t] = torch.where(is_last, start, torch.where(inside, step, NEG_INF))
    return beta


class CTCLoss(Function):
    """``(T, N, C)`` log-probabilities, ``(N, S)`` padded targets and lengths -> ``(N,)`` losses
    (reduced as asked)."""

    @staticmethod
    def forward(ctx, log_probs, targets, input_lengths, target_lengths, blank, reduction, zero_infinity):
        steps, batch, _ = log_probs.shape
        extended, skip = _extended(targets, blank)
        lp_ext = log_probs.gather(2, extended.unsqueeze(0).expand(steps, -1, -1))
        alpha = _alpha(lp_ext, skip)
        last = 2 * target_lengths
        final = alpha[(input_lengths - 1).clamp(min=0), torch.arange(batch, device=log_probs.device)]
        end_blank = final.gather(1, last.unsqueeze(1)).squeeze(1)
        end_label = final.gather(1, (last - 1).clamp(min=0).unsqueeze(1)).squeeze(1)
        end_label = end_label.masked_fill(target_lengths == 0, NEG_INF)
        nll = -torch.logaddexp(end_blank, end_label)
        nll = nll.masked_fill(input_lengths == 0, float("inf")).masked_fill((input_lengths == 0) & (last == 0), 0.0)
        losses = nll.masked_fill(torch.isinf(nll), 0.0) if zero_infinity else nll
        ctx.save_for_backward(log_probs, extended, skip, alpha, nll, input_lengths, target_lengths)
        ctx.options = (reduction, zero_infinity)
        if reduction == MEAN:
            return (losses / target_lengths.clamp(min=1).to(losses.dtype)).mean()
        return losses.sum() if reduction == SUM else losses

    @staticmethod
    def backward(ctx, grad):
        log_probs, extended, skip, alpha, nll, input_lengths, target_lengths = ctx.saved_tensors
        reduction, zero_infinity = ctx.options
        if isinstance(grad, Tensor):  # as PyTorch's: its derivative has no derivative of its own
            raise RuntimeError(
                "the derivative for 'ctc_loss_backward' is not implemented: ctc_loss cannot be "
                "differentiated twice (create_graph=True)"
            )
        raw = [t._data if isinstance(t, Tensor) else t for t in (grad, log_probs, alpha, nll)]
        grad_data, log_probs, alpha, nll = raw
        steps, batch, classes = log_probs.shape
        if reduction == MEAN:
            per_sample = grad_data / target_lengths.clamp(min=1).to(log_probs.dtype) / batch
        else:
            per_sample = grad_data.expand(batch) if reduction == SUM else grad_data
        lp_ext = log_probs.gather(2, extended.unsqueeze(0).expand(steps, -1, -1))
        last = 2 * target_lengths
        last_label = torch.where(target_lengths > 0, last - 1, last)
        beta = _beta(lp_ext, skip, input_lengths, last, last_label)
        # log of sum over extended positions of class c of alpha * beta, per (t, b, c)
        ab = alpha + beta
        top = ab.amax(2, keepdim=True).clamp(min=torch.finfo(ab.dtype).min)
        summed = torch.zeros_like(log_probs).scatter_add_(
            2, extended.unsqueeze(0).expand(steps, -1, -1), (ab - top).exp()
        )
        lcab = summed.log() + top
        result = log_probs.exp() - (lcab + nll.view(1, batch, 1) - log_probs).exp()
        valid = torch.arange(steps, device=log_probs.device).view(steps, 1) < input_lengths.view(1, batch)
        result = torch.where(valid.unsqueeze(2), result * per_sample.view(1, batch, 1), 0.0)
        if zero_infinity:
            result = result.masked_fill(torch.isinf(nll).view(1, batch, 1), 0.0)
        if isinstance(grad, Tensor):
            result = Tensor._make(result, None)
        return result, None, None, None, None, None, None


def _lengths(name: str, lengths: object, batch: int, device: torch.device) -> torch.Tensor:
    if isinstance(lengths, Tensor):
        lengths = lengths._data
    if is_torch_data(lengths):
        values = lengths.to(device=device, dtype=torch.long).reshape(-1)
    elif isinstance(lengths, int):
        values = torch.tensor([lengths], dtype=torch.long, device=device)
    elif isinstance(lengths, Sequence):
        values = torch.tensor(list(lengths), dtype=torch.long, device=device)
    else:
        raise TypeError(
            f"ctc_loss(): argument '{name}' must be a tuple of ints or a Tensor, not {type(lengths).__name__}"
        )
    if values.numel() != batch:
        raise RuntimeError(f"{name} must be of size batch_size")
    return values


def ctc_loss(
    log_probs: Tensor,
    targets: Tensor,
    input_lengths: Tensor | Sequence[int],
    target_lengths: Tensor | Sequence[int],
    blank: int = 0,
    reduction: str = "mean",
    zero_infinity: bool = False,
) -> Tensor:
    """The CTC loss of ``targets`` under per-step log-probabilities ``log_probs``.

    ``log_probs`` is ``(T, N, C)`` (or ``(T, C)`` unbatched), usually a ``log_softmax`` output;
    ``targets`` is ``(N, S)`` padded or the ``(sum(target_lengths),)`` concatenation (or ``(S,)``
    unbatched) of class indices other than ``blank``; ``input_lengths`` and ``target_lengths``
    give each sequence's lengths (tensors or tuples). ``'mean'`` divides each loss by its target
    length, then averages over the batch. An impossible alignment costs ``inf`` (0, and no
    gradient, with ``zero_infinity``).

    >>> import minitorch_rx as mt
    >>> lp = mt.zeros(2, 1, 2).log_softmax(2)
    >>> round(ctc_loss(lp, mt.tensor([[1]]), [2], [1], reduction="sum").item(), 4)
    0.2877
    """
    log_probs = tensor_arg(log_probs, "ctc_loss", "log_probs", 1)
    targets = tensor_arg(targets, "ctc_loss", "targets", 2)
    if is_torch_data(log_probs):
        log_probs = Tensor._make(log_probs, None)
    reduction_enum = _reduction(reduction)
    target_data = targets._data if isinstance(targets, Tensor) else targets
    if target_data.is_floating_point():
        raise RuntimeError(f"ctc_loss: expected targets of an integer type, got {target_data.dtype}")
    dims = log_probs._data.dim()
    if dims not in (2, 3):
        raise RuntimeError(f"ctc_loss: expected log_probs to be 2-D (unbatched) or 3-D (T, N, C), got {dims}-D")
    unbatched = dims == 2
    if unbatched:
        log_probs = log_probs.unsqueeze(1)
        target_data = target_data.unsqueeze(0)
    steps, batch, classes = log_probs._data.shape
    device = log_probs._data.device
    if not 0 <= blank < classes:
        raise RuntimeError("blank must be in label range")
    input_lengths = _lengths("input_lengths", input_lengths, batch, device)
    target_lengths = _lengths("target_lengths", target_lengths, batch, device)
    if batch and int(input_lengths.max()) > steps:
        raise RuntimeError(
            f"Expected input_lengths to have value at most {steps}, but got value {int(input_lengths.max())} "
            "(while checking arguments for ctc_loss_cpu)"
        )
    target_data = target_data.to(device=device, dtype=torch.long)
    longest = int(target_lengths.max()) if batch else 0
    if target_data.dim() == 1:
        padded = target_data.new_full((batch, longest), blank)
        offsets = torch.cumsum(target_lengths, 0) - target_lengths
        for b in range(batch):
            length = int(target_lengths[b])
            padded[b, :length] = target_data[int(offsets[b]) : int(offsets[b]) + length]
        target_data = padded
    elif target_data.shape[1] < longest:
        raise RuntimeError(
            f"Expected tensor to have size at least {longest} at dimension 1, but got size "
            f"{target_data.shape[1]} for argument #2 'targets' (while checking arguments for ctc_loss_cpu)"
        )
    target_data = target_data[:, :longest]
    loss = CTCLoss.apply(log_probs, target_data, input_lengths, target_lengths, blank, reduction_enum, zero_infinity)
    return loss.squeeze(0) if unbatched and reduction_enum == NONE else loss
