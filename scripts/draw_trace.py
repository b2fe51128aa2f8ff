"""Draw a Chrome trace written by ``prof.export_chrome_trace`` as a PNG timeline (matplotlib),
for places where Perfetto is not at hand (the screenshot in docs/seeing_the_graph.md).

    python scripts/draw_trace.py trace.json trace.png
    python scripts/draw_trace.py --lenet5 trace.png     # profile one LeNet-5 training step first
"""

from __future__ import annotations

import argparse
import json
import tempfile
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def profile_lenet5(path: Path) -> None:
    """One LeNet-5 training step (batch 64, one thread), the least disturbed of five."""
    import torch

    import minitorch_rx as mt
    import minitorch_rx.nn.functional as F

    torch.set_num_threads(1)
    mt.manual_seed(0)
    model = mt.models.get("lenet5")
    images, labels = mt.randn(64, 1, 28, 28), mt.randint(0, 10, (64,))
    for _ in range(3):  # warm up (first calls allocate work buffers)
        F.cross_entropy(model(images), labels).backward()
    profiles = []
    for _ in range(5):  # the machine may be shared: keep the least disturbed step
        model.zero_grad()
        with mt.autograd.profile() as prof:
            F.cross_entropy(model(images), labels).backward()
        profiles.append(prof)
    best = min(profiles, key=lambda p: p.total_ns)
    best.export_chrome_trace(path)
    print(best.table(row_limit=8))


def draw(trace_path: Path, png_path: Path) -> None:
    trace = json.loads(Path(trace_path).read_text())["traceEvents"]
    tracks = {e["tid"]: e["args"]["name"] for e in trace if e["ph"] == "M"}
    events = [e for e in trace if e["ph"] == "X"]
    rows = sorted({e["tid"] for e in events})
    names = sorted({e["name"].removesuffix("Backward0") for e in events})
    colours = {name: plt.cm.tab20(i % 20) for i, name in enumerate(names)}
    end = max(e["ts"] + e["dur"] for e in events) / 1000
    fig, ax = plt.subplots(figsize=(12, 1.2 + 0.9 * len(rows)))
    for row, tid in enumerate(rows):
        for e in (e for e in events if e["tid"] == tid):
            start, width = e["ts"] / 1000, e["dur"] / 1000
            ax.barh(row, width, left=start, height=0.7, color=colours[e["name"].removesuffix("Backward0")],
                    edgecolor="black", linewidth=0.3)  # fmt: skip
            if width > len(e["name"]) * end / 190:
                ax.text(start + width / 2, row, e["name"], ha="center", va="center", fontsize=7, clip_on=True)
    ax.set_yticks(range(len(rows)), [tracks.get(tid, str(tid)) for tid in rows])
    ax.invert_yaxis()
    ax.set_xlabel("time (ms)")
    ax.set_xlim(0, end)
    ax.set_title("mt.autograd.profile(): one LeNet-5 training step, forward and backward on one timeline")
    fig.tight_layout()
    fig.savefig(png_path, dpi=110)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("trace", nargs="?", help="a trace JSON file")
    parser.add_argument("png")
    parser.add_argument("--lenet5", action="store_true", help="profile one LeNet-5 training step and draw that")
    args = parser.parse_args()
    if args.lenet5:
        with tempfile.TemporaryDirectory() as folder:
            path = Path(folder) / "trace.json"
            profile_lenet5(path)
            draw(path, Path(args.png))
    else:
        draw(Path(args.trace), Path(args.png))


if __name__ == "__main__":
    main()
