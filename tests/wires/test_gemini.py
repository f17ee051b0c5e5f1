"""The Gemini wire: render, parse, rules, realism, ledger hints.

Streams are read back with httpx-sse through an httpx transport, the way an independent
client reads them, and reassembled by a small assembler written here from the API
reference (not from the wire module).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import pytest

from conformance._cases.schema import Case
from conformance._checks.ledger import PAIRED, ledger_violations
from conformance._provider.scripted import UNKNOWN_ENDPOINT, ScriptedProvider
from conformance._transcript import Transcript
from conformance.errors import RequestParseError
from conformance.http import HttpRequest, HttpResponse
from conformance.verdict import Violation
from conformance.vocabulary import (
    Block,
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
from conformance.wires._gemini import (
    CALL_TURN_PLACED,
    CONTENTS_REQUIRED,
    PARTS_REQUIRED,
    RESPONSE_COUNT,
    RESPONSE_TURN_PLACED,
    SENTINEL,
    SIGNATURE_BASE64,
    SIGNATURE_MINTED,
    SIGNATURE_NOT_NESTED,
    SIGNATURE_REQUIRED,
    VALID_ROLE,
    WIRE,
    GeminiRequestView,
)
from conformance.wires._registry import get_wire
from conformance.wires._thought_signatures import SENTINELS
from conformance.wires.context import RenderContext, ValidationContext
from tests.wires.kit import client_events, end, realism_case, scripted, unrealistic

STREAM_PATH = "/v1beta/models/model-under-test:streamGenerateContent"
JSON_PATH = "/v1beta/models/model-under-test:generateContent"

#: Standard base64 with ``+`` and ``/``, as Gemini mints: a client that re-encodes shows.
SIG_A = "CiQB+/+/c2lnLWE6aGVsbG8vd29ybGQ="
SIG_B = "Eo4BCosB++++/3NpZy1i"
SIG_T = "CiIBjz1rX+/tdGhvdWdodA=="


# ---------------------------------------------------------------- helpers


def render(
    response: ScriptedResponse,
    *,
    stream: bool = True,
    index: int = 0,
    request: GeminiRequestView | None = None,
) -> HttpResponse:
    context = RenderContext(
        index=index,
        case_id="render-case",
        model="model-under-test",
        stream=stream,
        request=request,
    )
    return WIRE.render(response, context)


def read_sse(rendered: HttpResponse) -> list[dict[str, Any]]:
    """The chunks as an httpx client with httpx-sse sees them, flush by flush."""
    events = client_events(rendered, f"{STREAM_PATH}?alt=sse")
    assert {event.event for event in events} <= {"message"}  # data-only events
    return [json.loads(event.data) for event in events]


def chunks_of(response: ScriptedResponse) -> list[dict[str, Any]]:
    return read_sse(render(response))


def stream_parts(stream: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """Every part of every chunk, in order (a chunk's content may have no parts)."""
    return [p for c in stream for p in c["candidates"][0]["content"].get("parts", [])]


def finish_reasons(stream: Sequence[dict[str, Any]]) -> list[str | None]:
    return [c["candidates"][0].get("finishReason") for c in stream]


def assemble(stream: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """Parts the way a careful client keeps them (rule 43): a text fragment joins the
    part before it when both are text of the same kind and that part is unsigned; a
    signature stays on the part it arrived with; function calls are kept whole."""
    kept: list[dict[str, Any]] = []
    for part in stream_parts(stream):
        last = kept[-1] if kept else None
        if (
            last is not None
            and "text" in part
            and "text" in last
            and last.get("thought") == part.get("thought")
            and "thoughtSignature" not in last
        ):
            last["text"] += part["text"]
            if "thoughtSignature" in part:
                last["thoughtSignature"] = part["thoughtSignature"]
            continue
        kept.append(dict(part))
    return kept


def request(
    body: Any, *, path: str = STREAM_PATH, query: str = "alt=sse", method: str = "POST"
) -> HttpRequest:
    raw = body if isinstance(body, bytes) else json.dumps(body).encode()
    return HttpRequest(method, path, raw, query, {"content-type": "application/json"})


def context(
    served: Sequence[ScriptedResponse] = (), history: Sequence[Message] = ()
) -> ValidationContext:
    return ValidationContext(
        number=len(served) + 1, options=Options(), served=tuple(served), history=tuple(history)
    )


def parse(body: Any, **known: Any) -> GeminiRequestView:
    view = WIRE.parse(request(body), context(**known) if known else None)
    assert isinstance(view, GeminiRequestView)
    return view


def violations(payload: dict[str, Any], **known: Any) -> list[Violation]:
    ctx = context(**known)
    return WIRE.validate(WIRE.parse(request(payload), ctx), ctx)


def errors(payload: dict[str, Any], **known: Any) -> list[str]:
    return [v.message for v in violations(payload, **known)]


def body(*contents: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {"contents": list(contents), **extra}


def user(*parts: Any) -> dict[str, Any]:
    return {"role": "user", "parts": [text(p) if isinstance(p, str) else p for p in parts]}


def model(*parts: dict[str, Any]) -> dict[str, Any]:
    return {"role": "model", "parts": list(parts)}


def text(value: str, signature: str | None = None) -> dict[str, Any]:
    return {"text": value, **({} if signature is None else {"thoughtSignature": signature})}


def thought(value: str, signature: str | None = None) -> dict[str, Any]:
    return {**text(value, signature), "thought": True}


def call(
    name: str = "read",
    args: dict[str, Any] | None = None,
    call_id: str | None = None,
    signature: str | None = None,
) -> dict[str, Any]:
    function = {"name": name, "args": args or {}, **({} if call_id is None else {"id": call_id})}
    signed = {} if signature is None else {"thoughtSignature": signature}
    return {"functionCall": function, **signed}


def answer(name: str = "read", response: Any = None, call_id: str | None = None) -> dict[str, Any]:
    payload = {"result": "ok"} if response is None else response
    named = {} if call_id is None else {"id": call_id}
    return {"functionResponse": {"name": name, "response": payload, **named}}


def missing(name: str, position: int) -> str:
    return SIGNATURE_REQUIRED.error.format(name=name, position=position)


#: A step with two parallel calls, the first signed (rule 41), after signed thoughts.
PARALLEL = scripted(
    "tool_calls",
    {"kind": "reasoning", "text": "plan", "signature": SIG_T},
    {
        "kind": "tool_call",
        "id": "call_a",
        "name": "read",
        "arguments": {"p": "a"},
        "signature": SIG_A,
    },
    {"kind": "tool_call", "id": "call_b", "name": "read", "arguments": {"p": "b"}},
)
PARALLEL_BACK = model(
    thought("plan", SIG_T),
    call("read", {"p": "a"}, "call_a", SIG_A),
    call("read", {"p": "b"}, "call_b"),
)
PARALLEL_ANSWERS = user(answer(call_id="call_a"), answer(call_id="call_b"))
#: A second step of the same turn, signed.
SECOND = scripted(
    "tool_calls",
    {
        "kind": "tool_call",
        "id": "call_c",
        "name": "grep",
        "arguments": {"q": "x"},
        "signature": SIG_B,
    },
)
SECOND_BACK = model(call("grep", {"q": "x"}, "call_c", SIG_B))
SECOND_ANSWER = user(answer("grep", call_id="call_c"))


def loop(*contents: dict[str, Any]) -> dict[str, Any]:
    """A request in the first user turn's tool loop."""
    return body(user("go"), *contents)


# ---------------------------------------------------------------- render: streams


def test_registry_serves_this_wire() -> None:
    assert get_wire("gemini") is WIRE
    assert WIRE.dialects == ()
    assert WIRE.hints.sentinels == SENTINELS


def test_thought_and_text_parts_one_per_chunk_signature_on_the_last_part() -> None:
    stream = chunks_of(
        scripted(
            "end",
            {"kind": "reasoning", "text": "Let me think.", "signature": SIG_T, "chunks": [4, 5]},
            {"kind": "text", "text": "Done.", "chunks": [2]},
        )
    )
    assert stream_parts(stream) == [
        {"text": "Let ", "thought": True},
        {"text": "me th", "thought": True},
        {"text": "ink.", "thought": True, "thoughtSignature": SIG_T},
        {"text": "Do"},
        {"text": "ne."},
    ]
    assert [len(c["candidates"][0]["content"]["parts"]) for c in stream] == [1, 1, 1, 1, 1]
    assert finish_reasons(stream) == [None, None, None, None, "STOP"]
    for chunk in stream:
        assert chunk["candidates"][0]["content"]["role"] == "model"
        assert chunk["candidates"][0]["index"] == 0
        assert chunk["modelVersion"] == "model-under-test"
        assert chunk["responseId"] == stream[0]["responseId"]


def test_signature_that_arrives_alone_is_an_empty_text_part_of_its_own() -> None:
    stream = chunks_of(
        scripted(
            "end",
            {"kind": "text", "text": "Hello", "chunks": [3]},
            {"kind": "text", "text": "", "signature": SIG_A},
        )
    )
    assert stream_parts(stream) == [
        {"text": "Hel"},
        {"text": "lo"},
        {"text": "", "thoughtSignature": SIG_A},
    ]
    assert finish_reasons(stream) == [None, None, "STOP"]


def test_signature_only_thought_is_an_empty_thought_part() -> None:
    stream = chunks_of(
        scripted(
            "tool_calls",
            {"kind": "reasoning", "text": "", "signature": SIG_T},
            {"kind": "tool_call", "id": "call_1", "name": "read", "arguments": {}},
        )
    )
    assert stream_parts(stream)[0] == {"text": "", "thought": True, "thoughtSignature": SIG_T}


def test_parallel_calls_are_whole_parts_and_only_the_first_is_signed() -> None:
    """Without ``id``, as real Gemini sends calls (25 of the 27 calls in pydantic-ai's
    test_google cassettes, e.g. test_google_instructions_only_with_tool_calls.yaml)."""
    stream = chunks_of(PARALLEL)
    assert stream_parts(stream) == [
        {"text": "plan", "thought": True, "thoughtSignature": SIG_T},
        {"functionCall": {"name": "read", "args": {"p": "a"}}, "thoughtSignature": SIG_A},
        {"functionCall": {"name": "read", "args": {"p": "b"}}},
    ]
    assert finish_reasons(stream) == [None, None, "STOP"]


@pytest.mark.parametrize("stream", [True, False])
def test_a_response_may_keep_its_call_ids(stream: bool) -> None:
    """``gemini_call_ids``: the calls as the API sent them in the other two recorded
    answers (test_google_instructions_only_with_tool_calls.yaml, the last one)."""
    named = PARALLEL.model_copy(update={"gemini_call_ids": True})
    rendered = render(named, stream=stream)
    parts = (
        stream_parts(read_sse(rendered))
        if stream
        else rendered.json()["candidates"][0]["content"]["parts"]
    )
    calls = [p["functionCall"] for p in parts if "functionCall" in p]
    assert calls == [
        {"name": "read", "args": {"p": "a"}, "id": "call_a"},
        {"name": "read", "args": {"p": "b"}, "id": "call_b"},
    ]


def test_max_tokens_with_zero_parts_is_one_chunk_with_the_finish_reason() -> None:
    stream = chunks_of(scripted("max_tokens"))
    assert len(stream) == 1
    candidate = stream[0]["candidates"][0]
    assert candidate == {"content": {"role": "model"}, "finishReason": "MAX_TOKENS", "index": 0}
    assert "thoughtsTokenCount" not in stream[0]["usageMetadata"]


def test_max_tokens_drops_the_unfinished_call() -> None:
    stream = chunks_of(
        scripted(
            "max_tokens",
            {"kind": "text", "text": "Reading"},
            {"kind": "tool_call", "id": "call_x", "name": "read", "arguments": '{"p": "al'},
        )
    )
    assert stream_parts(stream) == [{"text": "Reading"}]
    assert finish_reasons(stream) == ["MAX_TOKENS"]


@pytest.mark.parametrize("stop_", ["no_finish", "cancelled"])
def test_cut_stream_has_no_finish_reason_at_all(stop_: str) -> None:
    stream = chunks_of(
        scripted(
            stop_,
            {"kind": "reasoning", "text": "r", "signature": SIG_T},
            {"kind": "text", "text": "partial", "chunks": [4]},
        )
    )
    assert stream_parts(stream) == [
        {"text": "r", "thought": True, "thoughtSignature": SIG_T},
        {"text": "part"},
        {"text": "ial"},
    ]
    assert finish_reasons(stream) == [None, None, None]
    assert render(scripted(stop_)).body == b""


@pytest.mark.parametrize(
    ("stop_", "reason"),
    [("end", "STOP"), ("tool_calls", "STOP"), ("max_tokens", "MAX_TOKENS"), ("refusal", "SAFETY")],
)
def test_stop_maps_to_finish_reason_on_the_last_chunk(stop_: str, reason: str) -> None:
    blocks = (
        [{"kind": "tool_call", "id": "call_1", "name": "read", "arguments": {}}]
        if stop_ == "tool_calls"
        else [{"kind": "text", "text": "xy", "chunks": [1]}]
    )
    response = scripted(stop_, *blocks)
    assert finish_reasons(chunks_of(response))[-1] == reason
    assert set(finish_reasons(chunks_of(response))[:-1]) <= {None}
    assert render(response, stream=False).json()["candidates"][0]["finishReason"] == reason


def test_each_chunk_is_one_data_only_event_and_no_done_line() -> None:
    rendered = render(PARALLEL)
    assert rendered.streaming
    assert rendered.status == 200
    assert rendered.body == b"".join(rendered.chunks)
    for frame in rendered.chunks:
        assert frame.startswith(b"data: {")
        assert frame.endswith(b"\n\n")
        assert frame.count(b"data: ") == 1
    assert b"event:" not in rendered.body
    assert b"[DONE]" not in rendered.body
    assert dict(rendered.headers)["content-type"] == "text/event-stream"


def test_usage_metadata_counts_thoughts_only_when_there_are_some() -> None:
    thinking = chunks_of(PARALLEL)[-1]["usageMetadata"]
    assert thinking["thoughtsTokenCount"] >= 1
    assert thinking["totalTokenCount"] == (
        thinking["promptTokenCount"]
        + thinking["candidatesTokenCount"]
        + thinking["thoughtsTokenCount"]
    )
    plain = chunks_of(scripted("end", {"kind": "text", "text": "hello there"}))[-1]
    assert "thoughtsTokenCount" not in plain["usageMetadata"]
    assert plain["usageMetadata"]["totalTokenCount"] == (
        plain["usageMetadata"]["promptTokenCount"] + plain["usageMetadata"]["candidatesTokenCount"]
    )


def test_render_is_deterministic_and_ids_depend_on_the_response_index() -> None:
    assert render(PARALLEL).body == render(PARALLEL).body
    first = render(PARALLEL, stream=False).json()["responseId"]
    assert first == render(PARALLEL, stream=False).json()["responseId"]
    assert first != render(PARALLEL, stream=False, index=1).json()["responseId"]


def test_media_is_inline_data() -> None:
    stream = chunks_of(scripted("end", {"kind": "media", "mime": "image/png", "data": "iVBO"}))
    assert stream_parts(stream) == [{"inlineData": {"mimeType": "image/png", "data": "iVBO"}}]


def test_stream_without_alt_sse_is_one_json_array() -> None:
    plain = WIRE.parse(request(body(user("go")), query=""))
    assert isinstance(plain, GeminiRequestView)
    assert not plain.sse
    rendered = render(PARALLEL, request=plain)
    assert not rendered.streaming
    assert dict(rendered.headers)["content-type"].startswith("application/json")
    assert rendered.body == b"".join(rendered.chunks)
    assert json.loads(rendered.body) == read_sse(render(PARALLEL))
    cut = render(scripted("no_finish", {"kind": "text", "text": "x"}), request=plain)
    assert cut.body.startswith(b"[")
    with pytest.raises(json.JSONDecodeError):
        json.loads(cut.body)
    assert json.loads(render(scripted("max_tokens"), request=plain).body)[0]["candidates"]


# ---------------------------------------------------------------- render: JSON


def test_non_streaming_response_has_every_part_whole() -> None:
    rendered = render(
        scripted(
            "tool_calls",
            {"kind": "reasoning", "text": "plan it", "signature": SIG_T, "chunks": [1]},
            {"kind": "text", "text": "Reading.", "chunks": [2]},
            {
                "kind": "tool_call",
                "id": "call_1",
                "name": "read",
                "arguments": {"p": "a"},
                "signature": SIG_A,
            },
        ),
        stream=False,
    )
    payload = rendered.json()
    assert rendered.status == 200
    assert dict(rendered.headers)["content-type"] == "application/json"
    assert payload["candidates"] == [
        {
            "content": {
                "parts": [
                    {"text": "plan it", "thought": True, "thoughtSignature": SIG_T},
                    {"text": "Reading."},
                    {
                        "functionCall": {"name": "read", "args": {"p": "a"}},
                        "thoughtSignature": SIG_A,
                    },
                ],
                "role": "model",
            },
            "finishReason": "STOP",
            "index": 0,
        }
    ]
    assert payload["modelVersion"] == "model-under-test"
    assert set(payload["usageMetadata"]) >= {
        "promptTokenCount",
        "candidatesTokenCount",
        "totalTokenCount",
    }


def test_non_streaming_zero_parts_and_truncation() -> None:
    empty = render(scripted("max_tokens"), stream=False).json()["candidates"][0]
    assert empty == {"content": {"role": "model"}, "finishReason": "MAX_TOKENS", "index": 0}
    cut_call = scripted(
        "max_tokens",
        {"kind": "text", "text": "a"},
        {"kind": "tool_call", "id": "call_1", "name": "read", "arguments": '{"p": '},
    )
    parts = render(cut_call, stream=False).json()["candidates"][0]["content"]["parts"]
    assert parts == [{"text": "a"}]


@pytest.mark.parametrize("stop_", ["no_finish", "cancelled"])
def test_non_streaming_cut_is_an_internal_error(stop_: str) -> None:
    rendered = render(scripted(stop_, {"kind": "text", "text": "x"}), stream=False)
    assert rendered.status == 500
    assert rendered.json() == {
        "error": {
            "code": 500,
            "message": "An internal error has occurred. Please retry or report in "
            "https://developers.generativeai.google/guide/troubleshooting",
            "status": "INTERNAL",
        }
    }


# ---------------------------------------------------------------- render: round trip

ROUND_TRIPS = [
    scripted(
        "end",
        {"kind": "reasoning", "text": "Consider it.", "signature": SIG_T, "chunks": [3, 3]},
        {"kind": "text", "text": "Answer here.", "signature": SIG_A, "chunks": [1, 1, 1]},
    ),
    scripted(
        "tool_calls",
        {"kind": "reasoning", "text": "", "signature": SIG_T},
        {
            "kind": "tool_call",
            "id": "call_9",
            "name": "read",
            "arguments": {"a": [1, {"b": "é"}]},
            "signature": SIG_A,
        },
    ),
    PARALLEL,
    scripted(
        "end",
        {"kind": "text", "text": "see", "chunks": [1]},
        {"kind": "media", "mime": "image/png", "data": "iVBORw0K"},
    ),
]


@pytest.mark.parametrize("response", ROUND_TRIPS)
def test_reassembled_stream_parses_back_to_the_scripted_blocks(response: ScriptedResponse) -> None:
    parts = assemble(chunks_of(response))
    assert parts == render(response, stream=False).json()["candidates"][0]["content"]["parts"]
    view = parse(body(user("go"), model(*parts)), served=[response])
    plain = tuple(
        b.model_copy(update={"chunks": None}) if isinstance(b, Reasoning | Text | ToolCall) else b
        for b in response.blocks
    )
    assert view.messages[1].blocks == plain


def test_a_careful_client_may_merge_the_carrier_onto_the_text_it_concluded() -> None:
    """Rule 43: the empty signed part after "Hello" comes back on "Hello" itself."""
    response = scripted(
        "end",
        {"kind": "text", "text": "Hello", "chunks": [3]},
        {"kind": "text", "text": "", "signature": SIG_A},
    )
    parts = assemble(chunks_of(response))
    assert parts == [{"text": "Hello", "thoughtSignature": SIG_A}]
    assert parse(body(user("go"), model(*parts))).messages[1].blocks == (
        Text(text="Hello", signature=SIG_A),
    )


# ---------------------------------------------------------------- parse: serving


@pytest.mark.parametrize("version", ["v1beta", "v1", "v1alpha"])
@pytest.mark.parametrize("method", ["streamGenerateContent", "generateContent"])
def test_serves_both_methods_on_every_api_version(version: str, method: str) -> None:
    assert WIRE.serves(request(b"{}", path=f"/{version}/models/gemini-3-pro:{method}"))


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("GET", STREAM_PATH),
        ("POST", "/v1beta/models/m:countTokens"),
        ("POST", "/v1beta/models/m:streamGenerateContentX"),
        ("POST", "/v2/models/m:generateContent"),
        ("POST", "/v1/messages"),
        ("POST", "/v1beta/models/:generateContent"),
    ],
)
def test_serves_nothing_else(method: str, path: str) -> None:
    assert not WIRE.serves(request(b"{}", path=path, method=method))


def test_an_escaped_colon_in_the_path_is_served() -> None:
    escaped = request(b"{}", path="/v1beta/models/m%3AstreamGenerateContent")
    assert WIRE.serves(escaped)
    assert WIRE.wants_stream(escaped, WIRE.parse(escaped))


def test_default_endpoints() -> None:
    assert WIRE.endpoint("gemini-3-pro", stream=True) == (
        "/v1beta/models/gemini-3-pro:streamGenerateContent?alt=sse"
    )
    assert (
        WIRE.endpoint("gemini-3-pro", stream=False) == "/v1beta/models/gemini-3-pro:generateContent"
    )
    for stream in (True, False):
        path, _, query = WIRE.endpoint("m", stream).partition("?")
        served = request(b"{}", path=path, query=query)
        assert WIRE.serves(served)
        assert WIRE.wants_stream(served, WIRE.parse(served)) is stream


def test_wants_stream_follows_the_path_not_the_body() -> None:
    payload = body(user("a"), stream=False)
    streamed = request(payload)
    plain = request(payload, path=JSON_PATH, query="")
    assert WIRE.wants_stream(streamed, WIRE.parse(streamed))
    assert not WIRE.wants_stream(plain, WIRE.parse(plain))
    assert WIRE.parse(streamed).stream
    assert not WIRE.parse(plain).stream


# ---------------------------------------------------------------- parse: request fields


def test_request_fields_in_neutral_form() -> None:
    view = parse(
        body(
            user("hi"),
            systemInstruction={"parts": [{"text": "You are "}, {"text": "terse."}]},
            tools=[
                {"functionDeclarations": [{"name": "read"}, {"name": "grep"}]},
                {"googleSearch": {}},
            ],
            generationConfig={"maxOutputTokens": 2048, "thinkingConfig": {"thinkingBudget": 1024}},
        )
    )
    assert view.wire == "gemini"
    assert (view.model, view.max_tokens, view.stream, view.sse) == (
        "model-under-test",
        2048,
        True,
        True,
    )
    assert view.system == "You are terse."
    assert view.tools == ("read", "grep")
    assert view.thinking == ThinkingConfig(mode="manual", budget_tokens=1024)
    assert view.raw["contents"] == [user("hi")]


def test_proto_field_names_are_read_too() -> None:
    view = parse(
        {
            "contents": [
                {"role": "user", "parts": [{"text": "go"}]},
                {
                    "role": "model",
                    "parts": [
                        {
                            "function_call": {"name": "read", "args": {}, "id": "c1"},
                            "thought_signature": SIG_A,
                        }
                    ],
                },
            ],
            "system_instruction": {"parts": [{"text": "sys"}]},
            "tools": [{"function_declarations": [{"name": "read"}]}],
            "generation_config": {
                "max_output_tokens": 10,
                "thinking_config": {"include_thoughts": True},
            },
        }
    )
    assert (view.system, view.tools, view.max_tokens) == ("sys", ("read",), 10)
    assert view.thinking == ThinkingConfig(mode="adaptive")
    assert view.messages[1].blocks == (
        ToolCall(id="c1", name="read", arguments={}, signature=SIG_A),
    )


@pytest.mark.parametrize(
    ("config", "expected"),
    [
        (
            {"thinkingBudget": 512, "includeThoughts": True},
            ThinkingConfig(mode="manual", budget_tokens=512),
        ),
        ({"thinkingBudget": -1}, ThinkingConfig(mode="adaptive")),
        ({"thinkingBudget": 0}, ThinkingConfig()),
        ({"thinkingLevel": "low"}, ThinkingConfig(mode="adaptive")),
        ({"includeThoughts": True}, ThinkingConfig(mode="adaptive")),
        ({"includeThoughts": False}, ThinkingConfig()),
        (None, ThinkingConfig()),
    ],
)
def test_thinking_config(config: Any, expected: ThinkingConfig) -> None:
    generation = {} if config is None else {"thinkingConfig": config}
    assert parse(body(user("a"), generationConfig=generation)).thinking == expected


def test_alt_sse_comes_from_the_query() -> None:
    for query, sse in (("alt=sse&key=k", True), ("key=k", False), ("alt=json", False)):
        view = WIRE.parse(request(body(user("a")), query=query))
        assert isinstance(view, GeminiRequestView)
        assert view.sse is sse


# ---------------------------------------------------------------- parse: contents


def test_model_parts_in_neutral_form_and_locations() -> None:
    view = parse(
        body(
            user("look", {"inlineData": {"mimeType": "image/png", "data": "iVBO"}}),
            model(
                thought("hm", SIG_T),
                text("ok"),
                text("", SIG_B),
                call("read", {"p": 1}, "c1", SIG_A),
                {"inlineData": {"mimeType": "image/png", "data": "QUJD"}},
                {"executableCode": {"code": "x"}},
            ),
        )
    )
    assert view.messages[0].blocks == (Text(text="look"), Media(mime="image/png", data="iVBO"))
    assert view.messages[1] == Message(
        role="assistant",
        blocks=(
            Reasoning(text="hm", signature=SIG_T),
            Text(text="ok"),
            Text(text="", signature=SIG_B),
            ToolCall(id="c1", name="read", arguments={"p": 1}, signature=SIG_A),
            Media(mime="image/png", data="QUJD"),
        ),
    )
    assert view.locations[1] == (
        "contents[1]",
        tuple(f"contents[1].parts[{j}]" for j in range(5)),
    )
    assert view.where(1, 3) == "contents[1].parts[3]"


def test_only_thought_true_makes_a_part_reasoning() -> None:
    """Rule 39: a signature alone does not make a part a thought."""
    view = parse(body(user("a"), model(text("x", SIG_A), {"thoughtSignature": SIG_B})))
    assert view.messages[1].blocks == (
        Text(text="x", signature=SIG_A),
        Text(text="", signature=SIG_B),
    )


def without_readings(blocks: tuple[Block, ...]) -> tuple[Block, ...]:
    """The blocks as stored: a result's readings are what the wire reads, no stored field."""
    return tuple(
        b.model_copy(update={"readings": ()}) if isinstance(b, ToolResult) else b for b in blocks
    )


def test_function_responses_pair_by_id_or_by_position() -> None:
    view = parse(
        loop(
            model(call("read", {"p": "a"}, "call_a"), call("grep", {"q": 1}, "call_b")),
            user(answer("read", {"output": "alpha"}), answer("grep", {"x": 1}, call_id="explicit")),
        )
    )
    assert [m.role for m in view.messages] == ["user", "assistant", "tool"]
    assert without_readings(view.messages[2].blocks) == (
        ToolResult(call_id="call_a", content="alpha"),
        ToolResult(call_id="explicit", content='{"x":1}'),
    )


def test_function_response_content_forms() -> None:
    view = parse(
        loop(
            model(call(call_id="c1"), call(call_id="c2"), call(call_id="c3")),
            user(
                answer(response={"result": "r"}),
                answer(response={"error": "denied"}),
                answer(response={"output": ["not", "a string"]}),
            ),
        )
    )
    assert without_readings(view.messages[2].blocks) == (
        ToolResult(call_id="c1", content="r"),
        ToolResult(call_id="c2", content="denied", is_error=True),
        ToolResult(call_id="c3", content='{"output":["not","a string"]}'),
    )


def test_an_error_response_reads_as_its_text_with_the_flag() -> None:
    """Issue 13 (a result per call on Gemini): a failed call's ``{"error": "..."}`` reads
    as that text, flagged, so one expectation on the text holds for a client that sends
    the error form and one that sends the failure as an ordinary output.  Before, the
    error form read as its JSON text and never matched the call's own result."""
    view = parse(
        loop(
            model(call(call_id="c1"), call(call_id="c2")),
            user(answer(response={"error": "ENOENT"}), answer(response={"error": {"code": 2}})),
        )
    )
    assert without_readings(view.messages[2].blocks) == (
        ToolResult(call_id="c1", content="ENOENT", is_error=True),
        ToolResult(call_id="c2", content='{"error":{"code":2}}', is_error=True),
    )


def test_mixed_user_content_splits_into_tool_then_user_in_order() -> None:
    view = parse(loop(model(call(call_id="c1")), user(answer(), "and now?", answer())))
    assert [m.role for m in view.messages] == ["user", "assistant", "tool", "user", "tool"]
    assert view.messages[3].blocks == (Text(text="and now?"),)
    assert view.locations[2:] == (
        ("contents[2]", ("contents[2].parts[0]",)),
        ("contents[2]", ("contents[2].parts[1]",)),
        ("contents[2]", ("contents[2].parts[2]",)),
    )
    first, second = view.messages[2].blocks[0], view.messages[4].blocks[0]
    assert isinstance(first, ToolResult)
    assert isinstance(second, ToolResult)
    assert first.call_id == "c1"
    assert second.call_id.startswith("call_")  # no call at position 1: synthesized


def test_call_ids_are_restored_from_what_was_served() -> None:
    served = [
        scripted(
            "tool_calls",
            {"kind": "tool_call", "id": "call_1", "name": "read", "arguments": {"p": "x"}},
            {"kind": "tool_call", "id": "call_2", "name": "read", "arguments": {"p": "x"}},
            {"kind": "tool_call", "id": "call_3", "name": "grep", "arguments": {}},
        )
    ]
    payload = loop(
        model(call("read", {"p": "x"}), call("read", {"p": "x"}), call("grep", call_id="call_3")),
        user(answer(), answer(), answer("grep")),
    )
    view = parse(payload, served=served)
    assert [b.id for b in view.messages[1].blocks if isinstance(b, ToolCall)] == [
        "call_1",
        "call_2",
        "call_3",
    ]
    assert [b.call_id for b in view.messages[2].blocks if isinstance(b, ToolResult)] == [
        "call_1",
        "call_2",
        "call_3",
    ]


def test_an_explicit_id_is_never_given_twice_and_unmatched_calls_get_stable_ids() -> None:
    served = [
        scripted(
            "tool_calls", {"kind": "tool_call", "id": "call_1", "name": "read", "arguments": {}}
        )
    ]
    payload = loop(model(call(), call(call_id="call_1")), user(answer(), answer()))
    ids = [
        b.id for b in parse(payload, served=served).messages[1].blocks if isinstance(b, ToolCall)
    ]
    assert ids[1] == "call_1"
    assert ids[0] != "call_1"
    assert ids[0].startswith("call_")
    unmatched = [b.id for b in parse(payload).messages[1].blocks if isinstance(b, ToolCall)]
    assert unmatched[0] == ids[0]
    assert unmatched == [b.id for b in parse(payload).messages[1].blocks if isinstance(b, ToolCall)]


def test_call_ids_are_restored_from_the_saved_history_too() -> None:
    saved = Message(role="assistant", blocks=(ToolCall(id="toolu_h", name="read", arguments={}),))
    view = parse(loop(model(call()), user(answer())), history=[saved])
    assert view.messages[1].blocks == (ToolCall(id="toolu_h", name="read", arguments={}),)


def test_parse_is_lenient_on_missing_keys_and_garbage() -> None:
    view = parse(
        {
            "contents": [
                "not a content",
                {"role": "user"},
                {
                    "role": "model",
                    "parts": [
                        "junk",
                        {"functionCall": {}},
                        {"functionCall": {"name": "read", "args": ["x", 1], "id": "c"}},
                        {"thought": True},
                        {"fileData": {"fileUri": "x"}},
                    ],
                },
            ]
        }
    )
    nameless = view.messages[1].blocks[0]
    assert isinstance(nameless, ToolCall)
    assert nameless.id.startswith("call_")
    assert view.messages == (
        Message(role="user"),
        Message(
            role="assistant",
            blocks=(
                ToolCall(id=nameless.id, name="", arguments={}),
                ToolCall(id="c", name="read", arguments='["x",1]'),
                Reasoning(text=""),
            ),
        ),
    )
    assert [at for at, _ in view.locations] == ["contents[1]", "contents[2]"]
    assert (view.model, view.max_tokens, view.system, view.tools) == (
        "model-under-test",
        None,
        None,
        (),
    )


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        (b"{not json", "Invalid JSON payload received. Unexpected token."),
        (b"", "Invalid JSON payload received. Unexpected token."),
        (b'{"contents": [], "x": NaN}', "Invalid JSON payload received. Unexpected token."),
        (
            b"[1, 2]",
            'Invalid JSON payload received. Unknown name "": Root element must be a message.',
        ),
    ],
)
def test_unparsable_bodies_raise_request_parse_error(raw: bytes, message: str) -> None:
    with pytest.raises(RequestParseError) as caught:
        WIRE.parse(request(raw))
    assert caught.value.message == message


