"""The ``wire-conformance`` command.

    wire-conformance run    [--target reference|reference-command|MANIFEST|module:attr|
                             cmd:<command>] [-j N] [--wire W]
                            [--case GLOB] [--cases DIR] [--json PATH] [--junit PATH]
                            [--markdown PATH] [--html PATH] [--timeout S] [--strict]
                            [--evidence documented|observed|any] [--save-exchanges DIR]
                            [--snapshots DIR [--update-snapshots]]
                            [--format auto|matrix|list] [-q]
                            [--baseline TARGET [--ab-json PATH]] [--rounds N]
    wire-conformance cases  [--schema | --lint | --list] [--cases DIR]
    wire-conformance checks [--json] [--kind run|realism]
    wire-conformance target FILE | --schema
    wire-conformance probe  [--target reference|module:attr|MANIFEST|cmd:<command>]
                            [--probes FILE]... [-j N] [--json PATH] [--markdown PATH]
                            [--all-killers] [--isolate none|fork]
                            [--case GLOB] [--wire W] [--strict] | --schema
    wire-conformance decode --wire WIRE[:DIALECT] [--json] [--stream | --no-stream] FILE
    wire-conformance record --upstream URL [--listen 127.0.0.1:PORT] --out DIR [--redact-text]
    wire-conformance replay DIR... [--target T] [--json PATH] [--strict] [--evidence E]
    wire-conformance recording [--schema | to-case FILE [--out PATH]]
    wire-conformance recording audit DIR... [--json PATH] [--exclude FILE]
    wire-conformance report diff OLD.json NEW.json
    wire-conformance report html REPORT.json [-o PATH] [--exchanges DIR] [--ab AB.json]
    wire-conformance generate [--target T] [--wire W] [--examples N] [--seed S]
                            [--profile dev|ci|nightly] [--save DIR] [--database DIR]

``run`` exits 0 when every cell passed (or is pinned, xfail or n/a), 1 on any fail,
error or case-file error, and 2 on a usage error.  ``decode`` prints a recorded provider
response as the scripted response it reads back to (exit 0), or ``FILE: <where>:
<problem>`` when it cannot be read (exit 1).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from pathlib import Path
from typing import TYPE_CHECKING

from rich.console import Console

from conformance.interrupt import Interrupted, ending_signals_raise, exit_on_interrupt
from conformance.verdict import (
    DEFAULT_EVIDENCE_THRESHOLD,
    DEFAULT_TIMEOUT,
    EVIDENCE_THRESHOLDS,
    timeout_seconds,
)
from conformance.version import __version__

if TYPE_CHECKING:
    from conformance.cases.load_error import LoadError
    from conformance.cases.loader import CaseSet
    from conformance.cases.schema import Case
    from conformance.model import ScriptedResponse
    from conformance.report.model import Report
    from conformance.report.progress import Mode as ProgressMode
    from conformance.runner import Job, RunOptions
    from conformance.snapshots import SnapshotStore
    from conformance.targets.resolve import ResolvedTarget
    from conformance.verdict import Result

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2
#: What ``--help`` says first: plain text (the module docstring's first line is reST,
#: and argparse printed its markup as written).
DESCRIPTION = (
    "A conformance suite for the code between an LLM agent and a provider's wire: it "
    "scripts the provider, lets your adapter, client or command hold the conversation, "
    "and judges every request it sends back."
)
#: The longest ``--timeout`` accepted: a day.  More is a typo, not a plan.


def _add_case_dirs(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--cases",
        action="append",
        type=Path,
        default=[],
        metavar="DIR",
        help="add a directory of case files to the bundled library (repeatable)",
    )


def _add_evidence(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--evidence",
        choices=EVIDENCE_THRESHOLDS,
        default=DEFAULT_EVIDENCE_THRESHOLD,
        help="the weakest evidence that may fail a cell: documented, observed (default) or "
        "any; a violation resting on weaker evidence (inferred, design) is a warning, "
        "even with --strict",
    )


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="wire-conformance", description=DESCRIPTION)
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    commands = parser.add_subparsers(dest="command", required=True)

    run = commands.add_parser("run", help="run the cases on a target and print the matrix")
    run.add_argument(
        "--target",
        default="reference",
        help="reference (default), reference-command, a manifest (*.toml, *.yaml), "
        "module:attr, or 'cmd:<shell command>'",
    )
    run.add_argument(
        "-j",
        "--jobs",
        type=_jobs,
        default=1,
        metavar="N",
        help="run up to N cells of a command target at once (default 1)",
    )
    run.add_argument("--target-name", help="name used in reports and snapshot paths")
    run.add_argument("--wire", action="append", default=[], help="only this wire (repeatable)")
    run.add_argument(
        "--case",
        action="append",
        default=[],
        metavar="GLOB",
        help="only cases whose id matches (repeatable)",
    )
    _add_case_dirs(run)
    run.add_argument("--json", type=Path, metavar="PATH", help="write the JSON report")
    run.add_argument("--junit", type=Path, metavar="PATH", help="write a JUnit XML report")
    run.add_argument("--markdown", type=Path, metavar="PATH", help="write a Markdown report")
    run.add_argument(
        "--html",
        type=Path,
        metavar="PATH",
        help="write an HTML report: one self-contained page with the matrix, filters, "
        "each failing cell's violations and the requests it sent",
    )
    run.add_argument(
        "--timeout",
        type=timeout_seconds,
        default=DEFAULT_TIMEOUT,
        metavar="S",
        help=f"seconds a case may take on the target (default {DEFAULT_TIMEOUT:g}, at most a day)",
    )
    run.add_argument("--strict", action="store_true", help="`should` violations fail too")
    _add_evidence(run)
    run.add_argument(
        "--save-exchanges",
        type=Path,
        metavar="DIR",
        help="write every request and response of every cell to DIR/<target>/<wire>/<case>.json",
    )
    run.add_argument(
        "--snapshots",
        type=Path,
        metavar="DIR",
        help="compare emitted request bodies with DIR/<target>/<wire>/<case>.json",
    )
    run.add_argument(
        "--update-snapshots",
        action="store_true",
        help="write new and changed snapshots and delete stale ones (with --snapshots)",
    )
    run.add_argument("-q", "--quiet", action="store_true", help="print only the summary line")
    run.add_argument(
        "--progress",
        choices=("auto", "bar", "lines", "off"),
        default="auto",
        help="show cells as they finish: a bar on a terminal, a line per cell in a log "
        "(auto: the bar on a terminal, lines for a command target elsewhere, else off)",
    )
    run.add_argument(
        "-v",
        "--verbose",
        action="store_true",
        help="print every warning under its cell (default: one line counting them)",
    )
    run.add_argument(
        "--rounds",
        type=_rounds,
        default=1,
        metavar="N",
        help="run the selection N times and fail if any verdict or exchanged byte differs "
        "between rounds (the flakiness gate; default 1)",
    )
    run.add_argument(
        "--baseline",
        metavar="TARGET",
        help="also run this target on the same selection and print an A/B cell table "
        "(both verdicts per case × wire, and what was fixed, broke or still fails)",
    )
    run.add_argument("--ab-json", type=Path, metavar="PATH", help="write the A/B table as JSON")
    run.add_argument(
        "--format",
        choices=("auto", "matrix", "list"),
        default="auto",
        help="the verdicts as a case × wire matrix, or one line per case (auto: the matrix "
        "when it fits the output's width; a matrix is never cut)",
    )

    cases = commands.add_parser("cases", help="list, lint or describe the case files")
    mode = cases.add_mutually_exclusive_group()
    mode.add_argument("--schema", action="store_true", help="print the case JSON Schema")
    mode.add_argument("--lint", action="store_true", help="lint the library, exit 1 on problems")
    mode.add_argument("--list", action="store_true", help="list the cases (the default)")
    mode.add_argument("--show", metavar="ID", help="print one case with its citations resolved")
    mode.add_argument(
        "--coverage",
        action="store_true",
        help="map every seed entry and wire rule to its cases, probes or reason; exit 1 on a gap",
    )
    cases.add_argument("--json", action="store_true", help="with --coverage: print it as JSON")
    _add_case_dirs(cases)

    target = commands.add_parser(
        "target", help="check a target manifest and say what the suite will do with it"
    )
    target.add_argument(
        "manifest", nargs="?", type=Path, metavar="FILE", help="the manifest to check"
    )
    target.add_argument("--schema", action="store_true", help="print the manifest JSON Schema")

    checks = commands.add_parser(
        "checks", help="list every check, rule and invariant with its source"
    )
    checks.add_argument("--json", action="store_true", help="print the list as JSON")
    checks.add_argument(
        "--kind",
        choices=("run", "realism"),
        default="run",
        help="run: the checks that judge a run (default); realism: the shapes each wire "
        "never sends, which `cases --lint` reports",
    )
    checks.add_argument(
        "--rule",
        metavar="ID",
        help="print one check (invariant/tool-pairing, as reports print it) or catalogue "
        "entry (33, A8, E31, F1, seed:96)",
    )

    decode = commands.add_parser(
        "decode", help="read a recorded provider response back as a scripted response"
    )
    decode.add_argument("--wire", required=True, metavar="WIRE[:DIALECT]", help="its column")
    decode.add_argument("--json", action="store_true", help="print the response's JSON")
    decode.add_argument(
        "--stream",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="whether the body is a stream (default: told from its content)",
    )
    decode.add_argument("file", type=Path, metavar="FILE", help="the recorded response body")
    from conformance.probe.command import add_probe_parser
    from conformance.recording.command import add_recording_parsers

    add_probe_parser(commands)
    add_recording_parsers(commands)
    from conformance.generate.command import add_generate_parser

    add_generate_parser(commands)
    return parser


class _UsageError(Exception):
    """A bad argument found before the run: one line, exit 2."""


#: The most cells ``-j`` runs at once.
MAX_JOBS = 64


def _jobs(text: str) -> int:
    """``-j``: a whole number of cells from 1 to ``MAX_JOBS``."""
    try:
        jobs = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if not 1 <= jobs <= MAX_JOBS:
        raise argparse.ArgumentTypeError(f"{text!r}: give 1 to {MAX_JOBS}")
    return jobs


#: The most rounds ``--rounds`` runs.
MAX_ROUNDS = 100


def _rounds(text: str) -> int:
    """``--rounds``: a whole number of rounds from 1 to ``MAX_ROUNDS``."""
    try:
        rounds = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if not 1 <= rounds <= MAX_ROUNDS:
        raise argparse.ArgumentTypeError(f"{text!r}: give 1 to {MAX_ROUNDS}")
    return rounds


def _resolve(args: argparse.Namespace) -> ResolvedTarget:
    """The target and the checked arguments of ``run``; raises ``_UsageError``."""
    from conformance.errors import unknown_names
    from conformance.targets.resolve import TargetError, resolve_target
    from conformance.wires.registry import columns

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
    from conformance.cases.library import load_library
    from conformance.report.paths import OutputPathError, prepare_outputs
    from conformance.runner import RunOptions, plan, run_jobs_parallel

    try:
        prepare_outputs(_report_paths(args), args.snapshots)
        target = _resolve(args)
    except (_UsageError, OutputPathError) as error:
        console.print(f"wire-conformance: {error}", markup=False)
        return EXIT_USAGE
    library = load_library(args.cases)
    cases = [loaded.case for loaded in library.cases]
    jobs = plan(cases, target, args.wire, args.case)
    problem = _selection_problem(args, target, library.errors, cases, jobs)
    if problem is None:
        problem = _pin_problem(target, library)
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
        files={loaded.case.id: loaded.shown for loaded in library.cases},
    )
    results: list[Result] = []
    differences: list[str] = []
    try:
        with ending_signals_raise(), _progress(args, target, len(jobs), console) as shown:

            def finished(result: Result) -> None:
                results.append(result)
                shown(result)

            if args.rounds > 1:
                differences = _run_rounds(args, target, jobs, options, finished)
            else:
                run_jobs_parallel(target, jobs, options, args.jobs, finished)
    except Interrupted as interruption:
        try:
            return _interrupted(args, target, results, library.errors, interruption, console)
        finally:
            _drop_html_scratch(args)
    # Only a run of the whole plan may call a snapshot stale.
    whole = not (args.wire or args.case or library.errors)
    unused = _sweep(store, target, cases) if store is not None and whole else ()
    report = _report(target, results, args, library.errors, unused)
    try:
        written = _write_reports(args, report, console)
    finally:
        _drop_html_scratch(args)
    timed = _progress_mode(args, target, console) != "off"
    _print_summary(args, report, unused, console, timed)
    if args.baseline:
        code = _run_baseline(args, target, cases, results, options, console)
        if code is not None:
            return code
    if args.rounds > 1:
        _print_rounds(args.rounds, differences, console)
    return EXIT_OK if report.ok and not differences and written else EXIT_FAILED


def _run_rounds(
    args: argparse.Namespace,
    target: ResolvedTarget,
    jobs: Sequence[Job],
    options: RunOptions,
    finished: Callable[[Result], None],
) -> list[str]:
    """``--rounds``: run the selection that many times; the differences between rounds."""
    from conformance.rounds import run_rounds

    return run_rounds(target, jobs, options, args.jobs, args.rounds, finished).differences


def _progress(
    args: argparse.Namespace, target: ResolvedTarget, total: int, console: Console
) -> AbstractContextManager[Callable[[Result], None]]:
    """How the run shows its cells as they finish (``conformance.report.progress``)."""
    from conformance.report.progress import cell_progress

    return cell_progress(console, total, _progress_mode(args, target, console))


def _progress_mode(
    args: argparse.Namespace, target: ResolvedTarget, console: Console
) -> ProgressMode:
    from conformance.report.progress import chosen

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
    cases: Sequence[Case],
    results: Sequence[Result],
    options: RunOptions,
    console: Console,
) -> int | None:
    """Run ``--baseline`` on the same selection and print the A/B table; an exit status
    when the baseline cannot run or is interrupted."""
    from conformance.report.ab import ab_text, compare
    from conformance.runner import plan, run_jobs_parallel
    from conformance.targets.resolve import TargetError, resolve_target

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
    load_errors: Sequence[LoadError],
    cases: Sequence[Case],
    jobs: Sequence[Job],
) -> str | None:
    """Why the selection cannot run anything: a green run that tested nothing is a
    misconfiguration.  Case-file load errors are printed first, since they may be why."""
    from conformance.cases.selection import (
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
    args: argparse.Namespace, target: ResolvedTarget, cases: Sequence[Case], jobs: Sequence[Job]
) -> str | None:
    """Why a selection whose filters each matched something still runs no cell: the
    ``--wire`` filter left none of the chosen cases, or every cell is ``n/a``."""
    from conformance.cases.selection import empty_plan
    from conformance.runner import nothing_runs

    return empty_plan(cases, args.wire, args.case) or nothing_runs(jobs, target)


def _load_error_note(load_errors: Sequence[LoadError]) -> str:
    if not load_errors:
        return ""
    first = load_errors[0]
    more = f" and {len(load_errors) - 1} more" if len(load_errors) > 1 else ""
    return f" (a case file did not load: {first}{more})"


def _interrupted(
    args: argparse.Namespace,
    target: ResolvedTarget,
    results: list[Result],
    load_errors: Sequence[LoadError],
    interruption: Interrupted,
    console: Console,
) -> int:
    """A run ended by a signal: the reports of the cells that finished, one line, and
    the conventional exit status (the targets were ended on the way out)."""
    report = _report(target, results, args, load_errors, ())
    incomplete = f"{interruption}; the report holds the {len(results)} cells that finished"
    _write_reports(args, report.model_copy(update={"incomplete": incomplete}), console)
    console.print(
        f"wire-conformance: {interruption}; reports hold the {len(results)} cells that finished",
        markup=False,
        highlight=False,
    )
    return interruption.exit_status


def _pin_problem(target: ResolvedTarget, library: CaseSet) -> str | None:
    """A pin for a case that does not exist (a typo, a renamed case): say so before the
    run.  A pin for a case that did not load is not "unknown": the load error says why."""
    unknown = target.unknown_pins({loaded.case.id for loaded in library.cases})
    if not unknown or library.errors:
        return None
    return f"{target.spec}: pins name no case: {', '.join(unknown)}"


def _report_paths(args: argparse.Namespace) -> list[Path]:
    return [path for path in (args.json, args.junit, args.markdown, args.html) if path is not None]


def _store(args: argparse.Namespace, target: ResolvedTarget) -> SnapshotStore | None:
    from conformance.snapshots import SnapshotStore

    if not args.snapshots:
        return None
    return SnapshotStore(args.snapshots, target.name, args.update_snapshots)


def _report(
    target: ResolvedTarget,
    results: Sequence[Result],
    args: argparse.Namespace,
    load_errors: Sequence[LoadError],
    unused: tuple[str, ...],
) -> Report:
    from conformance.report.model import build_report

    report = build_report(
        target.name,
        target.kind.name,
        list(results),
        args.strict,
        load_errors,
        args.evidence,
    )
    update: dict[str, object] = {"bundled_target": target.bundled_reference}
    if unused:
        update["unused_snapshots"] = unused
    report = report.model_copy(update=update)
    return report


def _write_reports(args: argparse.Namespace, report: Report, console: Console) -> bool:
    """Write every report asked for, each whole or not at all; one that cannot be
    written is one line naming it, and the others are written anyway."""
    from conformance.paths import write_report
    from conformance.report.junit import to_junit
    from conformance.report.markdown import to_markdown
    from conformance.report.model import to_json

    def html(report: Report) -> str:
        from conformance.report.html import to_html

        return to_html(report, getattr(args, "html_exchanges", None))

    failures = [
        failure
        for path, render in (
            (args.json, to_json),
            (args.junit, to_junit),
            (args.markdown, to_markdown),
            (getattr(args, "html", None), html),
        )
        if path and (failure := write_report(path, render(report))) is not None
    ]
    for failure in failures:
        console.print(f"wire-conformance: {failure}", markup=False, highlight=False)
    return not failures


def _target(args: argparse.Namespace, console: Console) -> int:
    """``target FILE``: the manifest checked and described; ``target --schema``."""
    from conformance.targets.manifest import ManifestError, describe_manifest, manifest_schema

    if args.schema == (args.manifest is not None):
        console.print("wire-conformance: target: give a manifest FILE, or --schema", markup=False)
        return EXIT_USAGE
    if args.schema:
        sys.stdout.write(manifest_schema())
        return EXIT_OK
    try:
        sys.stdout.write(describe_manifest(args.manifest))
    except ManifestError as error:
        console.print(f"wire-conformance: {error}", markup=False, highlight=False)
        return EXIT_USAGE
    return EXIT_OK


def _drop_html_scratch(args: argparse.Namespace) -> None:
    """Remove the scratch folder the HTML report read the cells' requests from (never a
    ``--save-exchanges`` folder the user asked for)."""
    scratch = getattr(args, "html_exchanges", None)
    if scratch is not None and scratch != args.save_exchanges:
        shutil.rmtree(scratch, ignore_errors=True)


def _report_html(args: argparse.Namespace, console: Console) -> int:
    """``report html REPORT.json``: the HTML page of a JSON report written earlier."""
    from conformance.paths import write_report
    from conformance.report.html import ReportFileError, read_ab, read_report, to_html

    try:
        report = read_report(args.report)
        ab = read_ab(args.ab) if args.ab is not None else None
    except ReportFileError as error:
        console.print(f"wire-conformance: {error}", markup=False, highlight=False)
        return EXIT_USAGE
    out = args.out or args.report.with_suffix(".html")
    failure = write_report(out, to_html(report, args.exchanges, ab))
    if failure is not None:
        console.print(f"wire-conformance: {failure}", markup=False, highlight=False)
        return EXIT_FAILED
    console.print(f"wrote {out}", markup=False, highlight=False)
    return EXIT_OK


def _print_summary(
    args: argparse.Namespace,
    report: Report,
    unused: Sequence[str],
    console: Console,
    timed: bool = False,
) -> None:
    from conformance.report.model import summary_line
    from conformance.report.terminal import print_report

    if args.quiet:
        for error in report.load_errors:  # never hidden: they fail the run
            console.print(f"case file error: {error}", markup=False, highlight=False)
        console.print(summary_line(report), markup=False, highlight=False)
    else:
        print_report(report, console, args.format, args.verbose, timed)
    if unused:
        _print_unused(unused, args.update_snapshots, args.quiet, console)


def _sweep(store: SnapshotStore, target: ResolvedTarget, cases: list[Case]) -> tuple[str, ...]:
    """The stale snapshots of the target (deleted when updating), relative to the
    snapshots directory."""
    from conformance.runner import plan

    planned = ((job.column, job.case.id) for job in plan(cases, target) if job.skip is None)
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


def _cases(args: argparse.Namespace, console: Console) -> int:
    from conformance.cases.library import load_library
    from conformance.cases.schema import Case

    if args.schema:
        schema = Case.model_json_schema(by_alias=True)
        schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
        schema["title"] = "wire-conformance case"
        sys.stdout.write(json.dumps(schema, indent=2, sort_keys=True) + "\n")
        return EXIT_OK
    library = load_library(args.cases)
    for error in library.errors:
        console.print(f"error: {error}", markup=False, highlight=False)
    if args.show:
        from conformance.cases.show import show_case

        shown = show_case(library, args.show)
        if shown is None:
            from conformance.errors import close_to

            near = close_to(args.show, (loaded.case.id for loaded in library.cases))
            console.print(f"error: no case {args.show!r} in the library{near}", markup=False)
        return _print_lines(shown, console)
    if args.coverage:
        return _coverage(library, args.json, console)
    if args.json:
        console.print("error: --json goes with --coverage", markup=False)
        return EXIT_USAGE
    if args.lint:
        from conformance.cases.lint import lint

        problems = lint(library)
        for problem in problems:
            console.print(f"lint: {problem}", markup=False, highlight=False)
        console.print(
            f"{len(library.cases)} cases, {len(library.errors)} errors, "
            f"{len(problems)} lint problems",
            markup=False,
        )
        return EXIT_FAILED if problems or library.errors else EXIT_OK
    for loaded in library.cases:
        case = loaded.case
        status = "" if case.status == "normative" else f" [{case.status}]"
        console.print(
            f"{case.id}{status}  wires={','.join(sorted(case.wires))}  "
            f"features={','.join(case.features)}",
            markup=False,
            highlight=False,
        )
    return EXIT_FAILED if library.errors else EXIT_OK


def _coverage(library: CaseSet, as_json: bool, console: Console) -> int:
    """``cases --coverage``: the seed index and rule catalogue joined with the library."""
    from conformance.catalogue.model import catalogue
    from conformance.catalogue.seeds import seed_index
    from conformance.probe.catalogue import reference_catalogue
    from conformance.report.coverage import as_lines, coverage

    probes = {probe.id: probe.expect_killed_by for probe in reference_catalogue().probes}
    cases = [loaded.case for loaded in library.cases]
    result = coverage(seed_index(), catalogue(), cases, probes)
    if as_json:
        from conformance.report.coverage import as_json as coverage_json

        sys.stdout.write(coverage_json(result))
    else:
        _print_lines(as_lines(result), console)
    return EXIT_OK if result.ok and not library.errors else EXIT_FAILED


def _print_lines(lines: Sequence[str] | None, console: Console) -> int:
    """Print ``lines``; ``None`` means nothing was found (an error already said why)."""
    if lines is None:
        return EXIT_FAILED
    for line in lines:
        console.print(line, markup=False, highlight=False, soft_wrap=True)
    return EXIT_OK


def _realism_checks(args: argparse.Namespace, console: Console) -> int:
    """``checks --kind realism``: each realism check's id and the finding it reports."""
    from conformance.checks.registry import realism_checks

    if args.json:
        listing = [{"id": check.id, "finding": check.statement} for check in realism_checks()]
        sys.stdout.write(json.dumps(listing, indent=2, ensure_ascii=False) + "\n")
        return EXIT_OK
    for check in realism_checks():
        console.print(f"{check.id}  {check.statement}", markup=False, highlight=False)
    return EXIT_OK


