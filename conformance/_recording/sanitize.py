"""Take credentials out of an exchange before it is written, and find any left in one
that is read.

One table of credential shapes (``KEY_SHAPES``) serves both sides: the recorder replaces
what it finds, the loader refuses a file where it still finds one, so the recorder never
writes a file the loader then refuses.

What goes: the values of credential headers (``authorization``, ``x-api-key``,
``api-key``, ``x-goog-api-key``, cookies, and any header whose name says auth, token,
secret or password), key query parameters, and anything shaped like a provider key or
token wherever it stands: in any header value, the query, a body (plain, or gzip- and
deflate-encoded), a stream, after a URL escape (``Bearer%20sk-…``, ``Bearer+sk-…``), or
base64-encoded.  A key in a body is replaced by a placeholder of the same length, so the
stream's bytes keep their offsets and its chunk boundaries stay where they were.

What stays byte-exact: opaque replay payloads (signatures, ``encrypted_content``,
redacted blobs), ids, and everything else, because replay and the ledger compare them
byte for byte.  A payload is base64, one token with no separator in it; a key-shaped
run inside it is part of that token, not a key, so inside an opaque field only a whole
token counts (``"id": "sk-ant-…"``, ``"data": "Bearer sk-…"``).  A base64 token counts
only when its decoded bytes hold a key: a long blob is never flagged for its length.
``redact_text`` also replaces visible text (prompts, answers, reasoning text, tool
output) with same-length placeholders, for a recording that must not keep user content.
"""

from __future__ import annotations

import base64
import binascii
import bisect
import gzip
import re
import zlib
from collections.abc import Iterator, Mapping, Sequence
from urllib.parse import parse_qsl, unquote_plus, urlencode

#: 2: keys in any header, after URL escapes, in opaque fields, base64-encoded, in gzip
#: and deflate bodies, and Google OAuth tokens.
SANITIZER_VERSION = 2

#: Headers whose value is a credential (compared lowercased).
SECRET_HEADERS = frozenset(
    {
        "authorization",
        "proxy-authorization",
        "x-api-key",
        "api-key",
        "x-goog-api-key",
        "cookie",
        "set-cookie",
    }
)
#: Any other header whose name holds one of these words (split at ``-`` and ``_``) is a
#: credential too: ``x-custom-auth``, ``x-debug-token``, ``x-amz-security-token``.  Rate
#: limit headers say ``tokens``, not ``token``, and keep their values.
SECRET_HEADER_WORDS = frozenset(
    {"auth", "authorization", "token", "secret", "password", "passwd", "credential", "apikey"}
)
#: Query parameters that carry a key (compared lowercased).
SECRET_QUERY = frozenset({"key", "api_key", "api-key", "apikey", "access_token", "token"})
REDACTED = "[redacted]"

#: The credential shapes: (what, pattern).  Anthropic, OpenRouter, OpenAI (project,
#: service account, admin, legacy), Google API keys, Google OAuth access tokens, xAI,
#: Groq.
KEY_SHAPES: tuple[tuple[str, bytes], ...] = (
    ("Anthropic key", rb"sk-ant-[A-Za-z0-9_-]{16,}"),
    ("OpenRouter key", rb"sk-or-v1-[A-Za-z0-9]{16,}"),
    ("OpenAI key", rb"sk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}"),
    ("Google API key", rb"AIza[0-9A-Za-z_-]{30,}"),
    ("Google OAuth token", rb"ya29\.[0-9A-Za-z_-]{20,}"),
    ("xAI key", rb"xai-[A-Za-z0-9]{20,}"),
    ("Groq key", rb"gsk_[A-Za-z0-9]{20,}"),
)
#: Any credential shape.  The pattern opens with the shapes' literal prefixes, so the
#: regular expression engine skips ahead at C speed; where a candidate starts is checked
#: apart (``_starts_token``).
KEY = re.compile(rb"(?:" + rb"|".join(shape for _, shape in KEY_SHAPES) + rb")")
#: Characters that continue a token: base64's, both alphabets.
_TOKEN_BYTES = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/_-")
_HEX = frozenset(b"0123456789ABCDEFabcdef")
#: URL escapes of base64's own characters (``+``, ``-``, ``/``, ``_``): no token starts there.
_TOKEN_ESCAPES = frozenset({b"2B", b"2b", b"2D", b"2d", b"2F", b"2f", b"5F", b"5f"})
_PLACEHOLDER = b"[redacted-key]"