def test_history_items_are_the_raw_contents() -> None:
    payload = body(user("a"), model(text("b")))
    assert WIRE.history_items(parse(payload)) == payload["contents"]
    assert WIRE.history_items(parse({"contents": "x"})) == []


# ---------------------------------------------------------------- rules: catalogue


def test_rules_have_stable_ids_refs_and_sources() -> None:
    ids = [rule.id for rule in WIRE.rules]
    assert len(ids) == len(set(ids))
    for rule in WIRE.rules:
        assert rule.id.startswith("gemini/")
        assert (rule.ref or "").startswith(("rule D", "rules §D"))
        assert rule.statement
        assert rule.source
        assert rule.error
        assert rule.status == 400


def test_violations_come_in_the_order_the_rules_are_declared() -> None:
    payload = body(
        {"role": "user", "parts": []},
        {"role": "function", "parts": [text("x", "abc!")]},
        model({"functionCall": {"name": "read", "args": {}, "thoughtSignature": SIG_A}}),
        model(call("read", {"p": "a"}, "call_a")),
        user(answer(), answer(), answer()),
        model(call("read", {"p": "b"}, "call_b", "QUJD")),
        user(answer()),
    )
    found = [v.rule for v in violations(payload, served=[PARALLEL])]
    assert found == [
        PARTS_REQUIRED,
        VALID_ROLE,
        SIGNATURE_NOT_NESTED,
        SIGNATURE_BASE64,
        CALL_TURN_PLACED,
        RESPONSE_COUNT,
        RESPONSE_COUNT,
        SIGNATURE_REQUIRED,
        SIGNATURE_MINTED,
    ]
    positions = [WIRE.rules.index(rule) for rule in found]
    assert positions == sorted(positions)


