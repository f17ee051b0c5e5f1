"""Pieces of a Chat message as the dialect's provider reads them, shared by the parse,
the reader and the rules."""

from __future__ import annotations

import re
from typing import Any

from conformance.vocabulary import Block, ContentBlock, Media, Reasoning, Text
from conformance.wires import _values as values
from conformance.wires._openai_chat._details import reasoning_episodes
from conformance.wires._openai_chat._dialects import OPENROUTER, REASONING_CONTENT
from conformance.wires._thought_signatures import canonical

SYSTEM_ROLES = frozenset({"system", "developer"})


def message_reasoning(raw: dict[str, Any], at: str, dialect: str | None) -> list[tuple[Block, str]]:
    """An assistant message's reasoning, as the dialect's provider reads it."""
    if dialect in REASONING_CONTENT:
        # Empty and absent are the same there: "" is what a message without reasoning
        # carries to satisfy the key rule (DeepSeek's and Kimi's), not an episode.
        value = raw.get("reasoning_content")
        return (
            [(Reasoning(text=value), f"{at}.reasoning_content")]
            if isinstance(value, str) and value
            else []
        )
    if dialect != OPENROUTER:
        return []
    episodes = reasoning_episodes(raw.get("reasoning_details"))
    if episodes:
        return [(r, f"{at}.reasoning_details.{k}") for k, r in episodes]
    text = raw.get("reasoning")
    return [(Reasoning(text=text), f"{at}.reasoning")] if isinstance(text, str) and text else []


def content_parts(content: object, at: str) -> list[tuple[ContentBlock, str]]:
    """Message content (a string, or a list of parts) as neutral blocks: text and refusal
    parts become Text, ``data:`` image URLs become Media; empty text is left out."""
    if isinstance(content, str):
        return [(Text(text=content), f"{at}.content")] if content else []
    found: list[tuple[ContentBlock, str]] = []
    for k, part in enumerate(content if isinstance(content, list) else ()):
        if not isinstance(part, dict):
            continue
        where = f"{at}.content.{k}"
        kind = part.get("type")
        text = values.text(part.get("text") if kind == "text" else part.get("refusal"))
        if kind in ("text", "refusal") and text:
            found.append((Text(text=text), where))
        elif kind == "image_url":
            image = part.get("image_url")
            url = values.text(image.get("url")) if isinstance(image, dict) else ""
            match = re.fullmatch(r"data:([^;,]+);base64,(.*)", url, re.DOTALL)
            if match:
                found.append((Media(mime=match[1], data=match[2]), where))
    return found


def deepseek_thinking(body: dict[str, Any]) -> bool:
    """Whether a DeepSeek request runs in thinking mode (see the package docstring, rule 35)."""
    thinking = body.get("thinking")
    model = body.get("model")
    enabled = isinstance(thinking, dict) and thinking.get("type") == "enabled"
    return enabled or (isinstance(model, str) and "reasoner" in model)


def kimi_thinking(body: dict[str, Any]) -> bool:
    """Whether a Kimi request runs with thinking on (see the package docstring, rule 36):
    ``thinking.type == "enabled"`` or a ``…thinking…`` model."""
    thinking = body.get("thinking")
    model = body.get("model")
    enabled = isinstance(thinking, dict) and thinking.get("type") == "enabled"
    return enabled or (isinstance(model, str) and "thinking" in model)


def call_signature(call: object) -> str | None:
    """The thought signature Gemini's OpenAI-compatible endpoint puts on a tool call,
    ``extra_content.google.thought_signature`` (rule 47), as its bytes in canonical
    base64 (the field is Gemini's protobuf ``bytes``, so any base64 spelling of the same
    bytes is the same signature)."""
    extra = call.get("extra_content") if isinstance(call, dict) else None
    google = extra.get("google") if isinstance(extra, dict) else None
    value = google.get("thought_signature") if isinstance(google, dict) else None
    return canonical(value) if isinstance(value, str) and value else None
