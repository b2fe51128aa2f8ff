"""The screenshots of docs/autograd_tutorial.md's section 13: the MLP's watch page after the
forward pass, mid-backward and done, taken by headless Chromium (``apt-get install chromium``).

    python scripts/watch_screenshots.py        # writes docs/images/watch_{forward,backward,done}.png
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from pathlib import Path

import minitorch_rx as mt
import minitorch_rx.nn as nn
import minitorch_rx.nn.functional as F

IMAGES = Path(__file__).resolve().parents[1] / "docs" / "images"
MOMENTS = {"forward": 3, "backward": 5, "done": 11}  # step indices, as the tutorial names them


def main() -> None:
    mt.manual_seed(0)  # the tutorial's MLP and batch
    mlp = nn.Sequential(nn.Linear(4, 3), nn.Tanh(), nn.Linear(3, 2))
    x, y = mt.randn(2, 4), mt.tensor([0, 1])
    with mt.autograd.watch(mlp) as film:
        F.cross_entropy(mlp(x), y).backward()
    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    if browser is None:
        raise SystemExit("no chromium: apt-get install -y chromium")
    with tempfile.TemporaryDirectory() as folder:
        page = Path(folder) / "mlp_step.html"
        film.to_html(page)
        for name, step in MOMENTS.items():
            shot = IMAGES / f"watch_{name}.png"
            subprocess.run(
                [
                    browser,
                    "--headless",
                    "--no-sandbox",
                    "--disable-gpu",
                    "--hide-scrollbars",
                    "--window-size=1280,900",
                    "--virtual-time-budget=3000",
                    f"--screenshot={shot}",
                    f"{page.as_uri()}#step={step}",
                ],
                check=True,
                capture_output=True,
                timeout=120,
            )
            print("wrote", shot)


if __name__ == "__main__":
    main()
