"""A guided look at the graph of one training step of a small CNN.

    python examples/inspect_graph.py [--out runs/inspect]

1. the nodes the step recorded, in creation order (backward runs them in reverse);
2. the path from a parameter to the loss, found by rustworkx on the graph itself;
3. what each node keeps for backward, and the total;
4. a drawing (SVG and HTML, no Graphviz) coloured by gradient norm;
5. a profile of the step: a table and a Chrome trace (open it in https://ui.perfetto.dev).
"""

from __future__ import annotations

import argparse
from pathlib import Path

import rustworkx as rx

import minitorch_rx as mt
import minitorch_rx.nn as nn
import minitorch_rx.nn.functional as F
from minitorch_rx.autograd.memory import format_bytes, node_saved_bytes


def small_cnn() -> nn.Module:
    return nn.Sequential(
        nn.Conv2d(1, 4, 3, padding=1),
        nn.BatchNorm2d(4),
        nn.ReLU(),
        nn.MaxPool2d(2),
        nn.Flatten(),
        nn.Linear(4 * 7 * 7, 10),
    )


def path_to_loss(g: mt.Graph, param: mt.Tensor, loss: mt.Tensor) -> tuple[list[str], int]:
    """The op names on the path from ``param`` to ``loss``, and how many nodes feed the loss."""
    # g.rx is a rustworkx.PyDiGraph whose payloads are weak references to the nodes.
    index_of = {g.rx[i](): i for i in g.rx.node_indices()}
    source = next(i for node, i in index_of.items() if getattr(node, "variable", None) is param)
    target = index_of[loss.grad_fn]
    path = rx.dijkstra_shortest_paths(g.rx, source, target=target)[target]
    return [type(g.rx[i]()).__name__ for i in path], len(rx.ancestors(g.rx, target))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default="runs/inspect", help="folder for graph.svg, graph.html, trace.json")
    args = parser.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)

    mt.manual_seed(0)
    model = small_cnn()
    images, labels = mt.randn(8, 1, 14, 14), mt.randint(0, 10, (8,))

    # Graph(module=model) names parameters by their path and notes shapes and modules;
    # a backward inside the block (retain_graph=True keeps the graph) notes gradient norms.
    with mt.Graph(module=model) as g:
        loss = F.cross_entropy(model(images), labels)
        loss.backward(retain_graph=True)

    print(f"1. {g.num_nodes()} nodes, {g.num_edges()} edges (edges run from inputs to outputs):")
    for node in g.nodes():
        inputs = [type(p).__name__ for p in node.next_functions if p is not None]
        print(f"   {type(node).__name__:<24} <- {', '.join(inputs) or '(a leaf)'}")

    print("\n2. from the first convolution's weight to the loss:")
    path, feeding = path_to_loss(g, model[0].weight, loss)
    print("   " + " -> ".join(path))
    print(f"   {feeding} nodes feed the loss")

    print(f"\n3. {format_bytes(g.saved_bytes())} kept for backward (each storage once):")
    for node in g.nodes():
        saved = node_saved_bytes(node)
        if saved:
            print(f"   {type(node).__name__:<24} {format_bytes(saved):>10}")

    (out / "graph.svg").write_text(g.to_svg(grads=True))
    (out / "graph.html").write_text(g.to_html(grads=True))
    print(f"\n4. wrote {out / 'graph.svg'} and {out / 'graph.html'} (coloured by gradient norm)")

    loss.backward()  # the second pass frees the graph
    print(f"   after the last backward: {g.num_nodes()} nodes, {g.saved_bytes()} bytes kept")

    with mt.autograd.profile() as prof:
        for _ in range(3):
            model.zero_grad()
            F.cross_entropy(model(images), labels).backward()
    print("\n5. three training steps, profiled:")
    print(prof.table(sort_by="total_time", row_limit=8))
    prof.export_chrome_trace(out / "trace.json")
    print(f"   wrote {out / 'trace.json'} (open it in https://ui.perfetto.dev or chrome://tracing)")


if __name__ == "__main__":
    main()
