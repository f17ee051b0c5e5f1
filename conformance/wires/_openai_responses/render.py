"""A scripted response as OpenAI sends it: the semantic SSE event stream, or the JSON
response object.

A stream numbers its events from 0 and carries each item from ``output_item.added`` to
``output_item.done``; a cut response (``no_finish``) stops after its last delta, and has
no JSON form (a non-streaming client meets OpenAI's 500 server error instead).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from conformance.http import HttpResponse, json_response
from conformance.verdict import Violation
from conformance.vocabulary import (
    ContentBlock,
    Message,
    Reasoning,
    ScriptedResponse,
    Text,
    ToolCall,
)
from conformance.wires import _values as values
from conformance.wires._faults import OPENAI_FAULTS, render_fault
from conformance.wires._openai_responses._history import history_input
from conformance.wires._openai_responses._minted import Minted, added_content, content_part
from conformance.wires._openai_responses._view import ResponsesRequestView
from conformance.wires._openai_responses.rules import ENCRYPTED_CONTENT_VALID
from conformance.wires._sse import format_event, fragments
from conformance.wires.context import RenderContext, RequestView

#: A fixed ``created_at``: the same script renders the same bytes.
_CREATED_AT = 1_750_000_000
#: An event type no client has seen: rule 21's stream may grow new event types.
_FUTURE_EVENT = "response.conformance_future_event"

#: Stops that cut the stream before its terminal event.  ``cancelled`` is no Responses
#: stop (a realism problem); it is rendered as the cut it most resembles.
_CUT_STOPS = frozenset({"no_finish", "cancelled"})
_SERVER_ERROR = "The server had an error while processing your request. Sorry about that!"


def render(response: ScriptedResponse, context: RenderContext) -> HttpResponse:
    """The answer to the request ``context`` names: streamed when it asked for a stream,
    reasoning items encrypted when it asked for ``reasoning.encrypted_content``."""
    fault = response.fault
    if fault is not None and fault.kind == "invalid-encrypted-content":
        return render_error(_unverifiable(context.request))
    if fault is not None and not (fault.mid_stream and context.stream):
        return render_fault(fault, "openai-responses", OPENAI_FAULTS, render_error)
    minted = Minted.of(response, context.index)
    request = context.request
    encrypted = isinstance(request, ResponsesRequestView) and request.encrypted
    request_id = "req_" + values.digest("request", minted.seed)[:32]
    if not context.stream:
        return _render_json(minted, context, encrypted, request_id)
    chunks = tuple(
        format_event(kind, data) for kind, data in _stream_events(minted, context, encrypted)
    )
    if fault is not None and fault.response_failed:  # the terminal failed event
        answer = OPENAI_FAULTS[fault.kind]
        failed = _response_object(minted, context.model, "failed", [], final=True)
        failed["error"] = {"code": answer.error_type, "message": answer.message}
        event = {"type": "response.failed", "sequence_number": len(chunks), "response": failed}
        chunks += (format_event("response.failed", event),)
    elif fault is not None:  # the stream's error event, then nothing
        answer = OPENAI_FAULTS[fault.kind]
        error = {
            "type": "error",
            "code": answer.error_type,
            "message": answer.message,
            "param": None,
            "sequence_number": len(chunks),
        }
        chunks += (format_event("error", error),)
    headers = (
        ("content-type", "text/event-stream; charset=utf-8"),
        ("cache-control", "no-cache"),
        ("x-request-id", request_id),
    )
    return HttpResponse(200, b"".join(chunks), headers, chunks)


def _unverifiable(request: RequestView | None) -> Violation:
    """OpenAI's 400 for encrypted reasoning it cannot verify, naming the first encrypted
    content of the request as its errors do (head and tail, rule 30)."""
    items = request.raw.get("input") if request is not None else None
    found = next(
        (
            i["encrypted_content"]
            for i in (items if isinstance(items, list) else ())
            if isinstance(i, dict) and isinstance(i.get("encrypted_content"), str)
        ),
        "",
    )
    at = "input" if not found else "input.encrypted_content"
    return ENCRYPTED_CONTENT_VALID.violated(at, abbreviated=f"{found[:4]}...{found[-4:]}")


def _render_json(
    minted: Minted, context: RenderContext, encrypted: bool, request_id: str
) -> HttpResponse:
    """The response object.  A cut (``no_finish``) has no JSON form: the nearest thing a
    non-streaming client meets is OpenAI's 500 server error."""
    headers = {"x-request-id": request_id}
    if minted.response.stop in _CUT_STOPS:
        error = {"message": _SERVER_ERROR, "type": "server_error", "param": None, "code": None}
        return json_response(500, {"error": error}, headers)
    status = _final_status(minted.response)
    output = minted.done_items(encrypted)
    body = _response_object(minted, context.model, status, output, final=True)
    return json_response(200, body, headers)


