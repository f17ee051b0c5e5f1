"""REPORT.md combines the runs of one library version: each cell as its latest run left
it, so a re-check of the pins or a run of part of the plan updates the matrix."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from harness.targets import report
from harness.targets.report import (
    combined,
    grouped,
    load_run,
    not_run,
    result_paths,
    summary_table,
    whole_run,
)


def result(case: str, verdict: str, wire: str = "openai-chat") -> dict[str, Any]:
    return {"case": case, "wire": wire, "verdict": verdict}


def write(
    folder: Path,
    stem: str,
    *results: dict[str, Any],
    wall: float | None = None,
    finished: str | None = None,
) -> Path:
    path = folder / f"{stem}.json"
    path.write_text(json.dumps({"target": "litellm", "results": list(results)}), "utf-8")
    if wall is not None:
        timing = {"version": "1.0", "wall_seconds": wall, "cells_run": len(results),
                  "seconds_per_cell": wall / len(results), "jobs": 1}  # fmt: skip
        if finished:
            timing["finished"] = finished
        path.with_suffix(".timing.json").write_text(json.dumps(timing), "utf-8")
    return path


def test_a_later_labelled_run_overrides_the_cells_it_has_and_only_those(tmp_path: Path) -> None:
    full = write(tmp_path, "litellm-1.0", result("a", "fail"), result("b", "pass"), wall=10)
    recheck = write(tmp_path, "litellm-1.0-pins-check", result("a", "xfail"), wall=2)
    cells = combined([load_run(recheck), load_run(full)])  # order on disk does not matter
    assert {key: cell["verdict"] for key, cell in cells.items()} == {
        "a[openai-chat]": "xfail",
        "b[openai-chat]": "pass",
    }
    assert cells["a[openai-chat]"]["run"] == "pins-check"


def test_a_later_na_replaces_an_earlier_verdict_and_an_unplanned_cell_keeps_it(
    tmp_path: Path,
) -> None:
    """Found on qwen-code: a case that came to need a capability the target lacks kept
    the pass an older run gave it; a run's n/a is its judgement (filters plan nothing)."""
    early = write(tmp_path, "litellm-1.0-part1", result("a", "pass"), result("b", "fail"),
                  wall=1, finished="2026-12-01T10:00:00Z")  # fmt: skip
    late = write(tmp_path, "litellm-1.0-full", result("a", "n/a"), result("c", "n/a"),
                 wall=1, finished="2026-12-02T10:00:00Z")  # fmt: skip
    cells = combined([load_run(late), load_run(early)])
    assert cells["a[openai-chat]"]["verdict"] == "n/a"
    assert cells["b[openai-chat]"]["verdict"] == "fail"  # not in the later run's plan
    assert cells["c[openai-chat]"]["verdict"] == "n/a"


def test_the_summary_row_counts_the_combined_cells_and_the_cases_in_no_run(
    tmp_path: Path,
) -> None:
    write(tmp_path, "litellm-1.0", result("a", "fail"), result("b", "pass"), wall=10)
    write(tmp_path, "litellm-1.0-pins-check", result("a", "xfail"), wall=2)
    groups = grouped(result_paths(tmp_path))
    assert list(groups) == [("litellm", "1.0")]
    assert not_run(combined(groups["litellm", "1.0"]), {"a", "b", "new"}) == ["new"]
    row = summary_table(groups, {"a", "b", "new"})[2]
    assert row == "| litellm | 1.0 | 1 | 0 | 1 | 0 | 0 | 1 | none | none |  |  | 12.0 |"


def test_the_figures_are_the_latest_whole_runs_never_a_part_or_a_recheck(
    tmp_path: Path,
) -> None:
    write(tmp_path, "litellm-1.0", result("a", "fail"), result("b", "pass"), wall=10,
          finished="2026-12-01T10:00:00Z")  # fmt: skip
    write(tmp_path, "litellm-1.0-full-2", result("a", "pass"), result("b", "pass"), wall=6,
          finished="2026-12-02T10:00:00Z")  # fmt: skip
    write(tmp_path, "litellm-1.0-recheck", result("a", "pass"), wall=2,
          finished="2026-12-03T10:00:00Z")  # fmt: skip
    groups = grouped(result_paths(tmp_path))
    whole = whole_run(groups["litellm", "1.0"], {"a", "b"})
    assert whole is not None
    assert whole.label == "full-2"
    row = summary_table(groups, {"a", "b"})[2]
    assert row == "| litellm | 1.0 | 2 | 0 | 0 | 0 | 0 | 0 | 6 | 2 | 3.0 | 1 | 18.0 |"
    assert whole_run(groups["litellm", "1.0"], {"a", "b", "new"}) is None
    ab = write(tmp_path, "litellm-1.0-ab", result("a", "pass"), result("b", "pass"), wall=20,
               finished="2026-12-04T10:00:00Z")  # fmt: skip
    timing = ab.with_suffix(".timing.json")
    timing.write_text(json.dumps({**json.loads(timing.read_text()), "baseline": "0.9"}))
    later = grouped(result_paths(tmp_path))["litellm", "1.0"]
    assert whole_run(later, {"a", "b"}) == whole  # its wall holds the baseline's run too


