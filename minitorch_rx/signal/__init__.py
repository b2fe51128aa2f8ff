"""``mt.signal``: signal-processing helpers, as ``torch.signal`` (``windows``)."""

from . import windows

__all__ = ["windows"]
