"""A Markdown report: the matrix as a table, then the failures, for PR comments."""

from __future__ import annotations

from conformance.report.model import Report, summary_line
from conformance.report.terminal import LEGEND, details, drift, label


def to_markdown(report: Report) -> str:
    wires = sorted({r.wire for r in report.results})
    cells = {r.key: r for r in report.results}
    lines = [f"## wire-conformance {report.suite_version}: `{report.target}`", ""]
    summary = summary_line(report)
    if report.incomplete is not None:
        lines += [f"**Incomplete run: {report.incomplete}.**", ""]
    lines += [summary, "", "| case | " + " | ".join(wires) + " |", "|---" * (len(wires) + 1) + "|"]
    for case in sorted({r.case for r in report.results}):
        row = [label(cells[(case, w)]) if (case, w) in cells else "" for w in wires]
        lines.append(f"| `{case}` | " + " | ".join(row) + " |")
    problems = [r for r in report.results if r.verdict in ("fail", "error")]
    if report.load_errors or problems:
        lines += ["", "### Problems", "", "```"]
        for error in report.load_errors:
            lines.append(f"{error.file}:{error.line or '?'}: {error.field or ''}: {error.message}")
        for result in problems:
            lines.extend(details(result))
        lines.append("```")
    drifted = [r for r in report.results if r.snapshot == "changed"]
    if drifted:
        lines += ["", "### Snapshot drifts", "", "```diff"]
        for result in drifted:
            lines.extend(drift(result))
        lines.append("```")
    if any(r.warnings for r in report.results):
        lines += ["", LEGEND]
    return "\n".join(lines) + "\n"
