"""Every docstring example (``>>>``) in the package runs and shows what its docstring says."""

from __future__ import annotations

import doctest
import importlib
from pathlib import Path

import pytest

import minitorch_rx as mt

PACKAGE = Path(mt.__file__).resolve().parent


def _modules_with_examples() -> list[str]:
    names = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if path.name == "__main__.py" or ">>> " not in path.read_text():
            continue
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        names.append(".".join(parts[:-1] if parts[-1] == "__init__" else parts))
    return names


MODULES = _modules_with_examples()


def test_there_are_examples():
    assert len(MODULES) >= 50


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples_run(name, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    mt.manual_seed(0)
    result = doctest.testmod(
        importlib.import_module(name), optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE, report=True
    )
    assert result.failed == 0, f"{result.failed} of {result.attempted} examples in {name} failed (printed above)"
