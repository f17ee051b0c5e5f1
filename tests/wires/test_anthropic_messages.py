"""The Anthropic Messages wire: render, parse, rules, realism.

Streams are read back with httpx-sse through an httpx transport, the way an independent
client reads them, and reassembled by a small assembler written here from the streaming
doc (not from the wire module).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
import yaml

from conformance._cases.schema import Case
from conformance._provider.scripted import ScriptedProvider
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
from conformance.wires._anthropic_messages import (
    BUDGET_BELOW_MAX_TOKENS,
    FIELD_REQUIRED,
    FINAL_BLOCK_THINKING,
    FORCED_TOOL_CHOICE,
    LATEST_IMMUTABLE,
    LEADING_THINKING,
    MESSAGE_NONEMPTY,
    SIGNATURE_VALID,
    TEXT_NONEMPTY,
    TEXT_NONWHITESPACE,
    THINKING_OFF_FINAL_ASSISTANT,
    THINKING_SIGNATURE_REQUIRED,
    THINKING_TEXT_REQUIRED,
    TOOL_INPUT_OBJECT,
    TOOL_RESULT_MATCHED,
    TOOL_RESULTS_FIRST,
    TOOL_USE_ANSWERED,
    UNKNOWN_BLOCK_TYPE,
    USER_NONEMPTY,
    WIRE,
    AnthropicRequestView,
)
from conformance.wires._registry import get_wire
from conformance.wires.context import RenderContext, ValidationContext
from tests.wires.kit import client_events, end, realism_case, scripted, unrealistic

CASES = Path(__file__).resolve().parents[2] / "cases"

Event = tuple[str, dict[str, Any]]


# ---------------------------------------------------------------- helpers


def render(response: ScriptedResponse, *, stream: bool = True, index: int = 0) -> HttpResponse:
    context = RenderContext(
        index=index, case_id="render-case", model="model-under-test", stream=stream
    )
    return WIRE.render(response, context)


def read_sse(rendered: HttpResponse) -> list[Event]:
    """The events as an httpx client with httpx-sse sees them, flush by flush."""
    return [(e.event, json.loads(e.data)) for e in client_events(rendered, "/v1/messages")]


def events(response: ScriptedResponse) -> list[Event]:
    return read_sse(render(response))


def assemble(stream: Sequence[Event]) -> tuple[list[dict[str, Any]], str | None, bool]:
    """Blocks, stop_reason and whether message_stop came, per the streaming doc: deltas
    concatenate per index, partial_json is parsed at content_block_stop, and every event
    type not named here (ping, anything new) is ignored."""
    blocks: dict[int, dict[str, Any]] = {}
    partial: dict[int, str] = {}
    stop_reason: str | None = None
    finished = False
    for _, data in stream:
        kind = data["type"]
        if kind == "content_block_start":
            blocks[data["index"]] = dict(data["content_block"])
        elif kind == "content_block_delta":
            index, delta = data["index"], data["delta"]
            field = {
                "text_delta": "text",
                "thinking_delta": "thinking",
                "signature_delta": "signature",
            }.get(delta["type"])
            if field is not None:
                blocks[index][field] += delta[field]
            elif delta["type"] == "input_json_delta":
                partial[index] = partial.get(index, "") + delta["partial_json"]
        elif kind == "content_block_stop" and data["index"] in partial:
            blocks[data["index"]]["input"] = json.loads(partial.pop(data["index"]))
        elif kind == "message_delta":
            stop_reason = data["delta"]["stop_reason"]
        elif kind == "message_stop":
            finished = True
    return [blocks[i] for i in sorted(blocks)], stop_reason, finished


def start(index: int, block: dict[str, Any]) -> Event:
    return "content_block_start", {
        "type": "content_block_start",
        "index": index,
        "content_block": block,
    }


def delta(index: int, body: dict[str, Any]) -> Event:
    return "content_block_delta", {"type": "content_block_delta", "index": index, "delta": body}


def stop(index: int) -> Event:
    return "content_block_stop", {"type": "content_block_stop", "index": index}


PING: Event = ("ping", {"type": "ping"})
FUTURE: Event = ("conformance_future_event", {"type": "conformance_future_event"})
THINKING_START = {"type": "thinking", "thinking": "", "signature": ""}
TEXT_START = {"type": "text", "text": ""}


def request(body: Any, headers: dict[str, str] | None = None) -> HttpRequest:
    raw = body if isinstance(body, bytes) else json.dumps(body).encode()
    return HttpRequest("POST", "/v1/messages", raw, headers=headers or {})


def violations(
    payload: dict[str, Any],
    served: Sequence[ScriptedResponse] = (),
    history: Sequence[Message] = (),
    headers: dict[str, str] | None = None,
) -> list[Violation]:
    view = WIRE.parse(request(payload, headers))
    context = ValidationContext(
        number=len(served) + 1, options=Options(), served=tuple(served), history=tuple(history)
    )
    return WIRE.validate(view, context)


def errors(payload: dict[str, Any], **known: Any) -> list[str]:
    return [v.message for v in violations(payload, **known)]


def body(*messages: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {"model": "model-under-test", "max_tokens": 4096, "messages": list(messages), **extra}


def user(content: Any) -> dict[str, Any]:
    return {"role": "user", "content": content}


def assistant(*blocks: dict[str, Any]) -> dict[str, Any]:
    return {"role": "assistant", "content": list(blocks)}


def text(value: str) -> dict[str, Any]:
    return {"type": "text", "text": value}


def thinking(value: str, signature: str) -> dict[str, Any]:
    return {"type": "thinking", "thinking": value, "signature": signature}


def redacted(data: str) -> dict[str, Any]:
    return {"type": "redacted_thinking", "data": data}


def tool_use(call_id: str, arguments: Any = None) -> dict[str, Any]:
    return {"type": "tool_use", "id": call_id, "name": "read", "input": arguments or {}}


def tool_result(call_id: str, content: Any = "ok") -> dict[str, Any]:
    return {"type": "tool_result", "tool_use_id": call_id, "content": content}


MANUAL = {"thinking": {"type": "enabled", "budget_tokens": 2048}}
ADAPTIVE = {"thinking": {"type": "adaptive"}}

#: Two signed episodes interleaved with two tool calls (wire-rules rule 7's case).
EPISODES = scripted(
    "tool_calls",
    {"kind": "reasoning", "text": "one", "signature": "SIG-ONE"},
    {"kind": "tool_call", "id": "toolu_1", "name": "read", "arguments": {"p": 1}},
    {"kind": "reasoning", "text": "two", "signature": "SIG-TWO"},
    {"kind": "tool_call", "id": "toolu_2", "name": "read", "arguments": {"p": 2}},
)
EPISODES_BACK = assistant(
    thinking("one", "SIG-ONE"),
    tool_use("toolu_1", {"p": 1}),
    thinking("two", "SIG-TWO"),
    tool_use("toolu_2", {"p": 2}),
)
RESULTS = user([tool_result("toolu_1"), tool_result("toolu_2")])


def loop(reply: dict[str, Any], **extra: Any) -> dict[str, Any]:
    """A request inside EPISODES' tool loop, with ``reply`` as the assistant message."""
    return body(user("go"), reply, RESULTS, **{**MANUAL, **extra})


# ---------------------------------------------------------------- render: streams


def test_registry_serves_this_wire() -> None:
    assert get_wire("anthropic-messages") is WIRE


def test_thinking_with_signature_streams_thinking_deltas_then_one_signature_delta() -> None:
    stream = events(
        scripted(
            "end",
            {"kind": "reasoning", "text": "Let me think.", "signature": "U0lH", "chunks": [4, 5]},
            {"kind": "text", "text": "Done."},
        )
    )
    assert stream[0][0] == "message_start"
    assert stream[1:-2] == [
        start(0, THINKING_START),
        PING,
        delta(0, {"type": "thinking_delta", "thinking": "Let "}),
        delta(0, {"type": "thinking_delta", "thinking": "me th"}),
        delta(0, {"type": "thinking_delta", "thinking": "ink."}),
        delta(0, {"type": "signature_delta", "signature": "U0lH"}),
        stop(0),
        start(1, TEXT_START),
        delta(1, {"type": "text_delta", "text": "Done."}),
        stop(1),
    ]
    name, message_delta = stream[-2]
    assert name == "message_delta"
    assert message_delta["delta"] == {"stop_reason": "end_turn", "stop_sequence": None}
    assert message_delta["usage"]["output_tokens"] >= 1
    assert stream[-1] == ("message_stop", {"type": "message_stop"})


