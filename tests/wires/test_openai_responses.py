"""The OpenAI Responses wire: render, parse (with stored-state expansion), rules, realism.

Streams are read back with httpx-sse through an httpx transport, the way an independent
client reads them, and reassembled by a small assembler written here from the streaming
reference (items from ``output_item.done``, rule 22), not from the wire module.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import pytest

from conformance._cases.schema import Case
from conformance._provider.scripted import MALFORMED_REQUEST, ScriptedProvider
from conformance.errors import RequestParseError
from conformance.http import HttpRequest, HttpResponse
from conformance.verdict import Violation
from conformance.vocabulary import (
    Media,
    Message,
    Options,
    Reasoning,
    ScriptedResponse,
    Text,
    ThinkingConfig,
    ToolCall,
    ToolResult,
)
from conformance.wires._openai_responses import (
    CALL_FOR_OUTPUT,
    CHAT_TOOL_CALLS,
    ENCRYPTED_CONTENT_VALID,
    FIELD_REQUIRED,
    INVALID_ROLE,
    ITEM_ID_PREFIX,
    ITEM_NOT_FOUND,
    OUTPUT_FOR_CALL,
    PREVIOUS_RESPONSE_NOT_FOUND,
    REASONING_FOLLOWED,
    REASONING_REQUIRED,
    REASONING_SUMMARY,
    WIRE,
    ResponsesRequestView,
)
from conformance.wires._openai_responses._minted import interim_content
from conformance.wires._registry import get_wire
from conformance.wires.context import (
    RenderContext,
    RequestView,
    ValidationContext,
)
from tests.wires.kit import client_events, end, realism_case, scripted, unrealistic

ENC = "reasoning.encrypted_content"
TERMINALS = ("response.completed", "response.incomplete", "response.failed")

Event = tuple[str, dict[str, Any]]


# ---------------------------------------------------------------- helpers


def request(body: Any) -> HttpRequest:
    raw = body if isinstance(body, bytes) else json.dumps(body).encode()
    return HttpRequest("POST", "/v1/responses", raw)


def body(*items: Any, **extra: Any) -> dict[str, Any]:
    return {"model": "model-under-test", "input": list(items), **extra}


STATELESS = {"store": False, "include": [ENC]}


def render(
    response: ScriptedResponse,
    *,
    stream: bool = True,
    index: int = 0,
    asked: dict[str, Any] | None = None,
) -> HttpResponse:
    """A response rendered for a request that asked ``asked`` (default: stateless with
    encrypted content)."""
    view = WIRE.parse(request(body(user("go"), **(STATELESS if asked is None else asked))))
    context = RenderContext(
        index=index, case_id="render-case", model="model-under-test", stream=stream, request=view
    )
    return WIRE.render(response, context)


def read_sse(rendered: HttpResponse) -> list[Event]:
    """The events as an httpx client with httpx-sse sees them, flush by flush."""
    return [(e.event, json.loads(e.data)) for e in client_events(rendered, "/v1/responses")]


def events(response: ScriptedResponse, **how: Any) -> list[Event]:
    return read_sse(render(response, **how))


def assemble(stream: Sequence[Event]) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The replayable items (from ``output_item.done``, in output order) and the terminal
    events; every event type not named here is ignored."""
    done: dict[int, dict[str, Any]] = {}
    terminal: list[dict[str, Any]] = []
    for _, data in stream:
        if data["type"] == "response.output_item.done":
            done[data["output_index"]] = data["item"]
        elif data["type"] in TERMINALS:
            terminal.append(data)
    return [done[i] for i in sorted(done)], terminal


def kinds(stream: Sequence[Event]) -> list[str]:
    return [data["type"] for _, data in stream]


def user(content: Any) -> dict[str, Any]:
    return {"role": "user", "content": content}


def output(call_id: str, result: Any = "file contents") -> dict[str, Any]:
    return {"type": "function_call_output", "call_id": call_id, "output": result}


def reasoning(rs_id: str | None, content: str | None, **extra: Any) -> dict[str, Any]:
    item: dict[str, Any] = {"type": "reasoning", "summary": [], **extra}
    if rs_id is not None:
        item["id"] = rs_id
    if content is not None:
        item["encrypted_content"] = content
    return item


def call(call_id: str, item_id: str | None = None, arguments: str = "{}") -> dict[str, Any]:
    item: dict[str, Any] = {
        "type": "function_call",
        "call_id": call_id,
        "name": "read",
        "arguments": arguments,
    }
    if item_id is not None:
        item["id"] = item_id
    return item


def said(text: str, item_id: str | None = None) -> dict[str, Any]:
    item: dict[str, Any] = {
        "type": "message",
        "role": "assistant",
        "content": [{"type": "output_text", "text": text, "annotations": []}],
    }
    if item_id is not None:
        item["id"] = item_id
    return item


def plain(blocks: Sequence[Any]) -> tuple[Any, ...]:
    """Scripted blocks without their stream directives, for comparison with a parse."""
    out: list[Any] = []
    for block in blocks:
        update: dict[str, Any] = {"chunks": None}
        if isinstance(block, Reasoning):
            update["signature_chunks"] = None
        out.append(block.model_copy(update=update))
    return tuple(out)


#: A tool turn: a summarized, encrypted reasoning item that produced a call.
TOOL_TURN = scripted(
    "tool_calls",
    {
        "kind": "reasoning",
        "summary": ["Read a first."],
        "signature": "ENC-ONE-abcdef",
        "signature_chunks": [4],
        "chunks": [5],
    },
    {"kind": "tool_call", "id": "call_a", "name": "read", "arguments": {"path": "a"}},
)
FINAL = scripted(
    "end",
    {"kind": "reasoning", "signature": "ENC-TWO-uvwxyz"},
    {"kind": "text", "text": "Done.", "chunks": [2]},
)


def case(*responses: ScriptedResponse, store: bool | None = None) -> Case:
    return Case.model_validate(
        {
            "id": "responses-probe",
            "title": "responses probe",
            "provenance": [{"rule": 26}],
            "features": ["stream-events"],
            "wires": {"openai-responses": "OpenAI Responses streams these shapes."},
            "given": {
                "tools": [{"name": "read", "result": "file contents"}],
                "options": {"store": store},
                "turns": [
                    {"user": "go", "responses": [r.model_dump(mode="json") for r in responses]}
                ],
            },
            "expect": [{"requests": len(responses)}],
        }
    )


def provider(*responses: ScriptedResponse) -> ScriptedProvider:
    return ScriptedProvider(case(*(responses or (TOOL_TURN, FINAL))), WIRE)


def served_output(scripted_provider: ScriptedProvider, payload: dict[str, Any]) -> Any:
    """The JSON response object the provider answers a (valid) request with."""
    answer = scripted_provider.handle(request(payload))
    assert answer.status == 200, answer.body
    return answer.json()


def rejected(scripted_provider: ScriptedProvider, payload: dict[str, Any]) -> list[Violation]:
    """Every violation the provider found in ``payload`` (it answered the first)."""
    scripted_provider.handle(request(payload))
    return list(scripted_provider.exchanges[-1].violations)


def messages(found: Sequence[Violation]) -> list[str]:
    return [v.message for v in found]


def after_tool_turn(**how: Any) -> tuple[ScriptedProvider, list[dict[str, Any]], str]:
    """A provider that served TOOL_TURN (asked for with ``how``), its output items and
    its response id."""
    scripted_provider = provider()
    answer = served_output(scripted_provider, body(user("go"), **how))
    return scripted_provider, answer["output"], answer["id"]


# ---------------------------------------------------------------- render: streams


