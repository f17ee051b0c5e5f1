"""From violations to a verdict: one place decides pass, fail, pinned, xfail and error.

* ``error`` — the run could not be judged: the target crashed or hung, sent a request
  the script has no answer for, or stopped before the script ended with nothing that
  explains why.  A provider rejection explains whatever the target did next (raised on
  the 400, exited non-zero, stopped): the same behaviour gets the same verdict whatever
  the target kind.  A stop before the first request is explained where the case
  accepts ``requests: 0`` (a configuration the provider would refuse, refused locally).
  Nor can a run with a request carrying a field or beta value the provider cannot
  judge (one the real API does not take as far as the suite knows, or takes but the
  suite does not model: ``provider.features``), whatever else it did.
* ``fail`` — a ``must`` violation (``should`` ones too when the run is strict); a request
  beyond the script after broken expectations fails on those, and is named in the reason,
  even when the target then crashed or exited non-zero on the provider's answer to it;
  a target that declares ``xml-recovery`` and ends its turn on the response whose text
  carries the call fails too (it did not recover it, rule 50): that stop is explained.
* ``pinned`` — a pinned case whose documented limitation showed as the case asserts.
* ``xfail`` — a failure the target pinned; an unexpected pass of a pin fails.
* ``n/a`` is decided before running (see the runner), or by a command that says it
  does not speak the wire.
* a target whose library refused a response the provider sends (a command's reserved
  exit code) ``fail``s: the provider really sends it, so the refusal is the target's.
* a target whose library stopped the conversation on purpose (``ConversationStopped``,
  a command's exit 93) is judged on what it sent; the stop itself passes where the
  response before it lets the turn end (``cases.schema.halt_accepted``: a cut or
  truncated turn, a refusal, a transient fault) and fails elsewhere, as a lost turn.
  Expectations about what the stopped conversation never reached are not judged
  (``checks.expectations``).

Each verdict comes with its reason, for people, and the same as data
(``verdict.Cause``), set here where the reason is written (or taken from the target
kind, for a crash, a hang, an exit status): nothing downstream reads the sentence.

A violation whose evidence is weaker than the run's threshold (default ``observed``) is
a warning, never a failure, even when strict: a rule or a shape that rests only on a
design document never fails a run by default.
"""

from __future__ import annotations

from dataclasses import dataclass

from conformance._cases.schema import (
    Case,
    ExpectAnyOf,
    Expectation,
    ExpectRequests,
    halt_accepted,
)
from conformance._checks.expectations import unreached
from conformance._provider.features import UNJUDGEABLE, why_unjudged
from conformance._transcript import Transcript
from conformance.verdict import (
    DEFAULT_EVIDENCE_THRESHOLD,
    Cause,
    EvidenceThreshold,
    Result,
    Verdict,
    Violation,
    meets,
)
from conformance.vocabulary import ScriptedResponse

UNEXPECTED_REQUEST = frozenset({"provider/beyond-script", "provider/unknown-endpoint"})
#: A verdict, the reason a report prints for it, and that reason as data: every step of
#: ``decide`` sets the cause where it writes the reason.
Decision = tuple[Verdict, str | None, Cause | None]


def _rejected(transcript: Transcript) -> bool:
    """Whether the provider rejected a request for breaking one of the wire's rules."""
    return any(
        e.served is None
        and any(v.check not in UNEXPECTED_REQUEST and not v.broken.fallback for v in e.violations)
        for e in transcript.exchanges
    )


def _unjudgeable(transcript: Transcript) -> str | None:
    """Why the run cannot be judged when the provider answered a request carrying a
    field or beta it cannot judge (``provider.features``): what the target did next
    answered the suite's limit, not the real API's."""
    for exchange in transcript.exchanges:
        for violation in exchange.violations:
            if violation.check in UNJUDGEABLE:
                return f"request {exchange.number} is not judged: {why_unjudged(violation)}"
    return None


def _counts(violation: Violation, strict: bool, evidence: EvidenceThreshold) -> bool:
    """Whether a violation may fail the run.  Evidence first: one resting on weaker
    evidence than the threshold is a warning, ``must`` or not, strict or not (only
    ``--evidence any`` lets it count); then severity: ``should`` counts when strict."""
    if not meets(violation.evidence, evidence):
        return False
    return violation.severity == "must" or strict


@dataclass(frozen=True)
class _Sorted:
    """The violations of a run, sorted by what they mean for the verdict."""

    counted: list[Violation]  # what may fail the run (``should`` too when strict)
    warnings: tuple[Violation, ...]
    expect: list[Violation]  # the case's own expectations
    unexpected: list[Violation]  # requests the script has no answer for
    causes: list[Violation]  # rules and invariants: what explains an early stop

    @classmethod
    def of(cls, violations: list[Violation], strict: bool, evidence: EvidenceThreshold) -> _Sorted:
        counted = [v for v in violations if _counts(v, strict, evidence)]
        return cls(
            counted=counted,
            warnings=tuple(v for v in violations if not _counts(v, strict, evidence)),
            expect=[v for v in counted if v.check == "expect"],
            unexpected=[v for v in counted if v.check in UNEXPECTED_REQUEST],
            causes=[
                v for v in counted if v.check != "expect" and v.check not in UNEXPECTED_REQUEST
            ],
        )


