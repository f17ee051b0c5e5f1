"""Broken: every reasoning episode of a turn merged into one, first signature kept,
placed first.

The base behaviour of qwen-code PR #8260 (seed §25, §26, §33): "merge-all/keep-first-
signature" concatenated the episodes' text, kept episode one's signature and hoisted
the blob to the front, so a turn ``[A(sigA), call1, B(sigB), call2]`` was replayed as
``[AB(sigA), call1, call2]`` — a mis-signed block the provider rejects.  On Responses
the blob keeps the first item's id and every summary, so the second item's
encrypted_content is lost the same way.
"""

from __future__ import annotations

from typing import ClassVar

from conformance._reference.adapter import ReferenceAdapter, ReferenceSession
from conformance._reference.codec import Decoded
from conformance._reference.consolidate import TurnBlock
from conformance.vocabulary import Reasoning


def _episode(block: TurnBlock) -> bool:
    return isinstance(block, Reasoning) and not block.redacted


class MergeEpisodesSession(ReferenceSession):
    def consolidate(self, decoded: Decoded) -> tuple[TurnBlock, ...]:
        blocks = super().consolidate(decoded)
        episodes = [b for b in blocks if isinstance(b, Reasoning) and _episode(b)]
        if not episodes:
            return blocks
        summaries = [e.summary for e in episodes if e.summary is not None]
        merged = Reasoning(
            text="".join(e.text for e in episodes),
            signature=next((e.signature for e in episodes if e.signature), None),
            id=next((e.id for e in episodes if e.id), None),
            summary=tuple(s for summary in summaries for s in summary) if summaries else None,
        )
        return (merged, *(b for b in blocks if not _episode(b)))


class MergeEpisodesAdapter(ReferenceAdapter):
    name: ClassVar[str] = "broken-merge-episodes"
    session_class: ClassVar[type[ReferenceSession]] = MergeEpisodesSession