def test_registry_serves_this_wire() -> None:
    assert get_wire("openai-responses") is WIRE
    assert WIRE.dialects == ()


def test_text_stream_golden_sequence() -> None:
    stream = events(scripted("end", {"kind": "text", "text": "Hi!", "chunks": [1, 1]}))
    assert [name for name, _ in stream] == kinds(stream)
    assert [data["sequence_number"] for _, data in stream] == list(range(len(stream)))
    created, in_progress = stream[0][1], stream[1][1]
    assert created["type"] == "response.created"
    assert in_progress["type"] == "response.in_progress"
    for opening in (created, in_progress):
        assert opening["response"]["status"] == "in_progress"
        assert opening["response"]["output"] == []
        assert opening["response"]["object"] == "response"
        assert opening["response"]["id"].startswith("resp_")
    item_id = stream[2][1]["item"]["id"]
    assert item_id.startswith("msg_")
    at = {"item_id": item_id, "output_index": 0, "content_index": 0}
    empty_part = {"type": "output_text", "text": "", "annotations": []}
    full_part = {"type": "output_text", "text": "Hi!", "annotations": []}
    assert [data for _, data in stream[2:-1]] == [
        {
            "type": "response.output_item.added",
            "sequence_number": 2,
            "output_index": 0,
            "item": {
                "type": "message",
                "id": item_id,
                "role": "assistant",
                "status": "in_progress",
                "content": [],
            },
        },
        {"type": "response.content_part.added", "sequence_number": 3, **at, "part": empty_part},
        {
            "type": "response.output_text.delta",
            "sequence_number": 4,
            **at,
            "delta": "H",
            "logprobs": [],
        },
        {
            "type": "response.output_text.delta",
            "sequence_number": 5,
            **at,
            "delta": "i",
            "logprobs": [],
        },
        {
            "type": "response.output_text.delta",
            "sequence_number": 6,
            **at,
            "delta": "!",
            "logprobs": [],
        },
        {
            "type": "response.output_text.done",
            "sequence_number": 7,
            **at,
            "text": "Hi!",
            "logprobs": [],
        },
        {"type": "response.content_part.done", "sequence_number": 8, **at, "part": full_part},
        {
            "type": "response.output_item.done",
            "sequence_number": 9,
            "output_index": 0,
            "item": {
                "type": "message",
                "id": item_id,
                "role": "assistant",
                "status": "completed",
                "content": [full_part],
            },
        },
    ]
    name, terminal = stream[-1]
    assert (name, terminal["sequence_number"]) == ("response.completed", 10)
    assert terminal["response"]["status"] == "completed"
    assert terminal["response"]["incomplete_details"] is None
    assert terminal["response"]["output"] == [stream[9][1]["item"]]
    assert set(terminal["response"]["usage"]) == {
        "input_tokens",
        "input_tokens_details",
        "output_tokens",
        "output_tokens_details",
        "total_tokens",
    }


def test_reasoning_and_call_stream_golden_sequence() -> None:
    stream = events(TOOL_TURN)
    assert kinds(stream) == [
        "response.created",
        "response.in_progress",
        "response.output_item.added",
        "response.reasoning_summary_part.added",
        "response.reasoning_summary_text.delta",
        "response.reasoning_summary_text.delta",
        "response.reasoning_summary_text.done",
        "response.reasoning_summary_part.done",
        "response.output_item.done",
        "response.output_item.added",
        "response.function_call_arguments.delta",
        "response.function_call_arguments.done",
        "response.output_item.done",
        "response.completed",
    ]
    assert [d["sequence_number"] for _, d in stream] == list(range(14))
    rs_id = stream[2][1]["item"]["id"]
    assert rs_id.startswith("rs_")
    summary = {"item_id": rs_id, "output_index": 0, "summary_index": 0}
    assert [d["delta"] for _, d in stream[4:6]] == ["Read ", "a first."]
    assert {k: stream[4][1][k] for k in summary} == summary
    assert stream[6][1]["text"] == "Read a first."
    assert stream[7][1]["part"] == {"type": "summary_text", "text": "Read a first."}
    call_added = stream[9][1]["item"]
    assert call_added == {
        "type": "function_call",
        "id": call_added["id"],
        "call_id": "call_a",
        "name": "read",
        "arguments": "",
        "status": "in_progress",
    }
    assert call_added["id"].startswith("fc_")
    assert stream[10][1]["delta"] == '{"path":"a"}'
    assert stream[11][1]["arguments"] == '{"path":"a"}'
    assert stream[12][1]["item"]["status"] == "completed"


def test_added_carries_incomplete_encrypted_content_and_done_the_whole() -> None:
    stream = events(TOOL_TURN)
    added, done = stream[2][1]["item"], stream[8][1]["item"]
    assert added == {
        "type": "reasoning",
        "id": added["id"],
        "summary": [],
        "encrypted_content": "ENC-",
    }
    assert done == {
        "type": "reasoning",
        "id": added["id"],
        "summary": [{"type": "summary_text", "text": "Read a first."}],
        "encrypted_content": "ENC-ONE-abcdef",
    }


def test_added_encrypted_content_is_an_interim_token_without_signature_chunks() -> None:
    # As every real stream sends it (pydantic/pydantic-ai tests/models/cassettes/
    # test_openai_responses/test_openai_responses_streaming_usage.yaml): already set at
    # .added, a whole token of its own, not the final one.
    stream = events(FINAL)
    added = stream[2][1]["item"]["encrypted_content"]
    assert added == interim_content("ENC-TWO-uvwxyz")
    assert added.startswith("gAAAAAB")
    assert added != "ENC-TWO-uvwxyz"
    assert stream[3][1]["item"]["encrypted_content"] == "ENC-TWO-uvwxyz"


@pytest.mark.parametrize("asked", [{}, {"store": False}, {"include": ["file_search_call.results"]}])
def test_encrypted_content_only_when_the_request_included_it(asked: dict[str, Any]) -> None:
    for response in (TOOL_TURN, FINAL):
        for _, data in events(response, asked=asked):
            if data["type"].startswith("response.output_item."):
                assert data["item"].get("encrypted_content") is None
        output = render(response, stream=False, asked=asked).json()["output"]
        assert output[0]["encrypted_content"] is None
    with_it = render(FINAL, stream=False, asked={"include": [ENC]}).json()["output"]
    assert with_it[0]["encrypted_content"] == "ENC-TWO-uvwxyz"


def test_max_tokens_ends_with_response_incomplete() -> None:
    stream = events(
        scripted(
            "max_tokens",
            {"kind": "reasoning", "signature": "E"},
            {"kind": "text", "text": "Trunc"},
        )
    )
    name, terminal = stream[-1]
    assert name == "response.incomplete"
    assert terminal["response"]["status"] == "incomplete"
    assert terminal["response"]["incomplete_details"] == {"reason": "max_output_tokens"}
    items, terminals = assemble(stream)
    assert len(terminals) == 1
    assert items[-1]["status"] == "incomplete"
    assert terminal["response"]["output"] == items


def test_truncated_call_is_an_incomplete_function_call_with_its_raw_arguments() -> None:
    stream = events(
        scripted(
            "max_tokens",
            {"kind": "tool_call", "id": "call_x", "name": "read", "arguments": '{"path": "al'},
        )
    )
    items, _ = assemble(stream)
    assert items[0]["arguments"] == '{"path": "al'
    assert items[0]["status"] == "incomplete"


