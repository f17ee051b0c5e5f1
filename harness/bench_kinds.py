"""Benchmarks of the target kinds: the cost of one cell per kind, and a full-library
command run at ``-j 1`` and ``-j N``, side by side (figures, never assertions).

    python -m harness.bench --kinds [--jobs N]
"""

from __future__ import annotations

import time
from collections.abc import Sequence

from conformance._cases.library import case_dirs, vocabulary
from conformance._cases.loader import load_dirs
from conformance._cases.parse_cache import ParseCache
from conformance._reference.adapter import ReferenceAdapter
from conformance._runner import Job, RunOptions, plan, run_jobs, run_jobs_parallel
from conformance._targets.resolve import ResolvedTarget, resolve_target, target_from_object
from harness.clients.reference_client import ReferenceOverHttpx, ReferenceOverLoopback

#: Cells timed per in-process kind (a command cell is timed on fewer: it is a process).
SAMPLE = 40
COMMAND_SAMPLE = 8


def _jobs(target: ResolvedTarget) -> list[Job]:
    cases = [c.case for c in load_dirs(case_dirs(), vocabulary(), ParseCache(None)).cases]
    return [j for j in plan(cases, target) if j.skip is None]


def _per_cell(target: ResolvedTarget, jobs: Sequence[Job]) -> float:
    """Milliseconds per cell over ``jobs``, run one at a time (after one cell, which
    starts a session target's process: the figure is a cell's, not a start's)."""
    run_jobs(target, jobs[:1], RunOptions(timeout=60))
    started = time.perf_counter()
    run_jobs(target, jobs, RunOptions(timeout=60))
    return 1000 * (time.perf_counter() - started) / len(jobs)


def bench_kinds(workers: int) -> None:
    command = resolve_target("reference-command")
    jobs = _jobs(command)  # every cell: the command declares every capability
    kinds = {
        "adapter (in-process)": (target_from_object(ReferenceAdapter()), SAMPLE),
        "client over respx": (target_from_object(ReferenceOverHttpx()), SAMPLE),
        "client over loopback": (target_from_object(ReferenceOverLoopback()), SAMPLE),
        "command as a session (reference-command)": (command, COMMAND_SAMPLE),
        "command once per cell (reference-command-process)": (
            resolve_target("reference-command-process"),
            COMMAND_SAMPLE,
        ),
    }
    for label, (target, count) in kinds.items():
        sample = [j for j in _jobs(target)][:count]
        print(f"one cell, {label}: {_per_cell(target, sample):.1f} ms ({len(sample)} cells)")
    timings = []
    for n in (1, workers):
        started = time.perf_counter()
        results = run_jobs_parallel(command, jobs, RunOptions(timeout=60), n)
        timings.append((n, time.perf_counter() - started, results))
    figures = "; ".join(f"-j {n}: {seconds:.1f} s" for n, seconds, _ in timings)
    same = [r.verdict for r in timings[0][2]] == [r.verdict for r in timings[-1][2]]
    print(
        f"full library as a command ({len(jobs)} cells): {figures}; "
        f"same verdicts in the same order: {same}"
    )
