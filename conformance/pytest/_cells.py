"""The cells of a ``ConformanceSuite``: parametrize them, judge them, snapshot them.

Kept out of ``plugin`` so that installing the suite costs other test sessions nothing
until a ``ConformanceSuite`` subclass is collected.
"""

from __future__ import annotations

import re
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NoReturn

import pytest

from conformance._cases.library import load_library
from conformance._cases.load_problem import LoadProblem
from conformance._cases.loader import CaseSet
from conformance._cases.schema import Case
from conformance._interrupt import cell_signals_interrupt
from conformance._report.report_schema import undeclared_note
from conformance._report.terminal import details
from conformance._runner import Job, RunOptions, nothing_runs, plan, run_job
from conformance._settings import GENERATED_SUITE, SUITE, setting, suite_problems
from conformance._snapshots import (
    CELL_PARAMETER,
    RequestBodies,
    SnapshotSlot,
    corruption,
    emitted_bodies,
)
from conformance._targets.resolve import ResolvedTarget, resolve_target, target_from_object
from conformance.errors import TargetError
from conformance.pytest._suite import ConformanceSuite
from conformance.pytest._sweep import Sweep
from conformance.pytest.plugin import NOTES, SWEEP, UNSNAPSHOTTED
from conformance.verdict import Result

_LIBRARY = pytest.StashKey[dict[tuple[Path, ...], CaseSet]]()


class ConformanceWarning(UserWarning):
    """A `should` violation: accepted by the provider, but costly (cache, continuity)."""


@dataclass(frozen=True)
class Cell:
    """One parametrized case × wire for one target; ``snapshot`` is where its request
    bodies are kept (``None``: snapshots are off, or the cell is n/a)."""

    job: Job
    target: ResolvedTarget
    options: RunOptions
    snapshot: SnapshotSlot | None = None


@dataclass(frozen=True)
class BrokenCaseFile:
    """A case file that did not load: its test fails with the loader's message."""

    error: LoadProblem


def suite_setting(cls: type[ConformanceSuite], config: pytest.Config, name: str) -> Any:
    """A setting's value for a suite: its class attribute and its pytest option
    combined as the setting says (``conformance._settings.Setting.merge``)."""
    item = setting(name)
    assert item.attribute is not None
    assert item.pytest is not None
    attribute = getattr(cls, item.attribute)
    option = config.getoption(item.pytest)
    if item.merge == "suite":
        if attribute is not None:
            return attribute
        return option if option is not None else item.default
    if item.merge == "option":
        return option if option is not None else attribute
    if item.merge == "either":
        return bool(attribute or option)
    return [*attribute, *option]


def run_options(cls: type[ConformanceSuite], config: pytest.Config, **more: Any) -> RunOptions:
    """How a suite's cells run: its timeout, strictness and evidence level."""
    return RunOptions(
        timeout=suite_setting(cls, config, "timeout"),
        strict=suite_setting(cls, config, "strict"),
        evidence=suite_setting(cls, config, "evidence"),
        **more,
    )


def _target(cls: type[ConformanceSuite], config: pytest.Config) -> ResolvedTarget:
    """The suite's target, once its settings were checked (``suite_problems``)."""
    problems = suite_problems(cls, [GENERATED_SUITE, SUITE])
    if problems:
        misconfigured("; ".join(problems))
    spec: Any = suite_setting(cls, config, "target")
    name = suite_setting(cls, config, "target_name")
    try:
        if isinstance(spec, str):
            return resolve_target(spec, name)
        return target_from_object(spec, name=name)
    except TargetError as error:
        problem = str(error)  # reported outside the handler: no chained traceback
    misconfigured(f"{cls.__name__}.target: {problem}")


def misconfigured(reason: str) -> NoReturn:
    """A suite that cannot select anything: a collection error with one line, no
    traceback of this module, and a non-zero exit."""
    pytest.fail(f"wire-conformance: {reason}", pytrace=False)


def note(config: pytest.Config, line: str) -> None:
    """A line for the session's terminal summary, printed once."""
    config.stash.setdefault(NOTES, {})[line] = None


def _library(config: pytest.Config, extra: tuple[Path, ...]) -> CaseSet:
    loaded = config.stash.setdefault(_LIBRARY, {})
    if extra not in loaded:
        loaded[extra] = load_library(list(extra))
    return loaded[extra]


