"""The film's page in a real browser (headless Chromium, as ``tests/test_graph_browser.py``).

For LeNet-5 and ResNet-20: the page loads without script errors, every node of the film has its
box, the right arrow key lights the steps' nodes in the engine's order, and the memory chart's
marker moves right at every step; searching marks the nodes found and jumps to the first. A
harness script, put before the page's scripts, records errors and, once the page has loaded,
presses the arrow key through the whole film, searches, and writes what it saw into the DOM,
which ``--dump-dom`` prints.
"""

from __future__ import annotations

import html
import json
import re

import pytest
from test_graph_browser import HEIGHT, WIDTH, _browser, _chromium

import minitorch_rx as mt
from minitorch_rx.nn import functional as F

HARNESS = """<script>
window.harness = { errors: [] };
window.addEventListener("error", e => window.harness.errors.push(String(e.message)));
window.addEventListener("load", () => setTimeout(() => {
  const h = window.harness, lit = () => [...document.querySelectorAll(".node.lit")].map(n => n.id);
  const marker = () => Number(document.getElementById("marker").getAttribute("x1"));
  h.boxes = document.querySelectorAll(".node").length;
  h.lit = [lit()]; h.marker = [marker()];
  const steps = Number(document.getElementById("slider").max);
  for (let i = 0; i < steps; i++) {
    window.dispatchEvent(new KeyboardEvent("keydown", { key: "ArrowRight" }));
    h.lit.push(lit()); h.marker.push(marker());
  }
  h.labels = document.querySelectorAll("text.elabel").length;
  h.counter = document.getElementById("counter").textContent;
  const search = document.getElementById("search");
  search.value = "Convolution";
  search.dispatchEvent(new KeyboardEvent("keydown", { key: "Enter" }));
  h.matches = [...document.querySelectorAll(".node.match")].map(n => n.id);
  h.afterSearch = lit();
  const out = document.createElement("pre");
  out.id = "harness-result";
  out.textContent = JSON.stringify(h);
  document.body.appendChild(out);
}, 100));
</script>
"""


@pytest.fixture(scope="module")
def films(tmp_path_factory):
    folder = tmp_path_factory.mktemp("films")
    made = {}
    for name in ("lenet5", "resnet20"):
        mt.manual_seed(0)
        model = mt.models.get(name)
        x, y = mt.randn(2, *mt.models.INPUT_SHAPES[name]), mt.randint(0, 10, (2,))
        with mt.autograd.watch(model) as film:
            F.cross_entropy(model(x), y).backward()
        page = folder / f"{name}.html"
        film.to_html(page)
        made[name] = film, page
    return made


@pytest.mark.parametrize("name", ["lenet5", "resnet20"])
def test_the_arrow_key_lights_the_nodes_in_the_engine_s_order(films, name, tmp_path):
    browser = _browser()
    film, page = films[name]
    harnessed = tmp_path / "harnessed.html"
    harnessed.write_text(page.read_text().replace("<script", HARNESS + "<script", 1))
    result = _chromium(browser, "--virtual-time-budget=20000", "--dump-dom", harnessed.as_uri())
    found = re.search(r'<pre id="harness-result">(.*?)</pre>', result.stdout, re.S)
    assert found, f"the harness wrote nothing: {result.stderr[-2000:]}"
    report = json.loads(html.unescape(found.group(1)))
    assert report["errors"] == []
    assert report["boxes"] == len(film.nodes) > (20 if name == "lenet5" else 100)
    assert report["lit"] == [[f"node{step.node_index}"] for step in film.steps]
    marker = report["marker"]
    assert all(b > a for a, b in zip(marker, marker[1:])), "the chart's marker must move right at every step"
    assert report["counter"].startswith(f"step {len(film.steps)} / {len(film.steps)} · backward · held 0 B")
    convolutions = [f"node{i}" for i, node in enumerate(film.nodes) if node.name == "ConvolutionBackward0"]
    assert report["matches"] == convolutions and len(convolutions) == (2 if name == "lenet5" else 19)
    first = min(s.index for s in film.steps if s.node == "ConvolutionBackward0")
    assert report["afterSearch"] == [f"node{film.steps[first].node_index}"]  # it jumps to the first match


def test_a_screenshot_of_a_backward_step_is_written(films, tmp_path):
    browser = _browser()
    film, page = films["lenet5"]
    middle = next(s.index for s in film.steps if s.kind == "backward" and len(s.grads_sent) == 3)
    shot = tmp_path / "mid.png"
    _chromium(browser, "--virtual-time-budget=5000", f"--screenshot={shot}", f"{page.as_uri()}#step={middle}")
    data = shot.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    assert (int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")) == (WIDTH, HEIGHT)
