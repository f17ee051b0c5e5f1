"""Walking the blocks of a conversation with their places, the way every check needs.

A block can sit directly in a message or inside a tool result's content; checks that
look for opaque payloads or forbidden block kinds must see both, and must be able to
say where each one is.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

from conformance.vocabulary import Block, Message, Role, Text, ToolResult

Locate = Callable[[int, int], str | None]


@dataclass(frozen=True)
class Placed:
    """A block and its place: message ``message``, block ``index``, and ``nested``, the
    index inside that block's tool-result content (``-1`` for a top-level block)."""

    block: Block
    message: int
    index: int
    nested: int
    role: Role
    at: str | None

    @property
    def position(self) -> tuple[int, int, int]:
        """Sorts in document order."""
        return (self.message, self.index, self.nested)

    @property
    def place(self) -> str:
        """The place in neutral terms, for messages (``at`` gives the wire's own path)."""
        where = f"{self.role} message {self.message}, block {self.index}"
        return where if self.nested < 0 else f"{where}, content {self.nested}"


def placed(messages: Sequence[Message], locate: Locate | None = None) -> Iterator[Placed]:
    """Every block of ``messages`` in document order, nested tool-result blocks
    right after the result that holds them."""
    for m, message in enumerate(messages):
        for b, item in enumerate(message.blocks):
            at = locate(m, b) if locate else None
            yield Placed(item, m, b, -1, message.role, at)
            if isinstance(item, ToolResult) and isinstance(item.content, tuple):
                for n, inner in enumerate(item.content):
                    yield Placed(inner, m, b, n, message.role, at)


def result_text(result: ToolResult) -> str:
    """A tool result's content as text: the string, or its text blocks joined."""
    if isinstance(result.content, str):
        return result.content
    return "".join(item.text for item in result.content if isinstance(item, Text))


def carries(result: ToolResult, text: str) -> bool:
    """Whether ``result`` passes ``text`` on unaltered: as its content, or as one of the
    readings a free-form result has (a string value of Gemini's response object, or the
    object itself when ``text`` is the same JSON).  Surrounding whitespace is no change."""
    wanted = text.strip()
    for reading in (result_text(result), *result.readings):
        if reading.strip() == wanted or _same_json(reading, wanted):
            return True
    return False


def _same_json(one: str, other: str) -> bool:
    """Whether two texts are the same JSON object or array (a client may parse a tool's
    JSON text and send the value)."""
    if not (one[:1] in "{[" and other[:1] in "{["):
        return False
    try:
        return bool(json.loads(one) == json.loads(other))
    except ValueError:
        return False