def test_a_valid_tool_loop_breaks_no_rule() -> None:
    first = loop(PARALLEL_BACK, PARALLEL_ANSWERS)
    assert violations(first, served=[PARALLEL]) == []
    second = loop(PARALLEL_BACK, PARALLEL_ANSWERS, SECOND_BACK, SECOND_ANSWER)
    assert violations(second, served=[PARALLEL, SECOND]) == []


# ---------------------------------------------------------------- rules: shape


@pytest.mark.parametrize("payload", [{}, {"contents": []}, {"contents": {"role": "user"}}])
def test_contents_required(payload: dict[str, Any]) -> None:
    found = violations(payload)
    assert [(v.rule, v.message, v.at) for v in found] == [
        (
            CONTENTS_REQUIRED,
            "* GenerateContentRequest.contents: contents is not specified\n",
            "contents",
        )
    ]
    assert errors(body(user("a"))) == []


@pytest.mark.parametrize("content", [{"role": "model", "parts": []}, {"role": "model"}])
def test_parts_required(content: dict[str, Any]) -> None:
    found = violations(body(user("a"), content, user("b")))
    assert [(v.rule, v.message) for v in found] == [
        (
            PARTS_REQUIRED,
            "* GenerateContentRequest.contents[1].parts: contents.parts must not be empty.\n",
        )
    ]


