"""``run --rounds N``: the flakiness gate.  The same selection runs N times; any verdict,
cause, reason or violation, or any byte of any exchange (request bodies and headers, the
responses served), that differs from round 1 is a difference, and one fails the run.

A wrapper around the runner, not a second one: each round is ``run_jobs_parallel`` with
its exchanges saved (``conformance._exchanges``, deterministic by design) to a scratch
directory, and the rounds' files are compared byte for byte.
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from conformance._runner import Job, RunOptions, run_jobs_parallel
from conformance._targets.resolve import ResolvedTarget
from conformance.verdict import Result

#: The fields of a result that must not change between rounds (the cause is compared
#: as data: a crash in one round and a timeout in the next differ even where a reason's
#: words would not say so).
_COMPARED = ("verdict", "cause", "reason", "violations", "warnings", "requests")


@dataclass(frozen=True)
class Rounds:
    """Round 1's results (what the reports show) and every difference found later."""

    results: list[Result]
    differences: list[str]


def _files(root: Path) -> dict[str, bytes]:
    if not root.is_dir():
        return {}
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in root.rglob("*") if p.is_file()}


def _result_differences(number: int, first: Sequence[Result], again: Sequence[Result]) -> list[str]:
    found: list[str] = []
    before = {r.key: r for r in first}
    for result in again:
        old = before.get(result.key)
        cell = f"{result.case} [{result.wire}]"
        if old is None:
            found.append(f"round {number}: {cell}: not in round 1")
            continue
        for name in _COMPARED:
            if getattr(old, name) != getattr(result, name):
                found.append(
                    f"round {number}: {cell}: {name} differs "
                    f"({_short(getattr(old, name))} != {_short(getattr(result, name))})"
                )
    return found


def _short(value: object) -> str:
    text = str(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _byte_differences(number: int, first: dict[str, bytes], again: dict[str, bytes]) -> list[str]:
    found: list[str] = []
    for name in sorted(set(first) | set(again)):
        if name not in again:
            found.append(f"round {number}: exchanges of {name} missing")
        elif name not in first:
            found.append(f"round {number}: exchanges of {name} not in round 1")
        elif first[name] != again[name]:
            found.append(f"round {number}: exchanged bytes differ in {name}")
    return found


def run_rounds(
    target: ResolvedTarget,
    jobs: Sequence[Job],
    options: RunOptions,
    workers: int,
    rounds: int,
    on_result: Callable[[Result], None] | None = None,
) -> Rounds:
    """Run ``jobs`` ``rounds`` times; round 1 alone compares snapshots, reports results
    through ``on_result`` and fills the user's ``--save-exchanges`` directory."""
    differences: list[str] = []
    with tempfile.TemporaryDirectory(prefix="wire-conformance-rounds-") as scratch:
        first_dir = Path(scratch) / "round-1"
        first = run_jobs_parallel(
            target, jobs, replace(options, save_exchanges=first_dir), workers, on_result
        )
        first_files = _files(first_dir)
        if options.save_exchanges is not None:
            shutil.copytree(first_dir, options.save_exchanges, dirs_exist_ok=True)
        for number in range(2, rounds + 1):
            again_dir = Path(scratch) / f"round-{number}"
            again_options = replace(options, save_exchanges=again_dir, snapshots=None)
            again = run_jobs_parallel(target, jobs, again_options, workers)
            differences += _result_differences(number, first, again)
            differences += _byte_differences(number, first_files, _files(again_dir))
    return Rounds(first, differences)
