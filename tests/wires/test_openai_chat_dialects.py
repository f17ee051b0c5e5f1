"""The Chat wire's dialects beyond DeepSeek and OpenRouter: Gemini's OpenAI-compatible
endpoint (thought signatures in ``extra_content``, rule 47), Kimi (``reasoning_content``,
rule 36) and Ollama (every streamed call at index 0, rule 31): render, parse, read,
rules, error envelopes and realism, each with the shape that must be refused."""

from __future__ import annotations

import base64
import json
from typing import Any

import pytest

from conformance.vocabulary import ScriptedResponse, ThinkingConfig, ToolCall
from conformance.wires._openai_chat import WIRE
from conformance.wires._openai_chat.rules import (
    GEMINI_COMPAT_SIGNATURE,
    GEMINI_COMPAT_SIGNATURE_MINTED,
    KIMI_REASONING_CONTENT,
    TOOL_CALLS_ANSWERED,
)
from tests.wires.kit import realism_case, scripted, unrealistic
from tests.wires.test_openai_chat import (
    assistant,
    body,
    call,
    deltas,
    errors,
    parse,
    render,
    system,
    tool,
    user,
    violations,
)

SIG = (
    "CowBX+zrZv/IbzjZUnhsbWlsecLbwjndTpG0ZynXOif7V+lf7Otm/"
    "8hvONlSeGxtaWx5wtvCOd1OkbRnKdc6J/tX6V/s6w=="
)
URL_SAFE = SIG.replace("+", "-").replace("/", "_").rstrip("=")
SIGNED = {"kind": "tool_call", "id": "fc_1", "name": "read", "arguments": {}, "signature": SIG}
PLAIN = {"kind": "tool_call", "id": "fc_2", "name": "read", "arguments": {}}
SIGNED_TURN = scripted("tool_calls", SIGNED, PLAIN)


def lint(dialect: str | None, stop: str, *blocks: dict[str, Any]) -> list[str]:
    """The realism lint of one scripted response on ``openai-chat`` in ``dialect``."""
    column = f"openai-chat:{dialect}" if dialect else "openai-chat"
    responses = [{"stop": stop, "blocks": list(blocks)}]
    if stop == "tool_calls":
        responses.append({"stop": "end", "blocks": [{"kind": "text", "text": "ok"}]})
    case = realism_case(column, *responses)
    return unrealistic(WIRE, case, dialect)


def signed(call_id: str, signature: str = SIG) -> dict[str, Any]:
    return {**call(call_id), "extra_content": {"google": {"thought_signature": signature}}}


# ---------------------------------------------------------------- gemini (rule 47)


def test_gemini_streams_each_call_whole_with_its_signature_in_extra_content() -> None:
    found = deltas(SIGNED_TURN, "gemini")
    calls = [d["tool_calls"][0] for d in found if "tool_calls" in d]
    assert calls == [
        {
            "index": 0,
            "id": "fc_1",
            "type": "function",
            "function": {"name": "read", "arguments": "{}"},
            "extra_content": {"google": {"thought_signature": SIG}},
        },
        {
            "index": 1,
            "id": "fc_2",
            "type": "function",
            "function": {"name": "read", "arguments": "{}"},
        },
    ]
    # Plain OpenAI never carries it.
    assert all(
        "extra_content" not in d["tool_calls"][0]
        for d in deltas(scripted("tool_calls", PLAIN))
        if "tool_calls" in d
    )


def test_gemini_completion_and_reader_keep_the_signature_on_its_call() -> None:
    message = render(SIGNED_TURN, "gemini", stream=False).json()["choices"][0]["message"]
    assert message["tool_calls"][0]["extra_content"] == {"google": {"thought_signature": SIG}}
    for stream in (True, False):
        rendered = render(SIGNED_TURN, "gemini", stream=stream)
        read = WIRE.read(rendered.body, stream, "gemini")
        assert [b.signature for b in read.blocks if isinstance(b, ToolCall)] == [SIG, None]


