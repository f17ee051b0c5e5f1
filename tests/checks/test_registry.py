"""The registry: every check (rules, expectations, ledger, invariants) is listed once with
provenance, and ``run_checks`` reports them in the same fixed order."""

from __future__ import annotations

import importlib
import pkgutil
import re

import pytest

import conformance._checks
from conformance._cases.schema import Case
from conformance._checks.check import JudgeBook
from conformance._checks.expectations import expectations
from conformance._checks.invariants import (
    append_only,
    no_empty_message,
    no_reasoning_in_user_input,
    tool_pairing,
    truncated_call_not_run,
)
from conformance._checks.ledger import ledger_violations
from conformance._checks.recorded import recorded_violations
from conformance._checks.registry import (
    BOOKS,
    MORE_VIOLATIONS,
    all_checks,
    registered,
    run_checks,
)
from conformance._checks.retries import retry_identical
from conformance._provider.scripted import BEYOND_SCRIPT, PROVIDER_RULES
from conformance._transcript import Transcript
from conformance.catalogue.book import RuleBook
from conformance.verdict import Rule, Violation
from conformance.wires._registry import get_wire, wire_names
from conformance.wires.roles import Wire
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
    "invariant/retry-identical",
    "report/more-violations",  # the report's own entry: counts what a capped cell left out
]


def rule_checks() -> list[Rule]:
    """The provider's and the wires' rules, gathered independently."""
    return [*PROVIDER_RULES, *(r for name in wire_names() for r in get_wire(name).rules)]


def judged_checks() -> list[Rule]:
    """The checks the suite judges itself (not bound to a provider or wire rule)."""
    return [check for check in all_checks() if check.ref is None]


def test_every_check_is_listed_once_with_provenance() -> None:
    checks = judged_checks()
    assert [c.id for c in checks] == ["expect", *LEDGER, *OTHERS]
    for check in checks:
        assert isinstance(check, Rule)
        assert check.severity in ("must", "should")
        assert "\n" not in check.statement
        assert check.statement.endswith(".")
        assert re.search(r"\brules? |seed |docs/", check.source), check.id


def test_all_checks_lists_every_rule_first_then_the_judged_checks() -> None:
    rules = rule_checks()
    assert len(rules) > len(PROVIDER_RULES) + len(wire_names())  # every wire has rules
    assert list(all_checks()) == [*rules, *judged_checks()]
    ids = [c.id for c in all_checks()]
    assert len(ids) == len(set(ids))
    for check in rules:
        assert check.ref, check.id
        assert check.source, check.id
        assert check.statement, check.id


def test_each_registered_judge_reports_only_its_own_checks() -> None:
    judged = registered()
    assert [j.predicate for j in judged] == [
        recorded_violations,
        expectations,
        ledger_violations,
        tool_pairing,
        no_empty_message,
        no_reasoning_in_user_input,
        append_only,
        truncated_call_not_run,
        retry_identical,
    ]
    # Every check is a judge's, but the report's own entry, which no judge reports.
    assert [c for j in judged for c in j.rules] == [
        c for c in all_checks() if c is not MORE_VIOLATIONS
    ]


def test_every_module_that_declares_a_book_is_registered() -> None:
    found = []
    for module in pkgutil.iter_modules(conformance._checks.__path__):
        imported = importlib.import_module(f"conformance._checks.{module.name}")
        book = getattr(imported, "BOOK", None)
        if isinstance(book, RuleBook):
            found.append(book)
    assert len(found) == len(BOOKS)
    assert all(any(c is r for r in BOOKS) for c in found)


def test_a_book_keeps_its_declaration_order_and_needs_a_check() -> None:
    book = JudgeBook("test", __name__)
    first, second = Rule("a", "A.", "s"), Rule("b", "B.", "s", severity="should")

    @book.checks(second)
    def later(transcript: Transcript, wire: Wire) -> list[Violation]:
        return []

    @book.checks(first)
    def earlier(transcript: Transcript, wire: Wire) -> list[Violation]:
        return []

    assert [(j.predicate, j.rules) for j in book.registered] == [
        (later, (second,)),
        (earlier, (first,)),
    ]
    with pytest.raises(ValueError, match="must name the checks"):
        book.checks()


def test_rule_checks_are_read_when_listed_not_when_registered() -> None:
    book = JudgeBook("test", __name__)
    asked: list[int] = []

    def rules() -> tuple[Rule, ...]:
        asked.append(1)
        return (BEYOND_SCRIPT,)

    @book.checks_lazily(rules)
    def recorded(transcript: Transcript, wire: Wire) -> list[Violation]:
        return []

    assert asked == []
    (judged,) = book.registered
    assert judged.rules == (BEYOND_SCRIPT,)
    assert asked == [1]


def test_should_checks_are_the_costly_ones() -> None:
    should = {c.id for c in judged_checks() if c.severity == "should"}
    assert should == {
        "invariant/ledger-complete",
        "invariant/append-only",
        "invariant/retry-identical",
    }


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
    rule = BEYOND_SCRIPT.violation("request 3 is beyond the script", at="messages")
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
