"""A saved conversation in a wire's own request form, both ways.

``hold`` renders the neutral history with the wire's ``render_history`` and reads it
back with the wire's ``parse``: what comes back is what a client storing that JSON
holds.  A history that does not come back whole (a block the wire has no field for:
reasoning on plain Chat, a signature on DeepSeek's ``reasoning_content``) says where it
breaks.  Who minted a token (``origin``) has no field on any wire, so it travels beside
the JSON, keyed by the block's location as the wire's errors write it.  ``load`` is the
way back a command takes.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from conformance.errors import HistoryLoadError, RequestParseError
from conformance.http import HttpRequest
from conformance.vocabulary import Block, Message, Options, Reasoning, summary_parts
from conformance.wires.context import ValidationContext
from conformance.wires.roles import Wire

#: Fields of a block that steer how a response streams: never part of a request.
STREAM_DIRECTIVES = frozenset({"chunks", "signature_chunks", "empty_chunk_before_signature"})


@dataclass(frozen=True)
class HeldHistory:
    """A history as the wire holds it: the body ``fields`` (``None`` when the wire cannot
    hold it, ``lost`` says where) and the ``origins`` of tokens minted elsewhere."""

    fields: dict[str, Any] | None
    origins: dict[str, str] = field(default_factory=dict)
    lost: str | None = None


def _plain(block: Block) -> Block:
    fields = type(block).model_fields
    drop: dict[str, Any] = {
        name: fields[name].default
        for name in STREAM_DIRECTIVES | {"origin", "readings"}
        if name in fields
    }
    if isinstance(block, Reasoning):
        drop["summary"] = summary_parts(block.summary)
    return block.model_copy(update=drop) if drop else block


def as_stored(messages: Sequence[Message]) -> tuple[Message, ...]:
    """The history without what no request body carries: stream directives, origins and
    the readings a wire adds to a result it reads; a reasoning summary in the neutral form
    every wire's view reads (``summary: []`` and no summary are one value,
    ``vocabulary.summary_parts``)."""
    return tuple(Message(role=m.role, blocks=tuple(_plain(b) for b in m.blocks)) for m in messages)


def _request(wire: Wire, fields: Mapping[str, Any], dialect: str | None) -> HttpRequest:
    model = wire.default_model(dialect)
    body = json.dumps({"model": model, **fields}, ensure_ascii=False).encode()
    return HttpRequest("POST", wire.endpoint(model, False), body=body)


def _context(dialect: str | None) -> ValidationContext:
    return ValidationContext(number=1, options=Options(), served=(), dialect=dialect)


def _first_difference(want: Sequence[Message], got: Sequence[Message]) -> str:
    for i, (a, b) in enumerate(zip(want, got, strict=False)):
        if a.role != b.role:
            return f"message {i} comes back as a {b.role} message, not {a.role}"
        for j, (x, y) in enumerate(zip(a.blocks, b.blocks, strict=False)):
            if x != y:
                return f"message {i} block {j} ({x.kind}) does not come back as it was"
        if len(a.blocks) != len(b.blocks):
            k = min(len(a.blocks), len(b.blocks))
            what = a.blocks[k].kind if k < len(a.blocks) else b.blocks[k].kind
            return f"message {i} block {k} ({what}) has no place on this wire"
    return f"{len(want)} messages come back as {len(got)}"


def hold(wire: Wire, messages: Sequence[Message], dialect: str | None) -> HeldHistory:
    """The history in the wire's request form, or where that form cannot hold it."""
    fields = wire.render_history(messages, dialect)
    view = wire.parse(_request(wire, fields, dialect), _context(dialect))
    want = as_stored(messages)
    got = as_stored(view.messages)
    if got != want:
        return HeldHistory(None, lost=_first_difference(want, got))
    origins = {
        view.locations[i][1][j]: origin
        for i, message in enumerate(messages)
        for j, block in enumerate(message.blocks)
        if (origin := getattr(block, "origin", None)) is not None
    }
    return HeldHistory(fields, origins)


def load(wire: Wire, fields: object, origins: object, dialect: str | None) -> tuple[Message, ...]:
    """Saved wire JSON (and the origins beside it) as neutral messages, read by the
    wire's own ``parse``; raises ``HistoryLoadError`` saying why it does not load."""
    if not isinstance(fields, dict):
        raise HistoryLoadError("the wire history is not a JSON object of request fields")
    if not isinstance(origins, dict) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in origins.items()
    ):
        raise HistoryLoadError("the history origins are not an object of strings")
    try:
        view = wire.parse(_request(wire, fields, dialect), _context(dialect))
    except RequestParseError as error:
        raise HistoryLoadError(f"{wire.name} does not read it: {error.message}") from None
    placed = {
        at: (i, j) for i, (_, blocks) in enumerate(view.locations) for j, at in enumerate(blocks)
    }
    messages = [list(m.blocks) for m in view.messages]
    for at, origin in origins.items():
        if at not in placed:
            raise HistoryLoadError(f"an origin names {at}, where the history holds no block")
        i, j = placed[at]
        messages[i][j] = messages[i][j].model_copy(update={"origin": origin})
    return tuple(
        Message(role=m.role, blocks=tuple(blocks))
        for m, blocks in zip(view.messages, messages, strict=True)
    )
