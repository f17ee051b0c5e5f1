"""The report of a run: versioned, documented in docs/report.md, deterministic.

The same inputs give the same bytes: results are sorted by case and wire, and nothing
in the report depends on time or on the machine.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

from pydantic import BaseModel, ConfigDict

from conformance.cases.load_error import LoadError
from conformance.report.machine_paths import unmachined
from conformance.verdict import (
    DEFAULT_EVIDENCE_THRESHOLD,
    VERDICTS,
    EvidenceThreshold,
    Result,
)
from conformance.version import __version__

#: Bumped on any incompatible change to the JSON shape (2: evidence on every violation,
#: and the run's evidence threshold).
REPORT_VERSION = 2


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
    load_errors: tuple[LoadError, ...] = ()
    #: Snapshot files no cell of the plan owns (``--snapshots``, whole runs); only in
    #: the JSON when there are some.
    unused_snapshots: tuple[str, ...] = ()
    #: Why the run did not finish (a signal ended it), when it did not: the report then
    #: holds only the cells that finished, and no reader may take it for a whole run.
    #: Only in the JSON when set.
    incomplete: str | None = None

    @property
    def ok(self) -> bool:
        """No fail, no error, every case file loaded, and the run finished."""
        failed = self.summary["fail"] or self.summary["error"]
        return not self.load_errors and not failed and self.incomplete is None


def summarize(results: Iterable[Result]) -> dict[str, int]:
    """The count of every verdict, zero included, in the canonical verdict order."""
    counts = Counter(r.verdict for r in results)
    return {verdict: counts.get(verdict, 0) for verdict in VERDICTS}


def _unmachined(result: Result) -> Result:
    fields = ("reason", "stdout_tail", "stderr_tail")
    update = {name: unmachined(getattr(result, name)) for name in fields}
    return result.model_copy(update=update)


def build_report(
    target: str,
    target_kind: str,
    results: Iterable[Result],
    strict: bool = False,
    load_errors: Iterable[LoadError] = (),
    evidence: EvidenceThreshold = DEFAULT_EVIDENCE_THRESHOLD,
) -> Report:
    ordered = tuple(_unmachined(r) for r in sorted(results, key=lambda r: r.key))
    return Report(
        target=target,
        target_kind=target_kind,
        strict=strict,
        evidence=evidence,
        results=ordered,
        summary=summarize(ordered),
        load_errors=tuple(e.model_copy(update={"file": unmachined(e.file)}) for e in load_errors),
    )


def summary_line(report: Report) -> str:
    """The count of every verdict that occurred, and a warning when the target is the
    bundled reference: a forgotten ``--target`` never looks like the user's green run."""
    line = ", ".join(f"{n} {verdict}" for verdict, n in report.summary.items() if n)
    line = line or "no cases ran"
    drifts = [r.snapshot for r in report.results if r.snapshot in ("changed", "new")]
    if drifts:
        changed, new = drifts.count("changed"), drifts.count("new")
        line += f" · snapshots: {changed} changed, {new} new"
    if report.bundled_target:
        line += " · target: the bundled reference adapter, not your code (use --target)"
    return line


def to_json(report: Report) -> str:
    unset = set() if report.unused_snapshots else {"unused_snapshots"}
    if report.incomplete is None:
        unset.add("incomplete")
    return report.model_dump_json(indent=2, exclude=unset) + "\n"
