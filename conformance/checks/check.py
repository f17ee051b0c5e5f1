"""What a check is: a stable id, a one-line statement, its source and its severity.

Kept apart from the registry so the modules that implement checks can declare them
without importing the registry that runs them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeAlias

from conformance.transcript import Transcript
from conformance.verdict import Severity, Violation
from conformance.wires.roles import Wire


@dataclass(frozen=True)
class Check:
    """One check of the judge.  ``severity`` is the default of its violations."""

    id: str
    statement: str
    source: str
    severity: Severity = "must"

    def violation(
        self,
        message: str,
        *,
        request: int | None = None,
        at: str | None = None,
        severity: Severity | None = None,
    ) -> Violation:
        """A violation of this check (``severity`` overrides the default)."""
        return Violation(
            check=self.id,
            message=message,
            severity=severity or self.severity,
            request=request,
            at=at,
        )


#: A function that judges a transcript and returns the violations of its check(s).
Judge: TypeAlias = Callable[[Transcript, Wire], list[Violation]]
