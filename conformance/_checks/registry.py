"""Every check of the suite, and the one entry point that runs them on a transcript.

The checklists are read in one fixed order, which is both the order ``all_checks`` lists
the checks in and the order their violations appear in a report:

1. ``recorded``: the provider rules, then each wire's rules (wires by name), which the
   scripted provider enforced while it served the run;
2. ``expectations``: the case's ``expect`` list;
3. ``ledger``: the opaque-payload ledger;
4. ``invariants``: the other universal invariants;
5. the check packs installed distributions declare (the entry-point group
   ``wire_conformance.checks``: a module with a ``CHECKLIST``), by entry name.

Same transcript, same list.
"""

from __future__ import annotations

from functools import cache

from conformance._checks import expectations, invariants, ledger, recorded, retries
from conformance._checks.check import Judge, JudgeBook
from conformance._plugins import CHECKS, Plugin, attribute, load_each
from conformance._transcript import Transcript
from conformance.catalogue._checks import (
    check_entries,
    contribute_beside,
    documentation_only,
    realism_entries,
)
from conformance.catalogue.book import Registered, RuleBook, rule
from conformance.errors import UnjudgedEntries
from conformance.verdict import Rule, Violation
from conformance.wires._registry import get_wire, wire_names
from conformance.wires.roles import Wire

__all__ = [
    "BOOKS",
    "MORE_VIOLATIONS",
    "UnjudgedEntries",
    "all_checks",
    "realism_checks",
    "registered",
    "run_checks",
]

#: The book of every module that judges checks, in report order.
BOOKS: tuple[JudgeBook, ...] = (
    recorded.BOOK,
    expectations.BOOK,
    ledger.BOOK,
    invariants.BOOK,
    retries.BOOK,
)


def _pack_book(plugin: Plugin) -> JudgeBook:
    contribute_beside(plugin.module)  # its checks' data, before its judges look them up
    book = attribute(plugin, "BOOK")
    if not isinstance(book, RuleBook):
        raise TypeError(f"{plugin.module}.BOOK is not a RuleBook")
    return book


@cache
def registered() -> tuple[Registered[Judge], ...]:
    """Every judge with its checks, in report order: the suite's, then the check packs'."""
    packs = [book for _, book in load_each(CHECKS, _pack_book)[0]]
    return tuple(entry for book in (*BOOKS, *packs) for entry in book.registered)


#: The report's own entry, not a judge's (``documentation_only`` in the catalogue): a
#: cell that broke more than the report keeps (``_runner.capped``) counts the rest in one
#: entry with this id, so that every id a report prints resolves in
#: ``wire-conformance checks``.
MORE_VIOLATIONS = rule("report/more-violations", __name__)


@cache
def all_checks() -> tuple[Rule, ...]:
    """Every check (rules, expectations, ledger, invariants), in report order, then the
    entries no predicate judges (the report's own); ``UnjudgedEntries`` when the
    catalogue holds an entry that no predicate judges and that does not say why."""
    judged = tuple(dict.fromkeys(rule for entry in registered() for rule in entry.rules))
    listed = {rule.id for rule in judged} | {rule.id for rule in documentation_only()}
    unjudged = [check_id for check_id in check_entries() if check_id not in listed]
    if unjudged:
        raise UnjudgedEntries(
            "catalogue entries without a predicate (register one, or say "
            f"`documentation_only` and why): {', '.join(unjudged)}"
        )
    return (*judged, *documentation_only())


@cache
def realism_checks() -> tuple[Rule, ...]:
    """Every realism check the case lint reports, wire by wire (wires by name), each once;
    ``UnjudgedEntries`` when the catalogue holds one no wire's predicates report."""
    found = tuple(
        dict.fromkeys(rule for name in wire_names() for rule in get_wire(name).realism.rules)
    )
    listed = {rule.id for rule in found}
    unjudged = [check_id for check_id in realism_entries() if check_id not in listed]
    if unjudged:
        raise UnjudgedEntries(f"realism entries no wire's predicates report: {', '.join(unjudged)}")
    return found


def run_checks(transcript: Transcript, wire: Wire) -> list[Violation]:
    """Every violation of the run, judge by judge in report order."""
    found: list[Violation] = []
    for entry in registered():
        found += entry.predicate(transcript, wire)
    return found
