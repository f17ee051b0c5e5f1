"""The wire-agnostic episode tracker: stream fragments in, one assistant turn out.

One pass over the fragments.  Each reasoning episode becomes its own block at the
place it began (never merged with another, never hoisted); its text and signature
fragments are concatenated, byte-exact, untrimmed (seed §24, §28, §29, §36).

An episode closes when

* a text or tool-call block arrives (``flush-on-visible-block``, §24a);
* reasoning with fresh text arrives while the episode already has text and a signature
  (``flush-on-fresh-signed-text``, §24b/§27) — the only signal on wires that mark no
  block boundary;
* the wire marks the end of the reasoning block (``flush-on-episode-boundary``, §38).

With the boundary guard on, Anthropic streams never reach the heuristic's pinned
limitations: two unsigned back-to-back blocks (§34), two text-less signed blocks (§35)
and ``[sig, text, sig]`` (§37) all split at their ``content_block_stop``.  On a wire
without boundaries those three shapes still merge; the tracker cannot tell them apart.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, TypeAlias

from conformance.model import Reasoning, Text, ToolCall
from conformance.reference.fragments import (
    BlockEnd,
    CallArguments,
    CallStart,
    Fragment,
    Key,
    ReasoningPiece,
    RedactedPiece,
    TextPiece,
)
from conformance.reference.guards import Guards

TurnBlock: TypeAlias = Reasoning | Text | ToolCall


@dataclass
class _Episode:
    key: Key
    text: str = ""
    signature: str = ""


@dataclass
class _TextSlot:
    key: Key
    text: str = ""


@dataclass
class _CallSlot:
    key: Key
    id: str
    name: str
    announced: dict[str, Any]
    json: str = ""
    closed: bool = False


_Slot: TypeAlias = _Episode | _TextSlot | _CallSlot | Reasoning


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
            self._slots.append(Reasoning(redacted=True, data=fragment.data))
        elif isinstance(fragment, TextPiece):
            self._visible_block_arrives()
            last = self._slots[-1] if self._slots else None
            if isinstance(last, _TextSlot) and last.key == fragment.key:
                last.text += fragment.text
            else:
                self._slots.append(_TextSlot(fragment.key, fragment.text))
        elif isinstance(fragment, CallStart):
            self._visible_block_arrives()
            self._slots.append(
                _CallSlot(fragment.key, fragment.id, fragment.name, dict(fragment.arguments))
            )
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
                if slot.text or slot.signature:
                    blocks.append(Reasoning(text=slot.text, signature=slot.signature or None))
            elif isinstance(slot, _TextSlot):
                if slot.text:
                    blocks.append(Text(text=slot.text))
            elif isinstance(slot, _CallSlot):
                arguments = _arguments(slot, ended)
                blocks.append(ToolCall(id=slot.id, name=slot.name, arguments=arguments))
            else:
                blocks.append(slot)
        return tuple(blocks)

    # ------------------------------------------------------------ episodes

    def _reasoning(self, piece: ReasoningPiece) -> None:
        episode = self._open
        if (
            episode is not None
            and piece.text
            and episode.text
            and episode.signature
            and self._guards.on("flush-on-fresh-signed-text")
        ):
            episode = None
        if episode is None:
            episode = _Episode(piece.key)
            self._slots.append(episode)
            self._open = episode
        episode.text += piece.text
        episode.signature += piece.signature

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


def _arguments(call: _CallSlot, ended: bool) -> dict[str, Any] | str:
    """The parsed argument object, or the raw text when the call never completed
    (wire-rules 2: parse only once the block is complete; rule 16: keep the raw text)."""
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