def parametrize(metafunc: pytest.Metafunc) -> None:
    """One test per case × wire of the suite's target, and one per broken case file."""
    cls = metafunc.cls
    if cls is None or not issubclass(cls, ConformanceSuite):
        raise pytest.UsageError(
            "the wire_conformance_case fixture belongs to ConformanceSuite tests"
        )
    config = metafunc.config
    root = Path(str(config.rootpath))
    extra = tuple(
        [
            *(root / Path(d) for d in cls.case_dirs),
            *map(Path, config.getoption("--conformance-cases")),
        ]
    )
    target = _target(cls, config)
    library = _library(config, extra)
    options = run_options(
        cls,
        config,
        save_exchanges=_exchanges_dir(config),
        files={loaded.case.id: loaded.shown for loaded in library.cases},
    )
    wires = set(suite_setting(cls, config, "wire"))
    patterns = suite_setting(cls, config, "case")
    values: list[Any] = [BrokenCaseFile(error) for error in library.errors]
    ids = [f"case-file-error-{i}" for i in range(len(values))]
    snapshots = None if cls.snapshot_dir is None else root / Path(cls.snapshot_dir)
    cases = [loaded.case for loaded in library.cases]
    jobs = selected_jobs(cls, config, target, cases, wires, patterns)
    if snapshots is not None and not first_snapshots(config, snapshots, target):
        snapshots = None
    for job in jobs:
        slot = None
        if snapshots is not None and job.skip is None:
            slot = SnapshotSlot(snapshots, target.name, job.column, job.case.id)
        values.append(Cell(job, target, options, slot))
        ids.append(f"{job.case.id}@{job.column}")
    metafunc.parametrize(CELL_PARAMETER, values, ids=ids)
    if snapshots is not None:
        _add_to_sweep(config, snapshots, target, cases, values, whole=not library.errors)


def selected_jobs(
    cls: type[ConformanceSuite],
    config: pytest.Config,
    target: ResolvedTarget,
    cases: list[Case],
    wires: set[str],
    patterns: list[str],
) -> list[Job]:
    """The suite's cells: a selection that selects nothing is a usage error; cells of
    wires the target does not declare are left out (one summary line, not a wall of
    skips); other ``n/a`` cells stay, skipped with the reason."""
    from conformance._cases.selection import empty_plan, unmatched_patterns, unspoken_selection
    from conformance.errors import unknown_names
    from conformance.wires._registry import declarable

    where = f"{cls.__name__}"
    unknown = unknown_names("wire", cls.wires, declarable())
    if unknown is not None:
        misconfigured(f"{where}.wires: {unknown}")
    problems = unmatched_patterns(
        (c.id for c in cases), cls.case_patterns, f"{where}.case_patterns"
    )
    problems += unmatched_patterns(
        (c.id for c in cases), config.getoption("--conformance-case"), "--conformance-case"
    )
    if problems:
        misconfigured("; ".join(problems))
    jobs = plan(cases, target, wires, patterns)
    empty = empty_plan(cases, wires, patterns, "wire", "case pattern")
    if empty is not None:
        misconfigured(f"{where}: {empty}")
    spoken = [job for job in jobs if target.speaks(job.column)]
    if target.wires is not None and jobs and not spoken:
        columns_ = {job.column for job in jobs}
        reason = unspoken_selection(columns_, target.speaks, target.name, target.wires)
        misconfigured(f"{where}: {reason}")
    nothing = nothing_runs(jobs, target)
    if nothing is not None:
        misconfigured(f"{where}: {nothing}")
    left_out = sorted({job.column for job in jobs} - {job.column for job in spoken})
    if left_out:
        count = len(jobs) - len(spoken)
        note(config, f"{where}: {undeclared_note(count, target.name, left_out)} were not collected")
    if target.bundled_reference:
        note(
            config,
            f"{where}: the target is the bundled reference adapter, not your code "
            "(set `target` or pass --conformance-target)",
        )
    return spoken


def first_snapshots(config: pytest.Config, root: Path, target: ResolvedTarget) -> bool:
    """Whether to compare snapshots: not before the target's first ones were recorded
    (the cells are judged, and one line says how to record them)."""
    if config.getoption("update_snapshots", False) or (root / target.name).is_dir():
        return True
    note(
        config,
        f"no snapshots for {target.name} under {root.name}/ yet: the cells were judged "
        "without them; record them with `pytest --snapshot-update` (or set "
        "snapshot_dir = None to run without snapshots)",
    )
    return False


