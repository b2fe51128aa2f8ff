"""``minitorch_rx.func``: PyTorch's ``torch.func`` function transforms on our engine.

``grad``, ``grad_and_value``, ``vjp``, ``jvp``, ``linearize``, ``jacrev``, ``jacfwd``, ``hessian``,
``vmap``, ``functional_call`` and ``stack_module_state`` with ``torch.func``'s signatures; they
compose to any depth (``grad(grad(f))``, ``jacrev(jacfwd(f))``, ``vmap(grad(f))``) and take
pytrees of tensors; ``torch.func.X`` given our tensors or modules runs ours. Gradients come from
``mt.autograd.grad``; forward mode (``jvp``, ``jacfwd``) is the double-vjp construction. See
docs/func.md.
"""

from .functional_call import functional_call, stack_module_state
from .grad import grad, grad_and_value, vjp
from .jacobians import hessian, jacfwd, jacrev
from .jvp import jvp, linearize
from .torch_routing import route_torch_func
from .vmap import vmap

__all__ = [
    "functional_call",
    "grad",
    "grad_and_value",
    "hessian",
    "jacfwd",
    "jacrev",
    "jvp",
    "linearize",
    "stack_module_state",
    "vjp",
    "vmap",
]

route_torch_func()
