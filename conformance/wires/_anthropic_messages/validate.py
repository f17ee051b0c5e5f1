"""Applies the rule book to a request: the body's raw ``messages`` read entry by entry,
against what the provider remembers of the session; each check yields the violations it
finds, with Anthropic's error text filled in, in the order of ``rules.RULES``."""

from __future__ import annotations

from conformance.verdict import Violation
from conformance.wires._anthropic_messages._raw import CheckedRequest, RawMessage
from conformance.wires._anthropic_messages.rules import BOOK
from conformance.wires.context import RequestView, ValidationContext


def validate(view: RequestView, context: ValidationContext) -> list[Violation]:
    """Every rule the request breaks, in check order (empty: the provider accepts it)."""
    raw_messages = view.raw.get("messages")
    messages = raw_messages if isinstance(raw_messages, list) else []
    check = CheckedRequest(
        view, context, tuple(RawMessage.of(i, m) for i, m in enumerate(messages))
    )
    return BOOK.run(check)
