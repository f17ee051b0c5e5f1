"""Plain HTTP exchange records shared by the provider, its transports and the targets."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class HttpRequest:
    """One request exactly as it arrived: method, path, raw query, headers, body bytes.

    A transport that could not keep the body says why: ``dropped`` is the ``(size,
    sha256)`` of a body above the provider's cap, read but not kept; ``framing`` is why
    the body could not be read at all (a bad ``Content-Length``, a bad chunk size).
    """

    method: str
    path: str
    body: bytes = b""
    query: str = ""
    headers: Mapping[str, str] = field(default_factory=dict)
    dropped: tuple[int, str] | None = None
    framing: str | None = None

    def header(self, name: str) -> str | None:
        lowered = name.lower()
        return next((v for k, v in self.headers.items() if k.lower() == lowered), None)


@dataclass(frozen=True)
class HttpResponse:
    """One response.  ``chunks`` holds the body split where a streaming server flushes
    (one SSE event each, or the reads a case's framing names); the joined chunks are
    always ``body``."""

    status: int
    body: bytes
    headers: tuple[tuple[str, str], ...] = ()
    chunks: tuple[bytes, ...] = ()
    #: The case framed these bytes (``conformance.wires._reframe``): every transport
    #: hands ``chunks`` to the client as separate reads, not only a socket.
    framed: bool = False

    @property
    def streaming(self) -> bool:
        return any(k.lower() == "content-type" and "event-stream" in v for k, v in self.headers)

    def json(self) -> Any:
        return json.loads(self.body)


def json_response(
    status: int, payload: Any, headers: Mapping[str, str] | None = None
) -> HttpResponse:
    """A JSON response with deterministic bytes."""
    body = json.dumps(payload, ensure_ascii=False, separators=(",", ":")).encode()
    merged = {"content-type": "application/json", **(headers or {})}
    return HttpResponse(status, body, tuple(merged.items()))
