"""The toy request checked against the book."""

from __future__ import annotations

from conformance.verdict import Violation
from conformance.vocabulary import Reasoning
from conformance.wires.context import RequestView, ValidationContext
from toy_wire_pack.toy_echo._checked import Checked
from toy_wire_pack.toy_echo.rules import BOOK


def validate(view: RequestView, context: ValidationContext) -> list[Violation]:
    minted = {
        block.signature
        for response in context.served
        for block in response.blocks
        if isinstance(block, Reasoning)
    }
    minted |= {
        block.signature
        for message in context.history
        for block in message.blocks
        if isinstance(block, Reasoning)
    }
    return BOOK.run(Checked(view, frozenset(minted)))
