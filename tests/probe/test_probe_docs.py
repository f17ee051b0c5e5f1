"""The probe matrix in docs/probes.md is the one a run of the reference catalogue
gives (in-process, first killer: a couple of seconds)."""

from __future__ import annotations

from harness.probe_table import DOC, matrix, splice


def test_the_documented_probe_matrix_is_regenerated_unchanged() -> None:
    document = DOC.read_text(encoding="utf-8")
    assert splice(document, matrix()) == document, "run: python -m harness.probe_table --write"


def test_the_reference_catalogue_has_no_unaccepted_survivor_and_meets_every_expectation() -> None:
    from harness.probe_table import reference_report

    report = reference_report()
    assert report.ok, report.problems
    assert report.counts["invalid"] == 0
    assert all(m.verdict != "survived" or m.accepted for m in report.mutants)
