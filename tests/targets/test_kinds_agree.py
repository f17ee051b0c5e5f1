"""One conversation code, every target kind: the reference adapter held in-process, as a
client over httpx / httpx2 (respx) and loopback, and as a command, reaches the same
verdict on every cell each kind can run; as a command with the shipped manifest it runs
every cell of every wire."""

from __future__ import annotations

import sys
from collections.abc import Mapping
from dataclasses import replace

import pytest

from conformance._runner import Job, RunOptions, plan, run_jobs_parallel
from conformance._targets.resolve import resolve_target
from conformance.verdict import Result
from harness.clients.reference_client import (
    ReferenceOverHttpx,
    ReferenceOverHttpx2,
    ReferenceOverLoopback,
)
from tests.support import library, reference_run, run_library

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
    return verdicts(reference_run(strict=True))


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


def contract_traits(job: Job) -> set[tuple[str, str]]:
    """What a cell asks of the command contract beyond the conversation code, which is
    the same in every mode: its column (the variables that point the wire's SDKs at the
    provider, the dialect), each capability it needs (a saved history to load, an output
    file to write, options in the case document), and the saved history per wire (each
    wire parses its own)."""
    traits = {("column", job.column)} | {("needs", need) for need in job.case.needs}
    if job.case.given.history:
        traits.add(("history", job.wire))
    return traits


def one_cell_per_trait(jobs: list[Job]) -> list[Job]:
    """The first cell, in plan order, to show each trait some cell of ``jobs`` has."""
    sample: list[Job] = []
    shown: set[tuple[str, str]] = set()
    for job in jobs:
        if not contract_traits(job) <= shown:
            sample.append(job)
            shown |= contract_traits(job)
    return sample


def test_the_sample_shows_every_trait_once_in_plan_order() -> None:
    jobs = plan((c.case for c in library().cases), resolve_target("reference-command"))
    sample = one_cell_per_trait(jobs)
    assert set().union(*map(contract_traits, sample)) == set().union(*map(contract_traits, jobs))
    assert [j for j in jobs if j in sample] == sample
    history = next(j for j in jobs if j.case.given.history)
    given = history.case.given.model_copy(update={"history": ()})
    plain = replace(history, held=history.case.model_copy(update={"given": given}))
    assert one_cell_per_trait([plain, history]) == [plain, history]
    assert one_cell_per_trait([history, plain]) == [history]


@pytest.mark.slow
def test_the_reference_command_run_once_per_cell_agrees_with_the_session(
    in_process: dict[tuple[str, str], str], session_run: tuple[list[Job], list[Result]]
) -> None:
    """``--target reference-command-process`` (the same command, no session) reaches the
    in-process verdict, so the session's verdicts, on one cell per trait of the contract
    (``contract_traits``: every column, every capability, a saved history on every wire),
    about one cell in twenty; a process each, about a second apiece.  The session's side
    is its whole-library run (the whole library was compared by hand when session mode
    came, issue 26)."""
    process = resolve_target("reference-command-process")
    jobs = plan((c.case for c in library().cases), process)
    sample = one_cell_per_trait(jobs)
    assert {j.column for j in sample} == {j.column for j in jobs}
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
    capability, and agrees elsewhere (sampled: one cell per column, the only trait of the
    contract its runnable cells differ in; the manifest run above covers all)."""
    target = resolve_target(COMMAND)
    jobs = plan((c.case for c in library().cases), target)
    runnable = [j for j in jobs if j.skip is None]
    assert any(j.skip for j in jobs)
    sample = one_cell_per_trait(runnable)
    assert {j.column for j in sample} == {j.column for j in jobs}
    assert all(contract_traits(j) == {("column", j.column)} for j in sample)
    results = run_jobs_parallel(target, sample, RunOptions(strict=True, timeout=60), WORKERS)
    got = verdicts({r.key: r for r in results})
    assert got
    assert got == {k: v for k, v in in_process.items() if k in got}