def _broken_inside_script(transcript: Transcript, found: _Sorted) -> list[Violation]:
    """Counted violations (the case's expectations, invariants) located on a request
    inside the script: one the provider answered from it, not the extra request."""
    inside = {
        e.number
        for e in transcript.exchanges
        if not any(v.check in UNEXPECTED_REQUEST for v in e.violations)
    }
    return [v for v in found.counted if v.check not in UNEXPECTED_REQUEST and v.request in inside]


def _judged(
    case: Case, transcript: Transcript, found: _Sorted, counted: list[Violation]
) -> Decision:
    """The verdict before any pin of a run the provider could judge: did the target
    hold the conversation, and did it break anything."""
    served = transcript.served_count()
    scripted = len(case.given.responses)
    if transcript.error and not _rejected(transcript):
        if found.unexpected and _broken_inside_script(transcript, found):
            # A `must` failed on a request the script answered: that is
            # the verdict, whatever the target did on the answer to its extra request
            # (an SDK raising on the 400, a command exiting non-zero).
            also = f"also: {found.unexpected[0].message}; then: {transcript.error}"
            return "fail", also, Cause.VIOLATIONS
        # After a rejection, what the target did next (an SDK raising on the 400, a
        # command exiting non-zero, an adapter stopping) is explained by it: the verdict
        # is the rejection's, whatever the target kind.
        return "error", transcript.error, transcript.error_cause or Cause.CRASH
    if transcript.refused is not None:
        return (
            "fail",
            f"the target's library refused a response the provider sends: {transcript.refused}",
            Cause.REFUSED,
        )
    if found.unexpected and not found.causes:
        if found.expect:
            # What was sent is judged first: the extra request must not hide the
            # expectations it already broke; it is reported beside them.
            return "fail", f"also: {found.unexpected[0].message}", Cause.VIOLATIONS
        return "error", found.unexpected[0].message, Cause.UNEXPECTED_REQUEST
    if transcript.halted is not None:
        return _halt_verdict(case, transcript, counted, transcript.halted)
    # A stop right after a dropped stream is explained: the response was truncated; so
    # is a stop before the first request where the case accepts sending none.
    unexplained = (
        not found.causes
        and not _rejected(transcript)
        and not transcript.ended_on_dropped_stream()
        and not _refused_before_sending(case, transcript)
    )
    if (transcript.stopped or served < scripted) and unexplained:
        unrecovered = _unrecovered_markup(case, transcript)
        if unrecovered is not None:
            return "fail", unrecovered, Cause.ENDED_EARLY
        if transcript.stopped is not None:
            return "error", transcript.stopped, Cause.STOPPED
        quiet = f"the target stopped after {served} of {scripted} scripted responses"
        return "error", quiet, Cause.ENDED_EARLY
    if counted:
        return "fail", None, Cause.VIOLATIONS
    return "pass", None, None


def _halt_verdict(
    case: Case, transcript: Transcript, counted: list[Violation], message: str
) -> Decision:
    """The verdict of a conversation the target's library stopped on purpose: what it
    sent is judged first; the stop passes where the response before it lets the turn end
    and fails, as a lost turn, where the provider sent one a client can go on from."""
    if counted:
        return "fail", f"then the library stopped the conversation: {message}", Cause.VIOLATIONS
    halted = Cause.HALTED
    if not transcript.exchanges:
        if _accepts_none_sent(case.expect):
            accepted = f"the library stopped before sending, as the case accepts: {message}"
            return "pass", accepted, halted
        lost = f"the library stopped before its first request, losing the turn: {message}"
        return "fail", lost, halted
    served = transcript.exchanges[-1].served
    responses = case.given.responses
    if served is None or served >= len(responses):
        return "error", f"the library stopped after an unscripted answer: {message}", halted
    where = f"scripted response {served + 1}"
    response = responses[served]
    if halt_accepted(response):
        accepted = (
            f"the library stopped the conversation after {where}, where the turn may end "
            f"({_halt_why(response)}), and sent nothing wrong: {message}"
        )
        return "pass", accepted, halted
    lost = (
        f"the library stopped the conversation after {where}, a response the provider "
        f"really sends and a client goes on from: the user's turn is lost: {message}"
    )
    return "fail", lost, halted


def _halt_why(response: ScriptedResponse) -> str:
    """Why the turn may end after ``response``, in the words a report prints."""
    if response.halt == "accepted":
        return "the case accepts a stop there"
    if response.fault is not None:
        return f"the provider answered with an error, {response.fault.kind}"
    if response.stop == "refusal":
        return "a refusal"
    return "a cut call, a truncated stop or an empty response"


def _accepts_none_sent(expectations: tuple[Expectation, ...]) -> bool:
    """Whether an expectation (or an ``any_of`` alternative) is ``requests: 0``."""
    return any(
        (isinstance(e, ExpectRequests) and e.requests == 0)
        or (isinstance(e, ExpectAnyOf) and _accepts_none_sent(e.any_of))
        for e in expectations
    )


