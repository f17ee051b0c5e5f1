"""What a check is, and how a module registers the functions that judge its checks.

A check is a stable id, a one-line statement, its source and its severity; a check bound
to a provider or wire rule also names the catalogue rule it encodes (``ref``).
Every module that judges checks keeps one ``Checklist`` and decorates each judge with
``@CHECKLIST.judge(check, ...)``, or ``@CHECKLIST.judge_rules(rules)`` to bind a check
to each provider or wire rule.  ``conformance.checks.registry`` reads the modules'
checklists in a fixed order, so the order never depends on which module was imported
first.  Kept apart from the registry so the modules that implement checks can declare
them without importing the registry that runs them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TypeAlias, TypeVar

from conformance.transcript import Transcript
from conformance.verdict import Evidence, Severity, Violation
from conformance.wires.base import Rule
from conformance.wires.roles import Wire


@dataclass(frozen=True)
class Check:
    """One check of the judge.  ``severity`` and ``evidence`` are the defaults of its
    violations."""

    id: str
    statement: str
    source: str
    severity: Severity = "must"
    #: The catalogue rule a provider or wire rule encodes; ``None`` for the rest.
    ref: str | None = None
    evidence: Evidence = "observed"

    @classmethod
    def bound_to(cls, rule: Rule) -> Check:
        """The check of a provider or wire rule: same id, statement, source, ref, evidence."""
        severity: Severity = getattr(rule, "severity", "must")
        return cls(rule.id, rule.statement, rule.source, severity, rule.ref, rule.evidence)

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
        """A violation of this check (``severity`` and ``evidence`` override the defaults)."""
        return Violation(
            check=self.id,
            message=message,
            severity=severity or self.severity,
            evidence=evidence or self.evidence,
            request=request,
            at=at,
            why=why,
            expectation=expectation,
        )


#: A function that judges a transcript and returns the violations of its check(s).
Judge: TypeAlias = Callable[[Transcript, Wire], list[Violation]]
#: A judge keeps its own signature when registered: one that reads only a wire's role
#: (its hints, its history items) still says so, and a test double of that role fits it.
J = TypeVar("J", bound=Judge)


@dataclass(frozen=True)
class Judged:
    """A judge and the checks whose violations it returns, in the order it returns them."""

    judge: Judge
    listed: Callable[[], tuple[Check, ...]]

    @property
    def checks(self) -> tuple[Check, ...]:
        return self.listed()


class Checklist:
    """The judges of one module with their checks, in the order the module declares them."""

    def __init__(self) -> None:
        self._judged: list[Judged] = []

    def judge(self, *checks: Check) -> Callable[[J], J]:
        """Register the decorated function as the judge of ``checks``."""
        if not checks:
            raise ValueError("a judge judges at least one check")
        return self._register(lambda: checks)

    def judge_rules(self, rules: Callable[[], Iterable[Rule]]) -> Callable[[J], J]:
        """Register the decorated function as the judge of the checks bound to ``rules()``,
        read only when the checks are listed (the wires that define rules load lazily)."""
        return self._register(lambda: tuple(Check.bound_to(rule) for rule in rules()))

    def _register(self, listed: Callable[[], tuple[Check, ...]]) -> Callable[[J], J]:
        def register(judge: J) -> J:
            self._judged.append(Judged(judge, listed))
            return judge

        return register

    @property
    def judged(self) -> tuple[Judged, ...]:
        return tuple(self._judged)