def test_valid_role() -> None:
    assert errors(body({"parts": [text("no role")]}, model(text("b")), user("c"))) == []
    found = violations(body({"role": "assistant", "parts": [text("x")]}))
    assert [(v.rule, v.message, v.at) for v in found] == [
        (VALID_ROLE, "Please use a valid role: user, model.", "contents[0].role")
    ]


def test_empty_text_parts_are_accepted() -> None:
    """The carrier of rule 43 may come back as its own empty part."""
    carrier = scripted(
        "end", {"kind": "text", "text": "Hi"}, {"kind": "text", "text": "", "signature": SIG_A}
    )
    assert (
        errors(body(user("a"), model(text("Hi"), text("", SIG_A)), user("b")), served=[carrier])
        == []
    )


# ---------------------------------------------------------------- rules: signature placement


@pytest.mark.parametrize("key", ["thoughtSignature", "thought_signature"])
def test_a_signature_nested_in_function_call_is_refused_and_counts_as_missing(key: str) -> None:
    nested = model(
        {"functionCall": {"name": "read", "args": {"p": "a"}, "id": "call_a", key: SIG_A}}
    )
    found = violations(loop(nested, user(answer(call_id="call_a"))), served=[PARALLEL])
    assert [(v.rule, v.message, v.at) for v in found] == [
        (
            SIGNATURE_NOT_NESTED,
            f'Invalid JSON payload received. Unknown name "{key}" at '
            "'contents[1].parts[0].function_call': Cannot find field.",
            "contents[1].parts[0].function_call",
        ),
        (SIGNATURE_REQUIRED, missing("read", 2), "contents[1].parts[0]"),
    ]


