"""The one registry: a book binds each catalogue check to the predicate that judges it,
by id.  The checks are derived from the registrations and the predicates run in
registration order, so the two cannot drift; an id the catalogue lacks fails at import,
an entry no predicate judges fails the listing, and a package outside ``conformance``
contributes its own entries under a namespace of its own."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from conformance._checks.registry import all_checks
from conformance.catalogue._checks import check_entries, contribute, withdraw
from conformance.catalogue.book import Predicate, RuleBook
from conformance.errors import (
    CatalogueFragmentError,
    RuleBookError,
    UnjudgedEntries,
    UnknownCheckId,
)
from conformance.verdict import Rule, Violation


def rule(slug: str) -> Rule:
    return Rule(id=f"fake/{slug}", statement=slug, source="", error=slug)


A, B, C = rule("a"), rule("b"), rule("c")


def book_of_three() -> RuleBook[Predicate[list[str]]]:
    """Predicates that report every check the subject names, each its own."""
    book: RuleBook[Predicate[list[str]]] = RuleBook("fake", __name__)

    @book.checks(B)
    def first(subject: list[str]) -> Iterator[Violation]:
        yield from (B.violation("b") for s in subject if s == "b")

    @book.checks(C, A)
    def second(subject: list[str]) -> Iterator[Violation]:
        for s in subject:
            if s in ("a", "c"):
                yield (A if s == "a" else C).violation(s)

    return book


def test_rules_are_the_registrations_in_order() -> None:
    assert book_of_three().rules == (B, C, A)


def test_checks_run_in_registration_order() -> None:
    found = book_of_three().run(["a", "c", "b"])
    assert [v.message for v in found] == ["b", "a", "c"]


def test_a_predicate_registered_on_kinds_is_asked_only_about_those() -> None:
    """``on`` names the only kinds of subject a predicate finds anything in: ``run``
    skips it for any other (a subclass counts as its kind), keeps the registration
    order, and sees a predicate registered or a book included after a run."""
    book: RuleBook[Predicate[object]] = RuleBook("fake", __name__)
    asked: list[str] = []

    @book.checks(A, on=(int,))
    def numbers(subject: object) -> Iterator[Violation]:
        asked.append(f"numbers {subject!r}")
        yield A.violation("number")

    @book.checks(B)
    def anything(subject: object) -> Iterator[Violation]:
        asked.append(f"anything {subject!r}")
        yield B.violation("anything")

    assert [v.message for v in book.run("x")] == ["anything"]
    assert [v.message for v in book.run(1)] == ["number", "anything"]
    assert [v.message for v in book.run(True)] == ["number", "anything"]
    assert asked == ["anything 'x'", "numbers 1", "anything 1", "numbers True", "anything True"]

    @book.checks(C, on=(str,))
    def words(subject: object) -> Iterator[Violation]:
        yield C.violation("word")

    assert [v.message for v in book.run("x")] == ["anything", "word"]
    other: RuleBook[Predicate[object]] = RuleBook("other", __name__)
    other.checks(A, on=(str,))(lambda subject: [A.violation("included")])
    book.include(other)
    assert [v.message for v in book.run("x")] == ["anything", "word", "included"]
    assert [v.message for v in book.run(2)] == ["number", "anything"]


def test_a_predicate_reporting_a_check_it_did_not_register_is_an_error() -> None:
    book: RuleBook[Predicate[str]] = RuleBook("fake", __name__)

    @book.checks(A)
    def wrong(subject: str) -> Iterator[Violation]:
        yield B.violation("b")

    with pytest.raises(RuleBookError, match="wrong reported fake/b, which it did not register"):
        book.run("x")


def test_a_predicate_must_name_its_checks() -> None:
    with pytest.raises(RuleBookError, match="must name the checks"):
        RuleBook[Predicate[str]]("fake", __name__).checks()


def test_a_check_two_predicates_judge_is_listed_once_at_its_first_place() -> None:
    book: RuleBook[Predicate[str]] = RuleBook("fake", __name__)

    @book.checks(A, B)
    def first(subject: str) -> Iterator[Violation]:
        yield A.violation("first")

    @book.checks(C, A)
    def second(subject: str) -> Iterator[Violation]:
        yield A.violation("second")

    assert book.rules == (A, B, C)
    assert [v.message for v in book.run("x")] == ["first", "second"]


def test_a_rule_has_a_severity_beside_the_checks() -> None:
    assert A.severity == "must"


def test_a_broken_rule_fills_its_error_text_and_keeps_where() -> None:
    missing = Rule(id="fake/m", statement="", source="", error="{at}: Field required")
    found = missing.violated("messages.0.role", at="messages.0.role")
    assert (found.check, found.message, found.at) == (
        "fake/m",
        "messages.0.role: Field required",
        "messages.0.role",
    )
    assert found.broken is missing
    assert "rule" not in found.model_dump()  # reports name the check, never the rule object
    assert A.violated().message == "a"


def test_a_handle_is_the_catalogue_entry() -> None:
    book: RuleBook[Predicate[str]] = RuleBook("anthropic-messages", __name__)
    handle = book.rule("anthropic-messages/field-required")
    entry = check_entries()["anthropic-messages/field-required"]
    assert (handle.statement, handle.error, handle.evidence) == (
        entry.statement,
        entry.error,
        entry.evidence,
    )


def test_an_id_without_an_entry_fails_at_import_naming_id_and_module(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "toy_unlisted_rules.py").write_text(
        "from conformance.catalogue.book import RuleBook\n"
        "BOOK = RuleBook('toy', __name__)\n"
        "MISSING = BOOK.rule('anthropic-messages/field-requird')\n",
        encoding="utf-8",
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(UnknownCheckId) as raised:
        __import__("toy_unlisted_rules")
    message = str(raised.value)
    assert message.startswith("toy_unlisted_rules: check id 'anthropic-messages/field-requird'")
    assert "did you mean 'anthropic-messages/field-required'" in message
    assert raised.value.module == "toy_unlisted_rules"
    sys.modules.pop("toy_unlisted_rules", None)


TOY_FRAGMENT = """\
namespace: toy-wire
checks:
- id: toy-wire/greeting-first
  statement: A toy request opens with a greeting.
  source: the toy wire's own contract
  error: "messages.{i}: say hello first"
  evidence: documented
