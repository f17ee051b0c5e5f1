"""Take credentials out of an exchange before it is written, and find any left in one
that is read.

What goes: the values of credential headers (``authorization``, ``x-api-key``,
``api-key``, ``x-goog-api-key``, cookies), key query parameters, and anything shaped like
a provider key in a body or a stream.  A key in a body is replaced by a placeholder of
the same length, so the stream's bytes keep their offsets and its chunk boundaries stay
where they were.  What stays byte-exact: opaque replay payloads (signatures,
``encrypted_content``, redacted blobs), ids, and everything else, because replay and
the ledger compare them byte for byte.  ``redact_text`` also replaces visible text
(prompts, answers, reasoning text, tool output) with same-length placeholders, for a
recording that must not keep user content.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from urllib.parse import parse_qsl, urlencode

SANITIZER_VERSION = 1

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
#: Query parameters that carry a key (compared lowercased).
SECRET_QUERY = frozenset({"key", "api_key", "api-key", "apikey", "access_token", "token"})
REDACTED = "[redacted]"

#: Provider key shapes: Anthropic, OpenRouter, OpenAI (project, service account, legacy),
#: Google, xAI, Groq.  A match must start a token (not continue a longer one), so a
#: base64 payload that happens to contain ``sk-`` or ``AIza`` is never touched; an
#: escape (``\n``) before it still starts one.
KEY = re.compile(
    rb"(?:(?<![A-Za-z0-9+/_-])|(?<=\\[nrtbf]))"
    rb"(?:sk-ant-[A-Za-z0-9_-]{16,}|sk-or-v1-[A-Za-z0-9]{16,}"
    rb"|sk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}"
    rb"|AIza[0-9A-Za-z_-]{30,}|xai-[A-Za-z0-9]{20,}|gsk_[A-Za-z0-9]{20,})"
)
_PLACEHOLDER = b"[redacted-key]"

#: JSON string values that are opaque payloads or ids: never altered, never searched.
OPAQUE = re.compile(
    rb'"(?:signature|encrypted_content|data|thoughtSignature|thought_signature|id|call_id'
    rb'|tool_use_id|previous_response_id)"\s*:\s*"((?:[^"\\]|\\.)*)"'
)
#: JSON string values that are visible text (``redact_text``).  Tool-call arguments are
#: kept: they must still parse.
VISIBLE = re.compile(
    rb'"(?:text|thinking|content|delta|reasoning_content|reasoning|system|instructions'
    rb'|output|refusal)"\s*:\s*"((?:[^"\\]|\\.)*)"'
)


def _same_length(size: int) -> bytes:
    return (_PLACEHOLDER + b"*" * size)[:size]


def _opaque_spans(data: bytes) -> list[tuple[int, int]]:
    return [m.span(1) for m in OPAQUE.finditer(data)]


def key_matches(data: bytes) -> Iterator[re.Match[bytes]]:
    """Every provider-key-shaped token in ``data`` outside the opaque payloads."""
    spans = _opaque_spans(data)
    for match in KEY.finditer(data):
        if not any(start <= match.start() < end for start, end in spans):
            yield match


def scrub_bytes(data: bytes, redact_text: bool = False) -> bytes:
    """``data`` with every key (and, with ``redact_text``, every visible text value)
    replaced by a placeholder of the same length."""
    out = bytearray(data)
    for match in key_matches(data):
        out[match.start() : match.end()] = _same_length(match.end() - match.start())
    if redact_text:
        for match in VISIBLE.finditer(bytes(out)):
            start, end = match.span(1)
            out[start:end] = b"x" * (end - start)
    return bytes(out)


def scrub_chunks(chunks: Sequence[bytes], redact_text: bool = False) -> tuple[bytes, ...]:
    """The chunks of one body scrubbed as one text (a key split across two reads is still
    found), then cut again at the same offsets."""
    joined = scrub_bytes(b"".join(chunks), redact_text)
    pieces: list[bytes] = []
    offset = 0
    for chunk in chunks:
        pieces.append(joined[offset : offset + len(chunk)])
        offset += len(chunk)
    return tuple(pieces)


def scrub_headers(headers: Sequence[tuple[str, str]]) -> tuple[tuple[str, str], ...]:
    return tuple(
        (name, REDACTED if name.lower() in SECRET_HEADERS else value) for name, value in headers
    )


def scrub_query(query: str) -> str:
    """The query with key parameters' values replaced (order and the rest kept)."""
    if not query:
        return query
    pairs = parse_qsl(query, keep_blank_values=True)
    if not any(name.lower() in SECRET_QUERY for name, _ in pairs):
        return scrub_bytes(query.encode()).decode()
    kept = [(n, REDACTED if n.lower() in SECRET_QUERY else v) for n, v in pairs]
    return scrub_bytes(urlencode(kept).encode()).decode()


def header_secrets(headers: Sequence[tuple[str, str]], where: str) -> list[str]:
    """Where a credential header still holds a value, or a header holds a key."""
    found = [
        f"{where}.{name}"
        for name, value in headers
        if name.lower() in SECRET_HEADERS and value != REDACTED
    ]
    found += [f"{where}.{name}" for name, value in headers if any(key_matches(value.encode()))]
    return sorted(set(found))


def query_secrets(query: str, where: str) -> list[str]:
    pairs = parse_qsl(query, keep_blank_values=True)
    found = [f"{where}.{n}" for n, v in pairs if n.lower() in SECRET_QUERY and v != REDACTED]
    if any(key_matches(query.encode())):
        found.append(where)
    return found


def body_secrets(data: bytes, where: str) -> list[str]:
    return [f"{where} byte {m.start()}" for m in key_matches(data)]
