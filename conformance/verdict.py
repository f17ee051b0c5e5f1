"""Violations, verdicts and per-run results: the vocabulary of every report."""

from __future__ import annotations

import argparse
import math
from dataclasses import dataclass
from enum import StrEnum
from typing import Literal, TypeAlias

from pydantic import BaseModel, ConfigDict, Field, InstanceOf

Verdict: TypeAlias = Literal["pass", "fail", "pinned", "xfail", "n/a", "error"]
VERDICTS: tuple[Verdict, ...] = ("pass", "fail", "pinned", "xfail", "n/a", "error")
#: ``must``: the provider rejects the request, or data is lost; a violation fails the run.
#: ``should``: accepted by the provider but costly (prompt-cache misses, degraded
#: reasoning); a warning unless the run is strict.
Severity: TypeAlias = Literal["must", "should"]
SnapshotState: TypeAlias = Literal["match", "changed", "new"]
#: Why a cell is ``n/a``, as data (reports group and count by it, never by reading the
#: ``reason`` sentence): ``undeclared-wire`` — the target does not declare the cell's
#: wire or dialect; ``missing-capability`` — the case needs capabilities the target does
#: not declare (``Result.missing`` names them); ``declined`` — the target said, when
#: run, that it does not speak the wire (a command's exit 90).
NotApplicable: TypeAlias = Literal["undeclared-wire", "missing-capability", "declined"]
#: What a rule, check or expectation rests on: ``documented`` (the provider's own
#: documentation), ``observed`` (real error texts, public reports), ``inferred`` (derived
#: from those, never seen as such), ``design`` (asserted only by a design document).
Evidence: TypeAlias = Literal["documented", "observed", "inferred", "design"]
EVIDENCE: tuple[Evidence, ...] = ("documented", "observed", "inferred", "design")
#: The weakest evidence that may fail a run: ``any`` lets every level count.
EvidenceThreshold: TypeAlias = Literal["documented", "observed", "any"]
EVIDENCE_THRESHOLDS: tuple[EvidenceThreshold, ...] = ("documented", "observed", "any")
DEFAULT_EVIDENCE_THRESHOLD: EvidenceThreshold = "observed"
#: Seconds one cell may take before its verdict is ``error``: a heavy library takes 8-20 s
#: per cell on a busy machine, so the default leaves it room.
DEFAULT_TIMEOUT = 60.0
#: The longest a cell may be given: a day.
MAX_TIMEOUT = 86_400.0


def timeout_seconds(text: str) -> float:
    """A ``--timeout`` (every command, the pytest plugin): a finite number of seconds
    above 0 and at most a day; anything else is a usage error naming the value."""
    try:
        seconds = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
    if not (0 < seconds <= MAX_TIMEOUT) or math.isnan(seconds):
        raise argparse.ArgumentTypeError(
            f"{text!r}: give seconds above 0 and at most {MAX_TIMEOUT:g} (a day)"
        )
    return seconds


_STRENGTH: dict[str, int] = {"documented": 3, "observed": 2, "inferred": 1, "design": 0, "any": 0}


def meets(evidence: Evidence, threshold: EvidenceThreshold) -> bool:
    """Whether a violation resting on ``evidence`` may fail a run at ``threshold``."""
    return _STRENGTH[evidence] >= _STRENGTH[threshold]


def weakest(*levels: Evidence) -> Evidence:
    """The weakest of ``levels``: what a claim resting on all of them can stand on."""
    return min(levels, key=lambda level: _STRENGTH[level])


def strongest(*levels: Evidence) -> Evidence:
    """The strongest of ``levels``: what a claim holding on any of them can stand on."""
    return max(levels, key=lambda level: _STRENGTH[level])