def test_runs_that_say_when_they_finished_overlay_in_that_order(tmp_path: Path) -> None:
    early = write(tmp_path, "litellm-1.0-pins-check", result("a", "fail"), wall=1,
                  finished="2026-12-01T10:00:00Z")  # fmt: skip
    late = write(tmp_path, "litellm-1.0-delta", result("a", "pass"), wall=1,
                 finished="2026-12-02T10:00:00Z")  # fmt: skip
    cells = combined([load_run(late), load_run(early)])
    assert cells["a[openai-chat]"]["verdict"] == "pass"


def triage_folder(tmp_path: Path, pins: dict[str, str], triage: str) -> Path:
    """A targets folder holding one library, ``lib``: its pins and its triage."""
    (tmp_path / "lib").mkdir()
    lines = ["[pins]", *(f'"{key}" = "{why}"' for key, why in pins.items())]
    (tmp_path / "lib" / "target.toml").write_text("\n".join(lines) + "\n", "utf-8")
    (tmp_path / "lib" / "triage.toml").write_text(triage, "utf-8")
    return tmp_path


def test_every_pin_needs_a_defect_entry_with_a_severity_its_provider_text_bears_out(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    triage = """
["a[openai-chat]"]
kind = "defect"
provider = "400 invalid_request_error"
severity = "rejected"

["b[openai-chat]"]
kind = "defect"
provider = "accepted, but the signature is lost"

["c[*]"]
kind = "defect"
provider = "accepted, but the signature is lost"
severity = "rejected"

["d[openai-chat]"]
kind = "defect"
provider = "400 when the upstream is Anthropic"
severity = "degraded"

["e[openai-chat]"]
kind = "false-positive"
"""
    pins = {f"{case}[openai-chat]": "why" for case in "abcdf"}  # e is not pinned
    monkeypatch.setattr(report, "HERE", triage_folder(tmp_path, pins, triage))
    assert report.triage_problems("lib") == [
        "lib: pin f[openai-chat] has no `defect` or `scope` triage entry",
        "lib: b[openai-chat]: severity '' is not one of rejected, degraded, unsafe, cosmetic",
        "lib: c[*]: `rejected`, but its provider text names no 4xx",
        "lib: c[*]: `rejected`, but its provider text says accepted",
        "lib: d[openai-chat]: its provider text says 4xx, severity degraded",
    ]
    assert report.severity_counts("lib") == {
        "rejected": 2,  # a, and c through its case-wide entry
        "none": 2,  # b states none; f has no entry
        "degraded": 1,
    }


def test_a_scope_pin_needs_to_say_whose_job_the_case_asks_for(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A case asking for what the library leaves to its application may be pinned as
    `scope`, never silently: the entry says whose job it is."""
    triage = """
["a[anthropic-messages]"]
kind = "scope"
summary = "The SDK sends the saved history it is given: the application repairs it."

["b[anthropic-messages]"]
kind = "scope"

["c[anthropic-messages]"]
kind = "not-real"
summary = "The library's reaction is accepted."
"""
    pins = {f"{case}[anthropic-messages]": "why" for case in "abc"}
    monkeypatch.setattr(report, "HERE", triage_folder(tmp_path, pins, triage))
    assert report.triage_problems("lib") == [
        "lib: pin c[anthropic-messages] has no `defect` or `scope` triage entry",
        "lib: b[anthropic-messages]: a `scope` entry needs a summary saying whose job the "
        "case asks for",
    ]


def test_the_triage_shows_a_severity_and_the_library_counts_its_pins_by_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    triage = """
["a[openai-chat]"]
kind = "defect"
summary = "Drops the signature."
provider = "accepted, but the signature is lost"
severity = "degraded"
"""
    folder = triage_folder(tmp_path, {"a[openai-chat]": "drops the signature"}, triage)
    monkeypatch.setattr(report, "HERE", folder)
    results = folder / "lib-1.0.json"
    cells = [result("a", "xfail"), result("b", "pass")]
    results.write_text(json.dumps({"target": "lib", "results": cells}), "utf-8")
    text = "\n".join(report.library_section([load_run(results)], {"a", "b"}))
    assert "Pins by severity (1 pinned cells): 1 degraded." in text
    assert "- severity: **degraded** (accepted, but continuity, a signature" in text


def test_an_upstream_report_names_its_minimal_cell_and_says_when_it_went_stale(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from harness.targets import report

    (tmp_path / "lib").mkdir()
    (tmp_path / "lib" / "upstream.toml").write_text(
        '[drops-x]\ntitle = "Drops x"\nminimal = "a[openai-chat]"\n'
        'cells = ["b[gemini]"]\nbytes = "`{}`"\nissue = "no public report found"\n',
        encoding="utf-8",
    )
    monkeypatch.setattr(report, "HERE", tmp_path)
    cells = {"a[openai-chat]": result("a", "xfail")}
    lines = report.upstream_section("lib", cells)
    assert "#### Drops x" in lines
    assert any(line.startswith("- minimal case: `a[openai-chat]` (xfail;") for line in lines)
    assert "- also: `b[gemini]`" in lines
    assert "- issue: no public report found" in lines
    assert not any("stale" in line for line in lines)
    stale = report.upstream_section("lib", {"a[openai-chat]": result("a", "pass")})
    assert "- **stale**: the minimal cell is now `pass`" in stale
    assert report.upstream_section("other", cells) == []
