"""``wire-conformance probe``: the positive control, every probe, the reports.

Exit 0 when every mutant is killed (or an accepted survivor) and every expectation is
met; 1 on a failing control, an unaccepted survivor, an invalid probe or an unmet
``expect_killed_by``; 2 on a usage error; 128 + N when signal N ended the run.
"""

from __future__ import annotations

import argparse
import fnmatch
import os
import sys
import time
from pathlib import Path

from conformance._interrupt import Interrupted, ending_signals_raise
from conformance._probe.catalogue import (
    Catalogue,
    load_catalogue,
    merge,
    reference_catalogue,
    schema_json,
)
from conformance._probe.report import ProbeReport, control_summary, junit, markdown, terminal
from conformance._probe.run import (
    CommandRoot,
    ProbeOptions,
    control,
    in_process_spec,
    reach_of,
    run_probes,
)
from conformance._probe.verdicts import MutantResult
from conformance._settings import add_arguments
from conformance._targets.command import CommandKind
from conformance._targets.manifest import is_manifest_spec, load_manifest, manifest_path
from conformance._targets.resolve import REFERENCE_SPEC, ResolvedTarget, resolve_target
from conformance.errors import ManifestError, ProbeCatalogueError, ProbeUsageError, TargetError

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2


def add_probe_arguments(probe: argparse.ArgumentParser) -> None:
    """The arguments of ``probe`` (``conformance._commands.probe`` names the command)."""
    probe.add_argument("--schema", action="store_true", help="print the catalogue JSON Schema")
    add_arguments(probe, ("target",), "probe")
    probe.add_argument(
        "--probes",
        action="append",
        type=Path,
        default=[],
        metavar="FILE",
        help="a catalogue (*.yaml) or one probe as a unified diff (*.diff, *.patch); "
        "repeatable; default for --target reference: the shipped reference catalogue",
    )
    add_arguments(probe, ("jobs", "case", "wire", "cases", "json", "markdown", "junit"), "probe")
    probe.add_argument(
        "--all-killers",
        action="store_true",
        help="run every cell on each mutant (default: stop "
        "at the first killer once the expected ones are settled)",
    )
    probe.add_argument(
        "--isolate",
        choices=("none", "fork"),
        default="none",
        help="run each mutant in this process (none) or a forked child (fork)",
    )
    add_arguments(probe, ("strict", "timeout", "quiet"), "probe")


def _catalogue(args: argparse.Namespace) -> Catalogue:
    if args.probes:
        return merge([load_catalogue(p) for p in args.probes])
    if args.target == "reference":
        return reference_catalogue()
    raise ProbeUsageError("--probes FILE is needed for a target other than the reference")


def probe_subject(spec: str) -> tuple[ResolvedTarget, str | CommandRoot]:
    """The target, and what each mutant is applied to: an in-process target's
    ``module:attr``, or a command target's root (the manifest's ``cwd``, else the
    current folder) with the manifest's ``build``."""
    build = None
    if is_manifest_spec(spec):
        manifest = load_manifest(manifest_path(spec))
        build = manifest.build
        if manifest.kind != "command":
            spec = manifest.kind
    target = resolve_target(spec if spec != "reference" else REFERENCE_SPEC)
    if isinstance(target.kind, CommandKind):
        root = Path(target.kind.cwd or os.getcwd()).resolve()
        return target, CommandRoot(target, root, build)
    return target, in_process_spec(spec)


def progress_line(done: list[MutantResult], total: int, started: float) -> str:
    """Mutants done, killed, survived, and the time left at the rate so far."""
    killed = sum(m.verdict == "killed" for m in done)
    survived = sum(m.verdict == "survived" for m in done)
    elapsed = time.monotonic() - started
    left = elapsed / len(done) * (total - len(done)) if done else 0.0
    return f"{len(done)}/{total} mutants, {killed} killed, {survived} survived, ETA {left:.0f} s   "


def _write(report: ProbeReport, args: argparse.Namespace) -> bool:
    """Write every report asked for, each whole or not at all; one that cannot be
    written is one line naming it, and the others are written anyway."""
    from conformance._paths import write_report

    failures = [
        failure
        for path, render in (
            (args.json, report.to_json),
            (args.markdown, lambda: markdown(report)),
            (args.junit, lambda: junit(report)),
        )
        if path is not None and (failure := write_report(path, render())) is not None
    ]
    for failure in failures:
        print(f"wire-conformance: {failure}", file=sys.stderr)
    return not failures


def run_probe_command(args: argparse.Namespace) -> int:
    from conformance._cases.library import load_library
    from conformance._runner import RunOptions, plan

    if args.schema:
        sys.stdout.write(schema_json() + "\n")
        return EXIT_OK
    if os.getcwd() not in sys.path:
        sys.path.insert(0, os.getcwd())
    try:
        catalogue = _catalogue(args)
        target, subject = probe_subject(args.target)
    except (ProbeUsageError, ProbeCatalogueError, TargetError, ManifestError) as error:
        print(f"wire-conformance probe: {error}", file=sys.stderr)
        return EXIT_USAGE
    spec = args.target if isinstance(subject, CommandRoot) else subject
    library = load_library(args.cases)
    cases = [loaded.case for loaded in library.cases]
    # the catalogue's own selection, narrowed by --case (never widened)
    jobs = plan(cases, target, args.wire, catalogue.cases)
    if args.case:
        jobs = [j for j in jobs if any(fnmatch.fnmatchcase(j.case.id, p) for p in args.case)]
    options = ProbeOptions(
        run=RunOptions(timeout=args.timeout, strict=args.strict or catalogue.strict),
        all_killers=args.all_killers,
        isolate=args.isolate,
        workers=max(1, min(args.jobs, 64)),
    )
    mutants: list[MutantResult] = []

    def build() -> ProbeReport:
        return ProbeReport(
            target=spec,
            catalogues=tuple(str(p) for p in args.probes) or (catalogue.source,),
            strict=options.run.strict,
            all_killers=args.all_killers,
            control=control_summary(checked.results),
            mutants=tuple(mutants),
        )

    started = time.monotonic()

    def progress(mutant: MutantResult) -> None:
        mutants.append(mutant)
        if not args.quiet and sys.stderr.isatty():  # quiet in CI: no terminal
            print(
                f"\r{progress_line(mutants, len(catalogue.probes), started)}",
                end="",
                file=sys.stderr,
            )

    try:
        with ending_signals_raise():
            checked = control(
                target, jobs, options.run, options.workers, reach_of(subject, catalogue)
            )
            if not checked.failing:
                run_probes(subject, catalogue, checked.killable, options, progress, checked.reached)
    except Interrupted as interruption:
        print(f"wire-conformance probe: {interruption}", file=sys.stderr)
        return interruption.exit_status
    if not args.quiet and sys.stderr.isatty():
        print(file=sys.stderr)
    report = build()
    written = _write(report, args)
    text = terminal(report)
    sys.stdout.write(text if not args.quiet else text.splitlines()[-1] + "\n")
    return EXIT_OK if report.ok and written else EXIT_FAILED
