"""A request body in neutral form: contents become messages (functionResponse runs
become ``tool`` messages), calls sent without an id get back the id they were served
with, and the generation config becomes the neutral thinking setting."""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from conformance.http import HttpRequest
from conformance.model import (
    Block,
    ContentBlock,
    Media,
    Message,
    Reasoning,
    Role,
    Text,
    ThinkingConfig,
    ToolCall,
    ToolResult,
)
from conformance.wires import values
from conformance.wires.base import RequestParseError, RequestView, ValidationContext
from conformance.wires.gemini.errors import INVALID_JSON, NOT_A_MESSAGE
from conformance.wires.gemini.fields import as_object, get, nonempty_text
from conformance.wires.gemini.route import STREAM_METHOD, route, wants_sse
from conformance.wires.gemini.signatures import part_signature


class GeminiRequestView(RequestView):
    """The neutral view plus how a streamed answer is framed: ``alt=sse`` asks for
    server-sent events, its absence for one JSON array written piece by piece."""

    sse: bool = True


def parse_body(
    request: HttpRequest, context: ValidationContext | None, wire: str
) -> GeminiRequestView:
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
        wire=wire,
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


@dataclass
class CallIds:
    """Ids for functionCall parts that carry none: the id of the served call with the
    same name and arguments (each served call once, and none a request names itself),
    else a deterministic one from the part's place, so every request of a conversation
    gives the same call the same id."""

    served: list[ToolCall]
    used: set[int] = field(default_factory=set)

    @classmethod
    def of(cls, context: ValidationContext | None, contents: Sequence[object]) -> CallIds:
        served: list[ToolCall] = []
        if context is not None:
            history = (b for m in context.history if m.role == "assistant" for b in m.blocks)
            scripted = (b for r in context.served for b in r.blocks)
            served = [
                b for source in (history, scripted) for b in source if isinstance(b, ToolCall)
            ]
        named = {i for _, part in _parts_of(contents) if (i := _call_id(part)) is not None}
        return cls(served, {k for k, call in enumerate(served) if call.id in named})

    def restore(self, name: str, arguments: dict[str, Any] | str, at: str) -> str:
        for k, call in enumerate(self.served):
            if k not in self.used and call.name == name and call.arguments == arguments:
                self.used.add(k)
                return call.id
        return _synthesized(at)


def _synthesized(at: str) -> str:
    """The id of an unnamed call or response that matches nothing: from its place."""
    return "call_" + values.digest("gemini", at)[:24]


def _parts_of(contents: Sequence[object]) -> Iterator[tuple[str, dict[str, Any]]]:
    """Every part of every content, with its location."""
    for i, content in enumerate(contents):
        parts = get(content, "parts") if isinstance(content, dict) else None
        for j, part in enumerate(parts if isinstance(parts, list) else ()):
            if isinstance(part, dict):
                yield f"contents[{i}].parts[{j}]", part


def _call_id(part: Mapping[str, Any]) -> str | None:
    call = get(part, "functionCall")
    return nonempty_text(get(call, "id")) if isinstance(call, dict) else None


def content_block(part: Mapping[str, Any], at: str, ids: CallIds) -> ContentBlock | None:
    """A part other than functionResponse in neutral form (None: no neutral form).

    Only ``thought: true`` makes a part reasoning (rule 39); a signature alone, with no
    text, is kept as an empty text so its token stays visible."""
    signature = part_signature(part)
    call = get(part, "functionCall")
    if isinstance(call, dict):
        name = values.text(get(call, "name"))
        raw_args = get(call, "args")
        arguments = {} if raw_args is None else raw_args
        arguments = arguments if isinstance(arguments, dict) else values.compact(arguments)
        call_id = nonempty_text(get(call, "id")) or ids.restore(name, arguments, at)
        return ToolCall(id=call_id, name=name, arguments=arguments, signature=signature)
    media = get(part, "inlineData")
    if isinstance(media, dict):
        return Media(mime=values.text(get(media, "mimeType")), data=values.text(get(media, "data")))
    text = get(part, "text")
    if get(part, "thought") is True:
        return Reasoning(text=values.text(text), signature=signature)
    if isinstance(text, str) or signature is not None:
        return Text(text=values.text(text), signature=signature)
    return None


def _tool_result(response: Mapping[str, Any], call_id: str) -> ToolResult:
    """A functionResponse: its ``result`` or ``output`` string, else its JSON text; a
    response that only reports an ``error`` is an error result."""
    payload = as_object(get(response, "response"))
    for key in ("result", "output"):
        if isinstance(payload.get(key), str):
            return ToolResult(call_id=call_id, content=payload[key])
    failed = "error" in payload and not {"result", "output"} & payload.keys()
    return ToolResult(call_id=call_id, content=values.compact(payload), is_error=failed)


def _neutral_messages(
    contents: Sequence[object], ids: CallIds
) -> tuple[list[Message], list[tuple[str, tuple[str, ...]]]]:
    """Neutral messages and their locations; functionResponse runs become ``tool``
    messages, so a user content mixing both splits in order.  A functionResponse
    without ``id`` answers the call at its position in the latest model content."""
    messages: list[Message] = []
    locations: list[tuple[str, tuple[str, ...]]] = []
    calls: list[str] = []  # the call ids of the latest model content
    for i, content in enumerate(contents):
        if not isinstance(content, dict):
            continue
        role: Role = "assistant" if get(content, "role") == "model" else "user"
        at = f"contents[{i}]"
        runs: list[tuple[Role, list[Block], list[str]]] = []
        made: list[str] = []
        answered = 0
        parts = get(content, "parts")
        for j, part in enumerate(parts if isinstance(parts, list) else ()):
            if not isinstance(part, dict):
                continue
            where = f"{at}.parts[{j}]"
            response = get(part, "functionResponse")
            block: Block | None
            if isinstance(response, dict):
                fallback = calls[answered] if answered < len(calls) else None
                call_id = nonempty_text(get(response, "id")) or fallback
                block = _tool_result(response, call_id or _synthesized(where))
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
