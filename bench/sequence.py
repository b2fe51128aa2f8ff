"""Training steps of sequence models against torch.nn: the same weights, the same batch, one thread.

Each case builds a minitorch_rx model and its torch.nn twin with the same state dict, then times
one Adam (AdamW for the Transformer) step (zero_grad, forward, MSE against a fixed target, backward, step) of both,
interleaved round by round (medians, see ``common.py``).

    python -m bench.sequence [--rounds 9] [--reps N] [--only lstm,transformer] [--batch B] [--steps T]

Cases:
- ``lstm``: a 2-layer ``nn.LSTM`` 128 -> 256, batch 32 x 64 steps (time-major).
- ``lstm-aten``: the same, torch.nn running its aten LSTM (oneDNN off): the same per-step kernels
  as ours, where ``lstm`` meets oneDNN's fused LSTM layer.
- ``transformer``: a 4-layer ``nn.TransformerEncoder``, d_model 128, 4 heads, feed-forward 512,
  pre-norm, GELU, dropout 0, batch-first, causal (``mask`` + ``is_causal=True``), batch 12 x 64
  positions, AdamW (the baby-GPT configuration of ``gpt_char``, issue 16).
"""

from __future__ import annotations

import argparse
import warnings
from collections.abc import Callable

import torch

import minitorch_rx as mt
import minitorch_rx.nn as nn
import minitorch_rx.nn.functional as F
import minitorch_rx.optim as optim

from .common import Timing, compare, print_table, synchronized


def _lstm(ours: bool) -> object:
    module = nn if ours else torch.nn
    return module.LSTM(128, 256, num_layers=2)


def _transformer(ours: bool) -> object:
    module = nn if ours else torch.nn
    layer = module.TransformerEncoderLayer(
        128, 4, dim_feedforward=512, dropout=0.0, activation="gelu", batch_first=True, norm_first=True
    )
    kwargs = {} if ours else {"enable_nested_tensor": False}
    return module.TransformerEncoder(layer, num_layers=4, **kwargs)


#: name -> (model builder, input shape given (batch, steps), whether the model is causal attention)
CASES: dict[str, tuple[Callable[[bool], object], Callable[[int, int], tuple[int, ...]], bool]] = {
    "lstm": (_lstm, lambda batch, steps: (steps, batch, 128), False),
    "lstm-aten": (_lstm, lambda batch, steps: (steps, batch, 128), False),
    "transformer": (_transformer, lambda batch, steps: (batch, steps, 128), True),
}
DEFAULT_SIZES = {"lstm": (32, 64), "lstm-aten": (32, 64), "transformer": (12, 64)}


def training_steps(
    name: str, batch: int, steps: int, device: str = "cpu"
) -> tuple[Callable[[], object], Callable[[], object]]:
    """(minitorch_rx step, torch step) on twin models and one fixed batch, on ``device``; each
    returns its loss."""
    build, shape, causal = CASES[name]
    torch.manual_seed(0)
    ours, theirs = build(True), build(False)
    theirs.load_state_dict({k: v.torch().clone() for k, v in ours.state_dict().items()})
    ours.to(device)
    theirs.to(device)
    x = torch.randn(shape(batch, steps)).to(device)
    target = torch.randn(x.shape[:-1] + ((256,) if name.startswith("lstm") else (128,))).to(device)
    mt_x, mt_target = mt.tensor(x), mt.tensor(target)
    # AdamW for the Transformer (the baby GPT's optimizer, issue 19's table), Adam for the LSTM
    mt_adam, torch_adam = (optim.AdamW, torch.optim.AdamW) if causal else (optim.Adam, torch.optim.Adam)
    mt_opt, torch_opt = mt_adam(ours.parameters(), lr=1e-3), torch_adam(theirs.parameters(), lr=1e-3)
    if causal:
        mt_mask = nn.Transformer.generate_square_subsequent_mask(steps, device=device)
        torch_mask = torch.nn.Transformer.generate_square_subsequent_mask(steps, device=device)

    def mt_forward():
        if causal:
            return ours(mt_x, mask=mt_mask, is_causal=True)
        return ours(mt_x)[0]

    def torch_forward():
        if causal:
            return theirs(x, mask=torch_mask, is_causal=True)
        return theirs(x)[0]

    def mt_step():
        mt_opt.zero_grad()
        loss = F.mse_loss(mt_forward(), mt_target)
        loss.backward()
        mt_opt.step()
        return loss

    def torch_step():
        with torch.backends.mkldnn.flags(enabled=name != "lstm-aten"):
            torch_opt.zero_grad()
            loss = torch.nn.functional.mse_loss(torch_forward(), target)
            loss.backward()
        torch_opt.step()
        return loss

    return synchronized(mt_step, device), synchronized(torch_step, device)


def run(
    names: list[str] | None = None,
    rounds: int = 9,
    reps: int | None = None,
    batch: int | None = None,
    steps: int | None = None,
    device: str = "cpu",
) -> list[tuple[str, Timing]]:
    """(label, timing against torch) for each case on ``device``; ``batch``/``steps`` override the sizes."""
    rows = []
    for name in names or list(CASES):
        default_batch, default_steps = DEFAULT_SIZES[name]
        size = (batch or default_batch, steps or default_steps)
        ours, theirs = training_steps(name, *size, device)
        adam = "AdamW" if CASES[name][2] else "Adam"
        rows.append((f"{name}, batch {size[0]} x {size[1]} steps, {adam}", compare(ours, theirs, rounds, reps)))
    return rows


def main() -> None:
    warnings.filterwarnings("ignore", "TF32 acceleration on top of oneDNN")
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=9)
    parser.add_argument("--reps", type=int, default=None)
    parser.add_argument("--only", default=None, help="comma-separated case names: " + ",".join(CASES))
    parser.add_argument("--batch", type=int, default=None)
    parser.add_argument("--steps", type=int, default=None)
    args = parser.parse_args()
    names = args.only.split(",") if args.only else None
    rows = run(names, args.rounds, args.reps, args.batch, args.steps)
    print_table("sequence-model training step against torch.nn, 1 thread", rows)


if __name__ == "__main__":
    main()
