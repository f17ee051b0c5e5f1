"""How checks quote what they saw: compactly, and never a whole opaque payload.

Violation messages end up in terminal reports and snapshots; replay tokens can be
kilobytes long, so long strings are cut to head…tail with their length, and payloads
the ledger talks about are named by length and SHA-256 prefix only.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from typing import Any

from pydantic import BaseModel

from conformance.vocabulary import Block

#: Strings longer than this are shown as head…tail with their length.
LIMIT = 40
_HEAD = 20
_TAIL = 10

#: Per block kind, the fields shown when no pattern says which ones matter.
DEFAULT_FIELDS: dict[str, tuple[str, ...]] = {
    "reasoning": ("text", "signature", "redacted", "data", "id"),
    "text": ("text", "signature"),
    "tool_call": ("id", "name", "arguments", "signature"),
    "media": ("mime",),
    "tool_result": ("call_id", "content", "is_error"),
    "server_tool_use": ("id", "name", "arguments"),
    "server_tool_result": ("call_id", "type"),
}
#: Values a default quote leaves out because they say nothing.
_QUIET: tuple[Any, ...] = (None, False)


def short(text: str, limit: int = LIMIT) -> str:
    """``repr`` of a string, cut to head…tail with its length when it is long."""
    if len(text) <= limit:
        return repr(text)
    return f"{text[:_HEAD]!r}…{text[-_TAIL:]!r}({len(text)} chars)"


def value(item: Any) -> str:
    """A compact quote of any field value."""
    if isinstance(item, str):
        return short(item)
    if isinstance(item, tuple) and item and all(isinstance(e, BaseModel) for e in item):
        return blocks(item)
    if isinstance(item, dict | list | tuple):
        encoded = json.dumps(item, ensure_ascii=False, separators=(",", ":"), default=str)
        return encoded if len(encoded) <= LIMIT else f"{encoded[: _HEAD + _TAIL]}…"
    return repr(item)


def call(name: str, fields: Iterable[tuple[str, Any]]) -> str:
    """``name(field=value, …)``."""
    return f"{name}({', '.join(f'{key}={value(item)}' for key, item in fields)})"


def telling(item: Block) -> list[str]:
    """The fields that say what a block is: its kind's default fields that hold
    something (a readable thinking block shows its text and signature, never only
    ``redacted=False, data=None``)."""
    return [name for name in DEFAULT_FIELDS[item.kind] if getattr(item, name, None) not in _QUIET]


def block(item: Block, fields: Iterable[str] | None = None) -> str:
    """A block as ``kind(field=value, …)``: the given fields, or its telling ones."""
    if fields is None:
        shown = [(name, getattr(item, name)) for name in telling(item)]
    else:
        shown = [(name, getattr(item, name, None)) for name in fields]
    return call(item.kind, shown)


def blocks(items: Iterable[Block], fields: Iterable[str] | None = None) -> str:
    """A list of blocks, each quoted with ``block``."""
    chosen = None if fields is None else tuple(fields)
    return "[" + ", ".join(block(item, chosen) for item in items) + "]"


def digest(payload: str) -> str:
    """The first 12 hex digits of a payload's SHA-256 (UTF-8)."""
    return hashlib.sha256(payload.encode()).hexdigest()[:12]


def payload(text: str) -> str:
    """An opaque payload named by length and hash, never by content."""
    return f"{len(text)} chars, sha256 {digest(text)}"