"""


@pytest.fixture
def toy_package(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A package outside ``conformance`` shipping a checks fragment."""
    package = tmp_path / "toy_wire_pkg"
    package.mkdir()
    (package / "__init__.py").write_text("", encoding="utf-8")
    (package / "checks.yaml").write_text(TOY_FRAGMENT, encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    all_checks.cache_clear()
    yield package
    withdraw("toy-wire")
    all_checks.cache_clear()
    for name in [m for m in sys.modules if m.startswith("toy_wire_pkg")]:
        sys.modules.pop(name)


def test_an_outside_package_contributes_its_checks_under_its_namespace(
    toy_package: Path,
) -> None:
    assert "toy-wire/greeting-first" not in check_entries()
    assert contribute("toy_wire_pkg") == "toy-wire"
    assert contribute("toy_wire_pkg") == "toy-wire"  # asked again: a no-op
    book: RuleBook[Predicate[list[str]]] = RuleBook("toy-wire", "toy_wire_pkg.rules")
    greeting = book.rule("toy-wire/greeting-first")

    @book.checks(greeting)
    def greeted(subject: list[str]) -> Iterator[Violation]:
        if subject and subject[0] != "hello":
            yield greeting.violated("messages.0", i=0)

    (found,) = book.run(["bye"])
    assert (found.check, found.message, found.evidence) == (
        "toy-wire/greeting-first",
        "messages.0: say hello first",
        "documented",
    )


def test_an_entry_without_a_predicate_fails_the_listing(toy_package: Path) -> None:
    contribute("toy_wire_pkg")
    with pytest.raises(UnjudgedEntries, match="toy-wire/greeting-first"):
        all_checks()


def test_a_documentation_only_entry_is_listed_without_a_predicate(toy_package: Path) -> None:
    (toy_package / "checks.yaml").write_text(
        TOY_FRAGMENT + "  documentation_only: the toy wire's docs cite it; nothing judges it\n",
        encoding="utf-8",
    )
    contribute("toy_wire_pkg")
    assert all_checks()[-1].id == "toy-wire/greeting-first"


@pytest.mark.parametrize(
    ("fragment", "refused"),
    [
        (TOY_FRAGMENT.replace("namespace: toy-wire\n", ""), "names its `namespace`"),
        (TOY_FRAGMENT.replace("toy-wire", "invariant"), "'invariant' is taken by the shipped"),
        (
            TOY_FRAGMENT.replace("- id: toy-wire/", "- id: anthropic-messages/"),
            "ids outside namespace 'toy-wire': anthropic-messages/greeting-first",
        ),
        (TOY_FRAGMENT.replace("evidence: documented", "evidence: rumour"), "not a checks"),
    ],
)
def test_a_fragment_that_could_collide_or_does_not_fit_is_refused(
    toy_package: Path, fragment: str, refused: str
) -> None:
    (toy_package / "checks.yaml").write_text(fragment, encoding="utf-8")
    with pytest.raises(CatalogueFragmentError, match=refused):
        contribute("toy_wire_pkg")
    assert not any(i.startswith("toy-wire/") for i in check_entries())


def test_two_packages_cannot_share_a_namespace(toy_package: Path) -> None:
    contribute("toy_wire_pkg")
    other = toy_package.parent / "toy_wire_copy"
    other.mkdir()
    (other / "__init__.py").write_text("", encoding="utf-8")
    (other / "checks.yaml").write_text(TOY_FRAGMENT, encoding="utf-8")
    with pytest.raises(CatalogueFragmentError, match=r"taken by toy_wire_pkg:checks\.yaml"):
        contribute("toy_wire_copy")
    sys.modules.pop("toy_wire_copy", None)


def test_every_shipped_entry_has_a_predicate() -> None:
    """The listing asks it of the whole catalogue: every check and every realism check
    the catalogue ships is reported by some predicate (or says why none judges it)."""
    from conformance._checks.registry import realism_checks
    from conformance.catalogue._checks import realism_entries

    assert {r.id for r in all_checks()} == set(check_entries())
    assert {r.id for r in realism_checks()} == set(realism_entries())


def test_a_realism_entry_without_a_predicate_fails_the_realism_listing(
    toy_package: Path,
) -> None:
    from conformance._checks.registry import realism_checks

    (toy_package / "checks.yaml").write_text(
        "namespace: toy-wire\nrealism:\n- id: toy-wire/realism/no-hello\n"
        "  finding: a toy response that never says hello\n",
        encoding="utf-8",
    )
    realism_checks.cache_clear()
    contribute("toy_wire_pkg")
    try:
        with pytest.raises(UnjudgedEntries, match="toy-wire/realism/no-hello"):
            realism_checks()
    finally:
        withdraw("toy-wire")
        realism_checks.cache_clear()


def test_a_lint_finding_cites_its_realism_check() -> None:
    from conformance._cases.realism import realism_problems
    from conformance.wires._registry import get_wire
    from tests.wires.kit import end, realism_case

    signed = {"kind": "text", "text": "hi", "signature": "c2ln"}
    case = realism_case("anthropic-messages", end(signed))
    assert realism_problems(case, get_wire("anthropic-messages").realism) == [
        "turns.0.responses.0.blocks.0: a text block carries a signature; Anthropic signs only "
        "thinking (anthropic-messages/realism/signed-text-or-call)"
    ]


def test_a_catalogue_entry_is_a_rules_fields_checked() -> None:
    """One list of a check's fields (``verdict.Rule``'s) serves the catalogue's entries."""
    import dataclasses

    import pydantic

    from conformance.catalogue._checks import CheckEntry
    from conformance.verdict import Rule

    rule_fields = [f.name for f in dataclasses.fields(Rule)]
    assert list(CheckEntry.model_fields) == [*rule_fields, "documentation_only"]
    good = {"id": "x/y", "statement": "a statement long enough", "source": "abc"}
    assert CheckEntry.model_validate({**good, "evidence": "design"}).rule().id == "x/y"
    # The negative examples: what the catalogue asks beyond a Rule is still asked.
    for bad in (
        {**good},
        {**good, "evidence": "design", "id": "X Y"},
        {**good, "evidence": "design", "x": 1},
    ):
        with pytest.raises(pydantic.ValidationError):
            CheckEntry.model_validate(bad)


def test_the_leading_thinking_error_text_is_written_once() -> None:
    from importlib import resources

    from conformance.catalogue.book import rule as catalogued

    text = resources.files("conformance.catalogue").joinpath("checks.yaml").read_text("utf-8")
    assert text.count("must start with a thinking block") == 1
    prefill = catalogued("anthropic-messages/prefill-with-thinking", __name__)
    leading = catalogued("anthropic-messages/leading-thinking", __name__)
    assert prefill.error == leading.error
    assert "must start with a thinking block" in leading.error