def _checks(args: argparse.Namespace, console: Console) -> int:
    from conformance.checks.registry import all_checks

    if args.rule:
        from conformance.catalogue import resolve
        from conformance.catalogue.render import describe
        from conformance.checks.describe import describe_check

        entry = resolve(args.rule)
        if entry is None:
            lines = describe_check(args.rule)  # a check id, as every report prints it
            if lines is None:
                console.print(
                    f"error: {args.rule} is neither a check id nor in the rule catalogue "
                    "(list the checks with `wire-conformance checks`)",
                    markup=False,
                )
            return _print_lines(lines, console)
        return _print_lines(describe(entry), console)
    if args.kind == "realism":
        return _realism_checks(args, console)
    if args.json:
        fields = ("id", "statement", "source", "severity", "ref", "evidence")
        listing = [{name: getattr(check, name) for name in fields} for check in all_checks()]
        sys.stdout.write(json.dumps(listing, indent=2, ensure_ascii=False) + "\n")
        return EXIT_OK
    for check in all_checks():
        source = check.source if check.ref is None else f"{check.ref}; {check.source}"
        console.print(
            f"{check.id}  [{check.severity}, {check.evidence}]  {check.statement}  ({source})",
            markup=False,
            highlight=False,
        )
    return EXIT_OK


