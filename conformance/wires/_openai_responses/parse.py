"""A Responses request body in neutral form, references expanded with what the provider
stored: runs of output-side items become one assistant message, runs of outputs one tool
message, and each user, system or developer message item a message of its own.
"""

from __future__ import annotations

import json
from typing import Any

from conformance.errors import RequestParseError
from conformance.http import HttpRequest
from conformance.vocabulary import (
    Block,
    ContentBlock,
    Message,
    Reasoning,
    Role,
    ThinkingConfig,
    ToolCall,
    ToolResult,
    summary_parts,
)
from conformance.wires import _values as values
from conformance.wires._openai_responses._content import message_blocks
from conformance.wires._openai_responses._ids import conversation_id, nonempty_id
from conformance.wires._openai_responses._state import Entry, ExpandedInput, side_of
from conformance.wires._openai_responses._view import NAME, ResponsesRequestView
from conformance.wires.context import RequestView, ValidationContext

_NOT_JSON = (
    "We could not parse the JSON body of your request. (HINT: This likely means you aren't "
    "using your HTTP library correctly. The OpenAI API expects a JSON payload, but what was "
    "sent was not valid JSON. If you have trouble figuring out how to fix this, please "
    "contact us through our help center at help.openai.com.)"
)


def parse(request: HttpRequest, context: ValidationContext | None = None) -> RequestView:
    """The body in neutral form, references expanded with what ``context`` says the
    provider stored.  Error texts: OpenAI's own for a body that is not JSON (quoted
    in public reports, e.g. ChatGPTNextWeb/NextChat#4064) and for an ``input`` of the
    wrong type (jicaiinc/golemancy#5)."""
    try:
        body = json.loads(request.body)
    except (json.JSONDecodeError, UnicodeDecodeError):
        raise RequestParseError(_NOT_JSON) from None
    if not isinstance(body, dict):
        raise RequestParseError(_NOT_JSON)
    if not isinstance(body.get("input", []), str | list):
        raise RequestParseError("Invalid type for 'input'.", at="input")
    conversation = ExpandedInput.of(body, context)
    messages, locations = _neutral_messages(conversation)
    tools = body.get("tools")
    include = body.get("include")
    return ResponsesRequestView(
        wire=NAME,
        model=values.optional_text(body.get("model")),
        stream=body.get("stream") is True,
        system=values.optional_text(body.get("instructions")),
        tools=tuple(
            t["name"]
            for t in (tools if isinstance(tools, list) else ())
            if isinstance(t, dict) and isinstance(t.get("name"), str)
        ),
        thinking=_thinking(body.get("reasoning")),
        max_tokens=values.integer(body.get("max_output_tokens")),
        messages=tuple(messages),
        locations=tuple(locations),
        raw=body,
        include=tuple(
            i for i in (include if isinstance(include, list) else ()) if isinstance(i, str)
        ),
        store=conversation.store,
        previous_response_id=nonempty_id(body.get("previous_response_id")),
        conversation=conversation_id(body.get("conversation")),
        items=tuple(e.raw for e in conversation.entries),
    )


def _output_content(output: object) -> str | tuple[ContentBlock, ...]:
    if isinstance(output, str):
        return output
    if isinstance(output, list):
        return tuple(b for b, _ in message_blocks(output, ""))
    return values.compact(output) if output is not None else ""


def _item_block(entry: Entry, conversation: ExpandedInput) -> Block | None:
    """An output-side or tool item in neutral form (None: no such neutral block)."""
    item, kind = entry.item, entry.kind
    if kind == "reasoning":
        summary = item.get("summary")
        texts = (
            tuple(values.text(s.get("text")) for s in summary if isinstance(s, dict))
            if isinstance(summary, list)
            else ()
        )
        content = item.get("content")
        text = (
            "".join(values.text(c.get("text")) for c in content if isinstance(c, dict))
            if isinstance(content, list)
            else ""
        )
        return Reasoning(
            text=text,
            signature=conversation.signature(item),
            id=conversation.reasoning_id(item),
            summary=summary_parts(texts),
        )
    if kind == "function_call":
        raw = values.text(item.get("arguments"))
        try:
            parsed = json.loads(raw)
        except ValueError:
            parsed = None
        arguments: dict[str, Any] | str = parsed if isinstance(parsed, dict) else raw
        return ToolCall(
            id=values.text(item.get("call_id")),
            name=values.text(item.get("name")),
            arguments=arguments,
        )
    if kind == "function_call_output":
        return ToolResult(
            call_id=values.text(item.get("call_id")), content=_output_content(item.get("output"))
        )
    return None


def _neutral_messages(
    conversation: ExpandedInput,
) -> tuple[list[Message], list[tuple[str, tuple[str, ...]]]]:
    """Runs of output-side items become one assistant message, runs of outputs one tool
    message; every user, system or developer message item is a message of its own."""
    messages: list[Message] = []
    locations: list[tuple[str, tuple[str, ...]]] = []
    runs: list[tuple[Role, list[Block], list[str], str]] = []
    for entry in conversation.entries:
        side = side_of(entry)
        if side is None:
            continue
        placed: list[tuple[Block, str]]
        if entry.kind == "message":
            placed = list(message_blocks(entry.item.get("content"), entry.at))
        else:
            block = _item_block(entry, conversation)
            if block is None:
                continue  # a hosted tool's call or output: no neutral form, no message
            placed = [(block, entry.at)]
        if side in ("user", "system") or not runs or runs[-1][0] != side:
            runs.append((side, [], [], entry.at))
        runs[-1][1].extend(b for b, _ in placed)
        runs[-1][2].extend(at for _, at in placed)
    for role, blocks, where, at in runs:
        messages.append(Message(role=role, blocks=tuple(blocks)))
        locations.append((at, tuple(where)))
    return messages, locations


def _thinking(value: object) -> ThinkingConfig:
    """``reasoning`` present means the model reasons at its own depth: adaptive."""
    return ThinkingConfig(mode="adaptive") if isinstance(value, dict) else ThinkingConfig()


def history_items(view: RequestView) -> list[Any]:
    """The expanded conversation: a client continuing by ``previous_response_id`` still
    appends to what the provider holds, so append-only compares that."""
    if isinstance(view, ResponsesRequestView):
        return list(view.items)
    raw_input = view.raw.get("input")
    return list(raw_input) if isinstance(raw_input, list) else []
