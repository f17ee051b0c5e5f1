"""Which wire a recorded response body really is, when read as another wire gives
nothing: an Anthropic stream decoded as Chat reads as an empty cut response, which must
be an error naming the likely wire, not an empty answer."""

from __future__ import annotations

from conformance.errors import ResponseReadError
from conformance.wires._registry import columns, get_wire, split_column


def _reads_to_something(column: str, body: bytes, streaming: bool) -> bool:
    wire, dialect = split_column(column)
    try:
        response = get_wire(wire).read(body, streaming, dialect)
    except ResponseReadError:
        return False
    return bool(response.blocks) or response.stop != "no_finish"


def wrong_wire(column: str, body: bytes, streaming: bool) -> str | None:
    """The problem when ``body`` reads as nothing on ``column`` but as a response on
    another wire; ``None`` when ``column`` reads it, or no wire does."""
    if _reads_to_something(column, body, streaming):
        return None
    own = split_column(column)[0]
    others = [
        c
        for c in columns()
        if split_column(c)[0] != own and _reads_to_something(c, body, streaming)
    ]
    if not others:
        return None
    wires = sorted({split_column(c)[0] for c in others})
    return (
        f"nothing of this body reads as {column}: it looks like a {' or '.join(wires)} "
        "response (give that --wire)"
    )
