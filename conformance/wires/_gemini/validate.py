"""Applies the rule book to a request: the raw ``contents`` read entry by entry, against
what the provider remembers of the session, in the order of ``rules.RULES``."""

from __future__ import annotations

from conformance.verdict import Violation
from conformance.wires._gemini._checked import CheckedRequest, Content
from conformance.wires._gemini._fields import get
from conformance.wires._gemini.rules import BOOK
from conformance.wires.context import RequestView, ValidationContext


def validate(view: RequestView, context: ValidationContext) -> list[Violation]:
    """Every rule's violations, in check order."""
    raw = get(view.raw, "contents")
    contents = tuple(Content.of(i, c) for i, c in enumerate(raw if isinstance(raw, list) else ()))
    return BOOK.run(CheckedRequest(view, context, contents))
