"""einops takes mt tensors: ``einops.rearrange/reduce/repeat/einsum`` find this backend for them.

einops picks a backend per tensor type among the subclasses of its ``AbstractBackend`` whose
framework is imported; torch's backend checks ``isinstance(x, torch.Tensor)``, which an mt tensor
is not. This one is torch's, recognizing mt tensors: its calls (``x.permute``, ``torch.stack``,
``torch.einsum``) record on our engine through the tensor methods and ``__torch_function__``.
Imported by ``minitorch_rx/__init__.py`` only where einops is installed.
"""

from __future__ import annotations

from einops._backends import TorchBackend

from .autograd.tensor import Tensor


class MinitorchRxBackend(TorchBackend):
    framework_name = "minitorch_rx"

    def is_appropriate_type(self, tensor: object) -> bool:
        return isinstance(tensor, Tensor)
