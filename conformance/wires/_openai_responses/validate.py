"""Applies the rule book to a request: the input expanded with what the provider stored
(``_state.ExpandedInput``), checked in the order of ``rules.RULES``."""

from __future__ import annotations

from conformance.verdict import Violation
from conformance.wires._openai_responses._state import ExpandedInput
from conformance.wires._openai_responses.rules import BOOK
from conformance.wires.context import RequestView, ValidationContext


def validate(view: RequestView, context: ValidationContext) -> list[Violation]:
    """Every violation in the request, in check order."""
    return BOOK.run(ExpandedInput.of(view.raw, context))
