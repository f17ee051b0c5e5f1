"""Server-sent events the way provider streams write them, shared by every streaming wire.

One event is an optional ``event:`` line, one ``data:`` line of compact JSON and a blank
line (a data-only stream, as Chat Completions sends, passes ``None`` as the name); a
comment line is a keep-alive clients must skip; ``data: [DONE]`` ends a Chat Completions
stream.  A stream directive's chunk sizes cut a text into the fragments its deltas carry.
Reading a recorded stream back splits it with httpx-sse, the way clients split it.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import httpx
from httpx_sse import EventSource

from conformance.errors import ResponseReadError
from conformance.wires._reading import response_text
from conformance.wires._reframe import split


def format_event(event: str | None, data: object) -> bytes:
    """One SSE event: ``event: <name>`` (omitted when ``None``), then ``data: <json>``."""
    payload = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    head = "" if event is None else f"event: {event}\n"
    return f"{head}data: {payload}\n\n".encode()


#: The sentinel event that ends an OpenAI Chat Completions stream (not JSON).
DONE = b"data: [DONE]\n\n"


def format_comment(text: str) -> bytes:
    """An SSE comment (``: <text>``): a keep-alive such as OpenRouter's
    ``: OPENROUTER PROCESSING``, which carries no event and which clients must ignore."""
    return f": {text}\n\n".encode()


def fragments(text: str, sizes: Sequence[int] | None) -> list[str]:
    """``text`` cut into pieces of ``sizes`` characters, in order.

    ``None`` means one piece; whatever the sizes leave over is one more piece, and sizes
    that run past the end are cut short, so the pieces always join back to ``text``.  An
    empty text has no pieces: a stream sends no delta for it.
    """
    if not text:
        return []
    if sizes is None:
        return [text]
    pieces: list[str] = []
    start = 0
    for size in sizes:
        if start >= len(text):
            break
        pieces.append(text[start : start + size])
        start += size
    if start < len(text):
        pieces.append(text[start:])
    return pieces


# ---------------------------------------------------------------- reading a recorded stream


@dataclass(frozen=True)
class StreamEvent:
    """One event of a recorded stream: its place (counting from 1), its ``event:`` name
    (``None`` in a data-only stream) and its data text."""

    number: int
    name: str | None
    data: str

    def at(self, kind: str | None = None) -> str:
        """Where the event is, for an error: ``event 7 (content_block_delta)``."""
        label = kind or self.name
        return f"event {self.number}" + (f" ({label})" if label else "")

    def object(self) -> dict[str, Any]:
        """The data as a JSON object, which every provider event is."""
        try:
            value = json.loads(self.data)
        except json.JSONDecodeError as error:
            raise ResponseReadError(f"the data is not JSON: {error.msg}", self.at()) from None
        if not isinstance(value, dict):
            raise ResponseReadError("the data is not a JSON object", self.at())
        return value


def read_events(body: bytes) -> list[StreamEvent]:
    """The events of a recorded SSE body, split by httpx-sse as a client splits them:
    comments (keep-alives) are skipped, and so is an event with no data, which the SSE
    spec never dispatches (a lone ``retry:`` or ``event:``).  An event cut before its
    blank line is never dispatched either: a stream cut mid-event ends at the one before.
    A body with no event at all is not a stream."""
    response_text(body)  # a stray byte is named before httpx-sse would replace it
    response = httpx.Response(
        200, headers={"content-type": "text/event-stream; charset=utf-8"}, content=body
    )
    found: list[StreamEvent] = []
    for sse in EventSource(response).iter_sse():
        if sse.data:
            name = None if sse.event == "message" else sse.event
            found.append(StreamEvent(len(found) + 1, name, sse.data))
    if not found:
        raise ResponseReadError("no server-sent event in the body", "byte 0")
    return found


def looks_streamed(body: bytes) -> bool:
    """Whether a recorded body is a stream: it has SSE ``data:``/``event:`` lines, or it
    is a JSON array (Gemini's stream without ``alt=sse``); else it is one JSON answer."""
    if body.lstrip().startswith(b"["):
        return True
    return any(
        line.startswith((b"data:", b"event:")) for line in body.replace(b"\r", b"\n").split(b"\n")
    )


#: Where an SSE event ends: the blank line after it, in any of the spec's line endings.
_EVENT_END = re.compile(rb"\r\n\r\n|\n\n|\r\r")


def event_pieces(body: bytes) -> tuple[bytes, ...]:
    """An SSE body cut after each event's blank line, one piece per event (comments
    included), the pieces joining back to ``body``: the reads a server that flushes once
    per event gives, for a recorded body that kept no read boundaries."""
    return split(body, [match.end() for match in _EVENT_END.finditer(body)])


def cut_event(body: bytes) -> tuple[int, bytes] | None:
    """Where an SSE body is cut inside an event, and that partial event: ``(byte offset,
    text)``, or ``None`` when the body ends on an event's blank line (or holds only
    blank lines after it).  A client never dispatches the partial event
    (``read_events``); a reader of the recording should hear that it was there."""
    ends = [match.end() for match in _EVENT_END.finditer(body)]
    start = ends[-1] if ends else 0
    tail = body[start:]
    if not tail.strip() or not looks_streamed(tail if ends else body):
        return None
    return start, tail


def event_kind(event: StreamEvent) -> str | None:
    """What an event is: its data's ``type`` (Anthropic and Responses name every event in
    its data), else its ``event:`` name."""
    try:
        data = json.loads(event.data)
    except ValueError:
        return event.name
    kind = data.get("type") if isinstance(data, dict) else None
    return kind if isinstance(kind, str) else event.name