def _add_to_sweep(
    config: pytest.Config,
    snapshots: Path,
    target: ResolvedTarget,
    cases: list[Case],
    values: list[Any],
    whole: bool,
) -> None:
    """Tell the session's sweep which cells own snapshots under ``snapshots/<target>``:
    every applicable cell of the target's unfiltered plan."""
    filtered = config.getoption("--conformance-wire") or config.getoption("--conformance-case")
    config.stash.setdefault(SWEEP, Sweep()).add_suite(
        snapshots,
        target.name,
        ((job.column, job.case.id) for job in plan(cases, target) if job.skip is None),
        cells=sum(isinstance(v, Cell) and v.snapshot is not None for v in values),
        whole=whole and not filtered,
    )


def check_cell(cell: Cell | BrokenCaseFile, request: pytest.FixtureRequest) -> None:
    if isinstance(cell, BrokenCaseFile):
        pytest.fail(f"case file error: {cell.error}", pytrace=False)
    with cell_signals_interrupt():  # SIGTERM ends the cell's processes and scratch folder
        result, transcript = run_job(cell.target, cell.job, cell.options)
    if result.verdict == "n/a":
        pytest.skip(f"n/a: {result.reason}")
    if result.verdict == "xfail":
        pytest.xfail(result.reason or "pinned by the target")
    if result.verdict in ("fail", "error"):
        pytest.fail("\n".join(details(result)), pytrace=False)
    warn(result)
    if cell.snapshot is not None and transcript is not None:
        compare_snapshot(cell.snapshot, emitted_bodies(transcript), request)
    if result.verdict == "pinned":
        pytest.xfail(f"pinned limitation shown as documented: {result.reason}")


def warn(result: Result) -> None:
    """Each warning of a cell as a ``ConformanceWarning`` located at the case file, not
    at this module: pytest's summary then shows no source line of the suite's own under
    each one (line 0 has none)."""
    for warning in result.warnings:
        warnings.warn_explicit(
            ConformanceWarning(f"{result.case}@{result.wire}: {warning.check}: {warning.message}"),
            ConformanceWarning,
            filename=result.file or result.case,
            lineno=0,
        )


#: The most lines of a snapshot diff shown in a failure.
DIFF_LINES = 60
#: Syrupy colours its diff character by character; a CI log wants the text.
_ANSI = re.compile(r"\x1b\[[0-9;]*m")


def compare_snapshot(slot: SnapshotSlot, bodies: Any, request: pytest.FixtureRequest) -> None:
    """Compare with the cell's snapshot; a drift fails with the diff (bounded), not with
    this module's source as the traceback."""
    snapshot = request.getfixturevalue("snapshot").use_extension(RequestBodies)
    if snapshot == bodies:
        return
    if not slot.path.is_file():
        request.config.stash.setdefault(UNSNAPSHOTTED, {})[request.node.nodeid] = None
        pytest.fail(
            f"no snapshot for this cell yet ({slot.path.name} under "
            f"{slot.directory.parent.name}/{slot.directory.name}/): record it with "
            "`pytest --snapshot-update`",
            pytrace=False,
        )
    try:
        problem = corruption(slot.path.read_bytes().decode("utf-8"))
    except (OSError, UnicodeDecodeError):
        problem = "is not UTF-8 text"
    if problem is not None:  # a diff against a cut file would blame the target
        pytest.fail(
            f"the snapshot {slot.path} {problem}: a corrupt file, not a drift; rewrite "
            "it with `pytest --snapshot-update`",
            pytrace=False,
        )
    diff = [_ANSI.sub("", line).rstrip() for line in snapshot.get_assert_diff()]
    shown = diff[:DIFF_LINES]
    if len(diff) > DIFF_LINES:
        shown.append(f"... {len(diff) - DIFF_LINES} more lines")
    pytest.fail(
        "the request bodies drifted from the snapshot (accept with `pytest "
        "--snapshot-update`):\n" + "\n".join(shown),
        pytrace=False,
    )


def _exchanges_dir(config: pytest.Config) -> Path | None:
    """``--conformance-save-exchanges``, relative to where pytest was started."""
    value = config.getoption("--conformance-save-exchanges")
    return None if value is None else Path(str(config.invocation_params.dir)) / value
