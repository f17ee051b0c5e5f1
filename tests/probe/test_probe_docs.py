"""The probe matrix in docs/probes.md is the one a run of the reference catalogue
gives (in-process, first killer: a couple of seconds).  Both tests read one run: the
module fixture holds its report."""

from __future__ import annotations

import pytest

from conformance._probe.report import ProbeReport
from harness.probe_table import DOC, matrix, reference_report, splice

#: Both tests share the run; under ``--dist loadgroup`` they run on one worker.
pytestmark = pytest.mark.xdist_group("reference-probe-run")


@pytest.fixture(scope="module")
def report() -> ProbeReport:
    return reference_report()


def test_the_documented_probe_matrix_is_regenerated_unchanged(report: ProbeReport) -> None:
    document = DOC.read_text(encoding="utf-8")
    assert splice(document, matrix(report)) == document, (
        "run: python -m harness.probe_table --write"
    )


def test_the_reference_catalogue_has_no_unaccepted_survivor_and_meets_every_expectation(
    report: ProbeReport,
) -> None:
    assert report.ok, report.problems
    assert report.counts["invalid"] == 0
    assert all(m.verdict != "survived" or m.accepted for m in report.mutants)
