"""A Markdown report: the matrix as a table, then the failures, for PR comments.

As in the terminal, the cells of wires the target does not declare are counted in the
summary line (their columns are not in the table), the cells that need a capability it
does not declare are counted on a line of their own, and an error shared by many cells
is printed once.
"""

from __future__ import annotations

from conformance._report.report_schema import Report, capability_line, listed, summary_line
from conformance._report.terminal import LEGEND, drift, label, problems, warnings_line


def to_markdown(report: Report) -> str:
    shown = listed(report)
    wires = sorted({r.wire for r in shown})
    cells = {r.key: r for r in shown}
    lines = [f"## wire-conformance {report.suite_version}: `{report.target}`", ""]
    summary = summary_line(report)
    if report.incomplete is not None:
        lines += [f"**Incomplete run: {report.incomplete}.**", ""]
    lines += [summary, ""]
    capabilities = capability_line(report)
    if capabilities is not None:
        lines += [capabilities, ""]
    lines += ["| case | " + " | ".join(wires) + " |", "|---" * (len(wires) + 1) + "|"]
    for case in sorted({r.case for r in shown}):
        row = [label(cells[(case, w)]) if (case, w) in cells else "" for w in wires]
        lines.append(f"| `{case}` | " + " | ".join(row) + " |")
    failed = [r for r in report.results if r.verdict in ("fail", "error")]
    if report.load_errors or failed:
        lines += ["", "### Problems", "", "```"]
        for error in report.load_errors:
            lines.append(f"{error.file}:{error.line or '?'}: {error.field or ''}: {error.message}")
        lines.extend(problems(report))
        lines.append("```")
    drifted = [r for r in report.results if r.snapshot == "changed"]
    if drifted:
        lines += ["", "### Snapshot drifts", "", "```diff"]
        for result in drifted:
            lines.extend(drift(result))
        lines.append("```")
    warned = warnings_line(report, verbose=False, hint="the JSON report holds each")
    if warned is not None:
        lines += ["", warned, "", LEGEND]
    return "\n".join(lines) + "\n"
