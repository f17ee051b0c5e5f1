"""The seed index (``conformance/catalogue/seeds.yaml``) and ``cases --coverage``: every
design behaviour and wire rule is accounted for by a case, a probe or a written reason,
and an entry that is none of these fails the command."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from pydantic import ValidationError

from conformance._cases.library import load_library
from conformance._cases.schema import Case, SeedRef
from conformance._cli import main
from conformance._probe.catalogue import reference_catalogue
from conformance._report.coverage import as_json, as_lines, coverage
from conformance.catalogue._entries import Seed, catalogue
from conformance.catalogue._seeds import REQUIRED_KINDS, parse_seed_index, seed_index
from harness.coverage_doc import current

ROOT = Path(__file__).resolve().parent.parent
INDEX = ROOT / "conformance" / "catalogue" / "seeds.yaml"


def _cases() -> list[Case]:
    return [loaded.case for loaded in load_library().cases]


def _probes() -> dict[str, tuple[str, ...]]:
    return {p.id: p.expect_killed_by for p in reference_catalogue().probes}


def test_the_index_holds_every_entry_under_the_catalogues_names() -> None:
    index = seed_index()
    assert [entry.n for entry in index.seeds] == list(range(1, 187))
    names = {s.id: s.name for s in catalogue().seeds if isinstance(s, Seed)}
    assert {entry.n: entry.id for entry in index.seeds} == {n: names[n] for n in range(1, 187)}


def test_the_index_summaries_are_its_own_words() -> None:
    """A summary restates the entry; it never copies the catalogue's summary sentence."""
    shipped = {s.id: s.summary for s in catalogue().seeds if isinstance(s, Seed)}
    copied = [e.n for e in seed_index().seeds if e.summary == shipped.get(e.n)]
    assert copied == []


def test_the_index_schema_is_strict() -> None:
    data = yaml.safe_load(INDEX.read_text(encoding="utf-8"))
    data["seeds"][0]["covered_by"] = ["x"]
    with pytest.raises(ValidationError, match="covered_by"):
        parse_seed_index(yaml.safe_dump(data))
    data = yaml.safe_load(INDEX.read_text(encoding="utf-8"))
    data["seeds"][1]["n"] = 1
    with pytest.raises(ValidationError, match="entry number 1 appears twice"):
        parse_seed_index(yaml.safe_dump(data))
    data = yaml.safe_load(INDEX.read_text(encoding="utf-8"))
    data["seeds"][0]["kind"] = "bug"
    with pytest.raises(ValidationError, match="kind"):
        parse_seed_index(yaml.safe_dump(data))


def test_an_uncovered_required_entry_is_a_gap() -> None:
    """Negative example on real data: take away the cases that cite §1 and it is a gap."""
    cases = [c for c in _cases() if not any(getattr(p, "seed", None) == 1 for p in c.provenance)]
    result = coverage(seed_index(), catalogue(), cases, _probes())
    gaps = [row.key for row in result.gaps]
    assert "seed 1" in gaps
    assert not result.ok
    assert any(line.startswith("seed 1 ") and "GAP" in line for line in as_lines(result))


def test_a_reason_explains_and_a_context_kind_needs_nothing() -> None:
    text = """
version: 1
seeds:
  - {n: 1, id: a-fix, kind: fix, summary: "a fix nobody encodes"}
  - {n: 2, id: b-fix, kind: fix, summary: "a fix with a reason",
     reason: "not observable from any wire"}
  - {n: 3, id: c-alt, kind: rejected-alternative, summary: "an alternative nobody took"}
  - {n: 4, id: d-mutant, kind: mutant, summary: "a mutant a probe encodes", probes: [p1]}
  - {n: 5, id: e-mutant, kind: mutant, summary: "a mutant naming a missing probe", probes: [nope]}
"""
    result = coverage(parse_seed_index(text), catalogue(), [], {"p1": ("some-case",)})
    status = {row.key: row.status for row in result.seeds}
    assert status == {
        "seed 1": "gap",
        "seed 2": "explained",
        "seed 3": "context",
        "seed 4": "covered",
        "seed 5": "gap",
    }
    assert result.problems == ("seed 5: probe 'nope' is not in the probe catalogue",)


def test_every_entry_that_needs_coverage_is_covered_or_explained() -> None:
    result = coverage(seed_index(), catalogue(), _cases(), _probes())
    assert result.problems == ()
    assert [row.key for row in result.gaps] == []
    required = [e for e in seed_index().seeds if e.kind in REQUIRED_KINDS]
    assert len(required) > 100


def test_cases_coverage_command(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["cases", "--coverage"]) == 0
    out = capsys.readouterr().out
    assert "seed 1 " in out
    assert "rule 53" in out
    assert main(["cases", "--coverage", "--json"]) == 0
    document = json.loads(capsys.readouterr().out)
    assert document["ok"] is True
    assert {row["key"] for row in document["seeds"]} >= {"seed 1", "seed 186"}
    assert main(["cases", "--json"]) == 2


def test_the_json_is_deterministic() -> None:
    first = as_json(coverage(seed_index(), catalogue(), _cases(), _probes()))
    backwards = list(reversed(_cases()))
    assert first == as_json(coverage(seed_index(), catalogue(), backwards, _probes()))


def test_the_coverage_doc_is_current() -> None:
    assert (ROOT / "docs" / "coverage.md").read_text(encoding="utf-8") == current(), (
        "regenerate: python -m harness.coverage_doc > docs/coverage.md"
    )


def test_every_seed_citation_is_in_the_index() -> None:
    numbers = {e.n for e in seed_index().seeds}
    cited = {p.seed for c in _cases() for p in c.provenance if isinstance(p, SeedRef)}
    assert cited <= numbers
