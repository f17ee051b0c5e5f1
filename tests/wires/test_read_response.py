"""Reading a recorded provider response back into a scripted one (``Wire.read``),
on every wire.

First the library round trip: every scripted response of every case, rendered for each of
its columns (streamed and not), reads back to the script.  What a wire cannot carry back
is spelled out in ``carried_back``, one reason per normalisation.  Then, wire by wire:
streams cut anywhere, malformed input (each a ``ResponseReadError`` naming where), the
noise a provider says clients must skip, and the provider's own errors.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any

import pytest

from conformance.errors import ResponseReadError
from conformance.http import HttpRequest, HttpResponse
from conformance.verdict import Rule
from conformance.vocabulary import (
    ContentBlock,
    Reasoning,
    ScriptedResponse,
    ServerToolResult,
    ServerToolUse,
    Text,
    ToolCall,
    summary_parts,
)
from conformance.wires._reading import call_arguments, read_json_body
from conformance.wires._registry import columns, get_wire, split_column
from conformance.wires._saved_history import STREAM_DIRECTIVES
from conformance.wires._sse import DONE, format_comment, format_event, looks_streamed, read_events
from conformance.wires.context import RenderContext, RequestView
from tests.support import library
from tests.wires.kit import scripted

MODEL = "model-under-test"
SIG = "EqQBCkgIARABGAIiQHN0aWxsLW9wYXF1ZQ=="

#: A request that asked for encrypted reasoning: Responses sends ``encrypted_content``
#: only then (WIRES.md), so the library is rendered for it.
ENCRYPTED_REQUEST = get_wire("openai-responses").parse(
    HttpRequest(
        "POST",
        "/v1/responses",
        json.dumps(
            {"model": MODEL, "input": "go", "include": ["reasoning.encrypted_content"]}
        ).encode(),
    )
)
#: A Gemini request without ``alt=sse``: its stream is one JSON array.
ARRAY_REQUEST = get_wire("gemini").parse(
    HttpRequest("POST", f"/v1beta/models/{MODEL}:streamGenerateContent", b'{"contents": []}')
)


# ---------------------------------------------------------------- helpers


def render(
    column: str,
    response: ScriptedResponse,
    *,
    stream: bool = True,
    index: int = 0,
    case_id: str = "read-case",
    request: RequestView | None = None,
) -> HttpResponse:
    wire, dialect = split_column(column)
    if request is None and wire == "openai-responses":
        request = ENCRYPTED_REQUEST
    context = RenderContext(index, case_id, MODEL, stream, dialect, request)
    return get_wire(wire).render(response, context)


def read(column: str, body: bytes, streaming: bool = True) -> ScriptedResponse:
    """The response read back, without the ids it was served under (a script names none;
    ``test_responses_read_keeps_the_ids_it_was_served_under`` holds them)."""
    wire, dialect = split_column(column)
    return get_wire(wire).read(body, streaming, dialect).model_copy(update={"ids": None})


def read_error(column: str, body: bytes, streaming: bool = True) -> ResponseReadError:
    with pytest.raises(ResponseReadError) as caught:
        read(column, body, streaming)
    return caught.value


def sse(*events: tuple[str | None, Any]) -> bytes:
    """A stream from (event name, data) pairs; data that is a str is sent as it is."""
    return b"".join(
        format_event(name, data)
        if not isinstance(data, str)
        else (f"event: {name}\n" if name else "").encode() + f"data: {data}\n\n".encode()
        for name, data in events
    )


def typed(*events: dict[str, Any]) -> bytes:
    """A stream of named events whose name is their data's ``type`` (Anthropic, OpenAI
    Responses)."""
    return sse(*((e["type"], e) for e in events))


def chunks(body: bytes) -> list[bytes]:
    """A stream's events, each as the bytes it was sent as."""
    return [piece + b"\n\n" for piece in body.split(b"\n\n") if piece]


# ---------------------------------------------------------------- the library round trip


def _without_directives(block: ContentBlock, empty_chunk_read: bool = False) -> ContentBlock:
    fields = type(block).model_fields
    update: dict[str, Any] = {
        name: fields[name].default
        for name in STREAM_DIRECTIVES
        if name in fields and not (empty_chunk_read and name == "empty_chunk_before_signature")
    }
    if isinstance(block, Reasoning):
        # A summary reads back in the neutral form every view uses: `summary: []` and no
        # summary are one value (`model.summary_parts`).
        update["summary"] = summary_parts(block.summary)
    return block.model_copy(update=update)


def _joined(
    blocks: Sequence[ContentBlock], joins: Callable[[ContentBlock, ContentBlock], bool]
) -> list[ContentBlock]:
    found: list[ContentBlock] = []
    for block in blocks:
        last = found[-1] if found else None
        if (
            isinstance(last, Text | Reasoning)
            and isinstance(block, Text | Reasoning)
            and joins(last, block)
        ):
            update = {"text": last.text + block.text, "signature": block.signature}
            found[-1] = last.model_copy(update=update)
        else:
            found.append(block)
    return found


def _chat_fragments(last: ContentBlock, block: ContentBlock) -> bool:
    return type(last) is type(block) and isinstance(block, Text)


def _deepseek_fragments(last: ContentBlock, block: ContentBlock) -> bool:
    return type(last) is type(block)


def _gemini_parts(last: ContentBlock, block: ContentBlock) -> bool:
    return (
        type(last) is type(block)
        and isinstance(last, Text | Reasoning)
        and isinstance(block, Text | Reasoning)
        and last.signature is None
        and bool(last.text)
        and bool(block.text)
    )


