"""A saved conversation as the ``messages`` of a Chat request, in the dialect's fields:
DeepSeek's and Kimi's ``reasoning_content``, OpenRouter's ``reasoning_details``.  Plain Chat has no
field for reasoning, so a saved episode is left out (``parse`` then shows the loss)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from conformance.vocabulary import Block, Media, Message, Reasoning, Text, ToolCall, ToolResult
from conformance.wires._openai_chat._details import DETAIL_FORMATS, episode_details
from conformance.wires._openai_chat._dialects import OPENROUTER, REASONING_CONTENT


def _part(block: Block) -> dict[str, Any] | None:
    if isinstance(block, Text):
        return {"type": "text", "text": block.text}
    if isinstance(block, Media):
        return {"type": "image_url", "image_url": {"url": f"data:{block.mime};base64,{block.data}"}}
    return None


def _content(blocks: Sequence[Block]) -> str | list[dict[str, Any]] | None:
    """One text is a string (what most clients send); anything else a list of parts."""
    parts = [p for p in map(_part, blocks) if p is not None]
    if not parts:
        return None
    if len(parts) == 1 and parts[0]["type"] == "text":
        text: str = parts[0]["text"]
        return text
    return parts


def _call(call: ToolCall) -> dict[str, Any]:
    arguments = call.arguments if isinstance(call.arguments, str) else json.dumps(call.arguments)
    return {
        "id": call.id,
        "type": "function",
        "function": {"name": call.name, "arguments": arguments},
    }


def _reasoning(episodes: Sequence[Reasoning], dialect: str | None) -> dict[str, Any]:
    if dialect in REASONING_CONTENT and episodes:
        return {"reasoning_content": "".join(r.text for r in episodes)}
    if dialect == OPENROUTER and episodes:
        details: list[dict[str, Any]] = []
        for k, episode in enumerate(episodes):
            google = (episode.origin or "").startswith("gemini")
            fmt = DETAIL_FORMATS["google" if google else "anthropic"]
            details += episode_details(episode, k, fmt, streamed=False)
        return {"reasoning_details": details}
    return {}


def _assistant(message: Message, dialect: str | None) -> dict[str, Any]:
    episodes = [b for b in message.blocks if isinstance(b, Reasoning)]
    calls = [_call(b) for b in message.blocks if isinstance(b, ToolCall)]
    rendered: dict[str, Any] = {"role": "assistant", "content": _content(message.blocks)}
    rendered.update(_reasoning(episodes, dialect))
    if calls:
        rendered["tool_calls"] = calls
    return rendered


def _tool(result: ToolResult) -> dict[str, Any]:
    content = result.content
    return {
        "role": "tool",
        "tool_call_id": result.call_id,
        "content": content if isinstance(content, str) else _content(content) or "",
    }


def history_messages(messages: Sequence[Message], dialect: str | None) -> dict[str, Any]:
    """``{"messages": [...]}``: reasoning first, then content, then ``tool_calls`` in an
    assistant message (the order the provider reads them in); one ``tool`` message per
    result."""
    rendered: list[dict[str, Any]] = []
    for message in messages:
        if message.role == "assistant":
            rendered.append(_assistant(message, dialect))
        elif message.role == "tool":
            rendered += [_tool(b) for b in message.blocks if isinstance(b, ToolResult)]
        else:
            role = "system" if message.role == "system" else "user"
            rendered.append({"role": role, "content": _content(message.blocks) or ""})
    return {"messages": rendered}