#: JSON string values that are opaque payloads or ids: kept byte-exact; only a whole
#: token inside one is a key.
OPAQUE = re.compile(
    rb'"(?:signature|encrypted_content|data|thoughtSignature|thought_signature|id|call_id'
    rb'|tool_use_id|previous_response_id)"\s*:\s*"([^"\\]*(?:\\.[^"\\]*)*)"'
)
#: JSON string values that are visible text (``redact_text``).  Tool-call arguments are
#: kept: they must still parse.
VISIBLE = re.compile(
    rb'"(?:text|thinking|content|delta|reasoning_content|reasoning|system|instructions'
    rb'|output|refusal)"\s*:\s*"([^"\\]*(?:\\.[^"\\]*)*)"'
)
#: Characters of base64 (both alphabets) and its padding: a key-shaped run that touches
#: one inside an opaque field is part of the payload.
_PAYLOAD_BYTES = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=_-")
#: A base64 token long enough to encode the shortest key (23 bytes: 32 characters).
_BASE64_TOKEN = re.compile(rb"[A-Za-z0-9+/_-]{32,}={0,2}")
#: The most a compressed body is inflated to for the scan (a zip bomb stops here).
MAX_DECODED_BYTES = 64 * 1024 * 1024


def _same_length(size: int) -> bytes:
    return (_PLACEHOLDER + b"*" * size)[:size]


def _opaque_spans(data: bytes) -> list[tuple[int, int]]:
    return [m.span(1) for m in OPAQUE.finditer(data)]


def _starts_token(data: bytes, start: int, low: int = 0) -> bool:
    """A key must start a token, not continue a longer one (so a base64 payload that
    happens to contain ``sk-`` or ``AIza`` is never touched).  What starts a token: the
    start of ``data`` (or of the value from ``low``), any character outside base64's
    alphabets, an escape (``\\n``), or a URL escape of such a character (``%20``,
    ``%3D``; not ``%2B``, ``%2D``, ``%2F`` or ``%5F``, base64's own)."""
    if start <= low or data[start - 1] not in _TOKEN_BYTES:
        return True
    if start - 2 >= low and data[start - 2] == ord("\\") and data[start - 1] in b"nrtbf":
        return True
    return (
        start - 3 >= low
        and data[start - 3] == ord("%")
        and data[start - 2] in _HEX
        and data[start - 1] in _HEX
        and data[start - 2 : start] not in _TOKEN_ESCAPES
    )


def _keys(data: bytes) -> Iterator[tuple[int, int]]:
    """Every key-shaped token of ``data``: a candidate that does not start a token is
    passed over, and the search goes on from its next byte."""
    at = 0
    while (match := KEY.search(data, at)) is not None:
        start, end = match.span()
        if _starts_token(data, start):
            yield start, end
            at = end
        else:
            at = start + 1


def _whole_token(data: bytes, start: int, end: int, span: tuple[int, int]) -> bool:
    """Inside an opaque value, the run ``start:end`` is a token of its own: nothing of
    base64 touches it on either side (an escape before it also ends a token)."""
    low, high = span
    before = start == low or data[start - 1] not in _PAYLOAD_BYTES
    before = before or (start - 2 >= low and data[start - 2] == ord("\\"))
    return before and (end == high or data[end] not in _PAYLOAD_BYTES)


def _decoded_base64(token: bytes) -> bytes | None:
    """The bytes a base64 token encodes (either alphabet), or None when it is not one."""
    has_url = b"-" in token or b"_" in token
    if has_url and (b"+" in token or b"/" in token):
        return None
    bare = token.rstrip(b"=")
    if len(bare) % 4 == 1:
        return None
    padded = bare + b"=" * (-len(bare) % 4)
    try:
        if has_url:
            return base64.urlsafe_b64decode(padded)
        return base64.b64decode(padded, validate=True)
    except (binascii.Error, ValueError):
        return None


def _merged(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    out: list[tuple[int, int]] = []
    for start, end in sorted(spans):
        if out and start <= out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], end))
        else:
            out.append((start, end))
    return out


def key_spans(data: bytes) -> list[tuple[int, int]]:
    """Where ``data`` holds a credential: sorted, non-overlapping ``(start, end)``.

    A key-shaped token outside the opaque payloads; a whole token inside one; a base64
    token whose decoded bytes hold a key."""
    opaque = _opaque_spans(data)
    starts = [low for low, _ in opaque]
    found: list[tuple[int, int]] = []
    for start, end in _keys(data):
        index = bisect.bisect_right(starts, start) - 1
        inside = opaque[index] if index >= 0 and start < opaque[index][1] else None
        if inside is None or _whole_token(data, start, end, inside):
            found.append((start, end))
    for match in _BASE64_TOKEN.finditer(data):
        start, end = match.span()
        if end < len(data) and data[end] in _PAYLOAD_BYTES:
            continue  # more than two `=`: not one base64 token
        decoded = _decoded_base64(match.group())
        if decoded is not None and any(_keys(decoded)):
            found.append((start, end))
    return _merged(found)


