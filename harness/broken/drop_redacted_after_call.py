"""Broken: redacted reasoning that arrives after a tool call dropped.

A consolidator that keeps ``redacted_thinking`` only in the leading reasoning run of a
response (treating a blob after a call as stray) loses the blob Anthropic sends
between two parallel calls, or before a later call of an interleaved turn: its data
never comes back (rule 7: every thinking and redacted_thinking block of the latest
assistant message returns unchanged).  No hand-written case puts a redacted block
after a call; generation found it (``cases/redacted-reasoning/``).
"""

from __future__ import annotations

from typing import ClassVar

from conformance.model import Reasoning, ToolCall
from conformance.reference.adapter import ReferenceAdapter, ReferenceSession
from conformance.reference.codec import Decoded
from conformance.reference.consolidate import TurnBlock


class DropRedactedAfterCallSession(ReferenceSession):
    def consolidate(self, decoded: Decoded) -> tuple[TurnBlock, ...]:
        kept: list[TurnBlock] = []
        for block in super().consolidate(decoded):
            called = any(isinstance(b, ToolCall) for b in kept)
            if called and isinstance(block, Reasoning) and block.redacted:
                continue
            kept.append(block)
        return tuple(kept)


class DropRedactedAfterCallAdapter(ReferenceAdapter):
    name: ClassVar[str] = "broken-drop-redacted-after-call"
    session_class: ClassVar[type[ReferenceSession]] = DropRedactedAfterCallSession
