"""Decoding Anthropic responses into fragments (wire-rules 1–5, 16)."""

from __future__ import annotations

import json

import pytest

from conformance._reference.anthropic import AnthropicCodec
from conformance._reference.codec import Decoded, ProviderError
from conformance._reference.fragments import (
    BlockEnd,
    CallArguments,
    CallStart,
    ReasoningPiece,
    RedactedPiece,
    TextPiece,
)
from conformance._reference.guards import Guards
from conformance._targets.api import WireResponse

from .sse_streams import Stream, event, session, sse

CODEC = AnthropicCodec(session(), Guards())


def decode(response: WireResponse) -> Decoded:
    return CODEC.decode(response)


def test_each_block_kind_becomes_its_fragments() -> None:
    response = (
        Stream()
        .thinking("plan ", "more", signature="SIG")
        .redacted("BLOB")
        .text("Hi")
        .tool_use("toolu_1", "read_file", '{"path":', '"a"}')
        .end("tool_use")
    )
    decoded = decode(response)
    assert decoded.fragments == (
        ReasoningPiece(0),
        ReasoningPiece(0, text="plan "),
        ReasoningPiece(0, text="more"),
        ReasoningPiece(0, signature="SIG"),
        BlockEnd(0),
        RedactedPiece(1, "BLOB"),
        BlockEnd(1),
        TextPiece(2, ""),
        TextPiece(2, "Hi"),
        BlockEnd(2),
        CallStart(3, "toolu_1", "read_file", {}),
        CallArguments(3, '{"path":'),
        CallArguments(3, '"a"}'),
        BlockEnd(3),
    )
    assert decoded.stop == "tool_calls"
    assert decoded.ended


@pytest.mark.parametrize(
    ("reason", "stop"),
    [
        ("end_turn", "end"),
        ("stop_sequence", "end"),
        ("tool_use", "tool_calls"),
        ("max_tokens", "max_tokens"),
        ("model_context_window_exceeded", "max_tokens"),
        ("refusal", "refusal"),
        ("pause_turn", "pause"),
    ],
)
def test_stop_reasons(reason: str, stop: str) -> None:
    assert decode(Stream().text("x").end(reason)).stop == stop


def test_pings_and_unknown_events_are_tolerated() -> None:
    """Rule 1: ping anywhere, unknown event, block and delta types ignored."""
    plain = decode(Stream().thinking("a", signature="S").text("b").end())
    noisy = (
        Stream()
        .ping()
        .thinking("a", signature="S")
        .ping()
        .raw(event("future_x", payload=1))
        .raw(event("content_block_start", index=9, content_block={"type": "future_block"}))
        .raw(event("content_block_delta", index=9, delta={"type": "future_delta", "v": 1}))
        .raw(b"event: comment\ndata: not json\n\n")
        .raw(b": a comment line\n\n")
        .text("b")
        .end()
    )
    decoded = decode(noisy)
    assert decoded.stop == "end"
    assert [f for f in decoded.fragments if f != BlockEnd(9)] == list(plain.fragments)


def test_a_stream_without_message_stop_is_a_cut() -> None:
    decoded = decode(Stream().thinking("partial", stop=False).cut())
    assert decoded.stop == "no_finish"
    assert not decoded.ended
    assert decoded.fragments == (ReasoningPiece(0), ReasoningPiece(0, text="partial"))


def test_a_cut_inside_an_event_drops_the_unfinished_event() -> None:
    body = b"".join(Stream().text("done").events) + b'event: content_block_delta\ndata: {"ty'
    decoded = decode(sse(body))
    assert decoded.stop == "no_finish"
    assert decoded.fragments == (TextPiece(0, ""), TextPiece(0, "done"), BlockEnd(0))


def test_a_mid_stream_error_ends_the_response_as_a_cut() -> None:
    error = event("error", error={"type": "overloaded_error", "message": "Overloaded"})
    decoded = decode(Stream().text("a").raw(error).text("never").end())
    assert decoded.stop == "no_finish"
    assert TextPiece(1, "never") not in decoded.fragments


def test_message_delta_without_stop_reason_keeps_the_earlier_one() -> None:
    late = event("message_delta", delta={"stop_reason": None}, usage={"output_tokens": 2})
    stream = Stream().text("x")
    stream.raw(event("message_delta", delta={"stop_reason": "max_tokens"}, usage={}))
    assert decode(stream.raw(late).raw(event("message_stop")).cut()).stop == "max_tokens"


def test_a_json_message_decodes_like_its_stream() -> None:
    message = {
        "type": "message",
        "role": "assistant",
        "content": [
            {"type": "thinking", "thinking": "plan", "signature": "SIG"},
            {"type": "tool_use", "id": "toolu_1", "name": "read_file", "input": {"path": "a"}},
        ],
        "stop_reason": "tool_use",
    }
    body = json.dumps(message).encode()
    decoded = decode(WireResponse(200, {"content-type": "application/json"}, body))
    assert decoded == Decoded(
        (
            ReasoningPiece(0, text="plan", signature="SIG"),
            BlockEnd(0),
            CallStart(1, "toolu_1", "read_file", {"path": "a"}),
            BlockEnd(1),
        ),
        "tool_calls",
        True,
    )


def test_an_error_status_raises_with_the_provider_text() -> None:
    body = b'{"type":"error","error":{"type":"invalid_request_error","message":"bad"}}'
    with pytest.raises(ProviderError, match=r"400.*bad"):
        decode(WireResponse(400, {"content-type": "application/json"}, body))
