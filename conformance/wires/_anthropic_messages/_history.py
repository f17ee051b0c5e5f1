"""A saved conversation as the ``messages`` of a Messages request: what a client that
stores the wire's own JSON holds, and what ``parse`` reads back."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from conformance.vocabulary import (
    Block,
    Media,
    Message,
    Reasoning,
    ServerToolResult,
    ServerToolUse,
    Text,
    ToolCall,
)


def _block(block: Block) -> dict[str, Any]:
    if isinstance(block, Reasoning):
        if block.redacted:
            return {"type": "redacted_thinking", "data": block.data or ""}
        thinking: dict[str, Any] = {"type": "thinking", "thinking": block.text}
        if block.signature is not None:
            thinking["signature"] = block.signature
        return thinking
    if isinstance(block, Text):
        return {"type": "text", "text": block.text}
    if isinstance(block, ToolCall):
        return {"type": "tool_use", "id": block.id, "name": block.name, "input": block.arguments}
    if isinstance(block, Media):
        source = {"type": "base64", "media_type": block.mime, "data": block.data}
        return {"type": "image", "source": source}
    if isinstance(block, ServerToolUse):
        return {
            "type": "server_tool_use",
            "id": block.id,
            "name": block.name,
            "input": block.arguments,
        }
    if isinstance(block, ServerToolResult):
        return {"type": block.type, "tool_use_id": block.call_id, "content": block.content}
    content: str | list[dict[str, Any]] = (
        block.content if isinstance(block.content, str) else [_block(b) for b in block.content]
    )
    result: dict[str, Any] = {"type": "tool_result", "tool_use_id": block.call_id}
    result["content"] = content
    if block.is_error:
        result["is_error"] = True
    return result


def history_messages(messages: Sequence[Message]) -> dict[str, Any]:
    """``{"messages": [...]}``: tool results are the leading blocks of a user message,
    and a user message right after them joins it, as Anthropic's own clients send it."""
    rendered: list[dict[str, Any]] = []
    joinable = False  # the last rendered message holds tool results only
    for message in messages:
        role = "assistant" if message.role == "assistant" else "user"
        blocks = [_block(b) for b in message.blocks]
        if role == "user" and joinable and message.role in ("user", "tool"):
            rendered[-1]["content"] += blocks
        else:
            rendered.append({"role": role, "content": blocks})
        joinable = message.role == "tool"
    return {"messages": rendered}
