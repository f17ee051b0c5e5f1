"""OpenRouter's ``reasoning_details``, both ways: a reasoning episode written as detail
entries (rendering) and detail entries read back as episodes (parsing, reading,
validation)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from conformance.vocabulary import Reasoning, summary_parts
from conformance.wires import _values as values
from conformance.wires._openai_chat._dialects import Upstream
from conformance.wires._sse import fragments

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
    a last entry (rule 37).  From a Claude upstream the first entry is Claude's empty block
    start relayed, ``"text": "", "signature": ""``, and ``empty_chunk_before_signature``
    adds Claude's empty thinking fragment as an entry of ``"text": ""`` (both as
    pydantic/pydantic-ai tests/models/cassettes/test_openrouter/
    test_openrouter_streaming_reasoning.yaml recorded them).  Not streamed: one entry
    holding the whole text and signature.
    """
    tag = {"index": index, "format": fmt}
    if block.redacted:
        return [{"type": "reasoning.encrypted", "data": block.data or "", **tag}]
    found = [{"type": "reasoning.summary", "summary": s, **tag} for s in block.summary or ()]
    if streamed:
        if fmt == DETAIL_FORMATS["anthropic"] and not block.summary:
            found.append({"type": "reasoning.text", "text": "", "signature": "", **tag})
        found += [
            {"type": "reasoning.text", "text": piece, **tag}
            for piece in fragments(block.text, block.chunks)
        ]
        if block.empty_chunk_before_signature and block.signature:
            found.append({"type": "reasoning.text", "text": "", **tag})
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
    return [(k, _episode(items)) for k, _, items in _groups(details)]


def streamed_episodes(details: object) -> list[Reasoning]:
    """The episodes of a recorded stream's details, each with the stream directive
    ``empty_chunk_before_signature`` where an empty ``reasoning.text`` entry (no
    ``signature`` key: not the block start Claude relays) came right before the
    signature entry, so a case made from the recording streams it again."""
    found: list[Reasoning] = []
    for _, _, items in _groups(details):
        episode = _episode(items)
        signed = [j for j, i in enumerate(items) if i.get("signature")]
        before = items[signed[-1] - 1] if signed and signed[-1] > 0 else {}
        empty = before.get("type") == "reasoning.text" and before.get("text") == ""
        if empty and "signature" not in before:
            episode = episode.model_copy(update={"empty_chunk_before_signature": True})
        found.append(episode)
    return found


def _groups(details: object) -> list[tuple[int, object, list[dict[str, Any]]]]:
    """The entries of ``details`` grouped into episodes (see ``reasoning_episodes``)."""
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
    return groups


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
