"""Verdicts: each one reachable, and each distinct."""

from __future__ import annotations

import ast
import inspect
from types import ModuleType

import pytest

from conformance import _decide as decide_module
from conformance._cases.loader import load_text
from conformance._cases.schema import Case
from conformance._decide import decide
from conformance._provider.scripted import BEYOND_SCRIPT
from conformance._transcript import Exchange, Transcript
from conformance.http import HttpRequest, HttpResponse
from conformance.verdict import Rule, Violation

CASE = """\
id: two-responses
title: A two-response tool loop
provenance: [{rule: 13}]
features: [tool-pairing]
wires: {anthropic-messages: Every tool_use must be answered (rule 13).}
given:
  tools: [{name: t, result: r}]
  turns:
    - user: go
      responses:
        - {stop: tool_calls, blocks: [{kind: tool_call, id: toolu_1, name: t}]}
        - {stop: end, blocks: [{kind: text, text: done}]}
expect:
  - {in: {request: 2, role: tool, nth: -1}, blocks: [{kind: tool_result}]}
"""
RULE = Rule("anthropic-messages/x", "s", "src", ref="wire-rules §A13", error="bad")


def case(pinned: bool = False) -> Case:
    text = CASE
    if pinned:
        text = text.replace("features:", "status: pinned\npinned_reason: a known limit\nfeatures:")
    loaded, errors = load_text(text, "x.yaml", None)
    assert loaded is not None, errors
    return loaded


def exchange(number: int, served: int | None, *violations: Violation) -> Exchange:
    return Exchange(
        number,
        HttpRequest("POST", "/v1/messages"),
        None,
        HttpResponse(200, b""),
        served,
        violations,
    )


def transcript(c: Case, *exchanges: Exchange, error: str | None = None) -> Transcript:
    return Transcript(c, "anthropic-messages", None, list(exchanges), error=error)


FULL = (exchange(1, 0), exchange(2, 1))
MUST = Violation(check="invariant/tool-pairing", message="unpaired")
SHOULD = Violation(check="invariant/append-only", message="moved", severity="should")
EXPECT = Violation(check="expect", message="expect[0]: no")


def test_pass_with_warnings_and_strict_fail() -> None:
    c = case()
    result = decide(c, "anthropic-messages", None, transcript(c, *FULL), [SHOULD], strict=False)
    assert result.verdict == "pass"
    assert result.warnings == (SHOULD,)
    assert result.violations == ()
    strict = decide(c, "anthropic-messages", None, transcript(c, *FULL), [SHOULD], strict=True)
    assert strict.verdict == "fail"
    assert strict.violations == (SHOULD,)


def test_must_violation_fails() -> None:
    c = case()
    result = decide(c, "anthropic-messages", None, transcript(c, *FULL), [MUST], strict=False)
    assert result.verdict == "fail"
    assert result.violations == (MUST,)


@pytest.mark.parametrize(
    ("exchanges", "error", "reason"),
    [
        (FULL, "the target raised ValueError: x", "the target raised ValueError: x"),
        ((exchange(1, 0),), None, "the target stopped after 1 of 2 scripted responses"),
    ],
)
def test_error_when_the_run_cannot_be_judged(
    exchanges: tuple[Exchange, ...], error: str | None, reason: str
) -> None:
    c = case()
    result = decide(
        c,
        "anthropic-messages",
        None,
        transcript(c, *exchanges, error=error),
        [EXPECT],
        strict=False,
    )
    assert result.verdict == "error"
    assert result.reason == reason


def test_a_request_beyond_the_script_is_an_error_unless_a_failure_explains_it() -> None:
    c = case()
    beyond = Violation(check=BEYOND_SCRIPT.id, message="request 3 is beyond the script")
    alone = decide(c, "anthropic-messages", None, transcript(c, *FULL), [beyond], strict=False)
    assert alone.verdict == "error"
    assert alone.reason == "request 3 is beyond the script"
    explained = decide(
        c, "anthropic-messages", None, transcript(c, *FULL), [beyond, MUST], strict=False
    )
    assert explained.verdict == "fail"


def test_a_rejected_request_explains_a_short_run() -> None:
    c = case()
    rejected = exchange(2, None, RULE.violation("bad"))
    violation = Violation(check=RULE.id, message="bad", request=2)
    result = decide(
        c,
        "anthropic-messages",
        None,
        transcript(c, exchange(1, 0), rejected),
        [violation],
        strict=False,
    )
    assert result.verdict == "fail"


def test_pinned_case_shows_its_limitation_or_passes() -> None:
    c = case(pinned=True)
    shown = decide(c, "anthropic-messages", None, transcript(c, *FULL), [], strict=False)
    assert shown.verdict == "pinned"
    assert shown.reason == "a known limit"
    differs = decide(c, "anthropic-messages", None, transcript(c, *FULL), [EXPECT], strict=False)
    assert differs.verdict == "pass"
    assert differs.reason is not None
    assert "did not show" in differs.reason
    broken = decide(c, "anthropic-messages", None, transcript(c, *FULL), [MUST], strict=False)
    assert broken.verdict == "fail"