def test_message_start_carries_an_empty_message() -> None:
    name, data = events(scripted("end", {"kind": "text", "text": "hi"}))[0]
    message = data["message"]
    assert (name, data["type"]) == ("message_start", "message_start")
    assert message["id"].startswith("msg_")
    assert {k: message[k] for k in ("type", "role", "model", "content")} == {
        "type": "message",
        "role": "assistant",
        "model": "model-under-test",
        "content": [],
    }
    assert message["stop_reason"] is None
    assert message["stop_sequence"] is None
    assert set(message["usage"]) == {"input_tokens", "output_tokens"}


def test_signature_only_episode_has_no_thinking_delta() -> None:
    stream = events(
        scripted(
            "tool_calls",
            {"kind": "reasoning", "text": "", "signature": "ONLY-SIG"},
            {"kind": "tool_call", "id": "toolu_a", "name": "read", "arguments": {}},
        )
    )
    assert stream[1:5] == [
        start(0, THINKING_START),
        PING,
        delta(0, {"type": "signature_delta", "signature": "ONLY-SIG"}),
        stop(0),
    ]


def test_split_signature_streams_several_signature_deltas() -> None:
    stream = events(
        scripted(
            "end",
            {"kind": "reasoning", "text": "t", "signature": "ABCDEF", "signature_chunks": [2, 4]},
        )
    )
    assert [d["delta"] for n, d in stream if n == "content_block_delta"] == [
        {"type": "thinking_delta", "thinking": "t"},
        {"type": "signature_delta", "signature": "AB"},
        {"type": "signature_delta", "signature": "CDEF"},
    ]


def test_redacted_thinking_starts_with_its_data_and_has_no_delta() -> None:
    stream = events(
        scripted(
            "end",
            {"kind": "reasoning", "redacted": True, "data": "REDACTED-BLOB"},
            {"kind": "text", "text": "ok"},
        )
    )
    assert stream[1:4] == [
        start(0, {"type": "redacted_thinking", "data": "REDACTED-BLOB"}),
        PING,
        stop(0),
    ]


def test_chunked_text_streams_one_text_delta_per_chunk() -> None:
    stream = events(scripted("end", {"kind": "text", "text": "hello world", "chunks": [5]}))
    assert stream[1:6] == [
        start(0, TEXT_START),
        PING,
        delta(0, {"type": "text_delta", "text": "hello"}),
        delta(0, {"type": "text_delta", "text": " world"}),
        stop(0),
    ]


def test_tool_use_streams_partial_json_that_joins_back_to_the_arguments() -> None:
    arguments = {"path": "alpha.txt", "lines": [1, 2]}
    stream = events(
        scripted(
            "tool_calls",
            {
                "kind": "tool_call",
                "id": "toolu_x",
                "name": "read",
                "arguments": arguments,
                "chunks": [3, 7, 5],
            },
        )
    )
    assert stream[1] == start(0, {"type": "tool_use", "id": "toolu_x", "name": "read", "input": {}})
    pieces = [d["delta"]["partial_json"] for n, d in stream if n == "content_block_delta"]
    assert len(pieces) == 4
    assert json.loads("".join(pieces)) == arguments
    assert stream[-2][1]["delta"]["stop_reason"] == "tool_use"


def test_truncated_tool_call_streams_its_raw_argument_text() -> None:
    stream = events(
        scripted(
            "max_tokens",
            {"kind": "tool_call", "id": "toolu_x", "name": "read", "arguments": '{"path": "al'},
        )
    )
    pieces = [d["delta"]["partial_json"] for n, d in stream if n == "content_block_delta"]
    assert "".join(pieces) == '{"path": "al'
    assert stream[-2][1]["delta"]["stop_reason"] == "max_tokens"


@pytest.mark.parametrize(
    ("stop_", "reason"),
    [
        ("end", "end_turn"),
        ("tool_calls", "tool_use"),
        ("max_tokens", "max_tokens"),
        ("refusal", "refusal"),
        ("pause", "pause_turn"),
    ],
)
def test_stop_maps_to_anthropic_stop_reason(stop_: str, reason: str) -> None:
    blocks = [{"kind": "tool_call", "id": "t", "name": "read", "arguments": {}}]
    response = scripted(
        stop_, *(blocks if stop_ == "tool_calls" else [{"kind": "text", "text": "x"}])
    )
    _, stop_reason, finished = assemble(events(response))
    assert (stop_reason, finished) == (reason, True)
    assert render(response, stream=False).json()["stop_reason"] == reason


@pytest.mark.parametrize("stop_", ["no_finish", "cancelled"])
def test_cut_stream_ends_on_the_last_delta_of_the_last_block(stop_: str) -> None:
    stream = events(
        scripted(
            stop_,
            {"kind": "reasoning", "text": "r", "signature": "S"},
            {"kind": "text", "text": "partial"},
        )
    )
    assert stream[-3:] == [
        stop(0),
        start(1, TEXT_START),
        delta(1, {"type": "text_delta", "text": "partial"}),
    ]
    names = [n for n, _ in stream]
    assert "message_delta" not in names
    assert "message_stop" not in names
    assert stop(1) not in stream


def test_cut_inside_an_unsigned_episode_has_no_signature_delta() -> None:
    stream = events(scripted("no_finish", {"kind": "reasoning", "text": "half a thou"}))
    assert stream[1:] == [
        start(0, THINKING_START),
        PING,
        delta(0, {"type": "thinking_delta", "thinking": "half a thou"}),
    ]


def test_cut_before_any_block_is_message_start_and_ping() -> None:
    assert [n for n, _ in events(scripted("no_finish"))] == ["message_start", "ping"]


def test_noise_goes_between_blocks_round_robin() -> None:
    stream = events(
        scripted(
            "end",
            {"kind": "text", "text": "a"},
            {"kind": "text", "text": "b"},
            {"kind": "text", "text": "c"},
            noise=["ping", "unknown-event", "ping"],
        )
    )
    assert [n for n, _ in stream] == [
        "message_start",
        "content_block_start",
        "ping",
        "content_block_delta",
        "content_block_stop",
        "ping",
        "ping",
        "content_block_start",
        "content_block_delta",
        "content_block_stop",
        "conformance_future_event",
        "content_block_start",
        "content_block_delta",
        "content_block_stop",
        "message_delta",
        "message_stop",
    ]
    assert FUTURE in stream


def test_noise_of_a_one_block_response_follows_the_opening_ping() -> None:
    stream = events(scripted("end", {"kind": "text", "text": "a"}, noise=["unknown-event"]))
    assert stream[1:4] == [start(0, TEXT_START), PING, FUTURE]


def test_each_chunk_is_one_event_and_the_body_is_their_join() -> None:
    rendered = render(EPISODES)
    assert rendered.streaming
    assert rendered.body == b"".join(rendered.chunks)
    for chunk in rendered.chunks:
        assert chunk.endswith(b"\n\n")
        assert chunk.count(b"\ndata: ") == 1
    headers = dict(rendered.headers)
    assert headers["content-type"].startswith("text/event-stream")
    assert headers["request-id"].startswith("req_")


def test_render_is_deterministic_and_ids_depend_on_the_response_index() -> None:
    assert render(EPISODES).body == render(EPISODES).body
    first = render(EPISODES, stream=False).json()["id"]
    assert first == render(EPISODES, stream=False).json()["id"]
    assert first != render(EPISODES, stream=False, index=1).json()["id"]


# ---------------------------------------------------------------- render: JSON


