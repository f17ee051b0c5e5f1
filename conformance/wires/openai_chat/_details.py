"""OpenRouter's ``reasoning_details``, both ways: a reasoning episode written as detail
entries (rendering) and detail entries read back as episodes (parsing, reading,
validation)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from conformance.model import Reasoning, summary_parts
from conformance.wires import values
from conformance.wires.openai_chat._dialects import Upstream
from conformance.wires.sse import fragments

#: OpenRouter's ``format`` of a reasoning detail, by upstream.
DETAIL_FORMATS: dict[Upstream, str] = {
    "anthropic": "anthropic-claude-v1",
    "google": "google-gemini-v1",
}


def episode_details(
    block: Reasoning, index: int, fmt: str, *, streamed: bool
) -> list[dict[str, Any]]:
    """A reasoning episode as OpenRouter ``reasoning_details`` entries.

    Streamed: one ``reasoning.text`` entry per text fragment, then the signature alone in
    a last entry (rule 37).  Not streamed: one entry holding the whole text and signature.
    """
    tag = {"index": index, "format": fmt}
    if block.redacted:
        return [{"type": "reasoning.encrypted", "data": block.data or "", **tag}]
    found = [{"type": "reasoning.summary", "summary": s, **tag} for s in block.summary or ()]
    if streamed:
        found += [
            {"type": "reasoning.text", "text": piece, **tag}
            for piece in fragments(block.text, block.chunks)
        ]
        if block.signature:
            found.append({"type": "reasoning.text", "signature": block.signature, **tag})
    elif block.text or block.signature:
        whole: dict[str, Any] = {"type": "reasoning.text", "text": block.text}
        if block.signature:
            whole["signature"] = block.signature
        found.append({**whole, **tag})
    return found


#: The group key of an encrypted detail: equal to no ``index``, so it never merges.
_ENCRYPTED = object()


def reasoning_episodes(details: object) -> list[tuple[int, Reasoning]]:
    """OpenRouter ``reasoning_details`` as episodes, each with the position of its first
    entry: consecutive ``reasoning.text``/``reasoning.summary`` entries with the same
    ``index`` merge into one Reasoning (texts joined, the signature kept); each
    ``reasoning.encrypted`` entry is one redacted Reasoning; unknown types are left out."""
    groups: list[tuple[int, object, list[dict[str, Any]]]] = []
    for k, item in enumerate(details if isinstance(details, list) else ()):
        if not isinstance(item, dict):
            continue
        kind = item.get("type")
        if kind == "reasoning.encrypted":
            groups.append((k, _ENCRYPTED, [item]))
        elif kind in ("reasoning.text", "reasoning.summary"):
            key = item.get("index")
            if groups and groups[-1][1] is not _ENCRYPTED and groups[-1][1] == key:
                groups[-1][2].append(item)
            else:
                groups.append((k, key, [item]))
    return [(k, _episode(items)) for k, _, items in groups]


def _episode(items: Sequence[dict[str, Any]]) -> Reasoning:
    if items[0].get("type") == "reasoning.encrypted":
        return Reasoning(redacted=True, data=values.optional_text(items[0].get("data")))
    texts = [i for i in items if i.get("type") == "reasoning.text"]
    signatures = [s for i in texts if isinstance(s := i.get("signature"), str) and s]
    summaries = tuple(
        values.text(i.get("summary")) for i in items if i.get("type") == "reasoning.summary"
    )
    return Reasoning(
        text="".join(values.text(i.get("text")) for i in texts),
        signature=signatures[-1] if signatures else None,
        summary=summary_parts(summaries),
    )