def test_target_pins_are_strict_xfails() -> None:
    c = case()
    pinned = "known bug #1"
    failing = decide(c, "anthropic-messages", pinned, transcript(c, *FULL), [MUST], strict=False)
    assert failing.verdict == "xfail"
    assert "known bug #1" in (failing.reason or "")
    passing = decide(c, "anthropic-messages", pinned, transcript(c, *FULL), [], strict=False)
    assert passing.verdict == "fail"
    assert "remove the pin" in (passing.reason or "")
    # Which pin applies to a cell (by case, or by case and wire) is the target's
    # declaration: tests/targets/test_resolve.py.
    assert (
        decide(
            c, "anthropic-messages", "wire-specific", transcript(c, *FULL), [MUST], False
        ).verdict
        == "xfail"
    )


def imported_modules(module: ModuleType) -> set[str]:
    tree = ast.parse(inspect.getsource(module))
    found = {a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
    return found | {n.module or "" for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)}


def test_decide_takes_the_pin_and_knows_no_target_code() -> None:
    """Deciding sits above targets only as a consumer of plain data (the pin)."""
    imported = imported_modules(decide_module)
    assert imported, "the scan found no imports at all"
    assert not [
        m for m in imported if m.startswith(("conformance._targets", "conformance._runner"))
    ]


def test_a_request_beyond_the_script_does_not_hide_broken_expectations() -> None:
    """Issue 15: after a truncated turn the target sent one more request; what it sent
    before breaks an expectation, so the cell fails on it (it was an `error` naming only
    the extra request), and the extra request is reported beside it."""
    c = case()
    beyond = Violation(check=BEYOND_SCRIPT.id, message="request 3 is beyond the script")
    result = decide(
        c, "anthropic-messages", None, transcript(c, *FULL), [EXPECT, beyond], strict=False
    )
    assert result.verdict == "fail"
    assert result.violations == (EXPECT, beyond)
    assert result.reason == "also: request 3 is beyond the script"


DESIGN = Violation(check="expect", message="expect[0]: design shape", evidence="design")
INFERRED = Violation(check="invariant/x", message="inferred", evidence="inferred")
DOCUMENTED_SHOULD = Violation(
    check="invariant/y", message="doc", severity="should", evidence="documented"
)


def test_a_violation_resting_on_a_design_document_is_a_warning_by_default() -> None:
    c = case()
    result = decide(c, "anthropic-messages", None, transcript(c, *FULL), [DESIGN], strict=False)
    assert result.verdict == "pass"
    assert result.warnings == (DESIGN,)


def test_strict_does_not_promote_weak_evidence_only_the_any_threshold_does() -> None:
    c = case()
    found = [DESIGN, INFERRED]
    strict = decide(c, "anthropic-messages", None, transcript(c, *FULL), found, strict=True)
    assert strict.verdict == "pass"
    assert strict.warnings == (DESIGN, INFERRED)
    every = decide(
        c, "anthropic-messages", None, transcript(c, *FULL), found, strict=False, evidence="any"
    )
    assert every.verdict == "fail"
    assert every.violations == (DESIGN, INFERRED)


def test_the_documented_threshold_demotes_observed_violations() -> None:
    c = case()
    found = [MUST, DOCUMENTED_SHOULD]
    documented = decide(
        c,
        "anthropic-messages",
        None,
        transcript(c, *FULL),
        found,
        strict=True,
        evidence="documented",
    )
    assert documented.verdict == "fail"
    assert documented.violations == (DOCUMENTED_SHOULD,)
    assert documented.warnings == (MUST,)


def test_a_must_broken_inside_the_script_fails_even_if_the_target_then_crashed() -> None:
    """Issue 13: the target broke an expectation on request 2, sent request 3 beyond the
    script and raised on the provider's 400 (a command exits non-zero): the cell was an
    `error` naming only the crash, hiding the failure the script did judge."""
    c = case()
    beyond_rule = BEYOND_SCRIPT.violation("request 3 is beyond the script")
    run = transcript(c, *FULL, exchange(3, None, beyond_rule), error="exit status 1")
    broke = Violation(check="expect", message="expect[0]: no", request=2)
    beyond = Violation(check=BEYOND_SCRIPT.id, message="request 3 is beyond the script", request=3)
    result = decide(c, "anthropic-messages", None, run, [broke, beyond], strict=False)
    assert result.verdict == "fail"  # was: error
    assert result.violations == (broke, beyond)
    assert result.reason == "also: request 3 is beyond the script; then: exit status 1"
    invariant = Violation(check="invariant/tool-pairing", message="unpaired", request=2)
    assert decide(c, "anthropic-messages", None, run, [invariant, beyond], False).verdict == "fail"


def test_a_crash_after_an_extra_request_with_nothing_broken_inside_is_an_error() -> None:
    """Only what failed inside the script makes it a `fail`: an expectation that fails on
    the extra request itself (``request: -1``), or a warning, leaves the crash an error."""
    c = case()
    beyond_rule = BEYOND_SCRIPT.violation("request 3 is beyond the script")
    run = transcript(c, *FULL, exchange(3, None, beyond_rule), error="exit status 1")
    beyond = Violation(check=BEYOND_SCRIPT.id, message="request 3 is beyond the script", request=3)
    on_extra = Violation(check="expect", message="expect[0]: no", request=3)
    warned = Violation(check="expect", message="w", request=2, severity="should")
    for extra in (on_extra, warned):
        result = decide(c, "anthropic-messages", None, run, [extra, beyond], strict=False)
        assert (result.verdict, result.reason) == ("error", "exit status 1")
