"""The command line as a new user meets it: instant help, one-line errors (exit 2), data folders
as torchvision ships them, run folders that never replace each other, resuming with more epochs."""

from __future__ import annotations

import gzip
import json
import os
import pickle
import shutil
import struct
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import torch

import minitorch_rx as mt
from minitorch_rx.cli import arguments, main
from minitorch_rx.data import datasets

ROOT = Path(__file__).resolve().parents[1]
SHARED_MNIST = ROOT.parent.parent / "shared" / "data" / "MNIST" / "raw"  # the project machines' copy
TINY = ["--limit", "256", "--batch-size", "64", "--quiet"]


def run_cli(argv: list[str]) -> int:
    """``main(argv)``'s exit status, whether it returns it or exits with it (argparse)."""
    try:
        return main(argv)
    except SystemExit as exit:
        return exit.code


def _script(code: str) -> subprocess.CompletedProcess:
    """Run ``code`` in a fresh interpreter with this checkout first on the path."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=ROOT)


# ------------------------------------------------------------------ help and startup
def test_help_and_argument_errors_do_not_import_torch():
    code = (
        "import sys\n"
        "from minitorch_rx_cli import main\n"
        "for argv in (['--help'], ['train', '--help'], ['--version'], ['train', '--epochs', '0']):\n"
        "    try:\n"
        "        main(argv)\n"
        "    except SystemExit as exit:\n"
        "        print('exit', exit.code)\n"
        "print('torch imported:', 'torch' in sys.modules, 'minitorch_rx' in sys.modules)\n"
    )
    result = _script(code)
    assert result.returncode == 0, result.stderr
    assert "torch imported: False False" in result.stdout
    assert result.stdout.count("exit 0") == 3 and "exit 2" in result.stdout
    words = " ".join(result.stdout.split())
    assert "--model MODEL" in words and "(mnist: 8 epochs, batch 64" in words  # train --help shows the recipes
    assert "lenet5, mlp, resnet18" in result.stdout  # and lists the models
    assert result.stderr.strip() == "minitorch-rx: error: argument --epochs: must be at least 1, got 0 " + (
        "(see `minitorch-rx train --help`)"
    )


def test_python_dash_m_and_the_script_share_the_command_line():
    result = subprocess.run([sys.executable, "-m", "minitorch_rx", "--version"], capture_output=True, text=True)
    assert result.returncode == 0 and result.stdout.strip() == f"minitorch-rx {mt.__version__}"


def test_the_registries_agree_with_the_package():
    assert sorted(arguments.MODELS) == mt.models.list()
    assert arguments.PRETRAINED == {name: tuple(sets) for name, sets in mt.models.PRETRAINED.items()}
    for name, spec in arguments.DATASETS.items():
        assert spec.kind == "text" or name in datasets.NORMALIZATION


# ------------------------------------------------------------------ one line and exit 2 per mistake
BAD = [
    (["train", "--epochs", "0"], "argument --epochs: must be at least 1, got 0"),
    (["train", "--epochs", "two"], "argument --epochs: expected an integer, got 'two'"),
    (["train", "--batch-size", "0"], "argument --batch-size: must be at least 1"),
    (["train", "--lr", "0"], "argument --lr: must be greater than 0"),
    (["train", "--limit", "0"], "argument --limit: must be at least 1"),
    (["train", "--nproc", "0"], "argument --nproc: must be at least 1"),
    (["train", "--model", "alexnet"], "argument --model: invalid choice: 'alexnet'"),
    (["train", "--model", "m5"], "--model m5 takes audio data, and mnist holds images"),
    (["train", "--dataset", "imagenet"], "argument --dataset: invalid choice: 'imagenet'"),
    (["train", "--dataset", "cifar10"], "--dataset cifar10 needs --data-root DIR"),
    (["train", "--data-root", "/no/such/folder"], "--data-root /no/such/folder: no such folder"),
    (["train", "--device", "gpu"], "argument --device: expected cpu, cuda, cuda:N or mps, got 'gpu'"),
    (["train", "--resume", "/no/such/checkpoint.pt"], "--resume /no/such/checkpoint.pt: no such file"),
    (["eval", "--model", "resnet20"], "--dataset cifar10 needs --data-root DIR"),  # its weights' data
    (["eval", "--model", "resnet20", "--dataset", "mnist"], "no pretrained weights ship for resnet20 on mnist"),
    (["eval", "--checkpoint", "/no/such.pt"], "--checkpoint /no/such.pt: no such file"),
    (["graph", "--batch-size", "-1"], "argument --batch-size: must be at least 1"),
    (["fit"], "argument COMMAND: invalid choice: 'fit'"),
    ([], "the following arguments are required: COMMAND"),
]
if not torch.cuda.is_available():
    BAD.append((["train", "--device", "cuda"], "--device cuda: this machine has no CUDA GPU"))


@pytest.mark.parametrize("argv, message", BAD, ids=[" ".join(argv) or "(nothing)" for argv, _ in BAD])
def test_a_mistake_prints_one_line_and_exits_2(argv, message, capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert run_cli(argv) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err.count("\n") == 1 and err.startswith(f"minitorch-rx: error: {message}"), err
    assert not (tmp_path / "runs").exists()  # nothing written


def test_debug_keeps_the_traceback(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(arguments.UsageError, match="needs --data-root"):
        main(["train", "--dataset", "cifar10", "--debug"])


# ------------------------------------------------------------------ run folders
def test_two_runs_keep_two_checkpoints_and_latest_points_at_the_newest(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert run_cli(["train", "--epochs", "1", *TINY]) == 0
    assert run_cli(["train", "--epochs", "1", "--seed", "1", *TINY]) == 0
    runs = sorted(p for p in (tmp_path / "runs").iterdir() if not p.is_symlink())
    assert len(runs) == 2 and all((run / "checkpoint.pt").is_file() for run in runs)
    assert all(run.name.startswith("lenet5_mnist_") for run in runs)
    assert (tmp_path / "runs" / "latest").resolve() == runs[1].resolve()
    capsys.readouterr()

    # --out at an existing run asks for --overwrite, and gets it
    assert run_cli(["train", "--epochs", "1", "--out", str(runs[0]), *TINY]) == 2
    assert "--overwrite" in capsys.readouterr().err
    assert run_cli(["train", "--epochs", "1", "--out", str(runs[0]), "--overwrite", *TINY]) == 0


def test_resuming_with_more_epochs_trains_further(tmp_path):
    assert run_cli(["train", "--epochs", "2", "--out", str(tmp_path / "two"), *TINY]) == 0
    two = mt.load(tmp_path / "two" / "checkpoint.pt")
    assert two["optimizer"]["param_groups"][0]["lr"] == pytest.approx(0.0, abs=1e-12)  # the schedule's end
    resumed = ["train", "--epochs", "3", "--resume", str(tmp_path / "two" / "checkpoint.pt"), *TINY]
    assert run_cli([*resumed, "--out", str(tmp_path / "three")]) == 0
    three = mt.load(tmp_path / "three" / "checkpoint.pt")
    assert three["epoch"] == 3
    changed = [not torch.equal(two["model"][k].torch(), three["model"][k].torch()) for k in two["model"]]
    assert all(changed), "the third epoch ran at learning rate 0"
    metrics = json.loads((tmp_path / "three" / "metrics.json").read_text())
    assert len(metrics["test_accuracy"]) == 3 and metrics["steps_per_epoch"] == [4, 4, 4]
    assert run_cli(["train", "--epochs", "2", "--resume", str(tmp_path / "two" / "checkpoint.pt"), *TINY]) == 2


def test_stretching_the_schedule_continues_on_the_longer_cosine():
    from minitorch_rx.cli.training import _stretch_schedule

    p = mt.zeros(1, requires_grad=True)
    optimizer = mt.optim.SGD([p], lr=0.05)
    scheduler = mt.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=2)
    for _ in range(2):
        optimizer.step()
        scheduler.step()
    _stretch_schedule(scheduler, 4)
    lrs = [optimizer.param_groups[0]["lr"]]
    for _ in range(2):
        optimizer.step()
        scheduler.step()
        lrs.append(optimizer.param_groups[0]["lr"])
    assert lrs == pytest.approx([0.025, 0.05 * (1 - 0.5**0.5) / 2, 0.0], abs=1e-12)


# ------------------------------------------------------------------ data folders
def _write_idx(path: Path, array: np.ndarray) -> None:
    magic = 2051 if array.ndim == 3 else 2049
    header = struct.pack(f">I{array.ndim}I", magic, *array.shape)
    with gzip.open(path, "wb") as file:
        file.write(header + array.astype(np.uint8).tobytes())


def _tiny_mnist(root: Path, n_train: int = 128, n_test: int = 64) -> Path:
    raw = root / "MNIST" / "raw"
    raw.mkdir(parents=True)
    generator = np.random.default_rng(0)
    for split, n in (("train", n_train), ("t10k", n_test)):
        _write_idx(raw / f"{split}-images-idx3-ubyte.gz", generator.integers(0, 256, (n, 28, 28)))
        _write_idx(raw / f"{split}-labels-idx1-ubyte.gz", generator.integers(0, 10, n))
    return raw


def test_a_gz_only_mnist_folder_is_checked_then_unpacked(tmp_path, capsys):
    raw = _tiny_mnist(tmp_path / "data")
    out = str(tmp_path / "run")
    assert run_cli(["train", "--epochs", "1", "--data-root", str(tmp_path / "data"), "--out", out, *TINY]) == 2
    err = capsys.readouterr().err
    assert "train-images-idx3-ubyte.gz: md5" in err and "--no-verify" in err and err.count("\n") == 1
    assert not (raw / "train-images-idx3-ubyte").exists()
    argv = ["train", "--epochs", "1", "--data-root", str(tmp_path / "data"), "--no-verify", "--out", out, *TINY]
    assert run_cli(argv) == 0
    assert (raw / "train-images-idx3-ubyte").stat().st_size == 16 + 128 * 28 * 28
    assert len(mt.data.MNIST(raw, train=False, verify=False)) == 64  # the raw folder itself works too


def test_a_read_only_data_folder_is_unpacked_into_the_cache(tmp_path, monkeypatch):
    raw = _tiny_mnist(tmp_path / "data")
    monkeypatch.setattr(datasets, "_writable", lambda folder: False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    test_set = mt.data.MNIST(tmp_path / "data", train=False, verify=False)
    assert len(test_set) == 64 and not (raw / "t10k-images-idx3-ubyte").exists()
    assert list((tmp_path / "cache").rglob("t10k-images-idx3-ubyte"))


def test_missing_mnist_files_are_named_with_where_to_get_them(tmp_path, capsys):
    raw = _tiny_mnist(tmp_path)
    (raw / "t10k-labels-idx1-ubyte.gz").unlink()
    assert run_cli(["eval", "--data-root", str(tmp_path), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert f"MNIST files missing in {raw}: t10k-labels-idx1-ubyte.gz" in err and "download=True" in err


@pytest.mark.skipif(not SHARED_MNIST.is_dir(), reason="needs the project's copy of MNIST's canonical .gz files")
def test_the_canonical_mnist_gz_files_pass_and_train(tmp_path):
    shutil.copytree(SHARED_MNIST, tmp_path / "MNIST" / "raw")
    argv = ["train", "--epochs", "1", "--data-root", str(tmp_path), "--out", str(tmp_path / "run"), *TINY]
    assert run_cli(argv) == 0
    assert (tmp_path / "MNIST" / "raw" / "train-images-idx3-ubyte").stat().st_size == 47040016


def _tiny_cifar(root: Path, n: int = 32) -> Path:
    folder = root / "cifar-10-batches-py"
    folder.mkdir(parents=True)
    generator = np.random.default_rng(0)
    for name in ["data_batch_1", "data_batch_2", "data_batch_3", "data_batch_4", "data_batch_5", "test_batch"]:
        batch = {
            "data": generator.integers(0, 256, (n, 3072)).astype(np.uint8),
            "labels": generator.integers(0, 10, n).tolist(),
        }
        (folder / name).write_bytes(pickle.dumps(batch))
    names = ["airplane", "automobile", "bird", "cat", "deer", "dog", "frog", "horse", "ship", "truck"]
    (folder / "batches.meta").write_bytes(pickle.dumps({"label_names": names}))
    return folder


def test_a_cifar_folder_failing_the_checksums_names_the_file_and_no_verify_accepts_it(tmp_path, capsys):
    folder = _tiny_cifar(tmp_path / "data")
    argv = ["train", "--dataset", "cifar10", "--data-root", str(tmp_path / "data"), "--model", "mlp", "--epochs", "1"]
    argv += ["--out", str(tmp_path / "run"), *TINY]
    assert run_cli(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"minitorch-rx: error: {folder / 'data_batch_1'}: md5 ") and err.count("\n") == 1
    assert "not torchvision's c99cafc152244af753f735de768cd75f" in err and "--no-verify" in err
    assert run_cli([*argv, "--no-verify"]) == 0
    assert len(mt.data.CIFAR10(folder, train=True, verify=False)) == 5 * 32  # the folder itself works too


def test_missing_cifar_files_are_named(tmp_path):
    folder = _tiny_cifar(tmp_path)
    (folder / "test_batch").unlink()
    with pytest.raises(mt.data.DataFolderError, match=r"CIFAR-10 files missing in .*: test_batch\. "):
        mt.data.CIFAR10(tmp_path, train=False, verify=False)
