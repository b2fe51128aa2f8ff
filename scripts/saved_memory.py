"""Where backward memory goes: the bytes one training step's graph keeps for backward, by op type.

    python scripts/saved_memory.py [--models lenet5:64,resnet20:128]

Each storage counts once, for the first op (in forward order) that saves it; storages that are
the model's parameters or the input batch are listed apart (they live anyway, graph or not).
"""

from __future__ import annotations

import argparse
from collections import defaultdict

import minitorch_rx as mt
import minitorch_rx.nn.functional as F
from minitorch_rx.autograd.memory import format_bytes, saved_storages


def by_op_type(name: str, batch_size: int) -> None:
    mt.manual_seed(0)
    model = mt.models.get(name)
    x = mt.randn(batch_size, *mt.models.INPUT_SHAPES[name])
    target = mt.randint(0, 10, (batch_size,))
    with mt.Graph() as graph:
        loss = F.cross_entropy(model(x), target)
    live = {(t.device, t.torch().untyped_storage().data_ptr()) for t in [x, *model.parameters()]}
    seen: set = set()
    rows: dict[str, list[int]] = defaultdict(lambda: [0, 0])  # op -> [nodes, bytes]
    live_bytes = 0
    for node in graph.nodes():
        row = rows[type(node).__name__]
        row[0] += 1
        for key, nbytes in saved_storages(node).items():
            if key in seen:
                continue
            seen.add(key)
            if key in live:
                live_bytes += nbytes
            else:
                row[1] += nbytes
    total = graph.saved_bytes()
    print(f"\n{name}, batch {batch_size}: {graph.num_nodes()} nodes keep {format_bytes(total)} for backward")
    print("| op | nodes | saved | share |\n|---|---:|---:|---:|")
    for op, (count, nbytes) in sorted(rows.items(), key=lambda item: -item[1][1]):
        if nbytes:
            print(f"| {op} | {count} | {format_bytes(nbytes)} | {nbytes / total:.1%} |")
    others = sum(count for count, nbytes in rows.values() if not nbytes)
    print(f"| parameters and input batch (alive anyway) | | {format_bytes(live_bytes)} | {live_bytes / total:.1%} |")
    print(f"| {others} nodes that save nothing | {others} | 0 B | |")
    del loss


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", default="lenet5:64,resnet20:128", help="name:batch,...")
    args = parser.parse_args()
    for item in args.models.split(","):
        name, batch = item.split(":")
        by_op_type(name, int(batch))


if __name__ == "__main__":
    main()
