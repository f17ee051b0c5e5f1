"""The pytest plugin (``pytest11`` entry point ``wire_conformance``).

Import-light on purpose, like hypothesis's plugin: it only declares options and one
hook; the suite itself is imported when a ``ConformanceSuite`` subclass is collected.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import pytest

FIXTURE = "wire_conformance_case"


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("wire-conformance")
    group.addoption(
        "--conformance-target",
        default=None,
        metavar="SPEC",
        help="target for ConformanceSuite classes that name none: reference (default), "
        "module:attr or 'cmd:<shell command>'",
    )
    group.addoption(
        "--conformance-cases",
        action="append",
        default=[],
        metavar="DIR",
        help="add a directory of case files to the bundled library (repeatable)",
    )
    group.addoption(
        "--conformance-wire",
        action="append",
        default=[],
        metavar="WIRE",
        help="run only this wire (repeatable)",
    )
    group.addoption(
        "--conformance-case",
        action="append",
        default=[],
        metavar="GLOB",
        help="run only cases whose id matches (repeatable)",
    )
    group.addoption(
        "--conformance-timeout",
        type=float,
        default=None,
        metavar="S",
        help="seconds a case may take on the target",
    )
    group.addoption(
        "--conformance-strict", action="store_true", help="fail on `should` violations too"
    )


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if FIXTURE not in metafunc.fixturenames:
        return
    from conformance._pytest import parametrize

    parametrize(metafunc)
