"""The terminal report: a case × wire matrix of verdicts (or a list, where a matrix does
not fit), then what went wrong, then the summary line.

A CI log has no terminal width: a matrix that does not fit is never shrunk (columns to
nothing, cells cut); the list form says the same, one line per case.

What a person reads first must not drown: cells of wires the target does not declare
are counted in the summary line, not listed; an error shared by many cells (a target
that crashes in ``open()``) is printed once with the cells it hit; warnings are one
line unless ``verbose`` (``-v``) asks for each.
"""

from __future__ import annotations

from collections import Counter
from typing import Literal, TypeAlias

from rich.console import Console
from rich.table import Table
from rich.text import Text

from conformance._report.progress import slowest
from conformance._report.report_schema import Report, capability_line, listed, summary_line
from conformance.verdict import Cause, Result, Violation

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
    shown = listed(report)
    wires = sorted({r.wire for r in shown})
    cases = sorted({r.case for r in shown})
    return wires, cases, {r.key: r for r in shown}


def matrix(report: Report) -> Table:
    wires, cases, cells = _columns(report)
    table = Table(title=f"wire-conformance {report.suite_version} · target {report.target}")
    table.add_column("case", no_wrap=True, min_width=max((len(c) for c in cases), default=4))
    for wire in wires:
        width = max([len(wire)] + [len(label(r)) for r in cells.values() if r.wire == wire])
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
    wires, cases, shown = _columns(report)
    case = max((len(c) for c in cases), default=4)
    cells = [max([len(w)] + [len(label(r)) for r in shown.values() if r.wire == w]) for w in wires]
    return case + sum(cells) + 3 * (len(cells) + 1) + 1


def listing(report: Report) -> list[str]:
    """The matrix as one line per case: ``case  wire: verdict · wire: verdict``."""
    wires, cases, cells = _columns(report)
    lines = [f"wire-conformance {report.suite_version} · target {report.target}"]
    for case in cases:
        row = [f"{w}: {label(cells[(case, w)])}" for w in wires if (case, w) in cells]
        lines.append(f"{case}  " + " · ".join(row))
    return lines


def details(result: Result, warnings: bool = True, shared: bool = False) -> list[str]:
    """What a reader needs to act on one non-passing (or warned) result: the case's
    title and file, the reason, each violation with the expectation's ``why``, and the
    warnings unless ``warnings`` is false.  ``shared``: the reason and output tails
    were printed once for a group of cells (``problems``), so they are left out."""
    head = f"{result.case} [{result.wire}]: {result.verdict}"
    lines = [head + (f" — {result.title}" if result.title else "")]
    if result.file:
        lines.append(f"  case file: {result.file}")
    if result.reason and not shared:
        lines.append(f"  {reason_label(result)}: {result.reason}")
    for violation in (*result.violations, *(result.warnings if warnings else ())):
        lines.extend(_violation(violation))
    if not shared:
        lines.extend(_tails(result))
    return lines


def reason_label(result: Result) -> str:
    """``reason``, with the verdict's cause beside it (``reason (timeout)``) when the
    result has one: the kind of problem at a glance, from data, whatever the words."""
    return f"reason ({result.cause})" if result.cause is not None else "reason"


def _violation(violation: Violation) -> list[str]:
    where = (
        f" (request {violation.request}" + (f", {violation.at}" if violation.at else "") + ")"
        if violation.request
        else ""
    )
    tag = f" [{violation.severity}, {violation.evidence}]"
    lines = [f"  - {violation.check}{tag}{where}: {violation.message}"]
    if violation.why:
        lines.append(f"    why: {violation.why}")
    return lines


def _tails(result: Result) -> list[str]:
    lines: list[str] = []
    for name, tail in (("stdout", result.stdout_tail), ("stderr", result.stderr_tail)):
        if tail and result.verdict in ("fail", "error"):
            lines.append(f"  {name} (tail):")
            lines.extend(f"    {line}" for line in tail.rstrip().splitlines()[-15:])
    return lines