def test_non_streaming_message_is_the_full_json_message() -> None:
    rendered = render(
        scripted(
            "tool_calls",
            {"kind": "reasoning", "text": "plan", "signature": "SIG", "chunks": [1]},
            {"kind": "reasoning", "redacted": True, "data": "BLOB"},
            {"kind": "text", "text": "Reading."},
            {"kind": "tool_call", "id": "toolu_1", "name": "read", "arguments": {"p": "a"}},
        ),
        stream=False,
    )
    message = rendered.json()
    assert rendered.status == 200
    assert dict(rendered.headers)["content-type"] == "application/json"
    assert message["id"].startswith("msg_")
    assert {k: v for k, v in message.items() if k not in ("id", "usage")} == {
        "type": "message",
        "role": "assistant",
        "model": "model-under-test",
        "content": [
            {"type": "thinking", "thinking": "plan", "signature": "SIG"},
            {"type": "redacted_thinking", "data": "BLOB"},
            {"type": "text", "text": "Reading."},
            {"type": "tool_use", "id": "toolu_1", "name": "read", "input": {"p": "a"}},
        ],
        "stop_reason": "tool_use",
        "stop_sequence": None,
    }
    assert set(message["usage"]) == {"input_tokens", "output_tokens"}


def test_non_streaming_truncation_keeps_empty_signature_and_object_input() -> None:
    content = render(
        scripted(
            "max_tokens",
            {"kind": "text", "text": "a"},
            {"kind": "tool_call", "id": "toolu_1", "name": "read", "arguments": '{"p": '},
        ),
        stream=False,
    ).json()["content"]
    assert content[1]["input"] == {}
    unsigned = render(scripted("max_tokens", {"kind": "reasoning", "text": "cut"}), stream=False)
    assert unsigned.json()["content"] == [{"type": "thinking", "thinking": "cut", "signature": ""}]


@pytest.mark.parametrize("stop_", ["no_finish", "cancelled"])
def test_non_streaming_cut_is_an_internal_server_error(stop_: str) -> None:
    rendered = render(scripted(stop_, {"kind": "text", "text": "x"}), stream=False)
    assert rendered.status == 500
    payload = rendered.json()
    assert payload["type"] == "error"
    assert payload["error"] == {"type": "api_error", "message": "Internal server error"}


# ---------------------------------------------------------------- render: round trip

ROUND_TRIPS = [
    scripted(
        "end",
        {"kind": "reasoning", "text": "Consider it.", "signature": "S-1", "chunks": [3, 3]},
        {"kind": "text", "text": "Answer here.", "chunks": [1, 1, 1]},
    ),
    scripted(
        "tool_calls",
        {"kind": "reasoning", "text": "", "signature": "S-ONLY"},
        {
            "kind": "tool_call",
            "id": "toolu_9",
            "name": "read",
            "arguments": {"a": [1, {"b": "é"}]},
            "chunks": [2, 2],
        },
        noise=["ping", "unknown-event"],
    ),
    scripted(
        "end",
        {"kind": "reasoning", "redacted": True, "data": "D-1"},
        {"kind": "reasoning", "text": "after", "signature": "S-2", "signature_chunks": [1, 1]},
        {"kind": "text", "text": "x"},
    ),
    EPISODES,
]


@pytest.mark.parametrize("response", ROUND_TRIPS)
def test_reassembled_stream_parses_back_to_the_scripted_blocks(response: ScriptedResponse) -> None:
    blocks, _, finished = assemble(events(response))
    assert finished
    assert blocks == render(response, stream=False).json()["content"]
    view = WIRE.parse(request(body(user("go"), assistant(*blocks))))
    plain = tuple(
        b.model_copy(update={"chunks": None, "signature_chunks": None})
        if isinstance(b, Reasoning)
        else b.model_copy(update={"chunks": None})
        for b in response.blocks
    )
    assert view.messages[1].blocks == plain


# ---------------------------------------------------------------- parse


def test_serves_only_post_v1_messages() -> None:
    assert WIRE.serves(request(body(user("a"))))
    assert not WIRE.serves(HttpRequest("GET", "/v1/messages"))
    assert not WIRE.serves(HttpRequest("POST", "/v1/messages/count_tokens"))
    assert not WIRE.serves(HttpRequest("POST", "/v1/chat/completions"))


def test_default_endpoint_is_v1_messages_for_every_model() -> None:
    assert WIRE.endpoint("model-under-test", stream=True) == "/v1/messages"
    assert WIRE.endpoint("other-model", stream=False) == "/v1/messages"
    assert WIRE.serves(HttpRequest("POST", WIRE.endpoint("m", stream=False)))


def test_wants_stream_follows_the_stream_flag() -> None:
    streamed = request(body(user("a"), stream=True))
    plain = request(body(user("a")))
    assert WIRE.wants_stream(streamed, WIRE.parse(streamed))
    assert not WIRE.wants_stream(plain, WIRE.parse(plain))


def test_request_fields_in_neutral_form() -> None:
    view = WIRE.parse(
        request(
            body(
                user("hi"),
                system=[text("You are "), {"type": "other"}, text("terse.")],
                tools=[{"name": "read", "input_schema": {}}, {"nameless": True}],
                stream=True,
                **MANUAL,
            ),
            headers={"Anthropic-Beta": "a-beta, interleaved-thinking-2025-05-14"},
        )
    )
    assert view.wire == "anthropic-messages"
    assert (view.model, view.max_tokens, view.stream) == ("model-under-test", 4096, True)
    assert view.system == "You are terse."
    assert view.tools == ("read",)
    assert view.thinking == ThinkingConfig(mode="manual", budget_tokens=2048)
    assert view.raw["messages"] == [user("hi")]
    assert isinstance(view, AnthropicRequestView)
    assert view.betas == ("a-beta", "interleaved-thinking-2025-05-14")


@pytest.mark.parametrize(
    ("config", "expected"),
    [
        (
            {"type": "enabled", "budget_tokens": 1024},
            ThinkingConfig(mode="manual", budget_tokens=1024),
        ),
        ({"type": "adaptive"}, ThinkingConfig(mode="adaptive")),
        ({"type": "disabled"}, ThinkingConfig()),
        (None, ThinkingConfig()),
    ],
)
def test_thinking_config(config: Any, expected: ThinkingConfig) -> None:
    payload = body(user("a")) if config is None else body(user("a"), thinking=config)
    assert WIRE.parse(request(payload)).thinking == expected


def test_string_content_is_one_text_block() -> None:
    view = WIRE.parse(request(body(user("hello"))))
    assert view.messages == (Message(role="user", blocks=(Text(text="hello"),)),)
    assert view.locations == (("messages.0", ("messages.0.content",)),)


def test_list_content_blocks_in_neutral_form() -> None:
    image = {
        "type": "image",
        "source": {"type": "base64", "media_type": "image/png", "data": "iVBO"},
    }
    view = WIRE.parse(
        request(
            body(
                user([text("look"), image]),
                assistant(
                    thinking("hm", "SIG"),
                    redacted("BLOB"),
                    text("ok"),
                    tool_use("toolu_1", {"p": 1}),
                ),
            )
        )
    )
    assert view.messages[0].blocks == (Text(text="look"), Media(mime="image/png", data="iVBO"))
    assert view.messages[1] == Message(
        role="assistant",
        blocks=(
            Reasoning(text="hm", signature="SIG"),
            Reasoning(redacted=True, data="BLOB"),
            Text(text="ok"),
            ToolCall(id="toolu_1", name="read", arguments={"p": 1}),
        ),
    )


def test_tool_results_become_a_tool_message_before_the_user_text() -> None:
    view = WIRE.parse(
        request(
            body(
                user("go"),
                assistant(tool_use("t1"), tool_use("t2")),
                user([tool_result("t1"), tool_result("t2", "bad"), text("and now?")]),
            )
        )
    )
    assert [m.role for m in view.messages] == ["user", "assistant", "tool", "user"]
    assert view.messages[2].blocks == (
        ToolResult(call_id="t1", content="ok"),
        ToolResult(call_id="t2", content="bad"),
    )
    assert view.messages[3].blocks == (Text(text="and now?"),)
    assert view.locations[2:] == (
        ("messages.2", ("messages.2.content.0", "messages.2.content.1")),
        ("messages.2", ("messages.2.content.2",)),
    )
    assert view.where(3, 0) == "messages.2.content.2"


