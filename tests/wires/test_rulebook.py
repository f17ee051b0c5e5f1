"""A rule book binds each rule to the check that applies it: the rules are derived from
the registrations and the checks run in registration order, so the two cannot drift."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from conformance.errors import RuleBookError
from conformance.wires.base import Rule, RuleViolation
from conformance.wires.rulebook import RuleBook


def rule(slug: str) -> Rule:
    return Rule(id=f"fake/{slug}", ref="", statement=slug, source="", error=slug)


A, B, C = rule("a"), rule("b"), rule("c")


def book_of_three() -> RuleBook[list[str]]:
    """Checks that report every rule the subject names, each its own."""
    book: RuleBook[list[str]] = RuleBook("fake")

    @book.checks(B)
    def first(subject: list[str]) -> Iterator[RuleViolation]:
        yield from (RuleViolation(B, "b") for s in subject if s == "b")

    @book.checks(C, A)
    def second(subject: list[str]) -> Iterator[RuleViolation]:
        for s in subject:
            if s in ("a", "c"):
                yield RuleViolation(A if s == "a" else C, s)

    return book


def test_rules_are_the_registrations_in_order() -> None:
    assert book_of_three().rules == (B, C, A)


def test_checks_run_in_registration_order() -> None:
    found = book_of_three().run(["a", "c", "b"])
    assert [v.message for v in found] == ["b", "a", "c"]


def test_a_check_reporting_a_rule_it_did_not_register_is_an_error() -> None:
    book: RuleBook[str] = RuleBook("fake")

    @book.checks(A)
    def wrong(subject: str) -> Iterator[RuleViolation]:
        yield RuleViolation(B, "b")

    with pytest.raises(RuleBookError, match="wrong reported fake/b, which it did not register"):
        book.run("x")


def test_a_check_must_name_its_rules() -> None:
    with pytest.raises(RuleBookError, match="must name the rules"):
        RuleBook[str]("fake").checks()


def test_a_rule_two_checks_apply_is_listed_once_at_its_first_place() -> None:
    book: RuleBook[str] = RuleBook("fake")

    @book.checks(A, B)
    def first(subject: str) -> Iterator[RuleViolation]:
        yield RuleViolation(A, "first")

    @book.checks(C, A)
    def second(subject: str) -> Iterator[RuleViolation]:
        yield RuleViolation(A, "second")

    assert book.rules == (A, B, C)
    assert [v.message for v in book.run("x")] == ["first", "second"]


def test_a_rule_has_a_severity_beside_the_checks() -> None:
    assert A.severity == "must"


def test_a_broken_rule_fills_its_error_text_and_keeps_where() -> None:
    missing = Rule(id="fake/m", ref="", statement="", source="", error="{at}: Field required")
    found = missing.violated("messages.0.role", at="messages.0.role")
    assert found == RuleViolation(missing, "messages.0.role: Field required", "messages.0.role")
    assert A.violated() == RuleViolation(A, "a", None)
