"""A scripted response as Anthropic sends it (SSE events, or the JSON message), and the
error answer to a request that breaks a rule.  Ids and usage are derived from the case id
and the response index, so the same script renders the same bytes."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from conformance.http import HttpResponse, json_response
from conformance.verdict import Violation
from conformance.vocabulary import (
    ContentBlock,
    Message,
    Noise,
    Reasoning,
    ScriptedResponse,
    ServerToolResult,
    ServerToolUse,
    Text,
    ToolCall,
)
from conformance.wires import _values as values
from conformance.wires._anthropic_messages._history import history_messages
from conformance.wires._anthropic_messages._stops import CUT_STOPS, STOP_REASONS
from conformance.wires._anthropic_messages._thread_rules import THREAD_ERROR_CODES
from conformance.wires._faults import FaultAnswer, FaultTable, render_fault
from conformance.wires._sse import format_event, fragments
from conformance.wires.context import RenderContext

#: The event a client has never seen: rule 1 says unknown event types must be tolerated.
_FUTURE_EVENT = "conformance_future_event"


def _content_block_start(block: ContentBlock) -> dict[str, Any] | None:
    """The ``content_block`` of a block's ``content_block_start`` (None: not renderable)."""
    if isinstance(block, Reasoning):
        if block.redacted:
            return {"type": "redacted_thinking", "data": block.data or ""}
        return {"type": "thinking", "thinking": "", "signature": ""}
    if isinstance(block, Text):
        return {"type": "text", "text": ""}
    if isinstance(block, ToolCall):
        return {"type": "tool_use", "id": block.id, "name": block.name, "input": {}}
    if isinstance(block, ServerToolUse):
        return {"type": "server_tool_use", "id": block.id, "name": block.name, "input": {}}
    if isinstance(block, ServerToolResult):  # a result arrives whole, no deltas
        return _message_json(block)
    return None


def _deltas(block: ContentBlock) -> list[dict[str, Any]]:
    """The ``delta`` objects of a block's ``content_block_delta`` events, in order."""
    if isinstance(block, Reasoning):
        if block.redacted:
            return []
        thoughts = fragments(block.text, block.chunks)
        if block.empty_chunk_before_signature and block.signature:
            # As pydantic/pydantic-ai tests/models/cassettes/test_anthropic/
            # test_anthropic_model_thinking_part_stream.yaml recorded it.
            thoughts.append("")
        signature = fragments(block.signature or "", block.signature_chunks)
        return [{"type": "thinking_delta", "thinking": piece} for piece in thoughts] + [
            {"type": "signature_delta", "signature": piece} for piece in signature
        ]
    if isinstance(block, Text):
        return [{"type": "text_delta", "text": p} for p in fragments(block.text, block.chunks)]
    if isinstance(block, ToolCall):
        return [
            {"type": "input_json_delta", "partial_json": piece}
            for piece in fragments(values.argument_text(block), block.chunks)
        ]
    if isinstance(block, ServerToolUse):
        return [{"type": "input_json_delta", "partial_json": values.compact(block.arguments)}]
    return []


def _message_json(block: ContentBlock) -> dict[str, Any] | None:
    """A block as it appears in a non-streamed message's ``content``.

    An unsigned thinking block (cut inside it) gets ``"signature": ""``: the value a
    client assembling the stream ends up with, since ``content_block_start`` carries
    ``""`` and no signature_delta follows.
    """
    if isinstance(block, Reasoning):
        if block.redacted:
            return {"type": "redacted_thinking", "data": block.data or ""}
        return {"type": "thinking", "thinking": block.text, "signature": block.signature or ""}
    if isinstance(block, Text):
        return {"type": "text", "text": block.text}
    if isinstance(block, ToolCall):
        arguments = block.arguments if isinstance(block.arguments, dict) else {}
        return {"type": "tool_use", "id": block.id, "name": block.name, "input": arguments}
    if isinstance(block, ServerToolUse):
        return {
            "type": "server_tool_use",
            "id": block.id,
            "name": block.name,
            "input": block.arguments,
        }
    if isinstance(block, ServerToolResult):
        return {"type": block.type, "tool_use_id": block.call_id, "content": block.content}
    return None


