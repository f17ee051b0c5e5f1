"""What a judge of the transcript is, kept apart from the registry so the modules that
judge checks can register their judges without importing the registry that runs them.

Every module that judges checks keeps one book (``conformance.catalogue.book.RuleBook``,
the registry the wires use too): it looks up each check it reports by id, the data
being the catalogue's, and decorates each judge with ``@BOOK.checks(check, ...)``.
``conformance._checks.registry`` reads the modules' books in a fixed order, so the order
never depends on which module was imported first.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeAlias

from conformance._transcript import Transcript
from conformance.catalogue.book import RuleBook
from conformance.verdict import Violation
from conformance.wires.roles import Wire

#: A function that judges a transcript and returns the violations of its check(s).
Judge: TypeAlias = Callable[[Transcript, Wire], list[Violation]]
#: The book of a module that judges transcripts.
JudgeBook: TypeAlias = RuleBook[Judge]
