"""The README's quick tour runs as written."""

from __future__ import annotations

import re
from pathlib import Path

README = Path(__file__).resolve().parents[1] / "README.md"


def test_quick_tour_runs(tmp_path, monkeypatch):
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(), flags=re.S)
    assert blocks, "the README has no python example"
    monkeypatch.chdir(tmp_path)
    namespace: dict = {}
    exec(compile(blocks[0], str(README), "exec"), namespace)
    assert isinstance(namespace["pretrained"], namespace["nn"].Module)
    assert namespace["g"].num_nodes() == 0
    film = namespace["film"]  # the tour's watched step, and the page it wrote
    assert film.steps[-1].kind == "backward" and film.memory_curve()[-1] == 0
    assert (tmp_path / "step.html").read_text().startswith("<!doctype html>")
