"""``detect_anomaly()``: NaN/Inf produced in backward raises, naming the op and its forward line."""

from __future__ import annotations

from .grad_mode import state


class detect_anomaly:
    """Context in which each recorded op keeps its forward stack and backward checks every
    gradient it produces for NaN/Inf (slow: for debugging, as ``torch.autograd.detect_anomaly``)."""

    def __init__(self, check_nan: bool = True) -> None:
        self.check_nan = check_nan

    def __enter__(self) -> None:
        self._previous = state.anomaly
        state.anomaly = self.check_nan

    def __exit__(self, *exc: object) -> None:
        state.anomaly = self._previous


def is_anomaly_enabled() -> bool:
    return state.anomaly
