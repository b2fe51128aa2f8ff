"""The HTML drawing in a real browser: headless Chromium opens ``minitorch-rx graph --out g.html``.

The page must load without script errors, fit every node inside the window, and show a node's
details on hover; a screenshot is written. A small harness script, added to a copy of the page
before the page's own script, records errors and, once the page has loaded, checks the node
boxes, hovers a node and writes what it found into the DOM, which ``--dump-dom`` prints.

The browser is Debian's ``chromium`` package (``.ci/run`` installs it where apt is available).
"""

from __future__ import annotations

import html
import json
import os
import re
import shutil
import subprocess
import sys

import pytest

WIDTH, HEIGHT = 1280, 900

HARNESS = """<script>
window.harness = { errors: [] };
window.addEventListener("error", e => window.harness.errors.push(String(e.message)));
window.addEventListener("load", () => setTimeout(() => {
  const h = window.harness, nodes = [...document.querySelectorAll(".node")];
  h.nodes = nodes.length;
  h.outside = nodes.filter(n => {
    const r = n.getBoundingClientRect();
    return r.left < 0 || r.top < 0 || r.right > window.innerWidth || r.bottom > window.innerHeight;
  }).map(n => n.id);
  const last = nodes[nodes.length - 1];
  last.dispatchEvent(new MouseEvent("mouseenter"));
  h.hovered = last.dataset.details;
  h.info = document.getElementById("info").textContent;
  h.transform = document.getElementById("viewport").getAttribute("transform");
  const out = document.createElement("pre");
  out.id = "harness-result";
  out.textContent = JSON.stringify(h);
  document.body.appendChild(out);
}, 100));
</script>
"""


def _browser() -> str:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    pytest.skip("no headless browser: install Debian's chromium package (apt-get install -y chromium), as .ci/run does")


def _chromium(browser: str, *arguments: str) -> subprocess.CompletedProcess:
    command = [
        browser,
        "--headless",
        "--no-sandbox",  # CI runs as root
        "--disable-gpu",
        "--hide-scrollbars",
        f"--window-size={WIDTH},{HEIGHT}",
        *arguments,
    ]
    return subprocess.run(command, capture_output=True, text=True, timeout=120)


@pytest.fixture(scope="module")
def pages(tmp_path_factory):
    folder = tmp_path_factory.mktemp("pages")
    written = {}
    for model in ("lenet5", "resnet20"):
        page = folder / f"{model}.html"
        subprocess.run(
            [sys.executable, "-m", "minitorch_rx", "graph", "--model", model, "--out", str(page)],
            check=True,
            capture_output=True,
            env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)},
        )
        written[model] = page
    return written


@pytest.mark.parametrize("model", ["lenet5", "resnet20"])
def test_the_page_fits_every_node_and_shows_details_on_hover(pages, model, tmp_path):
    browser = _browser()
    page = pages[model].read_text()
    assert page.count("<script>") == 1
    harnessed = tmp_path / "harnessed.html"
    harnessed.write_text(page.replace("<script>", HARNESS + "<script>", 1))
    result = _chromium(browser, "--virtual-time-budget=5000", "--dump-dom", harnessed.as_uri())
    found = re.search(r'<pre id="harness-result">(.*?)</pre>', result.stdout, re.S)
    assert found, f"the harness wrote nothing: {result.stderr[-2000:]}"
    report = json.loads(html.unescape(found.group(1)))
    assert report["errors"] == []
    assert report["nodes"] > (20 if model == "lenet5" else 100)
    assert report["outside"] == [], f"nodes outside the {WIDTH}x{HEIGHT} window after fit: {report['outside']}"
    assert report["info"] == report["hovered"] and "CrossEntropyBackward0" in report["info"]


@pytest.mark.parametrize("model", ["lenet5", "resnet20"])
def test_a_screenshot_of_the_fitted_page_is_written(pages, model, tmp_path):
    browser = _browser()
    shot = tmp_path / f"{model}.png"
    _chromium(browser, "--virtual-time-budget=5000", f"--screenshot={shot}", pages[model].as_uri())
    data = shot.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")
    assert (width, height) == (WIDTH, HEIGHT)
