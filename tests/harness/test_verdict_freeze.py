"""``harness.verdict_freeze``: what ``--ignore-version`` and ``--ignore-field`` leave out
of a comparison, and that they leave out nothing else."""

from __future__ import annotations

import json
from pathlib import Path

from harness.verdict_freeze import _normalised, dropped_keys

FROZEN = {
    "report_version": 2,
    "results": [{"case": "c", "verdict": "error", "reason": "r", "seconds": 0.5}],
}


def written(tmp_path: Path, name: str, data: object) -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def test_an_ignored_field_and_the_version_bump_are_the_only_things_dropped(
    tmp_path: Path,
) -> None:
    now = {
        "report_version": 3,
        "results": [
            {"case": "c", "verdict": "error", "reason": "r", "cause": "crash", "seconds": 9.0}
        ],
    }
    old, new = written(tmp_path, "old.json", FROZEN), written(tmp_path, "new.json", now)
    dropped = dropped_keys(ignore_version=True, ignore_fields=["cause"])
    assert _normalised(old, dropped) == _normalised(new, dropped)
    # without the options, the bump and the added field are differences
    assert _normalised(old) != _normalised(new)
    assert _normalised(old, dropped_keys(True)) != _normalised(new, dropped_keys(True))


def test_a_moved_verdict_is_still_a_difference_with_the_field_ignored(tmp_path: Path) -> None:
    moved = {
        "report_version": 3,
        "results": [{"case": "c", "verdict": "fail", "reason": "r", "cause": "violations"}],
    }
    old, new = written(tmp_path, "old.json", FROZEN), written(tmp_path, "new.json", moved)
    dropped = dropped_keys(ignore_version=True, ignore_fields=["cause"])
    assert _normalised(old, dropped) != _normalised(new, dropped)
