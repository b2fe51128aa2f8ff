"""``minitorch_rx.nn.parallel``: data-parallel training over ``torch.distributed`` process groups.

>>> import minitorch_rx.nn as nn
>>> nn.parallel.DistributedDataParallel.__name__
'DistributedDataParallel'
"""

from .distributed import DistributedDataParallel

__all__ = ["DistributedDataParallel"]