def test_runs_keep_their_order_and_original_block_indices() -> None:
    view = WIRE.parse(
        request(
            body(
                user(
                    [
                        text("a"),
                        tool_result("t1"),
                        {"type": "mystery"},
                        tool_result("t2"),
                        text("b"),
                    ]
                )
            )
        )
    )
    assert [m.role for m in view.messages] == ["user", "tool", "user"]
    assert view.locations == (
        ("messages.0", ("messages.0.content.0",)),
        ("messages.0", ("messages.0.content.1", "messages.0.content.3")),
        ("messages.0", ("messages.0.content.4",)),
    )


def test_tool_result_content_blocks_parse_reasoning_and_tool_calls_too() -> None:
    """Seed §3: a saved child's reasoning and calls inside tool-result content."""
    nested = [
        text("child said"),
        thinking("child thought", "CHILD"),
        tool_use("toolu_c"),
        {"type": "x"},
    ]
    view = WIRE.parse(request(body(user([{**tool_result("t1", nested), "is_error": True}]))))
    assert view.messages[0].blocks == (
        ToolResult(
            call_id="t1",
            content=(
                Text(text="child said"),
                Reasoning(text="child thought", signature="CHILD"),
                ToolCall(id="toolu_c", name="read", arguments={}),
            ),
            is_error=True,
        ),
    )


def test_non_object_tool_input_is_kept_as_its_json_text() -> None:
    view = WIRE.parse(request(body(user("a"), assistant({**tool_use("t"), "input": ["x", 1]}))))
    assert view.messages[1].blocks == (ToolCall(id="t", name="read", arguments='["x",1]'),)


def test_parse_is_lenient_on_missing_keys_and_garbage() -> None:
    view = WIRE.parse(
        request(
            {
                "messages": [
                    "not a message",
                    {"role": "user"},
                    {"role": "robot", "content": "x"},
                    {
                        "role": "assistant",
                        "content": [
                            {"type": "thinking", "thinking": "no signature"},
                            {"type": "thinking", "signature": "no text"},
                            {"type": "tool_use"},
                            {"type": "text"},
                            {"type": "redacted_thinking"},
                            "junk",
                        ],
                    },
                ]
            }
        )
    )
    assert (view.model, view.max_tokens) == (None, None)
    assert view.messages == (
        Message(role="user"),
        Message(
            role="assistant",
            blocks=(
                Reasoning(text="no signature"),
                Reasoning(text="", signature="no text"),
                ToolCall(id="", name="", arguments={}),
                Text(text=""),
                Reasoning(redacted=True),
            ),
        ),
    )
    assert [at for at, _ in view.locations] == ["messages.1", "messages.3"]


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        (
            b"{not json",
            "The request body is not valid JSON: Expecting property name enclosed in double "
            "quotes: line 1 column 2 (char 1)",
        ),
        (b"", "The request body is not valid JSON: Expecting value: line 1 column 1 (char 0)"),
        (b"[1, 2]", "Input should be a valid dictionary"),
        (b'{"model": "m"}', "messages: Field required"),
        (b'{"messages": {"role": "user"}}', "messages: Input should be a valid list"),
    ],
)
def test_unparsable_bodies_raise_request_parse_error(raw: bytes, message: str) -> None:
    with pytest.raises(RequestParseError) as caught:
        WIRE.parse(request(raw))
    assert caught.value.message == message


def test_history_items_are_the_raw_messages() -> None:
    payload = body(user("a"), assistant(text("b")))
    assert WIRE.history_items(WIRE.parse(request(payload))) == payload["messages"]


# ---------------------------------------------------------------- rules: shape


def test_rules_have_stable_ids_refs_and_sources() -> None:
    ids = [rule.id for rule in WIRE.rules]
    assert len(ids) == len(set(ids))
    for rule in WIRE.rules:
        assert rule.id.startswith("anthropic-messages/")
        assert (rule.ref or "").startswith(("rule A", "rules §A"))
        assert rule.statement
        assert rule.source
        assert rule.error


def test_violations_come_in_the_order_the_rules_are_declared() -> None:
    payload = body(
        user([]),
        assistant(text(""), {"type": "hologram"}, {"type": "thinking", "thinking": "t"}),
        user("next"),
        assistant(
            {"type": "thinking", "signature": "FAKE"},
            {**tool_use("t"), "input": "x"},
            text("ok"),
            {"type": "thinking", "thinking": "t", "signature": "FAKE"},
        ),
        max_tokens=1000,
        tool_choice={"type": "any"},
        thinking={"type": "enabled", "budget_tokens": 2000},
    )
    del payload["model"]
    found = list(dict.fromkeys(v.rule for v in violations(payload)))
    assert found == [
        FIELD_REQUIRED,
        UNKNOWN_BLOCK_TYPE,
        THINKING_SIGNATURE_REQUIRED,
        THINKING_TEXT_REQUIRED,
        TOOL_INPUT_OBJECT,
        FORCED_TOOL_CHOICE,
        BUDGET_BELOW_MAX_TOKENS,
        USER_NONEMPTY,
        TEXT_NONEMPTY,
        FINAL_BLOCK_THINKING,
        SIGNATURE_VALID,
    ]
    positions = [WIRE.rules.index(rule) for rule in found]
    assert positions == sorted(positions)


def test_a_valid_tool_loop_breaks_no_rule() -> None:
    assert violations(loop(EPISODES_BACK), served=[EPISODES]) == []


def test_field_required() -> None:
    assert errors(body(user("a"))) == []
    missing = body(user("a"))
    del missing["max_tokens"]
    assert errors(missing) == ["max_tokens: Field required"]
    del missing["model"]
    assert errors(missing) == ["model: Field required", "max_tokens: Field required"]
    assert errors(body({"role": "user"})) == ["messages.0.content: Field required"]
    nameless = {"type": "tool_use", "name": "read", "input": {}}
    found = violations(body(user("a"), assistant(nameless)))
    assert [(v.rule, v.message, v.at) for v in found] == [
        (
            FIELD_REQUIRED,
            "messages.1.content.0.tool_use.id: Field required",
            "messages.1.content.0.tool_use.id",
        )
    ]


def test_unknown_block_type() -> None:
    known = body(
        user([text("see"), {"type": "document", "source": {}}]),
        assistant(
            {"type": "server_tool_use", "id": "srvtoolu_1"},
            {"type": "web_search_tool_result"},
            text("found"),
        ),
    )
    assert errors(known) == []
    found = violations(body(user([text("a"), {"type": "image_url", "image_url": {"url": "x"}}])))
    assert [(v.rule, v.rejects) for v in found] == [(UNKNOWN_BLOCK_TYPE, True)]
    assert found[0].message.startswith(
        "messages.0.content.1: Input tag 'image_url' found using 'type' does not match any of "
        "the expected tags: 'advisor_tool_result', 'bash_code_execution_tool_result', "
    )


@pytest.mark.parametrize("tag", ["output_text", "input_text", "input_image", "file"])
def test_an_openai_content_part_is_refused(tag: str) -> None:
    """A part of the other wires leaked into a Messages request: the tagged-union 400."""
    found = violations(body(user([text("a")]), assistant({"type": tag, "text": "x"})))
    assert [(v.rule, v.evidence, v.rejects) for v in found] == [
        (UNKNOWN_BLOCK_TYPE, "observed", True)
    ]


def test_a_type_the_suite_never_heard_of_is_recorded_and_served() -> None:
    """Anthropic's list grows ahead of the suite's (compaction and tool_addition were real
    200s before the suite knew them), so an unknown type is inferred, never a red cell."""
    found = violations(body(user([text("a"), {"type": "hologram"}])))
    assert [(v.rule, v.evidence, v.rejects) for v in found] == [
        (UNKNOWN_BLOCK_TYPE, "inferred", False)
    ]


