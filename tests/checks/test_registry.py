"""The registry: every check is listed with provenance, and ``run_checks`` reports the
three sources in a fixed order."""

from __future__ import annotations

import re

from conformance.cases.schema import Case
from conformance.checks.registry import Check, all_checks, run_checks
from conformance.provider.scripted import BEYOND_SCRIPT
from conformance.wires.base import RuleViolation
from tests.checks.kit import (
    call,
    fake_wire,
    ideal_views,
    make_case,
    message,
    replace_message,
    respond,
    text,
    think,
    transcript,
)

LEDGER = [
    "invariant/ledger-known",
    "invariant/ledger-foreign",
    "invariant/ledger-paired",
    "invariant/ledger-once",
    "invariant/ledger-order",
    "invariant/ledger-current-loop",
    "invariant/ledger-complete",
]
OTHERS = [
    "invariant/tool-pairing",
    "invariant/no-empty-message",
    "invariant/no-reasoning-in-user-input",
    "invariant/append-only",
    "invariant/truncated-call-not-run",
]


def test_every_check_is_listed_once_with_provenance() -> None:
    checks = all_checks()
    assert [c.id for c in checks] == ["expect", *LEDGER, *OTHERS]
    for check in checks:
        assert isinstance(check, Check)
        assert check.severity in ("must", "should")
        assert "\n" not in check.statement
        assert check.statement.endswith(".")
        assert re.search(r"wire-rules|seed|DESIGN", check.source), check.id


def test_should_checks_are_the_costly_ones() -> None:
    should = {c.id for c in all_checks() if c.severity == "should"}
    assert should == {"invariant/ledger-complete", "invariant/append-only"}


def one_loop() -> Case:
    """A signed call turn, and an expectation that the signature comes back."""
    return make_case(
        [
            respond("tool_calls", think("A", "sigA"), call("alpha")),
            respond("end", text("done")),
        ],
        expect=[
            {
                "in": {"request": 2, "role": "assistant", "nth": 0},
                "contains": [{"signature": "sigA"}],
            }
        ],
    )


def test_a_correct_run_has_no_violations() -> None:
    case = one_loop()
    assert run_checks(transcript(case, ideal_views(case)), fake_wire()) == []


def test_provider_rules_then_expectations_then_invariants() -> None:
    case = one_loop()
    views = ideal_views(case)
    views[1] = replace_message(views[1], 1, call("alpha"))
    extra = views[1].model_copy(update={"messages": (*views[1].messages, message("user"))})
    rule = RuleViolation(BEYOND_SCRIPT, "request 3 is beyond the script", at="messages")
    run = transcript(case, [*views, extra], [0, 1, None], violations={3: [rule]})
    found = run_checks(run, fake_wire())
    assert [v.check for v in found] == [
        "provider/beyond-script",
        "expect",
        "invariant/ledger-current-loop",
        "invariant/ledger-current-loop",
        "invariant/no-empty-message",
    ]
    first = found[0]
    assert (first.request, first.at, first.severity) == (3, "messages", "must")
    assert first.message == "request 3 is beyond the script"
    assert run_checks(run, fake_wire()) == found