def test_signatures_must_decode_as_base64() -> None:
    served = [scripted("end", {"kind": "text", "text": "x", "signature": SIG_A})]
    for good in (SIG_A, SIG_B, "Q-_B", "QUJD", "QUI"):
        assert SIGNATURE_BASE64 not in [
            v.rule
            for v in violations(body(user("a"), model(text("x", good)), user("b")), served=served)
        ]
    for bad, where in (
        ("QUJDR", "contents[1].parts[0]"),
        ("ab c", "contents[1].parts[0]"),
        ("QQ===", "contents[1].parts[0]"),
    ):
        found = violations(body(user("a"), model(text("x", bad)), user("b")), served=served)
        assert [(v.rule, v.message, v.at) for v in found] == [
            (
                SIGNATURE_BASE64,
                "Invalid value at 'contents[1].parts[0].thought_signature' (TYPE_BYTES), "
                f'Base64 decoding failed for "{bad}"',
                where,
            )
        ]


# ---------------------------------------------------------------- rules: turn order (rule 42)


def test_function_call_turn_comes_after_a_user_or_response_turn() -> None:
    found = violations(body(model(call(call_id="c1")), user(answer())))
    assert [(v.rule, v.message, v.at) for v in found] == [
        (
            CALL_TURN_PLACED,
            "Please ensure that function call turn comes immediately after a user turn or after "
            "a function response turn.",
            "contents[0]",
        )
    ]
    after_model = body(
        user("go"), model(text("Let me look.")), model(call(call_id="c1")), user(answer())
    )
    assert errors(after_model) == [CALL_TURN_PLACED.error]
    after_answers = loop(
        model(call(call_id="c1")), user(answer()), model(call(call_id="c2")), user(answer())
    )
    assert errors(after_answers) == []


