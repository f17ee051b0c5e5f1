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