def _refused_before_sending(case: Case, transcript: Transcript) -> bool:
    """Whether the target stopped before its first request on a case that accepts that
    (``requests: 0``: the configuration as given is one the provider refuses, so a client
    that refuses it locally sends nothing wrong).  What the case owes the user instead
    is the case's own ``should``; a crash (``error``) is never explained."""
    return (
        not transcript.exchanges
        and transcript.stopped is not None
        and _accepts_none_sent(case.expect)
    )


def _unrecovered_markup(case: Case, transcript: Transcript) -> str | None:
    """Why a quiet early stop in an XML-recovery case is the target's failure: the case
    runs only on targets that declare ``xml-recovery``, and the target ended its turn
    on the response whose text carried the call (its last served response ended the
    turn with no structured call), which is what a target that does not recover does
    (rule 50).  A target that stopped for a reason of its own (an exception, an exit
    status) is not judged here."""
    served = transcript.served_count()
    if "xml-recovery" not in case.requires or transcript.stopped is not None or served == 0:
        return None
    last = case.given.responses[served - 1]
    if last.stop != "end" or any(b.kind == "tool_call" for b in last.blocks):
        return None
    return (
        f"the target declares xml-recovery but ended its turn on scripted response "
        f"{served}, whose text carries a tool call it should have recovered "
        f"({served} of {len(case.given.responses)} scripted responses used)"
    )


def _case_pinned(case: Case, decision: Decision, expect: list[Violation]) -> Decision:
    """A pinned case passes as ``pinned`` when its limitation showed; a target that does
    better passes, with the reason."""
    if case.status != "pinned" or decision[0] != "pass":
        return decision
    if expect:
        better = f"the pinned limitation did not show: {expect[0].message}"
        return "pass", better, Cause.LIMITATION_NOT_SHOWN
    return "pinned", case.pinned_reason, Cause.PINNED


def _target_pinned(pin: str | None, decision: Decision, counted: list[Violation]) -> Decision:
    """A failure the target pinned is an ``xfail`` (with the failure's cause); a pinned
    cell that passes fails."""
    verdict, reason, cause = decision
    if pin is None:
        return decision
    if verdict in ("fail", "error"):
        detail = reason or (counted[0].message if counted else "")
        pinned = f"pinned by the target: {pin}" + (f" ({detail})" if detail else "")
        return "xfail", pinned, cause
    return "fail", f"unexpected pass: remove the pin ({pin})", Cause.UNEXPECTED_PASS


def _crashed(transcript: Transcript) -> bool:
    """Whether the run ended in a crash whose cascade the expectations would list: the
    target raised or hung, or stopped before its first request (a command that crashes
    in its start-up).  A target that sent requests and then gave up is not: what it
    never sent (the retry it owed) is the failure, and the expectations say so."""
    return transcript.error is not None or not transcript.exchanges


def _reached(case: Case, transcript: Transcript, violations: list[Violation]) -> list[Violation]:
    """The violations of an errored run that are about what it sent: an expectation on a
    request it never sent, or on its output or request count, could not be reached
    (``checks.expectations.unreached``) and is the crash's cascade, not a failure."""
    sent = len(transcript.exchanges)
    return [
        v
        for v in violations
        if v.expectation is None or not unreached(case.expect[v.expectation], sent)
    ]


def decide(
    case: Case,
    wire: str,
    pin: str | None,
    transcript: Transcript,
    violations: list[Violation],
    strict: bool,
    evidence: EvidenceThreshold = DEFAULT_EVIDENCE_THRESHOLD,
) -> Result:
    """The verdict of one run, with the violations that justify it; ``pin`` is the
    reason the target gave for a known failure of this cell, if it pinned one;
    ``evidence`` the weakest evidence that may fail it."""
    found = _Sorted.of(violations, strict, evidence)
    # A pinned case asserts its limitation with expectations: they never fail it.
    counted = found.counted
    if case.status == "pinned":
        counted = [v for v in counted if v.check != "expect"]
    unjudged = _unjudgeable(transcript)
    decision: Decision
    if unjudged is not None:
        # What the run could not reach once the provider said it cannot judge it is
        # not a failure of the target: only the answer that explains it is listed.
        counted = [v for v in counted if v.check in UNJUDGEABLE]
        decision = "error", unjudged, Cause.UNJUDGEABLE
    else:
        decision = _judged(case, transcript, found, counted)
    decision = _case_pinned(case, decision, found.expect)
    verdict, reason, cause = _target_pinned(pin, decision, counted)
    warnings = found.warnings
    if verdict == "error" and _crashed(transcript):  # no cascade of the crash
        counted = _reached(case, transcript, counted)
        warnings = tuple(_reached(case, transcript, list(warnings)))
    return Result(
        case=case.id,
        wire=wire,
        dialect=transcript.dialect,
        verdict=verdict,
        features=case.features,
        violations=tuple(counted) if verdict in ("fail", "error", "xfail") else (),
        warnings=warnings,
        reason=reason,
        cause=cause,
        requests=len(transcript.exchanges),
        stdout_tail=transcript.stdout_tail,
        stderr_tail=transcript.stderr_tail,
    )