#: pydantic/pydantic-ai tests/models/cassettes/test_anthropic/
#: test_anthropic_compaction_round_trip.yaml (commit 4fda389), its one request, answered
#: 200 by claude-sonnet-4-6: a compaction block replayed before the answer's text.
_COMPACTION = json.loads(
    """{"max_tokens": 4096, "model": "claude-sonnet-4-6", "stream": false, "messages": [
    {"role": "user", "content": [{"text": "Hello!", "type": "text"}]},
    {"role": "assistant", "content": [
      {"content": "Summary: user said hello.", "type": "compaction"},
      {"text": "Hello! How can I help?", "type": "text"}]},
    {"role": "user", "content": [{"text": "What did I say earlier?", "type": "text"},
      {"text": "What did I say earlier?", "type": "text"}]}]}"""
)
#: The same corpus, test_anthropic_lazy_advertisement_live.yaml, request 2 (answered 200):
#: a mid-conversation system message announcing a tool by a tool_addition block.
_TOOL_ADDITION: dict[str, Any] = {
    "max_tokens": 4096,
    "model": "claude-sonnet-4-6",
    "messages": [
        user(
            [
                text(
                    "First load the refunds capability. Then call lookup_refund_policy for "
                    "order A-4417. Return only the tool result."
                )
            ]
        ),
        assistant(
            text("I'll load the refunds capability first, then look up the refund policy."),
            {
                "id": "toolu_01GqcuZ6yt7Xcywhp2ru46rB",
                "input": {"id": "refunds"},
                "name": "load_capability",
                "type": "tool_use",
            },
        ),
        user(
            [
                {
                    "content": [{"text": "{}", "type": "text"}],
                    "is_error": False,
                    "tool_use_id": "toolu_01GqcuZ6yt7Xcywhp2ru46rB",
                    "type": "tool_result",
                }
            ]
        ),
        {
            "role": "system",
            "content": [
                {
                    "tool": {"name": "lookup_refund_policy", "type": "tool_reference"},
                    "type": "tool_addition",
                }
            ],
        },
    ],
}


@pytest.mark.parametrize(
    "payload", [_COMPACTION, _TOOL_ADDITION], ids=["compaction", "tool_addition"]
)
def test_documented_block_types_the_api_served_are_accepted(payload: dict[str, Any]) -> None:
    assert violations(payload) == []


def test_blocks_the_neutral_view_has_no_form_for_pass_through() -> None:
    """The view leaves them out (the raw body keeps them) and reads the rest as usual: a
    compaction block beside the answer's text, a system message of a tool_addition."""
    compaction = WIRE.parse(request(_COMPACTION))
    assert compaction.messages[1] == Message(
        role="assistant", blocks=(Text(text="Hello! How can I help?"),)
    )
    assert compaction.raw["messages"][1]["content"][0]["type"] == "compaction"
    addition = WIRE.parse(request(_TOOL_ADDITION))
    assert [m.role for m in addition.messages] == ["user", "assistant", "tool"]


def test_thinking_signature_required() -> None:
    unsigned = {"type": "thinking", "thinking": "one"}
    found = violations(body(user("a"), assistant(unsigned, text("b")), user("c")))
    assert [(v.rule, v.message) for v in found] == [
        (THINKING_SIGNATURE_REQUIRED, "messages.1.content.0.thinking.signature: Field required")
    ]


def test_thinking_text_required_but_empty_text_is_fine() -> None:
    signed_only = scripted(
        "end", {"kind": "reasoning", "text": "", "signature": "S"}, {"kind": "text", "text": "b"}
    )
    kept = body(user("a"), assistant(thinking("", "S"), text("b")), user("c"))
    assert errors(kept, served=[signed_only]) == []
    dropped = body(
        user("a"), assistant({"type": "thinking", "signature": "S"}, text("b")), user("c")
    )
    found = violations(dropped, served=[signed_only])
    assert found[0].rule == THINKING_TEXT_REQUIRED
    assert found[0].message == "messages.1.content.0.thinking.thinking: Field required"


def test_tool_input_object() -> None:
    assert errors(body(user("a"), assistant(tool_use("t", {"a": 1})))) == []
    found = violations(body(user("a"), assistant({**tool_use("t"), "input": '{"a": 1'})))
    assert [(v.rule, v.message) for v in found] == [
        (
            TOOL_INPUT_OBJECT,
            "messages.1.content.0.tool_use.input: Input should be a valid dictionary",
        )
    ]


@pytest.mark.parametrize("choice", [{"type": "any"}, {"type": "tool", "name": "read"}])
def test_forced_tool_choice_with_manual_thinking(choice: dict[str, Any]) -> None:
    found = violations(body(user("a"), tool_choice=choice, **MANUAL))
    assert [(v.rule, v.message) for v in found] == [
        (FORCED_TOOL_CHOICE, "Thinking may not be enabled when tool_choice forces tool use.")
    ]
    assert errors(body(user("a"), tool_choice=choice, **ADAPTIVE)) == []
    assert errors(body(user("a"), tool_choice=choice)) == []


def test_unforced_tool_choice_with_manual_thinking_is_fine() -> None:
    assert errors(body(user("a"), tool_choice={"type": "auto"}, **MANUAL)) == []
    assert errors(body(user("a"), tool_choice={"type": "none"}, **MANUAL)) == []


def test_budget_below_max_tokens() -> None:
    over = body(user("a"), max_tokens=2048, thinking={"type": "enabled", "budget_tokens": 2048})
    found = violations(over)
    assert [(v.rule, v.message) for v in found] == [
        (BUDGET_BELOW_MAX_TOKENS, "`max_tokens` must be greater than `thinking.budget_tokens`")
    ]
    assert errors({**over, "max_tokens": 2049}) == []
    beta = {"anthropic-beta": "interleaved-thinking-2025-05-14"}
    assert errors(over, headers=beta) == [BUDGET_BELOW_MAX_TOKENS.error]
    with_tools = {**over, "tools": [{"name": "read", "input_schema": {"type": "object"}}]}
    assert errors(with_tools, headers=beta) == []
    assert errors(with_tools) == [BUDGET_BELOW_MAX_TOKENS.error]


# ---------------------------------------------------------------- rules: empty content


@pytest.mark.parametrize("empty", [[], ""])
def test_user_message_nonempty(empty: object) -> None:
    assert errors(body(user("a"))) == []
    found = violations(body(user(empty)))
    assert [(v.rule, v.message) for v in found] == [
        (USER_NONEMPTY, "messages.0: user messages must have non-empty content")
    ]


def test_only_a_final_assistant_message_may_be_empty() -> None:
    assert errors(body(user("a"), assistant())) == []
    found = violations(body(user("a"), assistant(), user("b")))
    assert [(v.rule, v.message) for v in found] == [
        (
            MESSAGE_NONEMPTY,
            "messages.1: all messages must have non-empty content except for the optional "
            "final assistant message",
        )
    ]


def test_text_blocks_nonempty_and_not_only_whitespace() -> None:
    assert errors(body(user([text("a")]))) == []
    empty = violations(body(user([text("a")]), assistant(text(""), tool_use("t"))))
    assert [(v.rule, v.message) for v in empty] == [
        (TEXT_NONEMPTY, "messages: text content blocks must be non-empty")
    ]
    blank = violations(body(user([text(" \n\t")])))
    assert [(v.rule, v.message) for v in blank] == [
        (TEXT_NONWHITESPACE, "messages: text content blocks must contain non-whitespace text")
    ]


