"""Broken: a Gemini model turn rebuilt from an OpenAI-style message, text before calls.

An adapter that keeps a model turn as one text plus a list of tool calls (the shape of
an OpenAI-style assistant message, which many multi-provider libraries store) renders
every text part ahead of the functionCall parts, so a text part that Gemini sent after a
call, with its thoughtSignature, moves in front of it (rule 41, 44: parts go back in the
order they came, each signature on its own part).  No hand-written case put text after a
call on Gemini; generation found it (``generate --target
harness.broken.text_before_calls:TextBeforeCallsAdapter --wire gemini --profile ci
--seed 0``), and the shrunk counterexample is
``cases/opaque-ledger/gemini-signed-text-after-call-stays-after-it``.
"""

from __future__ import annotations

from typing import ClassVar

from conformance._reference.adapter import ReferenceAdapter, ReferenceSession
from conformance._reference.codec import Decoded
from conformance._reference.consolidate import TurnBlock
from conformance.vocabulary import Text, ToolCall


class TextBeforeCallsSession(ReferenceSession):
    def consolidate(self, decoded: Decoded) -> tuple[TurnBlock, ...]:
        blocks = super().consolidate(decoded)
        first = next((i for i, b in enumerate(blocks) if isinstance(b, ToolCall)), None)
        if first is None:
            return blocks
        later = blocks[first:]
        texts = tuple(b for b in later if isinstance(b, Text))
        rest = tuple(b for b in later if not isinstance(b, Text))
        return (*blocks[:first], *texts, *rest)


class TextBeforeCallsAdapter(ReferenceAdapter):
    name: ClassVar[str] = "broken-text-before-calls"
    wires: ClassVar[frozenset[str]] = frozenset({"gemini"})
    session_class: ClassVar[type[ReferenceSession]] = TextBeforeCallsSession
