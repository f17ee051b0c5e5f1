"""The noise of a recorded stream, in the case language: the events a client must
tolerate and skip (``ping``, ``unknown-event``), counted per wire.

Only the count is kept: the renderer places noise round-robin between blocks, so a case
made from a recording has the recorded noise, not at the recorded places (``replay``
serves it exactly where it was).
"""

from __future__ import annotations

import json
from collections.abc import Callable

from conformance.errors import ResponseReadError
from conformance.model import Noise, ScriptedResponse
from conformance.wires.sse import StreamEvent, read_events

_ANTHROPIC_EVENTS = frozenset(
    {
        "message_start",
        "content_block_start",
        "content_block_delta",
        "content_block_stop",
        "message_delta",
        "message_stop",
        "ping",
        "error",
    }
)
#: Every Responses event a client acts on, or that carries a part of the answer.
_RESPONSES_EVENTS = frozenset(
    {
        "response.created",
        "response.in_progress",
        "response.completed",
        "response.incomplete",
        "response.failed",
        "error",
        "response.output_item.added",
        "response.output_item.done",
        "response.content_part.added",
        "response.content_part.done",
        "response.output_text.delta",
        "response.output_text.done",
        "response.output_text.annotation.added",
        "response.refusal.delta",
        "response.refusal.done",
        "response.reasoning_summary_part.added",
        "response.reasoning_summary_part.done",
        "response.reasoning_summary_text.delta",
        "response.reasoning_summary_text.done",
        "response.reasoning_text.delta",
        "response.reasoning_text.done",
        "response.function_call_arguments.delta",
        "response.function_call_arguments.done",
    }
)


def _kind(event: StreamEvent) -> str | None:
    try:
        data = json.loads(event.data)
    except ValueError:
        return event.name
    kind = data.get("type") if isinstance(data, dict) else None
    return kind if isinstance(kind, str) else event.name


def _anthropic(events: list[StreamEvent], body: bytes) -> list[Noise]:
    kinds = [_kind(e) for e in events]
    # The renderer always sends one ping after message_start, as Anthropic does.
    pings = max(kinds.count("ping") - 1, 0)
    unknown = sum(1 for k in kinds if k not in _ANTHROPIC_EVENTS)
    noise: list[Noise] = ["ping"] * pings
    return noise + ["unknown-event"] * unknown


def _responses(events: list[StreamEvent], body: bytes) -> list[Noise]:
    return ["unknown-event"] * sum(1 for e in events if _kind(e) not in _RESPONSES_EVENTS)


def _chat(events: list[StreamEvent], body: bytes) -> list[Noise]:
    comments = sum(1 for line in body.replace(b"\r", b"\n").split(b"\n") if line.startswith(b":"))
    empty = 0
    for event in events:
        try:
            data = json.loads(event.data)
        except ValueError:
            continue  # [DONE]
        if isinstance(data, dict) and data.get("choices") == [] and "usage" not in data:
            empty += 1
    noise: list[Noise] = ["ping"] * comments
    return noise + ["unknown-event"] * empty


_BY_WIRE: dict[str, Callable[[list[StreamEvent], bytes], list[Noise]]] = {
    "anthropic-messages": _anthropic,
    "openai-responses": _responses,
    "openai-chat": _chat,
}


def with_noise(response: ScriptedResponse, wire: str, body: bytes) -> ScriptedResponse:
    """``response`` with the noise its recorded stream carried (Gemini streams carry
    none)."""
    count = _BY_WIRE.get(wire)
    if count is None:
        return response
    try:
        events = read_events(body)
    except ResponseReadError:
        return response
    noise = count(events, body)
    return response.model_copy(update={"noise": tuple(noise)}) if noise else response