def holds_key(data: bytes) -> bool:
    return bool(key_spans(data))


def _text_holds_key(text: str) -> bool:
    """A header value, query value or path: raw, and with its URL escapes undone
    (``Bearer+sk-…``)."""
    return holds_key(text.encode()) or holds_key(unquote_plus(text).encode())


def scrub_bytes(data: bytes, redact_text: bool = False) -> bytes:
    """``data`` with every key (and, with ``redact_text``, every visible text value)
    replaced by a placeholder of the same length."""
    spans = key_spans(data)
    if not spans and not redact_text:
        return data
    out = bytearray(data)
    for start, end in spans:
        out[start:end] = _same_length(end - start)
    if redact_text:
        for match in VISIBLE.finditer(bytes(out)):
            start, end = match.span(1)
            out[start:end] = b"x" * (end - start)
    return bytes(out)


def scrub_chunks(chunks: Sequence[bytes], redact_text: bool = False) -> tuple[bytes, ...]:
    """The chunks of one body scrubbed as one text (a key split across two reads is still
    found), then cut again at the same offsets."""
    joined = b"".join(chunks)
    scrubbed = scrub_bytes(joined, redact_text)
    if scrubbed is joined:
        return tuple(chunks)
    pieces: list[bytes] = []
    offset = 0
    for chunk in chunks:
        pieces.append(scrubbed[offset : offset + len(chunk)])
        offset += len(chunk)
    return tuple(pieces)


def secret_header_name(name: str) -> bool:
    """A header whose value is a credential, by its name alone."""
    lowered = name.lower()
    words = set(re.split(r"[-_]", lowered))
    return lowered in SECRET_HEADERS or bool(words & SECRET_HEADER_WORDS)


def scrub_headers(headers: Sequence[tuple[str, str]]) -> tuple[tuple[str, str], ...]:
    """Credential headers by name, and every header whose value holds a key, replaced by
    ``[redacted]`` (a header value is never a payload replay compares)."""
    return tuple(
        (name, REDACTED if secret_header_name(name) or _text_holds_key(value) else value)
        for name, value in headers
    )


def _pairs_hold_key(pairs: Sequence[tuple[str, str]]) -> bool:
    return any(holds_key(n.encode()) or holds_key(v.encode()) for n, v in pairs)


def scrub_query(query: str) -> str:
    """The query with key parameters' values and keys replaced (order and the rest kept;
    an untouched query keeps its exact bytes)."""
    if not query:
        return query
    pairs = parse_qsl(query, keep_blank_values=True)
    if not any(n.lower() in SECRET_QUERY for n, _ in pairs) and not _pairs_hold_key(pairs):
        return scrub_bytes(query.encode()).decode()
    kept = [
        (
            scrub_bytes(n.encode()).decode(),
            REDACTED if n.lower() in SECRET_QUERY else scrub_bytes(v.encode()).decode(),
        )
        for n, v in pairs
    ]
    return scrub_bytes(urlencode(kept).encode()).decode()


def _segments(path: str) -> str:
    """The path with its ``/`` as spaces (same length): a segment starts a token."""
    return path.replace("/", " ")


def scrub_path(path: str) -> str:
    """The path with a key in any segment replaced (same length)."""
    if not _text_holds_key(_segments(path)):
        return path
    out = bytearray(path.encode())
    for start, end in key_spans(_segments(path).encode()):
        out[start:end] = _same_length(end - start)
    scrubbed = out.decode("utf-8", "replace")
    return scrubbed if not _text_holds_key(_segments(scrubbed)) else "/" + REDACTED


# ------------------------------------------------------------ encoded bodies


def _header(headers: Mapping[str, str] | Sequence[tuple[str, str]], name: str) -> str:
    items = headers.items() if isinstance(headers, Mapping) else headers
    return next((v for k, v in items if k.lower() == name), "").strip().lower()


def _encoding(body: bytes, headers: Mapping[str, str] | Sequence[tuple[str, str]]) -> str:
    """``gzip`` or ``deflate`` when the body is compressed so (by its header, or by the
    gzip magic), else ``""``."""
    named = _header(headers, "content-encoding")
    if named in ("gzip", "x-gzip") or body.startswith(b"\x1f\x8b\x08"):
        return "gzip"
    if named == "deflate":
        return "deflate"
    return ""


