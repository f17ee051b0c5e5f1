"""``wire-conformance run``: plan the selection, hold every cell on the target, judge
it, and print and write the reports.

Exit 0 when every cell passed (or is pinned, xfail or n/a), 1 on any fail, error or
case-file error, 2 on a usage error, 128 + N when signal N ended the run.  Its
arguments are the command-line face of ``conformance._settings``.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from pathlib import Path
from typing import TYPE_CHECKING

from rich.console import Console

from conformance._commands.command import EXIT_FAILED, EXIT_OK, EXIT_USAGE, console
from conformance._interrupt import Interrupted, ending_signals_raise
from conformance._settings import add_arguments as add_settings

if TYPE_CHECKING:
    from conformance._cases.library import OutlinedLibrary
    from conformance._cases.load_problem import LoadProblem
    from conformance._cases.loader import CaseOutline
    from conformance._report.progress import Mode as ProgressMode
    from conformance._report.report_schema import Report
    from conformance._report.spool import ReportSpool
    from conformance._runner import Job, RunOptions
    from conformance._snapshots import SnapshotStore
    from conformance._targets.resolve import ResolvedTarget
    from conformance.verdict import Result


class RunCommand:
    name = "run"
    help = "run the cases on a target and print the matrix"

    def add_arguments(self, parser: argparse.ArgumentParser) -> None:
        add_settings(parser)

    def execute(self, args: argparse.Namespace) -> int:
        return _run(args, console())


class _UsageError(Exception):
    """A bad argument found before the run: one line, exit 2."""


def _resolve(args: argparse.Namespace) -> ResolvedTarget:
    """The target and the checked arguments of ``run``; raises ``_UsageError``."""
    from conformance._targets.resolve import resolve_target
    from conformance.errors import TargetError, unknown_names
    from conformance.wires._registry import columns

    if os.getcwd() not in sys.path:  # resolve module:attr from here, as `python -m` does
        sys.path.insert(0, os.getcwd())
    try:
        target = resolve_target(args.target, args.target_name)
    except TargetError as error:
        raise _UsageError(str(error)) from None
    unknown = unknown_names("wire", args.wire, columns())
    if unknown is not None:
        raise _UsageError(unknown)
    if args.update_snapshots and not args.snapshots:
        raise _UsageError("--update-snapshots needs --snapshots DIR")
    return target


def _run(args: argparse.Namespace, console: Console) -> int:
    from conformance._cases.library import outline_library
    from conformance._report.paths import prepare_outputs
    from conformance._runner import RunOptions, plan
    from conformance.errors import OutputPathError

    try:
        prepare_outputs(_report_paths(args), args.snapshots)
        target = _resolve(args)
    except (_UsageError, OutputPathError) as error:
        console.print(f"wire-conformance: {error}", markup=False)
        return EXIT_USAGE
    # Each case is loaded, outlined and let go: the plan holds outlines, and a cell
    # reads its case back when it runs (``Job.loaded``).
    library = outline_library(args.cases)
    cases = list(library.cases)
    jobs = plan(cases, target, args.wire, args.case)
    problem = _selection_problem(args, target, library.errors, cases, jobs)
    if problem is None:
        problem = _pin_problem(target, library)
    try:
        jobs = _sharded(args, jobs)
    except _UsageError as error:
        problem = problem or str(error)
    if problem is not None:
        console.print(f"wire-conformance: {problem}", markup=False, highlight=False)
        return EXIT_USAGE
    store = _store(args, target)
    # The HTML report shows the requests each cell sent: saved where asked, or in a
    # scratch folder removed once the page is written.
    args.html_exchanges = args.save_exchanges
    if args.html is not None and args.save_exchanges is None:
        args.html_exchanges = Path(tempfile.mkdtemp(prefix="conformance-html-"))
    options = RunOptions(
        timeout=args.timeout,
        strict=args.strict,
        snapshots=store,
        evidence=args.evidence,
        save_exchanges=args.html_exchanges,
        files=library.files,
    )
    # Each finished cell is written out at once (conformance._report.spool): the run
    # holds the cells in flight, not the library's results.
    with _spool(args) as spool:
        return _run_cells(args, target, jobs, options, spool, library, cases, store, console)


def _run_cells(
    args: argparse.Namespace,
    target: ResolvedTarget,
    jobs: Sequence[Job],
    options: RunOptions,
    spool: ReportSpool,
    library: OutlinedLibrary,
    cases: list[CaseOutline],
    store: SnapshotStore | None,
    console: Console,
) -> int:
    """Run the planned cells into ``spool``, then write and print the reports."""
    from conformance._runner import run_jobs_parallel

    differences: list[str] = []
    try:
        with ending_signals_raise(), _progress(args, target, len(jobs), console) as shown:

            def finished(result: Result) -> None:
                spool.add(result)
                shown(result)

            if args.rounds > 1:
                differences = _run_rounds(args, target, jobs, options, finished)
            else:
                run_jobs_parallel(target, jobs, options, args.jobs, finished, keep=False)
    except Interrupted as interruption:
        try:
            return _interrupted(args, target, spool, library.errors, interruption, console)
        finally:
            _drop_html_scratch(args)
    # Only a run of the whole plan may call a snapshot stale.
    whole = not (args.wire or args.case or library.errors)
    unused = _sweep(store, target, cases) if store is not None and whole else ()
    header = spool.header(_report(target, args, library.errors, unused))
    everything = _WholeReport(spool, header)
    try:
        written = _write_reports(args, everything, console)
    finally:
        _drop_html_scratch(args)
    timed = _progress_mode(args, target, console) != "off"
    _print_summary(args, everything, unused, console, timed)
    if args.baseline:
        results = everything.report().results
        code = _run_baseline(args, target, cases, results, options, console)
        if code is not None:
            return code
    if args.rounds > 1:
        _print_rounds(args.rounds, differences, console)
    return EXIT_OK if header.ok and not differences and written else EXIT_FAILED


class _WholeReport:
    """The run's report: its header and counts at hand, its results on disk, read back
    (once) only for a reader that needs every cell at once."""

    def __init__(self, spool: ReportSpool, header: Report) -> None:
        self.spool, self.header = spool, header
        self._read: Report | None = None

    def report(self) -> Report:
        if self._read is None:
            self._read = self.spool.report(self.header)
        return self._read


def _spool(args: argparse.Namespace) -> ReportSpool:
    from conformance._report.spool import ReportSpool

    return ReportSpool(junit=args.junit is not None)


def _run_rounds(
    args: argparse.Namespace,
    target: ResolvedTarget,
    jobs: Sequence[Job],
    options: RunOptions,
    finished: Callable[[Result], None],
) -> list[str]:
    """``--rounds``: run the selection that many times; the differences between rounds."""
    from conformance._rounds import run_rounds

    return run_rounds(target, jobs, options, args.jobs, args.rounds, finished).differences


def _progress(
    args: argparse.Namespace, target: ResolvedTarget, total: int, console: Console
) -> AbstractContextManager[Callable[[Result], None]]:
    """How the run shows its cells as they finish (``conformance._report.progress``)."""
    from conformance._report.progress import cell_progress

    return cell_progress(console, total, _progress_mode(args, target, console))


def _progress_mode(
    args: argparse.Namespace, target: ResolvedTarget, console: Console
) -> ProgressMode:
    from conformance._report.progress import chosen

    slow = target.kind.name == "command"  # a process per cell: the runs that take minutes
    return chosen(args.progress, console, args.quiet, slow)


def _print_rounds(rounds: int, differences: Sequence[str], console: Console) -> None:
    if not differences:
        console.print(
            f"rounds: {rounds} rounds, every verdict and exchanged byte identical",
            markup=False,
            highlight=False,
        )
        return
    console.print(
        f"rounds: {len(differences)} differences between {rounds} rounds (flaky)",
        markup=False,
        highlight=False,
    )
    for line in differences[:50]:
        console.print(f"  {line}", markup=False, highlight=False)


def _run_baseline(
    args: argparse.Namespace,
    target: ResolvedTarget,
    cases: Sequence[CaseOutline],
    results: Sequence[Result],
    options: RunOptions,
    console: Console,
) -> int | None:
    """Run ``--baseline`` on the same selection and print the A/B table; an exit status
    when the baseline cannot run or is interrupted."""
    from conformance._report.ab import ab_text, compare
    from conformance._runner import plan, run_jobs_parallel
    from conformance._targets.resolve import resolve_target
    from conformance.errors import TargetError

    try:
        baseline = resolve_target(args.baseline)
    except TargetError as error:
        console.print(f"wire-conformance: --baseline: {error}", markup=False)
        return EXIT_USAGE
    jobs = plan(cases, baseline, args.wire, args.case)
    theirs: list[Result] = []
    try:
        with ending_signals_raise():
            run_jobs_parallel(baseline, jobs, options, args.jobs, theirs.append)
    except Interrupted as interruption:
        console.print(f"wire-conformance: baseline {interruption}", markup=False)
        return interruption.exit_status
    name = baseline.name if baseline.name != target.name else f"{baseline.name} (baseline)"
    table = compare(target.name, name, results, theirs)
    sys.stdout.write(ab_text(table))
    if args.ab_json:
        args.ab_json.write_text(table.to_json(), encoding="utf-8")
    return None


def _selection_problem(
    args: argparse.Namespace,
    target: ResolvedTarget,
    load_errors: Sequence[LoadProblem],
    cases: Sequence[CaseOutline],
    jobs: Sequence[Job],
) -> str | None:
    """Why the selection cannot run anything: a green run that tested nothing is a
    misconfiguration.  Case-file load errors are printed first, since they may be why."""
    from conformance._cases.selection import (
        case_dir_problems,
        unmatched_patterns,
        unspoken_selection,
    )

    problems = case_dir_problems(args.cases)
    if problems:
        return "; ".join(problems)
    problems = unmatched_patterns((case.id for case in cases), args.case)
    if not problems and target.wires is not None:
        columns = {job.column for job in jobs}
        unspoken = unspoken_selection(columns, target.speaks, target.name, target.wires)
        if unspoken is not None:
            problems.append(unspoken)
    if not problems:
        problems = [p for p in (_empty_selection(args, target, cases, jobs),) if p]
    if not problems:
        return None
    return "; ".join(problems) + _load_error_note(load_errors)


def _empty_selection(
    args: argparse.Namespace,
    target: ResolvedTarget,
    cases: Sequence[CaseOutline],
    jobs: Sequence[Job],
) -> str | None:
    """Why a selection whose filters each matched something still runs no cell: the
    ``--wire`` filter left none of the chosen cases, or every cell is ``n/a``."""
    from conformance._cases.selection import empty_plan
    from conformance._runner import nothing_runs

    return empty_plan(cases, args.wire, args.case) or nothing_runs(jobs, target)


def _load_error_note(load_errors: Sequence[LoadProblem]) -> str:
    if not load_errors:
        return ""
    first = load_errors[0]
    more = f" and {len(load_errors) - 1} more" if len(load_errors) > 1 else ""
    return f" (a case file did not load: {first}{more})"


def _interrupted(
    args: argparse.Namespace,
    target: ResolvedTarget,
    spool: ReportSpool,
    load_errors: Sequence[LoadProblem],
    interruption: Interrupted,
    console: Console,
) -> int:
    """A run ended by a signal: the reports of the cells that finished, one line, and
    the conventional exit status (the targets were ended on the way out)."""
    finished = len(spool)
    incomplete = f"{interruption}; the report holds the {finished} cells that finished"
    header = spool.header(_report(target, args, load_errors, ()))
    header = header.model_copy(update={"incomplete": incomplete})
    _write_reports(args, _WholeReport(spool, header), console)
    console.print(
        f"wire-conformance: {interruption}; reports hold the {finished} cells that finished",
        markup=False,
        highlight=False,
    )
    return interruption.exit_status


def _sharded(args: argparse.Namespace, jobs: list[Job]) -> list[Job]:
    """``--shard K/N``: this shard's cells (the shard is kept on ``args`` for the
    report); raises ``_UsageError``."""
    from conformance._report.merge import durations, select_shard
    from conformance.errors import MergeError

    args.shard_info = None
    if args.shard is None:
        if args.durations is not None:
            raise _UsageError("--durations goes with --shard")
        return jobs
    if args.baseline:
        raise _UsageError("--shard does not go with --baseline (compare whole runs)")
    try:
        seconds = durations(args.durations) if args.durations is not None else None
    except MergeError as error:
        raise _UsageError(str(error)) from None
    settings = [
        *(f"{name}={getattr(args, name)!r}" for name in ("timeout", "strict", "evidence")),
        f"rounds={args.rounds}",
        f"snapshots={args.snapshots is not None}, update={args.update_snapshots}",
    ]
    part, args.shard_info = select_shard(jobs, args.shard, settings, seconds)
    return part


def _pin_problem(target: ResolvedTarget, library: OutlinedLibrary) -> str | None:
    """A pin for a case that does not exist (a typo, a renamed case): say so before the
    run.  A pin for a case that did not load is not "unknown": the load error says why."""
    unknown = target.unknown_pins({case.id for case in library.cases})
    if not unknown or library.errors:
        return None
    return f"{target.spec}: pins name no case: {', '.join(unknown)}"


def _report_paths(args: argparse.Namespace) -> list[Path]:
    return [path for path in (args.json, args.junit, args.markdown, args.html) if path is not None]


def _store(args: argparse.Namespace, target: ResolvedTarget) -> SnapshotStore | None:
    if not args.snapshots:
        return None
    # Here, not at the top: the store imports syrupy and pytest, which a run without
    # --snapshots does not need (tests/test_import_cost.py).
    from conformance._snapshots import SnapshotStore

    return SnapshotStore(args.snapshots, target.name, args.update_snapshots)


def _report(
    target: ResolvedTarget,
    args: argparse.Namespace,
    load_errors: Sequence[LoadProblem],
    unused: tuple[str, ...],
) -> Report:
    """The run's report without its results (a header: ``ReportSpool`` holds them)."""
    from conformance._report.report_schema import build_report

    report = build_report(
        target.name,
        target.kind.name,
        [],
        args.strict,
        load_errors,
        args.evidence,
    )
    update: dict[str, object] = {"bundled_target": target.bundled_reference}
    if getattr(args, "shard_info", None) is not None:
        update["shard"] = args.shard_info
    if unused:
        update["unused_snapshots"] = unused
    report = report.model_copy(update=update)
    return report


