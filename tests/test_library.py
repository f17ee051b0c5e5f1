"""The case library as a whole: it loads, it lints clean, and the reference passes it."""

from __future__ import annotations

from collections import Counter

from conformance._cases.library import bundled_cases_dir, read_features
from conformance._cases.lint import lint
from conformance.wires._registry import split_column, wire_names
from tests.support import library, reference_run

FAMILIES = (
    "interleaved-episodes",
    "split-signatures",
    "back-to-back-episodes",
    "xml-recovery",
    "truncation",
    "empty-terminal-message",
)


def test_the_library_loads_and_lints_clean() -> None:
    cases = library()
    assert cases.errors == ()
    assert lint(cases) == []


def test_every_family_is_covered_on_every_wire() -> None:
    assert set(FAMILIES) <= read_features(bundled_cases_dir())
    per_wire: dict[str, set[str]] = {}
    for loaded in library().cases:
        for column in loaded.case.wires:
            per_wire.setdefault(split_column(column)[0], set()).update(loaded.case.features)
    assert set(per_wire) == set(wire_names())
    for wire, features in per_wire.items():
        assert set(FAMILIES) <= features, (wire, set(FAMILIES) - features)


def test_case_counts_per_wire() -> None:
    """At least 25 cases on anthropic-messages, at least 10 on every other wire."""
    counts = Counter(split_column(w)[0] for c in library().cases for w in c.case.wires)
    assert counts["anthropic-messages"] >= 25
    assert all(counts[wire] >= 10 for wire in wire_names()), counts


def test_the_reference_passes_every_case_strictly() -> None:
    results = reference_run(strict=True)
    bad = {
        k: (r.verdict, r.reason, [v.message for v in r.violations])
        for k, r in results.items()
        if r.verdict not in ("pass", "pinned")
    }
    assert bad == {}
    pinned = {loaded.case.id for loaded in library().cases if loaded.case.status == "pinned"}
    assert {case for (case, _), r in results.items() if r.verdict == "pinned"} == pinned
