"""One mutant's verdict from the cells it ran.

A cell that fails by checks kills the mutant; a cell that ends in an error (a crash, a
hang) is weaker evidence, reported apart as ``crashed`` or ``timeout``; a mutant no
cell went red on ``survived``; a probe that could not be applied or built is
``invalid``.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Sequence
from typing import Literal, TypeAlias

from pydantic import BaseModel, ConfigDict

from conformance._probe.catalogue import Probe
from conformance.verdict import Cause, Result

MutantVerdict: TypeAlias = Literal["killed", "crashed", "timeout", "survived", "invalid"]
MUTANT_VERDICTS: tuple[MutantVerdict, ...] = (
    "killed",
    "crashed",
    "timeout",
    "survived",
    "invalid",
)
#: The causes of an ``error`` cell that are weak evidence (the mutant ``crashed`` or hit
#: a ``timeout``), whatever violations the cell also had.
BROKE_DOWN = frozenset({Cause.CRASH, Cause.TIMEOUT})
#: An ``error`` cell that is behaviour, not a crash: the target sent a request the
#: script has no answer for (its violations name the check), or ended the conversation
#: quietly before the script did (``Cause.ENDED_EARLY``: killed under this pseudo-check).
CONVERSATION = "conversation"


class Killer(BaseModel):
    """A cell that went red on the mutant: by which checks, or why it errored."""

    model_config = ConfigDict(frozen=True)

    case: str
    wire: str
    checks: tuple[str, ...] = ()
    error: str | None = None
    #: Why the cell errored, as data (``verdict.Cause``): ``judge`` tells a timeout
    #: from a crash by it.
    cause: Cause | None = None

    @property
    def cell(self) -> str:
        return f"{self.case}[{self.wire}]"


class MutantResult(BaseModel):
    """What one probe did to the target."""

    model_config = ConfigDict(frozen=True)

    id: str
    where: str
    note: str
    verdict: MutantVerdict
    #: Cells that failed by checks (the evidence a guard is load-bearing).
    killers: tuple[Killer, ...] = ()
    #: Cells that ended in an error or a timeout (weaker evidence).
    errors: tuple[Killer, ...] = ()
    cells_run: int = 0
    cells_total: int = 0
    #: Cells of the total not run: they never execute the changed code on the
    #: unmutated target, so the mutant cannot change them.
    cells_unreached: int = 0
    expected: tuple[str, ...] = ()
    #: The expectation patterns no check-failing cell matched (empty when met).
    unmet: tuple[str, ...] = ()
    accepted: str | None = None
    #: Why the probe is ``invalid``.
    reason: str | None = None

    @property
    def expectation_met(self) -> bool | None:
        if not self.expected or self.verdict == "invalid":
            return None
        return not self.unmet

    @property
    def problem(self) -> str | None:
        """Why this mutant fails the probe run, or ``None``."""
        if self.verdict == "invalid":
            return f"invalid: {self.reason}"
        if self.verdict == "survived" and self.accepted is None:
            return "survived"
        if self.unmet:
            return f"not killed by the expected {', '.join(self.unmet)}"
        return None


def matches(pattern: str, killer: Killer) -> bool:
    """An expectation matches a case id (glob), or ``case[wire]``."""
    return fnmatch.fnmatchcase(killer.case, pattern) or fnmatch.fnmatchcase(killer.cell, pattern)


def cell_matches(pattern: str, case: str, wire: str) -> bool:
    return matches(pattern, Killer(case=case, wire=wire))


def observe(result: Result) -> tuple[Killer | None, Killer | None]:
    """The cell as a killer (failed by checks) or an error (crash, timeout), or neither."""
    if result.verdict == "fail":
        checks = sorted({v.check for v in result.violations})
        return Killer(case=result.case, wire=result.wire, checks=tuple(checks)), None
    if result.verdict == "error":
        broke_down = result.cause in BROKE_DOWN
        if not broke_down and (result.violations or result.cause == Cause.ENDED_EARLY):
            checks = sorted({v.check for v in result.violations}) or [CONVERSATION]
            return Killer(case=result.case, wire=result.wire, checks=tuple(checks)), None
        reason = (result.reason or "error").splitlines()[0]
        return None, Killer(case=result.case, wire=result.wire, error=reason, cause=result.cause)
    return None, None


def judge(
    probe: Probe,
    killers: Sequence[Killer],
    errors: Sequence[Killer],
    cells_run: int,
    cells_total: int,
    cells_unreached: int = 0,
) -> MutantResult:
    """The mutant's verdict from the killers and errors its cells produced."""
    verdict: MutantVerdict
    if killers:
        verdict = "killed"
    elif any(e.cause == Cause.TIMEOUT for e in errors):
        verdict = "timeout"
    elif errors:
        verdict = "crashed"
    else:
        verdict = "survived"
    unmet = tuple(p for p in probe.expect_killed_by if not any(matches(p, k) for k in killers))
    return MutantResult(
        id=probe.id,
        where=probe.where,
        note=probe.note,
        verdict=verdict,
        killers=tuple(killers),
        errors=tuple(errors),
        cells_run=cells_run,
        cells_total=cells_total,
        cells_unreached=cells_unreached,
        expected=probe.expect_killed_by,
        unmet=unmet,
        accepted=probe.accepted,
    )


def invalid(probe: Probe, reason: str) -> MutantResult:
    return MutantResult(
        id=probe.id,
        where=probe.where,
        note=probe.note,
        verdict="invalid",
        expected=probe.expect_killed_by,
        accepted=probe.accepted,
        reason=reason,
    )
