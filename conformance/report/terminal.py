"""The terminal report: a case × wire matrix of verdicts, then what went wrong."""

from __future__ import annotations

from rich.console import Console
from rich.table import Table
from rich.text import Text

from conformance.report.model import Report, summary_line
from conformance.verdict import Result

STYLE = {
    "pass": "green",
    "fail": "bold red",
    "pinned": "cyan",
    "xfail": "yellow",
    "n/a": "dim",
    "error": "bold magenta",
}


def matrix(report: Report) -> Table:
    wires = sorted({r.wire for r in report.results})
    table = Table(title=f"wire-conformance {report.suite_version} · target {report.target}")
    table.add_column("case", no_wrap=True)
    for wire in wires:
        table.add_column(wire, justify="center", no_wrap=True)
    cells: dict[tuple[str, str], Result] = {r.key: r for r in report.results}
    for case in sorted({r.case for r in report.results}):
        row: list[Text | str] = [case]
        for wire in wires:
            result = cells.get((case, wire))
            if result is None:
                row.append("")
                continue
            label = result.verdict + ("*" if result.warnings else "")
            if result.snapshot in ("changed", "new"):
                label += f" (snapshot {result.snapshot})"
            row.append(Text(label, style=STYLE[result.verdict]))
        table.add_row(*row)
    return table


def details(result: Result) -> list[str]:
    """What a reader needs to act on one non-passing (or warned) result."""
    lines = [f"{result.case} [{result.wire}]: {result.verdict}"]
    if result.reason:
        lines.append(f"  reason: {result.reason}")
    for violation in (*result.violations, *result.warnings):
        where = (
            f" (request {violation.request}" + (f", {violation.at}" if violation.at else "") + ")"
            if violation.request
            else ""
        )
        tag = f" [{violation.severity}, {violation.evidence}]"
        lines.append(f"  - {violation.check}{tag}{where}: {violation.message}")
    for name, tail in (("stdout", result.stdout_tail), ("stderr", result.stderr_tail)):
        if tail and result.verdict in ("fail", "error"):
            lines.append(f"  {name} (tail):")
            lines.extend(f"    {line}" for line in tail.rstrip().splitlines()[-15:])
    return lines


def print_report(report: Report, console: Console) -> None:
    """The matrix, what went wrong in each cell, and the summary, on ``console``."""
    for error in report.load_errors:
        console.print(Text(f"case file error: {error}", style="bold red"))
    if report.results:
        console.print(matrix(report))
    for result in report.results:
        if result.verdict in ("fail", "error") or result.warnings:
            console.print("\n".join(details(result)), markup=False, highlight=False)
    console.print(summary_line(report), markup=False, highlight=False)
    if any(r.warnings for r in report.results):
        console.print("* = passed with `should` warnings (fail them with --strict)", markup=False)