def _write_reports(args: argparse.Namespace, run: _WholeReport, console: Console) -> bool:
    """Write every report asked for, each whole or not at all; one that cannot be
    written is one line naming it, and the others are written anyway.  The JSON and
    JUnit reports are written from the spool a cell at a time; Markdown and HTML read
    every result back."""
    from conformance._paths import write_report
    from conformance._report.markdown import to_markdown

    def html() -> str:
        from conformance._report.html import to_html

        return to_html(run.report(), getattr(args, "html_exchanges", None))

    failures = [
        failure
        for path, render in (
            (args.json, lambda: run.spool.json(run.header)),
            (args.junit, lambda: run.spool.junit(run.header)),
            (args.markdown, lambda: to_markdown(run.report())),
            (getattr(args, "html", None), html),
        )
        if path and (failure := write_report(path, render())) is not None
    ]
    for failure in failures:
        console.print(f"wire-conformance: {failure}", markup=False, highlight=False)
    return not failures


def _drop_html_scratch(args: argparse.Namespace) -> None:
    """Remove the scratch folder the HTML report read the cells' requests from (never a
    ``--save-exchanges`` folder the user asked for)."""
    scratch = getattr(args, "html_exchanges", None)
    if scratch is not None and scratch != args.save_exchanges:
        shutil.rmtree(scratch, ignore_errors=True)


