"""A request as the rule checks read it: the body's raw ``messages`` entry by entry, with
what the provider remembers of the session (the responses it served and the saved
history)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from conformance.vocabulary import Block, Reasoning, ToolCall, opaque_fields
from conformance.wires import _values as values
from conformance.wires._openai_chat._details import reasoning_episodes
from conformance.wires._openai_chat._messages import SYSTEM_ROLES
from conformance.wires.context import RequestView, ValidationContext


@dataclass(frozen=True)
class Entry:
    """One entry of the body's ``messages``, read leniently (garbage reads as empty)."""

    index: int
    role: object
    body: dict[str, Any]

    @classmethod
    def of(cls, index: int, raw: object) -> Entry:
        body = raw if isinstance(raw, dict) else {}
        return cls(index, body.get("role"), body)

    @property
    def calls(self) -> list[dict[str, Any]]:
        """The tool calls of an assistant message (none for any other role)."""
        calls = self.body.get("tool_calls") if self.role == "assistant" else None
        return [c for c in calls if isinstance(c, dict)] if isinstance(calls, list) else []

    @property
    def call_ids(self) -> list[str]:
        return [c["id"] for c in self.calls if isinstance(c.get("id"), str)]

    @property
    def first_call_name(self) -> str:
        function = self.calls[0].get("function") if self.calls else None
        return values.text(function.get("name")) if isinstance(function, dict) else ""

    def episodes(self) -> list[tuple[int, Reasoning]]:
        return reasoning_episodes(self.body.get("reasoning_details"))


@dataclass(frozen=True)
class CheckedRequest:
    """One request under validation, with what the provider remembers of the session."""

    view: RequestView
    context: ValidationContext
    entries: tuple[Entry, ...]

    @property
    def dialect(self) -> str | None:
        return self.context.dialect

    def originals(self) -> list[tuple[Block, ...]]:
        """Every assistant turn the provider produced: the saved history's assistant
        messages and the served responses, oldest first (blocks minted elsewhere left out)."""
        turns = [m.blocks for m in self.context.history if m.role == "assistant"]
        turns += [tuple(r.blocks) for r in self.context.served]
        return [tuple(b for b in turn if getattr(b, "origin", None) is None) for turn in turns]

    def minted(self) -> set[str]:
        """Every reasoning signature and encrypted blob this route produced."""
        return {
            payload
            for turn in self.originals()
            for block in turn
            if isinstance(block, Reasoning)
            for payload in opaque_fields(block).values()
        }

    def origin(self, entry: Entry) -> tuple[Block, ...] | None:
        """The turn an assistant message was built from, matched by its call ids."""
        ids = set(entry.call_ids)
        matches = [
            t for t in self.originals() if ids & {b.id for b in t if isinstance(b, ToolCall)}
        ]
        return matches[-1] if matches else None

    def tool_run(self, entry: Entry) -> list[Entry]:
        """The tool messages right after an entry."""
        run: list[Entry] = []
        for after in self.entries[entry.index + 1 :]:
            if after.role != "tool":
                break
            run.append(after)
        return run

    def answered(self, entry: Entry) -> Entry | None:
        """The message a tool message answers: the first one before it that is not a tool
        message."""
        before = (e for e in reversed(self.entries[: entry.index]) if e.role != "tool")
        return next(before, None)

    def upstream_index(self, entry: Entry) -> int:
        """Where a message lands in the upstream's own list (0-based): system messages
        leave it, and consecutive user/tool messages become one (roles alternate)."""
        position, side = -1, None
        for other in self.entries[: entry.index + 1]:
            if other.role in SYSTEM_ROLES:
                continue
            if (other.role == "assistant") != side:
                position, side = position + 1, other.role == "assistant"
        return position
