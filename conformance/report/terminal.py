"""The terminal report: a case × wire matrix of verdicts (or a list, where a matrix does
not fit), then what went wrong, then the summary line.

A CI log has no terminal width: a matrix that does not fit is never shrunk (columns to
nothing, cells cut); the list form says the same, one line per case.
"""

from __future__ import annotations

from typing import Literal, TypeAlias

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
#: ``auto``: the matrix when it fits the console's width, else the list.
Form: TypeAlias = Literal["auto", "matrix", "list"]
FORMS: tuple[Form, ...] = ("auto", "matrix", "list")
#: The one mark a cell label carries, and what it means, everywhere.
WARNED = "*"
LEGEND = (
    f"{WARNED} = the cell has warnings: violations that did not fail it "
    "(`should` ones fail with --strict; weaker evidence with --evidence any)"
)


def label(result: Result) -> str:
    """A cell's verdict, ``*`` when it has warnings, and its snapshot state if not a match."""
    text = result.verdict + (WARNED if result.warnings else "")
    if result.snapshot in ("changed", "new"):
        text += f" (snapshot {result.snapshot})"
    return text


def _columns(report: Report) -> tuple[list[str], list[str], dict[tuple[str, str], Result]]:
    wires = sorted({r.wire for r in report.results})
    cases = sorted({r.case for r in report.results})
    return wires, cases, {r.key: r for r in report.results}


def matrix(report: Report) -> Table:
    wires, cases, cells = _columns(report)
    table = Table(title=f"wire-conformance {report.suite_version} · target {report.target}")
    table.add_column("case", no_wrap=True, min_width=max((len(c) for c in cases), default=4))
    for wire in wires:
        width = max([len(wire)] + [len(label(r)) for r in report.results if r.wire == wire])
        table.add_column(wire, justify="center", no_wrap=True, min_width=width)
    for case in cases:
        row: list[Text | str] = [case]
        for wire in wires:
            result = cells.get((case, wire))
            row.append("" if result is None else Text(label(result), style=STYLE[result.verdict]))
        table.add_row(*row)
    return table


def matrix_width(report: Report) -> int:
    """The width the matrix needs with no cell cut: its columns, padding and borders."""
    wires, cases, _ = _columns(report)
    case = max((len(c) for c in cases), default=4)
    cells = [max([len(w)] + [len(label(r)) for r in report.results if r.wire == w]) for w in wires]
    return case + sum(cells) + 3 * (len(cells) + 1) + 1


def listing(report: Report) -> list[str]:
    """The matrix as one line per case: ``case  wire: verdict · wire: verdict``."""
    wires, cases, cells = _columns(report)
    lines = [f"wire-conformance {report.suite_version} · target {report.target}"]
    for case in cases:
        row = [f"{w}: {label(cells[(case, w)])}" for w in wires if (case, w) in cells]
        lines.append(f"{case}  " + " · ".join(row))
    return lines


def details(result: Result) -> list[str]:
    """What a reader needs to act on one non-passing (or warned) result: the case's
    title and file, the reason, each violation with the expectation's ``why``."""
    head = f"{result.case} [{result.wire}]: {result.verdict}"
    lines = [head + (f" — {result.title}" if result.title else "")]
    if result.file:
        lines.append(f"  case file: {result.file}")
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
        if violation.why:
            lines.append(f"    why: {violation.why}")
    for name, tail in (("stdout", result.stdout_tail), ("stderr", result.stderr_tail)):
        if tail and result.verdict in ("fail", "error"):
            lines.append(f"  {name} (tail):")
            lines.extend(f"    {line}" for line in tail.rstrip().splitlines()[-15:])
    return lines


def drift(result: Result) -> list[str]:
    """A changed snapshot: which, and its diff (bounded)."""
    lines = [f"{result.case} [{result.wire}]: snapshot changed"]
    lines.extend(f"  {line}" for line in (result.snapshot_diff or "").splitlines())
    return lines


def _print_uncut(console: Console, table: Table, width: int) -> None:
    """Print the table at least ``width`` wide: rich shrinks a table to the console's
    width (a column to nothing) and ``print(width=...)`` cannot widen it."""
    narrow = console.width
    console.width = max(narrow, width)
    try:
        console.print(table, crop=False)
    finally:
        console.width = narrow


def print_report(report: Report, console: Console, form: Form = "auto") -> None:
    """The matrix (or list), what went wrong in each cell, and the summary."""
    for error in report.load_errors:
        console.print(Text(f"case file error: {error}", style="bold red"))
    if report.results:
        if form == "list" or (form == "auto" and matrix_width(report) > console.width):
            console.print("\n".join(listing(report)), markup=False, highlight=False, soft_wrap=True)
        else:
            _print_uncut(console, matrix(report), matrix_width(report))
    for result in report.results:
        if result.verdict in ("fail", "error") or result.warnings:
            console.print("\n".join(details(result)), markup=False, highlight=False)
        if result.snapshot == "changed":
            console.print("\n".join(drift(result)), markup=False, highlight=False)
    console.print(summary_line(report), markup=False, highlight=False)
    if any(r.warnings for r in report.results):
        console.print(LEGEND, markup=False, highlight=False)
