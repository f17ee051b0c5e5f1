"""The snapshot engine: the bundled reference snapshots (none orphaned, none missing), the
command line's face of the one extension, and stale snapshots."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from conformance._cases.library import bundled_snapshots_dir
from conformance._cli import main
from conformance._reference.adapter import ReferenceAdapter
from conformance._runner import RunOptions, plan, run_job, run_jobs
from conformance._snapshots import (
    RequestBodies,
    SnapshotSlot,
    SnapshotStore,
    stale_snapshots,
)
from conformance._targets.resolve import target_from_object
from conformance._transcript import Transcript
from tests.support import library

ROOT = bundled_snapshots_dir()


def planned() -> list[tuple[str, str]]:
    target = target_from_object(ReferenceAdapter())
    jobs = plan((c.case for c in library().cases), target)
    return [(j.column, j.case.id) for j in jobs if j.skip is None]


def expected_files() -> set[Path]:
    return {SnapshotSlot(ROOT, "reference", column, case).path for column, case in planned()}


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


def test_a_slot_is_target_column_and_case_with_a_safe_dialect_separator() -> None:
    slot = SnapshotSlot(Path("root"), "mine", "openai-chat:deepseek", "some-case")
    assert slot.path == Path("root/mine/openai-chat+deepseek/some-case.json")


def one_cell() -> tuple[str, str, Transcript]:
    """A cell of the reference and its transcript."""
    target = target_from_object(ReferenceAdapter())
    job = next(j for j in plan((c.case for c in library().cases), target) if j.skip is None)
    _, transcript = run_job(target, job, RunOptions())
    assert transcript is not None
    return job.column, job.case.id, transcript


def test_the_store_says_new_match_or_changed_and_writes_syrupys_bytes(tmp_path: Path) -> None:
    column, case, transcript = one_cell()
    bundled = SnapshotSlot(ROOT, "reference", column, case).path.read_bytes()
    slot = SnapshotSlot(tmp_path, "reference", column, case)
    assert SnapshotStore(tmp_path, "reference").check(column, case, transcript) == "new"
    assert not slot.path.exists(), "written without --update-snapshots"
    updating = SnapshotStore(tmp_path, "reference", update=True)
    assert updating.check(column, case, transcript) == "new"
    assert slot.path.read_bytes() == bundled
    assert updating.check(column, case, transcript) == "match"
    # Same JSON, other bytes: the snapshot is text, compared as syrupy compares it.
    slot.path.write_text(json.dumps(json.loads(bundled)), encoding="utf-8")
    assert SnapshotStore(tmp_path, "reference").check(column, case, transcript) == "changed"
    slot.path.write_bytes(b"\xff\xfe not text")
    assert updating.check(column, case, transcript) == "changed"
    assert slot.path.read_bytes() == bundled


def test_an_unreadable_or_unwritable_snapshot_is_a_drift_that_says_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Permission denied on a snapshot file gave a traceback and lost the judged cells."""
    from conformance._snapshots import RequestBodies

    column, case, transcript = one_cell()

    def denied(*args: object, **kwargs: object) -> None:
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(RequestBodies, "recall", denied)
    state, why = SnapshotStore(tmp_path, "reference").compare(column, case, transcript)
    assert state == "changed"
    assert why is not None
    assert "cannot read the snapshot" in why
    assert "Permission denied" in why
    monkeypatch.undo()
    monkeypatch.setattr(RequestBodies, "store", denied)
    updating = SnapshotStore(tmp_path, "reference", update=True)
    state, why = updating.compare(column, case, transcript)
    assert state == "changed"
    assert why is not None
    assert why.startswith("cannot write the snapshot")


def test_stale_snapshots_are_the_files_no_planned_cell_owns(tmp_path: Path) -> None:
    owned = SnapshotSlot(tmp_path, "mine", "gemini", "kept").path
    deleted_case = SnapshotSlot(tmp_path, "mine", "gemini", "deleted-case").path
    dropped_wire = SnapshotSlot(tmp_path, "mine", "dropped-wire", "kept").path
    other_target = SnapshotSlot(tmp_path, "other", "gemini", "deleted-case").path
    not_a_snapshot = tmp_path / "mine" / "gemini" / "README.txt"
    for path in (owned, deleted_case, dropped_wire, other_target, not_a_snapshot):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("[]\n")
    stale = stale_snapshots(tmp_path, "mine", [("gemini", "kept")])
    assert stale == sorted([deleted_case, dropped_wire])
    assert stale_snapshots(tmp_path, "absent", [("gemini", "kept")]) == []


