"""Shared pytest options: ``--runslow`` runs the long-run and scale tests at full size.

Kernel autotuning (``mt.backends.autotune``) is off in every test: fixed, deterministic choices.

By default those tests run shortened (a tenth of the steps or nodes, under a minute in all on
two cores); ``pytest --runslow`` runs them at the sizes the reliability issue names. Tests
that measure something record it with ``record_property``; the figures are listed at the end
of the run under ``--runslow`` (or ``-rP``).
"""

from __future__ import annotations

import os

import pytest

# Fixed kernel choices in every test (and the processes tests start): deterministic, nothing timed,
# no cache file written. tests/test_autotune.py turns the tuner on where it tests it.
os.environ["MINITORCH_RX_AUTOTUNE"] = "0"


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--runslow",
        action="store_true",
        default=False,
        help="run the long-run and scale tests at full size instead of shortened",
    )


def pytest_collection_finish(session: pytest.Session) -> None:
    """Importing torch's test utilities (the op, module and optimizer database sweeps do) freezes
    torch.backends' flags for torch's own runner, which would break the tests that set them."""
    import torch

    torch.backends.flags_frozen.__globals__["__allow_nonbracketed_mutation_flag"] = True


@pytest.fixture
def full_size(request: pytest.FixtureRequest) -> bool:
    """Whether this run asked for the full-size long tests (``--runslow``)."""
    return bool(request.config.getoption("--runslow"))


def pytest_terminal_summary(terminalreporter, exitstatus: int, config: pytest.Config) -> None:
    if not (config.getoption("--runslow") or "P" in (config.option.reportchars or "")):
        return
    figures = [
        (report.nodeid, report.user_properties)
        for reports in terminalreporter.stats.values()
        for report in reports
        if getattr(report, "when", None) == "call" and getattr(report, "user_properties", None)
    ]
    if not figures:
        return
    terminalreporter.section("figures")
    for nodeid, properties in figures:
        terminalreporter.write_line(nodeid)
        for name, value in properties:
            terminalreporter.write_line(f"    {name}: {value}")
