"""A reference adapter that joins adjacent signed thinking blocks into one (texts
concatenated, the first signature kept), as a client does that stores one thinking
block per message.  Nothing between them, so every interleaved case misses it."""

from __future__ import annotations

from typing import ClassVar

from conformance._reference.adapter import ReferenceAdapter, ReferenceSession
from conformance._reference.codec import Decoded
from conformance._reference.consolidate import TurnBlock
from conformance.vocabulary import Reasoning


def _signed(block: TurnBlock) -> bool:
    return isinstance(block, Reasoning) and not block.redacted and bool(block.signature)


class _MergeAdjacentSession(ReferenceSession):
    def consolidate(self, decoded: Decoded) -> tuple[TurnBlock, ...]:
        merged: list[TurnBlock] = []
        for block in super().consolidate(decoded):
            last = merged[-1] if merged else None
            if _signed(block) and last is not None and _signed(last):
                assert isinstance(last, Reasoning)
                assert isinstance(block, Reasoning)
                merged[-1] = Reasoning(text=last.text + block.text, signature=last.signature)
            else:
                merged.append(block)
        return tuple(merged)


class MergeAdjacentSignedThinking(ReferenceAdapter):
    name: ClassVar[str] = "merge-adjacent-signed-thinking"
    session_class: ClassVar[type[ReferenceSession]] = _MergeAdjacentSession