def test_an_extra_response_content_after_the_answers_is_counted_not_placed() -> None:
    """Consecutive response contents answer one call turn together (crewAI's parallel
    calls, a real 200): one too many is the count rule's refusal."""
    extra = loop(model(call(call_id="c1")), user(answer()), user(answer(call_id="c9")))
    assert [v.rule for v in violations(extra)] == [RESPONSE_COUNT]


@pytest.mark.parametrize(
    "payload",
    [
        body(user(answer(call_id="c1")), model(text("x"))),  # orphan at the start
        body(user("go"), user(answer(call_id="c1"))),  # after a user text
        # a response content after a prompt that follows the answered call turn
        loop(model(call(call_id="c1")), user(answer()), user("and?"), user(answer())),
        loop(model(text("no calls")), user(answer())),  # after a model content without calls
    ],
)
def test_function_response_turn_comes_right_after_a_call_turn(payload: dict[str, Any]) -> None:
    found = [(v.rule, v.message) for v in violations(payload)]
    assert found == [
        (
            RESPONSE_TURN_PLACED,
            "Please ensure that function response turn comes immediately after a function call "
            "turn.",
        )
    ]


@pytest.mark.parametrize(
    "after",
    [
        user(answer(call_id="call_a")),  # one of two answered
        user(answer(call_id="call_a"), answer(call_id="call_b"), answer(call_id="call_b")),  # three
        user("never mind"),  # the cancelled calls got no response at all
        model(text("and then")),  # not a response turn
    ],
)
def test_response_count_equals_call_count(after: dict[str, Any]) -> None:
    calls = model(call("read", {"p": "a"}, "call_a"), call("read", {"p": "b"}, "call_b"))
    found = violations(loop(calls, after))
    assert [(v.rule, v.message, v.at) for v in found] == [
        (
            RESPONSE_COUNT,
            "Please ensure that the number of function response parts is equal to the number of "
            "function call parts of the function call turn.",
            "contents[2]",
        )
    ]
    assert errors(loop(calls, user(answer(call_id="call_a"), answer(call_id="call_b")))) == []


def test_a_trailing_call_turn_is_not_counted() -> None:
    assert errors(loop(model(call(call_id="c1")))) == []


# ---------------------------------------------------------------- rules: missing signatures


def test_missing_signature_on_the_first_call_of_a_signed_step() -> None:
    dropped = model(
        thought("plan", SIG_T),
        call("read", {"p": "a"}, "call_a"),
        call("read", {"p": "b"}, "call_b"),
    )
    found = violations(loop(dropped, PARALLEL_ANSWERS), served=[PARALLEL])
    assert [(v.rule, v.message, v.at) for v in found] == [
        (
            SIGNATURE_REQUIRED,
            "Function call is missing a thought_signature in functionCall parts. This is required "
            "for tools to work correctly, and missing thought_signature may lead to degraded model "
            "performance. Additional data, function call `default_api:read` , position 2. Please "
            "refer to https://ai.google.dev/gemini-api/docs/thought-signatures for more details.",
            "contents[1].parts[1]",
        )
    ]


def test_the_signature_must_sit_on_the_first_call_not_a_later_one() -> None:
    moved = model(call("read", {"p": "a"}, "call_a"), call("read", {"p": "b"}, "call_b", SIG_A))
    assert errors(loop(moved, PARALLEL_ANSWERS), served=[PARALLEL]) == [missing("read", 2)]


