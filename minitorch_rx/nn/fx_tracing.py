"""``torch.fx`` symbolic tracing of models with our modules in them (torchvision's
``create_feature_extractor``, ``torch.fx.symbolic_trace``).

While tracing, fx replaces ``torch.nn.Module.__call__``, which our modules override: a call of
ours given an fx ``Proxy`` goes to that replacement instead (``Module.__call__``), so fx records
it as it records torch's. fx keeps torch's standard layers (``torch.nn.*`` but its containers)
as leaves, ``call_module`` nodes called as they are when the traced graph runs; ours are made
leaves too, as user code renamed from torch's expects (their forwards check and compute on
tensors, not proxies). User modules, ours or torch's, are traced through as fx traces them.
"""

from __future__ import annotations

import torch
import torch.fx

_LAYERS = "minitorch_rx.nn."
_CONTAINERS = "minitorch_rx.nn.containers"


def is_our_layer(module: torch.nn.Module) -> bool:
    """Whether ``module``'s class is one of minitorch_rx.nn's layers (its containers are not)."""
    name = type(module).__module__
    return name.startswith(_LAYERS) and not name.startswith(_CONTAINERS)


def make_our_layers_fx_leaves() -> None:
    """Make ``torch.fx.Tracer.is_leaf_module`` (and so every tracer deriving from it) say True for
    our layers as for torch's, once per process."""
    torch_rule = torch.fx.Tracer.is_leaf_module
    if getattr(torch_rule, "_minitorch_rx", False):
        return

    def is_leaf_module(self: torch.fx.Tracer, m: torch.nn.Module, module_qualified_name: str) -> bool:
        return is_our_layer(m) or torch_rule(self, m, module_qualified_name)

    is_leaf_module.__doc__ = torch_rule.__doc__
    is_leaf_module._minitorch_rx = True
    torch.fx.Tracer.is_leaf_module = is_leaf_module