def carried_back(column: str, response: ScriptedResponse, stream: bool) -> ScriptedResponse | None:
    """What reading the render of ``response`` gives back (None: the render is an error
    answer).  Stream directives and noise are never read back, but for Claude's empty
    thinking fragment, which a Claude stream (Anthropic, OpenRouter) reads back as its
    directive.  Beyond that, each difference from the script is something the wire
    cannot carry:"""
    wire, dialect = split_column(column)
    kept = stream and column in ("anthropic-messages", "openai-chat:openrouter")
    blocks = [_without_directives(b, kept) for b in response.blocks]
    stop = response.stop
    if response.fault is not None:
        return None  # a stream that ends on the wire's error event reads as that error
    if stop in ("no_finish", "cancelled"):
        # A cut has no JSON form: the non-streamed render is the provider's 500 answer,
        # which reads as an error.  Streamed, a `cancelled` renders as the cut it resembles.
        if not stream:
            return None
        stop = "no_finish"
    if wire == "openai-responses" and stream and stop == "no_finish" and blocks:
        # A cut stream stops inside its last item, before `output_item.done`, the only
        # event that carries a reasoning item's `encrypted_content`: it reads back unsigned.
        last = blocks[-1]
        if isinstance(last, Reasoning):
            blocks[-1] = last.model_copy(update={"signature": None})
    if wire == "anthropic-messages" and not stream:
        # The JSON message holds a tool_use's `input` as an object: a call cut in its
        # arguments renders (and so reads) as `{}`.
        blocks = [
            b.model_copy(update={"arguments": {}})
            if isinstance(b, ToolCall) and isinstance(b.arguments, str)
            else b
            for b in blocks
        ]
    if wire == "openai-chat" and stream:
        # Streamed text (and DeepSeek's reasoning_content) is only fragments: adjacent
        # blocks of the kind are one, and an empty one sends no delta at all.
        blocks = [b for b in blocks if not (isinstance(b, Text) and not b.text)]
        blocks = _joined(blocks, _deepseek_fragments if dialect == "deepseek" else _chat_fragments)
    if wire == "openai-chat" and not stream:
        # A completion's message says: its reasoning (DeepSeek's in one field), its text
        # (one string), its calls; not where each sat among the others.
        reasoning = [b for b in blocks if isinstance(b, Reasoning)]
        if dialect == "deepseek" and reasoning:
            reasoning = [Reasoning(text="".join(r.text for r in reasoning))]
        text = "".join(b.text for b in blocks if isinstance(b, Text))
        calls = [b for b in blocks if isinstance(b, ToolCall)]
        blocks = [*reasoning, *([Text(text=text)] if text else []), *calls]
    if wire == "gemini" and stream:
        # Streamed parts are fragments: an unsigned part joins the next one of its kind
        # (the signature rides on a block's last part; an empty part stands alone).
        blocks = _joined(blocks, _gemini_parts)
    named = wire == "gemini" and response.gemini_call_ids
    if wire == "gemini" and not named:
        # Rendered as real Gemini sends calls, without `id`: the reader names each one.
        blocks = [
            b.model_copy(update={"id": f"{READER_NAMED} {k}"}) if isinstance(b, ToolCall) else b
            for k, b in enumerate(blocks)
        ]
    has_calls = any(isinstance(b, ToolCall) for b in blocks)
    return ScriptedResponse(stop=stop, blocks=tuple(blocks), gemini_call_ids=named and has_calls)


#: The id ``carried_back`` gives a Gemini call rendered without one (with the block's
#: index): the reader names such a call itself.
READER_NAMED = "(named by the reader)"


def reader_named(got: ScriptedResponse, expected: ScriptedResponse) -> ScriptedResponse:
    """``got`` with the ids the reader made up where ``expected`` says it makes them up,
    once they are checked distinct (calls of one answer never share an id)."""
    pairs = list(zip(got.blocks, expected.blocks, strict=False))
    made = [
        g.id
        for g, e in pairs
        if isinstance(g, ToolCall) and isinstance(e, ToolCall) and e.id.startswith(READER_NAMED)
    ]
    assert len(made) == len(set(made)), made
    blocks = (
        tuple(
            g.model_copy(update={"id": e.id})
            if isinstance(g, ToolCall) and isinstance(e, ToolCall) and e.id.startswith(READER_NAMED)
            else g
            for g, e in pairs
        )
        + got.blocks[len(expected.blocks) :]
    )
    return got.model_copy(update={"blocks": blocks})


def _library_responses(column: str) -> list[tuple[str, int, ScriptedResponse]]:
    return [
        (loaded.case.id, k, response)
        for loaded in library().cases
        if column in loaded.case.wires
        for k, response in enumerate(loaded.case.given.responses)
    ]


@pytest.mark.parametrize("stream", [True, False], ids=["stream", "json"])
@pytest.mark.parametrize("column", columns())
def test_every_library_response_reads_back_to_its_script(column: str, stream: bool) -> None:
    responses = _library_responses(column)
    assert responses, f"no case runs on {column}"
    wrong: list[str] = []
    for case_id, index, response in responses:
        rendered = render(column, response, stream=stream, index=index, case_id=case_id)
        fault = response.fault
        if fault is not None and not (fault.mid_stream and stream):
            if rendered.status < 400:  # a fault is the wire's HTTP error answer
                wrong.append(f"{case_id}[{index}]: a fault answered {rendered.status}")
            continue
        expected = carried_back(column, response, stream)
        try:
            got: ScriptedResponse | str = read(column, rendered.body, stream)
        except ResponseReadError as error:
            got = f"error {error}"
        if isinstance(got, ScriptedResponse) and expected is not None:
            got = reader_named(got, expected)
        if expected is None:
            if not (isinstance(got, str) and "provider error" in got):
                wrong.append(f"{case_id}[{index}]: a cut read as {got!r}, not as an error")
        elif got != expected:
            wrong.append(f"{case_id}[{index}]:\n  expected {expected!r}\n  read     {got!r}")
    assert wrong == []


