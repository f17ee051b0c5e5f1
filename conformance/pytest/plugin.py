"""The pytest plugin (``pytest11`` entry point ``wire_conformance``).

Import-light on purpose, like hypothesis's plugin: it declares options and a few hooks
that do nothing until a ``ConformanceSuite`` subclass is collected; the suite itself
is imported then.

The stale-snapshot sweep runs where collection happens (the process, or each
pytest-xdist worker); workers hand what they found to the controller through
``config.workeroutput``, and the controller alone deletes and reports.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from conformance.pytest._sweep import Sweep

FIXTURE = "wire_conformance_case"
#: The fixture of ``GeneratedSuite.test_generated_shapes`` (its column).
GENERATED_FIXTURE = "wire_conformance_column"
#: The ``workeroutput`` key under which an xdist worker hands its stale files over.
WORKER_OUTPUT = "wire_conformance_stale_snapshots"
WORKER_NOTES = "wire_conformance_notes"
WORKER_UNSNAPSHOTTED = "wire_conformance_unsnapshotted"
SWEEP: pytest.StashKey[Sweep] = pytest.StashKey()
#: One-line notes the cells leave for the terminal summary (skipped wires, no snapshots
#: yet, the bundled reference as target), each printed once.
NOTES: pytest.StashKey[dict[str, None]] = pytest.StashKey()
#: The cells that passed their checks but have no snapshot yet (once others exist): a
#: cell fixed after the first ``--snapshot-update``; counted on one summary line.
UNSNAPSHOTTED: pytest.StashKey[dict[str, None]] = pytest.StashKey()


def pytest_addoption(parser: pytest.Parser) -> None:
    """The ``--conformance-*`` options: the pytest face of ``conformance._settings``."""
    from conformance._settings import add_pytest_options

    add_pytest_options(parser.getgroup("wire-conformance"))


def pytest_configure(config: pytest.Config) -> None:
    """Options that can select nothing are usage errors before collection, not an empty
    parameter set and a green run."""
    wires = config.getoption("--conformance-wire", default=[])
    dirs = config.getoption("--conformance-cases", default=[])
    if not (wires or dirs):
        return  # import nothing: the plugin costs sessions without the suite nothing
    from pathlib import Path

    from conformance._cases.selection import case_dir_problems
    from conformance.errors import unknown_names
    from conformance.wires._registry import columns

    unknown = unknown_names("wire", wires, columns())
    if unknown is not None:
        raise pytest.UsageError(f"--conformance-wire: {unknown}")
    problems = case_dir_problems([Path(d) for d in dirs], "--conformance-cases")
    if problems:
        raise pytest.UsageError("; ".join(problems))


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if GENERATED_FIXTURE in metafunc.fixturenames:
        from conformance.pytest._generated_cells import parametrize_columns

        parametrize_columns(metafunc)
    if FIXTURE not in metafunc.fixturenames:
        return
    from conformance.pytest._cells import parametrize

    parametrize(metafunc)


def pytest_collection_modifyitems(session: pytest.Session, items: list[pytest.Item]) -> None:
    """``--conformance-probes``: the catalogues' probes join the collected items."""
    if not session.config.getoption("--conformance-probes", default=[]):
        return
    from conformance.pytest._probes import probe_items

    items.extend(probe_items(session))


def pytest_collection_finish(session: pytest.Session) -> None:
    sweep = session.config.stash.get(SWEEP, None)
    if sweep is not None and not session.config.option.collectonly:
        sweep.find_stale(session.items)


def pytest_sessionfinish(session: pytest.Session) -> None:
    config = session.config
    _signal_status(session)
    workeroutput = getattr(config, "workeroutput", None)
    if workeroutput is not None:
        notes: dict[str, None] = config.stash.get(NOTES, {})
        workeroutput[WORKER_NOTES] = list(notes)
        cells: dict[str, None] = config.stash.get(UNSNAPSHOTTED, {})
        workeroutput[WORKER_UNSNAPSHOTTED] = list(cells)
    sweep = config.stash.get(SWEEP, None)
    if sweep is None:
        return
    if workeroutput is not None:
        workeroutput[WORKER_OUTPUT] = sweep.found()
    else:
        sweep.finish(update=bool(config.getoption("update_snapshots", False)))


def _signal_status(session: pytest.Session) -> None:
    """A session a SIGTERM or SIGHUP ended during a cell exits ``128 + N`` as the
    commands do, not pytest's 2 for Ctrl-C (``conformance._interrupt``)."""
    import sys

    interrupt = sys.modules.get("conformance._interrupt")  # imported once a cell ran
    taken: list[int] = getattr(interrupt, "taken", [])
    if taken:
        session.exitstatus = 128 + taken[0]


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node: Any, error: Any) -> None:
    """On the xdist controller: take a finished worker's notes and stale files."""
    config: pytest.Config = node.config
    output = getattr(node, "workeroutput", {})
    for note in output.get(WORKER_NOTES, ()):
        config.stash.setdefault(NOTES, {})[note] = None
    for cell in output.get(WORKER_UNSNAPSHOTTED, ()):
        config.stash.setdefault(UNSNAPSHOTTED, {})[cell] = None
    found = output.get(WORKER_OUTPUT)
    if found is None:
        return
    from conformance.pytest._sweep import Sweep

    config.stash.setdefault(SWEEP, Sweep()).take(found)


def pytest_terminal_summary(
    terminalreporter: pytest.TerminalReporter, config: pytest.Config
) -> None:
    sweep = config.stash.get(SWEEP, None)
    noted: dict[str, None] = config.stash.get(NOTES, {})
    cells: dict[str, None] = config.stash.get(UNSNAPSHOTTED, {})
    notes, unsnapshotted = list(noted), len(cells)
    if unsnapshotted:
        noun = "cell now passes" if unsnapshotted == 1 else "cells now pass"
        notes.append(
            f"{unsnapshotted} {noun} but {'has' if unsnapshotted == 1 else 'have'} no "
            "snapshot (they fail until recorded; a cell fixed since the last "
            "`pytest --snapshot-update`): record them with `pytest --snapshot-update`"
        )
    if notes and not hasattr(config, "workerinput"):
        terminalreporter.write_sep("-", "wire-conformance")
        for note in notes:
            terminalreporter.write_line(note)
    if sweep is None or hasattr(config, "workerinput"):
        return
    lines = sweep.summary(config.rootpath)
    if lines:
        terminalreporter.write_sep("-", "wire-conformance snapshots")
        for line in lines:
            terminalreporter.write_line(line)
