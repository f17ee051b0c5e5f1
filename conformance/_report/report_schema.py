"""The report of a run: versioned, documented in docs/report.md, deterministic.

The same inputs give the same bytes, but for the timing fields (``TIMING_FIELDS``):
results are sorted by case and wire, and nothing else in the report depends on time or
on the machine.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

from pydantic import BaseModel, ConfigDict

from conformance._cases.load_problem import LoadProblem
from conformance._report.machine_paths import unmachined
from conformance.verdict import (
    DEFAULT_EVIDENCE_THRESHOLD,
    VERDICTS,
    EvidenceThreshold,
    Result,
)
from conformance.version import __version__

#: Bumped on any incompatible change to the JSON shape (2: evidence on every violation,
#: and the run's evidence threshold; 3: every result's ``cause``).  A report of version
#: 2 still reads: its results have no cause (``None``), since it was never written and
#: is not guessed back from the reason's words.
REPORT_VERSION = 3


class Shard(BaseModel):
    """Which part of a run a report holds (``run --shard K/N``): ``report merge`` joins
    the ``count`` shards of one plan, and refuses any other set."""

    model_config = ConfigDict(frozen=True)

    index: int
    count: int
    #: The digest of the whole plan's cells and the settings that change results
    #: (``_runner.plan_digest``): equal in every shard of one run.
    plan: str
    #: The cells of the whole plan, in every shard.
    cells: int


class Report(BaseModel):
    model_config = ConfigDict(frozen=True)

    report_version: int = REPORT_VERSION
    suite_version: str = __version__
    target: str
    target_kind: str
    #: The run's target is the reference adapter bundled with the suite (the default
    #: target), not the user's code.
    bundled_target: bool = False
    strict: bool = False
    evidence: EvidenceThreshold = DEFAULT_EVIDENCE_THRESHOLD
    results: tuple[Result, ...]
    summary: dict[str, int]
    load_errors: tuple[LoadProblem, ...] = ()
    #: Snapshot files no cell of the plan owns (``--snapshots``, whole runs); only in
    #: the JSON when there are some.
    unused_snapshots: tuple[str, ...] = ()
    #: Why the run did not finish (a signal ended it), when it did not: the report then
    #: holds only the cells that finished, and no reader may take it for a whole run.
    #: Only in the JSON when set.
    incomplete: str | None = None
    #: The part of a sharded run this report holds; only in the JSON of a shard (a
    #: merged report is a whole run again, byte for byte).
    shard: Shard | None = None

    @property
    def ok(self) -> bool:
        """No fail, no error, every case file loaded, and the run finished."""
        failed = self.summary["fail"] or self.summary["error"]
        return not self.load_errors and not failed and self.incomplete is None


def summarize(results: Iterable[Result]) -> dict[str, int]:
    """The count of every verdict, zero included, in the canonical verdict order."""
    return tally(results).summary


def unmachined_result(result: Result) -> Result:
    """``result`` with no machine path in its texts; the very object when it has none,
    so a report of many cells does not hold a second copy of every result."""
    fields = ("reason", "stdout_tail", "stderr_tail")
    update = {name: unmachined(getattr(result, name)) for name in fields}
    if all(update[name] == getattr(result, name) for name in fields):
        return result
    return result.model_copy(update=update)


def build_report(
    target: str,
    target_kind: str,
    results: Iterable[Result],
    strict: bool = False,
    load_errors: Iterable[LoadProblem] = (),
    evidence: EvidenceThreshold = DEFAULT_EVIDENCE_THRESHOLD,
) -> Report:
    ordered = tuple(unmachined_result(r) for r in sorted(results, key=lambda r: r.key))
    return Report(
        target=target,
        target_kind=target_kind,
        strict=strict,
        evidence=evidence,
        results=ordered,
        summary=summarize(ordered),
        load_errors=tuple(e.model_copy(update={"file": unmachined(e.file)}) for e in load_errors),
    )


def of_undeclared_wire(result: Result) -> bool:
    """A cell of a wire the target does not declare: the JSON keeps it, the other
    reports count such cells in one line (as pytest, which does not collect them)."""
    return result.not_applicable == "undeclared-wire"


def listed(report: Report) -> list[Result]:
    """The cells the matrix, the list and the Markdown table show: all but those of
    wires the target does not declare."""
    return [r for r in report.results if not of_undeclared_wire(r)]


def undeclared_note(count: int, target: str, columns: Iterable[str]) -> str:
    """``N cells of wires T does not declare (w, …)``: the one line both faces print
    for them (the command line adds "not run", pytest "were not collected")."""
    noun = "cell" if count == 1 else "cells"
    return f"{count} {noun} of wires {target} does not declare ({', '.join(sorted(columns))})"


def capability_line(report: Report) -> str | None:
    """The ``n/a`` cells of capabilities the target does not declare, counted by
    capability: apart from the undeclared wires, since the fix differs."""
    needy = [r for r in report.results if r.not_applicable == "missing-capability"]
    if not needy:
        return None
    counts = Counter(c for r in needy for c in r.missing)
    each = ", ".join(f"{name} ({n})" for name, n in sorted(counts.items()))
    noun = "cell needs" if len(needy) == 1 else "cells need"
    return (
        f"n/a: {len(needy)} {noun} a capability the target does not declare: {each} "
        "(each reason says where to declare it)"
    )


@dataclass
class Tally:
    """What a run's summary says, counted a cell at a time: a run streamed to its reports
    keeps these numbers, not its cells."""

    #: Every cell's verdict, counted (the report's ``summary``).
    verdicts: Counter[str] = field(default_factory=Counter)
    #: The verdicts of the cells the matrix lists (all but those of undeclared wires).
    listed: Counter[str] = field(default_factory=Counter)
    undeclared: int = 0
    undeclared_columns: set[str] = field(default_factory=set)
    #: Cells whose snapshot changed, and cells with no snapshot yet.
    changed: int = 0
    new: int = 0

    def add(self, result: Result) -> None:
        self.verdicts[result.verdict] += 1
        if of_undeclared_wire(result):
            self.undeclared += 1
            self.undeclared_columns.add(result.wire)
        else:
            self.listed[result.verdict] += 1
        if result.snapshot == "changed":
            self.changed += 1
        elif result.snapshot == "new":
            self.new += 1

    @property
    def summary(self) -> dict[str, int]:
        """The count of every verdict, as ``summarize`` gives it."""
        return {verdict: self.verdicts.get(verdict, 0) for verdict in VERDICTS}


def tally(results: Iterable[Result]) -> Tally:
    counted = Tally()
    for result in results:
        counted.add(result)
    return counted


def summary_line(report: Report, counted: Tally | None = None) -> str:
    """The count of every verdict that occurred, the cells of undeclared wires apart,
    and a warning when the target is the bundled reference: a forgotten ``--target``
    never looks like the user's green run.  ``counted``: the report's cells as counted
    while they were written (a streamed report holds none)."""
    counted = counted if counted is not None else tally(report.results)
    line = ", ".join(
        f"{n} {verdict}" for verdict in VERDICTS if (n := counted.listed.get(verdict, 0))
    )
    line = line or "no cases ran"
    if counted.undeclared:
        note = undeclared_note(counted.undeclared, report.target, counted.undeclared_columns)
        line += f" · {note} not run"
    if counted.changed or counted.new:
        line += f" · snapshots: {counted.changed} changed, {counted.new} new"
    if report.bundled_target:
        line += " · target: the bundled reference adapter, not your code (use --target)"
    return line


#: The fields of a result that are timings: they vary run to run, and no comparison of
#: two reports reads them.
TIMING_FIELDS = ("seconds",)


def untimed(report_json: str) -> str:
    """A JSON report with its timing fields emptied: what a byte-identity comparison of
    two runs compares (the same inputs give the same bytes, timings aside)."""
    data = json.loads(report_json)
    for result in data.get("results", []):
        for name in TIMING_FIELDS:
            if name in result:
                result[name] = None
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def to_json(report: Report) -> str:
    """The JSON document of a whole report (``spool`` writes the same bytes a cell at a
    time)."""
    unset = set() if report.unused_snapshots else {"unused_snapshots"}
    if report.incomplete is None:
        unset.add("incomplete")
    if report.shard is None:
        unset.add("shard")
    return report.model_dump_json(indent=2, exclude=unset) + "\n"


#: How a report's results sit in its JSON: each result's lines indented twice.
_RESULT_INDENT = "    "
_NO_RESULTS = '\n  "results": [],\n'


def result_json(result: Result) -> str:
    """One result as it sits in a JSON report's ``results``: what ``json_document``
    joins."""
    text = result.model_dump_json(indent=2)
    return "\n".join(_RESULT_INDENT + line for line in text.split("\n"))


def json_document(header: Report, results: Iterable[str]) -> Iterator[str]:
    """The JSON document of ``header`` (a report whose ``results`` are empty) with the
    ``results`` given one at a time (``result_json``, in report order): the bytes
    ``to_json`` writes for the whole report."""
    before, after = to_json(header).split(_NO_RESULTS)
    yield before
    written = False
    for n, result in enumerate(results):
        yield ('\n  "results": [\n' if n == 0 else ",\n") + result
        written = True
    yield "\n  ],\n" if written else _NO_RESULTS
    yield after
