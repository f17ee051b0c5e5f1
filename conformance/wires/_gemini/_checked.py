"""A request as the rule checks read it: the raw ``contents`` entry by entry (garbage
reads as empty), with what the provider remembers of the session."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from conformance.vocabulary import Block, ToolCall, opaque_fields
from conformance.wires._gemini._fields import get
from conformance.wires.context import RequestView, ValidationContext


@dataclass(frozen=True)
class Content:
    """One entry of the body's ``contents``, read leniently (garbage reads as empty)."""

    index: int
    role: object
    parts: tuple[tuple[int, dict[str, Any]], ...]

    @classmethod
    def of(cls, index: int, raw: object) -> Content:
        if not isinstance(raw, dict):
            return cls(index, None, ())
        items = get(raw, "parts")
        parts = tuple(
            (j, p)
            for j, p in enumerate(items if isinstance(items, list) else ())
            if isinstance(p, dict)
        )
        return cls(index, get(raw, "role"), parts)

    @property
    def model(self) -> bool:
        return self.role == "model"

    @property
    def calls(self) -> list[tuple[int, dict[str, Any]]]:
        return [(j, p) for j, p in self.parts if isinstance(get(p, "functionCall"), dict)]

    @property
    def responses(self) -> list[tuple[int, dict[str, Any]]]:
        return [(j, p) for j, p in self.parts if isinstance(get(p, "functionResponse"), dict)]

    @property
    def call_turn(self) -> bool:
        return self.model and bool(self.calls)

    @property
    def response_turn(self) -> bool:
        return not self.model and bool(self.responses)

    @property
    def prompt(self) -> bool:
        """A user content with standard content: where the current turn starts."""
        return not self.model and len(self.responses) < len(self.parts)


@dataclass(frozen=True)
class CheckedRequest:
    """One request under validation, with what the provider remembers of the session."""

    view: RequestView
    context: ValidationContext
    contents: tuple[Content, ...]

    def at(self, position: int) -> Content | None:
        return self.contents[position] if 0 <= position < len(self.contents) else None

    def originals(self) -> list[tuple[Block, ...]]:
        """Every model response this provider minted: the saved history's own assistant
        messages and the served responses."""
        history = [
            tuple(b for b in m.blocks if getattr(b, "origin", None) is None)
            for m in self.context.history
            if m.role == "assistant"
        ]
        return history + [tuple(r.blocks) for r in self.context.served]

    def minted(self) -> set[str]:
        return {
            payload
            for blocks in self.originals()
            for block in blocks
            for name, payload in opaque_fields(block).items()
            if name == "signature"
        }

    def signed_calls(self) -> set[str]:
        """The ids of every call of a response that signed one of its calls."""
        found: set[str] = set()
        for blocks in self.originals():
            calls = [b for b in blocks if isinstance(b, ToolCall)]
            if any(c.signature is not None for c in calls):
                found.update(c.id for c in calls)
        return found

    def call_ids(self, content: Content) -> set[str]:
        """The (restored) call ids of a content, from the neutral view."""
        at = f"contents[{content.index}]"
        return {
            b.id
            for message, (where, _) in zip(self.view.messages, self.view.locations, strict=False)
            if where == at
            for b in message.blocks
            if isinstance(b, ToolCall)
        }