@pytest.mark.parametrize("stop_", ["no_finish", "cancelled"])
def test_cut_stream_ends_on_the_last_delta_without_done_or_terminal(stop_: str) -> None:
    stream = events(
        scripted(
            stop_,
            {"kind": "reasoning", "signature": "E"},
            {"kind": "text", "text": "partial", "chunks": [3]},
        )
    )
    assert kinds(stream)[-5:] == [
        "response.output_item.done",
        "response.output_item.added",
        "response.content_part.added",
        "response.output_text.delta",
        "response.output_text.delta",
    ]
    assert stream[-1][1]["delta"] == "tial"
    assert not any(k in TERMINALS for k in kinds(stream))
    items, _ = assemble(stream)
    assert [i["type"] for i in items] == ["reasoning"]


def test_cut_inside_an_item_without_deltas_ends_on_its_announcement() -> None:
    stream = events(
        scripted(
            "no_finish",
            {"kind": "reasoning", "signature": "E"},
            {"kind": "tool_call", "id": "call_1", "name": "read", "arguments": ""},
        )
    )
    assert kinds(stream)[-1] == "response.output_item.added"
    assert stream[-1][1]["item"]["type"] == "function_call"


@pytest.mark.parametrize(
    "response", [TOOL_TURN, FINAL, scripted("no_finish", {"kind": "text", "text": "x"})]
)
def test_no_done_sentinel_and_at_most_one_terminal_event(response: ScriptedResponse) -> None:
    rendered = render(response)
    assert b"[DONE]" not in rendered.body
    terminal = [k for k in kinds(read_sse(rendered)) if k in TERMINALS]
    assert len(terminal) == (0 if response.stop == "no_finish" else 1)


def test_refusal_streams_a_refusal_content_part() -> None:
    stream = events(scripted("refusal", {"kind": "text", "text": "I can't.", "chunks": [2]}))
    assert kinds(stream)[3:8] == [
        "response.content_part.added",
        "response.refusal.delta",
        "response.refusal.delta",
        "response.refusal.done",
        "response.content_part.done",
    ]
    assert stream[3][1]["part"] == {"type": "refusal", "refusal": ""}
    assert stream[6][1]["refusal"] == "I can't."
    items, terminal = assemble(stream)
    assert items[0]["content"] == [{"type": "refusal", "refusal": "I can't."}]
    assert terminal[0]["type"] == "response.completed"


def test_unknown_events_go_between_items_and_pings_are_not_sent() -> None:
    stream = events(
        scripted(
            "end",
            {"kind": "reasoning", "signature": "E"},
            {"kind": "text", "text": "x"},
            noise=["unknown-event", "ping"],
        )
    )
    names = kinds(stream)
    future = names.index("response.conformance_future_event")
    assert names[future - 1] == "response.output_item.done"
    assert names[future + 1] == "response.output_item.added"
    assert "ping" not in names
    assert [d["sequence_number"] for _, d in stream] == list(range(len(stream)))
    one_item = events(scripted("end", {"kind": "text", "text": "x"}, noise=["unknown-event"]))
    assert kinds(one_item)[2] == "response.conformance_future_event"


def test_each_chunk_is_one_event_and_the_body_is_their_join() -> None:
    rendered = render(TOOL_TURN)
    assert rendered.streaming
    assert rendered.body == b"".join(rendered.chunks)
    assert len(rendered.chunks) == len(read_sse(rendered))
    assert all(chunk.startswith(b"event: response.") for chunk in rendered.chunks)
    assert dict(rendered.headers)["x-request-id"].startswith("req_")


def test_render_is_deterministic_and_ids_depend_on_the_response_index() -> None:
    assert render(TOOL_TURN).body == render(TOOL_TURN).body
    first = render(TOOL_TURN, stream=False).json()
    second = render(TOOL_TURN, stream=False, index=1).json()
    assert first["id"] != second["id"]
    assert [i["id"] for i in first["output"]] != [i["id"] for i in second["output"]]


def test_a_scripted_reasoning_id_is_kept() -> None:
    response = scripted(
        "end",
        {"kind": "reasoning", "id": "rs_given", "signature": "E"},
        {"kind": "text", "text": "x"},
    )
    assert render(response, stream=False).json()["output"][0]["id"] == "rs_given"


# ---------------------------------------------------------------- render: JSON


def test_non_streaming_response_object() -> None:
    payload = render(TOOL_TURN, stream=False).json()
    assert {
        k: payload[k] for k in ("object", "status", "model", "incomplete_details", "error")
    } == {
        "object": "response",
        "status": "completed",
        "model": "model-under-test",
        "incomplete_details": None,
        "error": None,
    }
    assert payload["id"].startswith("resp_")
    assert payload["output"] == assemble(events(TOOL_TURN))[0]
    usage = payload["usage"]
    assert usage["total_tokens"] == usage["input_tokens"] + usage["output_tokens"]
    incomplete = render(scripted("max_tokens", {"kind": "text", "text": "x"}), stream=False).json()
    assert incomplete["status"] == "incomplete"
    assert incomplete["incomplete_details"] == {"reason": "max_output_tokens"}


@pytest.mark.parametrize("stop_", ["no_finish", "cancelled"])
def test_non_streaming_cut_is_a_server_error(stop_: str) -> None:
    rendered = render(scripted(stop_, {"kind": "text", "text": "x"}), stream=False)
    assert rendered.status == 500
    assert rendered.json() == {
        "error": {
            "message": "The server had an error while processing your request. Sorry about that!",
            "type": "server_error",
            "param": None,
            "code": None,
        }
    }


# ---------------------------------------------------------------- render: round trip

ROUND_TRIPS = [
    TOOL_TURN,
    FINAL,
    scripted(
        "tool_calls",
        {
            "kind": "reasoning",
            "summary": ["a", "b"],
            "signature": "S-1",
            "signature_chunks": [1, 2],
        },
        {"kind": "text", "text": "Let me look.", "chunks": [3, 3]},
        {
            "kind": "tool_call",
            "id": "call_1",
            "name": "read",
            "arguments": {"p": [1, {"q": "é"}]},
            "chunks": [2],
        },
        {"kind": "tool_call", "id": "call_2", "name": "read", "arguments": {}},
        noise=["unknown-event"],
    ),
]


@pytest.mark.parametrize("response", ROUND_TRIPS)
def test_reassembled_stream_parses_back_to_the_scripted_blocks(response: ScriptedResponse) -> None:
    items, _ = assemble(events(response))
    assert items == render(response, stream=False).json()["output"]
    view = WIRE.parse(request(body(user("go"), *items)))
    parsed = tuple(
        b.model_copy(update={"id": None}) if isinstance(b, Reasoning) else b
        for b in view.messages[1].blocks
    )
    assert parsed == plain(response.blocks)
    assert all(
        isinstance(b, Reasoning) and b.id == i["id"]
        for b, i in zip(view.messages[1].blocks, items, strict=False)
        if i["type"] == "reasoning"
    )


# ---------------------------------------------------------------- parse


def test_serves_only_post_v1_responses() -> None:
    assert WIRE.serves(request(body()))
    assert not WIRE.serves(HttpRequest("GET", "/v1/responses"))
    assert not WIRE.serves(HttpRequest("POST", "/v1/chat/completions"))
    assert WIRE.endpoint("any-model", True) == WIRE.endpoint("other", False) == "/v1/responses"


def test_wants_stream_follows_the_stream_flag() -> None:
    streamed = request(body(stream=True))
    assert WIRE.wants_stream(streamed, WIRE.parse(streamed))
    once = request(body())
    assert not WIRE.wants_stream(once, WIRE.parse(once))


