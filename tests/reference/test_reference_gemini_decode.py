"""Decoding Gemini streams and JSON (wire-rules 39–44, 48; seed §24–§30)."""

from __future__ import annotations

from conformance._reference.codec import Decoded
from conformance._reference.consolidate import TurnBlock, consolidate
from conformance._reference.fragments import BlockEnd, CallStart, ReasoningPiece, TextPiece
from conformance._reference.gemini import PARTS, GeminiCodec
from conformance._reference.guards import Guards
from conformance._targets.api import WireResponse
from conformance.vocabulary import Reasoning, Text, ToolCall

from .wire_streams import GeminiStream, json_response, wire_session


def codec() -> GeminiCodec:
    return GeminiCodec(wire_session("gemini"), Guards())


def decode(response: WireResponse) -> Decoded:
    return codec().decode(response)


def blocks(response: WireResponse, *disabled: str) -> tuple[TurnBlock, ...]:
    decoded = decode(response)
    return consolidate(decoded.fragments, Guards(disabled), decoded.ended)


def test_parts_share_one_key_and_a_call_arrives_whole_with_its_signature() -> None:
    response = (
        GeminiStream()
        .thought("Plan", "c2lnQQ==")
        .call("read_file", {"path": "a"}, id="call_1", signature="ZmM=")
        .text("Done.")
        .finish()
    )
    assert decode(response).fragments == (
        ReasoningPiece(PARTS, "Plan", "c2lnQQ==", ends=True),  # its signature ends the run
        CallStart("call1", "call_1", "read_file", {"path": "a"}, "ZmM="),
        BlockEnd("call1"),
        TextPiece(PARTS, "Done."),
    )
    assert decode(response).stop == "tool_calls"


def test_only_thought_true_is_reasoning() -> None:
    """Rule 39: a signed text part without ``thought`` stays answer text (rule 44)."""
    response = GeminiStream().text("x", "Uw==").finish()
    assert blocks(response) == (Text(text="x", signature="Uw=="),)


def test_interleaved_episodes_split_at_the_visible_part_or_the_fresh_text() -> None:
    """§25 on a wire without boundaries: [A sA, FC, B sB, FC] is protected by both
    heuristics; only with both off do the episodes merge (§121)."""
    response = (
        GeminiStream()
        .thought("A")
        .thought("", "c0E=")
        .call("f", {}, id="c1", signature="ZjE=")
        .thought("B", "c0I=")
        .call("f", {}, id="c2")
        .finish()
    )
    expected = (
        Reasoning(text="A", signature="c0E="),
        ToolCall(id="c1", name="f", signature="ZjE="),
        Reasoning(text="B", signature="c0I="),
        ToolCall(id="c2", name="f"),
    )
    assert blocks(response) == expected
    assert blocks(response, "flush-on-visible-block") == expected
    assert blocks(response, "flush-on-fresh-signed-text") == expected
    merged = blocks(response, "flush-on-visible-block", "flush-on-fresh-signed-text")
    assert merged[0] == Reasoning(text="AB", signature="c0E=c0I=")


def test_a_signature_only_episode_after_a_call_needs_the_visible_part_flush() -> None:
    """§30: the first run is unsigned (its signature rides the call, as Gemini 3 sends
    it) and the second has no fresh text, so only the call closes the first.  (A signed
    first run is closed by its own signature part.)"""
    response = (
        GeminiStream()
        .thought("visible reasoning")
        .call("f", {}, id="c1", signature="c2lnMQ==")
        .thought("", "c2lnMg==")
        .call("f", {}, id="c2")
        .finish()
    )
    assert blocks(response)[0] == Reasoning(text="visible reasoning")
    assert blocks(response)[2] == Reasoning(text="", signature="c2lnMg==")
    merged = blocks(response, "flush-on-visible-block")
    assert merged[0] == Reasoning(text="visible reasoning", signature="c2lnMg==")


def test_back_to_back_signed_thoughts_need_the_fresh_text_flush() -> None:
    """§27: nothing visible between them; mutant M1 (§113) merges them."""
    response = GeminiStream().thought("A", "c0E=").thought("B", "c0I=").text("final").finish()
    assert blocks(response)[:2] == (
        Reasoning(text="A", signature="c0E="),
        Reasoning(text="B", signature="c0I="),
    )
    merged = blocks(response, "flush-on-fresh-signed-text")
    assert merged[0] == Reasoning(text="AB", signature="c0E=c0I=")


def test_a_signature_arriving_alone_in_an_empty_text_part_is_kept() -> None:
    """Rule 43 (gemini-cli#25808): [Hel, lo, ""+S] -> "Hello" and the carrier of S."""
    response = GeminiStream().text("Hel").text("lo").text("", "Uw==").finish()
    assert blocks(response) == (Text(text="Hello"), Text(text="", signature="Uw=="))
    assert blocks(response, "keep-signature-only-text") == (Text(text="Hello"),)


def test_a_signed_text_part_ends_its_block() -> None:
    """Rule 44: each signature stays on the text it was minted for."""
    response = GeminiStream().text("one", "UzE=").text("two").text("", "UzI=").finish()
    assert blocks(response) == (
        Text(text="one", signature="UzE="),
        Text(text="two"),
        Text(text="", signature="UzI="),
    )


def test_a_finish_with_zero_parts_is_an_empty_turn() -> None:
    """Rule 48: legitimate, not a transport error; MAX_TOKENS may come with none."""
    for reason, stop in (("STOP", "end"), ("MAX_TOKENS", "max_tokens")):
        decoded = decode(GeminiStream().finish(reason))
        assert (decoded.fragments, decoded.stop, decoded.ended) == ((), stop, True)


def test_no_finish_reason_is_a_cut() -> None:
    decoded = decode(GeminiStream().thought("partial").cut())
    assert (decoded.stop, decoded.ended) == ("no_finish", False)


def test_safety_and_blocked_prompts_are_refusals() -> None:
    assert decode(GeminiStream().text("I can").finish("SAFETY")).stop == "refusal"
    blocked = json_response({"promptFeedback": {"blockReason": "SAFETY"}})
    assert decode(blocked).stop == "refusal"


def test_a_call_without_an_id_gets_a_deterministic_one() -> None:
    gemini = codec()
    first = gemini.decode(GeminiStream().call("f", {}).finish())
    second = gemini.decode(GeminiStream().call("f", {}).finish())
    assert first.fragments[0] == CallStart("call1", "gemini_call_1", "f")
    assert second.fragments[0] == CallStart("call1", "gemini_call_2", "f")


def test_a_json_response_and_a_json_array_of_chunks() -> None:
    candidate = {
        "content": {"role": "model", "parts": [{"text": "Hi"}, {"text": " there"}]},
        "finishReason": "STOP",
    }
    assert blocks(json_response({"candidates": [candidate]})) == (Text(text="Hi there"),)
    chunks = [
        {"candidates": [{"content": {"parts": [{"text": "Hi"}]}}]},
        {"candidates": [{"content": {"parts": [{"text": "!"}]}, "finishReason": "STOP"}]},
    ]
    assert blocks(json_response(chunks)) == (Text(text="Hi!"),)


def test_a_mid_stream_error_is_a_cut() -> None:
    stream = GeminiStream().text("Hel")
    stream.chunks.append(b'data: {"error": {"code": 503}}\n\n')
    assert decode(stream.finish()).stop == "no_finish"
