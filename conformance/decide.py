"""From violations to a verdict: one place decides pass, fail, pinned, xfail and error.

* ``error`` — the run could not be judged: the target crashed or hung, sent a request
  the script has no answer for, or stopped before the script ended with nothing that
  explains why.
* ``fail`` — a ``must`` violation (``should`` ones too when the run is strict).
* ``pinned`` — a pinned case whose documented limitation showed as the case asserts.
* ``xfail`` — a failure the target pinned; an unexpected pass of a pin fails.
* ``n/a`` is decided before running (see the runner).
"""

from __future__ import annotations

from conformance.cases.schema import Case
from conformance.transcript import Transcript
from conformance.verdict import Result, Verdict, Violation

UNEXPECTED_REQUEST = frozenset({"provider/beyond-script", "provider/unknown-endpoint"})


def _rejected(transcript: Transcript) -> bool:
    """Whether the provider rejected a request for breaking one of the wire's rules."""
    return any(
        e.served is None and any(v.rule.id not in UNEXPECTED_REQUEST for v in e.violations)
        for e in transcript.exchanges
    )


def decide(
    case: Case,
    wire: str,
    pin: str | None,
    transcript: Transcript,
    violations: list[Violation],
    strict: bool,
) -> Result:
    """The verdict of one run, with the violations that justify it; ``pin`` is the
    reason the target gave for a known failure of this cell, if it pinned one."""
    counted = [v for v in violations if v.severity == "must" or strict]
    warnings = tuple(v for v in violations if v.severity == "should" and not strict)
    expect = [v for v in counted if v.check == "expect"]
    unexpected = [v for v in counted if v.check in UNEXPECTED_REQUEST]
    causes = [v for v in counted if v.check != "expect" and v.check not in UNEXPECTED_REQUEST]
    if case.status == "pinned":
        counted = [v for v in counted if v.check != "expect"]
    served = transcript.served_count()
    scripted = len(case.given.responses)

    verdict: Verdict
    reason: str | None = None
    if transcript.error:
        verdict, reason = "error", transcript.error
    elif unexpected and not causes:
        verdict, reason = "error", unexpected[0].message
    elif (transcript.stopped or served < scripted) and not causes and not _rejected(transcript):
        verdict = "error"
        reason = transcript.stopped or (
            f"the target stopped after {served} of {scripted} scripted responses"
        )
    elif counted:
        verdict = "fail"
    else:
        verdict = "pass"

    if case.status == "pinned" and verdict == "pass":
        if expect:
            reason = f"the pinned limitation did not show: {expect[0].message}"
        else:
            verdict, reason = "pinned", case.pinned_reason

    if pin is not None:
        if verdict in ("fail", "error"):
            detail = reason or (counted[0].message if counted else "")
            verdict, reason = (
                "xfail",
                f"pinned by the target: {pin}" + (f" ({detail})" if detail else ""),
            )
        else:
            verdict, reason = "fail", f"unexpected pass: remove the pin ({pin})"

    return Result(
        case=case.id,
        wire=wire,
        dialect=transcript.dialect,
        verdict=verdict,
        features=case.features,
        violations=tuple(counted) if verdict in ("fail", "error", "xfail") else (),
        warnings=warnings,
        reason=reason,
        requests=len(transcript.exchanges),
        stdout_tail=transcript.stdout_tail,
        stderr_tail=transcript.stderr_tail,
    )
