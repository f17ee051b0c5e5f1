"""A request body in neutral form: contents become messages (functionResponse runs
become ``tool`` messages), calls the client named itself (sent without an id, or with
one it made up for a call served without one) get back the id they were served with,
and the generation config becomes the neutral thinking setting."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from conformance.errors import RequestParseError
from conformance.http import HttpRequest
from conformance.vocabulary import (
    Block,
    Message,
    Role,
    ThinkingConfig,
    ToolCall,
    ToolResult,
)
from conformance.wires import _values as values
from conformance.wires._gemini._errors import INVALID_JSON, NOT_A_MESSAGE
from conformance.wires._gemini._fields import as_object, get, nonempty_text
from conformance.wires._gemini._parts import CallIds, content_block, synthesized
from conformance.wires._gemini._paths import STREAM_METHOD, route, wants_sse
from conformance.wires._gemini._view import NAME, GeminiRequestView
from conformance.wires.context import RequestView, ValidationContext


def parse(request: HttpRequest, context: ValidationContext | None = None) -> RequestView:
    """The body in neutral form.  Error texts are Google's JSON-parsing ones: NaN and
    Infinity are not JSON to the API either."""
    try:
        body = json.loads(request.body, parse_constant=_refuse_constant)
    except (json.JSONDecodeError, UnicodeDecodeError, ValueError):
        raise RequestParseError(INVALID_JSON) from None
    if not isinstance(body, dict):
        raise RequestParseError(NOT_A_MESSAGE)
    raw_contents = get(body, "contents")
    contents = raw_contents if isinstance(raw_contents, list) else []
    messages, locations = _neutral_messages(contents, CallIds.of(context, contents))
    path = route(request)
    generation = as_object(get(body, "generationConfig"))
    return GeminiRequestView(
        wire=NAME,
        model=path["model"] if path else None,
        stream=path is not None and path["method"] == STREAM_METHOD,
        system=_system(get(body, "systemInstruction")),
        tools=_tools(get(body, "tools")),
        thinking=_thinking(get(generation, "thinkingConfig")),
        max_tokens=values.integer(get(generation, "maxOutputTokens")),
        messages=tuple(messages),
        locations=tuple(locations),
        raw=body,
        sse=wants_sse(request.query),
    )


def _refuse_constant(name: str) -> Any:
    """NaN and Infinity, which Python's reader accepts and the API does not."""
    raise ValueError(name)


def _tool_result(response: Mapping[str, Any], call_id: str) -> ToolResult:
    """A functionResponse, whose ``response`` is a free-form object: callers may use any
    keys; ``output`` holds the output and ``error`` the error, and without either the
    whole object is the output (Gemini's API reference, ``FunctionResponse.response``).

    Its content is the ``result`` or ``output`` string, else the string under its single
    key (``return_value``, ``content``, ...), else its JSON text; a response that only
    reports an ``error`` is an error result, whose content is the error's text when it is
    one string (the docs' ``{"error": "..."}`` form), else the response's JSON text.
    Whatever the envelope, the output's (or the error's) string values and JSON are its
    ``readings``: the information a client passed on, under whatever keys it chose."""
    payload = as_object(get(response, "response"))
    failed = "error" in payload and not {"result", "output"} & payload.keys()
    held = payload["error"] if failed else payload.get("output", payload)
    readings = tuple(dict.fromkeys([*_strings(held), values.compact(held)]))
    for key in ("result", "output"):
        if isinstance(payload.get(key), str):
            return ToolResult(call_id=call_id, content=payload[key], readings=readings)
    if len(payload) == 1:
        (only,) = payload.values()
        if isinstance(only, str):
            return ToolResult(call_id=call_id, content=only, is_error=failed, readings=readings)
    content = values.compact(payload)
    return ToolResult(call_id=call_id, content=content, is_error=failed, readings=readings)


