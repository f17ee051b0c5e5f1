"""Broken: signed parts with empty visible text dropped, signature and all.

Stream assemblers that treat a text-less part as empty (wire-rules 4, 43, "Third"
pattern of the summary; langchain-ai/langchain#38638; google-gemini/gemini-cli#25808;
seed §30's signature-only mid-turn episode): ``[A(sig1), call1, ""(sig2), call2]``
loses ``sig2``, on Anthropic a tool-use turn can lose its leading thinking block
(rule 6), on Responses a reasoning item with an empty summary vanishes, and on Gemini
the empty text part that carries a signature is dropped.
"""

from __future__ import annotations

from typing import ClassVar

from conformance._reference.adapter import ReferenceAdapter, ReferenceSession
from conformance._reference.codec import Decoded
from conformance._reference.consolidate import TurnBlock
from conformance.vocabulary import Reasoning, Text


def _looks_empty(block: TurnBlock) -> bool:
    """No visible text (reasoning text or summary, or answer text) beside a token."""
    if isinstance(block, Reasoning):
        return not block.redacted and not block.text and not any(block.summary or ())
    return isinstance(block, Text) and not block.text


class DropSignatureOnlySession(ReferenceSession):
    def consolidate(self, decoded: Decoded) -> tuple[TurnBlock, ...]:
        return tuple(b for b in super().consolidate(decoded) if not _looks_empty(b))


class DropSignatureOnlyAdapter(ReferenceAdapter):
    name: ClassVar[str] = "broken-drop-signature-only"
    session_class: ClassVar[type[ReferenceSession]] = DropSignatureOnlySession