def test_carried_back_is_not_a_blanket_pass() -> None:
    """The normalisation leaves what the wire does carry alone: a changed script no
    longer matches what its render reads back as."""
    response = scripted(
        "tool_calls",
        {"kind": "reasoning", "text": "plan", "signature": SIG},
        {"kind": "tool_call", "id": "toolu_1", "name": "read", "arguments": {"p": 1}},
    )
    for column in ("anthropic-messages", "openai-chat:openrouter", "gemini"):
        back = read(column, render(column, response).body)
        back = reader_named(back, carried_back(column, response, True))  # type: ignore[arg-type]
        assert back == carried_back(column, response, True)
        for field, value in (("signature", SIG[::-1]), ("text", "plan!")):
            first = response.blocks[0].model_copy(update={field: value})
            changed = response.model_copy(update={"blocks": (first, *response.blocks[1:])})
            assert back != carried_back(column, changed, True)


# ---------------------------------------------------------------- shared readers


def test_read_events_skips_comments_and_dataless_events_and_counts_from_one() -> None:
    body = b": keep-alive\n\nretry: 3000\n\nevent: ping\ndata: {}\n\ndata: [DONE]\n\n"
    events = read_events(body)
    assert [(e.number, e.name, e.data) for e in events] == [(1, "ping", "{}"), (2, None, "[DONE]")]
    assert events[0].at() == "event 1 (ping)"
    assert events[1].at("chat.completion.chunk") == "event 2 (chat.completion.chunk)"


def test_an_event_cut_before_its_blank_line_is_not_read() -> None:
    events = read_events(b'data: {"a": 1}\n\ndata: {"b": 2}')
    assert [e.data for e in events] == ['{"a": 1}']


def test_a_body_without_any_event_is_not_a_stream() -> None:
    with pytest.raises(ResponseReadError) as caught:
        read_events(b'{"not": "a stream"}')
    assert (caught.value.at, caught.value.message) == ("byte 0", "no server-sent event in the body")


def test_a_stray_byte_is_named_by_its_offset() -> None:
    with pytest.raises(ResponseReadError) as caught:
        read_events(b'data: {"a": "\xff"}\n\n')
    assert caught.value.at == "byte 13"


def test_event_data_must_be_a_json_object() -> None:
    first, second = read_events(b"event: x\ndata: {oops\n\nevent: y\ndata: [1]\n\n")
    with pytest.raises(ResponseReadError, match="not JSON"):
        first.object()
    with pytest.raises(ResponseReadError, match="not a JSON object"):
        second.object()
    assert read_events(b'data: {"ok": true}\n\n')[0].object() == {"ok": True}


def test_a_json_body_is_one_object_and_a_bad_one_is_named_by_byte() -> None:
    assert read_json_body(b'{"a": 1}') == {"a": 1}
    with pytest.raises(ResponseReadError) as caught:
        read_json_body('{"é": 1, '.encode())
    assert caught.value.at == "byte 10"
    with pytest.raises(ResponseReadError, match="not a JSON object"):
        read_json_body(b"[1, 2]")


def test_call_arguments_keep_the_raw_text_of_a_cut_call() -> None:
    assert call_arguments('{"a": 1}', complete=True) == {"a": 1}
    assert call_arguments('{"a": ', complete=False) == '{"a": '
    assert call_arguments("[1]", complete=True) == "[1]"
    assert call_arguments("", complete=True) == {}
    assert call_arguments("", complete=False) == ""


def test_a_stream_is_told_from_its_content() -> None:
    assert looks_streamed(b'event: ping\ndata: {"type": "ping"}\n\n')
    assert looks_streamed(b'data: {"choices": []}\r\n\r\n')
    assert looks_streamed(b' [{"candidates": []}')
    assert not looks_streamed(b'{"type": "message", "content": []}')


# ---------------------------------------------------------------- cut anywhere, never a crash

#: One response with every kind of block a wire streams, per column.
RICH: dict[str, ScriptedResponse] = {
    "anthropic-messages": scripted(
        "tool_calls",
        {"kind": "reasoning", "text": "Reading it.", "signature": SIG, "chunks": [4]},
        {"kind": "text", "text": "Let me look.", "chunks": [3, 3]},
        {"kind": "tool_call", "id": "toolu_1", "name": "read", "arguments": {"p": "a"}},
    ),
    "openai-responses": scripted(
        "tool_calls",
        {"kind": "reasoning", "summary": ["Reading it."], "signature": SIG, "chunks": [4]},
        {"kind": "text", "text": "Let me look.", "chunks": [3, 3]},
        {"kind": "tool_call", "id": "call_1", "name": "read", "arguments": {"p": "a"}},
    ),
    "openai-chat": scripted(
        "tool_calls",
        {"kind": "text", "text": "Let me look.", "chunks": [3, 3]},
        {
            "kind": "tool_call",
            "id": "call_1",
            "name": "read",
            "arguments": {"p": "a"},
            "chunks": [3],
        },
    ),
    "openai-chat:deepseek": scripted(
        "tool_calls",
        {"kind": "reasoning", "text": "Reading it.", "chunks": [4]},
        {
            "kind": "tool_call",
            "id": "call_1",
            "name": "read",
            "arguments": {"p": "a"},
            "chunks": [3],
        },
    ),
    "openai-chat:openrouter": scripted(
        "tool_calls",
        {"kind": "reasoning", "text": "Reading it.", "signature": SIG, "chunks": [4]},
        {"kind": "tool_call", "id": "call_1", "name": "read", "arguments": {"p": "a"}},
    ),
    "gemini": scripted(
        "tool_calls",
        {"kind": "reasoning", "text": "Reading it.", "chunks": [4]},
        {"kind": "text", "text": "Let me look.", "signature": SIG, "chunks": [3, 3]},
        {"kind": "tool_call", "id": "call_1", "name": "read", "arguments": {"p": "a"}},
    ),
}