def test_every_step_of_the_current_turn_is_checked_at_its_own_position() -> None:
    unsigned_second = model(call("grep", {"q": "x"}, "call_c"))
    payload = loop(PARALLEL_BACK, PARALLEL_ANSWERS, unsigned_second, SECOND_ANSWER)
    assert errors(payload, served=[PARALLEL, SECOND]) == [missing("grep", 4)]


def test_earlier_turns_are_not_validated() -> None:
    """spring-projects/spring-ai PR#4977: only the current turn's loop is validated."""
    unsigned = model(call("read", {"p": "a"}, "call_a"), call("read", {"p": "b"}, "call_b"))
    earlier = body(
        user("go"), unsigned, PARALLEL_ANSWERS, model(text("done")), user("next question")
    )
    assert (
        errors(earlier, served=[PARALLEL, scripted("end", {"kind": "text", "text": "done"})]) == []
    )
    # a turn that starts with function responses only does not start a new turn
    still_current = loop(unsigned, PARALLEL_ANSWERS, SECOND_BACK, SECOND_ANSWER)
    assert errors(still_current, served=[PARALLEL, SECOND]) == [missing("read", 2)]


def test_a_user_content_mixing_responses_and_text_starts_a_new_turn() -> None:
    unsigned = model(call("read", {"p": "a"}, "call_a"), call("read", {"p": "b"}, "call_b"))
    mixed = user(answer(call_id="call_a"), answer(call_id="call_b"), "now something else")
    assert errors(loop(unsigned, mixed), served=[PARALLEL]) == []


def test_the_sentinel_stands_in_for_a_missing_signature() -> None:
    sentinel = model(
        call("read", {"p": "a"}, "call_a", SENTINEL), call("read", {"p": "b"}, "call_b")
    )
    assert SENTINEL == "skip_thought_signature_validator"
    assert errors(loop(sentinel, PARALLEL_ANSWERS), served=[PARALLEL]) == []


def test_steps_the_provider_did_not_sign_need_no_signature() -> None:
    unsigned = scripted(
        "tool_calls", {"kind": "tool_call", "id": "call_u", "name": "read", "arguments": {}}
    )
    assert errors(loop(model(call(call_id="call_u")), user(answer())), served=[unsigned]) == []
    never_served = loop(model(call("read", {"made": "up"}, "call_z")), user(answer()))
    assert errors(never_served, served=[PARALLEL]) == []


def test_calls_without_ids_are_matched_to_the_signed_step() -> None:
    idless = model(call("read", {"p": "a"}), call("read", {"p": "b"}))
    assert errors(loop(idless, user(answer(), answer())), served=[PARALLEL]) == [missing("read", 2)]


# ---------------------------------------------------------------- rules: corrupted signatures


@pytest.mark.parametrize("forged", ["QUJD", SIG_A[:-4], SIG_B + SIG_A, SIG_B])
def test_a_call_signature_not_minted_here_is_corrupted(forged: str) -> None:
    replay = loop(
        model(
            thought("plan", SIG_T),
            call("read", {"p": "a"}, "call_a", forged),
            call("read", {"p": "b"}, "call_b"),
        ),
        PARALLEL_ANSWERS,
    )
    found = [(v.rule, v.message, v.at) for v in violations(replay, served=[PARALLEL])]
    assert found == [(SIGNATURE_MINTED, "Corrupted thought signature.", "contents[1].parts[1]")]


def test_corrupted_signatures_are_refused_in_earlier_turns_too() -> None:
    """Rule 46: stale signatures from another route fail wherever they sit."""
    earlier = body(
        user("go"),
        model(call("read", {"p": "a"}, "call_a", "QUJD"), call("read", {"p": "b"}, "call_b")),
        PARALLEL_ANSWERS,
        model(text("done")),
        user("next"),
    )
    assert errors(earlier, served=[PARALLEL]) == ["Corrupted thought signature."]


def test_text_and_thought_signatures_are_not_enforced() -> None:
    """F7: only function-call signatures are validated."""
    replay = loop(
        model(
            thought("plan", "QUJD"),
            text("x", "Zm9v"),
            call("read", {"p": "a"}, "call_a", SIG_A),
            call("read", {"p": "b"}, "call_b"),
        ),
        PARALLEL_ANSWERS,
    )
    assert errors(replay, served=[PARALLEL]) == []


def test_signatures_minted_here_in_a_saved_history_are_valid_foreign_ones_are_not() -> None:
    def saved(origin: str | None) -> Message:
        return Message(
            role="assistant",
            blocks=(
                ToolCall(id="call_h", name="read", arguments={}, signature=SIG_B, origin=origin),
            ),
        )

    replay = body(
        user("a"),
        model(call(call_id="call_h", signature=SIG_B)),
        user(answer()),
        model(text("ok")),
        user("b"),
    )
    assert errors(replay, history=[saved(None)]) == []
    assert errors(replay, history=[saved("anthropic-messages:claude")]) == [
        "Corrupted thought signature."
    ]


def test_a_signature_minted_on_another_part_is_not_corrupted() -> None:
    """The API cannot tell where a valid signature of its own came from; the ledger can."""
    moved = model(call("read", {"p": "a"}, "call_a", SIG_T), call("read", {"p": "b"}, "call_b"))
    assert errors(loop(moved, PARALLEL_ANSWERS), served=[PARALLEL]) == []


# ---------------------------------------------------------------- error answers


def test_error_response_is_google_error_json() -> None:
    violation = RESPONSE_COUNT.violation(RESPONSE_COUNT.error)
    answered = WIRE.render_error(violation)
    assert answered.status == 400
    assert answered.json() == {
        "error": {"code": 400, "message": RESPONSE_COUNT.error, "status": "INVALID_ARGUMENT"}
    }
    assert WIRE.render_error(violation).body == answered.body
    unknown = WIRE.render_error(UNKNOWN_ENDPOINT.violation("no such endpoint"))
    assert (unknown.status, unknown.json()["error"]["status"]) == (404, "NOT_FOUND")


# ---------------------------------------------------------------- ledger hints


def test_ledger_hints() -> None:
    signed_call = ToolCall(id="call_a", name="read", signature=SIG_A)
    assert WIRE.hints.companion(Reasoning(text="t", signature=SIG_T)) is None
    assert WIRE.hints.companion(Text(text="", signature=SIG_A)) is None
    assert WIRE.hints.companion(signed_call) == "call_a"
    assert WIRE.hints.severity(signed_call) == "must"
    assert WIRE.hints.severity(Text(text="x", signature=SIG_A)) == "should"
    assert WIRE.hints.severity(Reasoning(text="x", signature=SIG_T)) == "should"


# ---------------------------------------------------------------- realism


def case(*responses: dict[str, Any], history: Sequence[dict[str, Any]] = ()) -> Case:
    return realism_case("gemini", *responses, history=history)


def tool(call_id: str, **extra: Any) -> dict[str, Any]:
    return {
        "kind": "tool_call",
        "id": call_id,
        "name": "read",
        "arguments": {"p": call_id},
        **extra,
    }


SAY = {"kind": "text", "text": "x"}


