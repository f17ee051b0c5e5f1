"""A Markdown report: the matrix as a table, then the failures, for PR comments."""

from __future__ import annotations

from conformance.report.model import Report
from conformance.report.terminal import details


def to_markdown(report: Report) -> str:
    wires = sorted({r.wire for r in report.results})
    cells = {r.key: r for r in report.results}
    lines = [f"## wire-conformance {report.suite_version}: `{report.target}`", ""]
    summary = ", ".join(f"{n} {v}" for v, n in report.summary.items() if n) or "no cases ran"
    lines += [summary, "", "| case | " + " | ".join(wires) + " |", "|---" * (len(wires) + 1) + "|"]
    for case in sorted({r.case for r in report.results}):
        row = [cells[(case, w)].verdict if (case, w) in cells else "" for w in wires]
        lines.append(f"| `{case}` | " + " | ".join(row) + " |")
    problems = [r for r in report.results if r.verdict in ("fail", "error")]
    if report.load_errors or problems:
        lines += ["", "### Problems", "", "```"]
        for error in report.load_errors:
            lines.append(f"{error.file}:{error.line or '?'}: {error.field or ''}: {error.message}")
        for result in problems:
            lines.extend(details(result))
        lines.append("```")
    return "\n".join(lines) + "\n"