@pytest.mark.parametrize("column", sorted(RICH))
def test_a_stream_cut_at_any_event_reads_as_no_finish_until_its_stop(column: str) -> None:
    """Every prefix of a stream reads: without the event that says how it ended it is
    ``no_finish``; from that event on it is the full response."""
    full = read(column, render(column, RICH[column]).body)
    pieces = chunks(render(column, RICH[column]).body)
    stops = [read(column, b"".join(pieces[:k])).stop for k in range(1, len(pieces) + 1)]
    first = stops.index(full.stop)
    assert first > 0
    assert stops == ["no_finish"] * first + [full.stop] * (len(stops) - first)


@pytest.mark.parametrize("column", sorted(RICH))
def test_a_stream_cut_at_any_byte_never_crashes(column: str) -> None:
    body = render(column, RICH[column]).body
    first_event = body.index(b"\n\n") + 2
    for cut in range(first_event):
        with pytest.raises(ResponseReadError, match="no server-sent event"):
            read(column, body[:cut])
    for cut in range(first_event, len(body)):
        assert read(column, body[:cut]).stop in ("no_finish", "tool_calls")


def test_a_gemini_array_stream_cut_at_any_byte_never_crashes() -> None:
    body = render("gemini", RICH["gemini"], request=ARRAY_REQUEST).body
    assert body.startswith(b"[")
    for cut in range(1, len(body)):
        assert read("gemini", body[:cut]).stop in ("no_finish", "tool_calls")


# ---------------------------------------------------------------- anthropic-messages

ANTHROPIC = "anthropic-messages"


def anthropic_start(index: int, block: dict[str, Any]) -> dict[str, Any]:
    return {"type": "content_block_start", "index": index, "content_block": block}


def anthropic_delta(index: int, delta: dict[str, Any]) -> dict[str, Any]:
    return {"type": "content_block_delta", "index": index, "delta": delta}


MESSAGE_START = {"type": "message_start", "message": {"id": "msg_1", "content": []}}


def test_anthropic_cut_inside_thinking_keeps_the_text_without_a_signature() -> None:
    events = [e for e in chunks(render(ANTHROPIC, RICH[ANTHROPIC]).body)]
    cut = next(k for k, e in enumerate(events) if b"signature_delta" in e)
    back = read(ANTHROPIC, b"".join(events[:cut]))
    assert back == ScriptedResponse(stop="no_finish", blocks=(Reasoning(text="Reading it."),))


def test_anthropic_cut_inside_a_tool_use_keeps_the_raw_arguments() -> None:
    body = typed(
        MESSAGE_START,
        anthropic_start(0, {"type": "tool_use", "id": "toolu_1", "name": "read", "input": {}}),
        anthropic_delta(0, {"type": "input_json_delta", "partial_json": '{"path": "a.t'}),
    )
    call = ToolCall(id="toolu_1", name="read", arguments='{"path": "a.t')
    assert read(ANTHROPIC, body) == ScriptedResponse(stop="no_finish", blocks=(call,))


def test_anthropic_skips_pings_unknown_events_and_blocks_without_a_neutral_form() -> None:
    """Rule 1: pings may appear anywhere and unknown event types must be tolerated;
    citations have no neutral form.  Server-tool blocks read as their neutral blocks
    (issue 13: they had none), their input from the deltas."""
    body = typed(
        MESSAGE_START,
        {"type": "ping"},
        anthropic_start(0, {"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search"}),
        anthropic_delta(0, {"type": "input_json_delta", "partial_json": '{"q": 1}'}),
        {"type": "content_block_stop", "index": 0},
        {"type": "conformance_future_event", "anything": [1, 2]},
        anthropic_start(1, {"type": "text", "text": ""}),
        anthropic_delta(1, {"type": "text_delta", "text": "Found it."}),
        anthropic_delta(1, {"type": "citations_delta", "citation": {"cited_text": "x"}}),
        {"type": "content_block_stop", "index": 1},
        {"type": "message_delta", "delta": {"stop_reason": "end_turn"}},
        {"type": "message_stop"},
    )
    use = ServerToolUse(id="srvtoolu_1", name="web_search", arguments={"q": 1})
    assert read(ANTHROPIC, body) == ScriptedResponse(
        stop="end", blocks=(use, Text(text="Found it."))
    )


