"""Accepted: a tool_use cut by the output limit kept, with an empty ``input``, and
answered with an error ``tool_result`` instead of dropped.  Rule 16 names both repairs;
keeping the call is the one that leaves every thinking block of the cut response in
place, so nothing that ends the message is thinking and nothing is removed (rules 7, 9).
"""

from __future__ import annotations

from typing import ClassVar

from conformance._reference.adapter import ReferenceAdapter, ReferenceSession
from conformance._reference.codec import Decoded
from conformance._reference.consolidate import TurnBlock
from conformance.vocabulary import TRUNCATING_STOPS, ToolCall


class AnswerCutCallsSession(ReferenceSession):
    def consolidate(self, decoded: Decoded) -> tuple[TurnBlock, ...]:
        blocks = super().consolidate(decoded)
        if decoded.stop not in TRUNCATING_STOPS:
            return blocks
        return tuple(
            b.model_copy(update={"arguments": {}})
            if isinstance(b, ToolCall) and not b.complete
            else b
            for b in blocks
        )


class AnswerCutCallsAdapter(ReferenceAdapter):
    name: ClassVar[str] = "accepted-answer-cut-calls"
    wires: ClassVar[frozenset[str]] = frozenset({"anthropic-messages"})
    session_class: ClassVar[type[ReferenceSession]] = AnswerCutCallsSession