def _added_item(block: ContentBlock, item_id: str, encrypted: bool) -> dict[str, Any]:
    """An item as ``output_item.added`` announces it: nothing streamed yet, and a
    reasoning item's ``encrypted_content`` not yet the final one (``added_content``)."""
    if isinstance(block, Reasoning):
        content = added_content(block) if encrypted else None
        return {"type": "reasoning", "id": item_id, "summary": [], "encrypted_content": content}
    if isinstance(block, Text):
        return {
            "type": "message",
            "id": item_id,
            "role": "assistant",
            "status": "in_progress",
            "content": [],
        }
    if isinstance(block, ToolCall):
        return {
            "type": "function_call",
            "id": item_id,
            "call_id": block.id,
            "name": block.name,
            "arguments": "",
            "status": "in_progress",
        }
    raise ValueError(f"a {block.kind} block has no Responses output item")


#: One event before numbering: its type, its fields, and whether it is a delta.
_Event = tuple[str, dict[str, Any], bool]


def _item_events(
    block: ContentBlock, item_id: str, index: int, done: dict[str, Any], added: dict[str, Any]
) -> list[_Event]:
    """Every event of one output item, ``output_item.added`` to ``output_item.done``."""
    at = {"item_id": item_id, "output_index": index}
    events: list[_Event] = [
        ("response.output_item.added", {"output_index": index, "item": added}, False)
    ]
    if isinstance(block, Reasoning):
        for k, summary in enumerate(block.summary or ()):
            part = {**at, "summary_index": k}
            empty = {"type": "summary_text", "text": ""}
            events.append(("response.reasoning_summary_part.added", {**part, "part": empty}, False))
            events += [
                ("response.reasoning_summary_text.delta", {**part, "delta": piece}, True)
                for piece in fragments(summary, block.chunks)
            ]
            full = {"type": "summary_text", "text": summary}
            events.append(
                ("response.reasoning_summary_text.done", {**part, "text": summary}, False)
            )
            events.append(("response.reasoning_summary_part.done", {**part, "part": full}, False))
    elif isinstance(block, Text):
        part = {**at, "content_index": 0}
        refusal = done["content"][0]["type"] == "refusal"
        kind = "refusal" if refusal else "output_text"
        extra: dict[str, Any] = {} if refusal else {"logprobs": []}
        events.append(
            ("response.content_part.added", {**part, "part": content_part("", refusal)}, False)
        )
        events += [
            (f"response.{kind}.delta", {**part, "delta": piece, **extra}, True)
            for piece in fragments(block.text, block.chunks)
        ]
        field = "refusal" if refusal else "text"
        events.append((f"response.{kind}.done", {**part, field: block.text, **extra}, False))
        events.append(("response.content_part.done", {**part, "part": done["content"][0]}, False))
    elif isinstance(block, ToolCall):
        events += [
            ("response.function_call_arguments.delta", {**at, "delta": piece}, True)
            for piece in fragments(values.argument_text(block), block.chunks)
        ]
        events.append(
            ("response.function_call_arguments.done", {**at, "arguments": done["arguments"]}, False)
        )
    events.append(("response.output_item.done", {"output_index": index, "item": done}, False))
    return events


def _cut(events: list[_Event]) -> list[_Event]:
    """An item's events up to its last delta (or its announcement when it has none)."""
    last = max((k for k, (_, _, delta) in enumerate(events) if delta), default=0)
    return events[: last + 1]


