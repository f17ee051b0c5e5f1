"""Server-sent events in, JSON objects out: the one SSE reader every decoder uses.

Parsing is httpx-sse's (comments and keep-alives are skipped there); a data line that is
not a JSON object (Chat's ``[DONE]``) is handed back as text for the decoder to judge.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import httpx
from httpx_sse import EventSource


@dataclass(frozen=True)
class Event:
    """One SSE event: its name (``""`` when the stream sends none), its raw data, and
    that data as a JSON object when it is one."""

    name: str
    data: str
    json: dict[str, Any] | None


def events(body: bytes) -> Iterator[Event]:
    response = httpx.Response(200, headers={"content-type": "text/event-stream"}, content=body)
    for sse in EventSource(response).iter_sse():
        yield Event(sse.event if sse.event != "message" else "", sse.data, _object(sse.data))


def _object(data: str) -> dict[str, Any] | None:
    try:
        value = json.loads(data)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None
