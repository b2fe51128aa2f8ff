"""``minitorch-rx train | eval | sample | bench | graph``.

With no options, ``minitorch-rx train`` trains LeNet-5 on the MNIST subset shipped in the
package, on the CPU, and prints the test accuracy.
"""

from __future__ import annotations

import argparse
import os
import socket
import subprocess
import sys
from pathlib import Path

import torch

from . import text
from .training import History, TrainConfig


def _train(args: argparse.Namespace) -> int:
    if text.is_text_run(args):  # character-level language models: their own loop in cli/text.py
        return text.train_text(args)
    from .training import train

    config = TrainConfig(
        model=args.model,
        dataset=args.dataset,
        data_root=args.data_root,
        epochs=args.epochs,
        batch_size=args.batch_size,
        lr=args.lr,
        optimizer=args.optimizer,
        device=args.device,
        out=args.out,
        resume=args.resume,
        seed=args.seed,
        num_workers=args.workers,
        limit=args.limit,
        progress=not args.quiet,
    )
    if args.nproc > 1 and "RANK" not in os.environ:
        return _launch_local(config, args.nproc)
    _report(train(config), config)
    return 0


def _report(history: History, config: TrainConfig) -> None:
    if int(os.environ.get("RANK", "0")) == 0:
        print(
            f"test accuracy {history.test_accuracy[-1]:.2%} (test loss {history.test_loss[-1]:.4f}); "
            f"wrote {config.out}/checkpoint.pt, metrics.json, metrics.png, grad_flow.png"
        )


def _launch_local(config: TrainConfig, nproc: int) -> int:
    """Train in ``nproc`` processes on this machine, as ``torchrun --standalone --nproc-per-node``
    would: each gets torchrun's environment variables and ``1/nproc`` of the CPU threads."""
    if torch.device(config.device).type == "cuda" and nproc > torch.cuda.device_count():
        gpus = torch.cuda.device_count()
        print(f"--nproc {nproc} needs one GPU per process; this machine has {gpus}", file=sys.stderr)
        return 1
    with socket.socket() as probe:  # a free port for the rendezvous on the loopback interface
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    try:
        torch.multiprocessing.spawn(_local_worker, args=(nproc, port, config), nprocs=nproc)
    except (torch.multiprocessing.ProcessRaisedException, torch.multiprocessing.ProcessExitedException) as error:
        print(f"minitorch-rx train --nproc {nproc} failed: {error}", file=sys.stderr)
        return 1
    return 0


