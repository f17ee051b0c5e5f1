"""A Messages request body in neutral form, the view the rest of the suite reads.
``tool_result`` runs become ``tool`` messages; blocks the neutral vocabulary has no form
for are left out of the view (its ``raw`` body keeps them)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from conformance.errors import RequestParseError
from conformance.http import HttpRequest
from conformance.vocabulary import (
    Block,
    ContentBlock,
    Message,
    Role,
    Text,
    ThinkingConfig,
    ToolResult,
)
from conformance.wires import _values as values
from conformance.wires._anthropic_messages._blocks import content_block
from conformance.wires._anthropic_messages._threads import rebuild
from conformance.wires._anthropic_messages._view import NAME, AnthropicRequestView
from conformance.wires.context import RequestView, ValidationContext


def _block(item: object) -> Block | None:
    """A raw message block in neutral form, ``tool_result`` included."""
    if isinstance(item, dict) and item.get("type") == "tool_result":
        content = item.get("content")
        parsed: str | tuple[ContentBlock, ...] = ""
        if isinstance(content, str):
            parsed = content
        elif isinstance(content, list):
            parsed = tuple(b for b in map(content_block, content) if b is not None)
        return ToolResult(
            call_id=values.text(item.get("tool_use_id")),
            content=parsed,
            is_error=item.get("is_error") is True,
        )
    return content_block(item)


def _neutral_messages(
    raw_messages: Sequence[object],
) -> tuple[list[Message], list[tuple[str, tuple[str, ...]]]]:
    """Neutral messages and their locations; tool_result runs become ``tool`` messages."""
    messages: list[Message] = []
    locations: list[tuple[str, tuple[str, ...]]] = []
    for i, raw in enumerate(raw_messages):
        if not isinstance(raw, dict) or raw.get("role") not in ("user", "assistant"):
            continue
        role: Role = "user" if raw["role"] == "user" else "assistant"
        at = f"messages.{i}"
        runs: list[tuple[Role, list[Block], list[str]]] = []
        content = raw.get("content")
        if isinstance(content, str) and content:
            runs.append((role, [Text(text=content)], [f"{at}.content"]))
        elif isinstance(content, list):
            for j, item in enumerate(content):
                block = _block(item)
                if block is None:
                    continue
                target: Role = "tool" if isinstance(block, ToolResult) else role
                if not runs or runs[-1][0] != target:
                    runs.append((target, [], []))
                runs[-1][1].append(block)
                runs[-1][2].append(f"{at}.content.{j}")
        for run_role, blocks, where in runs or [(role, [], [])]:
            messages.append(Message(role=run_role, blocks=tuple(blocks)))
            locations.append((at, tuple(where)))
    return messages, locations


def _system(value: object) -> str | None:
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        return "".join(
            b["text"]
            for b in value
            if isinstance(b, dict) and b.get("type") == "text" and isinstance(b.get("text"), str)
        )
    return None


def _thinking(value: object) -> ThinkingConfig:
    if not isinstance(value, dict):
        return ThinkingConfig()
    if value.get("type") == "enabled":
        budget = values.integer(value.get("budget_tokens"))
        return ThinkingConfig(
            mode="manual", budget_tokens=budget if budget and budget > 0 else None
        )
    if value.get("type") == "adaptive":
        return ThinkingConfig(mode="adaptive")
    return ThinkingConfig()


def parse(request: HttpRequest, context: ValidationContext | None = None) -> RequestView:
    """The body in neutral form (a message thread's request: the conversation the
    provider rebuilt, ``_threads``).  Error texts: Anthropic's own for a body that is not
    JSON (``The request body is not valid JSON: <decoder message>``, seen in
    anthropics/claude-code#6464); pydantic-style for the wrong shapes."""
    try:
        body = json.loads(request.body)
    except (json.JSONDecodeError, UnicodeDecodeError) as error:
        raise RequestParseError(f"The request body is not valid JSON: {error}") from None
    if not isinstance(body, dict):
        raise RequestParseError("Input should be a valid dictionary")
    if "messages" not in body:
        raise RequestParseError("messages: Field required", at="messages")
    if not isinstance(body["messages"], list):
        raise RequestParseError("messages: Input should be a valid list", at="messages")
    rebuilt = rebuild(body, context)  # a message thread's conversation (rules 56-58)
    thread = None
    if rebuilt is not None:
        body, thread = rebuilt
    messages, locations = _neutral_messages(body["messages"])
    tools = body.get("tools")
    beta = request.header("anthropic-beta") or ""
    return AnthropicRequestView(
        wire=NAME,
        model=values.optional_text(body.get("model")),
        stream=body.get("stream") is True,
        system=_system(body.get("system")),
        tools=tuple(
            t["name"]
            for t in (tools if isinstance(tools, list) else ())
            if isinstance(t, dict) and isinstance(t.get("name"), str)
        ),
        thinking=_thinking(body.get("thinking")),
        max_tokens=values.integer(body.get("max_tokens")),
        messages=tuple(messages),
        locations=tuple(locations),
        raw=body,
        betas=tuple(b.strip() for b in beta.split(",") if b.strip()),
        thread=thread,
    )


def history_items(view: RequestView) -> list[Any]:
    """The body's ``messages`` in order, as raw JSON: what append-only compares."""
    items = view.raw.get("messages")
    return list(items) if isinstance(items, list) else []
