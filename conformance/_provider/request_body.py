"""Reading an HTTP/1.1 request body off a socket, within the provider's size cap.

A body is framed by ``Content-Length`` or by chunked transfer coding.  A frame that
makes no sense (``Content-Length: abc``, a negative length, a chunk size that is not
hex) is named, so the provider answers it with a 400 and records it, instead of the
server dropping the connection or reading until the client gives up.  A body above
the cap is read through a hash and not kept.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Protocol

from conformance.errors import FramingError

#: Bytes read from the socket at a time while hashing a body that is not kept.
_BLOCK = 1 << 16
#: The longest chunk-size line read (a hex size and extensions).
_LINE = 4096
#: The largest length one frame may announce (a ``Content-Length`` or a chunk size):
#: 1 GiB, 32 times the body cap.  A body above the cap is read through a hash to
#: record it; a frame announcing more than this (a chunk size of 2^80) is refused before
#: any of it is read, instead of holding a connection thread until the client gives up.
MAX_FRAME = 1 << 30


class _Stream(Protocol):
    def read(self, size: int = -1, /) -> bytes: ...
    def readline(self, size: int = -1, /) -> bytes: ...


@dataclass(frozen=True)
class Body:
    """A request body as read: its bytes, or, above the cap, only its size and hash."""

    data: bytes
    dropped: tuple[int, str] | None = None


class _Sink:
    """Keeps bytes up to the cap, then only counts and hashes them."""

    def __init__(self, cap: int) -> None:
        self.cap = cap
        self.kept: list[bytes] = []
        self.size = 0
        self.digest = hashlib.sha256()

    def add(self, data: bytes) -> None:
        self.size += len(data)
        self.digest.update(data)
        if self.size <= self.cap:
            self.kept.append(data)
        else:
            self.kept.clear()

    def body(self) -> Body:
        if self.size > self.cap:
            return Body(b"", (self.size, self.digest.hexdigest()))
        return Body(b"".join(self.kept))


def _read_exactly(stream: _Stream, length: int, sink: _Sink) -> None:
    while length > 0:
        data = stream.read(min(length, _BLOCK))
        if not data:
            raise FramingError(f"the body ended {length} bytes short of its length")
        sink.add(data)
        length -= len(data)


def _announced(what: str, size: int) -> int:
    """``size``, unless it is above ``MAX_FRAME``."""
    if size > MAX_FRAME:
        raise FramingError(
            f"{what} announces more than the {MAX_FRAME} bytes a frame may announce;"
            " refused before reading it"
        )
    return size


def _content_length(value: str) -> int:
    text = value.strip()
    if not text.isdigit() or not text.isascii():
        raise FramingError(f"Content-Length {value!r} is not a non-negative integer")
    digits = text.lstrip("0") or "0"  # int() refuses more than 4300 digits
    size = int(digits) if len(digits) <= 19 else MAX_FRAME + 1
    return _announced(f"Content-Length {text[:40]!r}", size)


def _chunk_size(line: bytes) -> int:
    if not line.endswith(b"\n"):
        raise FramingError("a chunk-size line is cut or longer than 4096 bytes")
    text = line.split(b";")[0].strip()
    try:
        size = int(text, 16)
    except ValueError:
        raise FramingError(f"chunk size {text[:40]!r} is not hexadecimal") from None
    if size < 0 or text.startswith((b"-", b"+")):
        raise FramingError(f"chunk size {text[:40]!r} is negative")
    return _announced(f"chunk size {text[:40]!r}", size)


def _chunked(stream: _Stream, sink: _Sink) -> None:
    while size := _chunk_size(stream.readline(_LINE)):
        _read_exactly(stream, size, sink)
        stream.readline(_LINE)
    while stream.readline(_LINE).strip():  # trailers, up to the blank line
        pass


def read_body(stream: _Stream, headers: Mapping[str, str], cap: int) -> Body:
    """The body that follows ``headers`` on ``stream``; raises ``FramingError``."""
    lowered = {name.lower(): value for name, value in headers.items()}
    sink = _Sink(cap)
    if "chunked" in lowered.get("transfer-encoding", "").lower():
        _chunked(stream, sink)
    elif "content-length" in lowered:
        _read_exactly(stream, _content_length(lowered["content-length"]), sink)
    return sink.body()
