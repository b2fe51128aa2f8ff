"""The code stays as ``ruff`` (the dev extra, configured in pyproject.toml) wants it: lint and format."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PATHS = ["minitorch_rx", "tests", "bench", "examples", "scripts"]


@pytest.mark.parametrize("command", [["check"], ["format", "--check"]])
def test_ruff_is_clean(command):
    result = subprocess.run([sys.executable, "-m", "ruff", *command, *PATHS], cwd=ROOT, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr
