"""``minitorch-rx train | eval | sample | bench | graph``: run a parsed command.

With no options, ``minitorch-rx train`` trains LeNet-5 on the MNIST subset shipped in the
package, on the CPU, and prints the test accuracy. The arguments are parsed and checked in
``arguments.py`` (no torch needed); each command is one function here, listed in ``COMMANDS``,
that imports what it needs.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

from .arguments import TEXT_MODELS, TrainConfig, UsageError, parse, point_latest, print_error


def _train(args: argparse.Namespace) -> int:
    config = TrainConfig(
        model=args.model,
        dataset=args.dataset,
        data_root=args.data_root,
        epochs=args.epochs,
        batch_size=args.batch_size,
        lr=args.lr,
        optimizer=args.optimizer,
        weight_decay=args.weight_decay,
        augment=args.augment,
        device=args.device,
        out=args.out,
        resume=args.resume,
        seed=args.seed,
        limit=args.limit,
        progress=not args.quiet,
        verify=args.verify,
        threads=args.threads,
        conv=args.conv,
    )
    _check_device(config.device)
    if int(os.environ.get("RANK", "0")) == 0 and args.new_run:
        out = Path(config.out)
        out.mkdir(parents=True, exist_ok=True)
        point_latest(out, out.parent)
    if args.model in TEXT_MODELS:  # character-level language models: their own loop (cli/text.py)
        from .text import train_text

        return train_text(args)
    if args.nproc > 1 and "RANK" not in os.environ:
        return _launch_local(config, args.nproc)
    from .training import train

    _report(train(config), config)
    return 0


def _check_device(device: str) -> None:
    """A device this machine has (the spelling was checked while parsing)."""
    import torch

    kind, _, index = device.partition(":")
    if kind == "cuda":
        if not torch.cuda.is_available():
            raise UsageError(f"--device {device}: this machine has no CUDA GPU that torch can use; use --device cpu")
        if index and int(index) >= torch.cuda.device_count():
            raise UsageError(f"--device {device}: this machine has {torch.cuda.device_count()} GPU(s), cuda:0 on")
    if kind == "mps" and not torch.backends.mps.is_available():
        raise UsageError(f"--device {device}: MPS is not available on this machine; use --device cpu")


def _plural(n: int, word: str) -> str:
    return f"{n:,} {word}{'' if n == 1 else 's'}"


def _report(history, config: TrainConfig) -> None:
    if int(os.environ.get("RANK", "0")) == 0:
        print(
            f"test accuracy {history.test_accuracy[-1]:.2%} (test loss {history.test_loss[-1]:.4f}) "
            f"after {_plural(len(history.test_accuracy), 'epoch')}; "
            f"wrote {config.out}/checkpoint.pt, metrics.json, metrics.png, grad_flow.png"
        )


def _launch_local(config: TrainConfig, nproc: int) -> int:
    """Train in ``nproc`` processes on this machine, as ``torchrun --standalone --nproc-per-node``
    would: each gets torchrun's environment variables and ``1/nproc`` of the CPU threads."""
    import torch
    import torch.distributed as dist
    import torch.multiprocessing as mp

    from ..data import get_dataset

    if torch.device(config.device).type == "cuda" and nproc > torch.cuda.device_count():
        gpus = torch.cuda.device_count()
        raise UsageError(f"--nproc {nproc} needs one GPU per process; this machine has {gpus}")
    for train in (True, False):  # check (and unpack) the data once, before the processes start
        get_dataset(config.dataset, config.data_root, train=train, verify=config.verify)
    # The rendezvous store listens here, on a port the OS picks as it binds, as torchrun's agent
    # hosts it: a port probed free and closed could be taken before rank 0 bound it again.
    store = dist.TCPStore("127.0.0.1", 0, is_master=True, wait_for_workers=False)
    try:
        mp.spawn(_local_worker, args=(nproc, store.port, config), nprocs=nproc)
    except (mp.ProcessRaisedException, mp.ProcessExitedException) as error:
        print(f"minitorch-rx train --nproc {nproc} failed: {error}", file=sys.stderr)
        return 1
    return 0


