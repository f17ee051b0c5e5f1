"""The audit as terminal lines: every false refusal with its rule, evidence and source,
the missed rejections, what was not judged (grouped by why), then one summary line."""

from __future__ import annotations

from collections import Counter

from conformance._recording.audit import AuditedExchange, AuditReport, Unjudged

#: How many exchanges a not-judged reason lists before it only counts.
_SHOWN = 3


def _where(exchange: AuditedExchange) -> str:
    return (
        f"{exchange.recording} exchange {exchange.exchange} "
        f"({exchange.method} {exchange.path}, real {exchange.real_status})"
    )


#: Each reason for not judging, as the summary names it.
_UNJUDGED: dict[Unjudged, str] = {
    "other-endpoint": "another endpoint (not a conversation turn)",
    "unseen-state": "rests on server-side state the recording does not show",
    "provider-status": "a transient or server answer (says nothing of the request)",
    "unmodelled-feature": "uses a field or beta the real API takes and the suite does not model",
}


def audit_lines(report: AuditReport) -> list[str]:
    lines: list[str] = []
    for recording in report.recordings:
        if recording.error is not None:
            lines.append(f"ERROR {recording.recording}: {recording.error}")
        elif recording.excluded is not None:
            lines.append(f"EXCLUDED {recording.recording}: {recording.excluded}")
    for exchange in report.false_refusals:
        lines.append(f"FALSE REFUSAL {_where(exchange)}")
        for fired in exchange.fired:
            at = f" at {fired.at}" if fired.at else ""
            lines.append(f"      {fired.rule}{at} [{fired.evidence}]: {fired.message}")
            lines.append(f"      source: {fired.source}")
    missed = [e for e in report.exchanges if e.finding == "missed-rejection"]
    for exchange in missed:
        lines.append(f"MISSED REJECTION {_where(exchange)}: the suite would serve it")
    for kind, named in _UNJUDGED.items():
        exchanges = [e for e in report.exchanges if e.unjudged == kind]
        if not exchanges:
            continue
        shown = ", ".join(f"{e.recording}#{e.exchange}" for e in exchanges[:_SHOWN])
        more = f", and {len(exchanges) - _SHOWN} more" if len(exchanges) > _SHOWN else ""
        lines.append(f"not judged, {named}: {len(exchanges)} ({shown}{more})")
    counts: Counter[str] = report.counts()
    files = len(report.recordings)
    skipped = sum(1 for r in report.recordings if r.excluded is not None)
    lines.append(
        f"{sum(counts.values())} exchanges in {files} recordings ({skipped} excluded, "
        f"{len(report.errors)} unreadable): {counts['agrees']} agree, "
        f"{counts['false-refusal']} false refusals, {counts['missed-rejection']} missed "
        f"rejections, {counts['not-judged']} not judged"
    )
    return lines