def _decode(args: argparse.Namespace, console: Console) -> int:
    from conformance.wires.base import ResponseReadError
    from conformance.wires.registry import columns, get_wire, split_column
    from conformance.wires.sse import looks_streamed

    if args.wire not in columns():
        console.print(
            f"wire-conformance: unknown wire {args.wire}; known: {', '.join(columns())}",
            markup=False,
        )
        return EXIT_USAGE
    try:
        body = args.file.read_bytes()
    except OSError as error:
        console.print(f"wire-conformance: {args.file}: {error.strerror}", markup=False)
        return EXIT_USAGE
    name, dialect = split_column(args.wire)
    streaming = looks_streamed(body) if args.stream is None else args.stream
    try:
        response = get_wire(name).read(body, streaming, dialect)
    except ResponseReadError as error:
        console.print(f"{args.file}: {error.at}: {error.message}", markup=False, highlight=False)
        return EXIT_FAILED
    from conformance.recording.fragments import with_chunks
    from conformance.recording.noise import with_noise
    from conformance.recording.wrong_wire import wrong_wire

    problem = wrong_wire(args.wire, body, streaming)
    if problem is not None:
        console.print(f"{args.file}: {problem}", markup=False, highlight=False)
        return EXIT_FAILED
    if streaming:
        response = with_noise(with_chunks(response, body), name, body)
        _say_cut(args.file, body)
    sys.stdout.write(response.model_dump_json(indent=2) + "\n" if args.json else _listing(response))
    return EXIT_OK