def test_gemini_parse_reads_the_signature_as_its_bytes() -> None:
    for spelled in (SIG, URL_SAFE):
        view = parse(body(user("a"), assistant(None, signed("fc_1", spelled))), "gemini")
        assert view.messages[1].blocks == (ToolCall(id="fc_1", name="read", signature=SIG),)
    # Other dialects do not read the field.
    plain = parse(body(user("a"), assistant(None, signed("fc_1"))))
    assert plain.messages[1].blocks == (ToolCall(id="fc_1", name="read"),)


def test_gemini_current_turn_call_without_its_signature_is_rejected() -> None:
    payload = body(
        system("s"),
        user("go"),
        assistant(None, call("fc_1"), call("fc_2")),
        tool("fc_1"),
        tool("fc_2"),
    )
    found = violations(payload, "gemini", served=[SIGNED_TURN])
    assert [(v.rule, v.at) for v in found] == [
        (GEMINI_COMPAT_SIGNATURE, "messages.2.tool_calls.0.extra_content")
    ]
    assert "function call `default_api:read` , position 2." in found[0].message
    answer = WIRE.render_error(found[0])
    assert answer.status == 400
    assert answer.body.startswith(b'[{\n  "error": {\n    "code": 400,')
    assert answer.json() == [
        {"error": {"code": 400, "message": found[0].message, "status": "INVALID_ARGUMENT"}}
    ]


@pytest.mark.parametrize("spelled", [SIG, URL_SAFE, "skip_thought_signature_validator"])
def test_gemini_accepts_the_minted_bytes_in_any_spelling_and_the_sentinel(spelled: str) -> None:
    payload = body(
        user("go"),
        assistant(None, signed("fc_1", spelled), call("fc_2")),
        tool("fc_1"),
        tool("fc_2"),
    )
    assert errors(payload, "gemini", served=[SIGNED_TURN]) == []


def test_gemini_rejects_a_signature_it_never_minted() -> None:
    other = base64.b64encode(b"another conversation").decode()
    payload = body(
        user("go"), assistant(None, signed("fc_1", other), call("fc_2")), tool("fc_1"), tool("fc_2")
    )
    found = violations(payload, "gemini", served=[SIGNED_TURN])
    assert [(v.rule, v.message) for v in found] == [
        (GEMINI_COMPAT_SIGNATURE_MINTED, "Corrupted thought signature.")
    ]


def test_gemini_earlier_turns_and_unsigned_steps_are_not_asked_for_one() -> None:
    earlier = body(
        user("go"),
        assistant(None, call("fc_1"), call("fc_2")),
        tool("fc_1"),
        tool("fc_2"),
        assistant("ok"),
        user("next"),
    )
    assert (
        errors(
            earlier, "gemini", served=[SIGNED_TURN, scripted("end", {"kind": "text", "text": "ok"})]
        )
        == []
    )
    unsigned = scripted("tool_calls", PLAIN)
    assert (
        errors(
            body(user("go"), assistant(None, call("fc_2")), tool("fc_2")),
            "gemini",
            served=[unsigned],
        )
        == []
    )
    # OpenAI's pairing texts are not Gemini's: left to the invariants there.
    assert (
        errors(
            body(user("go"), assistant(None, call("fc_2")), user("x")), "gemini", served=[unsigned]
        )
        == []
    )
    assert errors(body(user("go"), assistant(None, call("fc_2")), user("x"))) == [
        TOOL_CALLS_ANSWERED.error.format(ids="fc_2")
    ]


def test_gemini_realism() -> None:
    assert lint("gemini", "tool_calls", PLAIN, {**SIGNED, "id": "fc_3"})
    assert lint("gemini", "tool_calls", SIGNED, PLAIN) == []
    assert lint(None, "tool_calls", SIGNED, PLAIN)
    assert lint("gemini", "tool_calls", {**PLAIN, "chunks": [1]})
    assert lint("gemini", "tool_calls", {**SIGNED, "signature": URL_SAFE})


# ---------------------------------------------------------------- kimi (rule 36)

KIMI_TURN = scripted(
    "tool_calls", {"kind": "reasoning", "text": "Need a."}, {**PLAIN, "id": "functions.read:0"}
)
ON = {"thinking": {"type": "enabled"}}


