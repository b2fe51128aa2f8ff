"""The ``minitorch-rx`` script's entry point: parse and check the arguments before torch is imported.

Importing anything inside ``minitorch_rx`` first runs the package's ``__init__``, which imports
torch (about 1.5 s and 650 MB). So the script starts here, outside the package: it loads
``minitorch_rx/cli/arguments.py`` (standard library only) by its path, parses and checks the
command line with it, and imports ``minitorch_rx.cli`` only to run a command. ``--help``,
``--version`` and argument errors never import torch. ``python -m minitorch_rx`` runs the same
command line (after importing the package).
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path


def _arguments():
    """``minitorch_rx/cli/arguments.py``, loaded without importing the ``minitorch_rx`` package."""
    spec = importlib.util.find_spec("minitorch_rx")  # finds the package without running its __init__
    if spec is None or spec.origin is None:
        raise ModuleNotFoundError("minitorch-rx: the minitorch_rx package is not installed", name="minitorch_rx")
    path = Path(spec.origin).parent / "cli" / "arguments.py"
    name = "minitorch_rx_cli._arguments"
    module_spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(module_spec)
    sys.modules[name] = module  # dataclasses look their module up here
    module_spec.loader.exec_module(module)
    return module


def main(argv: list[str] | None = None) -> int:
    args = _arguments().parse(argv)
    from minitorch_rx.cli.main import run

    return run(args)
