"""Broken: reasoning episodes with empty text dropped, signature and all.

Stream assemblers that treat a text-less part as empty (wire-rules 4, "Third" pattern
of the summary; langchain-ai/langchain#38638; seed §30's signature-only mid-turn
episode): ``[A(sig1), call1, ""(sig2), call2]`` loses ``sig2``, and on Anthropic a
tool-use turn can lose its leading thinking block (rule 6).
"""

from __future__ import annotations

from typing import ClassVar

from conformance.model import Reasoning
from conformance.reference.adapter import ReferenceAdapter, ReferenceSession
from conformance.reference.codec import Decoded
from conformance.reference.consolidate import TurnBlock


class DropSignatureOnlySession(ReferenceSession):
    def consolidate(self, decoded: Decoded) -> tuple[TurnBlock, ...]:
        return tuple(
            b
            for b in super().consolidate(decoded)
            if not (isinstance(b, Reasoning) and not b.redacted and not b.text)
        )


class DropSignatureOnlyAdapter(ReferenceAdapter):
    name: ClassVar[str] = "broken-drop-signature-only"
    session_class: ClassVar[type[ReferenceSession]] = DropSignatureOnlySession
