"""``wire-conformance checks --rule ID`` for a check id: the ids every report prints
(``invariant/tool-pairing``, ``anthropic-messages/leading-thinking``, ``expect``) resolve
where a reader looks them up, with the catalogue entries the check cites."""

from __future__ import annotations

from conformance._checks.registry import all_checks, realism_checks
from conformance.catalogue import resolve
from conformance.catalogue._render import citations, describe, heading


def describe_check(check_id: str) -> list[str] | None:
    """The check's line (severity, evidence, statement, source) and every catalogue
    entry its ``ref`` and source cite, in full (a realism check: its finding); ``None``
    when no check has that id."""
    realism = next((c for c in realism_checks() if c.id == check_id), None)
    if realism is not None:  # a lint finding: no severity, no evidence of its own
        return [f"{realism.id}  [realism]", f"  {realism.statement}", f"  {realism.source}"]
    check = next((c for c in all_checks() if c.id == check_id), None)
    if check is None:
        return None
    source = check.source if check.ref is None else f"{check.ref}; {check.source}"
    lines = [
        f"{check.id}  [{check.severity}, {check.evidence}]",
        f"  {check.statement}",
        f"  source: {source}",
    ]
    shown: set[str] = set()
    for citation in citations(source):
        entry = resolve(citation.removeprefix("rule "))
        if entry is not None and heading(entry) not in shown:  # `rule A6` is `rule 6`
            shown.add(heading(entry))
            lines += [f"  {line}" for line in describe(entry)]
    return lines
