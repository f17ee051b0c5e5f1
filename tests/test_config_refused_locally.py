"""A client that refuses, before any request, a thinking configuration the provider would
refuse too (pydantic-ai 2.68.0 raises UserError for a manual budget on Claude Opus 4.7):
the case accepts it with a ``should`` (suite-fixes.md 9).  Sending nothing is explained
only where the case accepts ``requests: 0``; elsewhere it stays an ``error``."""

from __future__ import annotations

import shlex
import sys

import pytest

from conformance._runner import RunOptions, plan, run_jobs
from conformance._targets.resolve import resolve_target
from conformance.verdict import Result
from tests.support import library_case

CASE = "anthropic-adaptive-only-model-manual-config-sent-adaptive"
REFUSES = "does not support thinking type enabled; use adaptive"
COMMAND = f"cmd:{shlex.quote(sys.executable)} -c {shlex.quote(f'raise SystemExit({REFUSES!r})')}"


def _run(case_id: str, strict: bool) -> Result:
    target = resolve_target(COMMAND)
    jobs = plan([library_case(case_id)], target, ["anthropic-messages"])
    (result,) = run_jobs(target, jobs, RunOptions(strict=strict, timeout=30))
    return result


def test_a_local_refusal_passes_with_a_should() -> None:
    result = _run(CASE, strict=False)
    assert result.verdict == "pass", (result.reason, result.violations)
    assert result.requests == 0
    assert [(w.check, w.severity) for w in result.warnings] == [("expect", "should")]


def test_a_local_refusal_fails_under_strict() -> None:
    result = _run(CASE, strict=True)
    assert result.verdict == "fail"
    assert {v.severity for v in result.violations} == {"should"}


@pytest.mark.parametrize("case_id", ["tool-arguments-fragments-parallel-calls"])
def test_sending_nothing_elsewhere_stays_an_error(case_id: str) -> None:
    assert _run(case_id, strict=False).verdict == "error"
