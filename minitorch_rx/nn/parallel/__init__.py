"""``minitorch_rx.nn.parallel``: data-parallel training over ``torch.distributed`` process groups,
and PyTorch's single-process ``DataParallel`` wrapper.

>>> import minitorch_rx.nn as nn
>>> nn.parallel.DistributedDataParallel.__name__
'DistributedDataParallel'
"""

from .data_parallel import DataParallel
from .distributed import DistributedDataParallel

__all__ = ["DataParallel", "DistributedDataParallel"]
