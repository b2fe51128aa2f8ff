"""Seeding every generator the package uses."""

from __future__ import annotations

import random

import numpy as np
import torch


def manual_seed(seed: int) -> torch.Generator:
    """Seed Python's, NumPy's and torch's generators (CPU and CUDA), as one call."""
    generator = torch.manual_seed(seed)  # first: torch validates ``seed`` with its own message
    seed = int(seed)
    random.seed(seed)
    np.random.seed(seed % 2**32)
    return generator
