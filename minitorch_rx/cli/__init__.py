"""The ``minitorch-rx`` command line (also ``python -m minitorch_rx``)."""

from .main import main

__all__ = ["main"]
