"""A Chat request body as the neutral view, read as the dialect's provider reads it:
system and developer messages become the system text, an assistant message's reasoning
comes first (DeepSeek's and Kimi's ``reasoning_content``, OpenRouter's
``reasoning_details``), a Gemini call carries the thought signature of its
``extra_content``, and consecutive tool messages become one tool message."""

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
    ToolCall,
    ToolResult,
)
from conformance.wires import _values as values
from conformance.wires._openai_chat._dialects import DEEPSEEK, GEMINI, KIMI, NAME, OPENROUTER
from conformance.wires._openai_chat._messages import (
    SYSTEM_ROLES,
    call_signature,
    content_parts,
    deepseek_thinking,
    kimi_thinking,
    message_reasoning,
)
from conformance.wires.context import RequestView, ValidationContext

_NOT_JSON = (
    "We could not parse the JSON body of your request. (HINT: This likely means you aren't "
    "using your HTTP library correctly. The OpenAI API expects a JSON payload, but what was "
    "sent was not valid JSON. If you have trouble figuring out how to fix this, please "
    "contact us through our help center at help.openai.com.)"
)


def parse(request: HttpRequest, context: ValidationContext | None = None) -> RequestView:
    """The body in neutral form, read as the context's dialect reads it.  Error texts
    are OpenAI's (NextChat#4064; an OpenAI cassette in a public gateway test suite)."""
    try:
        body = json.loads(request.body)
    except (json.JSONDecodeError, UnicodeDecodeError):
        raise RequestParseError(_NOT_JSON) from None
    if not isinstance(body, dict):
        raise RequestParseError(_NOT_JSON)
    if body.get("messages") is None:
        raise RequestParseError("Missing required parameter: 'messages'.", at="messages")
    if not isinstance(body["messages"], list):
        found = _json_type(body["messages"])
        raise RequestParseError(
            f"Invalid type for 'messages': expected an array of objects, but got {found} instead.",
            at="messages",
        )
    dialect = context.dialect if context is not None else None
    messages, locations, system = _neutral_messages(body["messages"], dialect)
    tools = body.get("tools")
    limit = body.get("max_completion_tokens", body.get("max_tokens"))
    return RequestView(
        wire=NAME,
        model=values.optional_text(body.get("model")),
        stream=body.get("stream") is True,
        system=system,
        tools=tuple(
            t["function"]["name"]
            for t in (tools if isinstance(tools, list) else ())
            if isinstance(t, dict)
            and isinstance(t.get("function"), dict)
            and isinstance(t["function"].get("name"), str)
        ),
        thinking=_thinking(body, dialect),
        max_tokens=values.integer(limit),
        messages=tuple(messages),
        locations=tuple(locations),
        raw=body,
    )


def _tool_call(item: object, dialect: str | None) -> ToolCall:
    call = item if isinstance(item, dict) else {}
    function = call.get("function")
    function = function if isinstance(function, dict) else {}
    raw = function.get("arguments")
    arguments: dict[str, Any] | str = raw if isinstance(raw, dict) else values.text(raw)
    if isinstance(arguments, str):
        try:
            parsed = json.loads(arguments)
        except json.JSONDecodeError:
            parsed = None
        if isinstance(parsed, dict):
            arguments = parsed
    return ToolCall(
        id=values.text(call.get("id")),
        name=values.text(function.get("name")),
        arguments=arguments,
        signature=call_signature(call) if dialect == GEMINI else None,
    )


def _tool_result(raw: dict[str, Any]) -> ToolResult:
    content = raw.get("content")
    parsed: str | tuple[ContentBlock, ...] = ""
    if isinstance(content, str):
        parsed = content
    elif isinstance(content, list):
        parsed = tuple(block for block, _ in content_parts(content, ""))
    return ToolResult(call_id=values.text(raw.get("tool_call_id")), content=parsed)


def _neutral_messages(
    raw_messages: Sequence[object], dialect: str | None
) -> tuple[list[Message], list[tuple[str, tuple[str, ...]]], str | None]:
    """Neutral messages, their locations and the system text.  System and developer
    messages become the system text; consecutive tool messages become one tool message."""
    messages: list[Message] = []
    locations: list[tuple[str, tuple[str, ...]]] = []
    system: list[str] = []
    for i, raw in enumerate(raw_messages):
        if not isinstance(raw, dict):
            continue
        role, at = raw.get("role"), f"messages.{i}"
        if role in SYSTEM_ROLES:
            system += [
                b.text for b, _ in content_parts(raw.get("content"), at) if isinstance(b, Text)
            ]
            continue
        if role == "tool":
            if messages and messages[-1].role == "tool":
                joined = Message(role="tool", blocks=(*messages[-1].blocks, _tool_result(raw)))
                messages[-1] = joined
                locations[-1] = (locations[-1][0], (*locations[-1][1], at))
            else:
                messages.append(Message(role="tool", blocks=(_tool_result(raw),)))
                locations.append((at, (at,)))
            continue
        if role not in ("user", "assistant"):
            continue
        placed: list[tuple[Block, str]] = []
        if role == "assistant":
            placed += message_reasoning(raw, at, dialect)
        placed += content_parts(raw.get("content"), at)
        if role == "assistant":
            calls = raw.get("tool_calls")
            placed += [
                (_tool_call(c, dialect), f"{at}.tool_calls.{k}")
                for k, c in enumerate(calls if isinstance(calls, list) else ())
            ]
        neutral_role: Role = "assistant" if role == "assistant" else "user"
        messages.append(Message(role=neutral_role, blocks=tuple(b for b, _ in placed)))
        locations.append((at, tuple(w for _, w in placed)))
    return messages, locations, "\n\n".join(system) if system else None


def _thinking(body: dict[str, Any], dialect: str | None) -> ThinkingConfig:
    """The reasoning switch of each dialect in neutral form: DeepSeek's thinking mode and
    OpenAI's ``reasoning_effort`` are adaptive; OpenRouter's ``reasoning`` is manual with
    ``max_tokens``, adaptive otherwise, off when disabled."""
    if dialect == DEEPSEEK:
        return ThinkingConfig(mode="adaptive" if deepseek_thinking(body) else "off")
    if dialect == KIMI:
        return ThinkingConfig(mode="adaptive" if kimi_thinking(body) else "off")
    if dialect == OPENROUTER:
        reasoning = body.get("reasoning")
        if not isinstance(reasoning, dict):
            on = body.get("include_reasoning") is True
            return ThinkingConfig(mode="adaptive" if on else "off")
        if reasoning.get("enabled") is False or reasoning.get("effort") == "none":
            return ThinkingConfig()
        budget = values.integer(reasoning.get("max_tokens"))
        if budget is not None and budget > 0:
            return ThinkingConfig(mode="manual", budget_tokens=budget)
        return ThinkingConfig(mode="adaptive")
    effort = body.get("reasoning_effort")
    on = isinstance(effort, str) and effort != "none"
    return ThinkingConfig(mode="adaptive" if on else "off")


def _json_type(value: object) -> str:
    """A JSON value's type the way OpenAI's ``Invalid type`` errors name it."""
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int):
        return "an integer"
    if isinstance(value, float):
        return "a decimal"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, dict):
        return "an object"
    return "null"


def history_items(view: RequestView) -> list[Any]:
    """The body's ``messages`` in order, as raw JSON: what append-only compares."""
    items = view.raw.get("messages")
    return list(items) if isinstance(items, list) else []
