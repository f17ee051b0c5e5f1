"""``run --rounds N``: identical rounds pass; a target whose bytes change between rounds
is caught even when every verdict stays the same."""

from __future__ import annotations

import itertools
from typing import ClassVar

from conformance._reference.adapter import ReferenceAdapter, ReferenceSession
from conformance._reference.codec import Decoded
from conformance._reference.consolidate import TurnBlock
from conformance._rounds import run_rounds
from conformance._runner import RunOptions, plan
from conformance._targets.resolve import target_from_object
from conformance.verdict import Result
from conformance.vocabulary import Text
from tests.support import library

_SESSIONS = itertools.count()


class FlakySession(ReferenceSession):
    """Every other conversation stores one more text block: the verdict stays `pass`,
    the next request's bytes change."""

    def consolidate(self, decoded: Decoded) -> tuple[TurnBlock, ...]:
        blocks = super().consolidate(decoded)
        if self.flaky:
            return (*blocks, Text(text="(stored twice)"))
        return blocks

    @property
    def flaky(self) -> bool:
        if not hasattr(self, "_flaky"):
            self._flaky = next(_SESSIONS) % 2 == 1
        return self._flaky


class FlakyAdapter(ReferenceAdapter):
    name: ClassVar[str] = "flaky"
    session_class: ClassVar[type[ReferenceSession]] = FlakySession


def _jobs(target: object, pattern: str) -> tuple[object, list[object]]:
    resolved = target_from_object(target)
    cases = [loaded.case for loaded in library().cases]
    return resolved, list(plan(cases, resolved, ["anthropic-messages"], [pattern]))


def test_identical_rounds_report_no_difference() -> None:
    resolved, jobs = _jobs(ReferenceAdapter(), "interleaved-two-episodes-one-response")
    reported: list[Result] = []
    rounds = run_rounds(resolved, jobs, RunOptions(), 1, 3, reported.append)  # type: ignore[arg-type]
    assert [r.verdict for r in reported] == ["pass"]  # round 1 alone reaches the reports
    assert rounds.cells == 1
    assert rounds.differences == []


def test_bytes_that_change_between_rounds_are_a_difference() -> None:
    resolved, jobs = _jobs(FlakyAdapter(), "interleaved-two-episodes-one-response")
    rounds = run_rounds(resolved, jobs, RunOptions(), 1, 3)  # type: ignore[arg-type]
    assert rounds.differences, "a flaky target passed the gate"
    assert any("exchanged bytes differ" in d for d in rounds.differences)