def _message_content(blocks: Sequence[ContentBlock]) -> list[dict[str, Any]]:
    """A response's blocks as its JSON message's ``content`` (what a message thread
    stores as the reply)."""
    return [j for b in blocks if (j := _message_json(b)) is not None]


#: Anthropic's keep-alive event.
_PING: tuple[str, dict[str, Any]] = ("ping", {"type": "ping"})


def _noise_event(noise: Noise) -> tuple[str, dict[str, Any]]:
    if noise == "ping":
        return _PING
    return _FUTURE_EVENT, {"type": _FUTURE_EVENT}


def _output_tokens(blocks: Sequence[ContentBlock]) -> int:
    """A plausible, deterministic output size: about four characters a token."""
    size = 0
    for block in blocks:
        if isinstance(block, Reasoning):
            size += len(block.text) + len(block.data or "")
        elif isinstance(block, Text):
            size += len(block.text)
        elif isinstance(block, ToolCall):
            size += len(values.argument_text(block))
    return max(1, size // 4)


@dataclass(frozen=True)
class _Identity:
    """The deterministic ids and usage of one rendered response."""

    message_id: str
    request_id: str
    input_tokens: int
    output_tokens: int

    @classmethod
    def of(cls, response: ScriptedResponse, context: RenderContext) -> _Identity:
        seed = values.digest(context.case_id, context.index)
        return cls(
            message_id="msg_" + values.digest("message", seed)[:24],
            request_id="req_" + values.digest("request", seed)[:24],
            input_tokens=100 + int(values.digest("input", seed)[:6], 16) % 900,
            output_tokens=_output_tokens(response.blocks),
        )


def _stream_events(
    response: ScriptedResponse, context: RenderContext, identity: _Identity
) -> list[tuple[str, dict[str, Any]]]:
    """Every SSE event of a streamed response, as (event name, data) pairs.

    Anthropic's own ping comes inside the first block, right after its
    ``content_block_start`` (after ``message_start`` when there is no block): real streams
    never send it between ``message_start`` and the first block (pydantic/pydantic-ai
    tests/models/cassettes/test_anthropic/: the first ping of each of the 15 streams that
    carry one is inside an open block, in 7 right after the first start, as in
    test_anthropic_model_thinking_part_stream.yaml), so a client that closes or resets
    its block on a ping loses it.  Scripted noise goes round-robin into the gaps between
    blocks (right after that ping when there is no such gap), so a cut stream still ends
    on its last delta.
    """
    rendered = [
        (start, _deltas(block))
        for block in response.blocks
        if (start := _content_block_start(block)) is not None
    ]
    gaps = max(len(rendered) - 1, 0)
    noise_after: dict[int, list[tuple[str, dict[str, Any]]]] = {}
    for k, noise in enumerate(response.noise):
        noise_after.setdefault(k % gaps if gaps else -1, []).append(_noise_event(noise))
    cut = response.stop in CUT_STOPS
    events: list[tuple[str, dict[str, Any]]] = [
        (
            "message_start",
            {
                "type": "message_start",
                "message": {
                    "id": identity.message_id,
                    "type": "message",
                    "role": "assistant",
                    "model": context.model,
                    "content": [],
                    "stop_reason": None,
                    "stop_sequence": None,
                    "usage": {"input_tokens": identity.input_tokens, "output_tokens": 1},
                },
            },
        ),
    ]
    if not rendered:
        events += [_PING, *noise_after.get(-1, [])]
    for index, (start, deltas) in enumerate(rendered):
        events.append(
            (
                "content_block_start",
                {"type": "content_block_start", "index": index, "content_block": start},
            )
        )
        if index == 0:
            events += [_PING, *noise_after.get(-1, [])]
        events += [
            ("content_block_delta", {"type": "content_block_delta", "index": index, "delta": d})
            for d in deltas
        ]
        if cut and index == len(rendered) - 1:
            return events
        events.append(("content_block_stop", {"type": "content_block_stop", "index": index}))
        events += noise_after.get(index, [])
    if cut:
        return events
    events.append(
        (
            "message_delta",
            {
                "type": "message_delta",
                "delta": {"stop_reason": STOP_REASONS[response.stop], "stop_sequence": None},
                "usage": {"output_tokens": identity.output_tokens},
            },
        )
    )
    events.append(("message_stop", {"type": "message_stop"}))
    return events


#: What this wire's provider answers for each scripted fault.
_FAULTS: FaultTable = {
    "overloaded": FaultAnswer(
        529,
        "overloaded_error",
        "Overloaded",
        "Anthropic errors documentation: 529 overloaded_error",
    ),
    "rate-limit": FaultAnswer(
        429,
        "rate_limit_error",
        "This request would exceed the rate limit for your organization. Please try again later.",
        "Anthropic errors documentation: 429 rate_limit_error",
    ),
    "server-error": FaultAnswer(
        500, "api_error", "Internal server error", "Anthropic errors documentation: 500 api_error"
    ),
}


def render(response: ScriptedResponse, context: RenderContext) -> HttpResponse:
    """The streamed answer when the request asked for a stream, else the JSON message."""
    fault = response.fault
    if fault is not None and not (fault.mid_stream and context.stream):
        return render_fault(fault, "anthropic-messages", _FAULTS, render_error)
    identity = _Identity.of(response, context)
    if not context.stream:
        return _render_message(response, context, identity)
    chunks = tuple(
        format_event(name, data) for name, data in _stream_events(response, context, identity)
    )
    if fault is not None:  # rule 1: an error event (e.g. overloaded_error) mid-stream
        answer = _FAULTS[fault.kind]
        error = {"type": answer.error_type, "message": answer.message}
        chunks += (format_event("error", {"type": "error", "error": error}),)
    headers = (
        ("content-type", "text/event-stream; charset=utf-8"),
        ("cache-control", "no-cache"),
        ("request-id", identity.request_id),
    )
    return HttpResponse(200, b"".join(chunks), headers, chunks)


def _render_message(
    response: ScriptedResponse, context: RenderContext, identity: _Identity
) -> HttpResponse:
    """The JSON message.  A cut (``no_finish``) has no JSON form: the nearest thing a
    non-streaming client meets is Anthropic's internal-error answer (500 api_error)."""
    headers = {"request-id": identity.request_id}
    if response.stop in CUT_STOPS:
        error = {"type": "api_error", "message": "Internal server error"}
        body = {"type": "error", "error": error, "request_id": identity.request_id}
        return json_response(500, body, headers)
    content = _message_content(response.blocks)
    message = {
        "id": identity.message_id,
        "type": "message",
        "role": "assistant",
        "model": context.model,
        "content": content,
        "stop_reason": STOP_REASONS[response.stop],
        "stop_sequence": None,
        "usage": {
            "input_tokens": identity.input_tokens,
            "output_tokens": identity.output_tokens,
        },
    }
    return json_response(200, message, headers)


def render_error(violation: Violation) -> HttpResponse:
    """Anthropic's error body for a broken rule, with the rule's status and error type."""
    rule = violation.broken
    request_id = "req_" + values.digest("error", rule.id, violation.message)[:24]
    error: dict[str, Any] = {"type": rule.error_type, "message": violation.message}
    code = THREAD_ERROR_CODES.get(rule.id)
    if code is not None:  # message threads name the error in ``error.details`` (rule 57)
        error["details"] = {"error_code": code}
    body = {"type": "error", "error": error, "request_id": request_id}
    return json_response(rule.status, body, {"request-id": request_id})


def render_history(messages: Sequence[Message], dialect: str | None) -> dict[str, Any]:
    """A saved conversation as the request body fields that hold it (``messages``): what a
    client storing the wire's own JSON replays, and ``parse`` reads back."""
    return history_messages(messages)
