"""Server-sent events the way provider streams write them, shared by every streaming wire.

One event is an optional ``event:`` line, one ``data:`` line of compact JSON and a blank
line (a data-only stream, as Chat Completions sends, passes ``None`` as the name); a
comment line is a keep-alive clients must skip; ``data: [DONE]`` ends a Chat Completions
stream.  A stream directive's chunk sizes cut a text into the fragments its deltas carry.
"""

from __future__ import annotations

import json
from collections.abc import Sequence


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
