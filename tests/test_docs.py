"""Every ```python block of every docs/*.md page runs as written, in order, in a fresh folder.

The blocks of one page share one namespace (a page reads as one program); each page starts in a
new temporary folder. A picture a page shows from ``images/`` and its code writes (a file of the
same name in that folder) must be the committed one: the page's pictures are made by its code.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import minitorch_rx as mt

DOCS = Path(__file__).resolve().parents[1] / "docs"
PAGES = sorted(DOCS.glob("*.md"))


def _blocks(page: Path) -> list[tuple[int, str]]:
    """(first line number, code) of each ```python block."""
    text = page.read_text()
    return [(text[: m.start()].count("\n") + 2, m.group(1)) for m in re.finditer(r"```python\n(.*?)```", text, re.S)]


def test_there_are_docs_pages_with_code():
    names = {page.name for page in PAGES}
    assert {"autograd_tutorial.md", "engine.md", "performance.md"} <= names
    assert len(_blocks(DOCS / "autograd_tutorial.md")) >= 8


@pytest.mark.parametrize("page", PAGES, ids=[page.name for page in PAGES])
def test_every_python_block_runs_in_order(page, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    mt.manual_seed(0)
    namespace: dict = {"__name__": "__docs__"}
    for line, code in _blocks(page):
        # Blank lines keep the page's line numbers in a traceback.
        exec(compile("\n" * (line - 1) + code, str(page), "exec"), namespace)
    for picture in re.findall(r"\]\(images/([^)]+)\)", page.read_text()):
        made = tmp_path / picture
        if made.exists():
            assert made.read_bytes() == (DOCS / "images" / picture).read_bytes(), (
                f"docs/images/{picture} is not what {page.name}'s code draws: copy the new one there"
            )