def test_request_fields_in_neutral_form() -> None:
    view = WIRE.parse(
        request(
            body(
                user("hi"),
                instructions="Be terse.",
                tools=[
                    {"type": "function", "name": "read", "description": "d", "parameters": {}},
                    {"type": "web_search"},
                ],
                reasoning={"effort": "high", "summary": "auto"},
                max_output_tokens=512,
                include=[ENC],
                store=False,
                stream=True,
            )
        )
    )
    assert isinstance(view, ResponsesRequestView)
    assert (view.model, view.system, view.tools, view.max_tokens) == (
        "model-under-test",
        "Be terse.",
        ("read",),
        512,
    )
    assert view.thinking == ThinkingConfig(mode="adaptive")
    assert (view.include, view.store, view.stream, view.encrypted) == ((ENC,), False, True, True)
    defaults = WIRE.parse(request(body(user("hi"))))
    assert isinstance(defaults, ResponsesRequestView)
    assert (defaults.thinking.mode, defaults.store, defaults.include) == ("off", True, ())
    assert defaults.previous_response_id is None


def test_string_input_is_one_user_message() -> None:
    view = WIRE.parse(request({"model": "m", "input": "Hello"}))
    assert view.messages == (Message(role="user", blocks=(Text(text="Hello"),)),)
    assert WIRE.history_items(view) == [{"role": "user", "content": "Hello"}]


def test_item_list_in_neutral_form_with_grouping_and_locations() -> None:
    payload = body(
        {"role": "developer", "content": "Rules."},
        {
            "type": "message",
            "role": "user",
            "content": [
                {"type": "input_text", "text": "go"},
                {"type": "input_image", "image_url": "data:image/png;base64,AAAA"},
            ],
        },
        reasoning("rs_1", "E1", summary=[{"type": "summary_text", "text": "plan"}]),
        said("Looking.", "msg_1"),
        call("call_1", "fc_1", '{"p": 1}'),
        call("call_2", "fc_2", '{"p": 2'),
        output("call_1"),
        output("call_2", [{"type": "input_text", "text": "two"}]),
        user("thanks"),
        said("Welcome."),
    )
    view = WIRE.parse(request(payload))
    assert view.messages == (
        Message(role="system", blocks=(Text(text="Rules."),)),
        Message(role="user", blocks=(Text(text="go"), Media(mime="image/png", data="AAAA"))),
        Message(
            role="assistant",
            blocks=(
                Reasoning(signature="E1", id="rs_1", summary=("plan",)),
                Text(text="Looking."),
                ToolCall(id="call_1", name="read", arguments={"p": 1}),
                ToolCall(id="call_2", name="read", arguments='{"p": 2'),
            ),
        ),
        Message(
            role="tool",
            blocks=(
                ToolResult(call_id="call_1", content="file contents"),
                ToolResult(call_id="call_2", content=(Text(text="two"),)),
            ),
        ),
        Message(role="user", blocks=(Text(text="thanks"),)),
        Message(role="assistant", blocks=(Text(text="Welcome."),)),
    )
    assert view.locations[1] == ("input[1]", ("input[1].content[0]", "input[1].content[1]"))
    assert view.locations[2] == (
        "input[2]",
        ("input[2]", "input[3].content[0]", "input[4]", "input[5]"),
    )
    assert view.where(3, 1) == "input[7]"
    assert WIRE.history_items(view) == payload["input"]


def test_parse_is_lenient_on_garbage_items() -> None:
    view = WIRE.parse(
        request(
            body(7, {"type": "web_search_call", "id": "ws_1"}, {"type": "reasoning"}, user("x"))
        )
    )
    assert view.messages == (
        Message(role="assistant", blocks=(Reasoning(),)),
        Message(role="user", blocks=(Text(text="x"),)),
    )


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        (b"{not json", "We could not parse the JSON body of your request."),
        (b"[1, 2]", "We could not parse the JSON body of your request."),
        (
            json.dumps({"model": "m", "input": {"role": "user"}}).encode(),
            "Invalid type for 'input'.",
        ),
    ],
)
def test_unparsable_bodies_raise_request_parse_error(raw: bytes, message: str) -> None:
    with pytest.raises(RequestParseError) as caught:
        WIRE.parse(request(raw))
    assert caught.value.message.startswith(message)


def test_an_unparsable_body_gets_openais_error_body() -> None:
    answer = provider().handle(request(b"{oops"))
    assert answer.status == 400
    assert answer.json()["error"]["message"].startswith("We could not parse the JSON body")
    assert answer.json()["error"]["type"] == "invalid_request_error"
    assert MALFORMED_REQUEST.id == "provider/malformed-request"


# ---------------------------------------------------------------- parse: stored state


def test_previous_response_id_expands_to_the_stored_conversation() -> None:
    scripted_provider, items, response_id = after_tool_turn(include=[ENC])
    first_view = scripted_provider.exchanges[0].view
    assert first_view is not None
    payload = body(output("call_a"), previous_response_id=response_id)
    answer = scripted_provider.handle(request(payload))
    assert answer.status == 200, answer.body
    view = scripted_provider.exchanges[-1].view
    assert isinstance(view, ResponsesRequestView)
    assert WIRE.history_items(view) == [*WIRE.history_items(first_view), *items, output("call_a")]
    assert view.messages == (
        Message(role="user", blocks=(Text(text="go"),)),
        Message(
            role="assistant",
            blocks=(
                Reasoning(
                    signature="ENC-ONE-abcdef", id=items[0]["id"], summary=("Read a first.",)
                ),
                ToolCall(id="call_a", name="read", arguments={"path": "a"}),
            ),
        ),
        Message(role="tool", blocks=(ToolResult(call_id="call_a", content="file contents"),)),
    )
    assert view.where(1, 0) == "previous_response_id"


def test_previous_response_id_chains_keep_the_history_append_only() -> None:
    scripted_provider = provider(
        TOOL_TURN, FINAL, scripted("end", {"kind": "text", "text": "Bye."})
    )
    first = served_output(scripted_provider, body(user("go")))
    second = served_output(
        scripted_provider, body(output("call_a"), previous_response_id=first["id"])
    )
    served_output(scripted_provider, body(user("more"), previous_response_id=second["id"]))
    views = [e.view for e in scripted_provider.exchanges if e.view is not None]
    histories = [WIRE.history_items(v) for v in views]
    assert histories[1][: len(histories[0])] == histories[0]
    assert histories[2][: len(histories[1])] == histories[1]
    assert histories[2][-1] == user("more")
    assert [m.role for m in views[2].messages] == ["user", "assistant", "tool", "assistant", "user"]


def test_stored_reasoning_sent_by_id_gets_its_encrypted_content() -> None:
    scripted_provider, items, _ = after_tool_turn()
    assert items[0]["encrypted_content"] is None
    payload = body(
        user("go"),
        reasoning(items[0]["id"], None),
        call("call_a", items[1]["id"], '{"path":"a"}'),
        output("call_a"),
    )
    answer = scripted_provider.handle(request(payload))
    assert answer.status == 200, answer.body
    view = scripted_provider.exchanges[-1].view
    assert view is not None
    assert view.messages[1].blocks[0] == Reasoning(signature="ENC-ONE-abcdef", id=items[0]["id"])
    assert WIRE.history_items(view) == payload["input"]


def test_item_references_expand_to_the_stored_items() -> None:
    scripted_provider, items, _ = after_tool_turn()
    references = [{"type": "item_reference", "id": item["id"]} for item in items]
    payload = body(user("go"), *references, output("call_a"))
    assert scripted_provider.handle(request(payload)).status == 200
    view = scripted_provider.exchanges[-1].view
    assert view is not None
    assert WIRE.history_items(view) == [user("go"), *items, output("call_a")]
    assert [b.kind for b in view.messages[1].blocks] == ["reasoning", "tool_call"]
    assert view.messages[1].blocks[0] == Reasoning(
        signature="ENC-ONE-abcdef", id=items[0]["id"], summary=("Read a first.",)
    )


