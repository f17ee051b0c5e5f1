"""invariant/append-only keeps what its statement says: earlier calls' arguments sent in
another key order on a later request break the history's bytes (rule 53), on every wire.
Before the case below, no case replayed a call with several argument keys over more than
two requests, and a client reversing them raised nothing."""

from __future__ import annotations

import pytest

from conformance._runner import RunOptions, plan, run_job
from conformance._targets.resolve import resolve_target
from tests.support import library

CASE = "earlier-call-arguments-key-order-stable-across-requests"
COLUMNS = ("anthropic-messages", "openai-responses", "openai-chat", "gemini")


@pytest.mark.parametrize("column", COLUMNS)
def test_reordered_earlier_arguments_are_an_append_only_violation(column: str) -> None:
    target = resolve_target("tests.targets.reordering:ReordersEarlierArguments")
    job = next(
        j
        for j in plan([c.case for c in library().cases], target)
        if j.case.id == CASE and j.column == column
    )
    result = run_job(target, job, RunOptions(timeout=30, strict=True))[0]
    assert result.verdict == "fail"
    [found, *_] = [v for v in result.violations if v.check == "invariant/append-only"]
    assert "key order" in found.message or "arguments" in found.message
    assert found.severity == "should"  # the cost is the prompt cache, not a 400


@pytest.mark.parametrize("column", COLUMNS)
def test_the_reference_keeps_the_order(column: str) -> None:
    target = resolve_target("reference")
    job = next(
        j
        for j in plan([c.case for c in library().cases], target)
        if j.case.id == CASE and j.column == column
    )
    result = run_job(target, job, RunOptions(timeout=30, strict=True))[0]
    assert result.verdict == "pass", result
    assert not result.warnings
