"""Neutral stream fragments: what every wire decoder turns its stream into.

A decoder knows its wire's events; the consolidator knows episodes.  Fragments are the
narrow language between them, so one episode tracker serves every wire.  ``key`` names
the wire's block (Anthropic's ``index``, a Responses ``output_index``, a Chat tool-call
``index``, ...); wires without block boundaries (Gemini parts) may reuse one key.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, TypeAlias

from conformance.vocabulary import ServerToolResult, ServerToolUse

Key: TypeAlias = int | str


@dataclass(frozen=True)
class ReasoningPiece:
    """A fragment of reasoning text and/or of its replay token (either may be empty).

    ``id`` names the wire's reasoning item (Responses ``rs_…``, an OpenRouter detail id);
    ``summary`` holds whole summary parts this fragment adds (Responses
    ``summary_text``, OpenRouter ``reasoning.summary``); ``None`` says the fragment
    carries no summary at all, ``()`` an explicitly empty one.  ``ends``: the wire puts
    a run's signature on its last part (Gemini), so this signed piece ends its run.
    """

    key: Key
    text: str = ""
    signature: str = ""
    id: str = ""
    summary: tuple[str, ...] | None = None
    ends: bool = False


@dataclass(frozen=True)
class RedactedPiece:
    """A whole redacted reasoning block: always an episode of its own."""

    key: Key
    data: str
    id: str = ""


@dataclass(frozen=True)
class TextPiece:
    """A fragment of visible text; consecutive pieces with one key form one block.

    ``signature`` is a replay token riding on the text (Gemini signs text parts); a
    signed piece ends its block.
    """

    key: Key
    text: str
    signature: str = ""


@dataclass(frozen=True)
class CallStart:
    """A tool call begins; ``arguments`` is what the wire announced before any delta;
    ``signature`` a replay token on the call itself (Gemini's part-level sibling)."""

    key: Key
    id: str
    name: str
    arguments: dict[str, Any] = field(default_factory=dict)
    signature: str = ""


@dataclass(frozen=True)
class CallArguments:
    """A raw fragment of a call's argument JSON."""

    key: Key
    json: str


@dataclass(frozen=True)
class MediaPiece:
    """A whole media part the model returned (Gemini ``inlineData``): a block of its own."""

    key: Key
    mime: str
    data: str


@dataclass(frozen=True)
class BlockEnd:
    """The wire says block ``key`` is complete (Anthropic ``content_block_stop``,
    Responses ``output_item.done``)."""

    key: Key


@dataclass(frozen=True)
class ServerBlock:
    """A whole block of a tool the provider ran itself (Anthropic ``server_tool_use`` and
    its ``*_tool_result``): kept as received, never run, never answered (rule 14)."""

    key: Key
    block: ServerToolUse | ServerToolResult


Fragment: TypeAlias = (
    ReasoningPiece
    | RedactedPiece
    | TextPiece
    | MediaPiece
    | CallStart
    | CallArguments
    | BlockEnd
    | ServerBlock
)