@dataclass(frozen=True)
class Rule:
    """One check of the suite: a provider's or a wire's request rule, an invariant, the
    case's expectations.  Its data lives in the catalogue only
    (``conformance/catalogue/checks.yaml``, keyed by ``id``); a module that judges it
    holds a handle looked up by id (``conformance.catalogue.book``) and its predicate.

    ``id`` is stable (``<wire>/<slug>``, ``invariant/<slug>``, ``provider/<slug>``):
    reports, snapshots and ``wire-conformance checks`` cite it.  ``ref`` is the catalogue
    rule a provider or wire rule encodes (``docs/rules.md``).  ``error`` is the
    provider's real error text with ``{placeholders}`` its predicate fills in, answered
    with ``status`` and ``error_type`` (and, on OpenAI Responses, ``code`` and ``param``;
    ``param`` ``"{at}"`` is the violation's location).  ``severity`` and ``evidence`` are
    the defaults of its violations: a provider rejects what breaks a rule, so every
    provider rule is a ``must``, and most rest on an error text seen in public reports.
    """

    id: str
    statement: str
    source: str
    ref: str | None = None
    error: str = ""
    status: int = 400
    error_type: str = "invalid_request_error"
    code: str | None = None
    param: str | None = "{at}"
    severity: Severity = "must"
    evidence: Evidence = "observed"
    #: The provider answers this error to a request it cannot serve in that form, and a
    #: correct client answers it by falling back (Anthropic's
    #: ``thread_unsupported_request``: send the whole conversation without ``thread``):
    #: played like any rejection, but no verdict on the client.
    fallback: bool = False

    def violated(
        self, at: str | None = None, /, *, evidence: Evidence | None = None, **fields: object
    ) -> Violation:
        """This rule broken at ``at``, its error text filled in with ``fields``;
        ``evidence``: what this violation rests on, when weaker than the rule's."""
        return self.violation(self.error.format(**fields), at=at, evidence=evidence)

    def violation(
        self,
        message: str,
        *,
        request: int | None = None,
        at: str | None = None,
        severity: Severity | None = None,
        evidence: Evidence | None = None,
        why: str | None = None,
        expectation: int | None = None,
    ) -> Violation:
        """A violation of this rule (``severity`` and ``evidence`` override the defaults)."""
        return Violation(
            check=self.id,
            message=message,
            severity=severity or self.severity,
            evidence=evidence or self.evidence,
            request=request,
            at=at,
            why=why,
            expectation=expectation,
            rule=self,
        )


class Cause(StrEnum):
    """Why a cell has its verdict (or its reason), as data: what probes, ``--rounds``,
    the A/B tables and the renderers switch on, never the ``reason`` sentence, which is
    for people and may be reworded.  Each member is set where its reason is written:
    the target kinds (``targets.kind.Outcome``), the runner (``n/a``) and ``decide``.

    A plain ``pass`` has no cause.  An ``xfail`` keeps the cause of the failure the
    target pinned (its verdict already says it was pinned).
    """

    #: ``fail`` on counted violations (the reason, when there is one, names what
    #: happened beside them: a request beyond the script, a crash or a stop after it).
    VIOLATIONS = "violations"
    #: ``error``: the target raised (an in-process adapter or client), or called
    #: ``os._exit``; the reason holds the exception and the tail of its traceback.
    CRASH = "crash"
    #: ``error``: the target (in-process or a command) did not finish within the cell's
    #: timeout.
    TIMEOUT = "timeout"
    #: ``error``: a command said it could not load the saved history the case gives
    #: (its reserved exit code, ``_targets.command_contract.EXIT_HISTORY_UNLOADABLE``).
    HISTORY_UNLOADABLE = "history-unloadable"
    #: ``error``: the target ended early for a reason of its own that no rule violation
    #: explains: a command's non-zero exit, an adapter that gave up on an error status
    #: or at the request cap of one user turn.
    STOPPED = "stopped"
    #: The target ended its turn quietly before the script's end, with nothing that
    #: explains it: ``error``; ``fail`` when it declares ``xml-recovery`` and ended on
    #: the response whose text carries the call it should have recovered.
    ENDED_EARLY = "ended-early"
    #: ``error``: the target sent a request the script has no answer for (beyond its
    #: end, or to an endpoint the wire does not have) and broke nothing else.
    UNEXPECTED_REQUEST = "unexpected-request"
    #: ``error``: a request carried a field or beta value the suite cannot judge
    #: (``provider.features``): what the target did next answered the suite's limit.
    UNJUDGEABLE = "unjudgeable"
    #: ``fail``: the target's library refused a response the provider really sends (a
    #: command's reserved exit code).
    REFUSED = "refused"
    #: The target's library stopped the conversation on purpose (``ConversationStopped``,
    #: a command's exit 93) and nothing it sent was wrong: ``pass`` where the turn may
    #: end there, ``fail`` where the user's turn is lost, ``error`` after an answer the
    #: script does not hold.
    HALTED = "halted"
    #: ``n/a``: ``Result.not_applicable`` says which kind (an undeclared wire, a missing
    #: capability, a target that declined the wire when run).
    NOT_APPLICABLE = "not-applicable"
    #: ``pinned``: the case's documented limitation showed as the case asserts.
    PINNED = "pinned"
    #: ``pass`` of a pinned case whose limitation did not show: the target does better.
    LIMITATION_NOT_SHOWN = "limitation-not-shown"
    #: ``fail``: the target pinned the cell as a known failure, and it passed.
    UNEXPECTED_PASS = "unexpected-pass"


