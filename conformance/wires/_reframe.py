"""Byte-level framing of a served body: the SSE line endings and where its reads end.

A scripted response's ``framing`` changes only the bytes a client has to reassemble,
never what they say: the SSE spec ends a line with CRLF, LF or CR, and a network read
may end anywhere, inside a UTF-8 sequence or an SSE line.  Every wire's body goes
through ``reframe`` after it is rendered, so each transport (respx, loopback, a command's
socket) hands the target exactly these bytes, in exactly these pieces.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Sequence

from conformance.http import HttpResponse
from conformance.vocabulary import Framing

_ENDINGS = {"lf": b"\n", "crlf": b"\r\n", "cr": b"\r"}
#: One line of a body whose line endings may be any of the three.
_LINE = re.compile(rb"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+$")


def reframe(response: HttpResponse, framing: Framing | None) -> HttpResponse:
    """``response`` with ``framing`` applied: its event stream's line breaks rewritten
    (a JSON body keeps its own) and its body cut into the reads the framing names."""
    if framing is None:
        return response
    pieces = response.chunks or (response.body,)
    if response.streaming and framing.line_ending != "lf":
        # Compact JSON escapes every control character, so each raw LF in an event
        # stream is a line break of the framing, never a byte of a payload.
        ending = _ENDINGS[framing.line_ending]
        pieces = tuple(piece.replace(b"\n", ending) for piece in pieces)
    body = b"".join(pieces)
    if framing.reads is not None:
        pieces = split(body, cuts(body, framing.reads))
    return HttpResponse(response.status, body, response.headers, tuple(pieces), framed=True)


def cuts(body: bytes, reads: str | Sequence[int]) -> list[int]:
    """The offsets where a read ends (each strictly inside ``body``), in order."""
    if not isinstance(reads, str):
        offsets, at = [], 0
        for size in reads:
            at += size
            if at >= len(body):
                break
            offsets.append(at)
        return offsets
    if reads == "bytewise":
        return list(range(1, len(body)))
    if reads == "mid-character":
        return [i + 1 for i, byte in enumerate(body) if byte >= 0xC0]  # after a lead byte
    return [
        match.start() + (match.end() - match.start()) // 2
        for match in _LINE.finditer(body)
        if match.end() - match.start() > 1
    ]


def split(body: bytes, offsets: Sequence[int]) -> tuple[bytes, ...]:
    """``body`` cut at ``offsets``: the pieces always join back to it."""
    bounds = [0, *(o for o in offsets if 0 < o < len(body)), len(body)]
    return tuple(body[a:b] for a, b in itertools.pairwise(bounds) if b > a)
