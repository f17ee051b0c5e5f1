"""A parallel run holds the transcripts of the cells in flight only, not the library's."""

from __future__ import annotations

import gc
import weakref
from types import SimpleNamespace
from typing import Any

import pytest

from conformance import _runner as runner
from conformance._runner import CELLS_AHEAD_PER_WORKER, RunOptions, run_jobs_parallel


class Exchanges:
    """Stands in for a cell's transcript: what a finished future held until the end."""


def test_a_read_cell_transcript_is_freed_and_few_cells_run_ahead(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    transcripts: list[weakref.ref[Exchanges]] = []

    def run_job(_target: Any, job: int, _options: RunOptions) -> tuple[int, Exchanges]:
        transcript = Exchanges()
        transcripts.append(weakref.ref(transcript))
        return job, transcript

    monkeypatch.setattr(runner, "run_job", run_job)
    kind = SimpleNamespace(parallel=True, abandon=lambda: None, reopen=lambda: None)
    workers, jobs = 2, list(range(40))
    seen: list[int] = []

    def finished(result: Any) -> None:
        # A full collection only when reference counting left a read cell's transcript
        # (a cycle would): each costs a quarter of a second with the suite's heap.
        if any(ref() is not None for ref in transcripts[:result]):
            gc.collect()
        assert all(ref() is None for ref in transcripts[:result])  # read cells: freed
        assert len(transcripts) <= result + 1 + workers * CELLS_AHEAD_PER_WORKER
        seen.append(result)

    target: Any = SimpleNamespace(kind=kind)
    results: list[Any] = run_jobs_parallel(target, jobs, RunOptions(), workers, finished)  # type: ignore[arg-type]
    assert results == jobs
    assert seen == jobs


def test_a_run_planned_from_outlines_holds_no_case_of_a_finished_cell(
    tmp_path: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``run`` plans from case outlines: a cell reads its case back when it runs, and
    once its result is out no case read for it is alive.  A reader that keeps them
    (as a plan of cases did) is seen: the check can fail."""
    from conformance._cases.library import outline_library
    from conformance._cases.loader import CaseOutline
    from conformance._cases.parse_cache import ParseCache
    from conformance._cases.schema import Case
    from conformance._reference.adapter import ReferenceAdapter
    from conformance._runner import plan, run_jobs
    from conformance._targets.resolve import target_from_object

    library = outline_library((), ParseCache(tmp_path / "cache"))
    chosen = [outline for outline in library.cases if outline.id.startswith("a")][:6]
    assert len(chosen) >= 3
    target = target_from_object(ReferenceAdapter())
    jobs = plan(chosen, target)
    assert not any(isinstance(job.held, Case) for job in jobs)  # the plan holds no case
    real = CaseOutline.case

    def alive_after_each(keep: list[Case] | None) -> list[int]:
        read: list[weakref.ref[Case]] = []
        alive: list[int] = []

        def watched(outline: CaseOutline) -> Case:
            case = real(outline)
            read.append(weakref.ref(case))
            if keep is not None:
                keep.append(case)
            return case

        def finished(_result: Any) -> None:
            gc.collect()
            alive.append(sum(ref() is not None for ref in read))

        monkeypatch.setattr(CaseOutline, "case", watched)
        run_jobs(target, jobs, RunOptions(files=library.files), finished, keep=False)
        monkeypatch.setattr(CaseOutline, "case", real)
        return alive

    assert alive_after_each(None) == [0] * len(jobs)
    assert alive_after_each([]) == list(range(1, len(jobs) + 1))


def test_a_plan_of_outlines_runs_as_a_plan_of_cases(tmp_path: Any) -> None:
    """Same cells, order, skips, shards and results (timing aside) either way."""
    from conformance._cases.library import load_library, outline_library
    from conformance._cases.parse_cache import ParseCache
    from conformance._reference.adapter import ReferenceAdapter
    from conformance._runner import plan, plan_digest, run_jobs, shard
    from conformance._targets.resolve import target_from_object

    target = target_from_object(ReferenceAdapter())
    for cache in (ParseCache(None), ParseCache(tmp_path / "cache")):
        outlines = outline_library((), cache)
        loaded = load_library((), cache)
        cases = [item.case for item in loaded.cases]
        assert [o.id for o in outlines.cases] == [c.id for c in cases]
        assert outlines.files == {item.case.id: item.shown for item in loaded.cases}
        by_outline, by_case = plan(outlines.cases, target), plan(cases, target)

        def cells(jobs: list[runner.Job]) -> list[tuple[object, ...]]:
            return [(j.case_id, j.column, j.skip, j.cause, j.missing) for j in jobs]

        assert cells(by_outline) == cells(by_case)
        assert plan_digest(by_outline) == plan_digest(by_case)
        assert cells(shard(by_outline, 2, 3)) == cells(shard(by_case, 2, 3))
        some = by_outline[::40]
        options = RunOptions(files=outlines.files)
        ran = run_jobs(target, some, options)
        again = run_jobs(target, by_case[::40], options)
        untimed = [r.model_copy(update={"seconds": None}) for r in ran]
        assert untimed == [r.model_copy(update={"seconds": None}) for r in again]
        assert [job.loaded().held for job in some] == [job.held for job in by_case[::40]]
