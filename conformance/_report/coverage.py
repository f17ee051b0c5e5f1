"""Catalogue coverage: which cases (and, for mutants, which probes) encode each design
behaviour of the seed index and each wire rule, or the written reason for none.

``wire-conformance cases --coverage`` prints it; an entry whose kind demands coverage
(a fix, guard, pinned limitation, accepted false positive, declared change or mutant) and
that has neither a case, a probe nor a reason is a gap, and a gap fails the command.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Literal

from conformance._cases.schema import Case, RuleRef, SeedRef
from conformance.catalogue._entries import Catalogue, canonical
from conformance.catalogue._seeds import SeedIndex

Status = Literal["covered", "explained", "gap", "context"]


@dataclass(frozen=True)
class Row:
    """One catalogue entry and what accounts for it."""

    key: str  # ``seed 45`` or ``rule 12``
    name: str
    kind: str
    summary: str
    cases: tuple[str, ...]
    probes: tuple[str, ...]
    reason: str | None
    status: Status


@dataclass(frozen=True)
class Coverage:
    seeds: tuple[Row, ...]
    rules: tuple[Row, ...]
    #: Index errors that are not gaps (a probe id the catalogue does not have).
    problems: tuple[str, ...]

    @property
    def gaps(self) -> tuple[Row, ...]:
        return tuple(row for row in (*self.seeds, *self.rules) if row.status == "gap")

    @property
    def ok(self) -> bool:
        return not self.gaps and not self.problems


def _citations(cases: Sequence[Case]) -> dict[str, list[str]]:
    """Catalogue key (``seed 45``, ``12``) -> the ids of the cases citing it."""
    cited: dict[str, list[str]] = defaultdict(list)
    for case in cases:
        for item in case.provenance:
            if isinstance(item, SeedRef):
                key: str | None = f"seed {item.seed}"
            elif isinstance(item, RuleRef):
                key = canonical(item.rule)
            else:
                continue
            if key is not None and case.id not in cited[key]:
                cited[key].append(case.id)
    return cited


def _status(
    cases: Sequence[str], probes: Sequence[str], reason: str | None, required: bool
) -> Status:
    if cases or probes:
        return "covered"
    if reason:
        return "explained"
    return "gap" if required else "context"


def coverage(
    index: SeedIndex,
    rules: Catalogue,
    cases: Sequence[Case],
    probes: Mapping[str, Sequence[str]],
) -> Coverage:
    """Join the index and the rule catalogue with the cases' citations and the probe
    catalogue (probe id -> the cases expected to kill it)."""
    cited = _citations(cases)
    problems: list[str] = []
    seed_rows: list[Row] = []
    for entry in index.seeds:
        for probe in entry.probes:
            if probe not in probes:
                problems.append(f"seed {entry.n}: probe {probe!r} is not in the probe catalogue")
        known = tuple(p for p in entry.probes if p in probes)
        found = tuple(sorted(cited.get(f"seed {entry.n}", ())))
        seed_rows.append(
            Row(
                key=f"seed {entry.n}",
                name=entry.id,
                kind=entry.kind,
                summary=entry.summary,
                cases=found,
                probes=known,
                reason=entry.reason,
                status=_status(found, known, entry.reason, entry.required),
            )
        )
    reasons = {r.rule: r.reason for r in index.rules}
    rule_ids = {rule.id for rule in rules.rules}
    problems += [
        f"rule {n}: a reason for a rule the catalogue does not have"
        for n in sorted(set(reasons) - rule_ids)
    ]
    rule_rows = []
    for rule in rules.rules:
        found = tuple(sorted(cited.get(str(rule.id), ())))
        reason = reasons.get(rule.id)
        rule_rows.append(
            Row(
                key=f"rule {rule.id}",
                name=f"{rule.section}{rule.id}",
                kind="wire-rule",
                summary=rule.statement,
                cases=found,
                probes=(),
                reason=reason,
                status=_status(found, (), reason, True),
            )
        )
    return Coverage(tuple(seed_rows), tuple(rule_rows), tuple(problems))


def _counts(rows: Sequence[Row]) -> dict[str, int]:
    counts = {"covered": 0, "explained": 0, "gap": 0, "context": 0}
    for row in rows:
        counts[row.status] += 1
    return counts


def as_json(result: Coverage) -> str:
    """The coverage as one deterministic JSON document."""
    document = {
        "seeds": [asdict(row) for row in result.seeds],
        "rules": [asdict(row) for row in result.rules],
        "summary": {"seeds": _counts(result.seeds), "rules": _counts(result.rules)},
        "problems": list(result.problems),
        "ok": result.ok,
    }
    return json.dumps(document, indent=2, sort_keys=True) + "\n"


def _line(row: Row) -> str:
    if row.status == "covered":
        what = ", ".join(row.cases)
        if row.probes:
            what = "; ".join(filter(None, [what, "probes: " + ", ".join(row.probes)]))
        return f"{row.key:<9} {row.kind:<24} covered    {what}"
    if row.status == "explained":
        return f"{row.key:<9} {row.kind:<24} explained  {row.reason}"
    if row.status == "gap":
        return f"{row.key:<9} {row.kind:<24} GAP        {row.name}: no case, probe or reason"
    return f"{row.key:<9} {row.kind:<24} -          {row.name}"


def as_lines(result: Coverage) -> list[str]:
    """One line per entry, then the problems and a summary."""
    lines = [_line(row) for row in (*result.seeds, *result.rules)]
    lines += [f"problem: {problem}" for problem in result.problems]
    for label, rows in (("seed entries", result.seeds), ("wire rules", result.rules)):
        c = _counts(rows)
        lines.append(
            f"{label}: {c['covered']} covered, {c['explained']} explained, "
            f"{c['gap']} gaps, {c['context']} context"
        )
    return lines


def as_markdown(result: Coverage) -> str:
    """``docs/coverage.md``: the same table for readers."""
    out = [
        "# Catalogue coverage",
        "",
        "Generated from the seed index, the rule catalogue, the case library and the",
        "reference probe catalogue; do not edit. Each design behaviour (`seed: N`) and each",
        "wire rule (`rule: N`) with the cases that cite it, the mutation probes that encode",
        "it, or the reason it has no case. `wire-conformance cases --coverage` prints the",
        "same and fails on a gap.",
        "",
    ]
    for title, rows in (("Design behaviours", result.seeds), ("Wire rules", result.rules)):
        c = _counts(rows)
        out += [
            f"## {title}",
            "",
            f"{c['covered']} covered, {c['explained']} explained, {c['gap']} gaps, "
            f"{c['context']} context entries (kinds that need no case).",
            "",
            "| entry | kind | summary | accounted for by |",
            "|---|---|---|---|",
        ]
        for row in rows:
            if row.status == "covered":
                parts = [f"`{c}`" for c in row.cases] + [f"probe `{p}`" for p in row.probes]
                by = ", ".join(parts)
            elif row.status == "explained":
                by = f"reason: {row.reason}"
            elif row.status == "gap":
                by = "**gap**"
            else:
                by = "context"
            summary = row.summary.replace("|", "\\|")
            out.append(f"| {row.key} `{row.name}` | {row.kind} | {summary} | {by} |")
        out.append("")
    return "\n".join(out)
