"""A recorded Responses answer read back into a scripted turn (rules 21-23).

A stream's items are assembled from their own events, never from the terminal event's
``output``, and its stop comes from the one terminal event; a JSON answer is read from
its ``output`` and ``status``.  The turn keeps the ids it was served under (the
response's ``id``, each output item's type and id, ``ServedIds``): the provider stored
the response under them, and a later request of the recording names them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from conformance.errors import ResponseReadError
from conformance.vocabulary import (
    ContentBlock,
    Noise,
    Reasoning,
    ScriptedResponse,
    ServedIds,
    ServedItem,
    Text,
    ToolCall,
    summary_parts,
)
from conformance.wires._openai_responses._content import message_blocks
from conformance.wires._openai_responses._ids import nonempty_id
from conformance.wires._reading import call_arguments, neutral_response, read_json_body, required
from conformance.wires._sse import StreamEvent, event_kind, read_events

#: ``incomplete_details.reason`` back to the neutral stop: the two reasons OpenAI
#: documents for ``status: incomplete``.
_INCOMPLETE_STOPS: dict[str, str] = {"max_output_tokens": "max_tokens", "content_filter": "refusal"}
#: Delta events, by the part of an item they extend.
_TEXT_DELTAS = frozenset({"response.output_text.delta", "response.refusal.delta"})
_ARGUMENT_DELTA = "response.function_call_arguments.delta"
_SUMMARY_DELTA = "response.reasoning_summary_text.delta"


def read(body: bytes, streaming: bool, dialect: str | None = None) -> ScriptedResponse:
    """The recorded answer as a scripted turn: an SSE stream or a JSON response object."""
    return _read_stream(body) if streaming else _read_json(body)


def _read_item(item: object, at: str) -> list[ContentBlock]:
    """A complete output item in neutral form (nothing for item types with no neutral
    form, such as hosted tool calls).  Refusal parts read as text; the stop says refusal."""
    if not isinstance(item, dict):
        raise ResponseReadError("the output item is not an object", at)
    kind = item.get("type")
    if kind == "reasoning":
        summary = required(item, "summary", list, at)
        texts = tuple(required(s, "text", str, at) for s in summary if isinstance(s, dict))
        content = item.get("encrypted_content")
        signature = content if isinstance(content, str) and content else None
        return [
            Reasoning(
                id=nonempty_id(item.get("id")), summary=summary_parts(texts), signature=signature
            )
        ]
    if kind == "message":
        return [b for b, _ in message_blocks(required(item, "content", list, at), at)]
    if kind == "function_call":
        arguments = call_arguments(required(item, "arguments", str, at), complete=True)
        return [
            ToolCall(
                id=required(item, "call_id", str, at),
                name=required(item, "name", str, at),
                arguments=arguments,
            )
        ]
    return []


def _served(response_id: object, items: Sequence[tuple[object, int]]) -> ServedIds | None:
    """The ids a response was served under: its own, and each output item's type and id
    beside the number of blocks it was read into (None: the answer names no id)."""
    if not isinstance(response_id, str) or not response_id:
        return None
    served = tuple(
        ServedItem(
            type=kind if isinstance(kind := item.get("type"), str) else "unknown",
            id=nonempty_id(item.get("id")),
            blocks=count,
        )
        for item, count in items
        if isinstance(item, dict)
    )
    return ServedIds(response=response_id, items=served)


def _final_stop(status: str, response: dict[str, Any], items: Sequence[object], at: str) -> str:
    """The neutral stop of a finished response (its ``status``): a completed response
    with a refusal part refused, one with a function call asks for tool calls."""
    if status == "failed":
        raise _provider_error(response.get("error") or {"message": "the response failed"}, at)
    if status == "incomplete":
        details = response.get("incomplete_details")
        reason = details.get("reason") if isinstance(details, dict) else None
        if reason not in _INCOMPLETE_STOPS:
            raise ResponseReadError(f"incomplete for an unknown reason {reason!r}", at)
        return _INCOMPLETE_STOPS[reason]
    if status == "cancelled":
        return "cancelled"
    if status in ("queued", "in_progress"):  # `background: true`: polled until it ends
        raise ResponseReadError(
            f"status {status!r} is a background response still running; its answer is "
            "polled from GET /v1/responses/{id}, which is no conversation turn",
            at,
        )
    if status != "completed":
        raise ResponseReadError(f"status {status!r} is not a finished response", at)
    found = [i for i in items if isinstance(i, dict)]
    parts = [p for i in found if i.get("type") == "message" for p in i.get("content") or ()]
    if any(isinstance(p, dict) and p.get("type") == "refusal" for p in parts):
        return "refusal"
    return "tool_calls" if any(i.get("type") == "function_call" for i in found) else "end"


def _provider_error(error: object, at: str) -> ResponseReadError:
    """OpenAI's error object (``{code, message}``) as a read error."""
    error = error if isinstance(error, dict) else {}
    code = error.get("code") or error.get("type")
    return ResponseReadError(f"provider error {code}: {error.get('message')}", at)


