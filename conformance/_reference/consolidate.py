"""The wire-agnostic episode tracker: stream fragments in, one assistant turn out.

One pass over the fragments.  Each reasoning episode becomes its own block at the
place it began (never merged with another, never hoisted); its text, summary and
signature fragments are concatenated, byte-exact, untrimmed (seed §24, §28, §29, §36).

An episode closes when

* a text or tool-call block arrives (``flush-on-visible-block``, §24a);
* reasoning with fresh text (or a fresh summary) arrives while the episode already has
  text and a signature, or a piece that its wire marks as the signed last part of a run
  arrives (Gemini: a thought's signature rides its last part) — both
  ``flush-on-fresh-signed-text``, §24b/§27, the signals on wires that mark no block
  boundary (Gemini parts);
* the wire marks the end of the reasoning block (``flush-on-episode-boundary``, §38):
  Anthropic ``content_block_stop``, a Responses ``output_item.done``, an OpenRouter
  detail whose ``index`` is over.

With the boundary guard on, such wires never reach the heuristic's pinned limitations:
two unsigned back-to-back blocks (§34), two text-less signed blocks (§35, the Responses
shape of §108 with summaries off) and ``[sig, text, sig]`` (§37) all split at their
boundary.  On a wire without boundaries those three shapes still merge; the tracker
cannot tell them apart.

Text merges the same way, per key, except that a signed text piece ends its block and a
signature that arrives alone in an empty text part (Gemini, rule 43) is a block of
its own, so every token stays on the text it was minted for (rule 44).
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, TypeAlias

from conformance._reference.fragments import (
    BlockEnd,
    CallArguments,
    CallStart,
    Fragment,
    Key,
    MediaPiece,
    ReasoningPiece,
    RedactedPiece,
    ServerBlock,
    TextPiece,
)
from conformance._reference.guards import Guards
from conformance.vocabulary import Media, Reasoning, ServerToolResult, ServerToolUse, Text, ToolCall

TurnBlock: TypeAlias = Reasoning | Text | ToolCall | Media | ServerToolUse | ServerToolResult


@dataclass
class _Episode:
    key: Key
    text: str = ""
    signature: str = ""
    id: str = ""
    summary: list[str] | None = None
    signed_last_part: bool = False

    @property
    def has_text(self) -> bool:
        return bool(self.text or any(self.summary or ()))


@dataclass
class _TextSlot:
    key: Key
    text: str = ""
    signature: str = ""

    def joins(self, piece: TextPiece) -> bool:
        """Whether ``piece`` continues this block: same key, this block not yet ended by
        a signature, and ``piece`` not a signature arriving alone (rule 43)."""
        return (
            self.key == piece.key and not self.signature and bool(piece.text or not piece.signature)
        )


@dataclass
class _CallSlot:
    key: Key
    id: str
    name: str
    announced: dict[str, Any]
    signature: str = ""
    json: str = ""
    closed: bool = False


_Slot: TypeAlias = (
    _Episode | _TextSlot | _CallSlot | Reasoning | Media | ServerToolUse | ServerToolResult
)


class EpisodeTracker:
    """Feeds on fragments in stream order; ``finish`` returns the turn's blocks."""

    def __init__(self, guards: Guards) -> None:
        self._guards = guards
        self._slots: list[_Slot] = []
        self._open: _Episode | None = None

    def feed(self, fragment: Fragment) -> None:
        if isinstance(fragment, ReasoningPiece):
            self._reasoning(fragment)
        elif isinstance(fragment, RedactedPiece):
            self._open = None  # a redacted block is an episode of its own
            block = Reasoning(redacted=True, data=fragment.data, id=fragment.id or None)
            self._slots.append(block)
        elif isinstance(fragment, TextPiece):
            self._visible_block_arrives()
            last = self._slots[-1] if self._slots else None
            if isinstance(last, _TextSlot) and last.joins(fragment):
                last.text += fragment.text
                last.signature += fragment.signature
            else:
                self._slots.append(_TextSlot(fragment.key, fragment.text, fragment.signature))
        elif isinstance(fragment, CallStart):
            self._visible_block_arrives()
            self._slots.append(
                _CallSlot(
                    fragment.key,
                    fragment.id,
                    fragment.name,
                    dict(fragment.arguments),
                    fragment.signature,
                )
            )
        elif isinstance(fragment, ServerBlock):
            self._visible_block_arrives()
            self._slots.append(fragment.block)
        elif isinstance(fragment, MediaPiece):
            self._visible_block_arrives()
            self._slots.append(Media(mime=fragment.mime, data=fragment.data))
        elif isinstance(fragment, CallArguments):
            call = self._call(fragment.key)
            if call is not None:
                call.json += fragment.json
        else:
            self._block_end(fragment)

    def finish(self, ended: bool) -> tuple[TurnBlock, ...]:
        """The turn's blocks.  ``ended``: the stream reached its terminal event, so a
        call the wire never explicitly closed may still be parsed."""
        blocks: list[TurnBlock] = []
        for slot in self._slots:
            if isinstance(slot, _Episode):
                if slot.has_text or slot.signature or slot.id:
                    blocks.append(_reasoning(slot))
            elif isinstance(slot, _TextSlot):
                if slot.text or (slot.signature and self._guards.on("keep-signature-only-text")):
                    blocks.append(Text(text=slot.text, signature=slot.signature or None))
            elif isinstance(slot, _CallSlot):
                arguments = _arguments(slot, ended)
                signature = slot.signature or None
                blocks.append(
                    ToolCall(id=slot.id, name=slot.name, arguments=arguments, signature=signature)
                )
            else:
                blocks.append(slot)
        return tuple(blocks)

    # ------------------------------------------------------------ episodes

    def _reasoning(self, piece: ReasoningPiece) -> None:
        episode = self._open
        fresh = bool(piece.text or any(piece.summary or ()))
        if (
            episode is not None
            and (episode.signed_last_part or (fresh and episode.has_text and episode.signature))
            and self._guards.on("flush-on-fresh-signed-text")
        ):
            episode = None
        if episode is None:
            episode = _Episode(piece.key)
            self._slots.append(episode)
            self._open = episode
        episode.text += piece.text
        episode.signature += piece.signature
        episode.id = episode.id or piece.id
        if piece.summary is not None:
            episode.summary = [*(episode.summary or ()), *piece.summary]
        # the wire's signed last part of a run (Gemini): the next reasoning starts anew
        episode.signed_last_part = piece.ends and bool(piece.signature)

    def _visible_block_arrives(self) -> None:
        if self._guards.on("flush-on-visible-block"):
            self._open = None

    def _block_end(self, end: BlockEnd) -> None:
        if (
            self._open is not None
            and self._open.key == end.key
            and self._guards.on("flush-on-episode-boundary")
        ):
            self._open = None
        call = self._call(end.key)
        if call is not None:
            call.closed = True

    def _call(self, key: Key) -> _CallSlot | None:
        return next(
            (s for s in reversed(self._slots) if isinstance(s, _CallSlot) and s.key == key),
            None,
        )


def _reasoning(episode: _Episode) -> Reasoning:
    summary = tuple(episode.summary) if episode.summary is not None else None
    return Reasoning(
        text=episode.text,
        signature=episode.signature or None,
        id=episode.id or None,
        summary=summary,
    )


def _arguments(call: _CallSlot, ended: bool) -> dict[str, Any] | str:
    """The parsed argument object, or the raw text when the call never completed
    (rule 2: parse only once the block is complete; rule 16: keep the raw text)."""
    if not (call.closed or ended):
        return call.json
    if not call.json:
        return call.announced
    try:
        value = json.loads(call.json)
    except ValueError:
        return call.json
    return value if isinstance(value, dict) else call.json


def consolidate(
    fragments: Iterable[Fragment], guards: Guards, ended: bool = True
) -> tuple[TurnBlock, ...]:
    """One assistant turn from its fragments, in stream order."""
    tracker = EpisodeTracker(guards)
    for fragment in fragments:
        tracker.feed(fragment)
    return tracker.finish(ended)
