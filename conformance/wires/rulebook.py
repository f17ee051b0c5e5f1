"""A wire's rules and the checks that apply them, registered together.

A wire declares its rules as ``Rule`` constants and registers each check with the rules
it judges (``@BOOK.checks(RULE_A, RULE_B)``).  ``rules`` is derived from the
registrations, so the list of a wire's rules and the checks that apply them cannot
disagree in order or in membership: a check reporting a rule it did not register is an
error, and a rule no check registers is in no list.  ``run`` applies the checks in
registration order, which is the order the provider checks them in (its first violation
is its answer).  A rule two checks apply (OpenRouter's Anthropic signature, judged on
every message and again on the latest one) is listed once, at its first registration.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Generic, TypeVar

from conformance.errors import RuleBookError
from conformance.wires.base import Rule, RuleViolation

#: What a wire's checks read: its own view of one request under validation.
Subject = TypeVar("Subject")
CheckFn = Callable[[Subject], Iterable[RuleViolation]]


class RuleBook(Generic[Subject]):
    """The rules of one wire in check order, each bound to the check that applies it."""

    def __init__(self, wire: str) -> None:
        self.wire = wire
        self._entries: list[tuple[tuple[Rule, ...], CheckFn[Subject]]] = []

    def checks(self, *rules: Rule) -> Callable[[CheckFn[Subject]], CheckFn[Subject]]:
        """Register the decorated check as the one that applies ``rules`` (in this order
        in ``rules``)."""
        if not rules:
            raise RuleBookError(f"{self.wire}: a check must name the rules it applies")

        def register(check: CheckFn[Subject]) -> CheckFn[Subject]:
            self._entries.append((rules, check))
            return check

        return register

    @property
    def rules(self) -> tuple[Rule, ...]:
        """Every rule once, in the order the checks run."""
        return tuple(dict.fromkeys(rule for rules, _ in self._entries for rule in rules))

    def run(self, subject: Subject) -> list[RuleViolation]:
        """Every violation of ``subject``, check by check in registration order; a check
        that reports a rule it was not registered with is a bug, not a verdict."""
        found: list[RuleViolation] = []
        for rules, check in self._entries:
            for violation in check(subject):
                if violation.rule not in rules:
                    raise RuleBookError(
                        f"{self.wire}: {getattr(check, '__name__', check)} reported "
                        f"{violation.rule.id}, which it did not register"
                    )
                found.append(violation)
        return found