def _inflate(body: bytes, wbits: int) -> bytes | None:
    inflater = zlib.decompressobj(wbits)
    try:
        return inflater.decompress(body, MAX_DECODED_BYTES)
    except zlib.error:
        return None


def decoded_body(body: bytes, headers: Mapping[str, str] | Sequence[tuple[str, str]]) -> bytes:
    """The body with a gzip or deflate coding undone (at most ``MAX_DECODED_BYTES``; a
    body cut mid-stream gives what it holds), or ``b""`` when it is not compressed or
    does not decode."""
    encoding = _encoding(body, headers)
    if not encoding or not body:
        return b""
    if encoding == "gzip":
        return _inflate(body, 16 + zlib.MAX_WBITS) or b""
    return _inflate(body, zlib.MAX_WBITS) or _inflate(body, -zlib.MAX_WBITS) or b""


def _encode(plain: bytes, encoding: str, original: bytes) -> bytes:
    if encoding == "gzip":
        return gzip.compress(plain, mtime=0)
    if _inflate(original, zlib.MAX_WBITS) is not None:
        return zlib.compress(plain)
    compressor = zlib.compressobj(wbits=-zlib.MAX_WBITS)
    return compressor.compress(plain) + compressor.flush()


def _form(headers: Mapping[str, str] | Sequence[tuple[str, str]]) -> bool:
    return _header(headers, "content-type").startswith("application/x-www-form-urlencoded")


def scrub_body(
    body: bytes,
    headers: Mapping[str, str] | Sequence[tuple[str, str]],
    redact_text: bool = False,
) -> bytes:
    """A request body scrubbed: a compressed one is decoded, scrubbed and encoded again
    (kept as it came when nothing in it changed); a form body is scrubbed as a query."""
    encoding = _encoding(body, headers)
    plain = decoded_body(body, headers) if encoding else b""
    if plain:
        scrubbed = scrub_body(plain, (), redact_text)
        return body if scrubbed == plain else _encode(scrubbed, encoding, body)
    if _form(headers):
        try:
            text = body.decode("utf-8")
        except UnicodeDecodeError:
            return scrub_bytes(body, redact_text)
        return scrub_query(text).encode()
    return scrub_bytes(body, redact_text)


def scrub_response_chunks(
    chunks: Sequence[bytes],
    headers: Sequence[tuple[str, str]],
    redact_text: bool = False,
) -> tuple[bytes, ...]:
    """A response body's chunks scrubbed at their offsets; a compressed body holding a key
    is decoded, scrubbed and encoded again as one chunk (its reads cannot be kept)."""
    joined = b"".join(chunks)
    plain = decoded_body(joined, headers) if _encoding(joined, headers) else b""
    if plain:
        scrubbed = scrub_bytes(plain, redact_text)
        if scrubbed == plain:
            return tuple(chunks)
        return (_encode(scrubbed, _encoding(joined, headers), joined),)
    return scrub_chunks(chunks, redact_text)


# ------------------------------------------------------------ finding what is left


def header_secrets(headers: Sequence[tuple[str, str]], where: str) -> list[str]:
    """Where a credential header still holds a value, or a header holds a key."""
    found = [
        f"{where}.{name}"
        for name, value in headers
        if name.lower() in SECRET_HEADERS and value != REDACTED
    ]
    found += [f"{where}.{name}" for name, value in headers if _text_holds_key(value)]
    return sorted(set(found))


def query_secrets(query: str, where: str) -> list[str]:
    pairs = parse_qsl(query, keep_blank_values=True)
    found = [f"{where}.{n}" for n, v in pairs if n.lower() in SECRET_QUERY and v != REDACTED]
    if holds_key(query.encode()) or _pairs_hold_key(pairs):
        found.append(where)
    return found


def path_secrets(path: str, where: str) -> list[str]:
    return [where] if _text_holds_key(_segments(path)) else []


def body_secrets(
    data: bytes, where: str, headers: Mapping[str, str] | Sequence[tuple[str, str]] = ()
) -> list[str]:
    """Where a body holds a key: as it is, with its URL escapes undone when it is a form,
    and decoded when it is gzip or deflate."""
    found = [f"{where} byte {start}" for start, _ in key_spans(data)]
    if _form(headers) and _text_holds_key(data.decode("utf-8", "replace")):
        found.append(f"{where} (form)")
    plain = decoded_body(data, headers)
    if plain:
        found += [f"{where} (decoded) byte {start}" for start, _ in key_spans(plain)]
    return found
