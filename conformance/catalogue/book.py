"""The one registry of the suite: a book binds predicates to the catalogue checks they
judge, by id.

A module that judges checks keeps a ``RuleBook``, looks up each check it reports by id
(``BOOK.rule("anthropic-messages/field-required")``: the data is the catalogue's) and
registers each predicate with the checks it judges (``@BOOK.checks(RULE_A, RULE_B)``).
An id without a catalogue entry fails at import (``UnknownCheckId``, naming the id and
the module).  ``rules`` is derived from the registrations, so the list of a book's
checks and the predicates that judge them cannot disagree in order or in membership;
``run`` applies the predicates in registration order, which is the order the provider
checks them in (its first violation is its answer), and a predicate reporting a check it
did not register is an error.  A check two predicates judge (OpenRouter's Anthropic
signature, judged on every message and again on the latest one) is listed once, at its
first registration.

Wires register predicates over their own request view; ``conformance._checks`` registers
judges over a transcript.  Whether every entry has a predicate is asked of the whole
listing (``conformance._checks.registry.all_checks``): the wires load lazily.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, Generic, ParamSpec, TypeVar

from conformance.catalogue._checks import check_entries, check_rules
from conformance.errors import RuleBookError, UnknownCheckId, close_to
from conformance.verdict import Rule, Violation

#: What a book's predicates are: a wire's over its view of one request, a judge's over a
#: transcript and its wire.
P = TypeVar("P", bound=Callable[..., Any])
#: A predicate keeps its own signature when registered: one that reads only a wire's role
#: still says so, and a test double of that role fits it.
G = TypeVar("G", bound=Callable[..., Any])
Subject = TypeVar("Subject")
#: A wire's predicate: the violations of its view of one request.
Predicate = Callable[[Subject], Iterable[Violation]]
#: What a predicate a book runs is asked about: one request view, or a block and where
#: it sits (a realism predicate).
Asked = ParamSpec("Asked")


def rule(check_id: str, module: str) -> Rule:
    """The catalogue's check ``check_id``, for ``module`` to judge; ``UnknownCheckId``
    when the catalogue has no such entry."""
    found = check_rules().get(check_id)
    if found is None:
        raise UnknownCheckId(check_id, module, close_to(check_id, check_entries()))
    return found


@dataclass(frozen=True)
class Registered(Generic[P]):
    """A predicate and the checks whose violations it returns, in the order it returns
    them (read when listed: a judge of every wire's rules reads them lazily)."""

    predicate: P
    listed: Callable[[], tuple[Rule, ...]]
    #: The kinds of subject (the first thing a predicate is asked about: a realism
    #: predicate's block) in which alone it can find anything; empty: any subject.
    on: tuple[type[Any], ...] = ()

    @property
    def rules(self) -> tuple[Rule, ...]:
        return self.listed()


class RuleBook(Generic[P]):
    """The checks of one module (or wire) in judging order, each bound to its predicate."""

    def __init__(self, name: str, module: str) -> None:
        self.name = name
        self.module = module
        self._entries: list[Registered[P]] = []
        #: The entries ``run`` calls for a subject of each class (see ``_for_subject``).
        self._by_subject: dict[type[Any] | None, tuple[Registered[P], ...]] = {}

    def rule(self, check_id: str) -> Rule:
        """The catalogue's check ``check_id``: the handle a predicate reports it with."""
        return rule(check_id, self.module)

    def checks(self, *rules: Rule, on: tuple[type[Any], ...] = ()) -> Callable[[G], G]:
        """Register the decorated predicate as the one that judges ``rules`` (in this
        order in ``rules``).  ``on``: the only kinds of subject it finds anything in (a
        realism predicate that starts with ``isinstance(block, Reasoning)``), so ``run``
        does not call it about any other."""
        if not rules:
            raise RuleBookError(f"{self.name}: a predicate must name the checks it judges")
        return self._register(lambda: rules, on)

    def checks_lazily(self, rules: Callable[[], Iterable[Rule]]) -> Callable[[G], G]:
        """Register the decorated predicate as the judge of ``rules()``, read only when
        the checks are listed (the wires that define rules load lazily)."""
        return self._register(lambda: tuple(rules()))

    def include(self, other: RuleBook[P]) -> None:
        """Append ``other``'s registrations (a wire's book made of two modules)."""
        self._entries += other._entries
        self._by_subject.clear()

    def _register(
        self, listed: Callable[[], tuple[Rule, ...]], on: tuple[type[Any], ...] = ()
    ) -> Callable[[G], G]:
        def register(predicate: G) -> G:
            self._entries.append(Registered(predicate, listed, on))  # type: ignore[arg-type]
            self._by_subject.clear()
            return predicate

        return register

    @property
    def registered(self) -> tuple[Registered[P], ...]:
        return tuple(self._entries)

    @property
    def rules(self) -> tuple[Rule, ...]:
        """Every check once, in the order the predicates run."""
        return tuple(dict.fromkeys(r for entry in self._entries for r in entry.rules))

    def run(
        self: RuleBook[Callable[Asked, Iterable[Violation]]],
        *asked: Asked.args,
        **named: Asked.kwargs,
    ) -> list[Violation]:
        """Every violation of what is ``asked``, predicate by predicate in registration
        order; a predicate that reports a check it was not registered with is a bug, not
        a verdict."""
        found: list[Violation] = []
        for entry in self._for_subject(type(asked[0]) if asked else None):
            for violation in entry.predicate(*asked, **named):
                if violation.check not in {r.id for r in entry.rules}:
                    name = getattr(entry.predicate, "__name__", entry.predicate)
                    raise RuleBookError(
                        f"{self.name}: {name} reported {violation.check}, which it did not register"
                    )
                found.append(violation)
        return found

    def _for_subject(self, subject: type[Any] | None) -> tuple[Registered[P], ...]:
        """The entries, in registration order, whose predicates can find something in a
        subject of class ``subject``: the others (registered ``on`` other kinds) would
        find nothing, so skipping them changes no finding.  Remembered per class (the
        realism lint asks about a dozen predicates per block, most of them about one
        kind), and forgotten when a predicate is registered or a book included."""
        entries = self._by_subject.get(subject)
        if entries is None:
            entries = tuple(
                entry
                for entry in self._entries
                if not entry.on or (subject is not None and issubclass(subject, entry.on))
            )
            self._by_subject[subject] = entries
        return entries
