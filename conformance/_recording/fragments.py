"""The chunk boundaries of a recorded stream, in the case language: for each block, the
sizes of the delta fragments its text (or its call's argument JSON) arrived in.

Wire-agnostic: every string a stream event carries under a delta-bearing key is taken in
order, and a block's fragments are the consecutive run of them that joins back to its
text.  A block whose fragments interleave with another's (parallel calls streamed side
by side) has no such run and keeps no ``chunks``: the case renders it whole, and only
``replay`` serves the recorded boundaries exactly.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from conformance.errors import ResponseReadError
from conformance.vocabulary import ContentBlock, Reasoning, ScriptedResponse, Text, ToolCall
from conformance.wires._sse import read_events

#: Keys under which stream events carry text or argument fragments, on every wire.
FRAGMENT_KEYS = frozenset(
    {"text", "thinking", "partial_json", "delta", "content", "reasoning_content", "reasoning"}
    | {"arguments"}
)


def _strings(value: Any, key: str | None = None) -> Iterator[str]:
    if isinstance(value, dict):
        for k, v in value.items():
            yield from _strings(v, k)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item, key)
    elif isinstance(value, str) and key in FRAGMENT_KEYS and value:
        yield value


def stream_pieces(body: bytes) -> list[str]:
    """Every fragment string of a recorded SSE stream, in order (none if not SSE)."""
    try:
        events = read_events(body)
    except ResponseReadError:
        return []
    pieces: list[str] = []
    for event in events:
        try:
            pieces += _strings(json.loads(event.data))
        except ValueError:
            continue
    return pieces


def _matches(joined: str, target: str | dict[str, Any]) -> bool:
    if isinstance(target, str):
        return joined == target
    try:
        return bool(json.loads(joined) == target)
    except ValueError:
        return False


def _text_run(pieces: list[str], first: int, target: str) -> int | None:
    """Where the run of pieces from ``first`` that spells ``target`` ends, if one does.
    Each piece is compared where it falls in ``target``: a long answer costs its length,
    not its length squared (joining and comparing the prefix again for every piece took
    minutes on a 100 MB stream)."""
    offset = 0
    for last in range(first, len(pieces)):
        piece = pieces[last]
        if not target.startswith(piece, offset):
            return None
        offset += len(piece)
        if offset == len(target):
            return last + 1
    return None


def _run(pieces: list[str], start: int, target: str | dict[str, Any]) -> tuple[int, int] | None:
    """The first run of pieces from ``start`` on that joins to ``target``."""
    for first in range(start, len(pieces)):
        if isinstance(target, str):
            end = _text_run(pieces, first, target)
            if end is not None:
                return first, end
            continue
        joined = ""
        for last in range(first, len(pieces)):
            joined += pieces[last]
            if _matches(joined, target):
                return first, last + 1
            if len(joined) > 1 << 20:
                break
    return None


def _target(block: ContentBlock) -> str | dict[str, Any] | None:
    if isinstance(block, Reasoning | Text) and block.text:
        return block.text
    if isinstance(block, ToolCall) and block.arguments:
        return block.arguments
    return None


def with_chunks(response: ScriptedResponse, body: bytes) -> ScriptedResponse:
    """``response`` with each block's ``chunks`` taken from the recorded stream."""
    pieces = stream_pieces(body)
    if not pieces:
        return response
    cursor = 0
    blocks: list[ContentBlock] = []
    for block in response.blocks:
        target = _target(block)
        run = None if target is None else _run(pieces, cursor, target)
        if run is None or run[1] - run[0] < 2:
            blocks.append(block)
            if run is not None:
                cursor = run[1]
            continue
        sizes = tuple(len(p) for p in pieces[run[0] : run[1]])
        blocks.append(block.model_copy(update={"chunks": sizes}))
        cursor = run[1]
    return response.model_copy(update={"blocks": tuple(blocks)})
