"""``wire-conformance report``: work with JSON reports written earlier; each action is a
row of ``REPORT_COMMANDS`` (``diff``, ``merge``, ``html``)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from conformance._commands.command import (
    EXIT_FAILED,
    EXIT_OK,
    EXIT_USAGE,
    Command,
    CommandGroup,
    console,
)


class ReportDiffCommand:
    name = "diff"
    help = "print the verdicts that changed"

    def add_arguments(self, parser: argparse.ArgumentParser) -> None:
        from conformance._recording.command import add_report_diff_arguments

        add_report_diff_arguments(parser)

    def execute(self, args: argparse.Namespace) -> int:
        """The changed verdicts of two reports, each read by the one report reader."""
        from conformance._recording.diff import absent, changed, regressions
        from conformance._report.reading import cell_verdicts
        from conformance.errors import ReportFileError

        try:
            old, new = cell_verdicts(args.old), cell_verdicts(args.new)
        except ReportFileError as error:
            _say(f"wire-conformance: {error}")
            return EXIT_USAGE
        lines = changed(old, new)
        for line in lines:
            _say(line)
        apart = absent(old, new)
        if apart is not None:
            _say(apart)
        worse = regressions(old, new)
        _say(
            f"{len(lines)} changed verdict(s) of {len(set(old) & set(new))} compared cells, "
            f"{worse} regression(s)"
        )
        return EXIT_FAILED if worse and args.fail_on_regression else EXIT_OK


class ReportHtmlCommand:
    name = "html"
    help = "write the HTML page of a JSON report (`run --json`)"

    def add_arguments(self, parser: argparse.ArgumentParser) -> None:
        parser.add_argument("report", type=Path, metavar="REPORT.json")
        parser.add_argument(
            "-o", "--out", type=Path, metavar="PATH", help="the page to write (REPORT.html)"
        )
        parser.add_argument(
            "--exchanges",
            type=Path,
            metavar="DIR",
            help="the folder `run --save-exchanges` wrote: the page shows each failing "
            "cell's requests, the violations' places marked",
        )
        parser.add_argument(
            "--ab", type=Path, metavar="AB.json", help="an A/B table (`--ab-json`) to add"
        )

    def execute(self, args: argparse.Namespace) -> int:
        """The HTML page of a JSON report written earlier."""
        from conformance._paths import write_report
        from conformance._report.html import to_html
        from conformance._report.reading import read_ab, read_report
        from conformance.errors import ReportFileError

        out = console()
        try:
            report = read_report(args.report)
            ab = read_ab(args.ab) if args.ab is not None else None
        except ReportFileError as error:
            out.print(f"wire-conformance: {error}", markup=False, highlight=False)
            return EXIT_USAGE
        page = args.out or args.report.with_suffix(".html")
        failure = write_report(page, to_html(report, args.exchanges, ab))
        if failure is not None:
            out.print(f"wire-conformance: {failure}", markup=False, highlight=False)
            return EXIT_FAILED
        out.print(f"wrote {page}", markup=False, highlight=False)
        return EXIT_OK


class ReportMergeCommand:
    name = "merge"
    help = "merge the JSON reports of every shard (`run --shard K/N`) into one"

    def add_arguments(self, parser: argparse.ArgumentParser) -> None:
        parser.add_argument("reports", nargs="+", type=Path, metavar="SHARD.json")
        parser.add_argument(
            "-o", "--out", type=Path, metavar="PATH", required=True, help="the report to write"
        )

    def execute(self, args: argparse.Namespace) -> int:
        from conformance._report.merge import merge_files

        code, line = merge_files(args.reports, args.out)
        console().print(line, markup=False, highlight=False)
        return code


#: The actions of ``report``, in the order ``report --help`` lists them.
REPORT_COMMANDS: tuple[Command, ...] = (
    ReportDiffCommand(),
    ReportMergeCommand(),
    ReportHtmlCommand(),
)


class ReportCommand(CommandGroup):
    def __init__(self) -> None:
        super().__init__("report", "work with JSON reports", REPORT_COMMANDS)


def _say(text: str) -> None:
    sys.stdout.write(text + "\n")
