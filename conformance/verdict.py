"""Violations, verdicts and per-run results: the vocabulary of every report."""

from __future__ import annotations

from typing import Literal, TypeAlias

from pydantic import BaseModel, ConfigDict

Verdict: TypeAlias = Literal["pass", "fail", "pinned", "xfail", "n/a", "error"]
VERDICTS: tuple[Verdict, ...] = ("pass", "fail", "pinned", "xfail", "n/a", "error")
#: ``must``: the provider rejects the request, or data is lost; a violation fails the run.
#: ``should``: accepted by the provider but costly (prompt-cache misses, degraded
#: reasoning); a warning unless the run is strict.
Severity: TypeAlias = Literal["must", "should"]
SnapshotState: TypeAlias = Literal["match", "changed", "new"]


class Violation(BaseModel):
    """One thing a run got wrong.

    ``check`` is a stable id (``expect``, ``invariant/<slug>``, ``<wire>/<slug>``,
    ``provider/<slug>``); ``severity`` ``must`` fails the run, ``should`` is a warning
    unless the run is strict; ``request`` is the 1-based request it is about.
    """

    model_config = ConfigDict(frozen=True)

    check: str
    message: str
    severity: Severity = "must"
    request: int | None = None
    at: str | None = None


class Result(BaseModel):
    """The verdict of one case on one wire, and why."""

    model_config = ConfigDict(frozen=True)

    case: str
    wire: str
    dialect: str | None = None
    verdict: Verdict
    features: tuple[str, ...] = ()
    violations: tuple[Violation, ...] = ()
    warnings: tuple[Violation, ...] = ()
    reason: str | None = None
    requests: int = 0
    snapshot: SnapshotState | None = None
    stdout_tail: str | None = None
    stderr_tail: str | None = None

    @property
    def key(self) -> tuple[str, str]:
        return (self.case, self.wire)
