"""Decoding Chat Completions streams and JSON, per dialect (wire-rules 31, 33–37)."""

from __future__ import annotations

from conformance._reference.codec import Decoded
from conformance._reference.consolidate import TurnBlock, consolidate
from conformance._reference.guards import Guards
from conformance._reference.openai_chat import OpenAIChatCodec
from conformance._targets.api import WireResponse
from conformance.vocabulary import Reasoning, Text, ToolCall

from .wire_streams import ChatStream, json_response, text_detail, wire_session


def codec(dialect: str | None = None) -> OpenAIChatCodec:
    return OpenAIChatCodec(wire_session("openai-chat", dialect=dialect), Guards())


def decode(response: WireResponse, dialect: str | None = None) -> Decoded:
    return codec(dialect).decode(response)


def blocks(response: WireResponse, dialect: str | None = None) -> tuple[TurnBlock, ...]:
    decoded = decode(response, dialect)
    return consolidate(decoded.fragments, Guards(), decoded.ended)


def test_tool_call_fragments_are_reassembled_by_index() -> None:
    """Rule 31: interleaved fragments of index 0 and 1."""
    response = (
        ChatStream()
        .call(0, "call_a", "read_file", '{"pa')
        .call(1, "call_b", "read_file")
        .call(1, None, args='{"path": "b"}')
        .call(0, None, args='th": "a"}')
        .finish("tool_calls")
    )
    assert blocks(response) == (
        ToolCall(id="call_a", name="read_file", arguments={"path": "a"}),
        ToolCall(id="call_b", name="read_file", arguments={"path": "b"}),
    )
    assert decode(response).stop == "tool_calls"


def test_a_new_id_at_a_used_index_starts_a_new_call() -> None:
    """Rule 31's Ollama quirk: both parallel calls say index 0."""
    response = (
        ChatStream()
        .call(0, "call_a", "read_file", '{"path": "a"}')
        .call(0, "call_b", "read_file", '{"path": "b"}')
        .finish("tool_calls")
    )
    assert [b.id for b in blocks(response) if isinstance(b, ToolCall)] == ["call_a", "call_b"]


def test_the_finish_reason_comes_last_and_its_absence_is_a_cut() -> None:
    finished = ChatStream().content("Hel", "lo").finish("stop")
    assert (decode(finished).stop, decode(finished).ended) == ("end", True)
    assert blocks(finished) == (Text(text="Hello"),)
    assert decode(ChatStream().content("Hel").finish("length")).stop == "max_tokens"
    assert decode(ChatStream().content("x").finish("content_filter")).stop == "refusal"
    cut = ChatStream().content("Hel").call(0, "call_a", "read_file", '{"pa').cut()
    assert (decode(cut).stop, decode(cut).ended) == ("no_finish", False)
    assert blocks(cut)[1] == ToolCall(id="call_a", name="read_file", arguments='{"pa')


def test_a_mid_stream_error_is_a_cut() -> None:
    stream = ChatStream().content("Hel")
    stream.chunks.append(b'data: {"error": {"message": "overloaded"}}\n\n')
    assert decode(stream.content("ignored").finish()).stop == "no_finish"


def test_a_truncated_call_labelled_tool_calls_keeps_its_raw_arguments() -> None:
    """Rule 33: the router said tool_calls; the arguments do not parse."""
    response = (
        ChatStream().call(0, "call_w", "write_file", '{"path": "/tmp/log", "c').finish("tool_calls")
    )
    assert blocks(response) == (
        ToolCall(id="call_w", name="write_file", arguments='{"path": "/tmp/log", "c'),
    )


def test_deepseek_reasoning_content_is_accumulated_into_one_episode() -> None:
    """Rule 35; content chunks that say ``""`` or null split nothing."""
    response = (
        ChatStream()
        .reasoning_content("Read ", "both.")
        .delta(content="", reasoning_content=None)
        .content("OK")
        .call(0, "call_a", "read_file", "{}")
        .finish("tool_calls")
    )
    assert blocks(response, "deepseek") == (
        Reasoning(text="Read both."),
        Text(text="OK"),
        ToolCall(id="call_a", name="read_file", arguments={}),
    )
    visible = (Text(text="OK"), ToolCall(id="call_a", name="read_file", arguments={}))
    assert blocks(response) == visible  # plain Chat has no reasoning field
    assert blocks(response, "openrouter") == visible  # nor does OpenRouter read this one


def test_openrouter_details_are_accumulated_with_the_signature_only_detail() -> None:
    """Rule 37: text over several deltas, then a signature-only detail, one episode."""
    response = (
        ChatStream()
        .details(text_detail("a"), text_detail("b"), text_detail(signature="S"))
        .details(text_detail("c", index=1), text_detail(signature="T", index=1))
        .call(0, "call_a", "read_file", "{}")
        .finish("tool_calls")
    )
    assert blocks(response, "openrouter")[:2] == (
        Reasoning(text="ab", signature="S"),
        Reasoning(text="c", signature="T"),
    )


def test_openrouter_encrypted_and_summary_details() -> None:
    encrypted = {"type": "reasoning.encrypted", "data": "BLOB", "id": "rd_1", "index": 0}
    summary = [
        {"type": "reasoning.summary", "summary": "Look ", "index": 1},
        {"type": "reasoning.summary", "summary": "closer.", "index": 1},
    ]
    response = ChatStream().details(encrypted, *summary).content("Done").finish()
    assert blocks(response, "openrouter") == (
        Reasoning(redacted=True, data="BLOB", id="rd_1"),
        Reasoning(summary=("Look closer.",)),
        Text(text="Done"),
    )


def test_openrouter_details_without_a_boundary_rely_on_their_index() -> None:
    """Two signature-only details (§35's shape): only the index tells them apart."""
    response = (
        ChatStream()
        .details(text_detail(signature="S0", index=0), text_detail(signature="S1", index=1))
        .content("x")
        .finish()
    )
    assert blocks(response, "openrouter")[:2] == (
        Reasoning(signature="S0"),
        Reasoning(signature="S1"),
    )


def test_a_json_completion_per_dialect() -> None:
    message = {
        "role": "assistant",
        "content": "Reading.",
        "reasoning_content": "Plan.",
        "reasoning_details": [
            {"type": "reasoning.text", "text": "Plan.", "signature": "S", "index": 0}
        ],
        "tool_calls": [
            {"id": "call_a", "type": "function", "function": {"name": "f", "arguments": "{}"}},
            {"id": "call_b", "type": "function", "function": {"name": "g", "arguments": "{}"}},
        ],
    }
    body = {"choices": [{"index": 0, "message": message, "finish_reason": "tool_calls"}]}
    calls = (ToolCall(id="call_a", name="f"), ToolCall(id="call_b", name="g"))
    text = Text(text="Reading.")
    assert blocks(json_response(body)) == (text, *calls)
    assert blocks(json_response(body), "deepseek") == (Reasoning(text="Plan."), text, *calls)
    signed = Reasoning(text="Plan.", signature="S")
    assert blocks(json_response(body), "openrouter") == (signed, text, *calls)
    assert decode(json_response(body)).stop == "tool_calls"
