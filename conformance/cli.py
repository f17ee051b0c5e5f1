"""The ``wire-conformance`` command.

    wire-conformance run    [--target reference|reference-command|MANIFEST|module:attr|
                             cmd:<command>] [-j N] [--wire W]
                            [--case GLOB] [--cases DIR] [--json PATH] [--junit PATH]
                            [--markdown PATH] [--timeout S] [--strict]
                            [--evidence documented|observed|any] [--save-exchanges DIR]
                            [--snapshots DIR [--update-snapshots]]
    wire-conformance cases  [--schema | --lint | --list] [--cases DIR]
    wire-conformance checks [--json]
    wire-conformance target --schema
    wire-conformance decode --wire WIRE[:DIALECT] [--json] [--stream | --no-stream] FILE

``run`` exits 0 when every cell passed (or is pinned, xfail or n/a), 1 on any fail,
error or case-file error, and 2 on a usage error.  ``decode`` prints a recorded provider
response as the scripted response it reads back to (exit 0), or ``FILE: <where>:
<problem>`` when it cannot be read (exit 1).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from rich.console import Console

from conformance.interrupt import Interrupted, ending_signals_raise
from conformance.verdict import (
    DEFAULT_EVIDENCE_THRESHOLD,
    DEFAULT_TIMEOUT,
    EVIDENCE_THRESHOLDS,
)
from conformance.version import __version__

if TYPE_CHECKING:
    from conformance.cases.load_error import LoadError
    from conformance.cases.schema import Case
    from conformance.model import ScriptedResponse
    from conformance.report.model import Report
    from conformance.snapshots import SnapshotStore
    from conformance.targets.resolve import ResolvedTarget
    from conformance.verdict import Result

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2
#: The longest ``--timeout`` accepted: a day.  More is a typo, not a plan.
MAX_TIMEOUT = 86_400.0


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
    parser = argparse.ArgumentParser(prog="wire-conformance", description=__doc__.split("\n")[0])
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
        "--timeout",
        type=_timeout,
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

    cases = commands.add_parser("cases", help="list, lint or describe the case files")
    mode = cases.add_mutually_exclusive_group()
    mode.add_argument("--schema", action="store_true", help="print the case JSON Schema")
    mode.add_argument("--lint", action="store_true", help="lint the library, exit 1 on problems")
    mode.add_argument("--list", action="store_true", help="list the cases (the default)")
    _add_case_dirs(cases)

    target = commands.add_parser("target", help="describe the target manifest")
    target.add_argument(
        "--schema", action="store_true", required=True, help="print the manifest JSON Schema"
    )

    checks = commands.add_parser(
        "checks", help="list every check, rule and invariant with its source"
    )
    checks.add_argument("--json", action="store_true", help="print the list as JSON")

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


def _timeout(text: str) -> float:
    """``--timeout``: a finite number of seconds above 0 and at most a day."""
    try:
        seconds = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
    if not (0 < seconds <= MAX_TIMEOUT):  # also false for nan
        raise argparse.ArgumentTypeError(
            f"{text!r}: give seconds above 0 and at most {MAX_TIMEOUT:g} (a day)"
        )
    return seconds


def _resolve(args: argparse.Namespace) -> ResolvedTarget:
    """The target and the checked arguments of ``run``; raises ``_UsageError``."""
    from conformance.targets.resolve import TargetError, resolve_target
    from conformance.wires.registry import columns

    try:
        target = resolve_target(args.target, args.target_name)
    except TargetError as error:
        raise _UsageError(str(error)) from None
    unknown = sorted(set(args.wire) - set(columns()))
    if unknown:
        raise _UsageError(f"unknown wire {', '.join(unknown)}; known: {', '.join(columns())}")
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
    # A pin for a case that did not load is not "unknown": the load error says why.
    unknown_pins = target.unknown_pins({loaded.case.id for loaded in library.cases})
    if unknown_pins and not library.errors:
        names = ", ".join(unknown_pins)
        console.print(f"wire-conformance: {target.spec}: pins name no case: {names}", markup=False)
        return EXIT_USAGE
    store = _store(args, target)
    options = RunOptions(
        timeout=args.timeout,
        strict=args.strict,
        snapshots=store,
        evidence=args.evidence,
        save_exchanges=args.save_exchanges,
    )
    cases = [loaded.case for loaded in library.cases]
    results: list[Result] = []
    try:
        with ending_signals_raise():
            jobs = plan(cases, target, args.wire, args.case)
            run_jobs_parallel(target, jobs, options, args.jobs, results.append)
    except Interrupted as interruption:
        return _interrupted(args, target, results, library.errors, interruption, console)
    # Only a run of the whole plan may call a snapshot stale.
    whole = not (args.wire or args.case or library.errors)
    unused = _sweep(store, target, cases) if store is not None and whole else ()
    report = _report(target, results, args, library.errors, unused)
    _write_reports(args, report)
    _print_summary(args, report, unused, console)
    return EXIT_OK if report.ok else EXIT_FAILED


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
    _write_reports(args, report)
    console.print(
        f"wire-conformance: {interruption}; reports hold the {len(results)} cells that finished",
        markup=False,
        highlight=False,
    )
    return interruption.exit_status


def _report_paths(args: argparse.Namespace) -> list[Path]:
    return [path for path in (args.json, args.junit, args.markdown) if path is not None]


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
    if unused:
        report = report.model_copy(update={"unused_snapshots": unused})
    return report


def _write_reports(args: argparse.Namespace, report: Report) -> None:
    from conformance.report.junit import to_junit
    from conformance.report.markdown import to_markdown
    from conformance.report.model import to_json

    if args.json:
        args.json.write_text(to_json(report), encoding="utf-8")
    if args.junit:
        args.junit.write_text(to_junit(report), encoding="utf-8")
    if args.markdown:
        args.markdown.write_text(to_markdown(report), encoding="utf-8")


def _print_summary(
    args: argparse.Namespace, report: Report, unused: Sequence[str], console: Console
) -> None:
    from conformance.report.terminal import print_report

    if args.quiet:
        console.print(", ".join(f"{n} {v}" for v, n in report.summary.items() if n), markup=False)
    else:
        print_report(report, console)
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


def _checks(args: argparse.Namespace, console: Console) -> int:
    from dataclasses import asdict

    from conformance.checks.registry import all_checks

    if args.json:
        listing = [asdict(check) for check in all_checks()]
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
    sys.stdout.write(response.model_dump_json(indent=2) + "\n" if args.json else _listing(response))
    return EXIT_OK


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
    args = _parser().parse_args(argv)
    console = Console(soft_wrap=True)
    if args.command == "run":
        return _run(args, console)
    if args.command == "cases":
        return _cases(args, console)
    if args.command == "decode":
        return _decode(args, console)
    if args.command == "target":
        from conformance.targets.manifest import manifest_schema

        sys.stdout.write(manifest_schema())
        return EXIT_OK
    return _checks(args, console)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
