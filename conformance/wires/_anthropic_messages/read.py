"""A recorded answer read back into a scripted response: a stream assembled the way rule 1
asks a client to, or the JSON message.  Provider errors and malformed answers raise
``ResponseReadError`` with where they sit."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from conformance.errors import ResponseReadError
from conformance.vocabulary import ContentBlock, Noise, Reasoning, ScriptedResponse, Text, ToolCall
from conformance.wires import _values as values
from conformance.wires._anthropic_messages._blocks import (
    REASONING_TYPES,
    content_block,
    server_result_type,
)
from conformance.wires._anthropic_messages._stops import STOP_REASONS
from conformance.wires._reading import call_arguments, neutral_response, read_json_body, required
from conformance.wires._sse import StreamEvent, event_kind, read_events

#: ``stop_reason`` back to the neutral stop: the render table inverted, plus the reasons
#: the Messages API documents that a script never renders.
_READ_STOPS: dict[str, str] = {
    **{reason: stop for stop, reason in STOP_REASONS.items()},
    "stop_sequence": "end",
    "model_context_window_exceeded": "max_tokens",
}
#: Per delta type: the block type it belongs to and the field it appends to.  Other
#: delta types (``citations_delta``, any added later) carry nothing neutral: skipped.
_DELTA_FIELDS: dict[str, tuple[str, str]] = {
    "text_delta": ("text", "text"),
    "thinking_delta": ("thinking", "thinking"),
    "signature_delta": ("thinking", "signature"),
    "input_json_delta": ("tool_use", "partial_json"),
}


#: Block types whose input streams as ``input_json_delta``.
_CALL_TYPES = frozenset({"tool_use", "server_tool_use"})


def _read_block(
    item: object, at: str, arguments: dict[str, Any] | str | None = None
) -> ContentBlock | None:
    """A content block of the answer in neutral form (None: no neutral form, such as
    server-tool blocks).  ``arguments`` replaces ``input`` for a streamed call, whose
    input is the JSON text its deltas carried.  An empty signature is none: what a block
    cut before its signature_delta holds."""
    if not isinstance(item, dict):
        raise ResponseReadError("the content block is not an object", at)
    kind = item.get("type")
    if kind == "thinking":
        signature = item.get("signature")
        return Reasoning(
            text=required(item, "thinking", str, at),
            signature=signature if isinstance(signature, str) and signature else None,
        )
    if kind == "redacted_thinking":
        return Reasoning(redacted=True, data=required(item, "data", str, at))
    if kind == "text":
        return Text(text=required(item, "text", str, at))
    if kind == "tool_use":
        return ToolCall(
            id=required(item, "id", str, at),
            name=required(item, "name", str, at),
            arguments=required(item, "input", dict, at) if arguments is None else arguments,
        )
    if kind == "server_tool_use" or server_result_type(kind):
        if kind == "server_tool_use" and isinstance(arguments, dict):
            item = {**item, "input": arguments}
        return content_block(item)
    return None


def _provider_error(data: dict[str, Any], at: str) -> ResponseReadError:
    """Anthropic's error (an ``error`` event, or an error body) as a read error."""
    error = data.get("error")
    error = error if isinstance(error, dict) else {}
    kind, message = error.get("type"), error.get("message")
    return ResponseReadError(f"provider error {kind}: {message}", at)


def _stop(reason: str, at: str) -> str:
    if reason not in _READ_STOPS:
        raise ResponseReadError(f"unknown stop_reason {reason!r}", at)
    return _READ_STOPS[reason]


@dataclass
class _Streamed:
    """A content block being read from a stream: its ``content_block_start`` object,
    which the deltas extend, the input JSON text of a call, and whether an empty
    ``thinking_delta`` came right before the signature (kept as the block's
    ``empty_chunk_before_signature`` directive, so a case made from the recording
    streams it again)."""

    item: dict[str, Any]
    at: str
    #: The deltas' pieces, per field, joined once at the end: appending each piece to a
    #: growing string copies it every time (minutes for a 100 MB answer).
    pieces: dict[str, list[str]] = field(default_factory=dict)
    stopped: bool = False
    empty_last: bool = False
    empty_before_signature: bool = False

    def add(self, name: str, piece: str) -> None:
        if name not in self.pieces:
            self.pieces[name] = [] if name == "partial_json" else [values.text(self.item.get(name))]
        self.pieces[name].append(piece)

    @property
    def json(self) -> str:
        return "".join(self.pieces.get("partial_json", ()))

    def block(self) -> ContentBlock | None:
        arguments = None
        json = self.json
        if self.item.get("type") in _CALL_TYPES and (json or not self.stopped):
            arguments = call_arguments(json, complete=self.stopped)
        joined = {k: "".join(v) for k, v in self.pieces.items() if k != "partial_json"}
        block = _read_block({**self.item, **joined}, self.at, arguments)
        if isinstance(block, Reasoning) and block.signature and self.empty_before_signature:
            return block.model_copy(update={"empty_chunk_before_signature": True})
        return block