#: The most cells a shared error names; the matrix shows them all.
GROUP_NAMED = 8


_ErrorKey = tuple[Cause | None, str | None, str | None, str | None]


def _error_key(result: Result) -> _ErrorKey:
    return (result.cause, result.reason, result.stdout_tail, result.stderr_tail)


def problems(report: Report, verbose: bool = False) -> list[str]:
    """Every failed and errored cell's details, in report order; an error shared by
    several cells (same cause, reason and output tails) is printed once, as "the same error in
    N cells", and each of those cells then shows only what it adds (its violations).
    Warnings are printed under their cells only when ``verbose`` (else ``warnings_line``
    counts them)."""
    errors: dict[_ErrorKey, list[Result]] = {}
    for result in report.results:
        if result.verdict == "error":
            errors.setdefault(_error_key(result), []).append(result)
    lines: list[str] = []
    done: set[_ErrorKey] = set()
    for result in report.results:
        key = _error_key(result)
        group = errors.get(key, []) if result.verdict == "error" else []
        if len(group) > 1:
            if key not in done:
                done.add(key)
                lines.extend(_shared_error(group, verbose))
        elif result.verdict in ("fail", "error") or (verbose and result.warnings):
            lines.extend(details(result, warnings=verbose))
    return lines


def _shared_error(group: list[Result], verbose: bool) -> list[str]:
    first = group[0]
    named = ", ".join(f"{r.case} [{r.wire}]" for r in group[:GROUP_NAMED])
    more = f" and {len(group) - GROUP_NAMED} more" if len(group) > GROUP_NAMED else ""
    lines = [f"the same error in {len(group)} cells: {named}{more}"]
    if first.reason:
        lines.append(f"  {reason_label(first)}: {first.reason}")
    lines.extend(_tails(first))
    for result in group:
        if result.violations or (verbose and result.warnings):
            lines.extend(details(result, warnings=verbose, shared=True))
    return lines


def warnings_line(report: Report, verbose: bool, hint: str = "-v prints each") -> str | None:
    """The warnings of the run in one line, counted by check, and where to see each
    (``-v`` prints each under its cell instead)."""
    warned = [r for r in listed(report) if r.warnings]
    if not warned or verbose:
        return None
    checks = Counter(w.check for r in warned for w in r.warnings)
    each = ", ".join(f"{check} ({n})" for check, n in sorted(checks.items()))
    total = sum(checks.values())
    cells = "cell" if len(warned) == 1 else "cells"
    return (
        f"warnings: {total} in {len(warned)} {cells} (violations that did not fail them): "
        f"{each}; {hint}"
    )


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


def print_report(
    report: Report,
    console: Console,
    form: Form = "auto",
    verbose: bool = False,
    timed: bool = False,
) -> None:
    """The matrix (or list), what went wrong in each cell, and the summary; ``timed``:
    the slowest cells too (a run that showed its progress: a long one)."""
    for error in report.load_errors:
        console.print(Text(f"case file error: {error}", style="bold red"))
    if listed(report):
        if form == "list" or (form == "auto" and matrix_width(report) > console.width):
            console.print("\n".join(listing(report)), markup=False, highlight=False, soft_wrap=True)
        else:
            _print_uncut(console, matrix(report), matrix_width(report))
    for line in problems(report, verbose):
        console.print(line, markup=False, highlight=False)
    warned = warnings_line(report, verbose)
    if warned is not None:
        console.print(warned, markup=False, highlight=False)
    for result in report.results:
        if result.snapshot == "changed":
            console.print("\n".join(drift(result)), markup=False, highlight=False)
    for extra in (slowest(report.results) if timed else None, capability_line(report)):
        if extra is not None:
            console.print(extra, markup=False, highlight=False)
    console.print(summary_line(report), markup=False, highlight=False)
    if any(r.warnings for r in report.results):
        console.print(LEGEND, markup=False, highlight=False)
