"""The engine: tensors, Functions, the rustworkx graph and backward."""

from . import functional, graph, torch_custom_function
from .anomaly import detect_anomaly, is_anomaly_enabled
from .engine import backward, grad
from .function import Function
from .grad_mode import enable_grad, inference_mode, is_grad_enabled, no_grad, set_grad_enabled
from .gradcheck import GradcheckError, gradcheck, gradgradcheck
from .graph import Graph, current_graph
from .node import Node
from .profiler import profile
from .tensor import Tensor
from .variable import Variable
from .watch import watch

__all__ = [
    "Function",
    "GradcheckError",
    "Graph",
    "Node",
    "Tensor",
    "Variable",
    "backward",
    "current_graph",
    "detect_anomaly",
    "enable_grad",
    "functional",
    "graph",
    "grad",
    "gradcheck",
    "gradgradcheck",
    "inference_mode",
    "is_anomaly_enabled",
    "is_grad_enabled",
    "no_grad",
    "profile",
    "set_grad_enabled",
    "watch",
]

torch_custom_function.route_torch_autograd_function()