def test_with_store_off_references_resolve_to_nothing() -> None:
    scripted_provider, items, response_id = after_tool_turn(store=False)
    payload = body(
        user("go"),
        {"type": "item_reference", "id": items[0]["id"]},
        reasoning(items[0]["id"], None),
        output("call_a"),
        previous_response_id=response_id,
        store=False,
    )
    scripted_provider.handle(request(payload))
    view = scripted_provider.exchanges[-1].view
    assert view is not None
    assert WIRE.history_items(view) == payload["input"]
    assert view.messages[1].blocks == (Reasoning(id=items[0]["id"]),)


def test_with_store_off_even_stored_items_are_not_looked_up() -> None:
    scripted_provider, items, _ = after_tool_turn()
    reference = {"type": "item_reference", "id": items[1]["id"]}
    payload = body(
        user("go"), reasoning(items[0]["id"], None), reference, output("call_a"), store=False
    )
    found = rejected(scripted_provider, payload)
    assert [v.message for v in found if v.rule is ITEM_NOT_FOUND] == [
        item_not_found(items[0]["id"]),
        item_not_found(items[1]["id"]),
    ]
    view = scripted_provider.exchanges[-1].view
    assert view is not None
    assert WIRE.history_items(view) == payload["input"]
    assert view.messages[1].blocks == (Reasoning(id=items[0]["id"]),)


def test_an_id_less_reasoning_item_is_known_by_its_encrypted_content() -> None:
    scripted_provider, items, _ = after_tool_turn(**STATELESS)
    payload = body(
        user("go"), reasoning(None, "ENC-ONE-abcdef"), call("call_a"), output("call_a"), **STATELESS
    )
    assert scripted_provider.handle(request(payload)).status == 200
    view = scripted_provider.exchanges[-1].view
    assert view is not None
    assert view.messages[1].blocks[0] == Reasoning(signature="ENC-ONE-abcdef", id=items[0]["id"])


def test_parse_without_context_expands_nothing() -> None:
    view = WIRE.parse(request(body(output("call_a"), previous_response_id="resp_x")))
    assert isinstance(view, ResponsesRequestView)
    assert view.previous_response_id == "resp_x"
    assert WIRE.history_items(view) == [output("call_a")]


def test_history_items_of_a_plain_view_are_the_raw_input() -> None:
    view = RequestView(wire="openai-responses", raw={"input": [user("a")]})
    assert WIRE.history_items(view) == [user("a")]
    assert WIRE.history_items(RequestView(wire="openai-responses", raw={"input": "a"})) == []


# ---------------------------------------------------------------- rules: shape


def test_rules_have_stable_ids_refs_and_sources() -> None:
    ids = [rule.id for rule in WIRE.rules]
    assert len(ids) == len(set(ids))
    for rule in WIRE.rules:
        assert rule.id.startswith("openai-responses/")
        assert (rule.ref or "").startswith(("rule B", "rules §B"))
        assert rule.statement
        assert rule.source
        assert rule.error


def stateless_replay(items: list[dict[str, Any]]) -> dict[str, Any]:
    return body(user("go"), *items, output("call_a"), **STATELESS)


def test_a_stateless_tool_loop_breaks_no_rule() -> None:
    scripted_provider, items, _ = after_tool_turn(**STATELESS)
    assert rejected(scripted_provider, stateless_replay(items)) == []
    assert [e.served for e in scripted_provider.exchanges] == [0, 1]


def test_field_required() -> None:
    scripted_provider = provider()
    found = rejected(
        scripted_provider,
        {
            "input": [
                user("go"),
                {"type": "function_call", "name": "read", "arguments": "{}"},
                reasoning(None, None),
                {"type": "item_reference"},
            ]
        },
    )
    assert [(v.rule, v.message) for v in found if v.rule is FIELD_REQUIRED] == [
        (FIELD_REQUIRED, "Missing required parameter: 'model'."),
        (FIELD_REQUIRED, "Missing required parameter: 'input[1].call_id'."),
        (FIELD_REQUIRED, "Missing required parameter: 'input[2].id'."),
        (FIELD_REQUIRED, "Missing required parameter: 'input[3].id'."),
    ]
    assert FIELD_REQUIRED not in [v.rule for v in rejected(scripted_provider, body(user("go")))]


def test_reasoning_summary_required_even_when_empty() -> None:
    scripted_provider, items, _ = after_tool_turn(**STATELESS)
    without = {k: v for k, v in items[0].items() if k != "summary"}
    untyped = {**items[0], "summary": [{"text": "Read a first."}]}
    assert messages(rejected(scripted_provider, stateless_replay([without, items[1]]))) == [
        "Missing required parameter: 'input[1].summary'."
    ]
    found = rejected(scripted_provider, stateless_replay([untyped, items[1]]))
    assert [(v.rule, v.message, v.at) for v in found] == [
        (
            REASONING_SUMMARY,
            "Missing required parameter: 'input[1].summary[0].type'.",
            "input[1].summary[0].type",
        )
    ]
    assert (
        rejected(scripted_provider, stateless_replay([{**items[0], "summary": []}, items[1]])) == []
    )


def test_role_tool_is_an_invalid_value() -> None:
    scripted_provider = provider()
    chat_style = body(user("go"), {"role": "tool", "content": "x", "tool_call_id": "call_a"})
    found = rejected(scripted_provider, chat_style)
    assert (found[0].rule, found[0].message, found[0].at) == (
        INVALID_ROLE,
        "Invalid value: 'tool'. Supported values are: 'assistant', 'system', 'developer', "
        "and 'user'.",
        "input[1].role",
    )
    assert INVALID_ROLE not in [
        v.rule
        for v in rejected(
            scripted_provider, body({"role": "developer", "content": "x"}, user("go"))
        )
    ]


def test_chat_style_tool_calls_are_an_unknown_parameter() -> None:
    found = rejected(
        provider(), body(user("go"), {"role": "assistant", "content": "", "tool_calls": []})
    )
    assert [(v.rule, v.message) for v in found][:1] == [
        (CHAT_TOOL_CALLS, "Unknown parameter: 'input[1].tool_calls'.")
    ]
    converted = rejected(
        provider(), body(user("go"), said("Reading."), call("call_a"), output("call_a"))
    )
    assert CHAT_TOOL_CALLS not in [v.rule for v in converted]


@pytest.mark.parametrize(
    ("item", "message"),
    [
        (
            call("call_a", "call_a"),
            "Invalid 'input[1].id': 'call_a'. Expected an ID that begins with 'fc'.",
        ),
        (
            call("call_a", "msg_123"),
            "Invalid 'input[1].id': 'msg_123'. Expected an ID that begins with 'fc'.",
        ),
        (
            said("x", "item_9"),
            "Invalid 'input[1].id': 'item_9'. Expected an ID that begins with 'msg'.",
        ),
        (
            reasoning("item_7", "E"),
            "Invalid 'input[1].id': 'item_7'. Expected an ID that begins with 'rs'.",
        ),
    ],
)
def test_item_id_prefix(item: dict[str, Any], message: str) -> None:
    found = rejected(provider(), body(user("go"), item, output("call_a")))
    assert [v.message for v in found if v.rule is ITEM_ID_PREFIX] == [message]


