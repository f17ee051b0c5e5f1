"""``run --rounds N``: the flakiness gate.  The same selection runs N times; any verdict,
cause, reason or violation, or any byte of any exchange (request bodies and headers, the
responses served), that differs from round 1 is a difference, and one fails the run.

A wrapper around the runner, not a second one: each round is ``run_jobs_parallel`` with
its exchanges saved (``conformance._exchanges``, deterministic by design) to a scratch
directory, and the rounds' files are compared byte for byte.
"""

from __future__ import annotations

import functools
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
    """How many cells each round ran, and every difference found after round 1 (round
    1's results went to the caller's ``on_result`` as they came: the reports)."""

    cells: int
    differences: list[str]


#: What round 1 said of each cell, by its key: the compared fields (``compared_fields``).
_Said = dict[tuple[str, str], tuple[object, ...]]


def compared_fields(result: Result) -> tuple[object, ...]:
    """What a round keeps of a cell to compare the next rounds with (``_COMPARED``)."""
    return tuple(getattr(result, name) for name in _COMPARED)


def _result_differences(number: int, first: _Said, result: Result) -> list[str]:
    cell = f"{result.case} [{result.wire}]"
    old = first.get(result.key)
    if old is None:
        return [f"round {number}: {cell}: not in round 1"]
    return [
        f"round {number}: {cell}: {name} differs ({_short(before)} != {_short(now)})"
        for name, before, now in zip(_COMPARED, old, compared_fields(result), strict=True)
        if before != now
    ]


def _compared(found: list[str], number: int, first: _Said, result: Result) -> None:
    """Round ``number``'s ``result`` against round 1, its differences added to ``found``."""
    found.extend(_result_differences(number, first, result))


def _short(value: object) -> str:
    text = str(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _names(root: Path) -> set[str]:
    if not root.is_dir():
        return set()
    return {p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file()}


def _byte_differences(number: int, first: Path, again: Path) -> list[str]:
    """The files of two rounds' saved exchanges compared one pair at a time, read from
    disk (a round of a large library saves a file per cell: none is held longer)."""
    found: list[str] = []
    before, after = _names(first), _names(again)
    for name in sorted(before | after):
        if name not in after:
            found.append(f"round {number}: exchanges of {name} missing")
        elif name not in before:
            found.append(f"round {number}: exchanges of {name} not in round 1")
        elif (first / name).read_bytes() != (again / name).read_bytes():
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
    through ``on_result`` and fills the user's ``--save-exchanges`` directory.  No round
    keeps its results: round 1's compared fields are kept per cell, later rounds are
    compared as their cells finish, and the exchanges are compared file by file."""
    differences: list[str] = []
    first: _Said = {}

    def said(result: Result) -> None:
        first[result.key] = compared_fields(result)
        if on_result is not None:
            on_result(result)

    with tempfile.TemporaryDirectory(prefix="wire-conformance-rounds-") as scratch:
        first_dir = Path(scratch) / "round-1"
        first_options = replace(options, save_exchanges=first_dir)
        run_jobs_parallel(target, jobs, first_options, workers, said, keep=False)
        if options.save_exchanges is not None:
            shutil.copytree(first_dir, options.save_exchanges, dirs_exist_ok=True)
        for number in range(2, rounds + 1):
            again_dir = Path(scratch) / f"round-{number}"
            again_options = replace(options, save_exchanges=again_dir, snapshots=None)
            compared = functools.partial(_compared, differences, number, first)
            run_jobs_parallel(target, jobs, again_options, workers, compared, keep=False)
            differences.extend(_byte_differences(number, first_dir, again_dir))
            shutil.rmtree(again_dir, ignore_errors=True)
    return Rounds(len(first), differences)
