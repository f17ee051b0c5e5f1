"""``wire-conformance cases``: list the library (the default), lint it, print the case
JSON Schema, one case with its citations resolved, or the coverage of the seed index
and rule catalogue."""

from __future__ import annotations

import argparse
import json
import sys
from typing import TYPE_CHECKING

from rich.console import Console

from conformance._commands.command import EXIT_FAILED, EXIT_OK, EXIT_USAGE, console, print_lines
from conformance._settings import add_arguments as add_settings

if TYPE_CHECKING:
    from conformance._cases.loader import CaseSet


class CasesCommand:
    name = "cases"
    help = "list, lint or describe the case files"

    def add_arguments(self, parser: argparse.ArgumentParser) -> None:
        mode = parser.add_mutually_exclusive_group()
        mode.add_argument("--schema", action="store_true", help="print the case JSON Schema")
        mode.add_argument(
            "--lint", action="store_true", help="lint the library, exit 1 on problems"
        )
        mode.add_argument("--list", action="store_true", help="list the cases (the default)")
        mode.add_argument("--show", metavar="ID", help="print one case with its citations resolved")
        mode.add_argument(
            "--coverage",
            action="store_true",
            help="map every seed entry and wire rule to its cases, probes or reason; exit 1 "
            "on a gap",
        )
        parser.add_argument("--json", action="store_true", help="with --coverage: print it as JSON")
        add_settings(parser, ["cases"])

    def execute(self, args: argparse.Namespace) -> int:
        return _cases(args, console())


def _cases(args: argparse.Namespace, console: Console) -> int:
    from conformance._cases.library import load_library
    from conformance._cases.schema import Case

    if args.schema:
        schema = Case.model_json_schema(by_alias=True)
        schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
        schema["title"] = "wire-conformance case"
        sys.stdout.write(json.dumps(schema, indent=2, sort_keys=True) + "\n")
        return EXIT_OK
    if args.lint and not args.json:
        return _lint(args, console)
    library = load_library(args.cases)
    for error in library.errors:
        console.print(f"error: {error}", markup=False, highlight=False)
    if args.show:
        from conformance._cases.show import show_case

        shown = show_case(library, args.show)
        if shown is None:
            from conformance.errors import close_to

            near = close_to(args.show, (loaded.case.id for loaded in library.cases))
            console.print(f"error: no case {args.show!r} in the library{near}", markup=False)
        return print_lines(shown, console)
    if args.coverage:
        return _coverage(library, args.json, console)
    if args.json:
        console.print("error: --json goes with --coverage", markup=False)
        return EXIT_USAGE
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


def _lint(args: argparse.Namespace, console: Console) -> int:
    """``cases --lint``: each case linted as it loads and then let go (``lint_each``), so
    a library of any size lints in the memory of a few cases; the load errors first,
    then the problems in case-id order, as a loaded library prints them."""
    from conformance._cases.library import each_library_case
    from conformance._cases.lint import lint_each

    linted = lint_each(each_library_case(args.cases))
    for error in linted.errors:
        console.print(f"error: {error}", markup=False, highlight=False)
    for problem in linted.problems:
        console.print(f"lint: {problem}", markup=False, highlight=False)
    console.print(
        f"{linted.cases} cases, {len(linted.errors)} errors, {len(linted.problems)} lint problems",
        markup=False,
    )
    return EXIT_FAILED if linted.problems or linted.errors else EXIT_OK


def _coverage(library: CaseSet, as_json: bool, console: Console) -> int:
    """``cases --coverage``: the seed index and rule catalogue joined with the library."""
    from conformance._probe.catalogue import reference_catalogue
    from conformance._report.coverage import as_lines, coverage
    from conformance.catalogue._entries import catalogue
    from conformance.catalogue._seeds import seed_index

    probes = {probe.id: probe.expect_killed_by for probe in reference_catalogue().probes}
    cases = [loaded.case for loaded in library.cases]
    result = coverage(seed_index(), catalogue(), cases, probes)
    if as_json:
        from conformance._report.coverage import as_json as coverage_json

        sys.stdout.write(coverage_json(result))
    else:
        print_lines(as_lines(result), console)
    return EXIT_OK if result.ok and not library.errors else EXIT_FAILED