def test_clean_cases_have_no_realism_problems() -> None:
    clean = case(
        end(
            {"kind": "reasoning", "text": "plan", "signature": SIG_T, "chunks": [2]},
            tool("call_a", signature=SIG_A),
            tool("call_b"),
            stop_="tool_calls",
        ),
        end(
            {"kind": "text", "text": "Hello", "chunks": [3]},
            {"kind": "text", "text": "", "signature": SIG_B},
            {"kind": "media", "mime": "image/png", "data": "iVBO"},
        ),
        history=[
            {"role": "assistant", "blocks": [{"kind": "text", "text": "h", "signature": SIG_B}]},
            {
                "role": "assistant",
                "blocks": [
                    {
                        "kind": "reasoning",
                        "redacted": True,
                        "data": "X",
                        "origin": "anthropic-messages:m",
                    }
                ],
            },
        ],
    )
    assert unrealistic(WIRE, clean) == []
    assert unrealistic(WIRE, case(end(stop_="max_tokens"))) == []
    assert unrealistic(WIRE, case(end(SAY, stop_="no_finish"))) == []


@pytest.mark.parametrize(
    ("probe", "where", "word"),
    [
        (
            case(end(tool("c", arguments='{"p'), stop_="max_tokens")),
            "turns.0.responses.0.blocks.0",
            "unparsed",
        ),
        (
            case(end(tool("c", chunks=[2]), stop_="tool_calls"), end(SAY)),
            "turns.0.responses.0.blocks.0",
            "argument chunks",
        ),
        (
            case(
                end(tool("a", signature=SIG_A), tool("b", signature=SIG_B), stop_="tool_calls"),
                end(SAY),
            ),
            "turns.0.responses.0.blocks.1",
            "parallel",
        ),
        (
            case(end(tool("a"), tool("b", signature=SIG_B), stop_="tool_calls"), end(SAY)),
            "turns.0.responses.0.blocks.1",
            "parallel",
        ),
        (
            case(end({"kind": "reasoning", "redacted": True, "data": "D"}, SAY)),
            "turns.0.responses.0.blocks.0",
            "redacted",
        ),
        (
            case(end({"kind": "reasoning", "text": "r", "id": "rs_1"}, SAY)),
            "turns.0.responses.0.blocks.0",
            "item id",
        ),
        (
            case(end({"kind": "reasoning", "text": "r", "summary": ["s"]}, SAY)),
            "turns.0.responses.0.blocks.0",
            "summary",
        ),
        (case(end(SAY, stop_="pause")), "turns.0.responses.0", "pause"),
        (case(end(SAY, stop_="cancelled")), "turns.0.responses.0", "cancelled"),
        (
            case(
                end(
                    {"kind": "reasoning", "text": "r", "signature": SIG_B, "signature_chunks": [4]},
                    SAY,
                )
            ),
            "turns.0.responses.0.blocks.0",
            "signature_chunks",
        ),
        (
            case(end({"kind": "text", "text": "x", "signature": "SIG-ONE"})),
            "turns.0.responses.0.blocks.0",
            "base64",
        ),
        (
            case(end({"kind": "text", "text": "x", "signature": "QUI"})),
            "turns.0.responses.0.blocks.0",
            "base64",
        ),
        (
            case(end({"kind": "text", "text": "x", "signature": "QUJ="})),  # not canonical
            "turns.0.responses.0.blocks.0",
            "base64",
        ),
        (case({"stop": "end", "blocks": [SAY], "noise": ["ping"]}), "turns.0.responses.0", "noise"),
        (
            case(
                end(SAY),
                history=[{"role": "assistant", "blocks": [tool("h", signature="not base64!")]}],
            ),
            "history.0.blocks.0",
            "base64",
        ),
        (
            case(
                end(SAY),
                history=[
                    {
                        "role": "assistant",
                        "blocks": [{"kind": "reasoning", "redacted": True, "data": "D"}],
                    }
                ],
            ),
            "history.0.blocks.0",
            "redacted",
        ),
    ],
)
def test_realism_problem_is_found_and_located(probe: Case, where: str, word: str) -> None:
    problems = unrealistic(WIRE, probe)
    assert len(problems) == 1, problems
    assert problems[0].startswith(where + ": ")
    assert word in problems[0]


# ---------------------------------------------------------------- with the scripted provider


def provider_case() -> Case:
    """A signed parallel step, a text answer whose signature arrives alone, a next turn."""
    carrier = {
        "stop": "end",
        "blocks": [
            {"kind": "text", "text": "Hello", "chunks": [3]},
            {"kind": "text", "text": "", "signature": SIG_B},
        ],
    }
    return Case.model_validate(
        {
            "id": "gemini-provider-probe",
            "title": "a signed parallel step, then a text answer",
            "provenance": [{"rule": 41}, {"rule": 43}],
            "features": ["parallel-tool-calls"],
            "wires": {"gemini": "Gemini signs the first of parallel calls."},
            "given": {
                "tools": [{"name": "read", "result": "ok"}],
                "turns": [
                    {
                        "user": "go",
                        "responses": [PARALLEL.model_dump(exclude_none=True), carrier],
                    },
                    {"user": "next", "responses": [end({"kind": "text", "text": "bye"})]},
                ],
            },
            "expect": [{"requests": 3}],
        }
    )


def test_scripted_provider_rejects_a_dropped_signature_and_serves_the_replay() -> None:
    provider = ScriptedProvider(provider_case(), WIRE)
    parts = assemble(read_sse(provider.handle(request(body(user("go"))))))
    dropped = [{k: v for k, v in p.items() if k != "thoughtSignature"} for p in parts]
    rejected = provider.handle(request(body(user("go"), model(*dropped), PARALLEL_ANSWERS)))
    assert rejected.status == 400
    assert rejected.json() == {
        "error": {"code": 400, "message": missing("read", 2), "status": "INVALID_ARGUMENT"}
    }
    served = provider.handle(request(body(user("go"), model(*parts), user(answer(), answer()))))
    assert served.status == 200
    assert assemble(read_sse(served)) == [{"text": "Hello", "thoughtSignature": SIG_B}]
    assert [e.served for e in provider.exchanges] == [0, None, 1]


def converse(final_reply: dict[str, Any]) -> Transcript:
    """The provider case, replayed with ``final_reply`` as the text answer's content."""
    probe = provider_case()
    provider = ScriptedProvider(probe, WIRE)
    parts = assemble(read_sse(provider.handle(request(body(user("go"))))))
    second = body(user("go"), model(*parts), user(answer(), answer()))
    provider.handle(request(second))
    provider.handle(request(body(*second["contents"], final_reply, user("next"))))
    assert provider.finished
    return Transcript(probe, "gemini", None, list(provider.exchanges))


def test_a_carrier_merged_onto_its_text_satisfies_the_ledger() -> None:
    """Rule 43 through the ledger: "Hello" and the empty signed part after it, replayed
    as one signed text part, is known and paired; dropping it is only a `should`."""
    assert ledger_violations(converse(model(text("Hello", SIG_B))), WIRE) == []
    assert ledger_violations(converse(model(text("Hello"), text("", SIG_B))), WIRE) == []
    dropped = ledger_violations(converse(model(text("Hello"))), WIRE)
    assert [(v.check, v.severity) for v in dropped] == [("invariant/ledger-complete", "should")]
    thought_instead = ledger_violations(converse(model(thought("Hello", SIG_B))), WIRE)
    assert [v.check for v in thought_instead] == [PAIRED.id]
