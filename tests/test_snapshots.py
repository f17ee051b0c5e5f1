"""The bundled reference snapshots: none orphaned, none missing, and the command line
reads the very files the pytest plugin (through syrupy) writes."""

from __future__ import annotations

from pathlib import Path

from conformance.cases.library import bundled_snapshots_dir
from conformance.reference.adapter import ReferenceAdapter
from conformance.runner import RunOptions, plan, run_jobs
from conformance.snapshots import SnapshotStore, snapshot_path
from conformance.targets.resolve import target_from_object
from tests.support import library

ROOT = bundled_snapshots_dir()


def expected_files() -> set[Path]:
    target = target_from_object(ReferenceAdapter())
    jobs = plan((c.case for c in library().cases), target)
    return {snapshot_path(ROOT, "reference", j.column, j.case.id) for j in jobs if j.skip is None}


def test_no_snapshot_is_orphaned_and_none_is_missing() -> None:
    stored = set((ROOT / "reference").rglob("*.json"))
    expected = expected_files()
    assert stored - expected == set(), "orphaned snapshots (their case or column is gone)"
    assert expected - stored == set(), (
        "missing snapshots: pytest tests/test_reference_suite.py --snapshot-update"
    )


def test_the_command_line_matches_the_plugins_snapshots() -> None:
    target = target_from_object(ReferenceAdapter())
    jobs = [j for j in plan((c.case for c in library().cases), target) if j.skip is None]
    results = run_jobs(target, jobs, RunOptions(snapshots=SnapshotStore(ROOT, "reference")))
    assert {r.snapshot for r in results} == {"match"}
