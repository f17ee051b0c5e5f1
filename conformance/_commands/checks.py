"""``wire-conformance checks``: every check, rule and invariant with its source, or one
of them (``--rule ID``) as reports cite it."""

from __future__ import annotations

import argparse
import json
import sys

from rich.console import Console

from conformance._commands.command import EXIT_OK, console, print_lines


class ChecksCommand:
    name = "checks"
    help = "list every check, rule and invariant with its source"

    def add_arguments(self, parser: argparse.ArgumentParser) -> None:
        parser.add_argument("--json", action="store_true", help="print the list as JSON")
        parser.add_argument(
            "--kind",
            choices=("run", "realism"),
            default="run",
            help="run: the checks that judge a run (default); realism: the shapes each wire "
            "never sends, which `cases --lint` reports",
        )
        parser.add_argument(
            "--rule",
            metavar="ID",
            help="print one check (invariant/tool-pairing, as reports print it) or catalogue "
            "entry (33, A8, E31, F1, seed:96)",
        )

    def execute(self, args: argparse.Namespace) -> int:
        return _checks(args, console())


def _realism_checks(args: argparse.Namespace, console: Console) -> int:
    """``checks --kind realism``: each realism check's id and the finding it reports."""
    from conformance._checks.registry import realism_checks

    if args.json:
        listing = [{"id": check.id, "finding": check.statement} for check in realism_checks()]
        sys.stdout.write(json.dumps(listing, indent=2, ensure_ascii=False) + "\n")
        return EXIT_OK
    for check in realism_checks():
        console.print(f"{check.id}  {check.statement}", markup=False, highlight=False)
    return EXIT_OK


def _checks(args: argparse.Namespace, console: Console) -> int:
    from conformance._checks.registry import all_checks

    if args.rule:
        from conformance._checks.describe import describe_check
        from conformance.catalogue import resolve
        from conformance.catalogue._render import describe

        entry = resolve(args.rule)
        if entry is None:
            lines = describe_check(args.rule)  # a check id, as every report prints it
            if lines is None:
                console.print(
                    f"error: {args.rule} is neither a check id nor in the rule catalogue "
                    "(list the checks with `wire-conformance checks`)",
                    markup=False,
                )
            return print_lines(lines, console)
        return print_lines(describe(entry), console)
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