def _say_cut(path: Path, body: bytes) -> None:
    """A stream cut inside an event: name where (on stderr: stdout stays the listing to
    paste), since the partial event is not read, as a client would not read it."""
    from conformance.wires.sse import cut_event

    cut = cut_event(body)
    if cut is None:
        return
    start, tail = cut
    shown = tail.decode("utf-8", "replace").strip().replace("\n", "\\n")
    shown = shown if len(shown) <= 80 else shown[:77] + "..."
    sys.stderr.write(
        f"{path}: byte {start}: the stream is cut inside an event ({shown}); a client "
        "does not read a partial event, so it is left out (a dropped stream)\n"
    )


def _listing(response: ScriptedResponse) -> str:
    """The response in the case language, one flow mapping per block: ready to paste under
    a turn's ``responses:``."""
    import yaml

    lines = [f"stop: {response.stop}"]
    if response.blocks:
        lines.append("blocks:")
    for block in response.blocks:
        fields = {"kind": block.kind, **block.model_dump(mode="json", exclude_defaults=True)}
        flow = yaml.safe_dump(
            fields, default_flow_style=True, sort_keys=False, allow_unicode=True, width=1 << 30
        )
        lines.append(f"  - {flow.strip()}")
    return "\n".join(lines) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    """Every command; an interruption it does not catch itself is one line and
    ``128 + N`` (``conformance.interrupt``; ``conformance.__main__`` arms the signals
    before this module is even imported)."""
    return exit_on_interrupt(lambda: _command(argv))


def _command(argv: Sequence[str] | None) -> int:
    args = _parser().parse_args(argv)
    # emoji off: a column name such as `openai-chat:gemini:` is data, not an emoji code
    console = Console(soft_wrap=True, emoji=False)
    if args.command == "run":
        return _run(args, console)
    if args.command == "cases":
        return _cases(args, console)
    if args.command == "decode":
        return _decode(args, console)
    if args.command == "generate":
        from conformance.generate.command import run_generate_command

        return run_generate_command(args)
    if args.command == "probe":
        from conformance.probe.command import run_probe_command

        return run_probe_command(args)
    if args.command == "report" and args.report_command == "html":
        return _report_html(args, console)
    if args.command in ("record", "replay", "recording", "report"):
        from conformance.recording.command import run_recording_command

        return run_recording_command(args)
    if args.command == "target":
        return _target(args, console)
    return _checks(args, console)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