def test_anthropic_reads_stop_reasons_it_never_renders() -> None:
    for reason, stop in (("stop_sequence", "end"), ("model_context_window_exceeded", "max_tokens")):
        body = typed(MESSAGE_START, {"type": "message_delta", "delta": {"stop_reason": reason}})
        assert read(ANTHROPIC, body).stop == stop
    body = typed(MESSAGE_START, {"type": "message_delta", "delta": {"stop_reason": "bored"}})
    error = read_error(ANTHROPIC, body)
    assert (error.at, error.message) == ("event 2 (message_delta)", "unknown stop_reason 'bored'")


@pytest.mark.parametrize(
    ("events", "at", "message"),
    [
        (
            [("content_block_delta", '{"type": "content_block_delta", "index": 0, "del')],
            "event 2 (content_block_delta)",
            "the data is not JSON: Unterminated string starting at",
        ),
        (
            [("content_block_start", {"type": "content_block_start", "index": 0})],
            "event 2 (content_block_start)",
            "`content_block` is missing",
        ),
        (
            [("content_block_delta", anthropic_delta(3, {"type": "text_delta", "text": "x"}))],
            "event 2 (content_block_delta)",
            "content block 3 was never started",
        ),
        (
            [("content_block_stop", {"type": "content_block_stop", "index": "0"})],
            "event 2 (content_block_stop)",
            "`index` is not an integer",
        ),
        (
            [
                ("content_block_start", anthropic_start(0, {"type": "text", "text": ""})),
                ("content_block_delta", anthropic_delta(0, {"type": "input_json_delta"})),
            ],
            "event 3 (content_block_delta)",
            "a input_json_delta for a text block",
        ),
        (
            [
                ("content_block_start", anthropic_start(0, {"type": "text", "text": ""})),
                ("content_block_delta", anthropic_delta(0, {"type": "text_delta"})),
            ],
            "event 3 (content_block_delta)",
            "`text` is missing",
        ),
    ],
)
def test_anthropic_malformed_streams_name_the_event(
    events: list[tuple[str, Any]], at: str, message: str
) -> None:
    error = read_error(ANTHROPIC, sse(("message_start", MESSAGE_START), *events))
    assert error.at == at
    assert error.message.startswith(message)


def test_anthropic_error_event_mid_stream_is_the_providers_error() -> None:
    body = typed(
        MESSAGE_START,
        anthropic_start(0, {"type": "text", "text": ""}),
        anthropic_delta(0, {"type": "text_delta", "text": "Half an ans"}),
        {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}},
    )
    error = read_error(ANTHROPIC, body)
    assert (error.at, error.message) == (
        "event 4 (error)",
        "provider error overloaded_error: Overloaded",
    )


def test_anthropic_json_message_and_its_malformed_forms() -> None:
    message = {
        "type": "message",
        "content": [
            {"type": "thinking", "thinking": "Plan.", "signature": SIG},
            {"type": "web_search_tool_result", "tool_use_id": "srvtoolu_1", "content": []},
            {"type": "tool_use", "id": "toolu_1", "name": "read", "input": {"p": 1}},
        ],
        "stop_reason": "tool_use",
    }
    assert read(ANTHROPIC, json.dumps(message).encode(), False) == ScriptedResponse(
        stop="tool_calls",
        blocks=(
            Reasoning(text="Plan.", signature=SIG),
            ServerToolResult(call_id="srvtoolu_1", content=[]),
            ToolCall(id="toolu_1", name="read", arguments={"p": 1}),
        ),
    )
    broken = {**message, "content": [{"type": "tool_use", "id": "toolu_1", "input": {}}]}
    error = read_error(ANTHROPIC, json.dumps(broken).encode(), False)
    assert (error.at, error.message) == ("content.0", "`name` is missing")
    error = read_error(ANTHROPIC, b'{"type": "message", "content": [', False)
    assert error.at == "byte 32"
    error = read_error(ANTHROPIC, b'"a string"', False)
    assert error.message == "the body is not a JSON object"
    no_call = {**message, "content": message["content"][:1]}
    error = read_error(ANTHROPIC, json.dumps(no_call).encode(), False)
    assert error.message == "stop `tool_calls` needs at least one tool_call block"


# ---------------------------------------------------------------- openai-responses

RESPONSES = "openai-responses"


def test_responses_cut_in_a_call_keeps_its_raw_arguments_and_drops_partial_encryption() -> None:
    """Rule 22: encrypted_content is whole only in ``output_item.done``; ``.added`` may
    carry a piece of it, which is no signature."""
    response = scripted(
        "tool_calls",
        {"kind": "reasoning", "id": "rs_1", "signature": SIG, "signature_chunks": [4]},
        {
            "kind": "tool_call",
            "id": "call_1",
            "name": "read",
            "arguments": {"p": "a"},
            "chunks": [6],
        },
    )
    events = chunks(render(RESPONSES, response).body)
    added = next(k for k, e in enumerate(events) if b"output_item.added" in e)
    assert b'"encrypted_content":"EqQB"' in events[added]
    assert read(RESPONSES, b"".join(events[: added + 1])) == ScriptedResponse(
        stop="no_finish", blocks=(Reasoning(id="rs_1"),)
    )
    delta = next(k for k, e in enumerate(events) if b"arguments.delta" in e)
    back = read(RESPONSES, b"".join(events[: delta + 1]))
    assert back.stop == "no_finish"
    assert back.blocks == (
        Reasoning(id="rs_1", signature=SIG),
        ToolCall(id="call_1", name="read", arguments='{"p":"'),
    )


