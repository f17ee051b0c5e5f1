"""The catalogue as a reader sees it: one entry as text lines, the whole as ``docs/rules.md``,
and the citations found in a free-text source (``rules 3, 7; seed §26``)."""

from __future__ import annotations

import re

from conformance.catalogue._entries import (
    Catalogue,
    Drift,
    Entry,
    Report,
    Seed,
    WireRule,
    canonical,
    resolve,
)
from conformance.catalogue._features import Features, features

_RULE_LIST = re.compile(r"\brules? §?((?:[A-DX]?\d+)(?:(?:, | and |–)(?:§?[A-DX]\d+|\d+))*)")
_SEED_LIST = re.compile(
    r"\b(?i:seed|design behaviours?) (§?(?:\d+|B\d+)(?:(?:, |–)§?(?:\d+|B\d+))*)"
)
_REPORT = re.compile(r"\b[EF][1-9]\d*\b")


def heading(entry: Entry) -> str:
    """One line naming the entry: its id, kind and evidence."""
    if isinstance(entry, WireRule):
        return f"rule {entry.id} (section {entry.section}, {entry.wire}) [{entry.evidence}]"
    if isinstance(entry, Report):
        return f"{entry.id}: {entry.harness}: {entry.title} [{entry.evidence}]"
    if isinstance(entry, Drift):
        return f"{entry.id}: {entry.title} [{entry.evidence}]"
    return f"seed {entry.id} ({entry.name}) [{entry.evidence}]"


def describe(entry: Entry) -> list[str]:
    """The entry in full: heading, statement, quoted error texts, related rules, sources."""
    lines = [heading(entry)]
    if isinstance(entry, WireRule | Drift):
        lines.append(f"  {entry.statement}")
    if isinstance(entry, Seed):
        lines.append(f"  {entry.summary}")
    errors: tuple[str, ...] = ()
    if isinstance(entry, WireRule):
        errors = entry.errors
    elif isinstance(entry, Report) and entry.error:
        errors = (entry.error,)
    lines += [f"  error: {error}" for error in errors]
    if isinstance(entry, Report) and entry.rules:
        lines.append("  rules: " + ", ".join(str(n) for n in entry.rules))
    if not isinstance(entry, Seed):
        lines += [f"  source: {source}" for source in entry.sources]
    return lines


def citations(text: str) -> list[str]:
    """The catalogue keys a free-text source cites (``rule 28``, ``rules 3, 7``,
    ``seed §26–§28``, ``E31``), in order; ranges stand for their two ends."""
    found: list[str] = []
    for match in _RULE_LIST.finditer(text):
        found += [f"rule {n}" for n in re.findall(r"[A-DX]?\d+", match.group(1))]
    for match in _SEED_LIST.finditer(text):
        found += [f"seed {n}" for n in re.findall(r"\d+|B\d+", match.group(1).replace("§", ""))]
    found += _REPORT.findall(text)
    return list(dict.fromkeys(found))


def unresolved(text: str) -> list[str]:
    """The citations of ``text`` that name nothing in the catalogue."""
    return [c for c in citations(text) if resolve(c.removeprefix("rule ")) is None]


def markdown(catalogue: Catalogue) -> str:
    """``docs/rules.md``: every entry, grouped, generated so the doc never drifts."""
    out = [
        "# The rule catalogue",
        "",
        "Generated from `conformance/catalogue/rules.yaml` (`python -m conformance.catalogue`);",
        "do not edit by hand. `wire-conformance checks --rule ID` prints one entry.",
        "Evidence: `documented` (a provider document says so), `observed` (public reports",
        "show it), `inferred`, `design` (the project's design only).",
        "",
    ]
    for section, wire in catalogue.section_wires().items():
        out += [f"## Wire rules, section {section} ({wire})", ""]
        out += _block([r for r in catalogue.rules if r.section == section])
    out += ["## Bug reports (E)", "", *_block(list(catalogue.reports))]
    out += ["## Drift and contradictions (F)", "", *_block(list(catalogue.drift))]
    out += ["## Design behaviours (`seed: N`)", "", *_block(list(catalogue.seeds))]
    out += _features(features())
    return "\n".join(out).rstrip() + "\n"


def _features(listed: Features) -> list[str]:
    """The 'Request fields and betas' section: ``features.yaml`` as the provider applies it."""
    out = [
        "## Request fields and betas",
        "",
        "Generated from `conformance/catalogue/features.yaml`. A top-level field or beta value",
        "on none of a wire's lists gets the real API's answer for one it does not know; an",
        'unmodelled one gets "not modelled by this suite". Either leaves the cell `error`,',
        "naming it (checks `provider/unknown-field`, `provider/unknown-beta`,",
        "`provider/unmodelled-feature`).",
        "",
    ]
    for wire, entry in listed.wires.items():
        out += [f"### {wire}", ""]
        if entry.without_dialect_only:
            out += ["- held to these lists: the column without a dialect only"]
        if entry.protobuf_json:
            out += ["- each field is taken in lowerCamelCase and in snake_case (protobuf JSON)"]
        out += [
            "- modelled: " + _names(entry.modelled),
            "- inert (taken, nothing judged depends on it): " + _names(entry.inert),
        ]
        out += [f"- unmodelled: `{name}`: {why}" for name, why in entry.unmodelled.items()]
        out += [
            f"- an unknown field is answered: {entry.unknown_field.error}",
            "  (" + ", ".join(entry.unknown_field.sources) + ")",
            "- fields listed from: " + ", ".join(entry.field_sources),
        ]
        if entry.beta_header is not None:
            out.append(f"- `{entry.beta_header}` values taken: " + _names(entry.betas))
            if entry.unknown_beta is not None:
                out += [
                    f"- an unknown beta value is answered: {entry.unknown_beta.error}",
                    "  (" + ", ".join(entry.unknown_beta.sources) + ")",
                ]
            else:
                out.append('- an unknown beta value is answered "not modelled by this suite"')
            out.append("- betas listed from: " + ", ".join(entry.beta_sources))
        out.append("")
    return out


def _names(names: tuple[str, ...]) -> str:
    return ", ".join(f"`{name}`" for name in names) or "none"


def _block(entries: list[WireRule] | list[Report] | list[Drift] | list[Seed]) -> list[str]:
    out: list[str] = []
    for entry in entries:
        key = canonical(entry.id if not isinstance(entry, Seed) else f"seed {entry.id}")
        lines = describe(entry)
        out.append(f"### {lines[0]}")
        out.append(f'<a id="{(key or "").replace(" ", "-")}"></a>')
        out.append("")
        out += [f"- {line.strip()}" for line in lines[1:]]
        out.append("")
    return out