@dataclass
class _Streamed:
    """An output item being read from a stream: announced by ``output_item.added``,
    extended by deltas, replaced by its complete form at ``output_item.done``."""

    item: dict[str, Any]
    at: str
    done: bool = False
    #: content_index / summary_index -> the pieces so far, joined once at the end:
    #: appending each piece to a growing string copies it every time.
    parts: dict[int, list[str]] = field(default_factory=dict)
    summary: dict[int, list[str]] = field(default_factory=dict)
    arguments: str = ""

    def blocks(self) -> list[ContentBlock]:
        """The item in neutral form; a partial one (the stream was cut inside it) has
        what its deltas brought and no encrypted_content: ``.added`` carries at most a
        piece of it (rule 22)."""
        if self.done:
            return _read_item(self.item, self.at)
        kind = self.item.get("type")
        if kind == "reasoning":
            summary = tuple("".join(pieces) for _, pieces in sorted(self.summary.items()))
            return [Reasoning(id=nonempty_id(self.item.get("id")), summary=summary_parts(summary))]
        if kind == "message":
            return [Text(text="".join(pieces)) for _, pieces in sorted(self.parts.items())]
        if kind == "function_call":
            call = _read_item({**self.item, "arguments": ""}, self.at)[0]
            arguments = call_arguments(self.arguments, complete=False)
            return [call.model_copy(update={"arguments": arguments})]
        return []


def _read_stream(body: bytes) -> ScriptedResponse:
    """Rules 21-23: items assembled from their own events (never from the terminal
    event's ``output``), the stop from the one terminal event.  Lifecycle events, the
    ``.done`` echoes and event types this reader does not know are skipped: the
    streaming guide has clients listen for the events they care about
    (developers.openai.com/docs/guides/streaming-responses), and the event list keeps
    growing.  Without a terminal event the stream was cut: ``no_finish``."""
    items: dict[int, _Streamed] = {}
    stop = "no_finish"
    at = "byte 0"
    response_id: object = None
    for event in read_events(body):
        data = event.object()
        kind = data.get("type") if isinstance(data.get("type"), str) else event.name
        at = event.at(kind)
        if kind == "error":
            raise _provider_error(data, at)
        carried = data.get("response")
        if isinstance(carried, dict) and response_id is None:
            response_id = carried.get("id")  # response.created names it first
        if kind in ("response.completed", "response.incomplete", "response.failed"):
            response = required(data, "response", dict, at)
            status = kind.removeprefix("response.")
            stop = _final_stop(status, response, [s.item for s in items.values()], at)
            break
        if kind == "response.output_item.added":
            items[required(data, "output_index", int, at)] = _Streamed(
                dict(required(data, "item", dict, at)), at
            )
            continue
        if kind not in (
            "response.output_item.done",
            "response.content_part.added",
            "response.reasoning_summary_part.added",
            _ARGUMENT_DELTA,
            _SUMMARY_DELTA,
            *_TEXT_DELTAS,
        ):
            continue
        index = required(data, "output_index", int, at)
        if index not in items:
            raise ResponseReadError(f"output item {index} was never added", at)
        _extend(items[index], kind, data, at)
    read = [(streamed.item, streamed.blocks()) for _, streamed in sorted(items.items())]
    found = [b for _, blocks in read for b in blocks]
    ids = _served(response_id, [(item, len(blocks)) for item, blocks in read])
    return neutral_response(stop, found, at, ids)


def _extend(streamed: _Streamed, kind: str, data: dict[str, Any], at: str) -> None:
    """One event that completes or extends an item."""
    if kind == "response.output_item.done":
        streamed.item, streamed.at, streamed.done = required(data, "item", dict, at), at, True
    elif kind == "response.content_part.added" or kind in _TEXT_DELTAS:
        part = required(data, "content_index", int, at)
        piece = required(data, "delta", str, at) if kind in _TEXT_DELTAS else ""
        streamed.parts.setdefault(part, []).append(piece)
    elif kind == _ARGUMENT_DELTA:
        streamed.arguments += required(data, "delta", str, at)
    else:
        part = required(data, "summary_index", int, at)
        piece = required(data, "delta", str, at) if kind == _SUMMARY_DELTA else ""
        streamed.summary.setdefault(part, []).append(piece)


def _read_json(body: bytes) -> ScriptedResponse:
    response = read_json_body(body)
    if isinstance(response.get("error"), dict):
        raise _provider_error(response["error"], "body")
    output = required(response, "output", list, "body")
    stop = _final_stop(required(response, "status", str, "body"), response, output, "body")
    read = [(item, _read_item(item, f"output[{k}]")) for k, item in enumerate(output)]
    found = [b for _, blocks in read for b in blocks]
    ids = _served(response.get("id"), [(item, len(blocks)) for item, blocks in read])
    return neutral_response(stop, found, "body", ids)


#: Every Responses event a client acts on, or that carries a part of the answer.
_EVENTS = frozenset(
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


def noise(events: list[StreamEvent], body: bytes) -> list[Noise]:
    """The noise of a recorded stream: every event no client acts on."""
    return ["unknown-event"] * sum(1 for e in events if event_kind(e) not in _EVENTS)