@pytest.mark.parametrize(
    "item", [call("call_a", "fc_own"), call("call_a", ""), said("x", "msg_own")]
)
def test_item_id_prefix_accepts_the_right_prefix_and_an_empty_id(item: dict[str, Any]) -> None:
    found = rejected(provider(), body(user("go"), item, output("call_a")))
    assert ITEM_ID_PREFIX not in [v.rule for v in found]


# ---------------------------------------------------------------- rules: stored state (25)


def test_previous_response_not_found() -> None:
    found = rejected(provider(), body(user("go"), previous_response_id="resp_nowhere"))
    assert [(v.rule, v.message) for v in found] == [
        (PREVIOUS_RESPONSE_NOT_FOUND, "Previous response with id 'resp_nowhere' not found.")
    ]
    scripted_provider, _, response_id = after_tool_turn(store=False)
    found = rejected(scripted_provider, body(output("call_a"), previous_response_id=response_id))
    assert found[0].message == f"Previous response with id '{response_id}' not found."
    assert found[0].broken.status == 400  # rule 60: codex-lb#853, Bamboo-agent#513


def item_not_found(item_id: str) -> str:
    return ITEM_NOT_FOUND.error.format(id=item_id)


def test_store_off_reasoning_without_encrypted_content_is_not_found() -> None:
    scripted_provider, items, _ = after_tool_turn(store=False)
    by_id = {k: v for k, v in items[0].items() if k != "encrypted_content"}
    found = rejected(
        scripted_provider, body(user("go"), by_id, items[1], output("call_a"), store=False)
    )
    assert (found[0].rule, found[0].message) == (ITEM_NOT_FOUND, item_not_found(items[0]["id"]))
    assert found[0].message == (
        f"Item with id '{items[0]['id']}' not found. Items are not persisted when `store` is set "
        "to false. Try again with `store` set to true, or remove this item from your input."
    )
    null = {**items[0], "encrypted_content": None}
    found = rejected(
        scripted_provider, body(user("go"), null, items[1], output("call_a"), store=False)
    )
    assert messages(found) == [item_not_found(items[0]["id"])]


def test_store_off_item_reference_is_not_found() -> None:
    scripted_provider, items, _ = after_tool_turn(**STATELESS)
    reference = {"type": "item_reference", "id": items[1]["id"]}
    found = rejected(
        scripted_provider, body(user("go"), items[0], reference, output("call_a"), **STATELESS)
    )
    assert item_not_found(items[1]["id"]) in messages(found)


def test_store_on_resolves_only_what_was_stored() -> None:
    scripted_provider, items, _ = after_tool_turn()
    by_id = {k: v for k, v in items[0].items() if k != "encrypted_content"}
    assert rejected(scripted_provider, body(user("go"), by_id, items[1], output("call_a"))) == []
    unstored, unstored_items, _ = after_tool_turn(store=False)
    by_id = {k: v for k, v in unstored_items[0].items() if k != "encrypted_content"}
    found = rejected(unstored, body(user("go"), by_id, unstored_items[1], output("call_a")))
    assert messages(found) == [item_not_found(unstored_items[0]["id"])]
    found = rejected(unstored, body(user("go"), {"type": "item_reference", "id": "rs_made_up"}))
    assert item_not_found("rs_made_up") in messages(found)


# ---------------------------------------------------------------- rules: encrypted content (22, 30)


def invalid_content(content: str) -> str:
    return (
        f"The encrypted content {content[:4]}...{content[-4:]} could not be verified. "
        "Reason: Encrypted content could not be decrypted or parsed."
    )


def test_encrypted_content_taken_from_added_is_truncated_and_rejected() -> None:
    scripted_provider = provider()
    stream = read_sse(scripted_provider.handle(request(body(user("go"), stream=True, **STATELESS))))
    added = next(d["item"] for _, d in stream if d["type"] == "response.output_item.added")
    items, _ = assemble(stream)
    from_added = {**items[0], "encrypted_content": added["encrypted_content"]}
    found = rejected(scripted_provider, stateless_replay([from_added, items[1]]))
    assert [(v.rule, v.message) for v in found] == [
        (ENCRYPTED_CONTENT_VALID, invalid_content("ENC-"))
    ]
    answer = WIRE.render_error(found[0]).json()["error"]
    assert (answer["param"], answer["code"]) == (None, "invalid_encrypted_content")
    assert rejected(scripted_provider, stateless_replay(items)) == []


def test_concatenated_and_foreign_encrypted_content_are_rejected() -> None:
    scripted_provider = provider(TOOL_TURN, FINAL, scripted("end", {"kind": "text", "text": "x"}))
    first = served_output(scripted_provider, body(user("go"), **STATELESS))
    served_output(scripted_provider, stateless_replay(first["output"]))
    third = body(
        user("go"),
        reasoning(None, "ENC-ONE-abcdefENC-TWO-uvwxyz"),
        call("call_a"),
        output("call_a"),
        **STATELESS,
    )
    found = rejected(scripted_provider, third)
    assert [v.rule for v in found] == [ENCRYPTED_CONTENT_VALID]
    foreign = body(
        user("go"),
        reasoning("rs_other", "FOREIGN-BLOB"),
        call("call_a"),
        output("call_a"),
        **STATELESS,
    )
    assert messages(rejected(scripted_provider, foreign)) == [invalid_content("FOREIGN-BLOB")]


def test_saved_history_contents_count_only_when_minted_here() -> None:
    history = (
        Message(role="user", blocks=(Text(text="earlier"),)),
        Message(
            role="assistant", blocks=(Reasoning(signature="MINE-OLD", id="rs_old"), Text(text="ok"))
        ),
        Message(
            role="assistant",
            blocks=(Reasoning(signature="THEIRS", origin="openai-responses:other"), Text(text="k")),
        ),
    )
    context = ValidationContext(number=1, options=Options(), served=(), history=history)
    mine = body(user("earlier"), reasoning("rs_old", "MINE-OLD"), said("ok"), user("go"))
    theirs = body(user("earlier"), reasoning("rs_x", "THEIRS"), said("k"), user("go"))
    by_id = body(user("earlier"), reasoning("rs_old", None), said("ok"), user("go"))
    assert WIRE.validate(WIRE.parse(request(mine), context), context) == []
    assert messages(WIRE.validate(WIRE.parse(request(theirs), context), context)) == [
        invalid_content("THEIRS")
    ]
    assert WIRE.validate(WIRE.parse(request(by_id), context), context) == []


def test_a_saved_item_another_model_minted_here_may_be_stored_so_its_404_is_inferred() -> None:
    """The AI SDK sent `item_reference` to a reasoning item a saved history holds from
    another OpenAI model: with `store` on (the default) the item may be stored from its
    earlier session, which the run cannot see, so the 404 is recorded, not played; with
    `store: false` nothing is stored, and with an id from another provider nothing was."""
    history = (
        Message(role="user", blocks=(Text(text="earlier"),)),
        Message(
            role="assistant",
            blocks=(
                Reasoning(signature="SIB", id="rs_sib", origin="openai-responses:gpt-5.1-codex"),
                Text(text="ok"),
            ),
        ),
        Message(
            role="assistant",
            blocks=(
                Reasoning(signature="CL", id="rs_cl", origin="anthropic-messages:claude-x"),
                Text(text="k"),
            ),
        ),
    )
    context = ValidationContext(number=1, options=Options(), served=(), history=history)

    def found(item_id: str, **extra: Any) -> list[Violation]:
        payload = body(user("earlier"), {"type": "item_reference", "id": item_id}, user("go"))
        payload.update(extra)
        violations = WIRE.validate(WIRE.parse(request(payload), context), context)
        return [v for v in violations if v.rule is ITEM_NOT_FOUND]

    [sibling] = found("rs_sib")
    assert (sibling.evidence, sibling.rejects) == ("inferred", False)
    [unstored] = found("rs_sib", store=False)
    assert unstored.rejects
    [elsewhere] = found("rs_cl")
    assert elsewhere.rejects


