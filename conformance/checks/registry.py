"""Every check of the judge, and the one entry point that runs them on a transcript.

Three sources of violations, always in this order: the provider rules the scripted
provider recorded while it served the run, the case's expectations, then the universal
invariants (the opaque-payload ledger first).  Same transcript, same list.
"""

from __future__ import annotations

from conformance.checks.check import Check, Judge
from conformance.checks.expectations import EXPECT, expectation_violations
from conformance.checks.invariants import INVARIANTS
from conformance.checks.ledger import LEDGER_CHECKS, ledger_violations
from conformance.transcript import Transcript
from conformance.verdict import Violation
from conformance.wires.roles import Wire

__all__ = ["Check", "all_checks", "run_checks"]

#: The invariant judges, in report order.
_JUDGES: tuple[Judge, ...] = (ledger_violations, *(judge for _, judge in INVARIANTS))
_CHECKS: tuple[Check, ...] = (EXPECT, *LEDGER_CHECKS, *(check for check, _ in INVARIANTS))


def all_checks() -> tuple[Check, ...]:
    """Every check, in report order (wire rules are listed by their wires)."""
    return _CHECKS


def run_checks(transcript: Transcript, wire: Wire) -> list[Violation]:
    """Every violation of the run: provider rules, then expectations, then invariants."""
    found = [
        Violation(
            check=violation.rule.id,
            message=violation.message,
            severity="must",
            request=exchange.number,
            at=violation.at,
        )
        for exchange in transcript.exchanges
        for violation in exchange.violations
    ]
    found += expectation_violations(transcript)
    for judge in _JUDGES:
        found += judge(transcript, wire)
    return found
