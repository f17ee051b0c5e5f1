"""What of the stored user and tool-result input a request may carry (seed §1–§8).

Saved notices can hold a child agent's reasoning and tool calls inside a user message
or a tool result.  Such blocks are omitted from the request, keyed only on the role and
the block type (§4): never turned into text (§6), never an error (§1–§3), and the
stored history keeps them (§5).  Assistant messages are out of scope (§8).  The same
rule holds on every wire (§10), so sibling wires reuse it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeVar

from conformance._reference.codec import UnsupportedBlock
from conformance._reference.guards import Guards
from conformance.vocabulary import (
    Block,
    Media,
    Message,
    Reasoning,
    ServerToolResult,
    ServerToolUse,
    Text,
    ToolCall,
    ToolResult,
)

_INPUT_ROLES = frozenset({"user", "tool"})
_B = TypeVar(
    "_B", bound=Reasoning | Text | ToolCall | Media | ServerToolUse | ServerToolResult | ToolResult
)


def input_blocks(message: Message, guards: Guards) -> tuple[Block, ...]:
    """The blocks of ``message`` a request may send (assistant messages: all)."""
    if message.role not in _INPUT_ROLES:
        return message.blocks
    kept: list[Block] = []
    for block in _without_reasoning(message.blocks, message.role, guards):
        if isinstance(block, ToolResult) and not isinstance(block.content, str):
            where = f"a tool result for {block.call_id}"
            content = tuple(_without_reasoning(block.content, where, guards))
            block = ToolResult(call_id=block.call_id, content=content, is_error=block.is_error)
        kept.append(block)
    return tuple(kept)


def _without_reasoning(blocks: Sequence[_B], where: str, guards: Guards) -> list[_B]:
    kept: list[_B] = []
    for block in blocks:
        if isinstance(block, Reasoning | ToolCall | ServerToolUse | ServerToolResult):
            if guards.on("omit-reasoning-in-user-input"):
                continue
            raise UnsupportedBlock(f"a {block.kind} block cannot be sent inside {where} input")
        kept.append(block)
    return kept
