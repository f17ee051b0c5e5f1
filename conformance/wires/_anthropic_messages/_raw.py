"""The request as the rule checks read it.  The checks read the raw body, not the neutral
view: Anthropic's errors point at the body's own message and block indices, and some
rules turn on keys the neutral view cannot hold (a ``thinking`` block without its
``signature`` key, for one).  Beside the body, what the provider remembers of the session:
the turns it produced and the signatures it minted."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from conformance.vocabulary import Block, ContentBlock, Reasoning, ToolCall, ToolResult
from conformance.wires._anthropic_messages._blocks import content_block
from conformance.wires.context import RequestView, ValidationContext


@dataclass(frozen=True)
class RawMessage:
    """One entry of the body's ``messages``, read leniently (garbage reads as empty).

    ``keys`` is None when the entry is not a JSON object at all.
    """

    index: int
    keys: frozenset[str] | None
    role: object
    content: object
    blocks: tuple[tuple[int, dict[str, Any]], ...]

    @classmethod
    def of(cls, index: int, raw: object) -> RawMessage:
        if not isinstance(raw, dict):
            return cls(index, None, None, None, ())
        content = raw.get("content")
        items = content if isinstance(content, list) else []
        blocks = tuple((j, b) for j, b in enumerate(items) if isinstance(b, dict))
        return cls(index, frozenset(raw), raw.get("role"), content, blocks)

    def of_type(self, *types: str) -> list[tuple[int, dict[str, Any]]]:
        return [(j, b) for j, b in self.blocks if type_of(b) in types]

    @property
    def empty(self) -> bool:
        return self.content == "" or self.content == []

    @property
    def first_kind(self) -> str | None:
        """The type of the first content block (None when there is none to read)."""
        first = self.content[0] if isinstance(self.content, list) and self.content else None
        return type_of(first) if isinstance(first, dict) else None

    @property
    def last_kind(self) -> str | None:
        last = self.content[-1] if isinstance(self.content, list) and self.content else None
        return type_of(last) if isinstance(last, dict) else None

    @property
    def tool_use_ids(self) -> list[str]:
        return [b["id"] for _, b in self.of_type("tool_use") if isinstance(b.get("id"), str)]

    def tool_result_ids(self) -> list[tuple[int, str]]:
        return [
            (j, b["tool_use_id"])
            for j, b in self.of_type("tool_result")
            if isinstance(b.get("tool_use_id"), str)
        ]

    def leading_result_ids(self) -> set[str]:
        """The ids of the unbroken run of tool_result blocks that opens the content."""
        found: set[str] = set()
        for item in self.content if isinstance(self.content, list) else []:
            if not isinstance(item, dict) or item.get("type") != "tool_result":
                break
            if isinstance(item.get("tool_use_id"), str):
                found.add(item["tool_use_id"])
        return found

    def neutral(self) -> list[ContentBlock]:
        return [b for _, item in self.blocks if (b := content_block(item)) is not None]


def type_of(block: dict[str, Any]) -> str | None:
    """A raw block's ``type`` when it is a string (anything else is no known type)."""
    kind = block.get("type")
    return kind if isinstance(kind, str) else None


Token = tuple[str, str]


def _tokens(blocks: Sequence[Block]) -> set[Token]:
    """What ties a message to the response it came from: signatures, data, call ids."""
    found: set[Token] = set()
    for block in blocks:
        if isinstance(block, Reasoning) and block.origin is None:
            if block.signature:
                found.add(("signature", block.signature))
            if block.data:
                found.add(("data", block.data))
        elif isinstance(block, ToolCall) and block.origin is None and block.id:
            found.add(("call", block.id))
    return found


def _every_block(blocks: Sequence[Block]) -> Iterator[Block]:
    for block in blocks:
        yield block
        if isinstance(block, ToolResult) and not isinstance(block.content, str):
            yield from block.content


@dataclass(frozen=True)
class CheckedRequest:
    """One request under validation, with what the provider remembers of the session."""

    view: RequestView
    context: ValidationContext
    messages: tuple[RawMessage, ...]

    @property
    def body(self) -> dict[str, Any]:
        return self.view.raw

    @property
    def manual(self) -> bool:
        return self.view.thinking.mode == "manual"

    def at(self, index: int) -> RawMessage | None:
        return self.messages[index] if 0 <= index < len(self.messages) else None

    def originals(self) -> list[tuple[Block, ...]]:
        """Every assistant turn the provider produced: served responses and the saved
        history's assistant messages, oldest first."""
        found = [m.blocks for m in self.context.history if m.role == "assistant"]
        return found + [tuple(r.blocks) for r in self.context.served]

    def origin_of(self, message: RawMessage) -> list[tuple[Block, ...]]:
        """The turn(s) a request's assistant message was built from, matched by token."""
        tokens = _tokens(message.neutral())
        return [blocks for blocks in self.originals() if tokens & _tokens(blocks)]

    def minted(self) -> set[str]:
        history = (b for m in self.context.history for b in _every_block(m.blocks))
        served = (b for r in self.context.served for b in r.blocks)
        return {
            b.signature
            for source in (history, served)
            for b in source
            if isinstance(b, Reasoning) and b.origin is None and b.signature is not None
        }