#: Interaction 2 of simonw/llm-anthropic tests/cassettes/test_anthropic/test_tools.yaml
#: (commit 3ae428f3b5143cc81da25af0271d8fa55bda3f05), answered 200 by claude-haiku-4-5: an
#: assistant turn whose only text is a single space, beside its two tool_use blocks.
_BLANK_BESIDE_TOOL_USE = json.loads(
    """{"max_tokens": 8192, "messages": [
    {"role": "user", "content": [{"type": "text", "text": "Two names for a pet pelican"}]},
    {"role": "assistant", "content": [{"type": "text", "text": " "},
      {"type": "tool_use", "id": "toolu_01LtHJmixrs9NcWQkK8hu8hj",
       "name": "pelican_name_generator", "input": {}},
      {"type": "tool_use", "id": "toolu_01N8a4jWyf116qKTMqKKmjyt",
       "name": "pelican_name_generator", "input": {}}]},
    {"role": "user", "content": [
      {"type": "tool_result", "tool_use_id": "toolu_01LtHJmixrs9NcWQkK8hu8hj",
       "content": "Charles"},
      {"type": "tool_result", "tool_use_id": "toolu_01N8a4jWyf116qKTMqKKmjyt",
       "content": "Sammy"}]}],
    "model": "claude-haiku-4-5-20251001", "temperature": 1.0,
    "tools": [{"name": "pelican_name_generator", "description": "",
               "input_schema": {"properties": {}, "type": "object"}}], "stream": true}"""
)


def test_blank_text_beside_other_content_is_accepted() -> None:
    """Rule 15 as the evidence draws it: the real 200 above, and LibreChat-AI/agents
    PR#124's probe (`[text:' ', text:'real']` accepted); blank text beside thinking and a
    tool_use (what Claude streams) is served too."""
    assert errors(_BLANK_BESIDE_TOOL_USE) == []
    assert errors(body(user([text(" "), text("real")]))) == []
    beside_thinking = assistant(thinking("List it.", "SIG"), text("\n\n"), tool_use("t"))
    found = violations(body(user("a"), beside_thinking, user([tool_result("t")])))
    assert TEXT_NONWHITESPACE not in [v.rule for v in found]


def test_a_message_of_blank_text_alone_is_still_refused() -> None:
    """The probe's refusals (`[text:' ']`, `[text:'\\n']`, anomalyco/opencode#31259's
    `[text:' ']` assistant turn) stay: nothing but whitespace text, in any role."""
    nonwhitespace = "messages: text content blocks must contain non-whitespace text"
    alone = body(user("a"), assistant(text(" ")), user("b"))
    assert [(v.rule, v.message, v.at) for v in violations(alone)] == [
        (TEXT_NONWHITESPACE, nonwhitespace, "messages.1.content.0")
    ]
    several = violations(body(user([text("\n"), text(" \t")])))
    assert [(v.rule, v.at) for v in several] == [(TEXT_NONWHITESPACE, "messages.0.content.0")]
    as_string = violations(body(user("a"), {"role": "assistant", "content": "\n\n"}, user("b")))
    assert [(v.rule, v.at) for v in as_string] == [(TEXT_NONWHITESPACE, "messages.1.content")]
    # The real request above with its tool calls taken out: the blank text is then alone.
    first = _BLANK_BESIDE_TOOL_USE["messages"][0]
    stripped = {**_BLANK_BESIDE_TOOL_USE, "messages": [first, assistant(text(" ")), user("b")]}
    assert errors(stripped) == [nonwhitespace]


def test_an_empty_text_block_is_refused_beside_other_content_too() -> None:
    """Unlike blank text, an empty one is refused wherever it sits: the probes of
    experientiallabs/experiential PR#804 (`[text:'', tool_use]`) and LibreChat-AI/agents
    PR#124 (`[text:'']` anywhere)."""
    beside = violations(body(user("a"), assistant(text(""), text("words")), user("b")))
    assert [v.rule for v in beside] == [TEXT_NONEMPTY]


# ---------------------------------------------------------------- rules: tool pairing


def test_every_tool_use_answered_in_the_next_message() -> None:
    found = violations(
        body(user("go"), assistant(tool_use("toolu_a"), tool_use("toolu_b")), user("?"))
    )
    assert [(v.rule, v.message) for v in found] == [
        (
            TOOL_USE_ANSWERED,
            "messages.1: `tool_use` ids were found without `tool_result` blocks immediately "
            "after: toolu_a, toolu_b. Each `tool_use` block must have a corresponding "
            "`tool_result` block in the next message.",
        )
    ]
    one = body(
        user("go"),
        assistant(tool_use("toolu_a"), tool_use("toolu_b")),
        user([tool_result("toolu_a")]),
    )
    assert errors(one) == [TOOL_USE_ANSWERED.error.format(i=1, ids="toolu_b")]


def test_a_trailing_tool_use_message_is_not_checked() -> None:
    assert errors(body(user("go"), assistant(tool_use("toolu_a")))) == []


def test_results_answered_after_text_are_not_at_the_beginning() -> None:
    late = body(
        user("go"), assistant(tool_use("toolu_a")), user([text("here:"), tool_result("toolu_a")])
    )
    found = violations(late)
    assert [(v.rule, v.message) for v in found] == [
        (
            TOOL_RESULTS_FIRST,
            "messages.2: Did not find 1 `tool_result` block(s) at the beginning of this message. "
            "Messages following `tool_use` blocks must begin with a matching number of "
            "`tool_result` blocks.",
        )
    ]
    first = body(
        user("go"), assistant(tool_use("toolu_a")), user([tool_result("toolu_a"), text("and?")])
    )
    assert errors(first) == []


def test_every_tool_result_answers_a_tool_use_of_the_previous_message() -> None:
    found = violations(body(user([text("hi"), tool_result("toolu_x"), tool_result("toolu_y")])))
    assert [(v.rule, v.message) for v in found] == [
        (
            TOOL_RESULT_MATCHED,
            "messages.0.content.1: unexpected `tool_use_id` found in `tool_result` blocks: "
            "toolu_x, toolu_y. Each `tool_result` block must have a corresponding `tool_use` "
            "block in the previous message.",
        )
    ]
    stray = body(
        user("go"),
        assistant(tool_use("toolu_a")),
        user([tool_result("toolu_a"), tool_result("toolu_z")]),
    )
    assert errors(stray) == [TOOL_RESULT_MATCHED.error.format(i=2, j=1, ids="toolu_z")]


# ---------------------------------------------------------------- rules: thinking position

PLAN = scripted(
    "tool_calls",
    {"kind": "reasoning", "text": "plan", "signature": "SIG-PLAN"},
    {"kind": "text", "text": "Reading."},
    {"kind": "tool_call", "id": "toolu_p", "name": "read", "arguments": {}},
)
PLAN_RESULT = user([tool_result("toolu_p")])


def test_final_block_of_an_assistant_message_is_not_thinking() -> None:
    answered = scripted(
        "end", {"kind": "reasoning", "text": "r", "signature": "S"}, {"kind": "text", "text": "x"}
    )
    assert (
        errors(
            body(user("a"), assistant(thinking("r", "S"), text("x")), user("b")), served=[answered]
        )
        == []
    )
    # an earlier assistant message may end with thinking (router-for-me/CLIProxyAPI#5321)
    earlier = body(user("a"), assistant(text("x"), thinking("r", "S")), user("b"))
    assert FINAL_BLOCK_THINKING not in {v.rule for v in violations(earlier, served=[answered])}
    found = violations(body(user("a"), assistant(text("x"), thinking("r", "S"))), served=[answered])
    assert (
        FINAL_BLOCK_THINKING,
        "messages.1: The final block in an assistant message cannot be `thinking`.",
    ) in [(v.rule, v.message) for v in found]


def test_thinking_off_final_assistant_holds_no_thinking() -> None:
    answered = scripted(
        "end", {"kind": "reasoning", "text": "r", "signature": "S"}, {"kind": "text", "text": "x"}
    )
    prefill = body(user("a"), assistant(thinking("r", "S"), text("x")))
    found = violations(prefill, served=[answered])
    assert [(v.rule, v.message) for v in found] == [
        (
            THINKING_OFF_FINAL_ASSISTANT,
            "messages.1.content.0: When thinking is disabled, an `assistant` message in the "
            "final position cannot contain `thinking`. To use thinking blocks, enable "
            "`thinking` in your request.",
        )
    ]
    assert errors({**prefill, **ADAPTIVE}, served=[answered]) == []
    assert (
        errors(
            body(user("a"), assistant(thinking("r", "S"), text("x")), user("b")), served=[answered]
        )
        == []
    )


