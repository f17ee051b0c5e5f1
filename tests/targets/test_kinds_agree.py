"""One conversation code, every target kind: the reference adapter held in-process, as a
client over httpx / httpx2 (respx) and loopback, and as a command, reaches the same
verdict on every cell each kind can run; as a command with the shipped manifest it runs
every cell of every wire."""

from __future__ import annotations

import sys
from collections.abc import Mapping

import pytest

from conformance._reference.adapter import ReferenceAdapter
from conformance._runner import Job, RunOptions, plan, run_jobs_parallel
from conformance._targets.resolve import resolve_target
from conformance.verdict import Result
from harness.clients.reference_client import (
    ReferenceOverHttpx,
    ReferenceOverHttpx2,
    ReferenceOverLoopback,
)
from tests.support import library, run_library

#: The module's tests share the in-process run (a module fixture) on one worker; with
#: ``--dist loadgroup`` a group of tests is dealt before single tests, so the longest
#: test of the suite (every cell as a command) starts first instead of ending last.
pytestmark = pytest.mark.xdist_group("kinds-agree")

AGENT = "conformance.agent conformance._reference.adapter:ReferenceAdapter"
COMMAND = f"cmd:{sys.executable} -m {AGENT}"


def verdicts(results: Mapping[tuple[str, str], Result]) -> dict[tuple[str, str], str]:
    return {k: r.verdict for k, r in results.items() if r.verdict != "n/a"}


@pytest.fixture(scope="module")
def in_process() -> dict[tuple[str, str], str]:
    return verdicts(run_library(ReferenceAdapter(), strict=True))


@pytest.mark.parametrize(
    "client",
    [
        ReferenceOverHttpx,
        ReferenceOverHttpx2,
        pytest.param(ReferenceOverLoopback, marks=pytest.mark.slow),
    ],
)
def test_client_kind_agrees(client: type, in_process: dict[tuple[str, str], str]) -> None:
    got = verdicts(run_library(client(), strict=True))
    assert got
    assert got == {k: v for k, v in in_process.items() if k in got}


#: Cells of the command run at once: each is its own process group and loopback port.
WORKERS = 4


@pytest.fixture(scope="module")
def session_run() -> tuple[list[Job], list[Result]]:
    """``--target reference-command`` on the whole library: its plan and its results (one
    run, read by the whole-library test and by the per-process slice's comparison)."""
    target = resolve_target("reference-command")
    jobs = plan((c.case for c in library().cases), target)
    return jobs, run_jobs_parallel(target, jobs, RunOptions(strict=True, timeout=60), WORKERS)


@pytest.mark.slow
def test_the_reference_as_a_command_agrees_on_every_cell(
    in_process: dict[tuple[str, str], str], session_run: tuple[list[Job], list[Result]]
) -> None:
    """``--target reference-command`` (the shipped manifest, every capability, contract
    v2, a session: one process per worker) runs every cell of every wire and reaches the
    in-process verdict on each."""
    jobs, results = session_run
    assert all(job.skip is None for job in jobs)  # every capability, every wire
    assert [r.key for r in results] == [(j.case.id, j.column) for j in jobs]  # job order
    got = verdicts({r.key: r for r in results})
    assert got == in_process


#: One cell in this many of the library runs once per cell (a process each, about a
#: second apiece); the session above runs them all.
PROCESS_SLICE = 12


@pytest.mark.slow
def test_the_reference_command_run_once_per_cell_agrees_with_the_session(
    in_process: dict[tuple[str, str], str], session_run: tuple[list[Job], list[Result]]
) -> None:
    """``--target reference-command-process`` (the same command, no session) reaches the
    in-process verdict, so the session's verdicts on a representative slice: every
    ``PROCESS_SLICE``-th cell, across every wire (the whole library was compared by hand
    when session mode came, issue 26).  The session's side is its whole-library run."""
    process = resolve_target("reference-command-process")
    jobs = plan((c.case for c in library().cases), process)
    sample = jobs[::PROCESS_SLICE]
    assert {j.wire for j in sample} == {j.wire for j in jobs}
    options = RunOptions(strict=True, timeout=60)
    once = verdicts({r.key: r for r in run_jobs_parallel(process, sample, options, WORKERS)})
    sessions = verdicts({r.key: r for r in session_run[1]})
    held = {key: sessions[key] for key in once}
    assert once == held == {k: v for k, v in in_process.items() if k in once}
    assert len(once) == len(sample)


@pytest.mark.slow
def test_a_plain_command_runs_the_cells_it_needs_no_capability_for(
    in_process: dict[tuple[str, str], str],
) -> None:
    """A ``cmd:`` target (contract v1, no declarations) is ``n/a`` where a case needs a
    capability, and agrees elsewhere (sampled: the manifest run above covers all)."""
    target = resolve_target(COMMAND)
    jobs = plan((c.case for c in library().cases), target)
    runnable = [j for j in jobs if j.skip is None]
    assert any(j.skip for j in jobs)
    sample = runnable[:: max(1, len(runnable) // 12)]
    results = run_jobs_parallel(target, sample, RunOptions(strict=True, timeout=60), WORKERS)
    got = verdicts({r.key: r for r in results})
    assert got
    assert got == {k: v for k, v in in_process.items() if k in got}
