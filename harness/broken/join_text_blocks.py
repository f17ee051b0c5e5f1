"""Broken: consecutive visible text blocks of a response joined into one, the first
block's signature kept.

The common ``"".join(texts)`` flattening of an assistant message: harmless where text
carries nothing opaque, but Gemini signs text parts, and the second part's
``thoughtSignature`` is lost (rule 44: every token stays on the text it was minted
for).  No hand-written case streams two signed, non-empty Gemini text parts in a row;
generation found it (``cases/opaque-ledger/``).
"""

from __future__ import annotations

from typing import ClassVar

from conformance.model import Text
from conformance.reference.adapter import ReferenceAdapter, ReferenceSession
from conformance.reference.codec import Decoded
from conformance.reference.consolidate import TurnBlock


class JoinTextBlocksSession(ReferenceSession):
    def consolidate(self, decoded: Decoded) -> tuple[TurnBlock, ...]:
        joined: list[TurnBlock] = []
        for block in super().consolidate(decoded):
            before = joined[-1] if joined else None
            if isinstance(block, Text) and block.text and isinstance(before, Text) and before.text:
                joined[-1] = before.model_copy(update={"text": before.text + block.text})
                continue
            joined.append(block)
        return tuple(joined)


class JoinTextBlocksAdapter(ReferenceAdapter):
    name: ClassVar[str] = "broken-join-text-blocks"
    session_class: ClassVar[type[ReferenceSession]] = JoinTextBlocksSession