# ---------------------------------------------------------------- rules: reasoning pairing (26, 27)


def following(item_id: str) -> str:
    return f"Item '{item_id}' of type 'reasoning' was provided without its required following item."


def test_reasoning_followed_by_the_item_it_produced() -> None:
    scripted_provider, items, _ = after_tool_turn(**STATELESS)
    rs = items[0]
    trailing = body(user("go"), rs, **STATELESS)
    assert [(v.rule, v.message) for v in rejected(scripted_provider, trailing)] == [
        (REASONING_FOLLOWED, following(rs["id"]))
    ]
    before_output = body(user("go"), items[1], rs, output("call_a"), **STATELESS)
    assert following(rs["id"]) in messages(rejected(scripted_provider, before_output))
    doubled = body(user("go"), rs, rs, items[1], output("call_a"), **STATELESS)
    assert following(rs["id"]) in messages(rejected(scripted_provider, doubled))
    id_less_call = {k: v for k, v in items[1].items() if k != "id"}
    assert rejected(scripted_provider, stateless_replay([rs, id_less_call])) == []


def test_a_run_of_reasoning_items_ending_in_its_output_is_accepted() -> None:
    """Seed §108: a live response carried [reasoning, reasoning, function_call]; replayed
    as it came, it breaks no rule, and it is a realistic shape to script."""
    back_to_back = scripted(
        "tool_calls",
        {"kind": "reasoning", "signature": "ENC-AAA-111111"},
        {"kind": "reasoning", "signature": "ENC-BBB-222222"},
        {"kind": "tool_call", "id": "call_a", "name": "read", "arguments": {"path": "a"}},
    )
    scripted_provider = provider(back_to_back, FINAL)
    items = served_output(scripted_provider, body(user("go"), **STATELESS))["output"]
    assert [item["type"] for item in items] == ["reasoning", "reasoning", "function_call"]
    assert rejected(scripted_provider, stateless_replay(items)) == []
    assert unrealistic(WIRE, case(back_to_back, FINAL)) == []
    ending_on_reasoning = body(user("go"), items[0], items[1], **STATELESS)
    assert following(items[1]["id"]) in messages(
        rejected(provider(back_to_back, FINAL), ending_on_reasoning)
    )


def test_reasoning_followed_by_another_responses_item_is_rejected() -> None:
    scripted_provider = provider(TOOL_TURN, FINAL, scripted("end", {"kind": "text", "text": "x"}))
    first = served_output(scripted_provider, body(user("go"), **STATELESS))["output"]
    second = served_output(scripted_provider, stateless_replay(first))["output"]
    swapped = body(
        user("go"),
        first[0],
        said("Done.", second[1]["id"]),
        first[1],
        output("call_a"),
        **STATELESS,
    )
    found = rejected(scripted_provider, swapped)
    assert (found[0].rule, found[0].message) == (REASONING_FOLLOWED, following(first[0]["id"]))


def required_reasoning(item: dict[str, Any], reasoning_id: str) -> str:
    return (
        f"Item '{item['id']}' of type '{item['type']}' was provided without its required "
        f"'reasoning' item: '{reasoning_id}'."
    )


def test_an_item_with_its_original_id_travels_with_its_reasoning() -> None:
    scripted_provider, items, _ = after_tool_turn(**STATELESS)
    without = stateless_replay([items[1]])
    found = rejected(scripted_provider, without)
    assert [(v.rule, v.message) for v in found] == [
        (REASONING_REQUIRED, required_reasoning(items[1], items[0]["id"]))
    ]
    assert WIRE.render_error(found[0]).json()["error"] == {
        "message": required_reasoning(items[1], items[0]["id"]),
        "type": "invalid_request_error",
        "param": "input",
        "code": None,
    }
    id_less = stateless_replay([{k: v for k, v in items[1].items() if k != "id"}])
    assert rejected(scripted_provider, id_less) == []


def test_a_message_with_its_original_id_travels_with_its_reasoning() -> None:
    scripted_provider = provider(FINAL, scripted("end", {"kind": "text", "text": "x"}))
    items = served_output(scripted_provider, body(user("go"), **STATELESS))["output"]
    assert items[1]["id"].startswith("msg_")
    found = rejected(scripted_provider, body(user("go"), items[1], user("next"), **STATELESS))
    assert messages(found) == [required_reasoning(items[1], items[0]["id"])]


def test_message_before_its_reasoning_breaks_both_directions() -> None:
    scripted_provider = provider(FINAL, scripted("end", {"kind": "text", "text": "x"}))
    items = served_output(scripted_provider, body(user("go"), **STATELESS))["output"]
    reordered = body(user("go"), items[1], items[0], user("next"), **STATELESS)
    assert messages(rejected(scripted_provider, reordered)) == [
        following(items[0]["id"]),
        required_reasoning(items[1], items[0]["id"]),
    ]
    assert rejected(scripted_provider, body(user("go"), *items, user("next"), **STATELESS)) == []


def test_stored_items_are_the_providers_own_business() -> None:
    scripted_provider = provider(
        scripted("max_tokens", {"kind": "reasoning", "signature": "E"}), FINAL
    )
    first = served_output(scripted_provider, body(user("go")))
    assert first["status"] == "incomplete"
    assert rejected(scripted_provider, body(user("go on"), previous_response_id=first["id"])) == []


# ---------------------------------------------------------------- rules: tool pairing (28)


def test_every_output_answers_an_earlier_call() -> None:
    scripted_provider, items, _ = after_tool_turn(**STATELESS)
    orphan = body(user("go"), *items, output("call_a"), output("call_zz"), **STATELESS)
    assert [(v.rule, v.message) for v in rejected(scripted_provider, orphan)] == [
        (CALL_FOR_OUTPUT, "No tool call found for function call output with call_id call_zz.")
    ]
    early = body(user("go"), output("call_a"), *items, **STATELESS)
    found = messages(rejected(scripted_provider, early))
    assert "No tool call found for function call output with call_id call_a." in found


def test_every_call_has_a_later_output() -> None:
    scripted_provider, items, _ = after_tool_turn(**STATELESS)
    unanswered = body(user("go"), *items, user("never mind"), **STATELESS)
    found = rejected(scripted_provider, unanswered)
    assert [(v.rule, v.message) for v in found] == [
        (OUTPUT_FOR_CALL, "No tool output found for function call call_a.")
    ]
    answer = WIRE.render_error(found[0])
    assert answer.status == 400
    assert answer.json()["error"]["param"] == "input"


# ---------------------------------------------------------------- error answers


def test_error_response_is_openai_error_json() -> None:
    violation = ITEM_NOT_FOUND.violation(item_not_found("rs_1"), at="input[1]")
    answer = WIRE.render_error(violation)
    assert answer.status == 404
    assert answer.json() == {
        "error": {
            "message": item_not_found("rs_1"),
            "type": "invalid_request_error",
            "param": "input",
            "code": None,
        }
    }
    assert dict(answer.headers)["x-request-id"].startswith("req_")
    assert WIRE.render_error(violation).body == answer.body
    role = WIRE.render_error(INVALID_ROLE.violation("m", at="input[2].role")).json()["error"]
    assert (role["param"], role["code"]) == ("input[2].role", "invalid_value")


