"""The provider's rules and every wire's rules, as checks: the scripted provider enforced
them while it served the run and recorded each violation with its exchange.

Their data is the catalogue's, looked up by id where the provider or the wire judges
them; this judge lists them (read lazily: the wires load on first use) and reports what
the provider recorded.
"""

from __future__ import annotations

from conformance._checks.check import JudgeBook
from conformance._provider.scripted import PROVIDER_RULES
from conformance._transcript import Transcript
from conformance.verdict import Rule, Violation
from conformance.wires._registry import get_wire, wire_names
from conformance.wires.roles import Wire

BOOK = JudgeBook("recorded", __name__)


def rules() -> tuple[Rule, ...]:
    """The provider rules, then each wire's rules (wires by name, rules in the wire's order)."""
    return (*PROVIDER_RULES, *(rule for name in wire_names() for rule in get_wire(name).rules))


@BOOK.checks_lazily(rules)
def recorded_violations(transcript: Transcript, wire: Wire) -> list[Violation]:
    """The rule violations the provider recorded, request by request, in recorded order.

    A recorded violation is a request the provider rejected (or, on evidence too weak to
    reject it, served), so it is always ``must``; it carries the evidence it rests on.
    """
    return [
        violation.model_copy(update={"severity": "must", "request": exchange.number})
        for exchange in transcript.exchanges
        for violation in exchange.violations
        if not violation.broken.fallback  # a fallback the provider asked for: no verdict
    ]