def _strings(value: object) -> list[str]:
    """Every string value inside ``value`` (object values and list items, at any depth,
    in document order; object keys are names, not values)."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, Mapping):
        return [s for item in value.values() for s in _strings(item)]
    if isinstance(value, list):
        return [s for item in value for s in _strings(item)]
    return []


def _neutral_messages(
    contents: Sequence[object], ids: CallIds
) -> tuple[list[Message], list[tuple[str, tuple[str, ...]]]]:
    """Neutral messages and their locations; functionResponse runs become ``tool``
    messages, so a user content mixing both splits in order.  A functionResponse
    without ``id`` answers the call at its position in the latest model content, the way
    Gemini pairs them; one naming an id the client made up answers the call it stands
    for."""
    messages: list[Message] = []
    locations: list[tuple[str, tuple[str, ...]]] = []
    calls: list[str] = []  # the call ids of the latest model content
    answered = 0  # its calls answered so far, over consecutive response contents too
    for i, content in enumerate(contents):
        if not isinstance(content, dict):
            continue
        role: Role = "assistant" if get(content, "role") == "model" else "user"
        at = f"contents[{i}]"
        runs: list[tuple[Role, list[Block], list[str]]] = []
        made: list[str] = []
        parts = get(content, "parts")
        for j, part in enumerate(parts if isinstance(parts, list) else ()):
            if not isinstance(part, dict):
                continue
            where = f"{at}.parts[{j}]"
            response = get(part, "functionResponse")
            block: Block | None
            if isinstance(response, dict):
                fallback = calls[answered] if answered < len(calls) else None
                sent = nonempty_text(get(response, "id"))
                call_id = ids.answered(sent) if sent is not None else fallback
                block = _tool_result(response, call_id or synthesized(where))
                answered += 1
            else:
                block = content_block(part, where, ids)
                if isinstance(block, ToolCall):
                    made.append(block.id)
            if block is None:
                continue
            target: Role = "tool" if isinstance(block, ToolResult) else role
            if not runs or runs[-1][0] != target:
                runs.append((target, [], []))
            runs[-1][1].append(block)
            runs[-1][2].append(where)
        if role == "assistant":
            calls = made
            answered = 0
        for run_role, blocks, where_blocks in runs or [(role, [], [])]:
            messages.append(Message(role=run_role, blocks=tuple(blocks)))
            locations.append((at, tuple(where_blocks)))
    return messages, locations


def _system(value: object) -> str | None:
    if not isinstance(value, dict):
        return None
    parts = get(value, "parts")
    return "".join(
        values.text(get(p, "text"))
        for p in (parts if isinstance(parts, list) else ())
        if isinstance(p, dict)
    )


def _tools(value: object) -> tuple[str, ...]:
    names: list[str] = []
    for tool in value if isinstance(value, list) else ():
        declarations = get(tool, "functionDeclarations") if isinstance(tool, dict) else None
        for declaration in declarations if isinstance(declarations, list) else ():
            if isinstance(declaration, dict) and isinstance(get(declaration, "name"), str):
                names.append(get(declaration, "name"))
    return tuple(names)


def _thinking(value: object) -> ThinkingConfig:
    """A budget > 0 is manual; -1 (dynamic), a level or includeThoughts is adaptive; a
    budget of 0 turns thinking off."""
    if not isinstance(value, dict):
        return ThinkingConfig()
    budget = values.integer(get(value, "thinkingBudget"))
    if budget is not None and budget > 0:
        return ThinkingConfig(mode="manual", budget_tokens=budget)
    if budget == 0:
        return ThinkingConfig()
    if budget is not None or get(value, "thinkingLevel") is not None:
        return ThinkingConfig(mode="adaptive")
    return ThinkingConfig(mode="adaptive" if get(value, "includeThoughts") is True else "off")


def history_items(view: RequestView) -> list[Any]:
    """The body's ``contents`` in order, as raw JSON: what append-only compares."""
    contents = get(view.raw, "contents")
    return list(contents) if isinstance(contents, list) else []
