"""Broken: redacted reasoning that arrives after a tool call dropped.

A consolidator that keeps redacted reasoning only in the leading reasoning run of a
response (treating a blob after a call as stray) loses the Anthropic
``redacted_thinking`` blob, or OpenRouter's ``reasoning.encrypted`` detail, that an
interleaved turn sends after a call: its data never comes back (rule 3, 7).  No
hand-written case put a redacted block after a call; generation found it (``generate
--target harness.broken:DropRedactedAfterCallAdapter --wire openai-chat:openrouter
--profile ci --seed 0``), and the shrunk counterexample is
``cases/interleaved-episodes/openrouter-redacted-detail-after-a-call-kept-in-place``.
"""

from __future__ import annotations

from typing import ClassVar

from conformance._reference.adapter import ReferenceAdapter, ReferenceSession
from conformance._reference.codec import Decoded
from conformance._reference.consolidate import TurnBlock
from conformance.vocabulary import Reasoning, ToolCall


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
