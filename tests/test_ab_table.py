"""``run --baseline``: both verdicts per cell and what flipped."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conformance._cli import main
from conformance._report.ab import compare, flip
from conformance.verdict import Result


@pytest.mark.parametrize(
    ("target", "baseline", "expected"),
    [
        ("pass", "fail", "fixed"),
        ("pass", "xfail", "fixed"),
        ("xfail", "error", "still failing"),  # a pin names the defect; it is still there
        ("xfail", "pass", "broke"),
        ("xfail", "xfail", "still failing"),
        ("fail", "pass", "broke"),
        ("error", "pinned", "broke"),
        ("fail", "fail", "still failing"),
        ("error", "fail", "still failing"),
        ("pass", "pass", "same"),
        ("n/a", "pass", "changed"),
        (None, "fail", "changed"),
    ],
)
def test_flips(target: str | None, baseline: str | None, expected: str) -> None:
    assert flip(target, baseline) == expected  # type: ignore[arg-type]


def test_compare_sorts_cells_and_keeps_one_sided_ones() -> None:
    ours = [Result(case="b", wire="w", verdict="pass"), Result(case="a", wire="w", verdict="fail")]
    theirs = [
        Result(case="a", wire="w", verdict="pass"),
        Result(case="c", wire="w", verdict="fail"),
    ]
    table = compare("A", "B", ours, theirs)
    assert [(c.case, c.target, c.baseline, c.flip) for c in table.cells] == [
        ("a", "fail", "pass", "broke"),
        ("b", "pass", None, "changed"),
        ("c", None, "fail", "changed"),
    ]
    assert table.counts["broke"] == 1


def test_run_with_a_baseline_prints_and_writes_the_table(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(
        [
            "run",
            "--target",
            "reference",
            "--baseline",
            "harness.broken.merge_episodes:MergeEpisodesAdapter",
            "--case",
            "gemini-thought-runs-between-parallel-calls",
            "--case",
            "refusal-context-reset",
            "-q",
            "--ab-json",
            str(tmp_path / "ab.json"),
        ]
    )
    out = capsys.readouterr().out
    assert code == 0  # the target's own verdicts decide the exit status
    # (Gemini takes two signed thoughts joined, a should: the merge shows where it moves
    # a functionCall's neighbour, whose signature Gemini checks)
    assert "gemini-thought-runs-between-parallel-calls[gemini]" in out
    assert "fail              pass              fixed" in out
    assert "reference against broken-merge-episodes: 1 fixed" in out
    data = json.loads((tmp_path / "ab.json").read_text())
    assert (data["format"], data["version"]) == ("wire-conformance-ab", 1)
    assert data["summary"]["fixed"] == 1
    assert data["summary"]["same"] == len(data["cells"]) - 1