def test_leading_thinking_in_the_running_tool_loop() -> None:
    good = body(
        user("go"),
        assistant(thinking("plan", "SIG-PLAN"), text("Reading."), tool_use("toolu_p")),
        PLAN_RESULT,
        **MANUAL,
    )
    assert errors(good, served=[PLAN]) == []
    text_first = {
        **good,
        "messages": [
            user("go"),
            assistant(text("Reading."), thinking("plan", "SIG-PLAN"), tool_use("toolu_p")),
            PLAN_RESULT,
        ],
    }
    found = violations(text_first, served=[PLAN])
    assert [(v.rule, v.message) for v in found] == [
        (
            LEADING_THINKING,
            "messages.1.content.0.type: Expected `thinking` or `redacted_thinking`, but found "
            "`text`. When `thinking` is enabled, a final `assistant` message must start with a "
            "thinking block (preceeding the lastmost set of `tool_use` and `tool_result` "
            "blocks). We recommend you include thinking blocks from previous turns. To avoid "
            "this requirement, disable `thinking`. Please consult our documentation at "
            "https://docs.anthropic.com/en/docs/build-with-claude/extended-thinking",
        )
    ]
    assert errors({**text_first, **ADAPTIVE}, served=[PLAN]) == []


def test_leading_thinking_dropped_from_a_turn_that_had_it() -> None:
    dropped = body(user("go"), assistant(tool_use("toolu_p")), PLAN_RESULT, **MANUAL)
    assert errors(dropped, served=[PLAN]) == [LEADING_THINKING.error.format(i=1, found="tool_use")]


def test_leading_thinking_not_asked_of_a_turn_without_reasoning() -> None:
    bare = scripted(
        "tool_calls",
        {"kind": "text", "text": "Reading."},
        {"kind": "tool_call", "id": "toolu_p", "name": "read", "arguments": {}},
    )
    request_body = body(
        user("go"), assistant(text("Reading."), tool_use("toolu_p")), PLAN_RESULT, **MANUAL
    )
    assert errors(request_body, served=[bare]) == []


def test_leading_thinking_only_inside_the_tool_loop() -> None:
    finished = body(
        user("go"),
        assistant(text("Reading."), thinking("plan", "SIG-PLAN"), tool_use("toolu_p")),
        user([tool_result("toolu_p")]),
        assistant(text("done")),
        user("next"),
        **MANUAL,
    )
    assert LEADING_THINKING.id not in [v.check for v in violations(finished, served=[PLAN])]


# ---------------------------------------------------------------- rules: signatures


def test_signature_valid_only_when_minted_here() -> None:
    served = [
        scripted("end", {"kind": "reasoning", "text": "a", "signature": "SIG-A"}, SAY),
        scripted("end", {"kind": "reasoning", "text": "b", "signature": "SIG-B"}, SAY),
    ]

    def replay(first_signature: str) -> dict[str, Any]:
        return body(
            user("1"),
            assistant(thinking("a", first_signature), text("x")),
            user("2"),
            assistant(thinking("b", "SIG-B"), text("x")),
            user("3"),
        )

    assert errors(replay("SIG-A"), served=served) == []
    for forged in ("FORGED", "SIG-ASIG-B", "SIG-", ""):
        found = violations(replay(forged), served=served)
        assert [(v.rule, v.message, v.at) for v in found] == [
            (
                SIGNATURE_VALID,
                "messages.1.content.0: Invalid `signature` in `thinking` block",
                "messages.1.content.0",
            )
        ]
    assert errors(replay("SIG-A"), served=served[1:]) == [SIGNATURE_VALID.error.format(i=1, j=0)]


def test_saved_history_signatures_count_only_when_minted_by_this_provider() -> None:
    own = Message.model_validate(
        {"role": "assistant", "blocks": [{"kind": "reasoning", "text": "h", "signature": "HIST"}]}
    )
    foreign = Message.model_validate(
        {
            "role": "assistant",
            "blocks": [
                {"kind": "reasoning", "text": "h", "signature": "GEM", "origin": "gemini:m"}
            ],
        }
    )
    replay = body(user("a"), assistant(thinking("h", "HIST"), text("x")), user("b"))
    assert errors(replay, history=[own]) == []
    foreign_replay = body(user("a"), assistant(thinking("h", "GEM"), text("x")), user("b"))
    assert errors(foreign_replay, history=[foreign]) == [SIGNATURE_VALID.error.format(i=1, j=0)]


def test_latest_assistant_reasoning_unmodified() -> None:
    moved = assistant(
        thinking("one", "SIG-ONE"),
        thinking("two", "SIG-TWO"),
        tool_use("toolu_1", {"p": 1}),
        tool_use("toolu_2", {"p": 2}),
    )
    assert errors(loop(moved), served=[EPISODES]) == []


@pytest.mark.parametrize(
    ("reply", "j"),
    [
        # text edited under a known signature
        (
            assistant(
                thinking("ONE", "SIG-ONE"),
                tool_use("toolu_1"),
                thinking("two", "SIG-TWO"),
                tool_use("toolu_2"),
            ),
            0,
        ),
        # both episodes merged under the last signature (lidge-jun/opencodex PR#5140)
        (assistant(thinking("onetwo", "SIG-TWO"), tool_use("toolu_1"), tool_use("toolu_2")), 0),
        # signatures re-paired with the other episode's text
        (
            assistant(
                thinking("one", "SIG-TWO"),
                tool_use("toolu_1"),
                thinking("two", "SIG-ONE"),
                tool_use("toolu_2"),
            ),
            0,
        ),
        # reordered among themselves
        (
            assistant(
                thinking("two", "SIG-TWO"),
                tool_use("toolu_1"),
                thinking("one", "SIG-ONE"),
                tool_use("toolu_2"),
            ),
            0,
        ),
        # the second dropped, the first kept
        (assistant(thinking("one", "SIG-ONE"), tool_use("toolu_1"), tool_use("toolu_2")), 0),
        # the text cleared, the signature kept (Yeachan-Heo/gajae-code#4247)
        (
            assistant(
                thinking("one", "SIG-ONE"),
                tool_use("toolu_1"),
                thinking("", "SIG-TWO"),
                tool_use("toolu_2"),
            ),
            2,
        ),
    ],
)
def test_latest_assistant_reasoning_modified(reply: dict[str, Any], j: int) -> None:
    found = violations(loop(reply), served=[EPISODES])
    assert [(v.rule, v.message) for v in found if v.check != SIGNATURE_VALID.id] == [
        (
            LATEST_IMMUTABLE,
            f"messages.1.content.{j}: `thinking` or `redacted_thinking` blocks in the latest "
            "assistant message cannot be modified. These blocks must remain as they were in "
            "the original response.",
        )
    ]


def test_latest_redacted_data_unmodified() -> None:
    served = scripted(
        "tool_calls",
        {"kind": "reasoning", "redacted": True, "data": "BLOB"},
        {"kind": "tool_call", "id": "toolu_r", "name": "read", "arguments": {}},
    )
    results = user([tool_result("toolu_r")])
    assert (
        errors(
            body(user("go"), assistant(redacted("BLOB"), tool_use("toolu_r")), results, **MANUAL),
            served=[served],
        )
        == []
    )
    changed = body(user("go"), assistant(redacted("BLOB2"), tool_use("toolu_r")), results, **MANUAL)
    assert errors(changed, served=[served]) == [LATEST_IMMUTABLE.error.format(i=1, j=0)]


def test_latest_without_reasoning_and_earlier_messages_are_not_this_rules_business() -> None:
    stripped = body(
        user("go"),
        assistant(tool_use("toolu_1", {"p": 1}), tool_use("toolu_2", {"p": 2})),
        RESULTS,
        **ADAPTIVE,
    )
    assert errors(stripped, served=[EPISODES]) == []
    edited_earlier = body(
        user("go"),
        assistant(
            thinking("ONE", "SIG-ONE"),
            tool_use("toolu_1", {"p": 1}),
            thinking("two", "SIG-TWO"),
            tool_use("toolu_2", {"p": 2}),
        ),
        RESULTS,
        assistant(text("done")),
        user("next"),
        **ADAPTIVE,
    )
    assert LATEST_IMMUTABLE not in [v.rule for v in violations(edited_earlier, served=[EPISODES])]