def _local_worker(local_rank: int, nproc: int, port: int, config: TrainConfig) -> None:
    """One process of ``--nproc``: rank ``local_rank`` of ``nproc`` on this machine."""
    os.environ.update(
        MASTER_ADDR="127.0.0.1",
        MASTER_PORT=str(port),
        RANK=str(local_rank),
        LOCAL_RANK=str(local_rank),
        WORLD_SIZE=str(nproc),
        LOCAL_WORLD_SIZE=str(nproc),
    )
    torch.set_num_threads(max(1, torch.get_num_threads() // nproc))
    from .training import train

    _report(train(config), config)


def _eval(args: argparse.Namespace) -> int:
    from .. import models
    from ..data import DataLoader, get_dataset
    from ..serialization import load
    from .training import _model_kwargs, evaluate

    if args.checkpoint is None:
        # The shipped weights trained on --dataset (e.g. lenet5 on fashion_mnist).
        model = models.get(
            args.model, pretrained=args.dataset.replace("-", "_"), **_model_kwargs(args.model, args.dataset)
        )
    else:
        model = models.get(args.model, **_model_kwargs(args.model, args.dataset))
        state = load(args.checkpoint)
        model.load_state_dict(state["model"] if "model" in state else state)
    model.to(args.device)
    loader = DataLoader(get_dataset(args.dataset, args.data_root, train=False), batch_size=256)
    loss, accuracy = evaluate(model, loader, args.device, progress=not args.quiet)
    print(
        f"{args.model} on {args.dataset} test set ({len(loader.dataset)} images): "
        f"accuracy {accuracy:.2%}, loss {loss:.4f}"
    )
    return 0


def _bench(args: argparse.Namespace) -> int:
    root = Path(__file__).resolve().parents[2]
    if not (root / "bench" / "run.py").exists():
        print(
            "the benchmarks live in the source checkout's bench/ folder; run this from a clone of the repository",
            file=sys.stderr,
        )
        return 1
    command = [sys.executable, "-m", "bench.run"] + (["--quick"] if args.quick else [])
    return subprocess.call(command, cwd=root)


def _graph(args: argparse.Namespace) -> int:
    from .. import autograd, models, randint, randn
    from ..autograd.memory import format_bytes
    from ..nn import functional as F

    out = Path(args.out)
    if out.suffix not in (".svg", ".html", ".dot"):
        print(f"--out must end in .svg, .html or .dot, got {out.name}", file=sys.stderr)
        return 2
    model = models.get(args.model)
    shape = models.INPUT_SHAPES[args.model]
    x = randn(args.batch_size, *shape)
    with autograd.Graph(module=model) as graph:
        loss = F.cross_entropy(model(x), randint(0, 10, (args.batch_size,)))
        if args.grads:
            loss.backward(retain_graph=True)
    out.parent.mkdir(parents=True, exist_ok=True)
    if out.suffix == ".dot":
        out.write_text(graph.to_dot())
    elif out.suffix == ".svg":
        out.write_text(graph.to_svg(grads=args.grads, depth=args.depth))
    else:
        out.write_text(graph.to_html(grads=args.grads, depth=args.depth))
    print(
        f"{args.model}: one training step records {graph.num_nodes()} nodes and {graph.num_edges()} edges, "
        f"keeping {format_bytes(graph.saved_bytes())} for backward; wrote {out}"
    )
    del loss
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="minitorch-rx", description="Train, evaluate, benchmark and draw minitorch_rx models."
    )
    commands = parser.add_subparsers(dest="command", required=True)
    defaults = TrainConfig()

    train = commands.add_parser("train", help="train a zoo model (default: LeNet-5 on the shipped MNIST subset)")
    train.add_argument("--model", default=defaults.model)
    train.add_argument("--dataset", default=defaults.dataset, help="mnist, fashion_mnist or cifar10")
    train.add_argument(
        "--data-root", default=None, help="torchvision data folder (default: the MNIST subset shipped in the package)"
    )
    train.add_argument("--epochs", type=int, default=defaults.epochs)
    train.add_argument("--batch-size", type=int, default=defaults.batch_size)
    train.add_argument("--lr", type=float, default=defaults.lr)
    train.add_argument("--optimizer", default=defaults.optimizer, choices=["sgd", "adam", "adamw"])
    train.add_argument("--device", default=defaults.device)
    train.add_argument("--out", default=defaults.out, help="folder for checkpoint.pt, metrics.json and metrics.png")
    train.add_argument("--resume", default=None, help="a checkpoint.pt to continue from")
    train.add_argument("--seed", type=int, default=defaults.seed)
    train.add_argument("--workers", type=int, default=defaults.num_workers)
    train.add_argument("--limit", type=int, default=None, help="use only the first N training and test images")
    train.add_argument("--quiet", action="store_true", help="no progress bars")
    train.add_argument(
        "--nproc",
        type=int,
        default=1,
        help="data-parallel training in N local processes (--batch-size is per process); "
        "under torchrun the process count is torchrun's and this is ignored",
    )
    text.add_train_arguments(train)
    train.set_defaults(run=_train)

    evaluate = commands.add_parser("eval", help="test accuracy of a checkpoint (or of the shipped pretrained weights)")
    evaluate.add_argument("--model", default=defaults.model)
    evaluate.add_argument(
        "--checkpoint", default=None, help="a checkpoint or state dict (default: the shipped pretrained weights)"
    )
    evaluate.add_argument("--dataset", default=defaults.dataset)
    evaluate.add_argument("--data-root", default=None)
    evaluate.add_argument("--device", default="cpu")
    evaluate.add_argument("--quiet", action="store_true")
    evaluate.set_defaults(run=_eval)

    text.add_sample_parser(commands)

    bench = commands.add_parser("bench", help="run the bench/ suites and print their ratios to PyTorch")
    bench.add_argument("--quick", action="store_true", help="fewer rounds and smaller sizes")
    bench.set_defaults(run=_bench)

    graph = commands.add_parser(
        "graph", help="draw the graph of one training step: SVG, HTML (zoom, hover details) or Graphviz DOT"
    )
    graph.add_argument("--model", default=defaults.model)
    graph.add_argument("--batch-size", type=int, default=2)
    graph.add_argument("--out", default="runs/graph.svg", help="FILE.svg, FILE.html or FILE.dot")
    graph.add_argument("--depth", type=int, default=None, help="draw each module at depth N as one box")
    graph.add_argument("--grads", action="store_true", help="colour nodes by gradient norm (vanishing/exploding)")
    graph.set_defaults(run=_graph)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    return args.run(args)
