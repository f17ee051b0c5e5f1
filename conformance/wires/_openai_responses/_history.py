"""A saved conversation as the ``input`` items of a Responses request: each assistant
block an output item of its own (reasoning with ``encrypted_content``, message,
``function_call``), each tool result a ``function_call_output``."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from conformance.vocabulary import Block, Media, Message, Reasoning, Text, ToolCall, ToolResult


def _parts(blocks: Sequence[Block], text_type: str) -> list[dict[str, Any]]:
    parts: list[dict[str, Any]] = []
    for block in blocks:
        if isinstance(block, Text):
            parts.append({"type": text_type, "text": block.text})
        elif isinstance(block, Media):
            url = f"data:{block.mime};base64,{block.data}"
            parts.append({"type": "input_image", "image_url": url})
    return parts


def _reasoning(block: Reasoning) -> dict[str, Any]:
    item: dict[str, Any] = {"type": "reasoning"}
    if block.id is not None:
        item["id"] = block.id
    item["summary"] = [{"type": "summary_text", "text": s} for s in block.summary or ()]
    if block.text:
        item["content"] = [{"type": "reasoning_text", "text": block.text}]
    if block.signature is not None:
        item["encrypted_content"] = block.signature
    return item


def _output_item(block: Block) -> dict[str, Any] | None:
    if isinstance(block, Reasoning) and not block.redacted:
        return _reasoning(block)
    if isinstance(block, Text):
        content = [{"type": "output_text", "text": block.text}]
        return {"type": "message", "role": "assistant", "content": content}
    if isinstance(block, ToolCall):
        arguments = block.arguments
        return {
            "type": "function_call",
            "call_id": block.id,
            "name": block.name,
            "arguments": arguments if isinstance(arguments, str) else json.dumps(arguments),
        }
    return None


def _output(result: ToolResult) -> dict[str, Any]:
    content = result.content
    output = content if isinstance(content, str) else _parts(content, "input_text")
    return {"type": "function_call_output", "call_id": result.call_id, "output": output}


def history_input(messages: Sequence[Message]) -> dict[str, Any]:
    """``{"input": [...]}``, the items in the conversation's order."""
    items: list[dict[str, Any]] = []
    for message in messages:
        if message.role == "assistant":
            items += [i for i in map(_output_item, message.blocks) if i is not None]
        elif message.role == "tool":
            items += [_output(b) for b in message.blocks if isinstance(b, ToolResult)]
        else:
            role = "system" if message.role == "system" else "user"
            content = _parts(message.blocks, "input_text")
            items.append({"type": "message", "role": role, "content": content})
    return {"input": items}
