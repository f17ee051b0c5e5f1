"""The OpenAI Chat Completions wire and its DeepSeek and OpenRouter dialects: render,
parse, rules, realism.

Streams are read back with httpx-sse through an httpx transport, the way an independent
client reads them, and reassembled by a small assembler written here from the streaming
doc and wire-rules rule 31 (not from the wire module): deltas concatenate, tool-call
fragments join by ``index``, ``finish_reason`` comes once, ``[DONE]`` ends the stream.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import pytest

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
from conformance.wires._openai_chat import (
    DEEPSEEK_REASONING_CONTENT,
    DEEPSEEK_TOOL_CALLS_ANSWERED,
    DEEPSEEK_TOOL_MESSAGE_ANSWERS,
    OPENROUTER_ANTHROPIC_SIGNATURE,
    OPENROUTER_GEMINI_DETAILS,
    OPENROUTER_GEMINI_SIGNATURE,
    TOOL_CALL_ID_FOUND,
    TOOL_CALLS_ANSWERED,
    TOOL_MESSAGE_ANSWERS,
    WIRE,
    reasoning_episodes,
    upstream,
)
from conformance.wires._registry import get_wire
from conformance.wires.context import (
    RenderContext,
    RequestView,
    ValidationContext,
)
from tests.wires.kit import client_events, end, realism_case, scripted, unrealistic

MODEL = "model-under-test"
CLAUDE = "anthropic/claude-sonnet-4.5"
GEMINI = "google/gemini-3-pro-preview"


# ---------------------------------------------------------------- helpers


def render(
    response: ScriptedResponse,
    dialect: str | None = None,
    *,
    stream: bool = True,
    index: int = 0,
    model: str = MODEL,
) -> HttpResponse:
    context = RenderContext(
        index=index, case_id="render-case", model=model, stream=stream, dialect=dialect
    )
    return WIRE.render(response, context)


def read_sse(rendered: HttpResponse) -> list[str]:
    """The ``data`` of every event, as an httpx client with httpx-sse sees them."""
    return [event.data for event in client_events(rendered, "/v1/chat/completions")]


def chunks(response: ScriptedResponse, dialect: str | None = None) -> list[dict[str, Any]]:
    """The JSON chunks of a stream (``[DONE]`` left out)."""
    return [json.loads(d) for d in read_sse(render(response, dialect)) if d != "[DONE]"]


def deltas(response: ScriptedResponse, dialect: str | None = None) -> list[dict[str, Any]]:
    return [c["choices"][0]["delta"] for c in chunks(response, dialect) if c["choices"]]


@dataclass
class Assembled:
    """A streamed completion put back together by an independent client."""

    content: str = ""
    reasoning_content: str = ""
    reasoning: str = ""
    details: list[dict[str, Any]] = field(default_factory=list)
    calls: dict[int, dict[str, str]] = field(default_factory=dict)
    finish: list[str] = field(default_factory=list)
    done: bool = False


def assemble(data: Sequence[str]) -> Assembled:
    """Rule 31: fragments join by ``index``; the first fragment of a call brings its id
    and name, later ones append arguments.  Chunks without choices are skipped."""
    out = Assembled()
    for item in data:
        if item == "[DONE]":
            out.done = True
            continue
        for choice in json.loads(item)["choices"]:
            delta = choice["delta"]
            out.content += delta.get("content") or ""
            out.reasoning_content += delta.get("reasoning_content") or ""
            out.reasoning += delta.get("reasoning") or ""
            out.details += delta.get("reasoning_details") or []
            for fragment in delta.get("tool_calls") or []:
                call = out.calls.setdefault(fragment["index"], {"arguments": ""})
                if "id" in fragment:
                    call["id"] = fragment["id"]
                    call["name"] = fragment["function"]["name"]
                call["arguments"] += fragment["function"].get("arguments", "")
            if choice["finish_reason"] is not None:
                out.finish.append(choice["finish_reason"])
    return out


def body(*messages: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {"model": MODEL, "messages": list(messages), **extra}


def request(payload: Any, path: str = "/v1/chat/completions") -> HttpRequest:
    raw = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
    return HttpRequest("POST", path, raw)


def context(
    dialect: str | None = None,
    served: Sequence[ScriptedResponse] = (),
    history: Sequence[Message] = (),
) -> ValidationContext:
    return ValidationContext(
        number=len(served) + 1,
        options=Options(),
        served=tuple(served),
        history=tuple(history),
        dialect=dialect,
    )


def parse(payload: dict[str, Any], dialect: str | None = None) -> RequestView:
    return WIRE.parse(request(payload), context(dialect))


def violations(
    payload: dict[str, Any],
    dialect: str | None = None,
    served: Sequence[ScriptedResponse] = (),
    history: Sequence[Message] = (),
) -> list[Violation]:
    known = context(dialect, served, history)
    return WIRE.validate(WIRE.parse(request(payload), known), known)


def errors(payload: dict[str, Any], dialect: str | None = None, **known: Any) -> list[str]:
    return [v.message for v in violations(payload, dialect, **known)]


def system(text: str) -> dict[str, Any]:
    return {"role": "system", "content": text}


def user(content: Any) -> dict[str, Any]:
    return {"role": "user", "content": content}


def call(call_id: str, arguments: str = "{}", name: str = "read") -> dict[str, Any]:
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": arguments}}


def assistant(content: Any = None, *calls: dict[str, Any], **extra: Any) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": content, **extra}
    if calls:
        message["tool_calls"] = list(calls)
    return message


def tool(call_id: str, content: Any = "ok") -> dict[str, Any]:
    return {"role": "tool", "tool_call_id": call_id, "content": content}


def detail(kind: str, index: int = 0, **fields: Any) -> dict[str, Any]:
    return {"type": f"reasoning.{kind}", **fields, "index": index, "format": "anthropic-claude-v1"}


READ = {"kind": "tool_call", "id": "call_a", "name": "read", "arguments": {"path": "a.txt"}}
SAY = {"kind": "text", "text": "Done."}


# ---------------------------------------------------------------- serving


def test_registry_serves_this_wire_with_its_dialects() -> None:
    wire = get_wire("openai-chat")
    assert wire is WIRE
    assert wire.dialects == ("deepseek", "openrouter", "gemini", "kimi", "ollama")


@pytest.mark.parametrize(
    "path",
    [
        "/v1/chat/completions",
        "/chat/completions",
        "/beta/chat/completions",
        # OpenRouter's real base URL is https://openrouter.ai/api/v1 (pydantic/pydantic-ai
        # tests/models/cassettes/test_openrouter/*.yaml post here)
        "/api/v1/chat/completions",
    ],
)
def test_serves_the_paths_real_clients_post_to(path: str) -> None:
    assert WIRE.serves(HttpRequest("POST", path))


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("GET", "/v1/chat/completions"),
        ("POST", "/v1/responses"),
        ("POST", "/v1/messages"),
        ("POST", "/v1/chat/completions/extra"),
        ("GET", "/api/v1/chat/completions"),
        ("POST", "/api/v2/chat/completions"),
    ],
)
def test_serves_nothing_else(method: str, path: str) -> None:
    assert not WIRE.serves(HttpRequest(method, path))


def test_default_endpoint_is_v1_chat_completions() -> None:
    assert WIRE.endpoint(MODEL, stream=True) == "/v1/chat/completions"
    assert WIRE.endpoint("deepseek-reasoner", stream=False) == "/v1/chat/completions"


def test_wants_stream_follows_the_stream_flag() -> None:
    streamed = request(body(user("a"), stream=True))
    plain = request(body(user("a")))
    assert WIRE.wants_stream(streamed, WIRE.parse(streamed))
    assert not WIRE.wants_stream(plain, WIRE.parse(plain))


# ---------------------------------------------------------------- render: golden streams


def test_plain_golden_stream() -> None:
    response = scripted("end", {"kind": "text", "text": "Hello there", "chunks": [5]})
    stream = chunks(response)
    assert [c["choices"][0] for c in stream] == [
        {
            "index": 0,
            "delta": {"role": "assistant", "content": "", "refusal": None},
            "finish_reason": None,
        },
        {"index": 0, "delta": {"content": "Hello"}, "finish_reason": None},
        {"index": 0, "delta": {"content": " there"}, "finish_reason": None},
        {"index": 0, "delta": {}, "finish_reason": "stop"},
    ]
    first = stream[0]
    assert first["id"].startswith("chatcmpl-")
    assert (first["object"], first["model"]) == ("chat.completion.chunk", MODEL)
    assert len({(c["id"], c["created"]) for c in stream}) == 1
    assert not any("usage" in c for c in stream)  # OpenAI streams usage only when asked
    assert read_sse(render(response))[-1] == "[DONE]"


def test_deepseek_golden_stream_reasoning_content_before_content() -> None:
    response = scripted(
        "tool_calls",
        {"kind": "reasoning", "text": "Need the file.", "chunks": [5]},
        {"kind": "text", "text": "Reading."},
        {**READ, "chunks": [8]},
    )
    assert deltas(response, "deepseek") == [
        {"role": "assistant", "content": None, "reasoning_content": ""},
        {"content": None, "reasoning_content": "Need "},
        {"content": None, "reasoning_content": "the file."},
        {"content": "Reading.", "reasoning_content": None},
        {
            "tool_calls": [
                {
                    "index": 0,
                    "id": "call_a",
                    "type": "function",
                    "function": {"name": "read", "arguments": ""},
                }
            ]
        },
        {"tool_calls": [{"index": 0, "function": {"arguments": '{"path":'}}]},
        {"tool_calls": [{"index": 0, "function": {"arguments": '"a.txt"}'}}]},
        {"content": "", "reasoning_content": None},
    ]


def test_openrouter_golden_stream_signature_in_a_final_signature_only_detail() -> None:
    response = scripted(
        "end", {"kind": "reasoning", "text": "ab", "signature": "SIG", "chunks": [1]}, SAY
    )

    def text_detail(piece: str) -> dict[str, Any]:
        return {
            "type": "reasoning.text",
            "text": piece,
            "index": 0,
            "format": "anthropic-claude-v1",
        }

    role = {"role": "assistant", "content": ""}
    opening = {**text_detail(""), "signature": ""}
    assert deltas(response, "openrouter") == [
        role,
        {**role, "reasoning": None, "reasoning_details": [opening]},
        {**role, "reasoning": "a", "reasoning_details": [text_detail("a")]},
        {**role, "reasoning": "b", "reasoning_details": [text_detail("b")]},
        {
            **role,
            "reasoning": None,
            "reasoning_details": [
                {
                    "type": "reasoning.text",
                    "signature": "SIG",
                    "index": 0,
                    "format": "anthropic-claude-v1",
                }
            ],
        },
        {"role": "assistant", "content": "Done."},
        role,
    ]
    assert chunks(response, "openrouter")[0]["id"].startswith("gen-")


def test_openrouter_episodes_get_their_own_index_and_shapes() -> None:
    response = scripted(
        "tool_calls",
        {"kind": "reasoning", "redacted": True, "data": "BLOB"},
        {"kind": "reasoning", "text": "", "summary": ["Plan.", "Act."], "signature": "S2"},
        READ,
    )
    stream = assemble(read_sse(render(response, "openrouter")))
    assert stream.details == [
        {
            "type": "reasoning.encrypted",
            "data": "BLOB",
            "index": 0,
            "format": "anthropic-claude-v1",
        },
        {
            "type": "reasoning.summary",
            "summary": "Plan.",
            "index": 1,
            "format": "anthropic-claude-v1",
        },
        {
            "type": "reasoning.summary",
            "summary": "Act.",
            "index": 1,
            "format": "anthropic-claude-v1",
        },
        {"type": "reasoning.text", "signature": "S2", "index": 1, "format": "anthropic-claude-v1"},
    ]
    assert stream.reasoning == ""


def test_openrouter_format_follows_the_upstream_of_the_model() -> None:
    response = scripted("end", {"kind": "reasoning", "text": "t", "signature": "S"}, SAY)
    details = assemble(read_sse(render(response, "openrouter", model=GEMINI))).details
    assert {d["format"] for d in details} == {"google-gemini-v1"}
    assert (upstream(GEMINI), upstream(CLAUDE), upstream(MODEL)) == (
        "google",
        "anthropic",
        "anthropic",
    )


def test_plain_openai_renders_no_reasoning() -> None:
    response = scripted("end", {"kind": "reasoning", "text": "hidden"}, SAY)
    stream = assemble(read_sse(render(response)))
    assert (stream.content, stream.reasoning_content, stream.reasoning) == ("Done.", "", "")
    message = render(response, stream=False).json()["choices"][0]["message"]
    assert message == {"role": "assistant", "content": "Done."}


# ---------------------------------------------------------------- render: tool calls


def test_two_parallel_calls_reassemble_by_index() -> None:
    response = scripted(
        "tool_calls",
        {
            "kind": "tool_call",
            "id": "call_1",
            "name": "read",
            "arguments": {"p": "one"},
            "chunks": [2, 3],
        },
        {
            "kind": "tool_call",
            "id": "call_2",
            "name": "list",
            "arguments": {"d": [1, 2]},
            "chunks": [1],
        },
    )
    stream = deltas(response)
    fragments = [f for d in stream for f in d.get("tool_calls", [])]
    assert [f["index"] for f in fragments] == [0, 0, 0, 0, 1, 1, 1]
    assert [("id" in f, "name" in f["function"]) for f in fragments] == [
        (True, True),
        (False, False),
        (False, False),
        (False, False),
        (True, True),
        (False, False),
        (False, False),
    ]
    # An interleaving of the two calls' fragments, as some servers send them, reassembles
    # just the same because every fragment names its index.
    data = read_sse(render(response))
    head, first, second, rest = data[:2], data[2:5], data[5:8], data[8:]
    interleaved = [*head, first[0], second[0], first[1], second[1], first[2], second[2], *rest]
    for order in (data, interleaved):
        calls = assemble(order).calls
        assert calls == {
            0: {"id": "call_1", "name": "read", "arguments": '{"p":"one"}'},
            1: {"id": "call_2", "name": "list", "arguments": '{"d":[1,2]}'},
        }
        assert [json.loads(c["arguments"]) for c in calls.values()] == [
            {"p": "one"},
            {"d": [1, 2]},
        ]


def test_a_router_mislabelled_cut_call_streams_its_raw_arguments() -> None:
    response = scripted(
        "tool_calls",
        {"kind": "tool_call", "id": "call_x", "name": "write", "arguments": '{"path": "/tmp/l'},
    )
    stream = assemble(read_sse(render(response)))
    assert stream.calls[0]["arguments"] == '{"path": "/tmp/l'
    assert stream.finish == ["tool_calls"]


# ---------------------------------------------------------------- render: the end


@pytest.mark.parametrize(
    ("stop_", "reason"),
    [
        ("end", "stop"),
        ("tool_calls", "tool_calls"),
        ("max_tokens", "length"),
        ("refusal", "content_filter"),
    ],
)
@pytest.mark.parametrize("dialect", [None, "deepseek", "openrouter"])
def test_finish_reason_only_on_the_last_chunk_then_done(
    stop_: str, reason: str, dialect: str | None
) -> None:
    blocks = [READ] if stop_ == "tool_calls" else [{"kind": "text", "text": "xy", "chunks": [1]}]
    response = scripted(stop_, *blocks)
    data = read_sse(render(response, dialect))
    assert data[-1] == "[DONE]"
    finishes = [json.loads(d)["choices"][0]["finish_reason"] for d in data[:-1]]
    assert finishes[:-1] == [None] * (len(finishes) - 1)
    assert finishes[-1] == reason
    payload = render(response, dialect, stream=False).json()
    assert payload["choices"][0]["finish_reason"] == reason


@pytest.mark.parametrize("stop_", ["no_finish", "cancelled"])
def test_cut_stream_has_no_finish_chunk_and_no_done(stop_: str) -> None:
    response = scripted(stop_, {"kind": "text", "text": "partial", "chunks": [4]})
    data = read_sse(render(response))
    assert "[DONE]" not in data
    assert [json.loads(d)["choices"][0] for d in data][-2:] == [
        {"index": 0, "delta": {"content": "part"}, "finish_reason": None},
        {"index": 0, "delta": {"content": "ial"}, "finish_reason": None},
    ]
    assert assemble(data).finish == []
    rendered = render(response)
    assert not rendered.body.endswith(b"data: [DONE]\n\n")


def test_cut_inside_a_call_ends_on_its_last_fragment() -> None:
    response = scripted(
        "no_finish",
        {"kind": "tool_call", "id": "call_c", "name": "read", "arguments": '{"pa', "chunks": [2]},
    )
    stream = assemble(read_sse(render(response, "deepseek")))
    assert (stream.calls[0]["arguments"], stream.finish, stream.done) == ('{"pa', [], False)


def test_noise_is_a_keep_alive_comment_or_a_chunk_without_choices() -> None:
    response = scripted(
        "end",
        {"kind": "text", "text": "a"},
        {"kind": "text", "text": "b"},
        noise=["ping", "unknown-event"],
    )
    rendered = render(response, "openrouter")
    assert b": OPENROUTER PROCESSING\n\n" in rendered.chunks
    assert b": keep-alive\n\n" in render(response, "deepseek").chunks
    data = read_sse(rendered)
    assert [json.loads(d)["choices"] for d in data[:-1]].count([]) == 1
    stream = assemble(data)
    assert (stream.content, stream.finish, stream.done) == ("ab", ["stop"], True)


def test_each_flush_is_one_event_and_the_body_is_their_join() -> None:
    rendered = render(scripted("end", SAY, noise=["ping"]))
    assert rendered.streaming
    assert rendered.body == b"".join(rendered.chunks)
    for chunk in rendered.chunks:
        assert chunk.endswith(b"\n\n")
        assert b"event:" not in chunk
    assert dict(rendered.headers)["x-request-id"].startswith("req_")


def test_render_is_deterministic_and_ids_depend_on_the_response_index() -> None:
    response = scripted("end", SAY)
    assert render(response, "deepseek").body == render(response, "deepseek").body
    first = render(response, stream=False).json()["id"]
    assert first == render(response, stream=False).json()["id"]
    assert first != render(response, stream=False, index=1).json()["id"]


# ---------------------------------------------------------------- render: JSON

TURN = scripted(
    "tool_calls",
    {"kind": "reasoning", "text": "plan", "signature": "SIG", "chunks": [1]},
    {"kind": "text", "text": "Reading."},
    READ,
)


def test_non_streaming_completion_plain() -> None:
    rendered = render(TURN, stream=False)
    payload = rendered.json()
    assert rendered.status == 200
    assert dict(rendered.headers)["content-type"] == "application/json"
    assert payload["object"] == "chat.completion"
    assert payload["choices"] == [
        {
            "index": 0,
            "message": {
                "role": "assistant",
                "content": "Reading.",
                "tool_calls": [
                    {
                        "id": "call_a",
                        "type": "function",
                        "function": {"name": "read", "arguments": '{"path":"a.txt"}'},
                    }
                ],
            },
            "finish_reason": "tool_calls",
        }
    ]
    usage = payload["usage"]
    assert usage["total_tokens"] == usage["prompt_tokens"] + usage["completion_tokens"]


def test_non_streaming_deepseek_carries_reasoning_content() -> None:
    response = scripted("tool_calls", {"kind": "reasoning", "text": "plan"}, READ)
    message = render(response, "deepseek", stream=False).json()["choices"][0]["message"]
    assert message["reasoning_content"] == "plan"
    assert message["content"] is None


def test_non_streaming_openrouter_carries_whole_details() -> None:
    message = render(TURN, "openrouter", stream=False).json()["choices"][0]["message"]
    assert message["reasoning"] == "plan"
    assert message["reasoning_details"] == [
        {
            "type": "reasoning.text",
            "text": "plan",
            "signature": "SIG",
            "index": 0,
            "format": "anthropic-claude-v1",
        }
    ]


def test_streamed_and_whole_details_read_back_as_the_same_episodes() -> None:
    streamed = assemble(read_sse(render(TURN, "openrouter"))).details
    whole = render(TURN, "openrouter", stream=False).json()["choices"][0]["message"]
    expected = [(0, Reasoning(text="plan", signature="SIG"))]
    assert reasoning_episodes(streamed) == expected
    assert reasoning_episodes(whole["reasoning_details"]) == expected


@pytest.mark.parametrize("stop_", ["no_finish", "cancelled"])
def test_non_streaming_cut_is_a_server_error(stop_: str) -> None:
    rendered = render(scripted(stop_, SAY), stream=False)
    assert rendered.status == 500
    error = rendered.json()["error"]
    assert (error["type"], error["param"], error["code"]) == ("server_error", None, None)
    assert error["message"].startswith("The server had an error processing your request.")
    assert dict(rendered.headers)["x-request-id"] in error["message"]


# ---------------------------------------------------------------- parse


def test_request_fields_in_neutral_form() -> None:
    view = parse(
        body(
            system("You are terse."),
            {"role": "developer", "content": [{"type": "text", "text": "Be brief."}]},
            user("hi"),
            tools=[{"type": "function", "function": {"name": "read"}}, {"type": "other"}],
            stream=True,
            max_completion_tokens=512,
            reasoning_effort="low",
        )
    )
    assert view.wire == "openai-chat"
    assert (view.model, view.stream, view.max_tokens) == (MODEL, True, 512)
    assert view.system == "You are terse.\n\nBe brief."
    assert view.tools == ("read",)
    assert view.thinking == ThinkingConfig(mode="adaptive")
    assert view.messages == (Message(role="user", blocks=(Text(text="hi"),)),)
    assert view.locations == (("messages.2", ("messages.2.content",)),)


def test_assistant_and_consecutive_tool_messages_in_neutral_form() -> None:
    view = parse(
        body(
            user(
                [
                    {"type": "text", "text": "look"},
                    {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBO"}},
                ]
            ),
            assistant("Reading.", call("call_1", '{"p": 1}'), call("call_2", '{"p": 2')),
            tool("call_1", "one"),
            tool("call_2", [{"type": "text", "text": "two"}]),
            user("next"),
        )
    )
    assert view.messages == (
        Message(role="user", blocks=(Text(text="look"), Media(mime="image/png", data="iVBO"))),
        Message(
            role="assistant",
            blocks=(
                Text(text="Reading."),
                ToolCall(id="call_1", name="read", arguments={"p": 1}),
                ToolCall(id="call_2", name="read", arguments='{"p": 2'),
            ),
        ),
        Message(
            role="tool",
            blocks=(
                ToolResult(call_id="call_1", content="one"),
                ToolResult(call_id="call_2", content=(Text(text="two"),)),
            ),
        ),
        Message(role="user", blocks=(Text(text="next"),)),
    )
    assert view.locations[1:3] == (
        (
            "messages.1",
            ("messages.1.content", "messages.1.tool_calls.0", "messages.1.tool_calls.1"),
        ),
        ("messages.2", ("messages.2", "messages.3")),
    )


def test_plain_openai_leaves_reasoning_fields_out() -> None:
    reply = assistant(
        "x", reasoning_content="r", reasoning="r", reasoning_details=[detail("text", text="r")]
    )
    assert parse(body(user("a"), reply)).messages[1].blocks == (Text(text="x"),)


def test_deepseek_reasoning_content_is_the_first_block() -> None:
    reply = assistant(None, call("call_1"), reasoning_content="Think.")
    view = parse(body(user("a"), reply, thinking={"type": "enabled"}), "deepseek")
    assert view.messages[1].blocks == (
        Reasoning(text="Think."),
        ToolCall(id="call_1", name="read", arguments={}),
    )
    assert view.where(1, 0) == "messages.1.reasoning_content"
    assert view.thinking == ThinkingConfig(mode="adaptive")
    placeholder = parse(body(user("a"), assistant("x", reasoning_content="")), "deepseek")
    # Issue 15: an empty reasoning_content is the same as none (it was a Reasoning block).
    assert placeholder.messages[1].blocks == (Text(text="x"),)
    absent = parse(body(user("a"), assistant("x", reasoning_content=None)), "deepseek")
    assert absent.messages[1].blocks == (Text(text="x"),)


@pytest.mark.parametrize(
    ("extra", "mode"),
    [
        ({"thinking": {"type": "enabled"}}, "adaptive"),
        ({"model": "deepseek-reasoner"}, "adaptive"),
        ({"thinking": {"type": "disabled"}}, "off"),
        ({}, "off"),
    ],
)
def test_deepseek_thinking_mode(extra: dict[str, Any], mode: str) -> None:
    assert parse(body(user("a"), **extra), "deepseek").thinking.mode == mode


@pytest.mark.parametrize(
    ("extra", "expected"),
    [
        ({"reasoning": {"max_tokens": 2000}}, ThinkingConfig(mode="manual", budget_tokens=2000)),
        ({"reasoning": {"effort": "high"}}, ThinkingConfig(mode="adaptive")),
        ({"reasoning": {"enabled": False}}, ThinkingConfig()),
        ({"include_reasoning": True}, ThinkingConfig(mode="adaptive")),
        ({}, ThinkingConfig()),
    ],
)
def test_openrouter_thinking_config(extra: dict[str, Any], expected: ThinkingConfig) -> None:
    assert parse(body(user("a"), **extra), "openrouter").thinking == expected


def test_openrouter_details_merge_by_index_in_order() -> None:
    details = [
        detail("text", text="a"),
        detail("text", text="b"),
        detail("text", signature="S1"),
        {"type": "reasoning.encrypted", "data": "BLOB", "index": 1},
        detail("summary", 2, summary="Plan."),
        detail("text", 3, text="c"),
        {"type": "reasoning.unknown", "index": 4},
    ]
    reply = assistant("ok", call("call_1"), reasoning_details=details)
    view = parse(body(user("a"), reply), "openrouter")
    assert view.messages[1].blocks == (
        Reasoning(text="ab", signature="S1"),
        Reasoning(redacted=True, data="BLOB"),
        Reasoning(summary=("Plan.",)),
        Reasoning(text="c"),
        Text(text="ok"),
        ToolCall(id="call_1", name="read", arguments={}),
    )
    assert view.locations[1][1][:4] == (
        "messages.1.reasoning_details.0",
        "messages.1.reasoning_details.3",
        "messages.1.reasoning_details.4",
        "messages.1.reasoning_details.5",
    )


def test_openrouter_plain_reasoning_string_without_details() -> None:
    view = parse(body(user("a"), assistant("x", reasoning="thought")), "openrouter")
    assert view.messages[1].blocks == (Reasoning(text="thought"), Text(text="x"))


@pytest.mark.parametrize(
    ("payload", "message"),
    [
        (
            b"{not json",
            "We could not parse the JSON body of your request. (HINT: This likely means you "
            "aren't using your HTTP library correctly. The OpenAI API expects a JSON payload, "
            "but what was sent was not valid JSON. If you have trouble figuring out how to fix "
            "this, please contact us through our help center at help.openai.com.)",
        ),
        ({"model": MODEL}, "Missing required parameter: 'messages'."),
        (
            {"model": MODEL, "messages": "hi"},
            "Invalid type for 'messages': expected an array of objects, but got a string instead.",
        ),
    ],
)
def test_parse_errors_use_openai_texts(payload: Any, message: str) -> None:
    with pytest.raises(RequestParseError) as raised:
        WIRE.parse(request(payload))
    assert raised.value.message == message


# ---------------------------------------------------------------- rules: pairing (32)

LOOP = [user("go"), assistant(None, call("call_1"), call("call_2"))]


def test_paired_tool_messages_pass_on_every_dialect() -> None:
    for dialect in (None, "deepseek", "openrouter"):
        answered = body(*LOOP, tool("call_2"), tool("call_1"), user("more"))
        assert errors(answered, dialect) == []


def test_an_assistant_message_ending_the_request_is_not_asked_for_answers() -> None:
    assert errors(body(*LOOP)) == []


def test_unanswered_call_is_rejected_with_openais_text_and_param() -> None:
    found = violations(body(*LOOP, tool("call_1"), user("more")))
    assert [(v.rule, v.message) for v in found] == [
        (
            TOOL_CALLS_ANSWERED,
            "An assistant message with 'tool_calls' must be followed by tool messages "
            "responding to each 'tool_call_id'. The following tool_call_ids did not have "
            "response messages: call_2",
        )
    ]
    error = WIRE.render_error(found[0])
    assert error.status == 400
    assert error.json() == {
        "error": {
            "message": found[0].message,
            "type": "invalid_request_error",
            "param": "messages.[3].role",
            "code": None,
        }
    }


def test_unanswered_calls_when_the_request_ends_in_tool_messages() -> None:
    assert errors(body(*LOOP, tool("call_1"))) == [TOOL_CALLS_ANSWERED.error.format(ids="call_2")]
    assert errors(body(*LOOP, user("skip"))) == [
        TOOL_CALLS_ANSWERED.error.format(ids="call_1, call_2")
    ]


def test_stray_tool_message_is_rejected_with_the_older_openai_text() -> None:
    found = violations(body(user("go"), assistant("hi"), tool("call_9")))
    assert [(v.rule, v.message) for v in found] == [
        (
            TOOL_MESSAGE_ANSWERS,
            "Invalid parameter: messages with role 'tool' must be a response to a preceeding "
            "message with 'tool_calls'.",
        )
    ]
    assert WIRE.render_error(found[0]).json()["error"]["param"] == "messages.[2].role"
    assert errors(body(tool("call_9"), user("go"))) == [TOOL_MESSAGE_ANSWERS.error]


def test_tool_message_for_an_unknown_call_id() -> None:
    found = violations(body(*LOOP, tool("call_1"), tool("call_x"), tool("call_2")))
    assert [(v.rule, v.message) for v in found] == [
        (
            TOOL_CALL_ID_FOUND,
            "Invalid parameter: 'tool_call_id' of 'call_x' not found in 'tool_calls' of "
            "previous message.",
        )
    ]
    assert WIRE.render_error(found[0]).json()["error"]["param"] is None


def test_deepseek_pairing_texts_and_envelope() -> None:
    unanswered = violations(body(*LOOP, tool("call_1"), user("more")), "deepseek")
    assert [(v.rule, v.message) for v in unanswered] == [
        (
            DEEPSEEK_TOOL_CALLS_ANSWERED,
            "An assistant message with 'tool_calls' must be followed by tool messages "
            "responding to each 'tool_call_id'. (insufficient tool messages following "
            "tool_calls message)",
        )
    ]
    assert WIRE.render_error(unanswered[0]).json() == {
        "error": {
            "message": unanswered[0].message,
            "type": "invalid_request_error",
            "param": None,
            "code": "invalid_request_error",
        }
    }
    stray = violations(body(user("go"), tool("call_9")), "deepseek")
    assert [(v.rule, v.message) for v in stray] == [
        (
            DEEPSEEK_TOOL_MESSAGE_ANSWERS,
            "Messages with role 'tool' must be a response to a preceding message with 'tool_calls'",
        )
    ]
    assert errors(body(*LOOP, tool("call_x"), tool("call_1"), tool("call_2")), "deepseek") == []


# ---------------------------------------------------------------- rules: DeepSeek (35, 36)

THINKING = {"thinking": {"type": "enabled"}}
DS_TURN = scripted("tool_calls", {"kind": "reasoning", "text": "Need a.txt."}, READ)


def ds_loop(reply: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return body(user("go"), reply, tool("call_a"), **{**THINKING, **extra})


@pytest.mark.parametrize("value", ["Need a.txt.", "", "something else entirely"])
def test_reasoning_content_key_present_passes_whatever_its_value(value: str) -> None:
    reply = assistant(None, call("call_a"), reasoning_content=value)
    assert errors(ds_loop(reply), "deepseek", served=[DS_TURN]) == []


@pytest.mark.parametrize("extra", [{}, {"reasoning_content": None}])
def test_missing_reasoning_content_on_a_tool_call_turn(extra: dict[str, Any]) -> None:
    payload = body(
        system("s"),
        user("go"),
        assistant(None, call("call_a"), **extra),
        tool("call_a"),
        **THINKING,
    )
    found = violations(payload, "deepseek", served=[DS_TURN])
    assert [(v.rule, v.message, v.at) for v in found] == [
        (
            DEEPSEEK_REASONING_CONTENT,
            "Missing `reasoning_content` field in the assistant message at message index 2. "
            "For more information, please refer to "
            "https://api-docs.deepseek.com/guides/thinking_mode#tool-calls",
            "messages.2.reasoning_content",
        )
    ]
    assert WIRE.render_error(found[0]).json()["error"]["code"] == "invalid_request_error"


def test_every_earlier_tool_call_turn_needs_it_but_not_a_text_turn() -> None:
    payload = body(
        user("go"),
        assistant(None, call("call_a")),
        tool("call_a"),
        assistant("done"),
        user("again"),
        assistant(None, call("call_b"), reasoning_content="r2"),
        tool("call_b"),
        **THINKING,
    )
    assert errors(payload, "deepseek") == [DEEPSEEK_REASONING_CONTENT.error.format(i=1)]


def test_reasoning_content_not_required_outside_thinking_mode() -> None:
    reply = assistant(None, call("call_a"))
    assert errors(body(user("go"), reply, tool("call_a")), "deepseek") == []
    reasoner = body(user("go"), reply, tool("call_a"), model="deepseek-reasoner")
    assert errors(reasoner, "deepseek") == [DEEPSEEK_REASONING_CONTENT.error.format(i=1)]
    assert errors(ds_loop(reply), None) == []
    assert errors(ds_loop(reply), "openrouter") == []


# ---------------------------------------------------------------- rules: OpenRouter (37, 38)

CLAUDE_TURN = scripted(
    "tool_calls",
    {"kind": "reasoning", "text": "ab", "signature": "SIG-A"},
    {**READ, "id": "call_a"},
)
GEMINI_TURN = scripted(
    "tool_calls",
    {"kind": "reasoning", "text": "plan", "signature": "GSIG"},
    {**READ, "id": "call_a"},
)


def or_loop(
    details: list[dict[str, Any]] | None, model: str = CLAUDE, **extra: Any
) -> dict[str, Any]:
    reply = assistant(None, call("call_a"))
    if details is not None:
        reply["reasoning_details"] = details
    return body(system("s"), user("go"), reply, tool("call_a"), model=model, **extra)


SIGNED_DETAILS = [
    detail("text", text="a"),
    detail("text", text="b"),
    detail("text", signature="SIG-A"),
]


@pytest.mark.parametrize(
    "details",
    [
        SIGNED_DETAILS,
        [detail("text", text="ab", signature="SIG-A")],
        None,  # dropped whole: no upstream text known (the ledger reports the loss)
    ],
)
def test_anthropic_route_accepts_verbatim_merged_or_absent_details(
    details: list[dict[str, Any]] | None,
) -> None:
    assert errors(or_loop(details), "openrouter", served=[CLAUDE_TURN]) == []


@pytest.mark.parametrize(
    "details",
    [
        [detail("text", text="ab", signature="SIG-B")],
        [detail("text", text="ab", signature="SIG-")],
        [detail("text", text="a"), detail("text", text="b")],  # ai-sdk-provider#423
    ],
)
def test_anthropic_route_rejects_a_changed_or_dropped_signature(
    details: list[dict[str, Any]],
) -> None:
    found = violations(or_loop(details), "openrouter", served=[CLAUDE_TURN])
    assert [(v.rule, v.message, v.at) for v in found] == [
        (
            OPENROUTER_ANTHROPIC_SIGNATURE,
            "messages.1.content.0: Invalid `signature` in `thinking` block",
            "messages.2.reasoning_details.0",
        )
    ]
    answer = WIRE.render_error(found[0])
    error = answer.json()["error"]
    assert (answer.status, error["message"], error["code"]) == (400, "Provider returned error", 400)
    assert error["metadata"]["provider_name"] == "Anthropic"
    raw = json.loads(error["metadata"]["raw"])
    assert raw["error"] == {"type": "invalid_request_error", "message": found[0].message}


def test_anthropic_route_checks_signatures_of_earlier_turns_too() -> None:
    first = scripted("end", {"kind": "reasoning", "text": "x", "signature": "SIG-0"}, SAY)
    payload = body(
        user("one"),
        assistant("Done.", reasoning_details=[detail("text", text="x", signature="FORGED")]),
        user("two"),
        model=CLAUDE,
    )
    assert errors(payload, "openrouter", served=[first]) == [
        OPENROUTER_ANTHROPIC_SIGNATURE.error.format(i=1, j=0)
    ]
    ok = json.loads(json.dumps(payload).replace("FORGED", "SIG-0"))
    assert errors(ok, "openrouter", served=[first]) == []


def test_anthropic_route_leaves_a_changed_encrypted_blob_to_the_ledger() -> None:
    served = scripted(
        "tool_calls",
        {"kind": "reasoning", "redacted": True, "data": "BLOB"},
        {**READ, "id": "call_a"},
    )
    changed = [{"type": "reasoning.encrypted", "data": "BLOB2", "index": 0}]
    assert errors(or_loop(changed), "openrouter", served=[served]) == []


def test_gemini_route_requires_the_details_of_the_current_turn() -> None:
    found = violations(or_loop(None, GEMINI), "openrouter", served=[GEMINI_TURN])
    message = (
        "Gemini models require OpenRouter reasoning details to be preserved in each request. "
        "Please refer to our docs: https://openrouter.ai/docs/guides/best-practices/"
        "reasoning-tokens#preserving-reasoning-blocks. Upstream error: {\n"
        '  "error": {\n'
        '    "code": 400,\n'
        '    "message": "Function call is missing a thought_signature in functionCall parts. '
        "This is required for tools to work correctly, and missing thought_signature may lead "
        "to degraded model performance. Additional data, function call `default_api:read` , "
        "position 2. Please refer to https://ai.google.dev/gemini-api/docs/thought-signatures "
        'for more details.",\n'
        '    "status": "INVALID_ARGUMENT"\n'
        "  }\n"
        "}\n"
    )
    assert [(v.rule, v.message) for v in found] == [(OPENROUTER_GEMINI_DETAILS, message)]
    error = WIRE.render_error(found[0]).json()["error"]
    assert error["metadata"] == {
        "raw": message,
        "provider_name": "Google AI Studio",
        "is_byok": False,
    }
    kept = [detail("text", text="plan", signature="GSIG")]
    assert errors(or_loop(kept, GEMINI), "openrouter", served=[GEMINI_TURN]) == []


def test_gemini_route_does_not_ask_for_details_of_a_finished_turn() -> None:
    payload = or_loop(None, GEMINI)
    payload["messages"] += [assistant("Done."), user("next")]
    assert errors(payload, "openrouter", served=[GEMINI_TURN]) == []


def test_gemini_route_rejects_a_corrupted_thought_signature() -> None:
    changed = [detail("text", text="plan", signature="GSIG-EDITED")]
    found = violations(or_loop(changed, GEMINI), "openrouter", served=[GEMINI_TURN])
    assert [(v.rule, v.message) for v in found] == [
        (
            OPENROUTER_GEMINI_SIGNATURE,
            '{\n  "error": {\n    "code": 400,\n    "message": "Corrupted thought signature.",'
            '\n    "status": "INVALID_ARGUMENT"\n  }\n}\n',
        )
    ]
    encrypted = [{"type": "reasoning.encrypted", "data": "NOT-MINTED", "index": 0}]
    assert [
        v.rule for v in violations(or_loop(encrypted, GEMINI), "openrouter", served=[GEMINI_TURN])
    ] == [OPENROUTER_GEMINI_SIGNATURE]


def test_plain_and_deepseek_ignore_reasoning_details() -> None:
    forged = [detail("text", text="x", signature="FORGED")]
    for dialect in (None, "deepseek"):
        assert errors(or_loop(forged), dialect, served=[CLAUDE_TURN]) == []


# ---------------------------------------------------------------- realism


def case(
    *responses: dict[str, Any], history: Sequence[dict[str, Any]] = (), model: str = MODEL
) -> Case:
    return realism_case("openai-chat", *responses, history=history, options={"model": model})


CUT_CALL = {"kind": "tool_call", "id": "t", "name": "read", "arguments": '{"a'}


def test_clean_cases_per_dialect() -> None:
    plain = case(end(READ, stop_="tool_calls"), end(SAY))
    assert unrealistic(WIRE, plain) == []
    for stop_ in ("tool_calls", "max_tokens", "no_finish"):
        assert unrealistic(WIRE, case(end(CUT_CALL, stop_=stop_)), "deepseek") == []
    deepseek = case(end({"kind": "reasoning", "text": "r"}, READ, stop_="tool_calls"), end(SAY))
    assert unrealistic(WIRE, deepseek, "deepseek") == []
    openrouter = case(
        end(
            {"kind": "reasoning", "text": "r", "signature": "S"},
            READ,
            {"kind": "reasoning", "redacted": True, "data": "D"},
            stop_="tool_calls",
        ),
        end({"kind": "reasoning", "summary": ["s"]}, SAY),
        end(SAY, {"kind": "reasoning", "text": "cut"}, stop_="max_tokens"),
        history=[
            {"role": "assistant", "blocks": [{"kind": "reasoning", "text": "h", "signature": "H"}]}
        ],
    )
    assert unrealistic(WIRE, openrouter, "openrouter") == []
    unsigned_gemini = case(end({"kind": "reasoning", "text": "summary"}, SAY), model=GEMINI)
    assert unrealistic(WIRE, unsigned_gemini, "openrouter") == []


@pytest.mark.parametrize(
    ("probe", "dialect", "where", "word"),
    [
        (
            case(end({"kind": "reasoning", "text": "r"}, SAY)),
            None,
            "turns.0.responses.0.blocks.0",
            "no reasoning",
        ),
        (
            case(end({"kind": "text", "text": "x", "signature": "S"})),
            "openrouter",
            "turns.0.responses.0.blocks.0",
            "signature",
        ),
        (
            case(end({**READ, "signature": "S"}, stop_="tool_calls"), end(SAY)),
            "deepseek",
            "turns.0.responses.0.blocks.0",
            "signature",
        ),
        (
            case(end({"kind": "media", "mime": "image/png", "data": "x"})),
            None,
            "turns.0.responses.0.blocks.0",
            "media",
        ),
        (case(end(SAY, stop_="pause")), None, "turns.0.responses.0", "pause"),
        (case(end(SAY, stop_="cancelled")), "deepseek", "turns.0.responses.0", "cancelled"),
        (case(end(CUT_CALL)), None, "turns.0.responses.0.blocks.0", "unparsed"),
        (
            case(end({"kind": "reasoning", "text": "r", "signature": "S"}, SAY)),
            "deepseek",
            "turns.0.responses.0.blocks.0",
            "plain text",
        ),
        (
            case(end({"kind": "reasoning", "redacted": True, "data": "D"}, SAY)),
            "deepseek",
            "turns.0.responses.0.blocks.0",
            "plain text",
        ),
        (
            case(end({"kind": "reasoning", "text": ""}, SAY)),
            "deepseek",
            "turns.0.responses.0.blocks.0",
            "empty",
        ),
        (
            case(end(SAY, {"kind": "reasoning", "text": "late"})),
            "deepseek",
            "turns.0.responses.0.blocks.1",
            "first",
        ),
        (
            case(end({"kind": "reasoning", "text": "r"}, SAY)),
            "openrouter",
            "turns.0.responses.0.blocks.0",
            "unsigned",
        ),
        (
            case(
                end(
                    {
                        "kind": "reasoning",
                        "text": "r",
                        "signature": "SS",
                        "signature_chunks": [1, 1],
                    },
                    SAY,
                )
            ),
            "openrouter",
            "turns.0.responses.0.blocks.0",
            "several",
        ),
        (
            case(end({"kind": "reasoning", "redacted": True}, SAY)),
            "openrouter",
            "turns.0.responses.0.blocks.0",
            "without data",
        ),
        (
            case(end({"kind": "reasoning", "redacted": True, "data": "D", "text": "t"}, SAY)),
            "openrouter",
            "turns.0.responses.0.blocks.0",
            "only data",
        ),
        (
            case(end({"kind": "reasoning", "text": "r", "signature": "S", "id": "rs_1"}, SAY)),
            "openrouter",
            "turns.0.responses.0.blocks.0",
            "item id",
        ),
        (
            case(
                end(SAY),
                history=[
                    {
                        "role": "assistant",
                        "blocks": [{"kind": "reasoning", "text": "h", "signature": "S"}],
                    }
                ],
            ),
            "deepseek",
            "history.0.blocks.0",
            "plain text",
        ),
        (
            case(
                end(SAY),
                history=[{"role": "assistant", "blocks": [{"kind": "reasoning", "text": "h"}]}],
            ),
            None,
            "history.0.blocks.0",
            "no reasoning",
        ),
    ],
)
def test_realism_problem_is_found_and_located(
    probe: Case, dialect: str | None, where: str, word: str
) -> None:
    problems = unrealistic(WIRE, probe, dialect)
    assert len(problems) == 1, problems
    assert problems[0].startswith(where + ": ")
    assert word in problems[0]


def test_foreign_history_blocks_are_not_judged() -> None:
    foreign = case(
        end(SAY),
        history=[
            {
                "role": "assistant",
                "blocks": [
                    {
                        "kind": "reasoning",
                        "text": "h",
                        "signature": "S",
                        "origin": "anthropic-messages:m",
                    }
                ],
            }
        ],
    )
    assert unrealistic(WIRE, foreign) == []


# ---------------------------------------------------------------- with the scripted provider


def deepseek_case() -> Case:
    return Case.model_validate(
        {
            "id": "deepseek-probe",
            "title": "DeepSeek tool loop",
            "provenance": [{"rule": 35}],
            "features": ["interleaved-episodes"],
            "wires": {"openai-chat:deepseek": "DeepSeek returns reasoning_content with calls."},
            "given": {
                "tools": [{"name": "read", "result": "file contents"}],
                "turns": [
                    {
                        "user": "Read a.txt",
                        "responses": [
                            {
                                "stop": "tool_calls",
                                "blocks": [
                                    {"kind": "reasoning", "text": "Need a.txt.", "chunks": [4]},
                                    READ,
                                ],
                            },
                            {"stop": "end", "blocks": [SAY]},
                        ],
                    }
                ],
            },
            "expect": [{"requests": 2}],
        }
    )


def test_scripted_provider_rejects_a_replay_without_reasoning_content() -> None:
    provider = ScriptedProvider(deepseek_case(), WIRE, "deepseek")
    first = body(user("Read a.txt"), stream=True, **THINKING)
    stream = assemble(read_sse(provider.handle(request(first, "/chat/completions"))))
    assert (stream.reasoning_content, stream.finish) == ("Need a.txt.", ["tool_calls"])
    reply = assistant(None, call(stream.calls[0]["id"], stream.calls[0]["arguments"]))
    answer = tool(stream.calls[0]["id"], "file contents")
    rejected = provider.handle(request({**first, "messages": [*first["messages"], reply, answer]}))
    assert rejected.status == 400
    assert rejected.json()["error"]["message"] == DEEPSEEK_REASONING_CONTENT.error.format(i=1)
    replay = {**reply, "reasoning_content": stream.reasoning_content}
    served = provider.handle(request({**first, "messages": [*first["messages"], replay, answer]}))
    assert served.status == 200
    assert assemble(read_sse(served)).content == "Done."
    assert [e.served for e in provider.exchanges] == [0, None, 1]
    assert provider.finished