def test_the_extension_reads_back_what_it_stores(tmp_path: Path) -> None:
    slot = SnapshotSlot(tmp_path, "mine", "gemini", "a-case")
    extension = RequestBodies()
    assert extension.recall(slot) is None
    extension.store(slot, "[]\n")
    assert extension.recall(slot) == "[]\n"


def test_a_snapshot_is_written_whole_or_not_at_all(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The command line and syrupy (under pytest) both write through the extension's
    ``write_snapshot_collection``, which writes beside the file and renames: a write that
    fails before the rename leaves the old snapshot whole (syrupy's own writer truncates
    the file first)."""
    import os

    slot = SnapshotSlot(tmp_path, "mine", "gemini", "a-case")
    extension = RequestBodies()
    extension.store(slot, '["old"]\n')

    def refuse(source: object, target: object) -> None:
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", refuse)
    with pytest.raises(OSError, match="disk full"):
        extension.store(slot, '["new"]\n')
    assert extension.recall(slot) == '["old"]\n'
    assert sorted(p.name for p in slot.directory.iterdir()) == ["a-case.json"]


@pytest.fixture
def snapshots(tmp_path: Path) -> Path:
    """A copy of the bundled snapshots with three stale files: a deleted case, a dropped
    wire, and a wire the target does not speak."""
    root = tmp_path / "snapshots"
    shutil.copytree(ROOT, root)
    for stale in ("anthropic-messages/deleted-case.json", "dropped-wire/a-case.json"):
        (root / "reference" / stale).parent.mkdir(parents=True, exist_ok=True)
        (root / "reference" / stale).write_text("[]\n")
    return root


STALE = ["reference/anthropic-messages/deleted-case.json", "reference/dropped-wire/a-case.json"]


def run_cli(
    snapshots: Path, *args: str, capsys: pytest.CaptureFixture[str]
) -> tuple[int, dict[str, object], str]:
    report = snapshots.parent / "report.json"
    code = main(["run", "--snapshots", str(snapshots), "--json", str(report), *args])
    return code, json.loads(report.read_text()), capsys.readouterr().out


def test_the_command_line_reports_stale_snapshots_and_keeps_them(
    snapshots: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, report, out = run_cli(snapshots, "-q", capsys=capsys)
    assert code == 0
    assert report["unused_snapshots"] == STALE
    assert "2 unused snapshots (delete with --update-snapshots)" in out
    assert all((snapshots / path).exists() for path in STALE)


def test_the_command_line_deletes_stale_snapshots_when_updating(
    snapshots: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, report, out = run_cli(snapshots, "--update-snapshots", capsys=capsys)
    assert code == 0
    assert report["unused_snapshots"] == STALE
    assert "2 unused snapshots deleted" in out
    assert all(f"  {path}" in out for path in STALE)
    assert not any((snapshots / path).exists() for path in STALE)
    assert not (snapshots / "reference" / "dropped-wire").exists()
    stored = {p.relative_to(snapshots) for p in snapshots.rglob("*.json")}
    assert stored == {p.relative_to(ROOT) for p in ROOT.rglob("*.json")}


@pytest.mark.parametrize(
    "flt", [("--case", "xml-*"), ("--wire", "anthropic-messages"), ("--wire", "gemini")]
)
def test_a_filtered_command_line_run_deletes_no_snapshot(
    snapshots: Path, flt: tuple[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    before = sorted(snapshots.rglob("*.json"))
    code, report, out = run_cli(snapshots, *flt, "--update-snapshots", capsys=capsys)
    assert code == 0
    assert "unused_snapshots" not in report
    assert "unused" not in out
    assert sorted(snapshots.rglob("*.json")) == before


def test_a_target_that_stops_speaking_a_wire_leaves_its_snapshots_stale(
    snapshots: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, report, _ = run_cli(
        snapshots,
        "--target",
        "tests.test_snapshots:AnthropicOnly",
        "--target-name",
        "reference",
        "--update-snapshots",
        capsys=capsys,
    )
    assert code == 0
    unused = report["unused_snapshots"]
    assert isinstance(unused, list)
    assert STALE[1] in unused
    assert {p for p in unused if p.startswith("reference/anthropic-messages/")} == {STALE[0]}
    assert sorted(p.name for p in (snapshots / "reference").iterdir()) == ["anthropic-messages"]
    assert not (snapshots / STALE[0]).exists()


class AnthropicOnly(ReferenceAdapter):
    """The reference, no longer speaking any wire but Anthropic's."""

    wires = frozenset({"anthropic-messages"})


def test_without_stale_snapshots_the_report_has_no_unused_field(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = tmp_path / "snapshots"
    shutil.copytree(ROOT, root)
    code, report, out = run_cli(root, "-q", capsys=capsys)
    assert code == 0
    assert "unused_snapshots" not in report
    assert "unused" not in out