def test_error_response_of_a_provider_rule_names_its_location() -> None:
    answer = WIRE.render_error(MALFORMED_REQUEST.violation("Invalid type for 'input'.", at="input"))
    assert answer.json()["error"] == {
        "message": "Invalid type for 'input'.",
        "type": "invalid_request_error",
        "param": "input",
        "code": None,
    }


def test_violations_come_in_the_order_the_rules_are_declared() -> None:
    scripted_provider, _, _ = after_tool_turn(**STATELESS)
    payload = {
        "input": [
            {"role": "tool", "content": "x"},
            {"type": "reasoning", "id": "rs_zz", "encrypted_content": "NOPE"},
            call("call_q", "call_q"),
            output("call_r"),
        ],
        "previous_response_id": "resp_gone",
        **STATELESS,
    }
    found = rejected(scripted_provider, payload)
    rules = [v.rule for v in found]
    assert rules == sorted(rules, key=WIRE.rules.index)
    assert {
        FIELD_REQUIRED,
        REASONING_SUMMARY,
        INVALID_ROLE,
        ITEM_ID_PREFIX,
        PREVIOUS_RESPONSE_NOT_FOUND,
        ENCRYPTED_CONTENT_VALID,
        CALL_FOR_OUTPUT,
        OUTPUT_FOR_CALL,
    } <= set(rules)
    assert scripted_provider.handle(request(payload)).json()["error"]["message"] == found[0].message


# ---------------------------------------------------------------- ledger hints


def test_ledger_hints() -> None:
    assert WIRE.hints.severity(Reasoning(signature="E")) == "must"
    assert WIRE.hints.companion(Reasoning(signature="E", id="rs_1")) == "rs_1"
    assert WIRE.hints.companion(Reasoning(signature="E", text="")) is None
    assert WIRE.hints.companion(ToolCall(id="call_1", name="read")) == "call_1"
    assert WIRE.hints.sentinels == frozenset()


# ---------------------------------------------------------------- realism


def responses_case(*responses: dict[str, Any], history: Sequence[dict[str, Any]] = ()) -> Case:
    return realism_case("openai-responses", *responses, history=history)


ENCRYPTED = {"kind": "reasoning", "signature": "E", "summary": ["s"]}
SAY = {"kind": "text", "text": "x"}
READ = {"kind": "tool_call", "id": "call_1", "name": "read", "arguments": {}}


def test_clean_cases_have_no_realism_problems() -> None:
    clean = responses_case(
        end({**ENCRYPTED, "id": "rs_1", "signature_chunks": [1, 1]}, READ, stop_="tool_calls"),
        end(ENCRYPTED, SAY, {"kind": "text", "text": "y"}, stop_="refusal"),
        history=[
            {"role": "assistant", "blocks": [ENCRYPTED, SAY]},
            {
                "role": "assistant",
                "blocks": [{"kind": "text", "text": "g", "signature": "G", "origin": "gemini:m"}],
            },
        ],
    )
    assert unrealistic(WIRE, clean) == []
    reasoning_only = responses_case(end(ENCRYPTED, stop_="max_tokens"))
    assert unrealistic(WIRE, reasoning_only) == []
    cut_reasoning = responses_case(end(SAY, {"kind": "reasoning"}, stop_="no_finish"))
    assert unrealistic(WIRE, cut_reasoning) == []
    cut_call = responses_case(end(ENCRYPTED, {**READ, "arguments": '{"a'}, stop_="max_tokens"))
    assert unrealistic(WIRE, cut_call) == []
    unknown_events = responses_case(end(ENCRYPTED, SAY, noise=["unknown-event"]))
    assert unrealistic(WIRE, unknown_events) == []


@pytest.mark.parametrize(
    ("probe", "where", "word"),
    [
        (
            responses_case(end({**ENCRYPTED, "text": "raw"}, SAY)),
            "turns.0.responses.0.blocks.0",
            "text",
        ),
        (
            responses_case(end({"kind": "reasoning", "redacted": True, "data": "D"}, SAY)),
            "turns.0.responses.0.blocks.0",
            "redacted",
        ),
        (
            responses_case(end({**SAY, "signature": "S"})),
            "turns.0.responses.0.blocks.0",
            "signature",
        ),
        (
            responses_case(end({**READ, "signature": "S"}, stop_="tool_calls"), end(SAY)),
            "turns.0.responses.0.blocks.0",
            "signature",
        ),
        (
            responses_case(end({"kind": "media", "mime": "image/png", "data": "x"})),
            "turns.0.responses.0.blocks.0",
            "media",
        ),
        (
            responses_case(end({**ENCRYPTED, "signature_chunks": [1, 1, 1]}, SAY)),
            "turns.0.responses.0.blocks.0",
            "2 pieces",
        ),
        (
            responses_case(end({**ENCRYPTED, "id": "reasoning-1"}, SAY)),
            "turns.0.responses.0.blocks.0",
            "rs_",
        ),
        (
            responses_case(end({"kind": "reasoning", "summary": ["s"]}, SAY)),
            "turns.0.responses.0.blocks.0",
            "encrypted_content",
        ),
        (responses_case(end(SAY, ENCRYPTED)), "turns.0.responses.0.blocks.1", "not followed"),
        (responses_case(end(SAY, stop_="pause")), "turns.0.responses.0", "pause"),
        (responses_case(end(SAY, stop_="cancelled")), "turns.0.responses.0", "cancelled"),
        (responses_case(end(SAY, noise=["ping"])), "turns.0.responses.0", "ping"),
        (
            responses_case(end({**READ, "arguments": '{"a'}, stop_="end")),
            "turns.0.responses.0.blocks.0",
            "unparsed",
        ),
        (
            responses_case(end({**READ, "arguments": '{"a'}, SAY, stop_="max_tokens")),
            "turns.0.responses.0.blocks.0",
            "unparsed",
        ),
        (
            responses_case(
                end(SAY), history=[{"role": "assistant", "blocks": [{**SAY, "signature": "S"}]}]
            ),
            "history.0.blocks.0",
            "signature",
        ),
        (
            responses_case(
                end(SAY), history=[{"role": "assistant", "blocks": [{**ENCRYPTED, "text": "raw"}]}]
            ),
            "history.0.blocks.0",
            "text",
        ),
    ],
)
def test_realism_problem_is_found_and_located(probe: Case, where: str, word: str) -> None:
    problems = unrealistic(WIRE, probe)
    assert len(problems) == 1, problems
    assert problems[0].startswith(where + ": ")
    assert word in problems[0]


# ---------------------------------------------------------------- with the scripted provider


def test_scripted_provider_holds_a_streamed_stateless_tool_loop() -> None:
    scripted_provider = provider()
    first = body(user("go"), stream=True, **STATELESS)
    items, terminal = assemble(read_sse(scripted_provider.handle(request(first))))
    assert terminal[0]["type"] == "response.completed"
    second = {**first, "input": [user("go"), *items, output("call_a")]}
    final_items, _ = assemble(read_sse(scripted_provider.handle(request(second))))
    assert [i["type"] for i in final_items] == ["reasoning", "message"]
    assert [e.served for e in scripted_provider.exchanges] == [0, 1]
    assert scripted_provider.finished
    views = [e.view for e in scripted_provider.exchanges]
    assert all(isinstance(v, ResponsesRequestView) for v in views)
    assert views[1] is not None
    assert views[1].messages[1].blocks[0] == Reasoning(
        signature="ENC-ONE-abcdef", id=items[0]["id"], summary=("Read a first.",)
    )