def _print_summary(
    args: argparse.Namespace,
    run: _WholeReport,
    unused: Sequence[str],
    console: Console,
    timed: bool = False,
) -> None:
    from conformance._report.report_schema import summary_line
    from conformance._report.terminal import print_report

    if args.quiet:
        for error in run.header.load_errors:  # never hidden: they fail the run
            console.print(f"case file error: {error}", markup=False, highlight=False)
        console.print(summary_line(run.header, run.spool.counted), markup=False, highlight=False)
    else:
        print_report(run.report(), console, args.format, args.verbose, timed)
    if unused:
        _print_unused(unused, args.update_snapshots, args.quiet, console)


def _sweep(
    store: SnapshotStore, target: ResolvedTarget, cases: list[CaseOutline]
) -> tuple[str, ...]:
    """The stale snapshots of the target (deleted when updating), relative to the
    snapshots directory."""
    from conformance._runner import plan

    planned = ((job.column, job.case_id) for job in plan(cases, target) if job.skip is None)
    return tuple(path.relative_to(store.root).as_posix() for path in store.sweep(planned))


def _print_unused(unused: Sequence[str], deleted: bool, quiet: bool, console: Console) -> None:
    noun = "snapshot" if len(unused) == 1 else "snapshots"
    console.print(
        f"{len(unused)} unused {noun} deleted"
        if deleted
        else f"{len(unused)} unused {noun} (delete with --update-snapshots)",
        markup=False,
        highlight=False,
    )
    if not quiet:
        for path in unused:
            console.print(f"  {path}", markup=False, highlight=False)
