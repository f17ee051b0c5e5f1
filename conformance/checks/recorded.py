"""The provider's rules and every wire's rules, as checks: the scripted provider enforced
them while it served the run and recorded each violation with its exchange.

Their checks are bound to the rules themselves (``Check.bound_to``), so a rule's id,
statement, source and ref are written once, where the provider or the wire defines it.
"""

from __future__ import annotations

from conformance.checks.check import Checklist
from conformance.provider.scripted import PROVIDER_RULES
from conformance.transcript import Transcript
from conformance.verdict import Violation
from conformance.wires.base import Rule
from conformance.wires.registry import get_wire, wire_names
from conformance.wires.roles import Wire

CHECKLIST = Checklist()


def rules() -> tuple[Rule, ...]:
    """The provider rules, then each wire's rules (wires by name, rules in the wire's order)."""
    return (*PROVIDER_RULES, *(rule for name in wire_names() for rule in get_wire(name).rules))


@CHECKLIST.judge_rules(rules)
def recorded_violations(transcript: Transcript, wire: Wire) -> list[Violation]:
    """The rule violations the provider recorded, request by request, in recorded order.

    A recorded violation is a request the provider rejected (or, on evidence too weak to
    reject it, served), so it is always ``must``; it carries the evidence it rests on.
    """
    return [
        Violation(
            check=violation.rule.id,
            message=violation.message,
            severity="must",
            evidence=violation.evidence,
            request=exchange.number,
            at=violation.at,
        )
        for exchange in transcript.exchanges
        for violation in exchange.violations
        if not violation.rule.fallback  # a fallback the provider asked for: no verdict
    ]