def test_responses_encrypted_content_reads_back_only_when_it_was_sent() -> None:
    response = scripted(
        "end",
        {"kind": "reasoning", "id": "rs_1", "signature": SIG},
        {"kind": "text", "text": "Done."},
    )
    plain = get_wire(RESPONSES).parse(HttpRequest("POST", "/v1/responses", b'{"input": "go"}'))
    for stream in (True, False):
        with_it = read(RESPONSES, render(RESPONSES, response, stream=stream).body, stream)
        without = read(
            RESPONSES, render(RESPONSES, response, stream=stream, request=plain).body, stream
        )
        assert with_it.blocks[0] == Reasoning(id="rs_1", signature=SIG)
        assert without.blocks[0] == Reasoning(id="rs_1")


def test_responses_reads_the_reasoning_id_the_provider_minted() -> None:
    response = scripted(
        "end", {"kind": "reasoning", "signature": SIG}, {"kind": "text", "text": "ok"}
    )
    rendered = render(RESPONSES, response, stream=False)
    minted = rendered.json()["output"][0]["id"]
    assert minted.startswith("rs_")
    for stream in (True, False):
        back = read(RESPONSES, render(RESPONSES, response, stream=stream).body, stream)
        assert back.blocks[0] == Reasoning(id=minted, signature=SIG)


def test_responses_skips_unknown_events_and_hosted_tool_items() -> None:
    """The streaming guide has clients listen for the events they care about; hosted
    tool items (web search) have no neutral form."""
    search = {"type": "web_search_call", "id": "ws_1", "status": "completed"}
    message = {
        "type": "message",
        "id": "msg_1",
        "role": "assistant",
        "content": [{"type": "output_text", "text": "Sunny.", "annotations": []}],
    }
    body = typed(
        {"type": "response.created", "response": {}},
        {"type": "response.queued_for_the_future", "x": 1},
        {"type": "response.output_item.added", "output_index": 0, "item": search},
        {"type": "response.web_search_call.searching", "output_index": 0},
        {"type": "response.output_item.done", "output_index": 0, "item": search},
        {
            "type": "response.output_item.added",
            "output_index": 1,
            "item": {**message, "content": []},
        },
        {
            "type": "response.output_text.delta",
            "output_index": 1,
            "content_index": 0,
            "delta": "Sun",
        },
        {"type": "response.output_item.done", "output_index": 1, "item": message},
        {"type": "response.completed", "response": {"status": "completed", "output": []}},
    )
    assert read(RESPONSES, body) == ScriptedResponse(stop="end", blocks=(Text(text="Sunny."),))


def test_responses_terminal_events_give_the_stop() -> None:
    refusal = scripted("refusal", {"kind": "text", "text": "I can't help with that."})
    assert read(RESPONSES, render(RESPONSES, refusal).body).stop == "refusal"
    body = typed(
        {
            "type": "response.incomplete",
            "response": {
                "status": "incomplete",
                "incomplete_details": {"reason": "max_output_tokens"},
            },
        }
    )
    assert read(RESPONSES, body).stop == "max_tokens"
    odd = body.replace(b"max_output_tokens", b"bored")
    assert read_error(RESPONSES, odd).message == "incomplete for an unknown reason 'bored'"
    cancelled = {"status": "cancelled", "output": []}
    assert read(RESPONSES, json.dumps(cancelled).encode(), False).stop == "cancelled"


@pytest.mark.parametrize(
    ("event", "at", "message"),
    [
        (
            {
                "type": "response.output_text.delta",
                "output_index": 3,
                "content_index": 0,
                "delta": "x",
            },
            "event 2 (response.output_text.delta)",
            "output item 3 was never added",
        ),
        (
            {"type": "response.output_item.added", "output_index": 0},
            "event 2 (response.output_item.added)",
            "`item` is missing",
        ),
        (
            {"type": "response.function_call_arguments.delta", "delta": "{"},
            "event 2 (response.function_call_arguments.delta)",
            "`output_index` is missing",
        ),
        (
            {"type": "response.completed"},
            "event 2 (response.completed)",
            "`response` is missing",
        ),
    ],
)
def test_responses_malformed_streams_name_the_event(
    event: dict[str, Any], at: str, message: str
) -> None:
    error = read_error(RESPONSES, typed({"type": "response.created", "response": {}}, event))
    assert (error.at, error.message) == (at, message)


def test_responses_failure_and_error_events_are_the_providers_error() -> None:
    failed = {
        "type": "response.failed",
        "response": {"status": "failed", "error": {"code": "server_error", "message": "Boom"}},
    }
    error = read_error(RESPONSES, typed({"type": "response.created", "response": {}}, failed))
    assert (error.at, error.message) == (
        "event 2 (response.failed)",
        "provider error server_error: Boom",
    )
    overloaded = {"type": "error", "code": "server_is_overloaded", "message": "Try later"}
    error = read_error(RESPONSES, typed(overloaded))
    assert error.message == "provider error server_is_overloaded: Try later"


# ---------------------------------------------------------------- openai-chat

CHAT = "openai-chat"


def chat_chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
    return {
        "object": "chat.completion.chunk",
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
    }


def data(*items: dict[str, Any]) -> bytes:
    return sse(*((None, item) for item in items))


def test_chat_cut_before_the_finish_keeps_the_raw_arguments() -> None:
    body = data(
        chat_chunk({"role": "assistant", "content": ""}),
        chat_chunk(
            {
                "tool_calls": [
                    {"index": 0, "id": "call_1", "function": {"name": "read", "arguments": ""}}
                ]
            }
        ),
        chat_chunk({"tool_calls": [{"index": 0, "function": {"arguments": '{"p": "a'}}]}),
    )
    call = ToolCall(id="call_1", name="read", arguments='{"p": "a')
    assert read(CHAT, body) == ScriptedResponse(stop="no_finish", blocks=(call,))