#: The causes of an ``error`` a target kind reports (``Outcome.error_cause``).
ERROR_CAUSES = frozenset({Cause.CRASH, Cause.TIMEOUT, Cause.HISTORY_UNLOADABLE})


class Violation(BaseModel):
    """One thing a run got wrong.

    ``check`` is a stable id (``expect``, ``invariant/<slug>``, ``<wire>/<slug>``,
    ``provider/<slug>``); ``severity`` ``must`` fails the run, ``should`` is a warning
    unless the run is strict; ``evidence`` is what the broken rule rests on (a violation
    weaker than the run's evidence threshold is a warning, whatever its severity);
    ``request`` is the 1-based request it is about.
    """

    model_config = ConfigDict(frozen=True)

    check: str
    message: str
    severity: Severity = "must"
    evidence: Evidence = "observed"
    request: int | None = None
    at: str | None = None
    #: The case's reason for a failed expectation (its ``why``), so a reader sees what
    #: the expectation protects, not only what it compared.
    why: str | None = None
    #: The index of the case expectation a violation of ``expect`` is about, so the
    #: verdict can tell the expectations an errored run never reached (not in reports:
    #: the message names it).
    expectation: int | None = Field(default=None, exclude=True, repr=False)
    #: The rule broken, as the provider answers it (its status, error type, fallback):
    #: what a wire renders its error from.  Not in reports: ``check`` names it.
    rule: InstanceOf[Rule] | None = Field(default=None, exclude=True, repr=False)

    @property
    def rejects(self) -> bool:
        """Whether the provider answers it with its error: only a rejection that was
        documented or seen live is played; a weaker one is recorded, and served."""
        return meets(self.evidence, DEFAULT_EVIDENCE_THRESHOLD)

    @property
    def broken(self) -> Rule:
        """The rule a provider-recorded violation broke (every one carries it)."""
        if self.rule is None:
            raise ValueError(f"{self.check}: a violation the provider did not record")
        return self.rule


class Result(BaseModel):
    """The verdict of one case on one wire, and why."""

    model_config = ConfigDict(frozen=True)

    case: str
    wire: str
    dialect: str | None = None
    verdict: Verdict
    #: The case's title, and its file relative to its library root (``cases/...``).
    title: str | None = None
    file: str | None = None
    features: tuple[str, ...] = ()
    violations: tuple[Violation, ...] = ()
    warnings: tuple[Violation, ...] = ()
    reason: str | None = None
    #: The ``reason`` as data (``Cause``); ``None`` for a plain pass, and in a report
    #: of version 2, written before it existed.
    cause: Cause | None = None
    #: Why an ``n/a`` cell is one (``None`` for every other verdict).
    not_applicable: NotApplicable | None = None
    #: The capabilities a ``missing-capability`` cell needs and its target lacks.
    missing: tuple[str, ...] = ()
    requests: int = 0
    snapshot: SnapshotState | None = None
    #: The diff of a changed snapshot (stored -> emitted), bounded.
    snapshot_diff: str | None = None
    stdout_tail: str | None = None
    stderr_tail: str | None = None
    #: Timing: the wall seconds the cell took to hold and judge (``None`` for a cell
    #: ``n/a`` before running).  It varies run to run: no comparison reads it (``--rounds``,
    #: ``report diff``, the byte-identity of reports: ``_report.report_schema.untimed``).
    seconds: float | None = None

    @property
    def key(self) -> tuple[str, str]:
        return (self.case, self.wire)
