"""Seeding every generator the package uses."""

from __future__ import annotations

import random

import numpy as np
import torch


def manual_seed(seed: int) -> torch.Generator:
    """Seed Python's, NumPy's and torch's generators (CPU and CUDA), as one call."""
    random.seed(seed)
    np.random.seed(seed % 2**32)
    return torch.manual_seed(seed)
