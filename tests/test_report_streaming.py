"""A run writes each finished cell to its reports as it finishes (``conformance._report.
spool``): the JSON and JUnit reports are the bytes the whole-report writers give
(``to_json``, ``to_junit``: one tree of the whole run, a different path), and a finished
cell's result and transcript are not held until the run ends."""

from __future__ import annotations

import gc
import random
import weakref
from pathlib import Path
from typing import Any

import pytest

from conformance import _runner as runner
from conformance._cases.library import load_library
from conformance._cases.load_problem import LoadProblem
from conformance._cli import main
from conformance._report.junit import to_junit
from conformance._report.reading import read_report
from conformance._report.report_schema import Report, build_report, summary_line, to_json
from conformance._report.spool import ReportSpool
from conformance._runner import RunOptions, plan, run_jobs
from conformance._targets.resolve import resolve_target
from conformance.verdict import Result
from harness.broken import BROKEN_ADAPTERS

_BROKEN = f"{BROKEN_ADAPTERS[0].__module__}:{BROKEN_ADAPTERS[0].__name__}"


@pytest.mark.parametrize(
    "target",
    [
        pytest.param(["--target", "reference"], id="reference"),
        pytest.param(["--target", _BROKEN, "--target-name", "broken"], id="broken"),
        pytest.param(
            ["--target", "reference-command", "-j", "2", "--case", "empty-content-*"],
            id="command-j2",
        ),
    ],
)
def test_streamed_reports_are_the_bytes_of_the_whole_report_writers(
    tmp_path: Path, target: list[str]
) -> None:
    """The bundled library (and a parallel command run), written a cell at a time, read
    back and written again as one report: the same bytes, results in report order."""
    json_path, junit_path = tmp_path / "r.json", tmp_path / "r.xml"
    reports = ["--json", str(json_path), "--junit", str(junit_path)]
    main(["run", "-q", "--progress", "off", *target, *reports])
    report = read_report(json_path)
    keys = [result.key for result in report.results]
    assert keys == sorted(keys)
    assert len(set(keys)) == len(keys) > 0
    assert json_path.read_text(encoding="utf-8") == to_json(report)
    assert junit_path.read_text(encoding="utf-8") == to_junit(report)


def _results() -> list[Result]:
    """Cells of every kind a report holds: passes, fails with violations and warnings,
    ``n/a`` cells, and an error whose reason and output name machine paths."""
    target = resolve_target(_BROKEN, "broken")
    cases = [loaded.case for loaded in load_library().cases]
    jobs = plan(cases, target)
    found = run_jobs(target, jobs[::7], RunOptions())
    crash = Result(
        case="a-crash",
        wire="gemini",
        verdict="error",
        reason=f"Traceback: {Path.cwd() / 'adapter.py'} line 3",
        stderr_tail=f'{Path.home() / "x.py"}: boom\n<tag> & "quoted"',
        seconds=0.25,
    )
    needy = Result(
        case="a-needy-case",
        wire="openai-responses",
        verdict="n/a",
        reason="needs capability x",
        cause="not-applicable",
        not_applicable="missing-capability",
        missing=("x",),
    )
    return [*found, crash, needy]


def _header(results: list[Result]) -> Report:
    errors = [LoadProblem(file=str(Path.cwd() / "bad.yaml"), line=2, field=None, message="no")]
    report = build_report("broken", "adapter", results, True, errors, "any")
    return report.model_copy(
        update={
            "incomplete": "interrupted by SIGTERM",
            "unused_snapshots": ("reference/gemini/gone.json",),
            "bundled_target": True,
        }
    )


def test_a_spool_fed_out_of_order_writes_what_the_whole_report_says() -> None:
    """Cells finishing in any order (a parallel run), with load errors, an interrupted
    run and stale snapshots in the header: the whole report's bytes, summary line and
    results."""
    results = _results()
    assert {r.verdict for r in results} >= {"pass", "fail", "error", "n/a"}
    whole = _header(results)
    shuffled = results.copy()
    random.Random(26).shuffle(shuffled)
    with ReportSpool(junit=True) as spool:
        for result in shuffled:
            spool.add(result)
        header = _header([])
        assert len(spool) == len(results)
        assert "".join(spool.json(header)) == to_json(whole)
        assert "".join(spool.junit(header)) == to_junit(whole)
        assert summary_line(spool.header(header), spool.counted) == summary_line(whole)
        # read back as any reader of the JSON reads it (fields kept out of it aside)
        assert spool.report(header) == Report.model_validate_json(to_json(whole))


def test_a_spool_of_no_cells_writes_the_empty_report() -> None:
    for header in (_header([]), _header([]).model_copy(update={"incomplete": None})):
        with ReportSpool(junit=True) as spool:
            assert "".join(spool.json(header)) == to_json(header)
            assert "".join(spool.junit(header)) == to_junit(header)
    with ReportSpool() as spool, pytest.raises(ValueError, match="no JUnit"):
        spool.junit(header)


def test_a_run_streamed_to_its_reports_holds_no_finished_cell(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Whenever a cell starts, the results and transcripts of the cells before it are
    gone but for the one just finished (the runner's loop variables): the run holds the
    cells in flight, whatever the library's size."""
    alive: list[weakref.ref[Any]] = []
    most_alive = 0
    run_job = runner.run_job

    def watched(target: Any, job: runner.Job, options: RunOptions) -> Any:
        nonlocal most_alive
        if len(alive) % 20 == 0:  # a full collection walks the library: not every cell
            gc.collect()
            most_alive = max(most_alive, sum(ref() is not None for ref in alive))
        result, transcript = run_job(target, job, options)
        alive.extend(weakref.ref(held) for held in (result, transcript) if held is not None)
        return result, transcript

    monkeypatch.setattr(runner, "run_job", watched)
    reports = ["--json", str(tmp_path / "r.json"), "--junit", str(tmp_path / "r.xml")]
    assert main(["run", "-q", "--progress", "off", "--case", "gemini-*", *reports]) == 0
    assert len(alive) > 100
    assert most_alive <= 2
