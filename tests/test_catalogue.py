"""The shipped rule catalogue: every citation resolves, the doc is generated from it,
code and catalogue agree on evidence, and nothing a user sees points outside the package."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml
from pydantic import ValidationError

from conformance._cases.library import load_library
from conformance._cases.schema import RuleRef, SeedRef
from conformance._cases.validate import validate
from conformance._checks.registry import all_checks
from conformance._cli import main
from conformance.catalogue import resolve
from conformance.catalogue._entries import Catalogue, Report, WireRule, catalogue
from conformance.catalogue._render import citations, markdown, unresolved

ROOT = Path(__file__).resolve().parent.parent
RANK = {"design": 0, "inferred": 1, "observed": 2, "documented": 3}


def test_the_catalogue_holds_every_rule_report_and_drift_note() -> None:
    shipped = catalogue()
    assert len(shipped.rules) >= 55
    assert [r.id for r in shipped.rules] == list(range(1, len(shipped.rules) + 1))
    assert [r.id for r in shipped.reports] == [f"E{n}" for n in range(1, 55)]
    assert [d.id for d in shipped.drift] == [f"F{n}" for n in range(1, 8)]


def test_the_schema_is_strict() -> None:
    data = yaml.safe_load(
        (ROOT / "conformance" / "catalogue" / "rules.yaml").read_text(encoding="utf-8")
    )
    data["rules"][0]["sources"] = ["see DESIGN.md"]
    with pytest.raises(ValidationError, match="owner/repo#N or an https URL"):
        Catalogue.model_validate(data)
    data["rules"][0]["sources"] = ["a/b#1"]
    data["rules"][0]["extra"] = 1
    with pytest.raises(ValidationError, match="extra"):
        Catalogue.model_validate(data)


@pytest.mark.parametrize(
    ("citation", "kind", "ident"),
    [("33", WireRule, 33), ("A8", WireRule, 8), ("E31", Report, "E31"), (33, WireRule, 33)],
)
def test_a_citation_resolves_to_its_entry(citation: str, kind: type, ident: object) -> None:
    entry = resolve(citation)
    assert isinstance(entry, kind)
    assert entry is not None
    assert entry.id == ident


@pytest.mark.parametrize("citation", ["99", "B8", "E99", "F9", "seed 999", "DESIGN.md"])
def test_an_unknown_citation_resolves_to_nothing(citation: str) -> None:
    assert resolve(citation) is None


def test_every_case_citation_resolves() -> None:
    library = load_library()
    assert not library.errors
    for loaded in library.cases:
        for citation in loaded.case.provenance:
            if isinstance(citation, RuleRef):
                assert resolve(citation.rule) is not None, (loaded.case.id, citation)
            if isinstance(citation, SeedRef):
                assert resolve(f"seed {citation.seed}") is not None, (loaded.case.id, citation)


def test_every_check_source_and_ref_resolves() -> None:
    for check in all_checks():
        assert unresolved(check.source) == [], check.id
        if check.ref:
            assert unresolved(check.ref) == [], check.id
            assert citations(check.ref) or re.match(r"design: |rules §[A-DX] ", check.ref), check.id


def test_code_never_claims_stronger_evidence_than_its_catalogue_rule() -> None:
    """A rule or check bound to catalogue rules rests on at most what the catalogue
    records for them (the single source of the evidence levels)."""
    for check in all_checks():
        cited = [resolve(c.removeprefix("rule ")) for c in citations(check.ref or "")]
        rules = [e for e in cited if isinstance(e, WireRule)]
        if rules:
            best = max(RANK[r.evidence] for r in rules)
            assert RANK[check.evidence] <= best, (check.id, check.evidence)


def test_the_rules_doc_is_generated_from_the_catalogue() -> None:
    doc = (ROOT / "docs" / "rules.md").read_text(encoding="utf-8")
    assert doc == markdown(catalogue()), "run: python -m conformance.catalogue"


INTERNAL = re.compile(r"shared/|wire-rules\.md|seed-behaviors\.md|DESIGN\.md")


def test_nothing_a_user_sees_points_outside_the_distribution() -> None:
    roots = [ROOT / "conformance", ROOT / "cases", ROOT / "docs", ROOT / "README.md"]
    hits: list[str] = []
    for root in roots:
        files = [root] if root.is_file() else sorted(root.rglob("*"))
        for path in files:
            if path.suffix not in {".py", ".yaml", ".yml", ".md", ".json", ".txt"}:
                continue
            for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
                if INTERNAL.search(line):
                    hits.append(f"{path.relative_to(ROOT)}:{n}: {line.strip()[:80]}")
    assert hits == []


def test_an_unknown_rule_gets_one_clear_message() -> None:
    case = next(iter(load_library().cases))
    data = yaml.safe_load(Path(case.file).read_text(encoding="utf-8"))
    data["provenance"] = [{"rule": 99}, {"seed": 999}, {"rul": 5}]
    _, errors = validate(data, "x.yaml", None, None)
    assert [(e.field, e.message.split(":")[0]) for e in errors] == [
        ("provenance[0].rule", "rule 99 is not in the catalogue"),
        (
            "provenance[1].seed",
            "seed 999 is not in the catalogue (see `wire-conformance checks --rule seed",
        ),
        ("provenance[2]", "a citation is one of rule"),
    ]


def test_checks_rule_prints_the_resolved_entry(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["checks", "--rule", "E31"]) == 0
    out = capsys.readouterr().out
    assert "E31: LangChain" in out
    assert "error: thinking.thinking: Field required" in out
    assert "source: langchain-ai/langchain#38638" in out
    assert main(["checks", "--rule", "A8"]) == 0
    assert "rule 8 (section A" in capsys.readouterr().out
    assert main(["checks", "--rule", "seed:96"]) == 0
    assert "[design]" in capsys.readouterr().out
    assert main(["checks", "--rule", "99"]) == 1
    assert "99 is neither a check id nor in the rule catalogue" in capsys.readouterr().out


def test_cases_show_resolves_provenance(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["cases", "--show", "back-to-back-consecutive-redacted"]) == 0
    out = capsys.readouterr().out
    assert "back-to-back-consecutive-redacted: Two consecutive" in out
    assert "anthropic-messages: Anthropic returns" in out
    assert "1. blocks [must]: rule 5" in out
    assert "rule 5 (section A, anthropic-messages) [documented]" in out
    assert "E26: LiteLLM: Redacted thinking lost [observed]" in out
    assert main(["cases", "--show", "no-such-case"]) == 1


def test_every_citation_in_the_package_cases_and_docs_resolves() -> None:
    """Free-text citations (``rule 28``, ``rules 3, 7``, ``seed §26``, ``E31``) in code,
    case files and docs name catalogue entries."""
    hits: list[str] = []
    for root in (ROOT / "conformance", ROOT / "cases", ROOT / "docs"):
        for path in sorted(root.rglob("*")):
            if path.suffix not in {".py", ".yaml", ".md"} or path.name == "rules.yaml":
                continue
            for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
                hits += [f"{path.relative_to(ROOT)}:{n}: {c}" for c in unresolved(line)]
    assert hits == []


def test_an_unresolvable_free_text_citation_is_found() -> None:
    assert unresolved("rules 3, 99; seed §26, §400; E77") == ["rule 99", "seed 400", "E77"]
