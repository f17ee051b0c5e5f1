"""``cases --show ID``: one case as a reader needs it, every citation expanded from the
catalogue so a user never has to look anything up elsewhere."""

from __future__ import annotations

from conformance._cases.loader import CaseSet
from conformance._cases.schema import (
    ExpectAnyOf,
    Expectation,
    IssueRef,
    RecordingRef,
    RuleRef,
    SeedRef,
)
from conformance.catalogue import resolve
from conformance.catalogue._render import describe


def show_case(cases: CaseSet, case_id: str) -> list[str] | None:
    """The lines describing ``case_id``, or ``None`` when no loaded case has that id."""
    loaded = cases.by_id().get(case_id)
    if loaded is None:
        return None
    case = loaded.case
    lines = [f"{case.id}: {case.title}", f"  file: {loaded.file}", f"  status: {case.status}"]
    if case.pinned_reason:
        lines.append(f"  pinned: {case.pinned_reason}")
    lines.append("  wires:")
    for column, use in sorted(case.wires.items()):
        reason = use if isinstance(use, str) else use.reason
        lines.append(f"    {column}: {' '.join(reason.split())}")
    lines.append("  expectations:")
    lines += _expectations(case.expect, "    ")
    lines.append("  provenance:")
    for citation in case.provenance:
        lines += _citation(citation)
    return lines


def _expectations(expectations: tuple[Expectation, ...], indent: str) -> list[str]:
    lines: list[str] = []
    for n, expectation in enumerate(expectations, 1):
        kind = type(expectation).__name__.removeprefix("Expect").lower()
        why = f": {' '.join(expectation.why.split())}" if expectation.why else ""
        only = f" (on {', '.join(expectation.wires)})" if expectation.wires else ""
        lines.append(f"{indent}{n}. {kind} [{expectation.severity}]{only}{why}")
        if isinstance(expectation, ExpectAnyOf):
            lines += _expectations(expectation.any_of, indent + "   ")
    return lines


def _citation(citation: SeedRef | RuleRef | IssueRef | RecordingRef) -> list[str]:
    if isinstance(citation, IssueRef):
        return [f"    issue {citation.issue}"]
    if isinstance(citation, RecordingRef):
        return [f"    recording {citation.recording} ({citation.digest})"]
    key = f"seed {citation.seed}" if isinstance(citation, SeedRef) else citation.rule
    entry = resolve(key)
    if entry is None:  # the schema refuses such a case; kept for a library loaded without it
        return [f"    {key}: not in the rule catalogue"]
    return ["    " + line for line in describe(entry)]


__all__ = ["show_case"]