def _read_stream(body: bytes) -> ScriptedResponse:
    """Rule 1's assembly: blocks by ``index``, deltas appended per index, the stop from
    ``message_delta``; ``message_start``, ``ping`` and unknown event types are skipped
    (the streaming doc asks clients to handle unknown event types, and the versioning
    page lists new streaming event types among the changes a version may get:
    docs.anthropic.com/en/api/messages-streaming, /en/api/versioning).  Without a
    stop_reason the stream was cut: ``no_finish``, with every block started so far."""
    blocks: dict[int, _Streamed | None] = {}  # None: a block with no neutral form
    stop = "no_finish"
    at = "byte 0"
    for event in read_events(body):
        data = event.object()
        kind = data.get("type") if isinstance(data.get("type"), str) else event.name
        at = event.at(kind)
        if kind == "error":
            raise _provider_error(data, at)
        if kind == "content_block_start":
            index = required(data, "index", int, at)
            item = required(data, "content_block", dict, at)
            if index in blocks:
                raise ResponseReadError(f"content block {index} starts twice", at)
            known = item.get("type") in {*REASONING_TYPES, "text", *_CALL_TYPES}
            known = known or server_result_type(item.get("type"))
            blocks[index] = _Streamed(dict(item), at) if known else None
        elif kind in ("content_block_delta", "content_block_stop"):
            index = required(data, "index", int, at)
            if index not in blocks:
                raise ResponseReadError(f"content block {index} was never started", at)
            streamed = blocks[index]
            if streamed is None:
                continue
            if kind == "content_block_stop":
                streamed.stopped = True
                continue
            _extend(streamed, required(data, "delta", dict, at), at)
        elif kind == "message_delta":
            delta = required(data, "delta", dict, at)
            if delta.get("stop_reason") is not None:
                stop = _stop(required(delta, "stop_reason", str, at), at)
    found = [s.block() for _, s in sorted(blocks.items()) if s is not None]
    return neutral_response(stop, [b for b in found if b is not None], at)


def _extend(streamed: _Streamed, delta: dict[str, Any], at: str) -> None:
    kind = delta.get("type")
    if not isinstance(kind, str) or kind not in _DELTA_FIELDS:
        return
    block_type, name = _DELTA_FIELDS[kind]
    if streamed.item.get("type") != block_type and not (
        block_type == "tool_use" and streamed.item.get("type") in _CALL_TYPES
    ):
        raise ResponseReadError(f"a {kind} for a {streamed.item.get('type')} block", at)
    piece = required(delta, name, str, at)
    if name != "partial_json":
        if name == "signature":
            streamed.empty_before_signature = streamed.empty_last
        streamed.empty_last = name == "thinking" and not piece
    streamed.add(name, piece)


def _read_message(body: bytes) -> ScriptedResponse:
    message = read_json_body(body)
    if message.get("type") == "error":
        raise _provider_error(message, "body")
    content = required(message, "content", list, "body")
    stop = _stop(required(message, "stop_reason", str, "body"), "stop_reason")
    found = [_read_block(item, f"content.{j}") for j, item in enumerate(content)]
    return neutral_response(stop, [b for b in found if b is not None], "body")


def read(body: bytes, streaming: bool, dialect: str | None = None) -> ScriptedResponse:
    """The answer in ``body`` as a scripted response (``streaming``: SSE, else JSON); Anthropic
    has no dialects."""
    return _read_stream(body) if streaming else _read_message(body)


#: Every event Anthropic's stream sends; any other is noise a client must skip.
_EVENTS = frozenset(
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


def noise(events: list[StreamEvent], body: bytes) -> list[Noise]:
    """The noise of a recorded stream: its pings but the one the renderer always sends
    after ``message_start`` (as Anthropic does), and its unknown events."""
    kinds = [event_kind(e) for e in events]
    pings = max(kinds.count("ping") - 1, 0)
    unknown = sum(1 for k in kinds if k not in _EVENTS)
    found: list[Noise] = ["ping"] * pings
    return found + ["unknown-event"] * unknown