def test_chat_finish_without_done_is_finished_and_nothing_after_done_is_read() -> None:
    finished = data(chat_chunk({"content": "Hi."}), chat_chunk({}, "stop"))
    assert read(CHAT, finished) == ScriptedResponse(stop="end", blocks=(Text(text="Hi."),))
    assert read(CHAT, finished + DONE + b"data: {oops\n\n") == read(CHAT, finished)


def test_chat_a_new_id_at_a_seen_index_starts_a_new_call() -> None:
    """Rule 31's quirk: Ollama-style servers give every parallel call index 0."""
    body = data(
        chat_chunk(
            {"tool_calls": [{"index": 0, "id": "A", "function": {"name": "f", "arguments": "{}"}}]}
        ),
        chat_chunk(
            {"tool_calls": [{"index": 0, "id": "B", "function": {"name": "g", "arguments": "{}"}}]}
        ),
        chat_chunk({}, "tool_calls"),
    )
    back = read(CHAT, body)
    assert [(c.id, c.name) for c in back.blocks if isinstance(c, ToolCall)] == [
        ("A", "f"),
        ("B", "g"),
    ]


def test_chat_skips_keep_alives_usage_chunks_and_unknown_objects() -> None:
    body = (
        format_comment("OPENROUTER PROCESSING")
        + data(
            chat_chunk({"role": "assistant", "content": "Hi"}),
            {"object": "chat.completion.chunk", "choices": [], "usage": {"total_tokens": 3}},
            {"object": "conformance.future", "payload": 1},
            chat_chunk({"content": "!"}, "stop"),
        )
        + DONE
    )
    assert read(CHAT, body) == ScriptedResponse(stop="end", blocks=(Text(text="Hi!"),))


def test_chat_reasoning_is_read_as_the_dialect_sends_it() -> None:
    response = RICH["openai-chat:openrouter"]
    body = render("openai-chat:openrouter", response).body
    assert read("openai-chat:openrouter", body).blocks[0] == Reasoning(
        text="Reading it.", signature=SIG
    )
    assert not any(isinstance(b, Reasoning) for b in read(CHAT, body).blocks)
    deepseek = render("openai-chat:deepseek", RICH["openai-chat:deepseek"]).body
    assert read("openai-chat:deepseek", deepseek).blocks[0] == Reasoning(text="Reading it.")
    assert not any(
        isinstance(b, Reasoning) for b in read("openai-chat:openrouter", deepseek).blocks
    )


@pytest.mark.parametrize(
    ("chunk", "message"),
    [
        (
            chat_chunk({"tool_calls": [{"id": "call_1", "function": {"name": "f"}}]}),
            "`index` is missing",
        ),
        (
            chat_chunk({"tool_calls": [{"index": 2, "function": {"arguments": "{}"}}]}),
            "tool call 2 was never started (no id)",
        ),
        ({"object": "chat.completion.chunk", "id": "x"}, "`choices` is missing"),
        (chat_chunk({}, "bored"), "unknown finish_reason 'bored'"),
        ({"choices": [{"index": 0, "delta": "hi"}]}, "`delta` is not an object"),
    ],
)
def test_chat_malformed_chunks_name_the_event(chunk: dict[str, Any], message: str) -> None:
    error = read_error(CHAT, data(chat_chunk({"role": "assistant"}), chunk))
    assert (error.at, error.message) == ("event 2", message)


def test_chat_error_chunk_mid_stream_is_the_providers_error() -> None:
    """OpenRouter's streaming doc: errors mid-generation arrive as data events with an
    ``error`` field (OpenAI's client checks for the same key)."""
    error_chunk = {"error": {"code": 502, "message": "Provider returned error"}}
    error = read_error(CHAT, data(chat_chunk({"content": "Hal"}), error_chunk))
    assert (error.at, error.message) == ("event 2", "provider error 502: Provider returned error")


def test_chat_completion_and_its_malformed_forms() -> None:
    completion: dict[str, Any] = {
        "choices": [
            {
                "index": 0,
                "message": {
                    "role": "assistant",
                    "content": None,
                    "reasoning_content": "Plan.",
                    "tool_calls": [
                        {
                            "id": "call_1",
                            "type": "function",
                            "function": {"name": "f", "arguments": ""},
                        }
                    ],
                },
                "finish_reason": "tool_calls",
            }
        ]
    }
    body = json.dumps(completion).encode()
    assert read("openai-chat:deepseek", body, False) == ScriptedResponse(
        stop="tool_calls",
        blocks=(Reasoning(text="Plan."), ToolCall(id="call_1", name="f", arguments={})),
    )
    assert read_error(CHAT, b'{"choices": []}', False).message == "no choice 0"
    del completion["choices"][0]["message"]["tool_calls"][0]["id"]
    error = read_error(CHAT, json.dumps(completion).encode(), False)
    assert (error.at, error.message) == ("choices.0.message.tool_calls.0", "`id` is missing")


# ---------------------------------------------------------------- gemini

GEMINI = "gemini"