def _output_tokens(blocks: Sequence[ContentBlock]) -> tuple[int, int]:
    """Plausible deterministic (output, reasoning) token counts: four characters a token."""
    visible = reasoning = 0
    for block in blocks:
        if isinstance(block, Reasoning):
            reasoning += len("".join(block.summary or ())) + len(block.signature or "")
        elif isinstance(block, Text):
            visible += len(block.text)
        elif isinstance(block, ToolCall):
            visible += len(values.argument_text(block))
    return max(1, (visible + reasoning) // 4), reasoning // 4


def _response_object(
    minted: Minted, model: str, status: str, output: list[dict[str, Any]], final: bool
) -> dict[str, Any]:
    """The response object the created, in-progress and terminal events (and the JSON
    answer) carry; ``final`` adds usage and the incomplete details."""
    incomplete = final and status == "incomplete"
    usage: dict[str, Any] | None = None
    if final:
        input_tokens = 100 + int(values.digest("input", minted.seed)[:6], 16) % 900
        output_tokens, reasoning_tokens = _output_tokens(minted.response.blocks)
        usage = {
            "input_tokens": input_tokens,
            "input_tokens_details": {"cached_tokens": 0},
            "output_tokens": output_tokens,
            "output_tokens_details": {"reasoning_tokens": reasoning_tokens},
            "total_tokens": input_tokens + output_tokens,
        }
    return {
        "id": minted.response_id,
        "object": "response",
        "created_at": _CREATED_AT,
        "status": status,
        "error": None,
        "incomplete_details": {"reason": "max_output_tokens"} if incomplete else None,
        "model": model,
        "output": output,
        "usage": usage,
    }


def _final_status(response: ScriptedResponse) -> str:
    return "incomplete" if response.stop == "max_tokens" else "completed"


def _stream_events(
    minted: Minted, context: RenderContext, encrypted: bool
) -> list[tuple[str, dict[str, Any]]]:
    """Every SSE event of a streamed response, numbered from 0.

    Unknown-event noise goes round-robin into the gaps between items (right after
    ``response.in_progress`` when there is no gap); Responses streams have no pings.
    """
    response = minted.response
    items = minted.items()
    done = minted.done_items(encrypted)
    gaps = max(len(items) - 1, 0)
    noise_after: dict[int, list[_Event]] = {}
    for k in range(response.noise.count("unknown-event")):
        noise_after.setdefault(k % gaps if gaps else -1, []).append((_FUTURE_EVENT, {}, False))
    opening = _response_object(minted, context.model, "in_progress", [], final=False)
    events: list[_Event] = [
        ("response.created", {"response": opening}, False),
        ("response.in_progress", {"response": opening}, False),
        *noise_after.get(-1, []),
    ]
    cut = response.stop in _CUT_STOPS
    for k, (_, item_id, block) in enumerate(items):
        added = _added_item(block, item_id, encrypted)
        item = _item_events(block, item_id, k, done[k], added)
        if cut and k == len(items) - 1:
            events += _cut(item)
            break
        events += item
        events += noise_after.get(k, [])
    if not cut and response.fault is None:
        status = _final_status(response)
        output = [] if response.empty_final_output else done
        terminal = _response_object(minted, context.model, status, output, final=True)
        events.append((f"response.{status}", {"response": terminal}, False))
    return [
        (kind, {"type": kind, "sequence_number": n, **fields})
        for n, (kind, fields, _) in enumerate(events)
    ]


def render_error(violation: Violation) -> HttpResponse:
    """OpenAI's error answer: a rule's ``param`` template fills in the violation's
    location (``"{at}"``, the default) or names a field; ``None`` writes ``null``."""
    rule = violation.broken
    if rule.param is None or rule.param == "{at}":
        param = None if rule.param is None else violation.at
    else:
        param = rule.param.format(at=violation.at)
    code = rule.code
    error = {
        "message": violation.message,
        "type": rule.error_type,
        "param": param,
        "code": code,
    }
    request_id = "req_" + values.digest("error", rule.id, violation.message)[:32]
    return json_response(rule.status, {"error": error}, {"x-request-id": request_id})


def render_history(messages: Sequence[Message], dialect: str | None) -> dict[str, Any]:
    """A saved conversation as the request body fields that hold it (``input``): what a
    client storing the wire's own JSON replays, and ``parse`` reads back."""
    return history_input(messages)