def kimi_loop(reply: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return body(user("go"), reply, tool("functions.read:0"), **{**ON, **extra})


@pytest.mark.parametrize("value", ["Need a.", ""])
def test_kimi_accepts_the_key_with_any_string(value: str) -> None:
    reply = assistant(None, call("functions.read:0"), reasoning_content=value)
    assert errors(kimi_loop(reply), "kimi", served=[KIMI_TURN]) == []


def test_kimi_rejects_a_tool_call_message_without_the_key_in_its_envelope() -> None:
    found = violations(
        kimi_loop(assistant(None, call("functions.read:0"))), "kimi", served=[KIMI_TURN]
    )
    assert [(v.rule, v.message, v.at) for v in found] == [
        (
            KIMI_REASONING_CONTENT,
            "thinking is enabled but reasoning_content is missing in assistant tool call "
            "message at index 1",
            "messages.1.reasoning_content",
        )
    ]
    assert WIRE.render_error(found[0]).json() == {
        "error": {"message": found[0].message, "type": "invalid_request_error"}
    }


def test_kimi_thinking_switch_and_reasoning_content_stream() -> None:
    reply = assistant(None, call("functions.read:0"))
    assert errors(body(user("go"), reply, tool("functions.read:0")), "kimi") == []
    thinking_model = body(user("go"), reply, tool("functions.read:0"), model="kimi-k2-thinking")
    assert errors(thinking_model, "kimi") == [KIMI_REASONING_CONTENT.error.format(i=1)]
    assert parse(kimi_loop(reply), "kimi").thinking == ThinkingConfig(mode="adaptive")
    assert deltas(KIMI_TURN, "kimi")[1] == {"reasoning_content": "Need a."}
    read = WIRE.read(render(KIMI_TURN, "kimi").body, True, "kimi")
    assert read.blocks == KIMI_TURN.blocks


# ---------------------------------------------------------------- ollama (rule 31)


def test_ollama_streams_every_call_whole_at_index_zero() -> None:
    turn = scripted("tool_calls", PLAIN, {**PLAIN, "id": "fc_3", "arguments": {"p": 1}})
    calls = [d["tool_calls"] for d in deltas(turn, "ollama") if "tool_calls" in d]
    assert [[c["index"], c["id"], c["function"]["arguments"]] for [c] in calls] == [
        [0, "fc_2", "{}"],
        [0, "fc_3", '{"p":1}'],
    ]
    # The reader starts a new call at a new id (rule 31), so the round trip keeps both.
    assert WIRE.read(render(turn, "ollama").body, True, "ollama").blocks == turn.blocks


def test_ollama_realism_refuses_fragments_and_reasoning() -> None:
    assert lint("ollama", "tool_calls", {**PLAIN, "chunks": [1]})
    thinking = ({"kind": "reasoning", "text": "x"}, {"kind": "text", "text": "y"})
    assert lint("ollama", "end", *thinking)
    assert lint("kimi", "end", *thinking) == []


def test_response_is_a_scripted_response() -> None:
    assert isinstance(SIGNED_TURN, ScriptedResponse)
    assert json.loads(render(SIGNED_TURN, "ollama").body.split(b"\n\n")[0][6:])["id"].startswith(
        "chatcmpl-"
    )


# ---------------------------------------------------------------- interleaved fragments


def test_interleaved_calls_alternate_their_fragments_by_index() -> None:
    blocks = [{**PLAIN, "arguments": {"a": 1}, "chunks": [3]}, {**SIGNED, "signature": None}]
    turn = ScriptedResponse.model_validate(
        {"stop": "tool_calls", "blocks": blocks, "interleaved_calls": True}
    )
    indexes = [d["tool_calls"][0]["index"] for d in deltas(turn) if "tool_calls" in d]
    assert indexes == [0, 1, 0, 1, 0]
    plain = turn.model_copy(update={"interleaved_calls": False})
    assert [d["tool_calls"][0]["index"] for d in deltas(plain) if "tool_calls" in d] == [
        0,
        0,
        0,
        1,
        1,
    ]
    assert WIRE.read(render(turn).body, True).blocks == WIRE.read(render(plain).body, True).blocks
    case = realism_case(
        "openai-chat:ollama",
        {"stop": "tool_calls", "blocks": blocks, "interleaved_calls": True},
        {"stop": "end", "blocks": [{"kind": "text", "text": "ok"}]},
    )
    assert unrealistic(WIRE, case, "ollama")