def candidate(*parts: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
    chosen: dict[str, Any] = {"content": {"role": "model", "parts": list(parts)}, "index": 0}
    if finish is not None:
        chosen["finishReason"] = finish
    return {"candidates": [chosen]}


def test_gemini_array_stream_reads_as_the_sse_stream() -> None:
    for stop in ("tool_calls", "no_finish"):
        response = RICH[GEMINI].model_copy(update={"stop": stop})
        array = render(GEMINI, response, request=ARRAY_REQUEST).body
        assert array.startswith(b"[")
        assert read(GEMINI, array) == read(GEMINI, render(GEMINI, response).body)
        assert read(GEMINI, array).stop == stop


def test_gemini_array_stream_with_a_broken_element_is_named() -> None:
    error = read_error(GEMINI, b'[{"candidates": []},\r\n{"candidates": oops}, {"x": 1}]')
    assert error.at.startswith("element 2, byte ")
    assert error.message.startswith("the element is not JSON")
    assert read_error(GEMINI, b"[1]").message == "the element is not a JSON object"


def test_gemini_streamed_parts_join_until_a_signature_and_an_empty_part_stands_alone() -> None:
    """Rule 43: the signature may arrive alone in a later part with empty text."""
    body = data(
        candidate({"text": "Hel"}),
        candidate({"text": "lo."}),
        candidate({"text": "", "thoughtSignature": SIG}, finish="STOP"),
    )
    assert read(GEMINI, body) == ScriptedResponse(
        stop="end", blocks=(Text(text="Hello."), Text(text="", signature=SIG))
    )
    signed = data(
        candidate({"text": "A.", "thoughtSignature": SIG}), candidate({"text": "B."}, finish="STOP")
    )
    assert read(GEMINI, signed).blocks == (Text(text="A.", signature=SIG), Text(text="B."))


def test_gemini_calls_without_id_get_one_from_their_place_and_stop_says_tool_calls() -> None:
    body = data(
        candidate({"functionCall": {"name": "read", "args": {"p": 1}}, "thoughtSignature": SIG}),
        candidate({"functionCall": {"name": "read", "args": {"p": 2}}}, finish="STOP"),
    )
    back = read(GEMINI, body)
    assert back.stop == "tool_calls"
    first, second = back.blocks
    assert isinstance(first, ToolCall)
    assert isinstance(second, ToolCall)
    assert (first.signature, first.arguments, second.arguments) == (SIG, {"p": 1}, {"p": 2})
    assert first.id != second.id
    assert read(GEMINI, body) == back  # the ids are deterministic


def test_gemini_skips_usage_chunks_and_unknown_parts_and_reads_refusals() -> None:
    body = data(
        {"usageMetadata": {"promptTokenCount": 3}},
        candidate({"executableCode": {"code": "print(1)"}}, {"text": "1"}),
        candidate(finish="RECITATION"),
    )
    assert read(GEMINI, body) == ScriptedResponse(stop="refusal", blocks=(Text(text="1"),))
    blocked = {"promptFeedback": {"blockReason": "SAFETY"}}
    assert read(GEMINI, json.dumps(blocked).encode(), False) == ScriptedResponse(stop="refusal")


@pytest.mark.parametrize(
    ("chunk", "message"),
    [
        (candidate({"functionCall": {"args": {}}}), "`name` is missing"),
        (candidate({"functionCall": {"name": "f", "args": [1]}}), "`args` is not an object"),
        ({"candidates": {"0": {}}}, "`candidates` is not an array"),
        (
            candidate(finish="MALFORMED_FUNCTION_CALL"),
            "finishReason 'MALFORMED_FUNCTION_CALL' has no neutral stop",
        ),
        (candidate("text"), "a part is not an object"),  # type: ignore[arg-type]
    ],
)
def test_gemini_malformed_chunks_name_the_event(chunk: dict[str, Any], message: str) -> None:
    error = read_error(GEMINI, data(candidate({"text": "ok"}), chunk))
    assert (error.at, error.message) == ("event 2", message)


def test_gemini_error_chunk_mid_stream_is_the_providers_error() -> None:
    failure = {
        "error": {"code": 503, "message": "The model is overloaded.", "status": "UNAVAILABLE"}
    }
    error = read_error(GEMINI, data(candidate({"text": "Hal"}), failure))
    assert (error.at, error.message) == (
        "event 2",
        "provider error UNAVAILABLE: The model is overloaded.",
    )
    array = b'[{"candidates": []},\r\n' + json.dumps(failure).encode() + b"]"
    assert read_error(GEMINI, array).at == "element 2"


# ---------------------------------------------------------------- every wire

BAD_REQUEST = Rule(
    id="test/bad-request",
    ref="test",
    statement="A rule broken on purpose.",
    source="this test",
    error="messages.0: something is wrong",
)


@pytest.mark.parametrize("column", columns())
def test_each_wires_own_error_answer_reads_as_the_providers_error(column: str) -> None:
    wire, _ = split_column(column)
    answer = get_wire(wire).render_error(BAD_REQUEST.violation("messages.0: wrong"))
    error = read_error(column, answer.body, streaming=False)
    assert (error.at, "messages.0: wrong" in error.message) == ("body", True)
    assert error.message.startswith("provider error")


@pytest.mark.parametrize("column", columns())
def test_a_body_that_is_not_json_or_not_an_object_is_named(column: str) -> None:
    error = read_error(column, b"<html>502 Bad Gateway</html>", streaming=False)
    assert (error.at, error.message) == ("byte 0", "the body is not JSON: Expecting value")
    error = read_error(column, b"[]", streaming=False)
    assert (error.at, error.message) == ("byte 0", "the body is not a JSON object")
    error = read_error(column, b"event: x\ndata: {nope\n\n")
    assert error.at == "event 1 (x)"
    assert error.message.startswith("the data is not JSON")