def _local_worker(local_rank: int, nproc: int, port: int, config: TrainConfig) -> None:
    """One process of ``--nproc``: rank ``local_rank`` of ``nproc`` on this machine."""
    import torch

    os.environ.update(
        MASTER_ADDR="127.0.0.1",
        MASTER_PORT=str(port),
        TORCHELASTIC_USE_AGENT_STORE="True",  # every rank a client of the store _launch_local hosts
        RANK=str(local_rank),
        LOCAL_RANK=str(local_rank),
        WORLD_SIZE=str(nproc),
        LOCAL_WORLD_SIZE=str(nproc),
    )
    torch.set_num_threads(max(1, torch.get_num_threads() // nproc))
    from .training import train

    _report(train(config), config)


def _eval(args: argparse.Namespace) -> int:
    import json

    from .. import models
    from ..data import get_dataset
    from ..data.batches import ImageBatches, class_names
    from ..serialization import load
    from .plots import plot_confusion
    from .training import TEST_BATCH, evaluation_sums, model_kwargs

    _check_device(args.device)
    kwargs = model_kwargs(args.model, args.dataset)
    if args.checkpoint is None:
        # The shipped weights trained on --dataset (e.g. lenet5 on fashion_mnist).
        model = models.get(args.model, pretrained=args.dataset, **kwargs)
    else:
        model = models.get(args.model, **kwargs)
        state = load(args.checkpoint, map_location=args.device)
        trained = json.loads(state["config"]) if isinstance(state, dict) and "config" in state else {}
        if trained and trained.get("model") != args.model:
            raise UsageError(
                f"--checkpoint {args.checkpoint} holds a {trained.get('model')} trained on {trained.get('dataset')}: "
                f"pass --model {trained.get('model')} --dataset {trained.get('dataset')}"
            )
        try:
            model.load_state_dict(state["model"] if "model" in state else state)
        except (KeyError, RuntimeError) as error:
            raise UsageError(f"--checkpoint {args.checkpoint} does not fit --model {args.model}: {error}") from None
    model.to(args.device)
    test_set = get_dataset(args.dataset, args.data_root, train=False, verify=args.verify)
    batches = ImageBatches(test_set, args.dataset, TEST_BATCH, device=args.device)
    loss_sum, confusion = evaluation_sums(model, batches, progress=not args.quiet)
    count = int(confusion.sum())
    where = "the MNIST subset shipped in the package" if args.data_root is None else args.data_root
    weights = "shipped weights" if args.checkpoint is None else args.checkpoint
    print(
        f"{args.model} ({weights}) on {args.dataset}'s test set, {count:,} images from {where}: "
        f"accuracy {int(confusion.trace()) / count:.2%}, loss {loss_sum / count:.4f}"
    )
    classes = class_names(test_set, len(confusion))
    per_class = confusion.diagonal() / confusion.sum(1).clamp(min=1)
    width = max(map(len, classes))
    for name, accuracy, total in zip(classes, per_class.tolist(), confusion.sum(1).tolist()):
        print(f"  {name:<{width}}  {accuracy:7.2%} of {total:,}")
    if args.confusion is not None:
        plot_confusion(confusion, classes, Path(args.confusion), f"{args.model} ({weights}) on {args.dataset}")
        print(f"wrote {args.confusion}")
    return 0


def _bench(args: argparse.Namespace) -> int:
    root = Path(__file__).resolve().parents[2]
    if not (root / "bench" / "run.py").exists():
        raise UsageError(
            "the benchmarks live in the source checkout's bench/ folder; run this from a clone of the repository"
        )
    command = [sys.executable, "-m", "bench.run", "--kernels", args.kernels]
    command += ["--quick"] * args.quick + ["--explain"] * args.explain
    if args.data_root is not None:
        command += ["--data-root", str(Path(args.data_root).resolve())]
    return subprocess.call(command, cwd=root)


def _graph(args: argparse.Namespace) -> int:
    from .. import autograd, models, randint, randn
    from ..autograd.memory import format_bytes
    from ..nn import functional as F

    out = Path(args.out)
    if out.suffix not in (".svg", ".html", ".dot"):
        raise UsageError(f"--out must end in .svg, .html or .dot, got {out.name}")
    if args.watch and out.suffix != ".html":
        raise UsageError(f"--watch writes a page: --out must end in .html, got {out.name}")
    model = models.get(args.model)
    shape = models.INPUT_SHAPES[args.model]
    x = randn(args.batch_size, *shape)
    if args.watch:
        return _watch(model, x, randint(0, 10, (args.batch_size,)), args.model, out)
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


def _watch(model, x, y, name: str, out: Path) -> int:
    from .. import autograd
    from ..autograd.memory import format_bytes
    from ..nn import functional as F

    with autograd.watch(model) as film:
        F.cross_entropy(model(x), y).backward()
    out.parent.mkdir(parents=True, exist_ok=True)
    film.to_html(out)
    peak = max(film.memory_curve())
    print(
        f"{name}: one training step in {len(film.steps)} steps over {len(film.nodes)} nodes, holding at most "
        f"{format_bytes(peak)} for backward; wrote {out} (open it in a browser: arrow keys step)"
    )
    return 0


#: The commands: name (as in ``arguments.COMMANDS``) -> the function that runs it and returns the exit status.
def _sample(args: argparse.Namespace) -> int:
    from .text import sample

    return sample(args)


COMMANDS = {"train": _train, "eval": _eval, "sample": _sample, "bench": _bench, "graph": _graph}


def run(args: argparse.Namespace) -> int:
    """Run a parsed command. A mistake found on the way (a missing GPU, a data folder without its
    files, a checkpoint of another model) ends as one line ``minitorch-rx: error: ...``, status 2;
    anything else is a bug and keeps its traceback."""
    try:
        return COMMANDS[args.command](args)
    except Exception as error:
        from ..data.datasets import DataFolderError

        if not isinstance(error, (UsageError, DataFolderError)) or getattr(args, "debug", False):
            raise
        print_error(str(error))
        return 2


def main(argv: list[str] | None = None) -> int:
    return run(parse(argv))
