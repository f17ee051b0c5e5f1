"""One conversation code, every target kind: the reference adapter held in-process, as a
client over httpx / httpx2 (respx) and loopback, and as a command, reaches the same
verdict on every cell each kind can run (capabilities aside)."""

from __future__ import annotations

import sys
from collections.abc import Mapping

import pytest

from conformance.reference.adapter import ReferenceAdapter
from conformance.runner import RunOptions, plan, run_jobs
from conformance.targets.resolve import resolve_target
from conformance.verdict import Result
from harness.clients.reference_client import (
    ReferenceOverHttpx,
    ReferenceOverHttpx2,
    ReferenceOverLoopback,
)
from tests.support import library, run_library

AGENT = "conformance.agent conformance.reference.adapter:ReferenceAdapter"
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


@pytest.mark.slow
def test_command_kind_agrees(in_process: dict[tuple[str, str], str]) -> None:
    """Every Anthropic cell, and the first cells of every other column (a command costs
    a process start per cell, so the other columns are sampled, not exhausted)."""
    target = resolve_target(COMMAND)
    jobs = plan((c.case for c in library().cases), target)
    taken: dict[str, int] = {}
    sample = []
    for job in jobs:
        if job.column == "anthropic-messages" or taken.get(job.column, 0) < 4:
            taken[job.column] = taken.get(job.column, 0) + 1
            sample.append(job)
    got = verdicts(
        {r.key: r for r in run_jobs(target, sample, RunOptions(strict=True, timeout=30))}
    )
    assert set(taken) == {j.column for j in jobs}
    assert len(got) >= 40  # the cells a command (no capabilities) can run
    assert got == {k: v for k, v in in_process.items() if k in got}
