"""The ``minitorch-rx`` command line's arguments: the parser, the registries of models and data
sets, and every check that needs no torch.

This module imports only the standard library (no torch, and nothing else from minitorch_rx):
the ``minitorch-rx`` script (``minitorch_rx_cli``) loads it by its path, parses and checks the
arguments, and only then imports minitorch_rx and torch, so that ``--help``, ``--version`` and
argument errors are instant.

To add a data set: a ``DatasetSpec`` in ``DATASETS`` (and its loader in
``minitorch_rx.data.get_dataset``). To add a model: its name and the kind of data it takes in
``MODELS``. To add a command: an ``add_<name>(commands)`` function here, listed in ``COMMANDS``,
and a function of the same name in ``main.py``'s ``COMMANDS`` that runs it.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
import time
from dataclasses import dataclass, replace
from pathlib import Path

PROG = "minitorch-rx"


class UsageError(Exception):
    """A mistake in the command line or in what it points at: ``minitorch-rx`` prints the message
    as one line ``minitorch-rx: error: ...`` and exits with status 2 (argparse's convention)."""


@dataclass(frozen=True)
class DatasetSpec:
    """A data set ``train`` and ``eval`` can use."""

    kind: str  # the kind of example: models of the same kind (``MODELS``) train on it
    shape: tuple[int, ...]  # one example, channels first
    classes: int
    layout: str  # what --data-root holds
    shipped: bool = False  # a subset ships in the package: --data-root is optional
    about: str = ""


DATASETS: dict[str, DatasetSpec] = {
    "mnist": DatasetSpec(
        "image", (1, 28, 28), 10, "MNIST/raw/*-ubyte.gz", shipped=True, about="handwritten digits, 60,000/10,000"
    ),
    "fashion_mnist": DatasetSpec(
        "image", (1, 28, 28), 10, "FashionMNIST/raw/*-ubyte.gz", about="clothes, 60,000/10,000"
    ),
    "cifar10": DatasetSpec("image", (3, 32, 32), 10, "cifar-10-batches-py/", about="photos, 50,000/10,000"),
    "tinyshakespeare": DatasetSpec(
        "text", (), 65, "tinyshakespeare/input.txt", shipped=True, about="Shakespeare's plays, 1.1M characters"
    ),
}

#: The model zoo (``mt.models.list()``; a test checks that they agree) and the kind of data each takes.
MODELS: dict[str, str] = {
    "c3d_small": "volume",
    "char_lstm": "text",
    "gpt_char": "text",
    "lenet5": "image",
    "m5": "audio",
    "mlp": "image",
    "resnet18": "image",
    "resnet20": "image",
    "resnet34": "image",
    "vgg11_bn": "image",
}

#: The shipped weights (``mt.models.PRETRAINED``; a test checks that they agree): model -> data sets.
PRETRAINED: dict[str, tuple[str, ...]] = {
    "char_lstm": ("tinyshakespeare",),
    "gpt_char": ("tinyshakespeare",),
    "lenet5": ("mnist", "fashion_mnist"),
    "resnet20": ("cifar10",),
}

#: Character-level models (``cli/text.py`` trains them): batch size, learning rate, minimum learning rate.
TEXT_MODELS = {"gpt_char": (12, 1e-3, 1e-4), "char_lstm": (32, 2e-3, 2e-4)}

#: AdamW's weight decay of the text models, on their matrices only.
TEXT_WEIGHT_DECAY = 0.1

#: Where ``train`` puts its run folders when no --out is given (``runs/latest`` points at the newest).
RUNS = Path("runs")

#: Epochs of the CIFAR-10 recipe (the shipped ResNet-20 weights were trained with it).
CIFAR_EPOCHS = 100


@dataclass(frozen=True)
class Recipe:
    """How a data set's models train unless the command line says otherwise."""

    epochs: int
    batch_size: int
    lr: float
    weight_decay: float
    nesterov: bool
    augment: bool  # random crops of the image padded by 4 pixels, and horizontal flips


#: The default training of each image data set (``minitorch-rx train --dataset NAME``). CIFAR-10's is
#: the standard one of He et al. 2016 with a cosine schedule in place of their steps.
RECIPES: dict[str, Recipe] = {
    "mnist": Recipe(epochs=8, batch_size=64, lr=0.05, weight_decay=0.0, nesterov=False, augment=False),
    "fashion_mnist": Recipe(epochs=8, batch_size=64, lr=0.05, weight_decay=0.0, nesterov=False, augment=False),
    "cifar10": Recipe(epochs=CIFAR_EPOCHS, batch_size=128, lr=0.1, weight_decay=5e-4, nesterov=True, augment=True),
}


@dataclass
class TrainConfig:
    """What ``minitorch-rx train`` (and ``minitorch_rx.cli.training.train``) trains, and how.
    Options left at None take the data set's ``RECIPES`` value (``with_recipe``)."""

    model: str = "lenet5"
    dataset: str = "mnist"
    data_root: str | None = None
    epochs: int | None = None
    batch_size: int | None = None
    lr: float | None = None
    optimizer: str = "sgd"
    momentum: float = 0.9
    weight_decay: float | None = None
    nesterov: bool | None = None
    augment: bool | None = None
    device: str = "cpu"
    out: str | None = None  # None: a new folder runs/<model>_<dataset>_<date>-<time>
    resume: str | None = None
    seed: int = 0
    limit: int | None = None  # train (and test) on the first `limit` images only: quick smoke runs
    progress: bool = True
    verify: bool = True  # check data files against torchvision's checksums
    threads: int | None = None  # torch's CPU threads (None: torch's default)
    conv: str | None = None  # mt.backends.conv for the run (None: as it is)

    def with_recipe(self) -> TrainConfig:
        """This configuration with every option left at None set from its data set's recipe."""
        recipe = RECIPES[self.dataset.lower().replace("-", "_")]
        chosen = {key: getattr(recipe, key) for key in vars(recipe) if getattr(self, key) is None}
        return replace(self, **chosen)


def version() -> str:
    """minitorch_rx's version, read from the package's ``__init__.py`` (without importing it)."""
    text = (Path(__file__).resolve().parents[1] / "__init__.py").read_text()
    found = re.search(r'^__version__ = "([^"]+)"', text, flags=re.M)
    return found.group(1) if found else "unknown"


class HelpFormatter(argparse.ArgumentDefaultsHelpFormatter):
    """Shows each option's default, except where there is none to show (None, a flag's on or off)."""

    def _get_help_string(self, action: argparse.Action) -> str:
        if action.default is None or isinstance(action.default, bool):
            return action.help or ""
        return super()._get_help_string(action)


class Parser(argparse.ArgumentParser):
    """argparse, with errors as one line ``minitorch-rx: error: ...`` (exit status 2)."""

    def error(self, message: str) -> None:  # type: ignore[override]
        command = self.prog.split(" ", 1)[1] + " " if " " in self.prog else ""
        fail(f"{message} (see `{PROG} {command}--help`)")


def _at_least(low: int, kind=int):
    def parse(text: str):
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(
                f"expected {'an integer' if kind is int else 'a number'}, got {text!r}"
            ) from None
        if value < low:
            raise argparse.ArgumentTypeError(f"must be at least {low}, got {text}")
        return value

    parse.__name__ = kind.__name__
    return parse


def _positive_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
    if not value > 0:
        raise argparse.ArgumentTypeError(f"must be greater than 0, got {text}")
    return value


def _dataset_name(text: str) -> str:
    return text.lower().replace("-", "_")


def _device(text: str) -> str:
    if not re.fullmatch(r"cpu|cuda(:\d+)?|mps", text):
        raise argparse.ArgumentTypeError(f"expected cpu, cuda, cuda:N or mps, got {text!r}")
    return text


def _add_common(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--debug", action="store_true", default=argparse.SUPPRESS, help="show Python tracebacks for errors too"
    )


def _add_model(parser: argparse.ArgumentParser, default: str) -> None:
    kinds = {kind: [name for name, k in MODELS.items() if k == kind] for kind in dict.fromkeys(MODELS.values())}
    order = sorted(kinds, key=lambda kind: (kind != "image", kind))  # image models first
    described = "; ".join(f"{kind}: {', '.join(kinds[kind])}" for kind in order)
    parser.add_argument("--model", default=default, choices=list(MODELS), metavar="MODEL", help=described)


def _add_data(parser: argparse.ArgumentParser) -> None:
    described = "; ".join(f"{name} ({spec.about})" for name, spec in DATASETS.items())
    parser.add_argument(
        "--dataset",
        default=None,
        type=_dataset_name,
        choices=list(DATASETS),
        metavar="DATASET",
        help=f"{described}. Default: mnist for image models, tinyshakespeare for text models; "
        "eval: the data set of the model's shipped weights (cifar10 for resnet20)",
    )
    layouts = ", ".join(f"{spec.layout} for {name}" for name, spec in DATASETS.items())
    parser.add_argument(
        "--data-root",
        default=None,
        metavar="DIR",
        help=f"a folder in torchvision's layout: {layouts} (.gz files are unpacked, beside them or in a cache "
        "if the folder is read-only). Default: the MNIST subset shipped in the package (10,000/2,000 images)",
    )
    parser.add_argument(
        "--no-verify",
        dest="verify",
        action="store_false",
        help="use data files whose checksums differ from torchvision's (a re-encoded copy, a subset)",
    )


def add_train(commands) -> argparse.ArgumentParser:
    defaults = TrainConfig()
    train = commands.add_parser(
        "train",
        help="train a zoo model (default: LeNet-5 on the MNIST subset shipped in the package)",
        description="Train a zoo model; write checkpoint.pt, metrics.json and metrics.png to a new run folder "
        f"{RUNS}/<model>_<dataset>_<date>-<time> ({RUNS}/latest points at the newest) or to --out.",
        formatter_class=HelpFormatter,
    )
    _add_model(train, defaults.model)
    _add_data(train)
    recipes = "; ".join(
        f"{name}: {recipe.epochs} epochs, batch {recipe.batch_size}, lr {recipe.lr:g}, weight decay "
        f"{recipe.weight_decay:g}{', Nesterov momentum' if recipe.nesterov else ''}"
        f"{', crops and flips' if recipe.augment else ''}"
        for name, recipe in RECIPES.items()
    )
    train.description += f" Image models train by their data set's recipe unless told otherwise ({recipes})."
    train.add_argument("--epochs", type=_at_least(1), default=None, help="epochs in all (with --resume too)")
    train.add_argument("--batch-size", type=_at_least(1), default=None, help="images per step")
    train.add_argument("--lr", type=_positive_float, default=None, help="initial learning rate (cosine annealing to 0)")
    train.add_argument(
        "--weight-decay",
        type=_at_least(0, float),
        default=None,
        help="L2 penalty (SGD) or decoupled decay (AdamW; text models: 0.1, on matrices only)",
    )
    train.add_argument(
        "--augment",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="random crops (4-pixel padding) and horizontal flips of the training images",
    )
    train.add_argument("--optimizer", default=defaults.optimizer, choices=["sgd", "adam", "adamw"], help="optimizer")
    train.add_argument("--device", type=_device, default=defaults.device, help="cpu, cuda, cuda:N or mps")
    train.add_argument("--threads", type=_at_least(1), default=None, help="torch CPU threads (default: torch's)")
    train.add_argument(
        "--conv",
        choices=["im2col", "native"],
        default=None,
        help="how convolutions compute: im2col + matmul (the default) or PyTorch's native kernels",
    )
    train.add_argument(
        "--out",
        default=None,
        metavar="DIR",
        help=f"the run folder (default: a new {RUNS}/<model>_<dataset>_<date>-<time>)",
    )
    train.add_argument("--overwrite", action="store_true", help="let --out replace the run already in that folder")
    train.add_argument(
        "--resume",
        default=None,
        metavar="PATH",
        help="continue from this checkpoint.pt (into its own folder unless --out); --epochs above the "
        "checkpoint's stretch its cosine schedule to the new length",
    )
    train.add_argument("--seed", type=int, default=defaults.seed, help="seed of the initialization and data order")
    train.add_argument("--limit", type=_at_least(1), default=None, help="use only the first N training and test images")
    train.add_argument("--quiet", action="store_true", help="no progress bars or per-epoch lines")
    train.add_argument(
        "--nproc",
        type=_at_least(1),
        default=1,
        help="data-parallel training in N local processes (--batch-size is per process); "
        "under torchrun the process count is torchrun's and this is ignored",
    )
    _add_text_arguments(train)
    _add_common(train)
    return train


def add_eval(commands) -> argparse.ArgumentParser:
    evaluate = commands.add_parser(
        "eval",
        help="test accuracy of a checkpoint (or of the shipped pretrained weights)",
        description="Test accuracy and loss of a checkpoint, or of the weights shipped in the package "
        "(lenet5 on mnist or fashion_mnist, resnet20 on cifar10).",
        formatter_class=HelpFormatter,
    )
    _add_model(evaluate, "lenet5")
    evaluate.add_argument(
        "--checkpoint",
        default=None,
        metavar="PATH",
        help="a checkpoint or state dict (default: the shipped pretrained weights)",
    )
    _add_data(evaluate)
    evaluate.add_argument("--device", type=_device, default="cpu", help="cpu, cuda, cuda:N or mps")
    evaluate.add_argument(
        "--confusion", default=None, metavar="FILE.png", help="draw the confusion matrix and per-class accuracy"
    )
    evaluate.add_argument("--quiet", action="store_true", help="no progress bar")
    _add_common(evaluate)
    return evaluate


def add_bench(commands) -> argparse.ArgumentParser:
    bench = commands.add_parser(
        "bench",
        help="run the bench/ suites and print their ratios to PyTorch (from a source checkout)",
        description="Run every suite of bench/ (several minutes; --quick under one) and print one table.",
        formatter_class=HelpFormatter,
    )
    bench.add_argument("--quick", action="store_true", help="fewer rounds and smaller sizes: checks that they run")
    bench.add_argument(
        "--kernels",
        choices=("tuned", "fixed", "mkl"),
        default="tuned",
        help="tuned: measured on this machine (mt.backends.autotune); fixed: the fixed rules; mkl: fixed, "
        "every product MKL's",
    )
    bench.add_argument(
        "--explain", action="store_true", help="after the table, every kernel choice the tuner made and its times"
    )
    bench.add_argument(
        "--data-root",
        default=None,
        metavar="DIR",
        help="for the accuracy row: a folder holding MNIST/raw/*-ubyte.gz (default: $MINITORCH_RX_MNIST, "
        "else the MNIST subset shipped in the package)",
    )
    _add_common(bench)
    return bench


def add_graph(commands) -> argparse.ArgumentParser:
    graph = commands.add_parser(
        "graph",
        help="draw the graph of one training step: SVG, HTML (zoom, hover details) or Graphviz DOT",
        formatter_class=HelpFormatter,
    )
    _add_model(graph, "lenet5")
    graph.add_argument("--batch-size", type=_at_least(1), default=2, help="examples in the step")
    graph.add_argument("--out", default="runs/graph.svg", metavar="PATH", help="FILE.svg, FILE.html or FILE.dot")
    graph.add_argument("--depth", type=_at_least(1), default=None, help="draw each module at depth N as one box")
    graph.add_argument("--grads", action="store_true", help="colour nodes by gradient norm (vanishing/exploding)")
    graph.add_argument(
        "--watch",
        action="store_true",
        help="write the page that plays the step forward and backward, node by node (--out FILE.html)",
    )
    _add_common(graph)
    return graph


def _add_text_arguments(train: argparse.ArgumentParser) -> None:
    """The options only the text models read."""
    group = train.add_argument_group("text models (gpt_char, char_lstm on tinyshakespeare)")
    group.add_argument("--iters", type=_at_least(1), default=2000, help="training steps")
    group.add_argument("--block-size", type=_at_least(1), default=64, help="characters per training sequence")
    group.add_argument("--eval-interval", type=_at_least(1), default=250, help="steps between evaluations")
    group.add_argument("--eval-iters", type=_at_least(1), default=20, help="batches per evaluation (train and val)")
    group.add_argument("--warmup-iters", type=_at_least(0), default=100, help="steps of linear warmup")
    group.add_argument("--min-lr", type=float, default=None, help="final learning rate of the cosine decay")
    group.add_argument("--grad-clip", type=_at_least(0, float), default=1.0, help="0: no clipping")


def add_sample(commands) -> argparse.ArgumentParser:
    sample = commands.add_parser(
        "sample", help="generate text with a character-level model", formatter_class=HelpFormatter
    )
    text_models = sorted(TEXT_MODELS)
    sample.add_argument(
        "--model", default="gpt_char", choices=text_models, metavar="MODEL", help=", ".join(text_models)
    )
    sample.add_argument(
        "--checkpoint", default=None, metavar="PATH", help="a checkpoint.pt from `train` (default: the shipped weights)"
    )
    sample.add_argument("--prompt", default="\n", help="the text to continue")
    sample.add_argument("--tokens", type=_at_least(0), default=300, help="characters to generate")
    sample.add_argument("--temperature", type=float, default=0.8, help="sampling temperature (> 0)")
    sample.add_argument("--top-k", type=_at_least(1), default=None, help="sample among the k likeliest characters")
    sample.add_argument("--seed", type=int, default=0, help="random seed")
    sample.add_argument("--device", default="cpu", help="cpu, cuda, cuda:N")
    _add_common(sample)
    return sample


#: The commands, in the order ``--help`` lists them: name -> the function that adds its parser.
COMMANDS = {"train": add_train, "eval": add_eval, "sample": add_sample, "bench": add_bench, "graph": add_graph}


def build_parser() -> argparse.ArgumentParser:
    parser = Parser(
        prog=PROG,
        description="Train, evaluate, benchmark and draw minitorch_rx models.",
        epilog=f"`{PROG} COMMAND --help` describes a command's options.",
    )
    parser.add_argument("--version", action="version", version=f"{PROG} {version()}")
    _add_common(parser)
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for add in COMMANDS.values():
        add(commands)
    return parser


def parse(argv: list[str] | None = None) -> argparse.Namespace:
    """Parse and check ``argv``: exits with status 2 and one line on stderr for a mistake."""
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        check(args)
    except UsageError as error:
        if getattr(args, "debug", False):
            raise
        fail(str(error))
    return args


def print_error(message: str) -> None:
    """``message`` as one line ``minitorch-rx: error: ...`` on stderr."""
    print(f"{PROG}: error: {' '.join(message.split())}", file=sys.stderr)


def fail(message: str) -> None:
    print_error(message)
    sys.exit(2)


def check(args: argparse.Namespace) -> None:
    """The checks that need no torch; raises ``UsageError``. Sets ``args.out`` for ``train``."""
    if args.command == "eval" and args.dataset is None and args.model in PRETRAINED:
        args.dataset = PRETRAINED[args.model][0]  # what its shipped weights were trained on
    if args.command in ("train", "eval") and args.dataset is None:  # the model's kind of data
        args.dataset = "tinyshakespeare" if MODELS[args.model] == "text" else "mnist"
    if args.command == "eval" and MODELS[args.model] == "text":
        raise UsageError(
            f"--model {args.model} is a text model: `{PROG} train` reports its validation loss; "
            f"`{PROG} sample` generates with it"
        )
    if args.command in ("train", "eval"):
        _check_data(args)
    if args.command == "bench" and args.data_root is not None and not Path(args.data_root).is_dir():
        raise UsageError(f"--data-root {args.data_root}: no such folder (it should hold MNIST/raw/*-ubyte.gz)")
    if args.command in ("train", "eval"):
        spec = DATASETS[args.dataset]
        if MODELS[args.model] != spec.kind:
            fitting = ", ".join(name for name, kind in MODELS.items() if kind == spec.kind)
            raise UsageError(
                f"--model {args.model} takes {MODELS[args.model]} data, and {args.dataset} holds {spec.kind}s "
                f"(models for it: {fitting})"
            )
    if args.command == "train":
        if args.resume is not None and not Path(args.resume).is_file():
            raise UsageError(f"--resume {args.resume}: no such file (a checkpoint.pt written by `{PROG} train`)")
        args.new_run = args.out is None and args.resume is None  # runs/latest will point at it
        args.out = str(choose_out(args.out, args.resume, args.overwrite, args.model, args.dataset))
    if args.command == "eval":
        if args.checkpoint is None:
            shipped = PRETRAINED.get(args.model, ())
            if args.dataset not in shipped:
                have = "; ".join(f"{model} on {', '.join(sets)}" for model, sets in PRETRAINED.items())
                raise UsageError(
                    f"no pretrained weights ship for {args.model} on {args.dataset} (shipped: {have}); "
                    "pass --checkpoint PATH, e.g. a run folder's checkpoint.pt"
                )
        elif not Path(args.checkpoint).is_file():
            raise UsageError(f"--checkpoint {args.checkpoint}: no such file")


def _check_data(args: argparse.Namespace) -> None:
    spec = DATASETS[args.dataset]
    if args.data_root is None:
        if not spec.shipped:
            raise UsageError(
                f"--dataset {args.dataset} needs --data-root DIR, a folder holding {spec.layout} "
                "(only MNIST has a subset shipped in the package)"
            )
    elif not Path(args.data_root).is_dir():
        raise UsageError(f"--data-root {args.data_root}: no such folder (it should hold {spec.layout})")


def choose_out(out: str | None, resume: str | None, overwrite: bool, model: str, dataset: str) -> Path:
    """The run folder: ``out``; else the folder of the checkpoint ``resume`` continues; else a new
    ``runs/<model>_<dataset>_<date>-<time>``. Refuses a folder that already holds another run's
    checkpoint unless ``overwrite``."""
    if out is None:
        if resume is not None:
            return Path(resume).parent
        return new_run_folder(model, dataset)
    folder = Path(out)
    if folder.exists() and not folder.is_dir():
        raise UsageError(f"--out {out} is a file, not a folder")
    continuing = resume is not None and Path(resume).resolve().parent == folder.resolve()
    if (folder / "checkpoint.pt").exists() and not (overwrite or continuing):
        raise UsageError(
            f"--out {out} already holds a run (checkpoint.pt): pass --overwrite to replace it, "
            "or leave --out out for a new run folder"
        )
    return folder


def new_run_folder(model: str, dataset: str, runs: Path = RUNS) -> Path:
    """A name for a new run folder, ``runs/<model>_<dataset>_<date>-<time>`` (``-2``, ``-3``... when taken)."""
    stem = f"{model}_{dataset}_{time.strftime('%Y%m%d-%H%M%S')}"
    folder, n = runs / stem, 1
    while folder.exists():
        n += 1
        folder = runs / f"{stem}-{n}"
    return folder


def point_latest(folder: Path, runs: Path = RUNS) -> None:
    """Make ``runs/latest`` a symbolic link to ``folder`` (a folder inside ``runs``)."""
    latest = runs / "latest"
    if latest.exists() and not latest.is_symlink():
        print(f"note: {latest} is a folder from an older version; left as it is", file=sys.stderr)
        return
    temporary = runs / f".latest-{os.getpid()}"
    try:
        if temporary.is_symlink():
            temporary.unlink()
        temporary.symlink_to(folder.name, target_is_directory=True)
        os.replace(temporary, latest)
    except OSError as error:  # e.g. no symbolic links on this file system
        print(f"note: could not point {latest} at {folder}: {error}", file=sys.stderr)
