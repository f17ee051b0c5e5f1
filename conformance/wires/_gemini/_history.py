"""A saved conversation as the ``contents`` of a Gemini request: thoughts as
``thought: true`` parts, every signature as the ``thoughtSignature`` of the part it came
on, tool results as ``functionResponse`` parts of a user content."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from conformance.vocabulary import Block, Media, Message, Reasoning, Text, ToolCall, ToolResult


def _signed(part: dict[str, Any], signature: str | None) -> dict[str, Any]:
    return part if signature is None else {**part, "thoughtSignature": signature}


def _part(block: Block, names: dict[str, str]) -> dict[str, Any] | None:
    if isinstance(block, Reasoning) and not block.redacted:
        return _signed({"text": block.text, "thought": True}, block.signature)
    if isinstance(block, Text):
        return _signed({"text": block.text}, block.signature)
    if isinstance(block, ToolCall):
        call = {"id": block.id, "name": block.name, "args": block.arguments}
        return _signed({"functionCall": call}, block.signature)
    if isinstance(block, Media):
        return {"inlineData": {"mimeType": block.mime, "data": block.data}}
    if isinstance(block, ToolResult) and isinstance(block.content, str):
        key = "error" if block.is_error else "result"
        response = {"id": block.call_id, "name": names.get(block.call_id, "")}
        return {"functionResponse": {**response, "response": {key: block.content}}}
    return None


def history_contents(messages: Sequence[Message]) -> dict[str, Any]:
    """``{"contents": [...]}``: assistant messages are ``model`` contents, the rest
    ``user`` ones; a functionResponse names the call it answers."""
    names: dict[str, str] = {}
    contents: list[dict[str, Any]] = []
    for message in messages:
        names.update({b.id: b.name for b in message.blocks if isinstance(b, ToolCall)})
        parts = [p for p in (_part(b, names) for b in message.blocks) if p is not None]
        role = "model" if message.role == "assistant" else "user"
        contents.append({"role": role, "parts": parts})
    return {"contents": contents}
