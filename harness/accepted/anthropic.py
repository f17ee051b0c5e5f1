"""Accepted Anthropic spellings: a one-text-block user message rewritten to a string once
it is no longer the last (a moving ``cache_control`` breakpoint); ``[text, thinking,
tool_use]`` replayed verbatim in manual mode; an error text without ``is_error`` for a
call that did not run; whitespace-only text replayed beside the message's other blocks.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from conformance._reference.adapter import ReferenceAdapter
from conformance._reference.anthropic import AnthropicCodec
from conformance._reference.codec import WireCodec
from conformance.vocabulary import Block, Message, Text
from harness.accepted._rewrite import Rewriting


def _users(body: Mapping[str, Any]) -> list[dict[str, Any]]:
    return [m for m in body.get("messages") or () if m.get("role") == "user"]


class MovingBreakpointCodec(Rewriting, AnthropicCodec):
    """The latest user message keeps a list with a ``cache_control`` breakpoint on its
    last block; every older one-text-block user message is sent as its plain string."""

    def rewrite(self, body: dict[str, Any]) -> dict[str, Any]:
        users = _users(body)
        for message in users[:-1]:
            content = message.get("content")
            if isinstance(content, list) and len(content) == 1:
                (block,) = content
                if block.get("type") == "text" and set(block) == {"type", "text"}:
                    message["content"] = block["text"]
        if users and isinstance(users[-1].get("content"), list) and users[-1]["content"]:
            last = users[-1]["content"][-1]
            if last.get("type") == "text":
                last["cache_control"] = {"type": "ephemeral"}
        return body


class VerbatimOrderCodec(AnthropicCodec):
    """Manual thinking replayed exactly as streamed: no block moved to the front."""

    def arrange(self, blocks: tuple[Block, ...], repair: bool) -> tuple[Block, ...]:
        return blocks


class NoErrorFlagCodec(Rewriting, AnthropicCodec):
    """An unexecuted call answered with its explanatory text, without ``is_error``."""

    def rewrite(self, body: dict[str, Any]) -> dict[str, Any]:
        for message in _users(body):
            for block in message.get("content") or ():
                if isinstance(block, dict) and block.get("type") == "tool_result":
                    block.pop("is_error", None)
        return body


class BlankTextKeptCodec(AnthropicCodec):
    """Whitespace-only text is replayed where it sits beside other blocks (what
    pydantic-ai 2.68.0 and qwen-code 0.24.4 send, and simonw/llm-anthropic's real 200 for
    ``[text:' ', tool_use, tool_use]``); a message of blank text alone is still left out,
    since only that is refused (rule 15)."""

    def _sendable(self, message: Message) -> tuple[Block, ...]:
        kept = super()._sendable(message)
        if all(isinstance(b, Text) and not b.text.strip() for b in kept):
            return ()
        return kept


class MovingBreakpointAdapter(ReferenceAdapter):
    name: ClassVar[str] = "accepted-moving-breakpoint"
    wires: ClassVar[frozenset[str]] = frozenset({"anthropic-messages"})
    codecs: ClassVar[Mapping[str, type[WireCodec]]] = {"anthropic-messages": MovingBreakpointCodec}


class VerbatimOrderAdapter(ReferenceAdapter):
    name: ClassVar[str] = "accepted-verbatim-order"
    wires: ClassVar[frozenset[str]] = frozenset({"anthropic-messages"})
    codecs: ClassVar[Mapping[str, type[WireCodec]]] = {"anthropic-messages": VerbatimOrderCodec}


class BlankTextKeptAdapter(ReferenceAdapter):
    name: ClassVar[str] = "accepted-blank-text-kept"
    wires: ClassVar[frozenset[str]] = frozenset({"anthropic-messages"})
    codecs: ClassVar[Mapping[str, type[WireCodec]]] = {"anthropic-messages": BlankTextKeptCodec}

    def __init__(self) -> None:
        super().__init__(disabled={"omit-blank-text"})