# ---------------------------------------------------------------- error answers


def test_error_response_is_anthropic_error_json() -> None:
    violation = USER_NONEMPTY.violation("messages.0: user messages must have non-empty content")
    answer = WIRE.render_error(violation)
    payload = answer.json()
    assert answer.status == 400
    assert payload["type"] == "error"
    assert payload["error"] == {"type": "invalid_request_error", "message": violation.message}
    headers = dict(answer.headers)
    assert payload["request_id"] == headers["request-id"]
    assert headers["request-id"].startswith("req_")
    assert WIRE.render_error(violation).body == answer.body


# ---------------------------------------------------------------- realism


def case(*responses: dict[str, Any], history: Sequence[dict[str, Any]] = ()) -> Case:
    return realism_case("anthropic-messages", *responses, history=history)


SIGNED = {"kind": "reasoning", "text": "r", "signature": "U0lH"}
SAY = {"kind": "text", "text": "x"}


def test_clean_cases_have_no_realism_problems() -> None:
    clean = case(
        end(
            SIGNED,
            {"kind": "tool_call", "id": "toolu_t", "name": "read", "arguments": {}},
            stop_="tool_calls",
        ),
        end(
            {"kind": "reasoning", "redacted": True, "data": "REFUQQ=="},
            {"kind": "reasoning", "text": "", "signature": "U0lHMg=="},
            SAY,
        ),
        history=[
            {
                "role": "assistant",
                "blocks": [
                    SIGNED,
                    {"kind": "text", "text": "g", "signature": "G", "origin": "gemini:m"},
                ],
            }
        ],
    )
    assert unrealistic(WIRE, clean) == []
    # Thinking between calls, or followed by text that is not blank, is not last.
    between = case(
        end(
            {"kind": "tool_call", "id": "toolu_t", "name": "read", "arguments": {}},
            SIGNED,
            {"kind": "text", "text": "Next."},
            {"kind": "tool_call", "id": "toolu_u", "name": "read", "arguments": {}},
            stop_="tool_calls",
        ),
        end(SAY),
    )
    assert unrealistic(WIRE, between) == []
    truncated = case(end(SAY, {"kind": "reasoning", "text": "cut"}, stop_="max_tokens"))
    assert unrealistic(WIRE, truncated) == []
    cut_call = case(
        end(
            {"kind": "tool_call", "id": "toolu_t", "name": "read", "arguments": '{"a'},
            stop_="no_finish",
        )
    )
    assert unrealistic(WIRE, cut_call) == []


def test_library_case_is_realistic_on_this_wire() -> None:
    path = CASES / "interleaved-episodes" / "interleaved-two-episodes-one-response.yaml"
    assert unrealistic(WIRE, Case.model_validate(yaml.safe_load(path.read_text()))) == []


@pytest.mark.parametrize(
    ("probe", "where", "word"),
    [
        (
            case(end({"kind": "text", "text": "x", "signature": "U0lH"})),
            "turns.0.responses.0.blocks.0",
            "signature",
        ),
        (
            case(
                end(
                    {
                        "kind": "tool_call",
                        "id": "toolu_t",
                        "name": "read",
                        "arguments": {},
                        "signature": "U0lH",
                    },
                    stop_="tool_calls",
                ),
                end(SAY),
            ),
            "turns.0.responses.0.blocks.0",
            "signature",
        ),
        (
            case(end({"kind": "media", "mime": "image/png", "data": "eA=="})),
            "turns.0.responses.0.blocks.0",
            "media",
        ),
        (case(end({**SIGNED, "id": "rs_1"}, SAY)), "turns.0.responses.0.blocks.0", "id"),
        (case(end({**SIGNED, "summary": ["s"]}, SAY)), "turns.0.responses.0.blocks.0", "summary"),
        (
            case(end({**SIGNED, "signature_chunks": [1, 1]}, SAY)),
            "turns.0.responses.0.blocks.0",
            "signature_delta",
        ),
        (
            case(end({"kind": "reasoning", "text": "r"}, SAY)),
            "turns.0.responses.0.blocks.0",
            "unsigned",
        ),
        (
            # Unsigned thinking after text, not last: a last one would also be thinking
            # that ends an uncut response after its answer (the probe below).
            case(end(SAY, {"kind": "reasoning", "text": "r"}, SAY)),
            "turns.0.responses.0.blocks.1",
            "unsigned",
        ),
        (
            case(end(SAY, SIGNED)),
            "turns.0.responses.0.blocks.1",
            "a complete thinking block after the response's text or calls, last",
        ),
        (
            # Followed by blank text only it is last in substance: a blank text is no
            # answer (and a client drops it, rule 15).
            case(
                end(
                    {"kind": "tool_call", "id": "toolu_t", "name": "read", "arguments": {}},
                    SIGNED,
                    {"kind": "text", "text": " "},
                    stop_="tool_calls",
                ),
                end(SAY),
            ),
            "turns.0.responses.0.blocks.1",
            "a complete thinking block after the response's text or calls, last",
        ),
        (
            case(end({"kind": "reasoning", "redacted": True}, SAY)),
            "turns.0.responses.0.blocks.0",
            "without data",
        ),
        (
            case(
                end(
                    {
                        "kind": "reasoning",
                        "redacted": True,
                        "data": "REFUQQ==",
                        "signature": "U0lH",
                    },
                    SAY,
                )
            ),
            "turns.0.responses.0.blocks.0",
            "only data",
        ),
        (case(end(SAY, stop_="cancelled")), "turns.0.responses.0", "cancelled"),
        (
            case(
                end(
                    {"kind": "tool_call", "id": "toolu_t", "name": "read", "arguments": '{"a'},
                    stop_="end",
                )
            ),
            "turns.0.responses.0.blocks.0",
            "truncated",
        ),
        (
            case(
                end(SAY),
                history=[
                    {
                        "role": "assistant",
                        "blocks": [{"kind": "text", "text": "h", "signature": "U0lH"}],
                    }
                ],
            ),
            "history.0.blocks.0",
            "signature",
        ),
        (
            case(
                end(SAY), history=[{"role": "assistant", "blocks": [{**SIGNED, "summary": ["s"]}]}]
            ),
            "history.0.blocks.0",
            "summary",
        ),
    ],
)
def test_realism_problem_is_found_and_located(probe: Case, where: str, word: str) -> None:
    problems = unrealistic(WIRE, probe)
    assert len(problems) == 1
    assert problems[0].startswith(where + ": ")
    assert word in problems[0]


# ---------------------------------------------------------------- with the scripted provider


def test_scripted_provider_serves_the_library_case_and_rejects_a_merged_replay() -> None:
    path = CASES / "interleaved-episodes" / "interleaved-two-episodes-one-response.yaml"
    library_case = Case.model_validate(yaml.safe_load(path.read_text()))
    provider = ScriptedProvider(library_case, WIRE)
    first = body(user("Read alpha.txt and beta.txt"), stream=True, **MANUAL)
    blocks, stop_reason, _ = assemble(read_sse(provider.handle(request(first))))
    assert stop_reason == "tool_use"
    results = user(
        [tool_result("toolu_alpha", "file contents"), tool_result("toolu_beta", "file contents")]
    )
    merged = [
        {
            "type": "thinking",
            "thinking": blocks[0]["thinking"] + blocks[2]["thinking"],
            "signature": blocks[2]["signature"],
        },
        blocks[1],
        blocks[3],
    ]
    rejected = provider.handle(
        request({**first, "messages": [*first["messages"], assistant(*merged), results]})
    )
    assert rejected.status == 400
    assert rejected.json()["error"]["message"] == LATEST_IMMUTABLE.error.format(i=1, j=0)
    served = provider.handle(
        request({**first, "messages": [*first["messages"], assistant(*blocks), results]})
    )
    assert served.status == 200
    assert [e.served for e in provider.exchanges] == [0, None, 1]
    assert provider.finished
