"""The replay report as terminal lines: one per recording, then its drift and what
failed, then a summary."""

from __future__ import annotations

from collections import Counter

from conformance._recording.replay import ReplayReport

_ORDER = ("pass", "drift", "fail", "error", "n/a")


def replay_lines(report: ReplayReport) -> list[str]:
    lines: list[str] = []
    for result in report.recordings:
        wire = f"  [{result.wire}]" if result.wire else ""
        lines.append(f"{result.status.upper():5} {result.file}{wire}")
        if result.status in ("error", "n/a") and result.reason:
            lines.append(f"      {result.reason}")
        for violation in result.violations:
            where = f"request {violation.request}: " if violation.request else ""
            lines.append(f"      fails {violation.check}: {where}{violation.message}")
        breaks = "breaks a rule" if result.status == "fail" else "breaks no rule (warning)"
        for drift in result.drift:
            where = f"request {drift.request}: " if drift.request else ""
            lines.append(f"      drift {drift.kind}: {where}{drift.detail} [{breaks}]")
    counts: Counter[str] = Counter(r.status for r in report.recordings)
    parts = [f"{counts[s]} {s}" for s in _ORDER if counts[s]]
    lines.append(
        f"{len(report.recordings)} recordings: {', '.join(parts)} · target: {report.target}"
    )
    return lines
